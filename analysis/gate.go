package analysis

import "math"

// GateReasonKind is why the gate decided as it did about one variant (Analysis.GateReasonOf); report words each
// kind.
type GateReasonKind string

// The gate's reasons, in the order the rule tries them.
const (
	// GateErrorsCouldHide: the variant fails because its errors alone could hide a failure (ErrorsCouldHide).
	GateErrorsCouldHide GateReasonKind = "errors_could_hide"
	// GateWorse: the variant fails: Δ below −margin, its whole interval below 0 and p_holm below α.
	GateWorse GateReasonKind = "worse"
	// GateNotBelowMargin: it passes, Δ not below −margin.
	GateNotBelowMargin GateReasonKind = "not_below_margin"
	// GateIntervalReachesZero: it passes, Δ below −margin but its interval reaches 0.
	GateIntervalReachesZero GateReasonKind = "interval_reaches_zero"
	// GateNotShown: it passes although it looks worse (Δ below −margin, the whole interval below 0): p_holm is
	// not below α (too few tasks, or the multiplicity adjustment over the variants).
	GateNotShown GateReasonKind = "not_shown"
)

// GateReason is the gate's decision about one variant with the figures its wording names: the variant and the
// baseline, the gate's Margin and Alpha, the variant's primary Δ, interval, p (P, of Method) and Holm-adjusted p
// (PHolm), the tasks that moved and the sign-flip floor they leave p (Moved, PermFloor), and for
// GateErrorsCouldHide the errors by class on the CommonPairs common pairs of the baseline (ErrorsA) and the
// variant (ErrorsB) and the comparison with every error counted as a failure (AsFailBoth).
type GateReason struct {
	Kind              GateReasonKind
	Variant, Baseline string
	Margin, Alpha     float64
	Delta             float64
	CI                [2]float64
	P, PHolm          float64
	Method            string
	Moved             int
	PermFloor         float64
	CommonPairs       int
	ErrorsA, ErrorsB  map[string]int
	AsFailBoth        BoundResult
}

// Failed reports whether the reason fails the gate.
func (r GateReason) Failed() bool { return r.Kind == GateWorse || r.Kind == GateErrorsCouldHide }

// GateReasonOf is the gate's decision about variant v at margin (a proportion) and a's α: GateErrorsCouldHide
// or GateWorse when it fails (VariantResult.GateFails), else the first condition of the rule it does not meet.
func (a *Analysis) GateReasonOf(v *VariantResult, margin float64) GateReason {
	c := &v.All
	r := GateReason{Variant: v.Name, Baseline: a.Baseline, Margin: margin, Alpha: a.Alpha, Delta: c.Delta, CI: c.CI,
		P: c.P, PHolm: v.PHolm, Method: c.Method, Moved: c.Paired.MovedUnits, PermFloor: c.Paired.PFloor}
	switch {
	case v.GateFails(margin, a.Alpha) && ErrorsCouldHide(c, margin, a.Alpha):
		r.Kind = GateErrorsCouldHide
		r.CommonPairs, r.ErrorsA, r.ErrorsB, r.AsFailBoth = c.CommonPairs, c.ErrorsA, c.ErrorsB, c.Bounds.AsFailBoth
	case v.GateFails(margin, a.Alpha):
		r.Kind = GateWorse
	case !(c.Delta < -margin):
		r.Kind = GateNotBelowMargin
	case !(c.CI[1] < 0):
		r.Kind = GateIntervalReachesZero
	default:
		r.Kind = GateNotShown
	}
	return r
}

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
// fail. why has the reason of each failing variant (GateWorse or
// GateErrorsCouldHide), in variant order.
func (a *Analysis) Gate(margin float64) (failed bool, why []GateReason) {
	for i := range a.Variants {
		v := &a.Variants[i]
		if v.AA || !v.GateFails(margin, a.Alpha) {
			continue
		}
		failed = true
		why = append(why, a.GateReasonOf(v, margin))
	}
	return failed, why
}

// GateInconclusive lists the variants the gate lets pass although they look
// worse (GateNotShown): Δ below −margin with the whole interval below 0, but
// p_holm not below α (too few tasks, or the multiplicity adjustment over the
// variants). A passed gate is "no variant shown worse", never "no variant
// worse"; these are the cases a reader must not take as evidence of no harm.
// A/A arms and variants without data are left out.
func (a *Analysis) GateInconclusive(margin float64) []GateReason {
	var out []GateReason
	for i := range a.Variants {
		v := &a.Variants[i]
		if v.AA || v.All.Method == MethodNone {
			continue
		}
		if r := a.GateReasonOf(v, margin); r.Kind == GateNotShown {
			out = append(out, r)
		}
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
