package runner

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"webbench/agent"
	"webbench/agent/guard"
	"webbench/browser"
	"webbench/results"
	"webbench/suites"
)

// guardE2E is one deterministic guard on/off case (GUARDS.md "Testing every guard"): a Zoo task tagged with the
// guard and running under its mutation, a test fault profile (testdata/profiles/<guard>.yaml, `base: clean` plus
// the guard's failure mode at probability 1), and what the two arms must show.
type guardE2E struct {
	// name is the subtest name and the profile file's base name (default: guard).
	name  string
	guard string
	task  string
	// alsoOff lists guards that are off in both arms.
	alsoOff []string
	// timeout overrides the task's timeout in both arms (0 = the task's).
	timeout time.Duration
	// offMode is the failure mode of the "off" arm.
	offMode string
	// onActions are guard event actions that must appear in the "on" trajectory.
	onActions []string
	// check makes case-specific assertions on the two trajectories.
	check func(t *testing.T, on, off *agent.Trajectory)
}

// e2eSeed is the model seed of both arms (Variant.Seed): the profiles set every relevant probability to 0 or 1,
// and the seed fixes the remaining coins (the retry-or-snapshot fallback after a blocked click, the loop pattern).
const e2eSeed = "7"

// isolationDeadline is the evaluate_isolation case's attempt deadline: the guard-off arm's hung evaluate runs
// until it, and the guard-on arm (a 5 s cut, then the rest of the task) must finish well before it even when a
// loaded machine makes each click take seconds (3–4 s seen at load 14), so that the two arms differ by the
// guard and not by the machine.
const isolationDeadline = 20 * time.Second

