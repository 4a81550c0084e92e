package report

// The parts of a comparison of two runs' report that every text format shows:
// its warnings, a summary table, the table of changed tasks and the footer
// lines (unchanged tasks, what differs, the gate).

import (
	"fmt"
	"math"
	"strings"

	"webbench/analysis"
	"webbench/results"
	"webbench/stats"
)

// CompareTables returns the tables of a comparison of two runs' report: the
// summary (pass rates, method, Δ with its interval, p, McNemar, MDE, counts
// of new failures and fixed tasks), the tasks whose pass rate changed, and
// the paired cost outcomes when there are any (costTable).
func CompareTables(c *analysis.RunComparison) []results.Table {
	out := []results.Table{compareSummaryTable(c), compareTaskTable(c)}
	if t := costTable(c.Analysis, RunCostWording(c)); len(t.Rows) > 0 {
		out = append(out, t.Table())
	}
	return out
}

// CompareWarnings returns the sentences of c's warnings, in print order, the arms named by the sides' labels
// (RunWording).
func CompareWarnings(c *analysis.RunComparison) []string {
	return warningTexts(WordWarnings(c.Warnings, RunWording(c.A.Label, c.B.Label)))
}

// CompareVerdict is the comparison's answer in one line, printed first in every format: "Verdict: run B vs run
// A: worse — 90% → 60% on 12 tasks, Δ …; tokens …; top cause …" (HeadlineText of the one variant, named by the
// sides' labels), in words whether or not a gate was asked for; "Verdict: run B vs run A: no verdict — the runs
// share no (task, rep) pair judged in both: …" when they share none (RunComparison.Headline).
func CompareVerdict(c *analysis.RunComparison) string {
	h := c.Headline()
	h.Variant = c.B.Label + " vs " + c.A.Label
	return "Verdict: " + HeadlineText(h)
}

// UngatedLine says that the gates asked for were not applied to runs without a common judged pair, and how
// `bench compare` exits: "" when the comparison is gated (or no gate was asked for).
func UngatedLine(c *analysis.RunComparison) string {
	if !c.Ungated {
		return ""
	}
	return "Gate: not applied: the runs share no (task, rep) pair judged in both, so Δ would compare different " +
		"tasks; bench compare exits 2 (an input error): compare runs of the same tasks (same suite, --tasks and --reps)."
}

// NewFailureModesLine words the failure modes of the new failures' failed attempts in run B
// (RunComparison.NewFailureModes): "How the 2 new failures failed in run B: 3 stalled, 1 loop"; "" without new
// failures.
func NewFailureModesLine(c *analysis.RunComparison) string {
	if len(c.NewFailures) == 0 {
		return ""
	}
	return fmt.Sprintf("How the %s failed in %s: %s.", results.Count(len(c.NewFailures), "new failure", "new failures"),
		c.B.Label, countList(c.NewFailureModes()))
}

// CompareFooter returns the lines printed under a comparison's tables: how the
// new failures failed (NewFailureModesLine), how many tasks did not change,
// what differs between the runs, and the gate verdict (when there is a gate;
// UngatedLine when it was not applied).
func CompareFooter(c *analysis.RunComparison) []string {
	same := 0
	for _, d := range c.Tasks {
		if d.Change == analysis.ChangeSame {
			same++
		}
	}
	lines := []string{}
	if l := NewFailureModesLine(c); l != "" {
		lines = append(lines, l)
	}
	if same > 0 {
		lines = append(lines, fmt.Sprintf("%s with the same pass rate in both runs %s not listed (see --format json).",
			results.Count(same, "task", "tasks"), results.Plural(same, "is", "are")))
	}
	if len(c.Differences) > 0 {
		lines = append(lines, "The runs differ in: "+strings.Join(c.Differences, "; ")+".")
	} else {
		lines = append(lines, "The runs' records show the same model, guards and seed (an A/A comparison).")
	}
	if c.Gate != nil {
		lines = append(lines, CompareGateLine(c))
	}
	if l := UngatedLine(c); l != "" {
		lines = append(lines, l)
	} else if len(c.Analysis.FailIfCostlier) > 0 {
		lines = append(lines, CostGateLineWith(c.Analysis, RunCostWording(c)))
	}
	return lines
}

func compareSummaryTable(c *analysis.RunComparison) results.Table {
	all := c.Result().All
	mde := "—"
	if m, ok, over := c.MDE(); over {
		mde = "> 100 pts"
	} else if ok {
		mde = fmt.Sprintf("%.0f pts", 100*m)
	}
	method, pcol, mcn := "unpaired (Newcombe)", "p (Fisher)", "—"
	ci := fmt.Sprintf("%+.1f [%+.1f, %+.1f]", 100*all.Delta, 100*all.CI[0], 100*all.CI[1])
	if all.Matched {
		method = fmt.Sprintf("paired: %d→%d of %d %s, %d %s (%d informative)", all.A.Passes, all.B.Passes,
			all.Pairs, results.Plural(all.Pairs, "pair", "pairs"), all.G(), results.Plural(all.G(), "task", "tasks"), all.Informative)
		pcol = "p_paired (exact sign-flip)"
		if all.Paired.CIMethod == stats.CIMethodAdjusted {
			ci += " adj."
		}
		mcn = fmt.Sprintf("rescued %d, broke %d", all.Rescued, all.Broke)
		if !math.IsNaN(all.PMcNemarClustered) {
			mcn = fmt.Sprintf("p=%.3g; %s", all.PMcNemarClustered, mcn)
		}
	}
	vs := c.A.Variant
	if c.B.Variant != c.A.Variant {
		vs = c.A.Variant + " → " + c.B.Variant
	}
	armA, armB := c.Analysis.BaseArm, c.Result().Arm
	return results.Table{Title: fmt.Sprintf("compare %s → %s (variant %s)", c.A.Name, c.B.Name, vs),
		Header: []string{c.A.Label, c.B.Label, "comparison", "Δ pts [95% CI]", pcol, "McNemar by task (Durkalski)", "MDE",
			"new failures", "fixed"},
		Rows: [][]string{{fmt.Sprintf("%.1f%% (n=%d)", 100*armA.Rate, armA.N), fmt.Sprintf("%.1f%% (n=%d)", 100*armB.Rate, armB.N),
			method, ci, fmt.Sprintf("%.3g", all.P), mcn, mde, fmt.Sprint(len(c.NewFailures)), fmt.Sprint(len(c.Fixed))}}}
}

func compareTaskTable(c *analysis.RunComparison) results.Table {
	t := results.Table{Header: []string{"task", "A", "B", "change"}}
	for _, d := range c.Tasks {
		if d.Change == analysis.ChangeSame {
			continue
		}
		t.Rows = append(t.Rows, []string{d.Task, fmt.Sprintf("%d/%d", d.PassesA, d.NA), fmt.Sprintf("%d/%d", d.PassesB, d.NB), d.Change})
	}
	if len(t.Rows) == 0 {
		t.Rows = append(t.Rows, []string{"(no task changed)", "", "", ""})
	}
	return t
}
