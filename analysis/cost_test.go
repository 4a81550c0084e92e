package analysis_test

import (
	"math"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/results"
)

func TestPerUnitGroupsByFamily(t *testing.T) {
	recs := analysistest.Cat(analysistest.RecsOf("base", "a1", 0, "PP"), analysistest.RecsOf("v", "a1", 0, "PP"),
		analysistest.RecsOf("base", "a2", 0, "P"), analysistest.RecsOf("v", "a2", 0, "P"),
		analysistest.RecsOf("base", "b1", 0, "P"), analysistest.RecsOf("v", "b1", 0, "P"))
	for i := range recs {
		recs[i].Cluster = recs[i].TaskID[:1] // families a and b
		if recs[i].Variant == "v" {
			recs[i].Steps = 4 + 2*(recs[i].Rep+1) // a1: 6, 8; a2: 6; b1: 6
		}
	}
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base", ClusterUnit: "family"})
	c := a.Variants[0].Cost(results.CostSteps)
	if c == nil {
		t.Fatal("no steps comparison")
	}
	if un := analysis.Analyze(recs, analysis.Inputs{Baseline: "base"}).Variants[0].Cost(results.CostSteps); un.Unit != analysis.UnitCluster {
		t.Errorf("unit without the suite's noun: %s, want %s", un.Unit, analysis.UnitCluster)
	}
	if c.Unit != "family" || len(c.Units) != 2 || c.Pairs != 4 {
		t.Fatalf("unit %s, %d units, %d pairs; want family, 2, 4", c.Unit, len(c.Units), c.Pairs)
	}
	// Family a: pairs (4→6), (4→8), (4→6): variant mean 20/3; family b: 4→6.
	u := c.Units[0]
	if u.Unit != "a" || u.Pairs != 3 || u.A != 4 || math.Abs(u.B-20.0/3) > 1e-12 || c.Units[1].B != 6 {
		t.Errorf("units %+v", c.Units)
	}
	if a.Variants[0].Cost(results.CostTokens).Means.Moved != 0 {
		t.Error("tokens moved although equal in both arms")
	}
}

func TestCostsKnownEffectAndGate(t *testing.T) {
	recs := analysistest.CostRun(14, 2, 2.5, 7)
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base",
		FailIfCostlier: map[results.CostOutcome]float64{results.CostTokens: 0.2}})
	v := &a.Variants[0]
	c := v.Cost(results.CostTokens)
	if c == nil || c.Means.G != 14 || c.Pairs != 28 {
		t.Fatalf("tokens: %+v", c)
	}
	if !(c.Means.RatioCI[0] > 1.2 && c.Means.RatioCI[0] < 2.5 && c.Means.RatioCI[1] > 2.5) {
		t.Errorf("ratio %v CI %v does not hold 2.5 above 1.2", c.Means.Ratio, c.Means.RatioCI)
	}
	if c.Means.P != 2.0/16384 || c.PHolm != c.Means.P {
		t.Errorf("p %v p_holm %v, want 2/2^14 (one variant)", c.Means.P, c.PHolm)
	}
	if vd := a.CostVerdictOf(v, c); vd.Kind != analysis.CostVerdictGateFails || !vd.HasGate || vd.Margin != 0.2 {
		t.Errorf("verdict %+v, want gate_fails", vd)
	}
	if failed, why := a.CostGate(); !failed || len(why) != 1 || why[0].Outcome != results.CostTokens {
		t.Errorf("cost gate %v %+v, want failed on tokens", failed, why)
	}
	if vd := a.CostVerdictOf(v, v.Cost(results.CostWall)); vd.Kind != analysis.CostVerdictCostlier {
		t.Errorf("wall verdict %s, want costlier (no gate on wall)", vd.Kind)
	}
	if len(v.CostsPassed) != len(v.Costs) || !math.IsNaN(v.CostsPassed[0].PHolm) {
		t.Errorf("passed view: %d comparisons, p_holm %v", len(v.CostsPassed), v.CostsPassed[0].PHolm)
	}
}

func TestCostsAANeverFailGate(t *testing.T) {
	fails := 0
	for seed := range uint64(40) {
		a := analysis.Analyze(analysistest.CostRun(10, 2, 1, seed), analysis.Inputs{Baseline: "base",
			FailIfCostlier: map[results.CostOutcome]float64{results.CostTokens: 0, results.CostWall: 0}})
		if failed, _ := a.CostGate(); failed {
			fails++
		}
	}
	// Each of the two outcomes fails at most α/2 of A/A runs (one-sided): 40 runs expect ≤ 2.
	if fails > 5 {
		t.Errorf("cost gate failed %d of 40 A/A runs", fails)
	}
}