var guardE2ECases = []guardE2E{
	{
		// The consent dialog covers the home page, so the first click (link "Yoga Mat") is intercepted. Off, the
		// raw call log is never understood: the policy retries the click or re-snapshots (seeded coin) until the
		// stall limit. The record's failure mode is "intercepted", not "stalled": FailureMode ranks
		// `intercepted` (the last failed call was an intercepted click and no action succeeded after it) above
		// the stall budget that actually ended the loop (DESIGN.md "Failure modes" order).
		guard: guard.NameInterceptHint, task: "shop-checkout-yoga-mat-express",
		offMode: "intercepted", onActions: []string{"condensed", "recovered"},
		check: func(t *testing.T, on, off *agent.Trajectory) {
			rOn := interceptRecords(on)
			if len(rOn) == 0 {
				t.Fatal("on: no intercepted click in the trajectory")
			}
			for _, r := range rOn {
				if !strings.Contains(r.ShownText(), "Click not delivered:") || len(r.ShownText()) >= len(r.RawText()) {
					t.Errorf("on: intercepted click not condensed (raw %d bytes, text %d bytes): %.200q", len(r.RawText()), len(r.ShownText()), r.ShownText())
				}
				// The raw Playwright error, call log included, stays in the trajectory.
				if !strings.Contains(r.RawText(), "locator resolved to") || !strings.Contains(r.RawText(), "intercepts pointer events") {
					t.Errorf("on: raw call log not kept in the trajectory: %.300q", r.RawText())
				}
			}
			rOff := interceptRecords(off)
			if len(rOff) == 0 {
				t.Fatal("off: no intercepted click in the trajectory")
			}
			for _, r := range rOff {
				// repeat_guard (on) may append its note to a third identical failure; the rest is untouched.
				text, _, _ := strings.Cut(r.ShownText(), "\n"+guard.RepeatNoteHeading+"\n")
				if strings.TrimRight(text, "\n") != strings.TrimRight(r.RawText(), "\n") {
					t.Errorf("off: model-facing text of an intercepted click differs from the raw result")
				}
			}
			if off.Finish.Reason != "stalled" {
				t.Errorf("off: finish reason %q, want stalled (three iterations of failed clicks)", off.Finish.Reason)
			}
		},
	},
	{
		// Seed 001, first change. The policy loops on no-op evaluates after the answer is in view and never heeds
		// the note. On: note from the 3rd call, tools withheld after the 5th, and the policy answers with the
		// JSON. Off: the loop runs to max_steps. final_recovery is off in BOTH arms: on, its recovery turn after
		// max_steps rescues the off arm whatever the profile says — a JSON reply passes, and so does the
		// non-JSON one (prose "**Answer:** 4.2", which the answer judge accepts from the record's `final` text) —
		// so the off arm could not fail deterministically with it on.
		guard: guard.NameRepeatGuard, task: "shop-qa-stasis-ball-rating", alsoOff: []string{guard.NameFinalRecovery},
		offMode: "loop", onActions: []string{"note", "withhold_tools"},
		check: func(t *testing.T, on, off *agent.Trajectory) {
			if n := withheldSteps(on); n != 1 {
				t.Errorf("on: %d requests with tools withheld, want 1", n)
			}
			if n := withheldSteps(off); n != 0 {
				t.Errorf("off: %d requests with tools withheld, want 0", n)
			}
			if on.Finish.Reason != "answered" || on.Finish.RecoveredFrom != "" {
				t.Errorf("on: finish %q recovered_from %q, want answered directly", on.Finish.Reason, on.Finish.RecoveredFrom)
			}
			if off.Finish.Reason != "max_steps" || off.Finish.Output != "" {
				t.Errorf("off: finish reason %q output %q, want max_steps without output", off.Finish.Reason, off.Finish.Output)
			}
		},
	},
	{
		// Seed 001, second change. repeat_guard (on in both arms) withholds tools after the 5th no-op evaluate;
		// the policy then replies with empty content. On: final_recovery's user turn gets the JSON. Off: the
		// attempt ends on the empty reply. Its failure mode is "loop", not "no_json": FailureMode ranks `loop`
		// (the tool calls end inside a streak of ≥5 no-op evaluates) above `no_json` (DESIGN.md "Failure modes"
		// order; agent/failuremode_test.go pins the same for an answer given after a counter loop). The no_json
		// route of final_recovery is the prose case below.
		guard: guard.NameFinalRecovery, task: "shop-qa-stasis-ball-rating",
		offMode: "loop", onActions: []string{"recover", "answered"},
		check: func(t *testing.T, on, off *agent.Trajectory) {
			if on.Finish.RecoveredFrom != "empty_output" {
				t.Errorf("on: recovered_from %q, want empty_output", on.Finish.RecoveredFrom)
			}
			if off.Finish.Reason != "empty_output" {
				t.Errorf("off: finish reason %q, want empty_output", off.Finish.Reason)
			}
			for name, tr := range map[string]*agent.Trajectory{"on": on, "off": off} {
				if withheldSteps(tr) != 1 || tr.GuardCounts[guard.NameRepeatGuard] == 0 {
					t.Errorf("%s: repeat_guard did not withhold tools once", name)
				}
			}
		},
	},
	{
		// final_recovery's non_json_output route: the policy ends with Markdown prose. On: the recovery turn gets
		// the JSON. Off: the prose is the record's final text; the task's exact-match rule (SKU "MH-07") rejects
		// it, so the attempt fails as no_json. (On a must-include or number rule the prose "**Answer:** …" would
		// pass the answer judge, and there would be nothing to flip.)
		name: "final_recovery_prose", guard: guard.NameFinalRecovery, task: "shop-qa-hero-hoodie-sku",
		offMode: "no_json", onActions: []string{"recover", "answered"},
		check: func(t *testing.T, on, off *agent.Trajectory) {
			if on.Finish.RecoveredFrom != "non_json_output" {
				t.Errorf("on: recovered_from %q, want non_json_output", on.Finish.RecoveredFrom)
			}
			if off.Finish.Reason != "non_json_output" || !strings.HasPrefix(off.Finish.Output, "## Done") {
				t.Errorf("off: finish reason %q output %.60q, want non_json_output with the prose", off.Finish.Reason, off.Finish.Output)
			}
		},
	},
	{
		// ref_churn re-renders the search results and the cart inside the first press after every action, so
		// the policy's first click on such a page is lost and fails as a stale ref (no timer, no think time).
		// On: the error is
		// followed by a fresh snapshot and the policy goes on. Off: the policy repeats the call with the stale
		// ref; the stall limit ends the attempt (FailureMode counts a stall-limit end with ≥3 stale-ref errors
		// among the last 5 results as stale_ref_deadlock, as it does the error budget).
		guard: guard.NameStaleRefRefresh, task: "shop-cart-radiant-tee-quantity",
		offMode: "stale_ref_deadlock", onActions: []string{"refresh"},
		check: func(t *testing.T, on, off *agent.Trajectory) {
			if n := refreshedRecords(on); n == 0 {
				t.Error("on: no tool result was followed by a fresh snapshot")
			}
			if n := refreshedRecords(off); n != 0 {
				t.Errorf("off: %d refreshed results", n)
			}
			// One call per iteration: three stalled iterations (stall limit 3) come before five consecutive
			// errors (error budget 5), so the stall limit ends the deadlock.
			if off.Finish.Reason != "stalled" {
				t.Errorf("off: finish reason %q, want stalled", off.Finish.Reason)
			}
			if n := len(staleRecords(off)); n < 3 {
				t.Errorf("off: %d stale-ref errors, want at least 3", n)
			}
		},
	},
	{
		// Seed 002, fix 1. late_hydration serves the chat's loading shell (generic > img, no interactive ref)
		// for 2–8 s after the load (4 × the load's time). On: the first observation is re-captured once the page
		// shows the login form. Off: the policy sees the empty shell and gives up with ok=false.
		guard: guard.NameSnapshotReady, task: "chat-post-release-planning-dana",
		offMode: "empty_snapshot", onActions: []string{"recapture", "ready"},
		check: func(t *testing.T, on, off *agent.Trajectory) {
			if !browser.HasInteractiveRef(on.FirstObservationText()) {
				t.Error("on: the first observation has no interactive ref")
			}
			if browser.HasInteractiveRef(off.FirstObservationText()) {
				t.Error("off: the first observation already has an interactive ref (hydration not late?)")
			}
			if off.Finish.Final == nil || off.Finish.Final.OK || off.Finish.Final.Error == nil ||
				!strings.Contains(*off.Finish.Final.Error, "accessibility tree is incomplete") {
				t.Errorf("off: final %+v, want ok=false giving up on the incomplete tree", off.Finish.Final)
			}
			if len(records(off)) != 0 {
				t.Errorf("off: %d tool calls before giving up, want 0", len(records(off)))
			}
		},
	},
	{
		// Seed 003. hung_fetch makes api/nutrition/<id> never answer, and the policy always plays the solution's
		// evaluate that awaits it. On: the call gets a 5 s budget, is terminated, the error comes back and the
		// policy goes on to read the answer from the page. Off: the plain page.Evaluate never returns and the
		// attempt's (shortened, isolationDeadline) deadline ends it while the evaluate is running.
		guard: guard.NameEvaluateIsolation, task: "recipes-qa-tikka-masala-sodium", timeout: isolationDeadline,
		offMode: "hung_evaluate", onActions: []string{"evaluate", "timeout"},
		check: func(t *testing.T, on, off *agent.Trajectory) {
			var hung *agent.ToolRecord
			for _, r := range records(on) {
				if browser.BaseName(r.Call.Name) == "browser_evaluate" {
					hung = r
				}
			}
			if hung == nil || !hung.Failed || !strings.Contains(hung.RawText(), "evaluate timed out after") ||
				hung.DurationMS < 4000 || hung.DurationMS >= isolationDeadline.Milliseconds() {
				t.Errorf("on: evaluate record %+v, want a failed call cut off after about 5 s, before the deadline", hung)
			}
			if off.Finish.Reason != "timeout" {
				t.Errorf("off: finish reason %q, want timeout", off.Finish.Reason)
			}
			if on.DurationMS >= isolationDeadline.Milliseconds() {
				t.Errorf("on: took %d ms, not less than the %v deadline", on.DurationMS, isolationDeadline)
			}
		},
	},
	{
		// Seed 004. nameless_switch leaves the plan form's switch without an accessible name; the policy plays the
		// seed's sequence: two guessed refs (fail) + a boxes snapshot; boxes + a guess (fail) + a coordinate
		// click; a guess (fail) + a snapshot; then Save. On: the successful browser_mouse_click_xy resets the
		// stall counter. Off: it does not count, all three iterations are stalled and the attempt stops before
		// Save, as in seed 004.
		guard: guard.NameVisualProgress, task: "planner-storefront-plan-switch-off",
		offMode: "stalled", onActions: []string{"action"},
		check: func(t *testing.T, on, off *agent.Trajectory) {
			for name, tr := range map[string]*agent.Trajectory{"on": on, "off": off} {
				n := 0
				for _, r := range records(tr) {
					if browser.BaseName(r.Call.Name) == "browser_mouse_click_xy" {
						n++
						if r.Failed || r.Action != (name == "on") {
							t.Errorf("%s: mouse click failed=%t action=%t", name, r.Failed, r.Action)
						}
					}
				}
				if n != 1 {
					t.Errorf("%s: %d coordinate clicks, want 1", name, n)
				}
			}
			if off.Finish.Reason != "stalled" {
				t.Errorf("off: finish reason %q, want stalled", off.Finish.Reason)
			}
		},
	},
}

