package report

// The wording of the cost outcomes (analysis.CostComparison, analysis.CostVerdict): the one sentence of each cost
// verdict kind, the compact report's cost line of a variant, the paired cost table, and the cost gate's line.

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"webbench/analysis"
	"webbench/results"
	"webbench/stats"
)

// costNoun names an outcome in sentences ("83% more tokens").
func costNoun(o results.CostOutcome) string {
	switch o {
	case results.CostSteps:
		return "steps"
	case results.CostTokens:
		return "tokens"
	case results.CostUSD:
		return "cost (USD)"
	case results.CostWall:
		return "wall time"
	}
	return string(o)
}

// unitWord is the unit of analysis, a singular noun ("task", "family", "site"), in the number of n: English's
// regular plural, with a consonant's "y" turned to "ies".
func unitWord(n int, unit string) string {
	if n == 1 {
		return unit
	}
	if l := len(unit); l > 1 && unit[l-1] == 'y' && !strings.ContainsRune("aeiou", rune(unit[l-2])) {
		return unit[:l-1] + "ies"
	}
	return unit + "s"
}

// armUnits counts an arm's tasks, and its clusters when tasks share them: "124 tasks in 31 families" — both the
// tasks and the units a clustered comparison tests over.
func armUnits(arm analysis.Arm, unit string) string {
	if arm.Clusters > 0 && arm.Clusters < arm.Tasks {
		return fmt.Sprintf("%s in %s", results.Count(arm.Tasks, "task", "tasks"), unitCount(arm.Clusters, unit))
	}
	return results.Count(arm.Tasks, "task", "tasks")
}

// armTasksCell is the arms table's tasks cell: the count, and the clusters when tasks share them ("36 (18
// families)").
func armTasksCell(arm analysis.Arm, unit string) string {
	if arm.Clusters > 0 && arm.Clusters < arm.Tasks {
		return fmt.Sprintf("%d (%s)", arm.Tasks, unitCount(arm.Clusters, unit))
	}
	return fmt.Sprint(arm.Tasks)
}

// unitCount is n and the unit in its number ("12 families").
func unitCount(n int, unit string) string { return fmt.Sprintf("%d %s", n, unitWord(n, unit)) }

// RatioPct words a ratio of means as a relative change, "+83%", "-12.5%" (one decimal below 10 %), "+∞" for an
// unbounded end and "n/a" for none.
func RatioPct(r float64) string {
	switch {
	case math.IsNaN(r):
		return "n/a"
	case math.IsInf(r, 1):
		return "+∞"
	}
	x := 100 * (r - 1)
	if math.Abs(x) < 10 {
		s := fmt.Sprintf("%+.1f%%", x)
		if s == "+0.0%" || s == "-0.0%" {
			return "0%"
		}
		return s
	}
	return fmt.Sprintf("%+.0f%%", x)
}

// ratioCI words a ratio interval as relative changes, "[+31%, +160%]".
func ratioCI(ci [2]float64) string { return fmt.Sprintf("[%s, %s]", RatioPct(ci[0]), RatioPct(ci[1])) }

// CostAmount words an amount of outcome o with its unit: a mean ("34724 tokens", "$0.0123", "12.3 s", "9.5
// steps"), or when signed a difference ("+34724 tokens").
func CostAmount(o results.CostOutcome, x float64, signed bool) string {
	if o == results.CostUSD {
		if x < 0 {
			return "-$" + costNum(o, -x, false)
		}
		if signed {
			return "+$" + costNum(o, x, false)
		}
		return "$" + costNum(o, x, false)
	}
	return costNum(o, x, signed) + " " + costUnit(o)
}

// costDiffCI words a difference per attempt with its interval, the unit once: "+34724 [+6652, +52083] tokens";
// an unbounded end is "±∞".
func costDiffCI(o results.CostOutcome, d float64, ci [2]float64) string {
	return fmt.Sprintf("%s [%s, %s] %s", costNum(o, d, true), costNum(o, ci[0], true), costNum(o, ci[1], true),
		costUnit(o))
}

