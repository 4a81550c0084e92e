package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"webbench/agent/guard"
	"webbench/browser"
	"webbench/results"
	"webbench/runner"
	"webbench/spec"
	"webbench/suites"
	"webbench/suites/zoo/zootest"
)

// Same seed, same outcome: every paired comparison assumes an arm reproduces its outcome when it runs
// again with the same seeds. On a loaded machine (cpuHogs busy processes beside the run, one per core of the
// machine: runtime.NumCPU), with 2 workers, on one hand-written task per cell, app × mutations
// (zootest.SampleTaskCells: every page condition of every app with hand-written tasks, the mutations' timers
// on each app's own pages; WEBBENCH_TEST_ZOO_FAMILIES=1 one task of each family, WEBBENCH_TEST_WHOLE_ZOO=1
// every task):
//
//   - the sample under the clean profile, reps 1, run twice with the same seed (two `bench run --tasks`):
//     every attempt's status, failure mode and verdict are the same in both runs, and every attempt passes
//     (ZOO.md: clean with all guards on passes every task);
//   - the guard-on baseline arm of the demo spec (suites/zoo/ablations/demo.yaml: profile observed, seed 1, on
//     the union of the variants' target tasks; replaySpec copies its baseline as written), reps 1, with a
//     same-seed A/A arm (`aa: same-seed`), on the cell sample of that arm's tasks (`bench ablate --tasks`): the
//     report's environment flake rate is 0 of its pairs, one per sampled task.
//
// "The same" is outcomeKey: status, failure mode, verdict, steps, final answer (maskFinal: only the tenant's URL
// token, the origin's port, order and confirmation numbers are masked) and guard events (snapshot_ready's too,
// but for shellRace). Every attempt of both runs (both arms) must have finished (pass or fail: an infrastructure
// error would compare equal to another one, so it fails the test). No click may have been decided without the
// click probe (probeSkips).
//
// A difference is a bug to find (in the browser tools, the Zoo's pages or the policy), not a retry to add. The
// test asserts no timing: the hogs only make races likelier. Its run directories are kept when it fails.
//
// The load comes from one CPU hog per core, or as many as WEBBENCH_TEST_HOGS says (hogsEnv): make test runs this
// test beside its package pass, whose browser tests load two cores more than two hogs would, and starts hogs only
// for the cores beyond two. The load average is logged at each run's start and end (loadAvg), since a failure
// beside the pass met a load no later run repeats.
func TestSameSeedSameOutcome(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test (two runs of a Zoo sample, one ablation)")
	}
	cpuHogs(t, hogCount(t))
	keep, err := os.MkdirTemp("", "determinism")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("run directories kept in %s", keep)
			return
		}
		os.RemoveAll(keep)
	})

	t.Run("clean_zoo", func(t *testing.T) {
		sample := zootest.SampleTaskCells(t, nil, nil)
		run := func(name string) map[string]results.Attempt {
			out := filepath.Join(keep, name)
			loadAvg(t, "before "+name)
			defer loadAvg(t, "after "+name)
			_, stderr, code := bench(t, "run", "--suite", "zoo", "--tasks", strings.Join(sample, ","), "--reps", "1",
				"--workers", "2", "--model", "scripted", "--profile", "clean", "--seed", "17", "--out", out)
			if code != 0 {
				t.Fatalf("bench run %s: exit %d\n%s", name, code, stderr)
			}
			return finalByID(t, out)
		}
		a, b := run("clean-1"), run("clean-2")
		if len(a) != len(sample) || len(b) != len(sample) {
			t.Fatalf("attempts: %d and %d, want one per sampled Zoo task (%d)", len(a), len(b), len(sample))
		}
		for _, rs := range []map[string]results.Attempt{a, b} {
			if got := taskIDs(rs); !slices.Equal(got, sample) {
				t.Fatalf("attempts on %v, want the sample %v", got, sample)
			}
		}
		for i, rs := range []map[string]results.Attempt{a, b} {
			if e := unfinished(rs); len(e) > 0 {
				t.Errorf("run %d: attempts not finished (status error): %s", i+1, strings.Join(e, "; "))
			}
		}
		if diff := outcomeDiff(a, b); len(diff) > 0 {
			t.Errorf("same seed, different outcomes (run 1 vs run 2):\n%s", strings.Join(diff, "\n"))
		}
		for i, rs := range []map[string]results.Attempt{a, b} {
			if sk := probeSkips(rs); len(sk) > 0 {
				t.Errorf("run %d: click probe skipped in %s", i+1, strings.Join(sk, ", "))
			}
		}
		for _, r := range a {
			if r.Status != results.StatusPass {
				t.Errorf("clean: %s %s (%s): %s", r.TaskID, r.Status, r.FailureMode, r.Verdict.Reason)
			}
		}
	})

	t.Run("observed_demo_baseline", func(t *testing.T) {
		body, all := replaySpec(t, demoSpec)
		path := filepath.Join(keep, "observed.yaml")
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		ids := zootest.SampleTaskCells(t, func(task suites.Task) bool { return slices.Contains(all, task.ID) }, nil)
		out := filepath.Join(keep, "observed")
		loadAvg(t, "before the ablation")
		defer loadAvg(t, "after the ablation")
		if _, stderr, code := bench(t, "ablate", path, "--tasks", strings.Join(ids, ","), "--out", out); code != 0 {
			t.Fatalf("bench ablate: exit %d\n%s", code, stderr)
		}
		js, stderr, code := bench(t, "report", out, "--format", "json")
		if code != 0 {
			t.Fatalf("bench report: exit %d\n%s", code, stderr)
		}
		var doc struct {
			FlakeRates []struct {
				Pairs    int      `json:"pairs"`
				Differ   int      `json:"differ"`
				Examples []string `json:"examples"`
			} `json:"flake_rates"`
		}
		if err := json.Unmarshal([]byte(js), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.FlakeRates) != 1 {
			t.Fatalf("flake_rates: %+v", doc.FlakeRates)
		}
		f := doc.FlakeRates[0]
		if f.Pairs != len(ids) {
			t.Errorf("flake rate over %d pairs, want %d (one per task)", f.Pairs, len(ids))
		}
		if f.Differ != 0 {
			t.Errorf("the demo baseline replayed with the same seeds differs on %d of %d pairs: %s", f.Differ, f.Pairs,
				strings.Join(f.Examples, "; "))
		}
		// Beyond the flake rate (status, failure mode, verdict): steps, final and guard events per pair.
		arm := map[string]map[string]results.Attempt{"baseline": {}, "replay": {}}
		for _, r := range finalByID(t, out) {
			if m, ok := arm[r.Variant]; ok {
				m[r.PairID] = r
			}
		}
		if len(arm["baseline"]) != len(ids) || len(arm["replay"]) != len(ids) {
			t.Fatalf("attempts: baseline %d, replay %d, want %d each", len(arm["baseline"]), len(arm["replay"]), len(ids))
		}
		for name, rs := range arm {
			if got := taskIDs(rs); !slices.Equal(got, ids) {
				t.Fatalf("%s: attempts on %v, want the sample %v", name, got, ids)
			}
		}
		for name, rs := range arm {
			if e := unfinished(rs); len(e) > 0 {
				t.Errorf("%s: attempts not finished (status error): %s", name, strings.Join(e, "; "))
			}
		}
		if diff := outcomeDiff(arm["baseline"], arm["replay"]); len(diff) > 0 {
			t.Errorf("baseline vs its same-seed replay:\n%s", strings.Join(diff, "\n"))
		}
		for name, rs := range arm {
			if sk := probeSkips(rs); len(sk) > 0 {
				t.Errorf("%s: click probe skipped in %s", name, strings.Join(sk, ", "))
			}
		}
	})
}

