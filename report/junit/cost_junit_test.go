package junit

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/report"
	"webbench/results"
)

// A cost gate gives a testcase per gated outcome, failing when the gate fails it; the cost figures are
// properties; the document validates.
func TestJUnitCostGate(t *testing.T) {
	schema := junitSchema(t)
	recs := analysistest.CostRun(14, 2, 2.5, 7)
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base",
		FailIfCostlier: map[results.CostOutcome]float64{results.CostTokens: 0.2, results.CostWall: 5}})
	doc := renderValid(t, schema, "cost gate", func(w *bytes.Buffer) error {
		return junitRenderer{}.Ablation(w, &report.AblationReport{Dir: "runs/cost", Analysis: a, Records: recs})
	})
	s := doc.Suites[0]
	var tok, wall *junitCase
	for i := range s.Cases {
		switch s.Cases[i].Name {
		case "cost: tokens":
			tok = &s.Cases[i]
		case "cost: wall":
			wall = &s.Cases[i]
		}
	}
	if tok == nil || wall == nil || tok.Failure == nil || tok.Failure.Type != "costlier" || wall.Failure != nil {
		t.Fatalf("cost cases: tokens %+v, wall %+v", tok, wall)
	}
	if s.Tests != 14+2 || s.Failures != 1 {
		t.Errorf("tests %d failures %d, want 14 tasks + 2 cost cases, 1 failure", s.Tests, s.Failures)
	}
	c := a.Variants[0].Cost(results.CostTokens)
	if got := prop(s, "cost_tokens_ratio"); got != strconv.FormatFloat(c.Means.Ratio, 'g', -1, 64) {
		t.Errorf("cost_tokens_ratio %s, want %v", got, c.Means.Ratio)
	}
	if !strings.Contains(string(s.SystemErr), "Cost gate (fail if costlier than tokens +20%, wall +500%") ||
		!strings.Contains(string(s.SystemOut), "cost: v (14 tasks, 28 pairs)") {
		t.Errorf("system-out %q\nsystem-err %q", s.SystemOut, s.SystemErr)
	}
}
