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

// costWord is how the reports word one cost outcome: its noun in sentences ("83% more tokens"; counted:
// "fewer", not "less"), the unit its amounts are printed in, their format in that unit, and the factor from the
// recorded value to it.
type costWord struct {
	noun, unit, format string
	scale              float64
	counted            bool
}

// costWords is the one table of the cost outcomes' words: steps to 0.1, whole tokens, USD to 0.0001, wall
// seconds to 0.1 (recorded in ms), repeated calls to 0.1, tool-result kilobytes (1,000 bytes) to 0.1.
var costWords = map[results.CostOutcome]costWord{
	results.CostSteps:         {"steps", "steps", "%.1f", 1, true},
	results.CostTokens:        {"tokens", "tokens", "%.0f", 1, true},
	results.CostUSD:           {"cost (USD)", "USD", "%.4f", 1, false},
	results.CostWall:          {"wall time", "s", "%.1f", 1e-3, false},
	results.CostRepeatedCalls: {"repeated calls", "calls", "%.1f", 1, true},
	results.CostToolBytes:     {"tool-result bytes", "KB", "%.1f", 1e-3, true},
}

// wordsOf is o's costWord; an outcome the table lacks is named by its code, its amounts printed as recorded.
func wordsOf(o results.CostOutcome) costWord {
	if w, ok := costWords[o]; ok {
		return w
	}
	return costWord{string(o), string(o), "%.4g", 1, false}
}

// costNoun names an outcome in sentences ("83% more tokens").
func costNoun(o results.CostOutcome) string { return wordsOf(o).noun }

// unitWord is the unit of analysis, a singular noun ("task", "family", "site"), in the number of n
// (results.Plural, with the noun's regular English plural: a consonant's "y" turned to "ies").
func unitWord(n int, unit string) string {
	many := unit + "s"
	if l := len(unit); l > 1 && unit[l-1] == 'y' && !strings.ContainsRune("aeiou", rune(unit[l-2])) {
		many = unit[:l-1] + "ies"
	}
	return results.Plural(n, unit, many)
}

// armUnits counts an arm's tasks, and its clusters when they are the unit of its comparisons
// (stats.UseClusters): "124 tasks in 31 families" — both the tasks and the units a clustered comparison tests
// over.
func armUnits(arm analysis.Arm, unit string) string {
	if stats.UseClusters(arm.Clusters, arm.Tasks) {
		return fmt.Sprintf("%s in %s", results.Count(arm.Tasks, "task", "tasks"), unitCount(arm.Clusters, unit))
	}
	return results.Count(arm.Tasks, "task", "tasks")
}

