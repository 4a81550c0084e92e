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

// A plan of independent tasks bound by fewer families than tasks says both counts, in the answer and the
// table's footnote, and marks the design that needs more tasks than there are families.
func TestPowerPlanWordsFamilyBound(t *testing.T) {
	p := analysis.PrimaryPlan{Design: analysis.Design{Rates: []float64{0.5, 0.5, 0.5}, Rep: 1},
		Baseline: analysis.PlanBaseline{Mix: "x", Suite: "zoo", SuiteUnit: "family", SuiteTasks: 535, SuiteUnits: 99,
			Selection: "instances=all"},
		Effect: -0.1, Alpha: 0.05, Target: 0.8, Method: "simulation", Power: 0.2, MDE: 0.2,
		Smallest: []analysis.DesignPower{{Reps: 1, Tasks: 101, Power: 0.82}, {Reps: 2, Tasks: 54, Power: 0.805}}}
	if got, want := PlanConclusionText(p), "101 tasks × 1 rep reach 0.80, but suite zoo has 99 families (535 tasks) "+
		"with instances=all: use 54 tasks × 2 reps (power 0.805)."; !strings.HasSuffix(got, want) {
		t.Errorf("answer %q, want it to end %q", got, want)
	}
	// A planned design that reaches the target with more tasks than the selection has says so once ("but" once),
	// then the design to use within it.
	big := p
	big.Design.Rates, big.Power = make([]float64, 200), 0.95
	if got, want := PlanConclusionText(big), "200 tasks × 1 rep: power 0.950 for a 10.0-pt drop — enough, but more "+
		"tasks than the selection has (suite zoo has 99 families (535 tasks) with instances=all): use 54 tasks × 2 "+
		"reps (power 0.805)."; got != want {
		t.Errorf("answer %q, want %q", got, want)
	}
	var b strings.Builder
	if err := PowerPlan(&b, p); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "│ 101 *") || !strings.Contains(out,
		"*: more tasks than the selection has families (suite zoo has 99 families (535 tasks) with instances=all;") {
		t.Errorf("table lacks the mark or the footnote:\n%s", out)
	}
}