// maskFinal masks the tenant's URL token, the origin's port, the shop's order numbers and the stays'
// confirmation numbers in their real formats (here those of tenants 1 and 2, shop.go orderNumber and stays.go
// confirmationNumber), and nothing else: a rating, a price, a count or a build number stays as written, so
// two answers that differ there still differ.
func TestMaskFinal(t *testing.T) {
	const tenant1, tenant2 = "3f9c2a7e5b1d48c6a0e2f4b6d8c1a3e5", "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
	for in, want := range map[string]string{
		"17919":        "<order>",        // shop, tenant 1: 10000 + 7919
		"1982.451.653": "<confirmation>", // stays, tenant 1: 1000000000 + 982451653
		"## Done\n\nI completed the task.\n\n**Answer:** 25838\n\nLast page: http://127.0.0.1:41235/t/" + tenant1 +
			"/shop/checkout/success?order=25838": "## Done\n\nI completed the task.\n\n**Answer:** <order>\n\n" +
			"Last page: http://127.0.0.1:<port>/t/<tenant>/shop/checkout/success?order=<order>",
		"Last page: http://127.0.0.1:39017/t/" + tenant2 + "/stays/booking/2964.903.306": "Last page: " +
			"http://127.0.0.1:<port>/t/<tenant>/stays/booking/<confirmation>",
		"4.6":   "4.6",   // a rating (shop.yaml: Rated ([\d.]+) out of 5)
		"1,284": "1,284", // a stays price (€ ([\d,]+))
		"229":   "229",   // calories
		"MH-07": "MH-07",
		`Posted "Ticket 4471 is fixed in build 7.4.2" in Support Escalations as luis.ortega.`: `Posted "Ticket 4471 is ` +
			`fixed in build 7.4.2" in Support Escalations as luis.ortega.`,
		"123456":        "123456",        // six digits: not an order number
		"17919.5":       "17919.5",       // nor a part of a longer number
		"982.451.653":   "982.451.653",   // nor a confirmation number with a short first group
		"1982.451.6530": "1982.451.6530", // or a long last one
	} {
		if got := maskFinal(in); got != want {
			t.Errorf("maskFinal(%q) = %q, want %q", in, got, want)
		}
	}
	// Answers that differ only in what varies per run compare equal; in anything else, they differ.
	same := [][2]string{{"17919", "25838"}, {"1982.451.653", "2964.903.306"},
		{"http://127.0.0.1:41235/t/" + tenant1 + "/shop/", "http://127.0.0.1:39017/t/" + tenant2 + "/shop/"}}
	for _, p := range same {
		if maskFinal(p[0]) != maskFinal(p[1]) {
			t.Errorf("%q and %q: masked %q and %q, want equal", p[0], p[1], maskFinal(p[0]), maskFinal(p[1]))
		}
	}
	for _, p := range [][2]string{{"4.6", "3.9"}, {"1,284", "1,248"}, {"229", "230"}, {"6", "8"}} {
		if maskFinal(p[0]) == maskFinal(p[1]) {
			t.Errorf("%q and %q compare equal once masked (%q)", p[0], p[1], maskFinal(p[0]))
		}
	}
}