// TestGuardsOnOffEndToEnd runs, for each guard, its target Zoo task at a fixed seed twice through Run in real
// Chromium with the scripted policy over HTTP — all guards on, and only that guard off — under a test profile
// that sets the guard's failure mode to probability 1, and asserts the seed's before/after: on passes, off fails
// with the guard's failure mode; the guard's events are in the "on" trajectory and absent from the "off" one.
func TestGuardsOnOffEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s, err := suites.Open("zoo", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	byID := map[string]suites.Task{}
	for _, tk := range s.Tasks() {
		byID[tk.ID] = tk
	}
	// One run plays every case's two arms (named CASE/on and CASE/off, each on its case's task only), so that
	// both workers stay busy across the cases' timeouts.
	cases := slices.Clone(guardE2ECases)
	var tasks []suites.Task
	var vs []Variant
	for i := range cases {
		c := &cases[i]
		if c.name == "" {
			c.name = c.guard
		}
		task, ok := byID[c.task]
		if !ok {
			t.Fatalf("%s: zoo has no task %s", c.name, c.task)
		}
		if !task.HasTag(c.guard) {
			t.Fatalf("%s: task %s is not tagged %s (tags %v)", c.name, c.task, c.guard, task.Tags)
		}
		if !slices.ContainsFunc(tasks, func(x suites.Task) bool { return x.ID == task.ID }) {
			tasks = append(tasks, task)
		}
		vs = append(vs, guardArms(*c)...)
	}
	dir, recs := runByVariant(t, Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: vs, BaseSeed: 1}, s)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkGuardE2E(t, dir, recs, c) })
	}
}

