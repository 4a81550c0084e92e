package agents_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"webbench/results"
)

// guardModes are the tool-level guards webbench's MCP server runs for an external agent, with the failure mode
// an attempt ends in when the guard is off and the fault it handles strikes (docs/GUARDS.md; results/vocab.go):
// intercept_hint → intercepted (a consent layer swallows the click and the model never learns why),
// snapshot_ready → empty_snapshot (the snapshot of a page still rendering has no interactive ref),
// evaluate_isolation → hung_evaluate (an evaluate the page never answers runs into the deadline). Without
// stale_ref_refresh the Node agent's own stall rule ends the attempt after three stale-ref clicks with an
// ok=false answer, which the classifier calls gave_up (stale_ref_deadlock needs the built-in loop's stalled or
// error-budget finish): any failure is accepted for it ("").
var guardModes = map[string]results.FailureMode{
	"intercept_hint":     results.ModeIntercepted,
	"snapshot_ready":     results.ModeEmptySnapshot,
	"evaluate_isolation": results.ModeHungEvaluate,
	"stale_ref_refresh":  "",
}

// TestNodeAgentToolGuardsLeaveOneOut checks "a leave-one-out ablation with the Node agent shows the
// tool-level guards' effects": `bench ablate node-guards.yaml` runs the Node agent under the scripted policy's
// observed profile with every guard on (baseline) and with one tool-level guard off per arm, each arm on the
// spec's tasks tagged with its guard (the suite's tags). From the records: the baseline passes every task, with
// the guard acting (guard events) where an off-arm is compared to it; each off-arm switched exactly its guard and
// fails at least one of its target tasks with its guard's failure mode where the baseline passes.
func TestNodeAgentToolGuardsLeaveOneOut(t *testing.T) {
	if testing.Short() {
		t.Skip("real-Chromium test (-short)")
	}
	needNodeAgent(t)
	run, _ := runAblate(t, "node-guards.yaml")

	plan := run.Manifest.Plan
	tags := map[string][]string{}
	for _, task := range zooTasks(t) {
		tags[task.ID] = task.Tags
	}
	arms := byArm(run.Final())
	base := map[string]results.Attempt{}
	for _, a := range arms["node"] {
		base[a.TaskID] = a
		if a.Status != results.StatusPass || a.Model != "scripted:observed" {
			t.Errorf("baseline on %s: status %q model %q failure mode %q error %q", a.TaskID, a.Status, a.Model,
				a.FailureMode, a.Error)
		}
	}
	if got := slices.Sorted(maps.Keys(base)); !slices.Equal(got, slices.Sorted(slices.Values(plan.Tasks))) {
		t.Fatalf("baseline ran on %v, the plan's tasks are %v", got, plan.Tasks)
	}

	for g, mode := range guardModes {
		name := "no_" + g
		t.Run(name, func(t *testing.T) {
			recs := arms[name]
			var want []string
			for _, id := range plan.Tasks {
				if slices.Contains(tags[id], g) {
					want = append(want, id)
				}
			}
			var got []string
			for _, a := range recs {
				got = append(got, a.TaskID)
			}
			slices.Sort(want)
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Fatalf("%s ran on %v; the spec's tasks tagged %s are %v", name, got, g, want)
			}
			shown, raced := 0, 0
			var outcomes []string
			for _, a := range recs {
				outcomes = append(outcomes, fmt.Sprintf("%s: %s %s", a.TaskID, a.Status, a.FailureMode))
				for k, on := range a.Guards {
					if on == (k == g) {
						t.Fatalf("%s on %s: guards %v, want only %s off", name, a.TaskID, a.Guards, g)
					}
				}
				if a.GuardEvents[g] != 0 {
					t.Errorf("%s on %s: %d %s events with the guard off", name, a.TaskID, a.GuardEvents[g], g)
				}
				b := base[a.TaskID]
				if g == "snapshot_ready" && (late(t, run, b) || late(t, run, a)) {
					// The chat app renders 2–8 s after its load event (late_hydration, suites/zoo/hydration.go
					// hydrationDelay: at least 2.0 s), a wall-clock fault: an external agent whose first snapshot comes that late (a slow Node start on
					// a loaded machine) finds the page rendered, with the guard on or off. Such a pair shows
					// nothing about the guard either way, so it is left out (and logged).
					outcomes = append(outcomes[:len(outcomes)-1], outcomes[len(outcomes)-1]+" (first snapshot after the render: left out)")
					raced++
					continue
				}
				if a.Status == results.StatusFail && (mode == "" || a.FailureMode == mode) && b.Status == results.StatusPass {
					shown++
					if b.GuardEvents[g] == 0 {
						t.Errorf("baseline on %s passed without a %s event: the guard did not act where its absence failed",
							a.TaskID, g)
					}
				}
			}
			t.Logf("%s: %v", name, outcomes)
			if shown == 0 && raced == len(recs) {
				t.Skipf("%s: every pair's first snapshot came after the page rendered (machine too loaded to show the "+
					"late_hydration fault): %v", name, outcomes)
			}
			if shown == 0 {
				t.Errorf("%s: no failure %s on its target tasks where the baseline passes: %v", name, cmpOrMode(mode), outcomes)
			}
		})
	}
}

// late reports whether attempt a's first browser_snapshot started 1.5 s or more after its MCP server began
// (trajectory started_ms): the page, which began loading before that, has then most likely rendered already
// (late_hydration's delay is at least 2.0 s after the load), so the attempt cannot show the empty-snapshot fault.
func late(t *testing.T, run *results.Run, a results.Attempt) bool {
	t.Helper()
	tr, err := run.Trajectory(a.AttemptID)
	if err != nil {
		t.Fatalf("%s: %v", a.AttemptID, err)
	}
	for _, st := range tr.Steps {
		for _, r := range st.Results {
			if r.Call.Name == "browser_snapshot" {
				return r.StartedMS >= 1500
			}
		}
	}
	return false
}

// cmpOrMode names the failure mode an arm must show ("of any mode" when any).
func cmpOrMode(m results.FailureMode) string {
	if m == "" {
		return "of any mode"
	}
	return "with mode " + string(m)
}