// armTasksCell is the arms table's tasks cell: the count, and the clusters when they are the unit
// (stats.UseClusters: "36 (18 families)").
func armTasksCell(arm analysis.Arm, unit string) string {
	if stats.UseClusters(arm.Clusters, arm.Tasks) {
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
func costUnit(o results.CostOutcome) string { return wordsOf(o).unit }

// costNum is an amount of o in costUnit (costWords), signed when asked.
func costNum(o results.CostOutcome, x float64, signed bool) string {
	if math.IsInf(x, 0) {
		if x > 0 {
			return "+∞"
		}
		return "-∞"
	}
	w := wordsOf(o)
	f := w.format
	if signed {
		f = "%+" + f[1:]
	}
	s := fmt.Sprintf(f, x*w.scale)
	if strings.Trim(s, "+-0.") == "" {
		return strings.TrimLeft(s, "+-") // no sign on a zero
	}
	return s
}

// costDirection words a decided cost verdict without its figures: "more tokens", "fewer steps", "less wall time".
func costDirection(vd analysis.CostVerdict) string {
	more := "more"
	if vd.Diff < 0 {
		more = "less"
		if wordsOf(vd.Outcome).counted {
			more = "fewer"
		}
	}
	return more + " " + costNoun(vd.Outcome)
}

// CostVerdictText words a cost verdict (analysis.CostVerdict): the one wording of every kind, which every format
// prints — "83% more tokens [+31%, +160%], p_holm 0.0156", "costlier than the gate allows: …", or "no difference
// shown" with why.
func CostVerdictText(vd analysis.CostVerdict) string {
	mag := RatioPct(vd.Ratio)
	mag = strings.TrimLeft(mag, "+-")
	fig := fmt.Sprintf("%s %s %s, p_holm %s", mag, costDirection(vd), ratioCI(vd.RatioCI), stats.FmtP(vd.PHolm))
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
	case analysis.CostVerdictHolmFloor:
		h := vd.Holm
		return fmt.Sprintf("no %s difference shown: with %d %s moved, p_holm cannot go below %d × %s = %s",
			costNoun(vd.Outcome), h.G, movedWord(h), h.M, stats.FmtP(h.Floor), stats.FmtP(float64(h.M)*h.Floor))
	}
	return fmt.Sprintf("no %s difference shown", costNoun(vd.Outcome))
}

// movedWord is what a cost floor's exponent counts, in its number: "task", "tasks", "family", "families".
func movedWord(h analysis.HolmFloor) string { return unitWord(h.G, h.Unit) }

// costHolmFloorText words a cost_holm_floor warning: per bound (the outcomes sharing it named together), the
// moved units and the floor they leave p, the Holm multiplier, and the moved units it would take.
func costHolmFloorText(w analysis.Warning) string {
	var bounds []analysis.HolmFloor
	names := map[analysis.HolmFloor][]string{}
	for _, f := range w.Costs {
		if _, ok := names[f.Holm]; !ok {
			bounds = append(bounds, f.Holm)
		}
		names[f.Holm] = append(names[f.Holm], string(f.Outcome))
	}
	parts := make([]string, 0, len(bounds))
	for _, h := range bounds {
		parts = append(parts, fmt.Sprintf("%s: %d %s moved, so p ≥ 2/2^%d = %s, and %d variants have a floor at "+
			"least as high, so p_holm ≥ %d × %s = %s (that needs at least %d moved %s)",
			joinAnd(names[h]), h.G, movedWord(h), h.G, stats.FmtP(h.Floor), h.M, h.M, stats.FmtP(h.Floor),
			stats.FmtP(float64(h.M)*h.Floor), h.Need, unitWord(h.Need, h.Unit)))
	}
	return fmt.Sprintf("Costs that cannot be shown different from the baseline's at this size, nor fail the cost "+
		"gate (p_holm ≥ α = %s after Holm's adjustment over the variants): %s. A cost's exact p cannot go below "+
		"2/2^k, k the units whose means differ: more units lift it, not more reps.",
		stats.FmtP(w.Alpha), strings.Join(parts, "; "))
}

// joinAnd joins words as "a", "a and b", "a, b and c".
func joinAnd(ws []string) string {
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
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
		change := RatioPct(c.Means.Ratio) + " " + ratioCI(c.Means.RatioCI)
		if math.IsNaN(c.Means.Ratio) { // the baseline's mean is 0: no ratio, the difference per attempt instead
			change = costDiffCI(c.Outcome, c.Means.Diff, c.Means.DiffCI) + " (baseline 0)"
		}
		cells = append(cells, fmt.Sprintf("%s %s %s", c.Outcome, change, p))
		switch vd := a.CostVerdictOf(v, c); vd.Kind {
		case analysis.CostVerdictGateFails:
			decided = append(decided, costDirection(vd)+" (beyond the cost gate)")
		case analysis.CostVerdictCostlier, analysis.CostVerdictCheaper:
			decided = append(decided, costDirection(vd))
		}
	}
	// The figures are in the cells: the verdict names the outcomes shown different, once.
	verdict := "no cost difference shown"
	if len(decided) > 0 {
		verdict = "shown: " + strings.Join(decided, ", ")
	}
	c0 := &v.Costs[0]
	return fmt.Sprintf("%s (%s, %s%s): %s: %s", v.Name, fmt.Sprintf("%d %s", c0.Means.G, unitWord(c0.Means.G, c0.Unit)),
		results.Count(c0.Pairs, "pair", "pairs"), costUnitNote(c0, a.ClusterUnit), strings.Join(cells, ", "), verdict)
}

// costUnitNote words why a cost comparison's unit is the task although the run names a cluster unit ("; over
// tasks: all in one family, none to compare across"), empty when it is not.
func costUnitNote(c *analysis.CostComparison, unit string) string {
	if c.UnitReason != stats.ReasonOneCluster {
		return ""
	}
	return fmt.Sprintf("; over tasks: all in one %s, no other %s to compare across", unit, unit)
}