// costUnit is the unit an outcome's amounts are printed in.
func costUnit(o results.CostOutcome) string {
	switch o {
	case results.CostUSD:
		return "USD"
	case results.CostWall:
		return "s"
	}
	return string(o)
}

// costNum is an amount of o in costUnit, signed when asked: whole tokens, steps to 0.1, USD to 0.0001, wall
// seconds to 0.1 (from ms).
func costNum(o results.CostOutcome, x float64, signed bool) string {
	if math.IsInf(x, 0) {
		if x > 0 {
			return "+∞"
		}
		return "-∞"
	}
	f := map[results.CostOutcome]string{results.CostSteps: "%.1f", results.CostTokens: "%.0f",
		results.CostUSD: "%.4f", results.CostWall: "%.1f"}[o]
	if o == results.CostWall {
		x /= 1000
	}
	if signed {
		f = "%+" + f[1:]
	}
	s := fmt.Sprintf(f, x)
	if strings.Trim(s, "+-0.") == "" {
		return strings.TrimLeft(s, "+-") // no sign on a zero
	}
	return s
}

// CostVerdictText words a cost verdict (analysis.CostVerdict): the one wording of every kind, which every format
// prints — "83% more tokens [+31%, +160%], p_holm 0.0156", "costlier than the gate allows: …", or "no difference
// shown" with why.
func CostVerdictText(vd analysis.CostVerdict) string {
	more := "more"
	if vd.Diff < 0 {
		more = "less"
		if vd.Outcome == results.CostSteps || vd.Outcome == results.CostTokens {
			more = "fewer"
		}
	}
	mag := RatioPct(vd.Ratio)
	mag = strings.TrimLeft(mag, "+-")
	fig := fmt.Sprintf("%s %s %s %s, p_holm %s", mag, more, costNoun(vd.Outcome), ratioCI(vd.RatioCI), stats.FmtP(vd.PHolm))
	switch vd.Kind {
	case analysis.CostVerdictGateFails:
		return fmt.Sprintf("costlier than the gate allows (%s; the whole interval above +%.0f%%)", fig, 100*vd.Margin)
	case analysis.CostVerdictCostlier, analysis.CostVerdictCheaper:
		return fig
	case analysis.CostVerdictPermFloor:
		if vd.Moved == 0 {
			return fmt.Sprintf("no %s difference: the arms' means are equal on every %s", costNoun(vd.Outcome), vd.Unit)
		}
		return fmt.Sprintf("no %s difference shown: with %d %s moved, p cannot go below %s", costNoun(vd.Outcome),
			vd.Moved, unitWord(vd.Moved, vd.Unit), stats.FmtP(vd.PermFloor))
	}
	return fmt.Sprintf("no %s difference shown", costNoun(vd.Outcome))
}

// CostLine is a variant's line in the compact report's cost section: each outcome's change of the mean on the
// same pairs with its interval and p_holm, then the verdicts that decide something ("no cost difference shown"
// when none does); "" when the variant has no cost comparison.
func CostLine(a *analysis.Analysis, v *analysis.VariantResult) string {
	if len(v.Costs) == 0 {
		return ""
	}
	var cells, decided []string
	for i := range v.Costs {
		c := &v.Costs[i]
		p := "p_holm " + stats.FmtP(c.PHolm)
		if v.AA {
			p = "p " + stats.FmtP(c.Means.P)
		}
		cells = append(cells, fmt.Sprintf("%s %s %s %s", c.Outcome, RatioPct(c.Means.Ratio), ratioCI(c.Means.RatioCI), p))
		switch vd := a.CostVerdictOf(v, c); vd.Kind {
		case analysis.CostVerdictGateFails, analysis.CostVerdictCostlier, analysis.CostVerdictCheaper:
			decided = append(decided, CostVerdictText(vd))
		}
	}
	verdict := "no cost difference shown"
	if len(decided) > 0 {
		verdict = strings.Join(decided, "; ")
	}
	c0 := &v.Costs[0]
	return fmt.Sprintf("%s (%s, %s): %s: %s", v.Name, fmt.Sprintf("%d %s", c0.Means.G, unitWord(c0.Means.G, c0.Unit)),
		results.Count(c0.Pairs, "pair", "pairs"), strings.Join(cells, ", "), verdict)
}

