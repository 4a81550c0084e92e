package analysis

import "math"

// VerdictKind is what the primary comparison of a variant shows, by the rule of the gate (p_holm against α; the
// gate's margin when set). report words each kind (report.VerdictText).
type VerdictKind string

// The verdict kinds, in the order the rule tries them.
const (
	// VerdictNoComparison: an arm has no judged attempt on the common tasks.
	VerdictNoComparison VerdictKind = "no_comparison"
	// VerdictNoCommonPairs: two runs compared (bench compare) share no (task, rep) pair judged in both, so a Δ
	// would compare different tasks: no verdict (RunComparison.Verdict).
	VerdictNoCommonPairs VerdictKind = "no_common_pairs"
	// VerdictAADiffers: an A/A control whose primary p is below α (the environment is not reproducible).
	VerdictAADiffers VerdictKind = "aa_differs"
	// VerdictAASame: an A/A control within noise, as expected.
	VerdictAASame VerdictKind = "aa_same"
	// VerdictGateFails: worse than the baseline by more than the gate's margin (VariantResult.GateFails).
	VerdictGateFails VerdictKind = "gate_fails"
	// VerdictWorse and VerdictBetter: p_holm (p without Holm) below α, Δ below or above 0.
	VerdictWorse  VerdictKind = "worse"
	VerdictBetter VerdictKind = "better"
	// VerdictHolmFloor: no difference shown, and at this size none can be (the holm_floor warning's bound).
	VerdictHolmFloor VerdictKind = "holm_floor"
	// VerdictPermFloor: no difference shown, the exact sign-flip floor of the tasks that moved is above α.
	VerdictPermFloor VerdictKind = "perm_floor"
	// VerdictHolmAdjusted: the primary p is below α but p_holm is not.
	VerdictHolmAdjusted VerdictKind = "holm_adjusted"
	// VerdictBelowMDE: no difference shown, and the observed |Δ| is below the MDE.
	VerdictBelowMDE VerdictKind = "below_mde"
	// VerdictNoDifference: no difference shown.
	VerdictNoDifference VerdictKind = "no_difference"
)

// Verdict is the verdict of one variant with the figures its wording names: Alpha the level used, Holm the
// holm_floor bound (VerdictHolmFloor), Moved the units that moved (Unit: "task", or the cluster's noun when the
// comparison is clustered) and PermFloor their sign-flip floor (VerdictPermFloor), P and PHolm the primary p and its Holm-adjusted value and Matched whether P is the paired
// test's (VerdictHolmAdjusted), MDE the minimum detectable effect (VerdictBelowMDE).
type Verdict struct {
	Kind      VerdictKind
	Alpha     float64
	Holm      HolmFloor
	Moved     int
	Unit      string
	PermFloor float64
	P, PHolm  float64
	Matched   bool
	MDE       float64
}

// VerdictOf decides the verdict of variant v of a at a's α (≤ 0: DefaultAlpha) with the gate margin (0: no gate).
func (a *Analysis) VerdictOf(v *VariantResult, margin float64) Verdict {
	c := &v.All
	alpha := a.Alpha
	if alpha <= 0 {
		alpha = DefaultAlpha
	}
	vd := Verdict{Alpha: alpha, P: c.P, PHolm: v.PHolm, Matched: c.Matched, MDE: c.Power.AdjustedMDE()}
	if c.Method == MethodNone {
		vd.Kind = VerdictNoComparison
		return vd
	}
	if v.AA {
		vd.Kind = VerdictAASame
		if c.P < alpha {
			vd.Kind = VerdictAADiffers
		}
		return vd
	}
	p := v.PHolm
	if math.IsNaN(p) {
		p = c.P
	}
	switch {
	case margin > 0 && v.GateFails(margin, alpha):
		vd.Kind = VerdictGateFails
	case p < alpha && c.Delta < 0:
		vd.Kind = VerdictWorse
	case p < alpha && c.Delta > 0:
		vd.Kind = VerdictBetter
	default:
		vd.Kind = noDifferenceKind(a, v, &vd)
	}
	return vd
}

// noDifferenceKind is why v shows no difference, filling the figures of vd its wording names.
func noDifferenceKind(a *Analysis, v *VariantResult, vd *Verdict) VerdictKind {
	c := &v.All
	if h, ok := HolmFloorOf(a)[v.Name]; ok {
		vd.Holm = h
		return VerdictHolmFloor
	}
	if c.Matched && c.Paired.MovedUnits > 0 && c.Paired.PFloor >= vd.Alpha {
		vd.Moved, vd.PermFloor, vd.Unit = c.Paired.MovedUnits, c.Paired.PFloor, c.Unit()
		return VerdictPermFloor
	}
	if f, g, unit := sizeFloor(c); c.Matched && f >= vd.Alpha {
		// One comparison (no Holm family, as in bench compare) with no unit moved, whose exact test could not
		// reach α at this size even if every unit moved: "too few tasks", with a family of one.
		vd.Holm = HolmFloor{G: g, M: 1, Floor: f, Unit: unit, Need: unitsNeeded(1, vd.Alpha)}
		return VerdictHolmFloor
	}
	if c.P < vd.Alpha && !math.IsNaN(v.PHolm) {
		return VerdictHolmAdjusted
	}
	if !math.IsNaN(vd.MDE) && math.Abs(c.Delta) < vd.MDE {
		return VerdictBelowMDE
	}
	return VerdictNoDifference
}
