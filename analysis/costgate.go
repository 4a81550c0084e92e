package analysis

import (
	"math"

	"webbench/results"
)

// CostVerdictKind is what a cost comparison shows (Analysis.CostVerdictOf); report words each kind
// (report.CostVerdictText).
type CostVerdictKind string

// The cost verdict kinds, in the order the rule tries them.
const (
	// CostVerdictGateFails: costlier than the gate's margin allows (CostGateFails).
	CostVerdictGateFails CostVerdictKind = "gate_fails"
	// CostVerdictCostlier and CostVerdictCheaper: p_holm (an A/A arm's p) below α, the ratio above or below 1.
	CostVerdictCostlier CostVerdictKind = "costlier"
	CostVerdictCheaper  CostVerdictKind = "cheaper"
	// CostVerdictPermFloor: no difference shown, and with the units that moved none can be (2/2^moved ≥ α).
	CostVerdictPermFloor CostVerdictKind = "perm_floor"
	// CostVerdictHolmFloor: no difference shown, and with the units that moved none can be after Holm's
	// adjustment over the variants (the cost_holm_floor warning's bound, CostHolmFloorOf).
	CostVerdictHolmFloor CostVerdictKind = "holm_floor"
	// CostVerdictNoDifference: no difference shown.
	CostVerdictNoDifference CostVerdictKind = "no_difference"
)

// CostVerdict is the decision about one cost outcome of a variant with the figures its wording names: the
// outcome and view, the ratio of means and its interval, the difference per attempt and its interval, the p and
// p_holm (PHolm is the p for an A/A arm), the units (and their kind) and how many moved, the sign-flip floor,
// α, and the gate's Margin (HasGate false: no gate on this outcome).
type CostVerdict struct {
	Kind             CostVerdictKind
	Variant          string
	Outcome          results.CostOutcome
	View             CostView
	Ratio            float64
	RatioCI          [2]float64
	Diff             float64
	DiffCI           [2]float64
	P, PHolm         float64
	Units, Moved     int
	Unit             string
	PermFloor, Alpha float64
	Margin           float64
	HasGate          bool
	// Holm is the bound of a CostVerdictHolmFloor verdict.
	Holm HolmFloor
}

// CostGateFails is the cost gate's rule, in one place: the variant is costlier than the baseline by more than
// margin (a relative increase: 0.2 = 20 %) when the ratio of means is above 1 + margin, the lower end of its
// 95 % interval is above 1 + margin too (the whole interval lies beyond the tolerated increase), and its p_holm
// is below alpha. A comparison without a ratio (baseline mean 0) never fails.
func CostGateFails(c *CostComparison, margin, alpha float64) bool {
	m := c.Means
	return !math.IsNaN(m.Ratio) && m.Ratio > 1+margin && m.RatioCI[0] > 1+margin && c.PHolm < alpha
}

// CostVerdictOf decides the verdict of cost comparison c of variant v at a's α and cost gate
// (Analysis.FailIfCostlier).
func (a *Analysis) CostVerdictOf(v *VariantResult, c *CostComparison) CostVerdict {
	m := c.Means
	vd := CostVerdict{Variant: v.Name, Outcome: c.Outcome, View: c.View, Ratio: m.Ratio, RatioCI: m.RatioCI,
		Diff: m.Diff, DiffCI: m.DiffCI, P: m.P, PHolm: c.PHolm, Units: m.G, Moved: m.Moved, Unit: c.Unit,
		PermFloor: m.PermFloor, Alpha: a.Alpha}
	vd.Margin, vd.HasGate = a.FailIfCostlier[c.Outcome]
	p := c.PHolm
	if math.IsNaN(p) {
		p = m.P
	}
	switch {
	case vd.HasGate && !v.AA && c.View == ViewAll && CostGateFails(c, vd.Margin, a.Alpha):
		vd.Kind = CostVerdictGateFails
	case p < a.Alpha && m.Diff > 0:
		vd.Kind = CostVerdictCostlier
	case p < a.Alpha && m.Diff < 0:
		vd.Kind = CostVerdictCheaper
	case m.PermFloor >= a.Alpha:
		vd.Kind = CostVerdictPermFloor
	default:
		vd.Kind = CostVerdictNoDifference
		if h, ok := CostHolmFloorOf(a, c.Outcome)[v.Name]; ok && c.View == ViewAll && !v.AA {
			vd.Kind, vd.Holm = CostVerdictHolmFloor, h
		}
	}
	return vd
}

// CostGate applies the cost gate (Analysis.FailIfCostlier) to every variant but the A/A arms: failed when some
// variant's primary-view comparison of a gated outcome fails CostGateFails; why lists those verdicts, in
// variant and outcome order.
func (a *Analysis) CostGate() (failed bool, why []CostVerdict) {
	for i := range a.Variants {
		v := &a.Variants[i]
		if v.AA {
			continue
		}
		for j := range v.Costs {
			if vd := a.CostVerdictOf(v, &v.Costs[j]); vd.Kind == CostVerdictGateFails {
				failed = true
				why = append(why, vd)
			}
		}
	}
	return failed, why
}
