package json

import (
	"webbench/analysis"
	"webbench/report"
)

// jsonCost is one cost comparison of a variant (analysis.CostComparison) in JSONReport's document; an undefined
// or unbounded value is null.
type jsonCost struct {
	Outcome string `json:"outcome"`
	View    string `json:"view"`
	Unit    string `json:"unit"`
	Units   int    `json:"units"`
	Moved   int    `json:"moved_units"`
	Pairs   int    `json:"pairs"`
	// MeanBaseline and MeanVariant are the means over units of the per-unit arm means.
	MeanBaseline float64     `json:"mean_baseline"`
	MeanVariant  float64     `json:"mean_variant"`
	Diff         float64     `json:"diff"`
	DiffCI       [2]*float64 `json:"diff_ci"`
	Ratio        *float64    `json:"ratio"`
	RatioCI      [2]*float64 `json:"ratio_ci"`
	CIMethod     string      `json:"ci_method"`
	P            float64     `json:"p"`
	PermFloor    float64     `json:"p_floor"`
	PHolm        *float64    `json:"p_holm"`
	// Verdict and VerdictKind: the primary view's decision (CostVerdictOf) in words and as its stable code;
	// null in the passed view.
	Verdict     *string   `json:"verdict"`
	VerdictKind *string   `json:"verdict_kind"`
	GateFailed  *bool     `json:"gate_failed"`
	PerUnit     []jsonPer `json:"per_unit"`
}

// jsonPer is one unit's means (analysis.UnitMeans).
type jsonPer struct {
	Unit     string  `json:"unit"`
	Pairs    int     `json:"pairs"`
	Baseline float64 `json:"baseline"`
	Variant  float64 `json:"variant"`
	Diff     float64 `json:"diff"`
}

// jsonCostGate is the cost gate's verdict of jsonDoc (Analysis.CostGate).
type jsonCostGate struct {
	Margins map[string]float64 `json:"margins"`
	Failed  bool               `json:"failed"`
	Why     []string           `json:"why"`
}

// jsonCosts converts a variant's cost comparisons, the primary view's then the passed view's.
func jsonCosts(a *analysis.Analysis, v *analysis.VariantResult) []jsonCost {
	out := []jsonCost{}
	for _, cs := range [][]analysis.CostComparison{v.Costs, v.CostsPassed} {
		for i := range cs {
			c := &cs[i]
			m := c.Means
			jc := jsonCost{Outcome: string(c.Outcome), View: string(c.View), Unit: c.Unit, Units: m.G, Moved: m.Moved,
				Pairs: c.Pairs, MeanBaseline: m.MeanA, MeanVariant: m.MeanB, Diff: m.Diff,
				DiffCI: [2]*float64{fptr(m.DiffCI[0]), fptr(m.DiffCI[1])}, Ratio: fptr(m.Ratio),
				RatioCI: [2]*float64{fptr(m.RatioCI[0]), fptr(m.RatioCI[1])}, CIMethod: m.CIMethod, P: m.P,
				PermFloor: m.PermFloor, PHolm: fptr(c.PHolm), PerUnit: []jsonPer{}}
			if c.View == analysis.ViewAll {
				vd := a.CostVerdictOf(v, c)
				text, kind := report.CostVerdictText(vd), string(vd.Kind)
				jc.Verdict, jc.VerdictKind = &text, &kind
				if vd.HasGate {
					f := vd.Kind == analysis.CostVerdictGateFails
					jc.GateFailed = &f
				}
			}
			for _, u := range c.Units {
				jc.PerUnit = append(jc.PerUnit, jsonPer{Unit: u.Unit, Pairs: u.Pairs, Baseline: u.A, Variant: u.B, Diff: u.Diff})
			}
			out = append(out, jc)
		}
	}
	return out
}

// jsonCostGateOf is the cost gate's verdict, nil without a cost gate.
func jsonCostGateOf(a *analysis.Analysis) *jsonCostGate {
	if len(a.FailIfCostlier) == 0 {
		return nil
	}
	g := &jsonCostGate{Margins: map[string]float64{}, Why: []string{}}
	for o, m := range a.FailIfCostlier {
		g.Margins[string(o)] = m
	}
	var why []analysis.CostVerdict
	g.Failed, why = a.CostGate()
	for _, vd := range why {
		g.Why = append(g.Why, vd.Variant+": "+report.CostVerdictText(vd))
	}
	return g
}
