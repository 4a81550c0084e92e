package report

import (
	"cmp"
	"fmt"

	"webbench/analysis"
	"webbench/stats"
)

// VerdictText words a variant's verdict (analysis.Analysis.VerdictOf): the one wording of every verdict kind,
// which the terminal, Markdown, JSON and JUnit reports all print.
func VerdictText(vd analysis.Verdict) string {
	switch vd.Kind {
	case analysis.VerdictNoComparison:
		return "nothing to compare: an arm has no judged attempt on the common tasks"
	case analysis.VerdictNoCommonPairs:
		return "no verdict: the runs share no (task, rep) pair judged in both"
	case analysis.VerdictAADiffers:
		return "A/A control DIFFERS from the baseline: the environment is not reproducible enough to trust small effects"
	case analysis.VerdictAASame:
		return "A/A control: no difference, as expected"
	case analysis.VerdictGateFails:
		return "worse than the baseline (gate FAILS)"
	case analysis.VerdictWorse:
		return "worse than the baseline"
	case analysis.VerdictBetter:
		return "better than the baseline"
	case analysis.VerdictHolmFloor:
		h := vd.Holm
		if h.M == 1 {
			return fmt.Sprintf("no difference shown: at this size none can be (p ≥ %s with %s compared; it takes %s)",
				stats.FmtP(h.Floor), unitCount(h.G, h.Unit), unitCount(h.Need, h.Unit))
		}
		return fmt.Sprintf("no difference shown: at this size none can be (p_holm ≥ %s with %s compared and %d variants sharing the floor)",
			stats.FmtP(float64(h.M)*h.Floor), unitCount(h.G, h.Unit), h.M)
	case analysis.VerdictPermFloor:
		return fmt.Sprintf("no difference shown: with %s moved, p_paired cannot go below %s",
			unitCount(vd.Moved, cmp.Or(vd.Unit, "task")), stats.FmtP(vd.PermFloor))
	case analysis.VerdictHolmAdjusted:
		return fmt.Sprintf("no difference shown after Holm's adjustment (%s %s < α = %s, p_holm %s)",
			pName(vd.Matched), stats.FmtP(vd.P), stats.FmtP(vd.Alpha), stats.FmtP(vd.PHolm))
	case analysis.VerdictBelowMDE:
		return fmt.Sprintf("no difference shown (MDE %.0f pts: a smaller change can go unseen)", 100*vd.MDE)
	}
	return "no difference shown"
}

// Verdict says in words what the primary comparison of v shows, by the rule the gate and the Markdown report use
// (p_holm against α; the gate's margin when set): "worse than the baseline (gate FAILS)", "worse than the
// baseline", "better than the baseline", or "no difference shown" with why, when the run could not have shown
// one — "no difference shown: at this size none can be (p_holm ≥ 0.156 with 6 tasks compared and 5 variants
// sharing the floor)" (the holm_floor warning's bound, which no number of reps lifts), "no difference shown:
// with 2 tasks moved, p_paired cannot go below 0.5" (the exact sign-flip floor of the tasks that moved, above α;
// more reps may move more), "no difference shown after Holm's adjustment (p_paired 0.0312 < α = 0.05,
// p_holm 0.0938)" (p_fisher when unpaired) — or else with the MDE when the observed |Δ| is below it: "no
// difference shown (MDE 40 pts: a smaller change can go unseen)"; for an A/A control, whether its difference
// stays within noise.
func Verdict(a *analysis.Analysis, v *analysis.VariantResult) string {
	return VerdictText(a.VerdictOf(v, a.FailIfWorse))
}

// primaryPName names c's primary p: "p_paired" (the sign-flip test over tasks) when the arms are matched,
// "p_fisher" (Fisher's exact test, unpaired) otherwise.
func primaryPName(c *analysis.Comparison) string { return pName(c.Matched) }

// pName is the primary p's name of arms matched (p_paired) or not (p_fisher).
func pName(matched bool) string {
	if matched {
		return "p_paired"
	}
	return "p_fisher"
}
