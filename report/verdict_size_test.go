package report_test

import (
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/report"
)

// One comparison (bench compare's, or an ablation of one variant) of 4 tasks where none moved: the exact
// sign-flip p cannot go below 2/2^4 = 0.125 whatever the outcomes, so the verdict is "cannot tell: too few
// tasks", not "no difference shown"; 6 tasks are the fewest whose floor, 2/2^6 = 0.031, is below α = 0.05.
// With 6 tasks and none moved, a difference could have been shown: no difference shown.
func TestVerdictOneComparisonTooFewTasks(t *testing.T) {
	for _, c := range []struct {
		outcomes, word, text string
	}{
		{"PPPP", "cannot tell: too few tasks",
			"no difference shown: at this size none can be (p ≥ 0.125 with 4 tasks compared; it takes 6 tasks)"},
		{"PPPPPP", "no difference shown", ""},
	} {
		recs := analysistest.Cat(analysistest.TasksOf("base", c.outcomes), analysistest.TasksOf("v", c.outcomes))
		a := analysis.Analyze(recs, analysis.Inputs{})
		vd := a.VerdictOf(&a.Variants[0], 0)
		if got := report.VerdictWord(vd); got != c.word {
			t.Errorf("%s: verdict %q, want %q", c.outcomes, got, c.word)
		}
		if got := report.VerdictText(vd); c.text != "" && got != c.text {
			t.Errorf("%s: text %q, want %q", c.outcomes, got, c.text)
		}
	}
}
