package runner

import (
	"context"
	"errors"
	"io"
	"maps"
	"reflect"
	"slices"
	"testing"

	"webbench/results"
	"webbench/suites"
)

// firstDecides is a stopping rule for the scheduler's tests: once variant has a record, its attempts without
// one are skipped as decided worse at unit 1 (the analysis' rule is tested in analysis/sequential_test.go).
type firstDecides struct {
	variant string
	plan    Plan
}

func (f firstDecides) Skips(latest map[string]results.Attempt) map[string]results.SeqSkip {
	out := map[string]results.SeqSkip{}
	decided := slices.ContainsFunc(slices.Collect(maps.Values(latest)), func(a results.Attempt) bool { return a.Variant == f.variant })
	if !decided {
		return out
	}
	atts, _ := f.plan.Expand()
	for _, a := range atts {
		if _, ok := latest[a.AttemptID]; !ok && a.Variant == f.variant {
			out[a.AttemptID] = results.SeqSkip{Variant: f.variant, Stop: "worse", Unit: 1, Attempts: 1}
		}
	}
	return out
}

func TestSeqUnitsAndOrder(t *testing.T) {
	tasks := []suites.Task{{ID: "a1", Cluster: "a"}, {ID: "b1", Cluster: "b"}, {ID: "a2", Cluster: "a"}, {ID: "c"}}
	units := SeqUnits(tasks, 1)
	if len(units) != 3 || !reflect.DeepEqual(units, SeqUnits(tasks, 1)) {
		t.Fatalf("units %+v: want 3, the same for the same seed", units)
	}
	i := slices.IndexFunc(units, func(u results.SeqUnit) bool { return u.Name == "a" })
	if i < 0 || !slices.Equal(units[i].Tasks, []string{"a1", "a2"}) {
		t.Errorf("unit a is %+v: want its tasks in plan order", units)
	}
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 2, Variants: []Variant{{Name: "baseline"}, {Name: "v"}}}
	atts, _ := plan.Expand()
	got := seqOrder(atts, units)
	var order []string
	for _, a := range got {
		if u := unitOf(units, a.TaskID); len(order) == 0 || order[len(order)-1] != u {
			order = append(order, u)
		}
	}
	if want := []string{units[0].Name, units[1].Name, units[2].Name}; !slices.Equal(order, want) {
		t.Errorf("attempts start in units %v, want the look order %v, each unit's together", order, want)
	}
	for i := 0; i < len(got); i += 2 {
		if got[i].PairID != got[i+1].PairID {
			t.Fatalf("attempts %d and %d: the arms of a pair are apart", i, i+1)
		}
	}
}

func unitOf(units []results.SeqUnit, task string) string {
	for _, u := range units {
		if slices.Contains(u.Tasks, task) {
			return u.Name
		}
	}
	return ""
}

// One worker, three Zoo tasks, a rule that decides the variant at its first record: the variant's other attempts
// never start and the summary records them as skipped with the reason; the baseline runs in full, in the units'
// order; a re-run has nothing to run and keeps the skips; resuming without the design is refused. Then the
// attempt budget: it stops new starts across invocations, the summary names it and the manifest records it.
// Three tasks are the fewest that still skip more than one attempt and give the units an order of their own (not
// the plan's, checked below); a budget of 1, then 2 on resume, shows the limit and its count across invocations.
func TestRunSequentialSkipsAndBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	s, tasks := zooShop(t, "shop-qa-*")
	tasks = tasks[:min(3, len(tasks))]
	v := cleanVariant()
	v.Name = "v"
	base := cleanVariant()
	base.Name = "baseline"
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: []Variant{base, v}, BaseSeed: 1,
		Ablation: &results.Ablation{Alpha: 0.05, Sequential: &results.Sequential{Alpha: 0.05, Units: SeqUnits(tasks, 1)}}}
	dir := t.TempDir()
	opts := Options{OutDir: dir, Workers: 1, Log: io.Discard, BrowserEndpoint: sharedBrowser(t),
		Sequential: firstDecides{variant: "v", plan: plan}}
	if _, err := Run(context.Background(), plan, s, Options{OutDir: dir, Log: io.Discard}); err == nil {
		t.Fatal("a sequential plan ran without its rule")
	}
	sum, err := Run(context.Background(), plan, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	run, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var vRecs, order []string
	for _, r := range run.Final() {
		if r.Variant == "v" {
			vRecs = append(vRecs, r.TaskID)
		} else {
			order = append(order, r.TaskID)
		}
	}
	want := []results.SeqSkip{{Variant: "v", Stop: "worse", Unit: 1, Attempts: len(tasks) - 1}}
	if len(vRecs) != 1 || vRecs[0] != plan.Ablation.Sequential.Units[0].Tasks[0] || !reflect.DeepEqual(sum.SeqSkips, want) {
		t.Errorf("v ran on %v with skips %+v: want once, on the first unit's task, then %+v", vRecs, sum.SeqSkips, want)
	}
	var units []string
	for _, u := range plan.Ablation.Sequential.Units {
		units = append(units, u.Tasks...)
	}
	if !slices.Equal(order, units) {
		t.Errorf("the baseline ran %v, want every task in the units' order %v", order, units)
	}
	var planOrder []string
	for _, tk := range tasks {
		planOrder = append(planOrder, tk.ID)
	}
	if slices.Equal(units, planOrder) {
		t.Errorf("the units' order %v is the plan's: the order check above cannot tell them apart", units)
	}
	if c := run.Completeness(); c.Missing != 0 || sum.Stopped != "" {
		t.Errorf("completeness %+v, stopped %q: the skipped attempts are not missing", c, sum.Stopped)
	}
	again, err := Run(context.Background(), plan, s, opts)
	if err != nil || again.Ran != 0 || !reflect.DeepEqual(again.SeqSkips, want) {
		t.Errorf("re-run: %+v, %v; want nothing run, the same skips", again, err)
	}
	fixed := plan
	fixed.Ablation = &results.Ablation{Alpha: 0.05}
	if _, err := Run(context.Background(), fixed, s, Options{OutDir: dir, Workers: 1, Log: io.Discard}); !errors.Is(err, ErrPlanMismatch) {
		t.Errorf("resuming without the design: %v, want ErrPlanMismatch", err)
	}

	bdir := t.TempDir()
	bopts := Options{OutDir: bdir, Workers: 1, Log: io.Discard, BrowserEndpoint: sharedBrowser(t), MaxAttempts: 1}
	bsum, err := Run(context.Background(), fixed, s, bopts)
	if err != nil || bsum.Ran != 1 || bsum.Budget != results.BudgetAttempts || bsum.Stopped != "attempt limit 1 reached" {
		t.Fatalf("budget 1: %+v, %v; want 1 run, stopped on max_attempts", bsum, err)
	}
	bopts.MaxAttempts = 2
	if bsum, err = Run(context.Background(), fixed, s, bopts); err != nil || bsum.Ran != 1 || bsum.Budget != results.BudgetAttempts {
		t.Errorf("budget 2 on resume: %+v, %v; want 1 more run (the run's attempts count across invocations)", bsum, err)
	}
	// The manifest records the budget the invocation ran under, so the report can state it.
	if m, err := results.ReadManifest(bdir); err != nil || m.Summary == nil ||
		!reflect.DeepEqual(m.Summary.Budgets, &results.Budgets{MaxAttempts: 2}) {
		t.Errorf("manifest summary %+v (%v): want budgets {max_attempts: 2}", m.Summary, err)
	}
}