func TestCostHolmPerOutcome(t *testing.T) {
	recs := analysistest.CostRun(8, 1, 3, 3)
	var more []results.Attempt
	for _, r := range recs {
		if r.Variant == "v" {
			r.Variant, r.AttemptID = "w", "w"+r.AttemptID
			more = append(more, r)
		}
	}
	a := analysis.Analyze(append(recs, more...), analysis.Inputs{Baseline: "base"})
	for _, v := range a.Variants {
		// Two variants with the same data: Holm doubles their equal p.
		c := v.Cost(results.CostTokens)
		if c.Means.P >= 0.05 || c.PHolm != math.Min(1, 2*c.Means.P) {
			t.Errorf("%s: p %v p_holm %v, want p < 0.05 and p_holm twice it", v.Name, c.Means.P, c.PHolm)
		}
	}
}

// Holm's family of a run's outcomes is its variants but the A/A arms (copies and replays).
func TestHolmFamily(t *testing.T) {
	p := results.Plan{Baseline: "base", Variants: []results.Variant{{Name: "base"}, {Name: "a"}, {Name: "b"},
		{Name: "aa"}, {Name: "replay"}}, Ablation: &results.Ablation{Copies: []string{"aa"}, Replays: []string{"replay"}}}
	if got := analysis.HolmFamily(p); got != 2 {
		t.Errorf("HolmFamily = %d, want 2 (a, b)", got)
	}
}

// Two variants on 6 tasks: a cost's exact p is at least 2/2^6 = 0.03125, and Holm doubles it, so neither can reach
// p_holm < 0.05: the verdict says holm_floor and a cost_holm_floor warning gives the bound (7 moved tasks needed);
// alone, the same variant is shown costlier.
func TestCostHolmFloor(t *testing.T) {
	recs := analysistest.CostRun(6, 1, 3, 3)
	alone := analysis.Analyze(recs, analysis.Inputs{Baseline: "base"})
	if vd := alone.CostVerdictOf(&alone.Variants[0], alone.Variants[0].Cost(results.CostTokens)); vd.Kind != analysis.CostVerdictCostlier {
		t.Errorf("one variant: verdict %s, want costlier", vd.Kind)
	}
	if alone.Warning(analysis.WarnCostHolmFloor) != nil {
		t.Error("one variant: a cost_holm_floor warning")
	}
	var more []results.Attempt
	for _, r := range recs {
		if r.Variant == "v" {
			r.Variant, r.AttemptID = "w", "w"+r.AttemptID
			more = append(more, r)
		}
	}
	a := analysis.Analyze(append(recs, more...), analysis.Inputs{Baseline: "base"})
	v := &a.Variants[0]
	vd := a.CostVerdictOf(v, v.Cost(results.CostTokens))
	want := analysis.HolmFloor{G: 6, M: 2, Need: 7, Floor: 2.0 / 64, Unit: "task"}
	if vd.Kind != analysis.CostVerdictHolmFloor || vd.Holm != want {
		t.Errorf("two variants: verdict %s %+v, want holm_floor %+v", vd.Kind, vd.Holm, want)
	}
	w := a.Warning(analysis.WarnCostHolmFloor)
	if w == nil || len(w.Variants) != 1 || w.Variants[0] != "v" || len(w.Costs) != 4 || w.Costs[1].Outcome != results.CostTokens ||
		w.Costs[1].Holm != want {
		t.Fatalf("cost_holm_floor warning %+v", w)
	}
}

// The waste outcomes are compared on the pairs whose records hold them: pairs from a run made before they were
// recorded are left out, not counted as 0, and an outcome no record holds is not compared.
func TestWasteOutcomesOnRecordedPairs(t *testing.T) {
	recs := analysistest.CostRun(8, 1, 2, 3)
	for i := range recs {
		if recs[i].TaskID >= "t06" {
			continue // an older run's records: no repeated_calls
		}
		n := 1
		if recs[i].Variant == "v" {
			n = 4 + i%3
		}
		recs[i].RepeatedCalls = &n
	}
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base"})
	v := &a.Variants[0]
	c := v.Cost(results.CostRepeatedCalls)
	if c == nil || c.Pairs != 6 || c.Means.G != 6 || c.Means.MeanA != 1 || !(c.Means.Ratio > 4) {
		t.Fatalf("repeated_calls: %+v", c)
	}
	if v.Cost(results.CostToolBytes) != nil {
		t.Error("tool_bytes compared although no record holds it")
	}
	if us, name := analysis.PilotUnits(recs, "base", []string{"v"}, results.CostRepeatedCalls); len(us) != 6 || name != "v" {
		t.Errorf("pilot: %d units of %q, want 6 of v", len(us), name)
	}
}