// The observed subtest's spec is the demo spec's baseline (replaySpec checks it against the demo's expanded
// baseline arm) with one same-seed A/A arm, on the baseline arm's tasks. No browser: it only expands the specs.
// outcomeDiff leaves snapshot_ready's events out only of a pair where one run met the shell and the other did
// not; two different re-capture counts are a difference.
func TestOutcomeDiffShellRace(t *testing.T) {
	att := func(events map[string]int) map[string]results.Attempt {
		return map[string]results.Attempt{"a1": {AttemptID: "a1", TaskID: "chat-post", Status: results.StatusPass,
			Steps: 4, GuardEvents: events}}
	}
	race := outcomeDiff(att(map[string]int{"snapshot_ready": 2}), att(nil))
	counts := outcomeDiff(att(map[string]int{"snapshot_ready": 2}), att(map[string]int{"snapshot_ready": 3}))
	other := outcomeDiff(att(map[string]int{"intercept_hint": 1}), att(nil))
	if len(race) != 0 || len(counts) != 1 || len(other) != 1 {
		t.Fatalf("shell race %q, re-capture counts %q, another guard %q", race, counts, other)
	}
}

func TestReplaySpecIsDemoBaseline(t *testing.T) {
	body, ids := replaySpec(t, demoSpec)
	s, err := spec.ParseSpec("replay.yaml", body)
	if err != nil {
		t.Fatal(err)
	}
	if s.Reps != 1 || s.Workers != 2 || s.Tasks != strings.Join(ids, ",") || len(s.Variants) != 1 ||
		results.AAMode(s.Variants[0].AA) != results.AASameSeed || s.Design != "" {
		t.Errorf("replay spec:\n%s", body)
	}
}

// demoSpec is the spec whose guard-on baseline the observed subtest replays.
const demoSpec = "../../suites/zoo/ablations/demo.yaml"