// guardArms are case c's two arms: all guards on but c.alsoOff (CASE/on), and the same with c.guard off too
// (CASE/off), both under the case's test profile, at the fixed seed, on the case's task only.
func guardArms(c guardE2E) []Variant {
	prof := filepath.Join("testdata", "profiles", c.name+".yaml")
	model := Model{Kind: "scripted", Name: "scripted", Profile: prof}
	onGuards, offGuards := guard.Default(), guard.Default()
	for _, g := range c.alsoOff {
		onGuards[g], offGuards[g] = false, false
	}
	offGuards[c.guard] = false
	only := map[string]bool{c.task: true}
	return []Variant{
		{Name: c.name + "/on", Model: model, Guards: onGuards, Seed: e2eSeed, Timeout: c.timeout, TaskIDs: only, Scope: "target"},
		{Name: c.name + "/off", Model: model, Guards: offGuards, Seed: e2eSeed, Timeout: c.timeout, TaskIDs: only, Scope: "target"},
	}
}

// checkGuardE2E asserts case c's before/after on the records of its arms in recs (by variant name) and their
// trajectories in the run directory dir.
func checkGuardE2E(t *testing.T, dir string, recs map[string]results.Attempt, c guardE2E) {
	onGuards := guard.Default()
	for _, g := range c.alsoOff {
		onGuards[g] = false
	}
	rOn, rOff := recs[c.name+"/on"], recs[c.name+"/off"]
	if rOn.AttemptID == "" || rOff.AttemptID == "" {
		t.Fatalf("want one record per arm, got %d variants", len(recs))
	}
	trOn, trOff := readTrajectory(t, dir, rOn), readTrajectory(t, dir, rOff)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("on  (%s): %s", rOn.AttemptID, describeTrajectory(trOn))
			t.Logf("off (%s): %s", rOff.AttemptID, describeTrajectory(trOff))
		}
	})
	if rOn.Seed == nil || rOff.Seed == nil || *rOn.Seed != *rOff.Seed || fmt.Sprint(*rOn.Seed) != e2eSeed {
		t.Errorf("arms do not share the fixed seed %s", e2eSeed)
	}
	if !rOn.Guards[c.guard] || rOff.Guards[c.guard] {
		t.Errorf("guard settings recorded on=%v off=%v", rOn.Guards[c.guard], rOff.Guards[c.guard])
	}
	for g, v := range rOff.Guards {
		if want := g != c.guard && onGuards[g]; v != want || rOn.Guards[g] != onGuards[g] {
			t.Errorf("%s recorded on=%v off=%v, want on=%v off=%v", g, rOn.Guards[g], v, onGuards[g], want)
		}
	}
	// The outcome flips in the direction of the seed.
	if rOn.Status != results.StatusPass {
		t.Errorf("on: status %s (failure mode %q, finish %q, verdict %q, error %q), want pass",
			rOn.Status, rOn.FailureMode, rOn.FinishReason, rOn.Verdict.Reason, rOn.Error)
	}
	if rOff.Status != results.StatusFail || string(rOff.FailureMode) != c.offMode {
		t.Errorf("off: status %s, failure mode %q (finish %q, verdict %q, error %q), want fail / %s",
			rOff.Status, rOff.FailureMode, rOff.FinishReason, rOff.Verdict.Reason, rOff.Error, c.offMode)
	}
	// The guard's events are in the "on" trajectory and its record, and absent from the "off" ones.
	if trOn.GuardCounts[c.guard] == 0 || rOn.GuardEvents[c.guard] != trOn.GuardCounts[c.guard] {
		t.Errorf("on: %s events: trajectory %d, record %d", c.guard, trOn.GuardCounts[c.guard], rOn.GuardEvents[c.guard])
	}
	actions := map[string]int{}
	for _, e := range trOn.Events {
		if e.Guard == c.guard {
			actions[e.Action]++
		}
	}
	for _, a := range c.onActions {
		if actions[a] == 0 {
			t.Errorf("on: no %s %q event (events: %v)", c.guard, a, actions)
		}
	}
	if n := countEvents(trOff, c.guard); n != 0 || trOff.GuardCounts[c.guard] != 0 || rOff.GuardEvents[c.guard] != 0 {
		t.Errorf("off: %d %s events in the trajectory (count %d, record %d)", n, c.guard,
			trOff.GuardCounts[c.guard], rOff.GuardEvents[c.guard])
	}
	if c.check != nil {
		c.check(t, trOn, trOff)
	}
}

