package analysis

import (
	"fmt"
	"math"

	"webbench/stats"
)

// Gate reports whether any variant is worse than the baseline by more than
// margin (a proportion, e.g. 0.05 for 5 points). A variant fails when
//
//   - its primary Δ (All.Delta, p_B − p_A) is below −margin AND the upper end
//     of its 95% Δ interval (All.CI[1]) is below zero AND its Holm-adjusted
//     primary p (PHolm, over all variants; equal to All.P with one variant)
//     is below Alpha — the primary p being the exact sign-flip p, the A/A
//     rate of this rule is at most Alpha/2 at every number of informative
//     tasks (40 tasks of which 4 moved down give p 0.125: no failure); or
//   - its errors alone could hide such a failure (ErrorsCouldHide): its
//     error rate on the common pairs is differentially higher than the
//     baseline's and, with its errored pairs counted as failures
//     on both sides (ErrorBounds.AsFailBoth), the rule above fails.
//
// Variants without data (method none) and A/A arms (VariantResult.AA) never
// fail. why has one plain-words line per failing variant.
func (a *Analysis) Gate(margin float64) (failed bool, why []string) {
	for _, v := range a.Variants {
		if v.AA || !v.GateFails(margin, a.Alpha) {
			continue
		}
		c := v.All
		failed = true
		if ErrorsCouldHide(&c, margin, a.Alpha) {
			why = append(why, fmt.Sprintf("variant %s: its errors could hide a failure against %s: %s; with every error counted as a failure, %s",
				v.Name, a.Baseline, errorCounts(&c, "variant", "baseline"), boundText(c.Bounds.AsFailBoth)))
			continue
		}
		why = append(why, fmt.Sprintf("variant %s is worse than %s: Δ = %s pts [%s, %s] is below -%.1f pts, its whole interval is below 0 and p_holm = %.3g is below %.3g",
			v.Name, a.Baseline, stats.Pts(c.Delta), stats.Pts(c.CI[0]), stats.Pts(c.CI[1]), 100*margin, v.PHolm, a.Alpha))
	}
	return failed, why
}

// GateInconclusive lists, in plain words, the variants the gate lets pass
// although they look worse: Δ below −margin with the whole interval below 0,
// but p_holm not below α (too few tasks, or the multiplicity adjustment over
// the variants). A passed gate is "no variant shown worse", never "no variant
// worse"; these are the cases a reader must not take as evidence of no harm.
func (a *Analysis) GateInconclusive(margin float64) []string {
	var out []string
	for _, v := range a.Variants {
		c := v.All
		if v.AA || v.GateFails(margin, a.Alpha) || c.Method == MethodNone || !(c.Delta < -margin && c.CI[1] < 0) {
			continue
		}
		out = append(out, fmt.Sprintf("%s: Δ = %s pts [%s, %s] looks worse, but p_holm = %s is not below %s (p_paired %s), so it is not shown worse at this size",
			v.Name, stats.Pts(c.Delta), stats.Pts(c.CI[0]), stats.Pts(c.CI[1]), stats.FmtP(v.PHolm), stats.FmtP(a.Alpha), stats.FmtP(c.P)))
	}
	return out
}

// GateFails is the gate rule of Analysis.Gate for this variant: GateFails on
// All with its p replaced by PHolm; false for an A/A arm (v.AA), which is a
// control and never fails the gate (the per-variant gate cell and JSON
// gate_failed agree with Analysis.Gate).
func (v *VariantResult) GateFails(margin, alpha float64) bool {
	if v.AA {
		return false
	}
	c := v.All
	if !math.IsNaN(v.PHolm) {
		c.P = v.PHolm
	}
	return GateFails(&c, margin, alpha)
}

// gateRule is the gate's condition on one Δ, interval and p.
func gateRule(delta float64, ci [2]float64, p, margin, alpha float64) bool {
	return delta < -margin && ci[1] < 0 && p < alpha
}

// ErrorsCouldHide reports whether the variant's errors alone could hide a
// gate failure: some error class is differential (Comparison.Differential:
// rates differing by more than DifferentialErrorPoints, or Fisher p below
// DifferentialErrorP) with the variant's count the higher, the comparison
// as observed does not fail the rule, and the comparison with every errored
// attempt counted as a failure, on both sides (Bounds.AsFailBoth: its Δ,
// interval and p, the latter unadjusted) does. Counting errors as failures
// on both sides keeps an A/A run's arms exchangeable, so that check alone
// fails A/A runs at most α/2 of the time.
func ErrorsCouldHide(c *Comparison, margin, alpha float64) bool {
	if alpha <= 0 {
		alpha = DefaultAlpha
	}
	if c.Bounds == nil || c.Method == MethodNone || gateRule(c.Delta, c.CI, c.P, margin, alpha) {
		return false
	}
	higher := false
	for _, k := range c.Differential {
		if c.ErrorsB[k] > c.ErrorsA[k] {
			higher = true
		}
	}
	b := c.Bounds.AsFailBoth
	return higher && gateRule(b.Delta, b.CI, b.P, margin, alpha)
}