// replaySpec is the observed subtest's spec and its task ids: the baseline of the spec at demoPath on its
// baseline arm's tasks (ids, sorted), reps 1, workers 2, with one same-seed A/A arm named "replay". The demo's
// `baseline:` section is copied as written (whatever it sets: model and profile, guards, prompt, max_steps,
// timeout, seed), and so are its top-level keys that shape an arm's runs (suite, seed, suite_options); the keys
// that only shape the ablation (its name, tasks glob, reps, workers, design, scope, variants, statistics, gate,
// notes) are dropped or set. A top-level key it does not know fails the test, and so does a replayed baseline that
// expands to another runner variant than the demo's baseline arm (model, guards, prompt, budgets, seed mode), or
// to another suite, base seed or suite options.
func replaySpec(t *testing.T, demoPath string) ([]byte, []string) {
	t.Helper()
	demo, err := spec.LoadSpec(demoPath)
	if err != nil {
		t.Fatal(err)
	}
	s, err := suites.Open(demo.Suite, demo.SuiteOptions)
	if err != nil {
		t.Fatal(err)
	}
	tasks := s.Tasks()
	s.Close()
	demoArms, err := demo.Expand(tasks)
	if err != nil {
		t.Fatal(err)
	}
	base := demoArms.Variants[0]
	ids := slices.Sorted(maps.Keys(base.TaskIDs))
	if len(ids) == 0 || base.Model.Profile != "observed" {
		t.Fatalf("demo baseline: profile %q on %d tasks", base.Model.Profile, len(ids))
	}
	b, err := os.ReadFile(demoPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		t.Fatalf("%s: not a YAML mapping (%v)", demoPath, err)
	}
	out := map[string]any{"name": "demo-baseline-replay", "tasks": strings.Join(ids, ","), "reps": 1, "workers": 2,
		"variants": []map[string]string{{"name": "replay", "aa": string(results.AASameSeed)}}}
	top := doc.Content[0].Content
	for i := 0; i+1 < len(top); i += 2 {
		switch k := top[i].Value; k {
		case "suite", "seed", "suite_options", "baseline":
			out[k] = top[i+1]
		case "name", "tasks", "reps", "workers", "design", "scope", "variants", "alpha", "power", "min_effect",
			"fail_if_worse", "notes":
		default:
			t.Fatalf("%s:%d: key %q: replaySpec does not know whether it shapes the baseline's runs: copy or drop it "+
				"there", demoPath, top[i].Line, k)
		}
	}
	body, err := yaml.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	// What the replay runs is the demo's baseline arm: the same runner variant (but its task set and name), and
	// the same suite, suite options and base seed.
	rs, err := spec.ParseSpec("replay.yaml", body)
	if err != nil {
		t.Fatalf("replay spec: %v\n%s", err, body)
	}
	arms, err := rs.Expand(tasks)
	if err != nil {
		t.Fatal(err)
	}
	if len(arms.Variants) != 2 || len(arms.Replays) != 1 {
		t.Fatalf("replay spec: %d arms, replays %v, want the baseline and one same-seed arm\n%s", len(arms.Variants),
			arms.Replays, body)
	}
	strip := func(v runner.Variant) runner.Variant {
		v.Name, v.Scope, v.TaskIDs, v.Switched = "", "", nil, nil
		return v
	}
	if got, want := strip(arms.Variants[0]), strip(base); !reflect.DeepEqual(got, want) {
		t.Fatalf("the replayed baseline is not the demo's baseline arm:\n got %+v\nwant %+v\n%s", got, want, body)
	}
	if rs.Suite != demo.Suite || rs.Seed != demo.Seed || !maps.Equal(rs.SuiteOptions, demo.SuiteOptions) {
		t.Fatalf("replay spec: suite %q seed %d options %v, demo: suite %q seed %d options %v", rs.Suite, rs.Seed,
			rs.SuiteOptions, demo.Suite, demo.Seed, demo.SuiteOptions)
	}
	return body, ids
}

// taskIDs lists the task ids of rs's attempts, sorted.
func taskIDs(rs map[string]results.Attempt) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.TaskID)
	}
	sort.Strings(out)
	return out
}

