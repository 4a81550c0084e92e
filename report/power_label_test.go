package report

import (
	"math"
	"strings"
	"testing"

	"webbench/analysis"
)

// The MDE row names the power asked for: 90% when none is reachable at --power 0.9, and the same power where one is.
func TestPowerPlanMDELabel(t *testing.T) {
	p := analysis.PrimaryPlan{Design: analysis.Design{Rates: []float64{1, 1, 1}, Rep: 1}, Baseline: analysis.PlanBaseline{Mix: "x"},
		Effect: -0.2, Alpha: 0.05, Target: 0.9, Method: "simulation", MDE: math.NaN()}
	var b strings.Builder
	if err := PowerPlan(&b, p); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "MDE (90% power)") || strings.Contains(out, "80%") {
		t.Errorf("none reachable at power 0.9:\n%s", out)
	}
	p.MDE = 0.25
	b.Reset()
	if err := PowerPlan(&b, p); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "MDE at power 0.9 (drop)") || !strings.Contains(out, "25.0 pts") {
		t.Errorf("MDE 25 pts at power 0.9:\n%s", out)
	}
}