// CostHeader is the heading of the cost section of the compact, wide and Markdown reports.
const CostHeader = "Cost vs the baseline on the same pairs as the pass rate (all attempts; change of the mean " +
	"[95% CI], p_holm over the variants per outcome)"

// CostNote says what the cost figures are, under the cost table.
const CostNote = "Paired on the pass rate's matched pairs, within each variant's scope: per unit (task, or task " +
	"family) the mean over its pairs in each arm; change = ratio of the means over units − 1. p: exact sign-flip " +
	"test of the per-unit differences; the ratio's interval inverts it, the difference's is the ratio's times the " +
	"baseline's mean. \"all\" counts every judged attempt (primary: a " +
	"failed attempt is spent too); \"passed\" the pairs both arms passed (secondary: it conditions on an outcome " +
	"the variant may change). The arm means above cover each arm's own tasks; read costs here."

// costTable is the paired cost table of the wide and Markdown reports: per variant and outcome, the primary view
// then the passed-only view.
func costTable(a *analysis.Analysis) ReportTable {
	t := ReportTable{Title: "Cost (paired, per-unit means)", Header: []string{"variant", "outcome", "view", "units",
		"pairs", "baseline mean", "variant mean", "Δ per attempt [95% CI]", "change [95% CI]", "p", "p_holm",
		"verdict"}, Note: CostNote}
	for i := range a.Variants {
		v := &a.Variants[i]
		for _, c := range slices.Concat(v.Costs, v.CostsPassed) {
			m := c.Means
			holm, verdict := "-", "-"
			if c.View == analysis.ViewAll {
				holm = stats.FmtP(c.PHolm)
				verdict = CostVerdictText(a.CostVerdictOf(v, &c))
			}
			view := string(c.View)
			if c.View == analysis.ViewPassed {
				view = "passed (secondary)"
			}
			t.Rows = append(t.Rows, []string{v.Name, string(c.Outcome), view,
				fmt.Sprintf("%d %s (%d moved)", m.G, unitWord(m.G, c.Unit), m.Moved), fmt.Sprint(c.Pairs),
				CostAmount(c.Outcome, m.MeanA, false), CostAmount(c.Outcome, m.MeanB, false),
				costDiffCI(c.Outcome, m.Diff, m.DiffCI),
				RatioPct(m.Ratio) + " " + ratioCI(m.RatioCI), stats.FmtP(m.P), holm, verdict})
		}
	}
	return t
}

// CostMarginsText words a cost gate's margins, "tokens +20%, wall +50%", in outcome order.
func CostMarginsText(m map[results.CostOutcome]float64) string {
	var out []string
	for _, o := range results.CostOutcomes {
		if x, ok := m[o]; ok {
			out = append(out, fmt.Sprintf("%s +%s", o, strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", 100*x), "0"), ".")+"%"))
		}
	}
	return strings.Join(out, ", ")
}

// CostGateLine is the cost gate's verdict (Analysis.CostGate at a.FailIfCostlier), the one line of every format
// and of the commands' stderr: the rule, then "FAILED." with each failing variant's verdict, or "passed".
func CostGateLine(a *analysis.Analysis) string {
	head := fmt.Sprintf("Cost gate (fail if costlier than %s with the whole interval above it and p_holm below alpha)",
		CostMarginsText(a.FailIfCostlier))
	failed, why := a.CostGate()
	if !failed {
		return head + ": passed: no variant is shown costlier than it allows."
	}
	out := make([]string, 0, len(why))
	for _, vd := range why {
		out = append(out, vd.Variant+": "+CostVerdictText(vd))
	}
	return head + ": FAILED. " + strings.Join(out, "; ")
}

// printCostLines prints the compact report's cost section: CostHeader, then each variant's CostLine; nothing when
// no variant has a cost comparison.
func printCostLines(w io.Writer, a *analysis.Analysis, width int) {
	var lines []string
	for i := range a.Variants {
		if l := CostLine(a, &a.Variants[i]); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w)
	printWrapped(w, CostHeader, "", "  ", width)
	for _, l := range lines {
		printWrapped(w, l, "  ", "      ", width)
	}
}
