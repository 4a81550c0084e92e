package report

import (
	"strings"
	"testing"

	"webbench/analysis"
)

// tableCells returns the quantity → value rows of a rendered two-column table, cells trimmed.
func tableCells(s string) map[string]string {
	cells := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		f := strings.Split(line, "│")
		if len(f) == 4 {
			cells[strings.TrimSpace(f[1])] = strings.TrimSpace(f[2])
		}
	}
	return cells
}

// UnpairedPlan words each figure of the plan: rounded-up sample sizes after the unrounded ones, the clean-arm
// runs with their chance, "none reachable" for an unreachable MDE and no row for an absent paired MDE.
func TestUnpairedPlanRendering(t *testing.T) {
	p, err := analysis.PlanUnpaired(analysis.UnpairedInputs{Base: 0.82, Target: 1, HasTarget: true, Alpha: 0.05,
		Power: 0.8, N: 3, Paired: true, Discordant: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := UnpairedPlan(&b, p); err != nil {
		t.Fatal(err)
	}
	got := tableCells(b.String())
	want := map[string]string{
		"quantity":                                         "value",
		"alpha / power":                                    "0.05 / 0.8",
		"baseline pass rate":                               "0.820",
		"target pass rate":                                 "1.000 (effect +0.180)",
		"pairs needed (McNemar, Connor 1987)":              "46.0 → 47",
		"runs per arm (unpaired, normal approx.)":          "38.5 → 39",
		"exact power at 39 per arm (one-sided Fisher)":     "0.855",
		"runs for a clean 0-failure arm to be significant": "16 ((0.82)^16 = 0.0418)",
		"exact power at n=3 per arm":                       "0.006",
		"MDE at n=3 per arm":                               "none reachable",
	}
	if len(got) != len(want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q\n%s", k, got[k], v, b.String())
		}
	}
}
