package html

import (
	"fmt"
	"math"

	"webbench/analysis"
	"webbench/report"
	"webbench/stats"
)

// costForestNote says what the cost forest plot shows.
const costForestNote = "Dot: the change of the mean cost (ratio of the per-unit means − 1) on the same pairs as the " +
	"pass rate, all attempts; line: its 95% interval (the ratios the exact sign-flip test does not reject; an end " +
	"at the plot's edge is unbounded or beyond the axis); filled dot: p_holm below α (Holm over the variants per " +
	"outcome). Log scale."

// costForest is the forest plot of the cost ratios: one row per variant and outcome of the primary view, on a
// log axis of the ratio; no rows when no variant has a cost comparison.
func costForest(a *analysis.Analysis) forestVM {
	type row struct {
		label string
		v     *analysis.VariantResult
		c     *analysis.CostComparison
	}
	var rows []row
	for i := range a.Variants {
		v := &a.Variants[i]
		for j := range v.Costs {
			rows = append(rows, row{fmt.Sprintf("%s: %s", v.Name, v.Costs[j].Outcome), v, &v.Costs[j]})
		}
	}
	if len(rows) == 0 {
		return forestVM{}
	}
	lo, hi := math.Log(0.8), math.Log(1.25)
	for _, r := range rows {
		for _, x := range []float64{r.c.Means.Ratio, r.c.Means.RatioCI[0], r.c.Means.RatioCI[1]} {
			if x > 0 && !math.IsInf(x, 0) {
				lo, hi = math.Min(lo, math.Log(x)), math.Max(hi, math.Log(x))
			}
		}
	}
	lo, hi = math.Max(lo, math.Log(1.0/16)), math.Min(hi, math.Log(16))
	x0, x1 := forestLabelW, forestLabelW+forestPlotW
	sx := func(l float64) float64 { return x0 + (math.Min(hi, math.Max(lo, l))-lo)/(hi-lo)*(x1-x0) }
	f := forestVM{W: int(forestLabelW + forestPlotW + forestTextW), PlotX0: x0, PlotX1: x1, ZeroX: sx(0),
		LabelX: forestLabelW - 8, TextX: x1 + 10, HeaderText: "cost change, % of the baseline's mean (95% interval, log scale)",
		Aria: "forest plot of the change in cost per variant and outcome"}
	for _, t := range []float64{1.0 / 16, 1.0 / 8, 0.25, 0.5, 0.8, 1, 1.25, 2, 4, 8, 16} {
		if l := math.Log(t); l >= lo-1e-9 && l <= hi+1e-9 {
			f.Ticks = append(f.Ticks, tickVM{X: sx(l), Label: report.RatioPct(t)})
		}
	}
	for i, r := range rows {
		y := forestTop + forestRowH*float64(i) + forestRowH/2
		fr := forestRowVM{Y: y, Label: r.label}
		m := r.c.Means
		if m.Ratio > 0 {
			logOr := func(x, edge float64) float64 {
				if x > 0 && !math.IsInf(x, 0) {
					return math.Log(x)
				}
				return edge
			}
			fr.HasData = true
			fr.Lo, fr.Hi, fr.Mid = sx(logOr(m.RatioCI[0], lo)), sx(logOr(m.RatioCI[1], hi)), sx(math.Log(m.Ratio))
			p, pname := r.c.PHolm, "p_holm"
			if r.v.AA {
				p, pname = m.P, "p"
			}
			fr.Sig = p < a.Alpha
			fr.Text = fmt.Sprintf("%s [%s, %s]  %s=%s", report.RatioPct(m.Ratio), report.RatioPct(m.RatioCI[0]),
				report.RatioPct(m.RatioCI[1]), pname, stats.FmtP(p))
		} else {
			fr.Text = "no ratio (baseline mean 0)"
		}
		f.Rows = append(f.Rows, fr)
	}
	f.AxisY = forestTop + forestRowH*float64(len(rows)) + 4
	f.H = int(f.AxisY + 24)
	return f
}
