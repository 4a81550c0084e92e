package json

import (
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/results"
)

// The JSON of a known token increase and of an A/A: costs per outcome and view with their figures, the cost gate.
func TestJSONCosts(t *testing.T) {
	gate := map[results.CostOutcome]float64{results.CostTokens: 0.2}
	m := mustJSON(t, analysis.Analyze(analysistest.CostRun(14, 2, 2.5, 7), analysis.Inputs{Baseline: "base",
		FailIfCostlier: gate}))
	costs := m["variants"].([]any)[0].(map[string]any)["costs"].([]any)
	if len(costs) != 8 {
		t.Fatalf("%d cost comparisons, want 4 outcomes × 2 views", len(costs))
	}
	tok := costs[1].(map[string]any)
	if tok["outcome"] != "tokens" || tok["view"] != "all" || tok["unit"] != "task" || tok["units"].(float64) != 14 ||
		tok["pairs"].(float64) != 28 || tok["verdict_kind"] != "gate_fails" || tok["gate_failed"] != true ||
		tok["ci_method"] != "signflip_inversion" || len(tok["per_unit"].([]any)) != 14 {
		t.Errorf("tokens: %v", tok)
	}
	lo := tok["ratio_ci"].([]any)[0].(float64)
	if r := tok["ratio"].(float64); !(lo > 1.2 && r > lo) || tok["p"].(float64) != 2.0/16384 {
		t.Errorf("ratio %v [%v, …], p %v", r, lo, tok["p"])
	}
	if wall := costs[3].(map[string]any); wall["gate_failed"] != nil || wall["verdict_kind"] != "costlier" {
		t.Errorf("wall (no gate): %v", wall)
	}
	if passed := costs[5].(map[string]any); passed["view"] != "passed" || passed["p_holm"] != nil || passed["verdict"] != nil {
		t.Errorf("passed view: %v", passed)
	}
	cg := m["cost_gate"].(map[string]any)
	if cg["failed"] != true || cg["margins"].(map[string]any)["tokens"].(float64) != 0.2 || len(cg["why"].([]any)) != 1 {
		t.Errorf("cost_gate: %v", cg)
	}

	aa := mustJSON(t, analysis.Analyze(analysistest.CostRun(14, 2, 1, 8), analysis.Inputs{Baseline: "base", FailIfCostlier: gate}))
	if cg := aa["cost_gate"].(map[string]any); cg["failed"] != false {
		t.Errorf("A/A cost gate: %v", cg)
	}
	if m := mustJSON(t, analysis.Analyze(analysistest.CostRun(6, 1, 1, 8), analysis.Inputs{Baseline: "base"})); m["cost_gate"] != nil {
		t.Errorf("cost_gate without a gate: %v", m["cost_gate"])
	}
}
