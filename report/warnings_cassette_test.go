package report

import (
	"slices"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/results"
)

// replayed sets each record's cassette misses from misses (one count per record, in order).
func replayed(recs []results.Attempt, misses ...int) []results.Attempt {
	for i := range recs {
		n := misses[i]
		recs[i].CassetteMisses = &n
	}
	return recs
}

// TestCassetteMissesWarning: a replayed run whose variant met misses the baseline did not gets the
// cassette_misses warning with both arms' counts, worded with them; equal misses, and a run that was not
// replayed, get none.
func TestCassetteMissesWarning(t *testing.T) {
	base := replayed(analysistest.TasksOf("base", "PPPPPFFFFF"), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	v := replayed(analysistest.TasksOf("v", "PPPPFFFFFF"), 0, 0, 0, 3, 0, 0, 1, 0, 0, 0)
	a := analysis.Analyze(analysistest.Cat(base, v), analysis.Inputs{})
	w := a.Warning(analysis.WarnCassetteMisses)
	want := []analysis.ArmMisses{{Arm: "base", Misses: 0, Missing: 0, Attempts: 10}, {Arm: "v", Misses: 4, Missing: 2, Attempts: 10}}
	if w == nil || !slices.Equal(w.Misses, want) || !slices.Equal(w.Variants, []string{"v"}) {
		t.Fatalf("cassette_misses warning = %+v, want misses %+v about v", w, want)
	}
	wantIn(t, worded(a, analysis.WarnCassetteMisses), "v vs base: The arms met different cassette misses",
		"base 0 misses in 0 of 10 attempts, v 4 misses in 2 of 10 attempts", "cassette.misses")

	same := replayed(analysistest.TasksOf("v", "PPPPFFFFFF"), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	if w := analysis.Analyze(analysistest.Cat(base, same), analysis.Inputs{}).Warning(analysis.WarnCassetteMisses); w != nil {
		t.Errorf("equal misses: warning %+v, want none", w)
	}
	live := analysistest.Cat(analysistest.TasksOf("base", "PPPPPFFFFF"), analysistest.TasksOf("v", "PPPPFFFFFF"))
	if w := analysis.Analyze(live, analysis.Inputs{}).Warning(analysis.WarnCassetteMisses); w != nil {
		t.Errorf("a run not replayed: warning %+v, want none", w)
	}
}
