package report

import (
	"testing"

	"webbench/analysis"
)

// One wording of each gate reason, the sides its parameters: an ablation names the reason's variant and baseline
// and tests p_holm, a comparison of two runs names its runs and tests p. Worked by hand from the figures.
func TestGateReasonWording(t *testing.T) {
	r := analysis.GateReason{Variant: "v", Baseline: "base", Margin: 0.05, Alpha: 0.05, Delta: -0.5, CI: [2]float64{-0.75, -0.1},
		P: 0.0156, PHolm: 0.0312, CommonPairs: 80, ErrorsA: map[string]int{}, ErrorsB: map[string]int{"infra": 16},
		AsFailBoth: analysis.BoundResult{Delta: -0.2, CI: [2]float64{-0.326, -0.055}, P: 0.00781}}
	run := GateWording{Variant: "b (variant v)", Baseline: "a (variant base)", VariantSide: "run B", BaselineSide: "run A",
		P: "p", NoneWorse: "b (variant v) is not shown worse than a (variant base)"}
	for _, c := range []struct {
		kind          analysis.GateReasonKind
		ablation, cmp string
	}{
		{analysis.GateWorse,
			"variant v is worse than base: Δ = -50.0 pts [-75.0, -10.0] is below -5.0 pts, its whole interval is below 0 and p_holm = 0.0312 is below 0.05",
			"b (variant v) is worse than a (variant base): Δ = -50.0 pts [-75.0, -10.0] is below -5.0 pts, its whole interval is below 0 and p = 0.0312 is below 0.05"},
		{analysis.GateErrorsCouldHide,
			"variant v: its errors could hide a failure against base: errors on the 80 common pairs: variant 16 (infra 16), baseline 0; with every error counted as a failure, Δ = -20.0 pts [-32.6, -5.5], p = 0.00781",
			"b (variant v): its errors could hide a failure against a (variant base): errors on the 80 common pairs: run B 16 (infra 16), run A 0; with every error counted as a failure, Δ = -20.0 pts [-32.6, -5.5], p = 0.00781"},
		{analysis.GateNotShown,
			"v: Δ = -50.0 pts [-75.0, -10.0] looks worse, but p_holm = 0.0312 is not below 0.05 (p_paired 0.0156), so it is not shown worse at this size",
			"b (variant v): Δ = -50.0 pts [-75.0, -10.0] looks worse, but p = 0.0312 is not below 0.05, so it is not shown worse at this size"},
		{analysis.GateIntervalReachesZero,
			"v: Δ = -50.0 pts [-75.0, -10.0] is below -5.0 pts, but its interval reaches 0",
			"b (variant v): Δ = -50.0 pts [-75.0, -10.0] is below -5.0 pts, but its interval reaches 0"},
		{analysis.GateNotBelowMargin, "v: Δ = -50.0 pts is not below -5.0 pts", "b (variant v): Δ = -50.0 pts is not below -5.0 pts"},
	} {
		r.Kind = c.kind
		if got := GateReasonText(r); got != c.ablation {
			t.Errorf("%s ablation:\n got %q\nwant %q", c.kind, got, c.ablation)
		}
		if got := GateReasonWording(r, run); got != c.cmp {
			t.Errorf("%s comparison:\n got %q\nwant %q", c.kind, got, c.cmp)
		}
	}
}