// runByVariant runs plan on s (2 workers, log discarded) into a new directory and returns it with the final
// record of each variant (each plays one attempt: one task, one rep), by variant name.
func runByVariant(t *testing.T, plan Plan, s suites.Suite) (string, map[string]results.Attempt) {
	t.Helper()
	dir := t.TempDir()
	opts := Options{OutDir: dir, Workers: 2, Log: io.Discard, BrowserEndpoint: sharedBrowser(t)}
	if _, err := Run(context.Background(), plan, s, opts); err != nil {
		t.Fatal(err)
	}
	rr, err := results.ReadAttempts(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]results.Attempt{}
	for _, r := range rr.Final() {
		recs[r.Variant] = r
	}
	return dir, recs
}

func readTrajectory(t *testing.T, dir string, r results.Attempt) *agent.Trajectory {
	t.Helper()
	if r.Trajectory == "" {
		t.Fatalf("attempt %s (%s) has no trajectory", r.AttemptID, r.Variant)
	}
	tr, err := results.ReadTrajectory(filepath.Join(dir, r.Trajectory))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func countEvents(tr *agent.Trajectory, g string) int {
	n := 0
	for _, e := range tr.Events {
		if e.Guard == g {
			n++
		}
	}
	for _, st := range tr.Steps {
		for _, e := range st.Events {
			if e.Guard == g {
				n++
			}
		}
	}
	return n
}

// records returns every tool record of tr, in order.
func records(tr *agent.Trajectory) []*agent.ToolRecord {
	var out []*agent.ToolRecord
	for _, st := range tr.Steps {
		out = append(out, st.Results...)
	}
	return out
}

// interceptRecords returns the failed tool results whose raw text is Playwright's intercepted-click log.
func interceptRecords(tr *agent.Trajectory) []*agent.ToolRecord {
	var out []*agent.ToolRecord
	for _, r := range records(tr) {
		if r.Failed && strings.Contains(r.RawText(), results.InterceptPhrase) {
			out = append(out, r)
		}
	}
	return out
}

// staleRecords returns the failed tool results that report a ref missing from the current snapshot.
func staleRecords(tr *agent.Trajectory) []*agent.ToolRecord {
	var out []*agent.ToolRecord
	for _, r := range records(tr) {
		if r.Failed && strings.Contains(r.RawText(), browser.StaleRefPhrase) {
			out = append(out, r)
		}
	}
	return out
}

func withheldSteps(tr *agent.Trajectory) int {
	n := 0
	for _, st := range tr.Steps {
		if st.Request.ToolsWithheld && !st.Recovery {
			n++
		}
	}
	return n
}

func refreshedRecords(tr *agent.Trajectory) int {
	n := 0
	for _, r := range records(tr) {
		if r.Refreshed {
			n++
		}
	}
	return n
}

// describeTrajectory is a one-line-per-step summary for failure logs.
func describeTrajectory(tr *agent.Trajectory) string {
	var b strings.Builder
	fmt.Fprintf(&b, "finish=%s recovered_from=%q output=%.120q counts=%v", tr.Finish.Reason, tr.Finish.RecoveredFrom,
		tr.Finish.Output, tr.GuardCounts)
	for _, st := range tr.Steps {
		fmt.Fprintf(&b, "\n  step %d withheld=%t recovery=%t stalled=%t content=%.80q", st.Index,
			st.Request.ToolsWithheld, st.Recovery, st.Stalled, st.Content)
		for _, r := range st.Results {
			first := r.ShownText()
			if i := strings.Index(first, "### Error\n"); i >= 0 {
				first = first[i+len("### Error\n"):]
			}
			first, _, _ = strings.Cut(first, "\n")
			fmt.Fprintf(&b, "\n    %s %s failed=%t action=%t refreshed=%t %dms: %.100q", r.Call.Name, r.Call.Args,
				r.Failed, r.Action, r.Refreshed, r.DurationMS, first)
		}
		for _, e := range st.Events {
			fmt.Fprintf(&b, "\n    event %s/%s %s", e.Guard, e.Action, e.Detail)
		}
	}
	return b.String()
}
