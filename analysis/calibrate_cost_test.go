package analysis_test

import (
	"math"
	"testing"

	"webbench/analysis"
)

// The fast subset of the cost calibration (`make calibrate` writes the full grid to CALIBRATION.md): one
// setting, bounds widened by the Monte Carlo error of 300 runs (1.96 SEs).
func TestCalibrateCostFast(t *testing.T) {
	r := analysis.CalibrateCost(analysis.CostCalSetting{G: 10, R: 2, Ratio: 1.4}, 300, 20, 5)
	se := func(p float64) float64 { return 1.96 * math.Sqrt(p*(1-p)/300) }
	if r.AA > 0.06+se(0.06) {
		t.Errorf("A/A rejection %.3f, want ≤ 0.06", r.AA)
	}
	for name, c := range map[string]float64{"A/A": r.CoverageAA, "power": r.CoveragePower, "difference": r.CoverageDiff} {
		if c < 0.93-se(0.93) {
			t.Errorf("%s coverage %.3f, want ≥ 0.93", name, c)
		}
	}
	if math.Abs(r.Reported-r.Achieved) > 0.05+se(r.Achieved) {
		t.Errorf("reported power %.3f, achieved %.3f: want within 0.05", r.Reported, r.Achieved)
	}
	t.Logf("%+v", r)
}

// The fast subset of the count model's calibration (zero-inflated repeated calls): A/A rejection and the
// intervals' coverage hold their bounds on discrete counts too, within the Monte Carlo error of 300 runs.
func TestCalibrateCostCountsFast(t *testing.T) {
	r := analysis.CalibrateCost(analysis.CostCalSetting{G: 10, R: 2, Ratio: 2, Model: analysis.CostModelCounts}, 300, 0, 5)
	se := func(p float64) float64 { return 1.96 * math.Sqrt(p*(1-p)/300) }
	if r.AA > 0.06+se(0.06) {
		t.Errorf("A/A rejection %.3f, want ≤ 0.06", r.AA)
	}
	for name, c := range map[string]float64{"A/A": r.CoverageAA, "power": r.CoveragePower, "difference": r.CoverageDiff} {
		if c < 0.93-se(0.93) {
			t.Errorf("%s coverage %.3f, want ≥ 0.93", name, c)
		}
	}
	if r.NoRatioAA == 0 || r.NoRatioAA > 0.2 {
		t.Errorf("runs without a ratio: %.3f, want some (zero-inflated counts) but few", r.NoRatioAA)
	}
	t.Logf("%+v", r)
}