// CostWording names the sides of the cost section: an ablation compares variants with its baseline (over each
// variant's scope, p_holm over the variants), a comparison of two runs run B with run A on their common pairs
// (one comparison: p_holm is its p).
type CostWording struct {
	// Header heads the cost section of the compact, wide and Markdown reports; Note says what the figures are,
	// under the cost table; Column heads the table's first column; NoneCostlier is the cost gate's passing clause.
	Header, Note, Column, NoneCostlier string
}

// costNoteBody is what CostNote and the comparison's note share: how the figures are made and the two views.
const costNoteBody = "per unit (task, or task family) the mean over its pairs in each arm; change = ratio of the " +
	"means over units − 1. p: exact sign-flip test of the per-unit differences; the ratio's interval inverts it, " +
	"the difference's is the ratio's times the baseline's mean. \"all\" counts every judged attempt (primary: a " +
	"failed attempt is spent too); \"passed\" the pairs both arms passed (secondary: it conditions on an outcome " +
	"the variant may change). repeated_calls and tool_bytes count the pairs whose records hold them (not runs " +
	"recorded before them)."

// CostHeader is the heading of an ablation's cost section (AblationCostWording).
const CostHeader = "Cost vs the baseline on the same pairs as the pass rate (all attempts; change of the mean " +
	"[95% CI], p_holm over the variants per outcome)"

// CostNote says what an ablation's cost figures are, under the cost table (AblationCostWording).
const CostNote = "Paired on the pass rate's matched pairs, within each variant's scope: " + costNoteBody +
	" The arm means above cover each arm's own tasks; read costs here."

// AblationCostWording is the CostWording of an ablation.
func AblationCostWording() CostWording {
	return CostWording{Header: CostHeader, Note: CostNote, Column: "variant",
		NoneCostlier: "no variant is shown costlier than it allows"}
}

// RunCostWording is the CostWording of the comparison of two runs c, the sides named by their labels.
func RunCostWording(c *analysis.RunComparison) CostWording {
	a, b := c.A.Label, c.B.Label
	return CostWording{
		Header: fmt.Sprintf("Cost of %s vs %s on the same pairs as the pass rate (all attempts; change of the "+
			"mean [95%% CI], p_holm: one comparison, so the p itself)", b, a),
		Note:         fmt.Sprintf("Paired on the pass rate's matched pairs of %s and %s: ", a, b) + costNoteBody,
		Column:       "run",
		NoneCostlier: fmt.Sprintf("%s is not shown costlier than it allows", b)}
}

// costTable is the paired cost table of the wide and Markdown reports: per variant and outcome, the primary view
// then the passed-only view.
func costTable(a *analysis.Analysis, wd CostWording) ReportTable {
	t := ReportTable{Title: "Cost (paired, per-unit means)", Header: []string{wd.Column, "outcome", "view", "units",
		"pairs", "baseline mean", wd.Column + " mean", "Δ per attempt [95% CI]", "change [95% CI]", "p", "p_holm",
		"verdict"}, Note: wd.Note}
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

// CostGateLine is an ablation's cost gate verdict (CostGateLineWith, AblationCostWording).
func CostGateLine(a *analysis.Analysis) string { return CostGateLineWith(a, AblationCostWording()) }

// CostGateLineWith is the cost gate's verdict (Analysis.CostGate at a.FailIfCostlier), the one line of every
// format: the rule, then "FAILED." with each failing side's verdict, or "passed" with wd.NoneCostlier.
func CostGateLineWith(a *analysis.Analysis, wd CostWording) string {
	head := fmt.Sprintf("Cost gate (fail if costlier than %s with the whole interval above it and p_holm below alpha)",
		CostMarginsText(a.FailIfCostlier))
	failed, why := a.CostGate()
	if !failed {
		return head + ": passed: " + wd.NoneCostlier + "."
	}
	out := make([]string, 0, len(why))
	for _, vd := range why {
		out = append(out, vd.Variant+": "+CostVerdictText(vd))
	}
	return head + ": FAILED. " + strings.Join(out, "; ")
}

// printCostLines prints the compact report's cost section: wd.Header, then each variant's CostLine; nothing when
// no variant has a cost comparison.
func printCostLines(w io.Writer, a *analysis.Analysis, wd CostWording, width int) {
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
	printWrapped(w, wd.Header, "", "  ", width)
	for _, l := range lines {
		printWrapped(w, l, "  ", "      ", width)
	}
}
