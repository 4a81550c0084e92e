package analysis

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"webbench/analysis/analysistest"
	"webbench/results"
)

// sides returns the two sides of a comparison of one run's records with itself: variant va of side A against
// variant vb of side B (pairs match on pair_id, which has no variant in it).
func sides(recs []results.Attempt, va, vb string) (RunSide, RunSide) {
	return RunSide{Label: LabelRunA, Name: "a", Attempts: recs, Variant: va},
		RunSide{Label: LabelRunB, Name: "b", Attempts: recs, Variant: vb}
}

// TestCompareRunsErrors: a missing variant, a gate without a common task (not applied, no verdict), a side without
// a judged attempt.
func TestCompareRunsErrors(t *testing.T) {
	recs := analysistest.Cat(analysistest.TasksOf("base", "PPPP"), analysistest.TasksOf("v", "FFFF"))
	a, b := sides(recs, "base", "nope")
	var mv *MissingVariantError
	if _, err := CompareRuns(a, b, CompareOptions{}); !errors.As(err, &mv) || mv.Side != "b" ||
		err.Error() != `b has no variant "nope" (it has: base, v)` {
		t.Errorf("missing variant: %v", err)
	}
	other := []results.Attempt{analysistest.Rec("base", "x0", 0, 'P'), analysistest.Rec("base", "x1", 0, 'F')}
	a, b = RunSide{Label: LabelRunA, Name: "a", Attempts: recs, Suite: "zoo"},
		RunSide{Label: LabelRunB, Name: "b", Attempts: other, Suite: "shop"}
	var nc *NoCommonTaskError
	g, err := CompareRuns(a, b, CompareOptions{FailIfWorse: 0.05})
	if err != nil || !g.Ungated || g.Gate != nil || !errors.As(g.GateError(), &nc) || nc.A != "a" ||
		!strings.Contains(g.GateError().Error(), "share no task judged in both (suite zoo → shop; tasks: 4 only in A, 2 only in B; 0 common pairs") {
		t.Errorf("gate without a common task: %v, %+v", err, g)
	}
	if v := g.Verdict(); v.Kind != VerdictNoCommonPairs || g.Overlap != (Overlap{TasksA: 4, TasksB: 2}) {
		t.Errorf("no common task: verdict %s, overlap %+v; want no_common_pairs, 4 and 2 tasks, none common", v.Kind, g.Overlap)
	}
	c, err := CompareRuns(a, b, CompareOptions{})
	if err != nil || c.Result().All.Method != MethodFisher || c.Gate != nil {
		t.Fatalf("no common task without a gate: %v, %+v", err, c)
	}
	if want := []string{"suite zoo → shop", "tasks: 4 only in A, 2 only in B"}; !slices.Equal(c.Differences, want) {
		t.Errorf("differences of runs of two suites = %q, want %q", c.Differences, want)
	}
	b.Suite = "zoo"
	if c, err := CompareRuns(a, b, CompareOptions{}); err != nil || !slices.Equal(c.Differences, []string{"tasks: 4 only in A, 2 only in B"}) {
		t.Errorf("differences of runs of one suite = %q, %v", c.Differences, err)
	}
	b.Attempts = []results.Attempt{analysistest.Rec("base", "t0", 0, 'I')}
	if _, err := CompareRuns(a, b, CompareOptions{}); !errors.Is(err, ErrNothingToCompare) || !strings.Contains(err.Error(), `"base" has no judged attempt in b`) {
		t.Errorf("no judged attempt: %v", err)
	}
}

// CompareParams takes run A's ablation parameters, else run B's, else none (the defaults); an ablation without
// an alpha gives way to the other run's.
func TestCompareParams(t *testing.T) {
	a := &results.Ablation{Alpha: 0.01, Power: 0.9, MinEffect: 0.2}
	b := &results.Ablation{Alpha: 0.1, Power: 0.7, MinEffect: 0.05}
	noAlpha := &results.Ablation{Power: 0.95, MinEffect: 0.3}
	params := func(o CompareOptions) [3]float64 { return [3]float64{o.Alpha, o.Power, o.MinEffect} }
	for _, c := range []struct {
		name       string
		ablA, ablB *results.Ablation
		want       [3]float64
	}{
		{"neither", nil, nil, [3]float64{}},
		{"A only", a, nil, [3]float64{0.01, 0.9, 0.2}},
		{"B only", nil, b, [3]float64{0.1, 0.7, 0.05}},
		{"both: A's", a, b, [3]float64{0.01, 0.9, 0.2}},
		{"A without alpha, B: B's", noAlpha, b, [3]float64{0.1, 0.7, 0.05}},
		{"A without alpha alone: A's", noAlpha, nil, [3]float64{0, 0.95, 0.3}},
	} {
		o := CompareParams(c.ablA, c.ablB)
		if got := params(o); got != c.want || o.FailIfWorse != 0 || o.SameDir {
			t.Errorf("%s: %v (%+v), want %v", c.name, got, o, c.want)
		}
	}
}
