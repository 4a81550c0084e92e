package reporttest

import (
	"testing"

	"webbench/analysis"
	"webbench/results"
)

// AnalyzeExplained opens the run directory dir (a recorded ablation, such as analysis/testdata/why-run), analyses
// it and explains its pairs as `bench report` does (analysis.AnalyzeRun, analysis.Explain); it fails t on an error.
func AnalyzeExplained(t testing.TB, dir string) (*results.Run, *analysis.Analysis, *analysis.Why) {
	t.Helper()
	run, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := analysis.AnalyzeRun(run, analysis.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	read := analysis.RunTrajectories(run)
	return run, a, analysis.Explain(a, read, read)
}