// unfinished lists the attempts that did not finish (results.Attempt.Done: pass or fail), sorted.
func unfinished(rs map[string]results.Attempt) []string {
	var out []string
	for _, r := range rs {
		if !r.Done() {
			out = append(out, fmt.Sprintf("%s rep %d: %s %s (%s)", r.TaskID, r.Rep, r.Status, r.FailureMode, r.Error))
		}
	}
	sort.Strings(out)
	return out
}

// finalByID reads a run directory's final records by attempt id.
func finalByID(t *testing.T, dir string) map[string]results.Attempt {
	t.Helper()
	run, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]results.Attempt{}
	for _, r := range run.Final() {
		out[r.AttemptID] = r
	}
	return out
}

// The run-specific parts of a final answer (maskFinal): everything else in it, every other number included (a
// price, a rating, a calorie count), must be equal between two runs.
var (
	// tenantToken is the tenant's URL token, "/t/<id>": 16 random bytes in hex per tenant (zoo.go newTenantID).
	tenantToken = regexp.MustCompile(`/t/[0-9a-f]{32}`)
	// originPort is a URL origin's port: the Zoo listens on a random port per `bench run` (zoo.go Options.Addr),
	// which a prose final's "Last page:" URL shows.
	originPort = regexp.MustCompile(`(https?://[^/\s:]+):[0-9]+`)
	// numberToken is a number as written: digits, with "." or "," between digit groups ("4.6", "1,284",
	// "1982.451.653"), so that a part of a longer number is never masked on its own.
	numberToken = regexp.MustCompile(`[0-9]+(?:[.,][0-9]+)*`)
	// orderNumber is the shop's order number, 10000 + (seq·7919 + k·131) mod 90000 (shop.go orderNumber): 5 digits,
	// "Order #17919".
	orderNumber = regexp.MustCompile(`^[1-9][0-9]{4}$`)
	// confirmationNumber is the stays booking's confirmation number, 1000000000 + (seq·982451653 + k·7919) mod
	// 9000000000 shown as "NNNN.NNN.NNN" (stays.go confirmationNumber): "1982.451.653".
	confirmationNumber = regexp.MustCompile(`^[1-9][0-9]{3}\.[0-9]{3}\.[0-9]{3}$`)
)

// maskFinal masks what truly varies between two runs of an attempt with the same seed, and nothing else: the
// tenant's URL token, the origin's port and the Zoo's order and confirmation numbers — these derive from the
// tenant's creation order on the server (seq), which differs between a baseline and its replay in one run and
// with the workers' scheduling, not with the policy. A whole number of 5 digits counts as an order number.
func maskFinal(s string) string {
	s = tenantToken.ReplaceAllString(s, "/t/<tenant>")
	s = originPort.ReplaceAllString(s, "$1:<port>")
	return numberToken.ReplaceAllStringFunc(s, func(n string) string {
		switch {
		case orderNumber.MatchString(n):
			return "<order>"
		case confirmationNumber.MatchString(n):
			return "<confirmation>"
		}
		return n
	})
}

// outcomeKey is what must be equal between two runs of an attempt with the same seed: status, failure mode,
// verdict, steps, final answer (its run-specific parts masked: maskFinal) and guard events, but those of the
// guards in skip.
func outcomeKey(r results.Attempt, skip map[string]bool) string {
	var ev []string
	for g, n := range r.GuardEvents {
		if n != 0 && !skip[g] {
			ev = append(ev, fmt.Sprintf("%s=%d", g, n))
		}
	}
	sort.Strings(ev)
	return fmt.Sprintf("%s/%s/verdict=%v steps=%d events=[%s] final=%q", r.Status, r.FailureMode, r.Verdict.Pass,
		r.Steps, strings.Join(ev, " "), maskFinal(r.Final))
}

// shellRace is the one documented exception (ZOO.md "Late hydration and machine load"): when one run's attempt
// has snapshot_ready events and the other's none, one first snapshot met a late-hydrating page's shell and the
// other came after its render — which still depends on how late the first snapshot comes after the load — and
// snapshot_ready's events are left out of that pair's comparison. When both met the shell, the guard waited for
// the page in both and its event counts must be equal (a re-capture count that followed the machine's speed was
// a timer's).
func shellRace(a, b results.Attempt) map[string]bool {
	if (a.GuardEvents[guard.NameSnapshotReady] == 0) != (b.GuardEvents[guard.NameSnapshotReady] == 0) {
		return map[string]bool{guard.NameSnapshotReady: true}
	}
	return nil
}

