package report

// The answer every report leads with: one line per variant (analysis.Headline) in words.

import (
	"fmt"
	"strings"

	"webbench/analysis"
	"webbench/stats"
)

// HeadlineTitle is the title of the headlines, in every format.
const HeadlineTitle = "Answer (per variant: verdict; pass rate on the pairs compared; cost; top cause of the moved pairs)"

// SeqHeadlineTitle is the headlines' title in a sequential run, whose verdicts are the fixed-size tests' on records
// a sequential rule stopped: diagnostics, the sequential decisions being the result.
const SeqHeadlineTitle = "Fixed-size diagnostics, not the decisions (per variant: verdict of the fixed-size test on the " +
	"records the sequential rule stopped; pass rate on the pairs compared; cost; top cause of the moved pairs): the " +
	"sequential decisions are the result"

// HeadlineTitleOf is the headlines' title for a: SeqHeadlineTitle for a sequential run, else HeadlineTitle.
func HeadlineTitleOf(a *analysis.Analysis) string {
	if a.Sequential != nil {
		return SeqHeadlineTitle
	}
	return HeadlineTitle
}

// VerdictWord is a verdict in a few words, the headline's first: "worse", "better", "WORSE (gate fails)",
// "cannot tell: too few tasks" when at this size no difference can be shown whatever the outcomes, "cannot tell:
// too few tasks moved" when the tasks that moved cannot reach α, "no difference shown after Holm's adjustment" when
// only p_holm is not below α, else "no difference shown"; VerdictText says why.
func VerdictWord(vd analysis.Verdict) string {
	switch vd.Kind {
	case analysis.VerdictNoComparison:
		return "nothing to compare"
	case analysis.VerdictNoCommonPairs:
		return "no verdict"
	case analysis.VerdictAADiffers:
		return "A/A control DIFFERS"
	case analysis.VerdictAASame:
		return "A/A control: same, as expected"
	case analysis.VerdictGateFails:
		return "WORSE (gate fails)"
	case analysis.VerdictWorse:
		return "worse"
	case analysis.VerdictBetter:
		return "better"
	case analysis.VerdictHolmFloor:
		return "cannot tell: too few tasks"
	case analysis.VerdictPermFloor:
		return "cannot tell: too few tasks moved"
	case analysis.VerdictHolmAdjusted:
		return "no difference shown after Holm's adjustment"
	}
	return "no difference shown"
}

// HeadlineText is a variant's headline in one line: "no_repeat_guard: worse — 90% → 40% on 10 tasks, Δ -50.0 pts
// [-80.1, -19.9]; tokens +83% [+31%, +160%]; top cause of 5 moved: broke 4 at a stale ref → 4
// stale_ref_deadlock" ("on 3 families (12 tasks)" when the comparison is clustered). The pass rates are over the
// same pairs as Δ; the cost part is the cost
// verdict's figure when it decides, else the change with "not shown"; the cause part is left out when no pair
// moved or no divergence analysis was made. Two compared runs (h.Overlap set) that share no judged pair get no
// verdict, only why (OverlapText); when they share some, the units say of how many ("on 3 tasks, of 40 in run A
// and 38 in run B").
func HeadlineText(h analysis.Headline) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", h.Variant, VerdictWord(h.Verdict))
	if h.Verdict.Kind == analysis.VerdictNoCommonPairs {
		b.WriteString(" — " + OverlapText(*h.Overlap))
		return b.String()
	}
	if c := h.All; c.Method != analysis.MethodNone {
		units := headlineUnits(c)
		if o := h.Overlap; o != nil && o.Partial() {
			units += fmt.Sprintf(", of %d in run A and %d in run B", o.TasksA, o.TasksB)
		}
		fmt.Fprintf(&b, " — %s → %s on %s, Δ %s pts [%s, %s]", stats.Pct(c.A.Rate), stats.Pct(c.B.Rate),
			units, stats.Pts(c.Delta), stats.Pts(c.CI[0]), stats.Pts(c.CI[1]))
	}
	if vd := h.Cost; vd != nil {
		fmt.Fprintf(&b, "; %s %s", vd.Outcome, headlineCost(*vd))
	}
	if g := h.Cause; g != nil {
		fmt.Fprintf(&b, "; top cause of %d moved: %s at %s → %s", h.Moved,
			fmt.Sprintf(outcomeVerbs[g.Outcome], len(g.Pairs)), causeWords(*g), countList(g.Endings))
	}
	return b.String()
}

// OverlapText says why two runs sharing no judged pair have no verdict, with the counts: "the runs share no
// (task, rep) pair judged in both: run A has 10 judged tasks, run B 10, none in common; compare runs of the same
// tasks (same suite, --tasks and --reps)"; tasks judged in both at no common rep, and common pairs dropped for
// errors, are named.
func OverlapText(o analysis.Overlap) string {
	common := "none in common"
	if o.CommonTasks > 0 {
		common = fmt.Sprintf("%d in common but at no common rep", o.CommonTasks)
	}
	if o.DroppedPairs > 0 {
		common += fmt.Sprintf(" (%s dropped: an attempt ended in an error)",
			unitCount(o.DroppedPairs, "common pair"))
	}
	return fmt.Sprintf("the runs share no (task, rep) pair judged in both: run A has %s, run B %d, %s; "+
		"compare runs of the same tasks (same suite, --tasks and --reps)", unitCount(o.TasksA, "judged task"), o.TasksB, common)
}

// headlineUnits counts what the comparison's primary test flips: "10 tasks", or for a clustered comparison "3
// families (12 tasks)", since its p and interval rest on the families, not the tasks.
func headlineUnits(c *analysis.Comparison) string {
	if u := c.Unit(); u != "task" {
		return fmt.Sprintf("%s (%s)", unitCount(c.Paired.C, u), unitCount(c.G(), "task"))
	}
	return unitCount(c.G(), "task")
}

// headlineCost words a cost verdict for a headline: "+83% [+31%, +160%]" when it is decided (costlier or
// cheaper), "+83% (cost gate FAILS)" when the gate fails, else "+83% (not shown)".
func headlineCost(vd analysis.CostVerdict) string {
	switch vd.Kind {
	case analysis.CostVerdictCostlier, analysis.CostVerdictCheaper:
		return RatioPct(vd.Ratio) + " " + ratioCI(vd.RatioCI)
	case analysis.CostVerdictGateFails:
		return RatioPct(vd.Ratio) + " (cost gate FAILS)"
	}
	return RatioPct(vd.Ratio) + " (not shown)"
}

// causeWords names what the arm that went wrong met at a cause group's divergence, "a stale ref", with "(before
// a guard acted)" when no guard event explains it; which guard acted is in the divergence analysis's lines.
func causeWords(g analysis.CauseGroup) string {
	if g.Guard == "" {
		return kindWords[g.Kind] + " (before a guard acted)"
	}
	return kindWords[g.Kind]
}

// Headlines words a's headlines (analysis.Analysis.Headlines) with the causes of w (nil: none), in a's order.
func Headlines(a *analysis.Analysis, w *analysis.Why) []string {
	hs := a.Headlines(w)
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = HeadlineText(h)
	}
	return out
}
