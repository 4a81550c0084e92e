package analysis

import (
	"slices"
	"testing"

	"webbench/results"
)

// TestCassetteWarningsCommonPairs: a variant scoped to one of two tasks is compared with the baseline on that
// task only — equal misses there give no warning although the baseline missed on the other task.
func TestCassetteWarningsCommonPairs(t *testing.T) {
	rec := func(task string, misses int) results.Attempt {
		return results.Attempt{Suite: "s", TaskID: task, Status: results.StatusPass, CassetteMisses: &misses}
	}
	by := map[string][]results.Attempt{
		"base":   {rec("a", 0), rec("b", 3)},
		"scoped": {rec("a", 0)},
		"differ": {rec("a", 2)},
	}
	a := &Analysis{Baseline: "base", Variants: []VariantResult{{Name: "scoped"}, {Name: "differ"}}}
	var got []Warning
	cassetteWarnings(a, by, func(w Warning) { got = append(got, w) })
	if len(got) != 1 || !slices.Equal(got[0].Variants, []string{"differ"}) {
		t.Fatalf("warnings = %+v, want one, for differ", got)
	}
	want := []ArmMisses{{Arm: "base", Attempts: 1}, {Arm: "differ", Misses: 2, Missing: 1, Attempts: 1}}
	if !slices.Equal(got[0].Misses, want) {
		t.Errorf("Misses = %+v, want %+v", got[0].Misses, want)
	}
}