// outcomeDiff lists the attempts whose outcomeKey differs between a and b (or that only one has), sorted.
func outcomeDiff(a, b map[string]results.Attempt) []string {
	var out []string
	for id, ra := range a {
		rb, ok := b[id]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s rep %d: only in run 1", ra.TaskID, ra.Rep))
		case outcomeKey(ra, shellRace(ra, rb)) != outcomeKey(rb, shellRace(ra, rb)):
			skip := shellRace(ra, rb)
			out = append(out, fmt.Sprintf("%s rep %d: %s vs %s (%q vs %q)", ra.TaskID, ra.Rep, outcomeKey(ra, skip),
				outcomeKey(rb, skip), ra.Verdict.Reason, rb.Verdict.Reason))
		}
	}
	for id, rb := range b {
		if _, ok := a[id]; !ok {
			out = append(out, fmt.Sprintf("%s rep %d: only in run 2", rb.TaskID, rb.Rep))
		}
	}
	sort.Strings(out)
	return out
}

// probeSkips lists the attempts with a click_probe event (a click whose probe did not answer within the action
// timeout, browser.ProbeSkipped): the test requires none, since such a click is decided without the probe.
func probeSkips(rs map[string]results.Attempt) []string {
	var out []string
	for _, r := range rs {
		if n := r.GuardEvents[browser.ProbeGuard]; n > 0 {
			out = append(out, fmt.Sprintf("%s rep %d: %d", r.TaskID, r.Rep, n))
		}
	}
	sort.Strings(out)
	return out
}

// cpuHogEnv makes the test binary a CPU hog (TestMain calls cpuHog); its value is the hog's parent pid.
const cpuHogEnv = "WEBBENCH_TEST_CPU_HOG"

// cpuHogLifetime caps a hog's life whatever happens to its parent (the determinism test took about 8 minutes
// on a loaded 2-core machine over the whole Zoo, WEBBENCH_TEST_WHOLE_ZOO=1).
const cpuHogLifetime = 45 * time.Minute

// cpuHog spins on one core until its parent (the pid in cpuHogEnv) is gone or cpuHogLifetime has passed: a
// test binary killed by -timeout's panic runs no t.Cleanup, so the hog watches for that itself (and is started
// with a parent-death signal where the OS has one, hogSysProcAttr). Hogs run at normal priority: niced, they
// would yield to the run they are meant to load.
func cpuHog() {
	parent, _ := strconv.Atoi(os.Getenv(cpuHogEnv))
	go func() {
		end := time.Now().Add(cpuHogLifetime)
		for os.Getppid() == parent && time.Now().Before(end) {
			time.Sleep(time.Second)
		}
		os.Exit(0)
	}()
	for x := uint64(1); ; x = x*6364136223846793005 + 1442695040888963407 {
		_ = x
	}
}

// hogsEnv overrides the determinism test's number of CPU hogs (default: one per core). make test sets the cores
// beyond two when the test runs beside the package pass, whose browser tests load the first two.
const hogsEnv = "WEBBENCH_TEST_HOGS"

// loadAvg logs the 1-, 5- and 15-minute load averages (/proc/loadavg; nothing where it does not exist) with when,
// so that a failing run's load can be read from its log.
func loadAvg(t *testing.T, when string) {
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		t.Logf("load average %s: %s", when, strings.Join(strings.Fields(string(b))[:3], " "))
	}
}

// hogCount is the number of CPU hogs the determinism test starts: hogsEnv's value (a count ≥ 0) or one per core.
func hogCount(t *testing.T) int {
	v, ok := os.LookupEnv(hogsEnv)
	if !ok || v == "" {
		return runtime.NumCPU()
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a count of CPU hogs (0 or more)", hogsEnv, v)
	}
	return n
}

// cpuHogs starts n busy processes (this test binary re-executed as a hog), killed when the test ends, and
// gone on their own when the test binary dies (cpuHog).
func cpuHogs(t *testing.T, n int) {
	t.Helper()
	for range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), cpuHogEnv+"="+strconv.Itoa(os.Getpid()))
		cmd.SysProcAttr = hogSysProcAttr()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}
}
