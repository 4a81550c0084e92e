package runner

import (
	"context"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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

// familyCase is one arm of the family run: its variant and the sampled instances it plays.
type familyCase struct {
	v     Variant
	tasks []suites.Task
}

// familyCases are the family run's arms: "clean" (every guard on, the clean profile) on one instance per app
// (solutions), and "off-<guard>" (that guard off, its test profile) on one instance per mutation whose guard it
// is, sorted by guard. It fails the test when the sample does not load.
func familyCases(t *testing.T) []familyCase {
	t.Helper()
	all, err := zoo.BuiltinInstances()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]suites.Task{}
	for _, tk := range all {
		byID[tk.ID] = tk
	}
	pick := func(ids []string) []suites.Task {
		var out []suites.Task
		for _, id := range ids {
			out = append(out, byID[id])
		}
		return out
	}
	cases := []familyCase{{v: cleanVariant(), tasks: pick(zootest.SampleCells(t, nil, zootest.App))}}
	cases[0].v.Name = "clean"
	byGuard := map[string][]suites.Task{}
	mutated := zootest.SampleCells(t, func(tk suites.Task) bool { return len(tk.Mutations) > 0 }, zootest.Mutations)
	for _, tk := range pick(mutated) {
		for _, m := range tk.Mutations {
			mu, _ := zoo.LookupMutation(m)
			byGuard[mu.Guard] = append(byGuard[mu.Guard], tk)
		}
	}
	for _, g := range slices.Sorted(maps.Keys(byGuard)) {
		gs := guard.Default()
		gs[g] = false
		v := Variant{Name: "off-" + g, Guards: gs, Seed: e2eSeed,
			Model: Model{Kind: "scripted", Name: "scripted", Profile: filepath.Join("testdata", "profiles", g+".yaml")}}
		if g == guard.NameEvaluateIsolation {
			// The hung evaluate holds the attempt until its deadline: shorter than the tasks' 30–60 s, long
			// enough for the steps before it on a loaded machine (at 12 s some attempts ended before it).
			v.Timeout = 20 * time.Second
		}
		cases = append(cases, familyCase{v: v, tasks: byGuard[g]})
	}
	return cases
}

// familyRun is the one run of every family case (familyCases): one plan, so that the runner's workers play the
// solutions and every guard's few mutated instances side by side instead of one short run per guard after
// another. Both family tests read it; the first to ask runs it.
var familyRun = struct {
	once  sync.Once
	cases []familyCase
	recs  map[string][]results.Attempt // final records by variant name
	err   error
}{}

// familyRecords returns the family cases and the final records of their run, by variant name (skipped with
// -short).
func familyRecords(t *testing.T) ([]familyCase, map[string][]results.Attempt) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test")
	}
	cases := familyCases(t)
	endpoint := sharedBrowser(t)
	familyRun.once.Do(func() {
		familyRun.cases = cases
		familyRun.recs, familyRun.err = runFamilyCases(cases, endpoint)
	})
	if familyRun.err != nil {
		t.Fatal(familyRun.err)
	}
	return familyRun.cases, familyRun.recs
}

// runFamilyCases runs every case on the Zoo with every instance (the shared browser at endpoint) and returns
// the final records by variant name.
func runFamilyCases(cases []familyCase, endpoint string) (map[string][]results.Attempt, error) {
	s, err := suites.Open("zoo", suites.Options{"instances": zoo.SelectAll})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	plan := Plan{Suite: "zoo", Reps: 1, BaseSeed: 1}
	byID := map[string]suites.Task{}
	for _, tk := range s.Tasks() {
		byID[tk.ID] = tk
	}
	inPlan := map[string]bool{}
	for _, c := range cases {
		v := c.v
		v.TaskIDs = map[string]bool{}
		for _, tk := range c.tasks {
			v.TaskIDs[tk.ID] = true
			if !inPlan[tk.ID] {
				inPlan[tk.ID] = true
				plan.Tasks = append(plan.Tasks, byID[tk.ID])
			}
		}
		plan.Variants = append(plan.Variants, v)
	}
	dir, err := os.MkdirTemp("", "zoo-families")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	opts := Options{OutDir: dir, Workers: familyWorkers, Log: io.Discard, BrowserEndpoint: endpoint}
	if _, err := Run(context.Background(), plan, s, opts); err != nil {
		return nil, err
	}
	rr, err := results.ReadAttempts(dir)
	if err != nil {
		return nil, err
	}
	out := map[string][]results.Attempt{}
	for _, r := range rr.Final() {
		out[r.Variant] = append(out[r.Variant], r)
	}
	return out, nil
}

func TestZooFamilySolutions(t *testing.T) {
	cases, recs := familyRecords(t)
	tasks, got := cases[0].tasks, recs[cases[0].v.Name]
	if len(got) != len(tasks) {
		t.Fatalf("%d records for %d instances", len(got), len(tasks))
	}
	for _, r := range got {
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
	cases, recs := familyRecords(t)
	for _, c := range cases[1:] {
		g := strings.TrimPrefix(c.v.Name, "off-")
		t.Run(g, func(t *testing.T) {
			got := recs[c.v.Name]
			if len(got) != len(c.tasks) {
				t.Errorf("%d records for %d instances", len(got), len(c.tasks))
			}
			for _, r := range got {
				if r.Status != results.StatusFail || string(r.FailureMode) != familyOffModes[g] {
					t.Errorf("%s with %s off: status %s, failure mode %q (finish %q, verdict %q), want fail / %s",
						r.TaskID, g, r.Status, r.FailureMode, r.FinishReason, r.Verdict.Reason, familyOffModes[g])
				}
			}
		})
	}
}
