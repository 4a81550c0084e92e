package runner

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"webbench/agent/guard"
	"webbench/results"
	"webbench/suites"
	"webbench/suites/zoo"
	"webbench/suites/zoo/zootest"
)

// The Zoo's family instances in real Chromium with the scripted policy (ZOO.md "Task families"): every sampled
// instance's solution passes under the clean profile with every guard on, and every sampled mutated instance
// fails with its mutation's guard off under that guard's test profile (testdata/profiles/<guard>.yaml, the
// guard's failure mode at probability 1, as in guards_e2e_test.go). make test plays one instance per app (the
// solutions) and one per mutation (the guards off): zootest.SampleCells; zootest.CellsEnv=1 one per app ×
// mutations; zootest.FamiliesEnv=1 one per family; make zoo-check sets zootest.WholeZooEnv
// and runs every instance.

// familyWorkers is the runner's browser count for these runs: the attempts mostly wait (page loads, a hung
// evaluate's budget), so more workers than the machine's 2 cores pay.
const familyWorkers = 4

// familyOffModes is the failure mode each guard's off arm ends in (guards_e2e_test.go's cases).
var familyOffModes = map[string]string{
	guard.NameInterceptHint:     "intercepted",
	guard.NameStaleRefRefresh:   "stale_ref_deadlock",
	guard.NameSnapshotReady:     "empty_snapshot",
	guard.NameEvaluateIsolation: "hung_evaluate",
	guard.NameVisualProgress:    "stalled",
}

// familyInstances opens the Zoo with every instance and returns it with the sampled instances (not the
// hand-written tasks, which their apps' tests play) that keep accepts, one per cell (zootest.SampleCells).
func familyInstances(t *testing.T, keep func(suites.Task) bool, cell func(suites.Task) string) (suites.Suite, []suites.Task) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test")
	}
	s, err := suites.Open("zoo", suites.Options{"instances": zoo.SelectAll})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ids := zootest.SampleCells(t, keep, cell)
	var tasks []suites.Task
	for _, tk := range s.Tasks() {
		if slices.Contains(ids, tk.ID) {
			tasks = append(tasks, tk)
		}
	}
	return s, tasks
}

// runFamilies runs plan with the shared browser and returns the final records.
func runFamilies(t *testing.T, plan Plan, s suites.Suite) []results.Attempt {
	t.Helper()
	dir := t.TempDir()
	opts := Options{OutDir: dir, Workers: familyWorkers, Log: io.Discard, BrowserEndpoint: sharedBrowser(t)}
	if _, err := Run(context.Background(), plan, s, opts); err != nil {
		t.Fatal(err)
	}
	rr, err := results.ReadAttempts(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rr.Final()
}

func TestZooFamilySolutions(t *testing.T) {
	s, tasks := familyInstances(t, nil, zootest.App)
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: []Variant{cleanVariant()}, BaseSeed: 1}
	recs := runFamilies(t, plan, s)
	if len(recs) != len(tasks) {
		t.Fatalf("%d records for %d instances", len(recs), len(tasks))
	}
	for _, r := range recs {
		if r.Status != results.StatusPass {
			t.Errorf("%s (family %s): status %s, failure mode %q, finish %q, verdict %q, error %q", r.TaskID, r.Cluster,
				r.Status, r.FailureMode, r.FinishReason, r.Verdict.Reason, r.Error)
		}
		if !strings.HasPrefix(r.TaskID, r.Cluster+"/") {
			t.Errorf("%s: recorded cluster %q, want its family", r.TaskID, r.Cluster)
		}
	}
}

func TestZooFamilyMutationsNeedTheirGuard(t *testing.T) {
	s, tasks := familyInstances(t, func(tk suites.Task) bool { return len(tk.Mutations) > 0 }, zootest.Mutations)
	byGuard := map[string][]suites.Task{}
	for _, tk := range tasks {
		for _, m := range tk.Mutations {
			mu, _ := zoo.LookupMutation(m)
			byGuard[mu.Guard] = append(byGuard[mu.Guard], tk)
		}
	}
	guards := make([]string, 0, len(byGuard))
	for g := range byGuard {
		guards = append(guards, g)
	}
	sort.Strings(guards)
	for _, g := range guards {
		t.Run(g, func(t *testing.T) {
			gs := guard.Default()
			gs[g] = false
			v := Variant{Name: "off", Guards: gs, Seed: e2eSeed,
				Model: Model{Kind: "scripted", Name: "scripted", Profile: filepath.Join("testdata", "profiles", g+".yaml")}}
			if g == guard.NameEvaluateIsolation {
				// The hung evaluate holds the attempt until its deadline: shorter than the tasks' 30–60 s, long
				// enough for the steps before it on a loaded machine (at 12 s some attempts ended before it).
				v.Timeout = 20 * time.Second
			}
			plan := Plan{Suite: "zoo", Tasks: byGuard[g], Reps: 1, Variants: []Variant{v}, BaseSeed: 1}
			for _, r := range runFamilies(t, plan, s) {
				if r.Status != results.StatusFail || string(r.FailureMode) != familyOffModes[g] {
					t.Errorf("%s with %s off: status %s, failure mode %q (finish %q, verdict %q), want fail / %s",
						r.TaskID, g, r.Status, r.FailureMode, r.FinishReason, r.Verdict.Reason, familyOffModes[g])
				}
			}
		})
	}
}
