package report

// Warnings grouped by cause: one summary line per warning kind, naming every variant it concerns once, with the
// kind's sentences (WordWarnings) under it. The reports print the summaries up front and the sentences in their
// details (the terminal's "details" section, the HTML report's collapsed block).

import (
	"fmt"
	"slices"
	"strings"

	"webbench/analysis"
)

// WarningGroup is the warnings of one kind: the variants they concern (in order of first appearance; empty for
// the whole run), the kind's one-line summary and its sentences, each once.
type WarningGroup struct {
	Kind     analysis.WarningKind
	Variants []string
	Summary  string
	Texts    []string
}

// Line is the group's summary line: "SUMMARY (V1, V2)", "SUMMARY (all N variants)" when it concerns all of
// the n variants under test (n ≥ 2), or the summary alone for the whole run.
func (g WarningGroup) Line(n int) string {
	switch {
	case len(g.Variants) == 0:
		return g.Summary
	case n >= 2 && len(g.Variants) == n:
		return fmt.Sprintf("%s (all %d variants)", g.Summary, n)
	}
	return g.Summary + " (" + strings.Join(g.Variants, ", ") + ")"
}

// kindSummaries say what each warning kind means in a few words, in pass-rate terms.
var kindSummaries = map[analysis.WarningKind]string{
	analysis.WarnFlakeRate:          "same seeds, different outcomes: the environment moves pairs on its own",
	analysis.WarnNoiseFloor:         "an A/A copy of the baseline differs from it",
	analysis.WarnNoBaseline:         "the baseline has no judged attempt",
	analysis.WarnEmptyArm:           "an arm has no judged attempt",
	analysis.WarnVariantNoTask:      "a variant runs on no task",
	analysis.WarnVariantIdentical:   "a variant is identical to the baseline",
	analysis.WarnUnpaired:           "compared unpaired: the arms share no judged pair",
	analysis.WarnNotComparable:      "arms not fully matched: only the common pairs are compared",
	analysis.WarnInfraErrors:        "attempts ended in infrastructure errors, left out of the pass rates",
	analysis.WarnJudgeErrors:        "the judge failed on some attempts, left out of the pass rates",
	analysis.WarnJudgeUncertain:     "the judge was uncertain on some attempts",
	analysis.WarnUnderpowered:       "underpowered: the planned drop in pass rate would likely go unseen",
	analysis.WarnFewTasks:           "few tasks compared: exact p and an adjusted interval",
	analysis.WarnPermFloor:          "too few tasks moved for p_paired to reach α",
	analysis.WarnNoDiscordant:       "no task changed outcome",
	analysis.WarnNoTargetTasks:      "no target task of the switched guard was run",
	analysis.WarnDifferentialErrors: "one arm errored more than the other",
	analysis.WarnUnequalReps:        "tasks have unequal reps: Δ and the pooled pass rates weigh them differently",
	analysis.WarnHolmFloor:          "too few tasks: after Holm's adjustment no pass-rate difference can be shown at this size",
	analysis.WarnCostHolmFloor:      "too few tasks moved for a cost difference to be shown after Holm's adjustment",
	analysis.WarnSeqFixedP:          "a sequential run's fixed-size p is a diagnostic, not the decision",
	analysis.WarnSeqBudget:          "the sequential run stopped at its budget",
	analysis.WarnSeqShardStop:       "a shard's own stop left pairs the merged looks needed",
}

// KindSummary is warning kind k in a few words (the kind's name, spaced, for a kind without one).
func KindSummary(k analysis.WarningKind) string {
	if s, ok := kindSummaries[k]; ok {
		return s
	}
	return strings.ReplaceAll(string(k), "_", " ")
}

// GroupWarnings groups worded warnings by kind, in order of each kind's first appearance: each group names its
// variants once and holds its sentences once each.
func GroupWarnings(ws []WordedWarning) []WarningGroup {
	var out []WarningGroup
	pos := map[analysis.WarningKind]int{}
	for _, w := range ws {
		i, ok := pos[w.Kind]
		if !ok {
			i = len(out)
			pos[w.Kind] = i
			out = append(out, WarningGroup{Kind: w.Kind, Summary: KindSummary(w.Kind)})
		}
		g := &out[i]
		for _, v := range w.Variants {
			if !slices.Contains(g.Variants, v) {
				g.Variants = append(g.Variants, v)
			}
		}
		if !slices.Contains(g.Texts, w.Text) {
			g.Texts = append(g.Texts, w.Text)
		}
	}
	return out
}
