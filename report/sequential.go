package report

// The wording of a sequential ablation's outcome (analysis.SeqResult): its header, one line or row per variant,
// and its warnings, which every format prints.

import (
	"fmt"
	"strings"

	"webbench/analysis"
	"webbench/results"
	"webbench/stats"
)

// SeqStopText words a variant's sequential stop: "worse", "better", "no drop of 10 pts or more" (futile, with
// the design's min effect), "undecided".
func SeqStopText(s stats.SeqStop, minEffect float64) string {
	switch s {
	case stats.SeqWorse:
		return "worse than the baseline"
	case stats.SeqBetter:
		return "better than the baseline"
	case stats.SeqFutile:
		return fmt.Sprintf("no drop of %s pts or more", ptsAbs(minEffect))
	}
	return "undecided"
}

// SeqHeader is the sequential outcome's first sentence: the design, how many units the looks reached, the
// attempts left unrun and the budget stop, if any.
func SeqHeader(a *analysis.Analysis) string {
	s := a.Sequential
	unit := cmpOrUnit(a.ClusterUnit)
	h := fmt.Sprintf("Sequential: each variant tested after every %s in the plan's order (group-sequential design "+
		"with %s spending on the observed information: a variant stops worse or better when its repeated p passes Holm over "+
		"the variants at α = %s, futile when its repeated interval, on %s boundaries over the %s, excludes a drop "+
		"of %s pts); looks reached %s %d of %d.", unit, stats.SeqDefaultSpending, stats.FmtP(s.Alpha),
		stats.SeqIntervalSpending, unitWord(2, unit), ptsAbs(s.MinEffect), unit, s.Looked, s.Units)
	h += fmt.Sprintf(" %s of the %d planned were left unrun (%s)", results.Count(s.Saved, "attempt", "attempts"),
		s.Planned, pct(s.Saved, s.Planned))
	if s.TokensKnown {
		h += fmt.Sprintf(", about %s tokens", compactNum(s.SavedTokens))
	}
	if s.CostKnown {
		h += fmt.Sprintf(" and $%.2f", s.SavedCostUSD)
	}
	h += "."
	h += seqBudgets(s)
	if s.Budget != "" {
		h += fmt.Sprintf(" The run stopped on its budget (%s); the intervals and decisions below hold at that stop.",
			budgetFlag(s.Budget))
	}
	return h
}

// seqBudgets words the budgets a sequential run ran under ("" none): " Budget: --max-attempts 50, counted over this
// run directory's records (a shard counts its own)." or, merged, each shard's and their sum.
func seqBudgets(s *analysis.SeqResult) string {
	if len(s.ShardBudgets) > 0 {
		var per []string
		for _, b := range s.ShardBudgets {
			per = append(per, fmt.Sprintf("shard %s %s", b.Shard, budgetsText(b.Budgets)))
		}
		total := "no cap on the whole run (a shard ran without one)"
		if s.Budgets != nil {
			total = budgetsText(*s.Budgets) + " on the whole run"
		}
		return fmt.Sprintf(" Budgets per shard, each counted over its own shard's records (shards share no count): %s; "+
			"%s.", strings.Join(per, ", "), total)
	}
	if s.Budgets == nil {
		return ""
	}
	return fmt.Sprintf(" Budget: %s, counted over this run directory's records (a shard counts its own).",
		budgetsText(*s.Budgets))
}

// budgetsText words budgets as flags: "--max-attempts 50 and --max-cost $5.00".
func budgetsText(b results.Budgets) string {
	var parts []string
	if b.MaxAttempts > 0 {
		parts = append(parts, fmt.Sprintf("--max-attempts %d", b.MaxAttempts))
	}
	if b.MaxCostUSD > 0 {
		parts = append(parts, fmt.Sprintf("--max-cost $%.2f", b.MaxCostUSD))
	}
	return strings.Join(parts, " and ")
}

// SeqLine is a variant's sequential line: "NAME: worse than the baseline at family 70 of 85 in the plan's order, its
// 7th of 20 (Δ −40.0 pts over 7, repeated interval [−80.0, −5.0], repeated p 0.005); 12 of 20 attempts left unrun"
// (its k of K: the variant's own planned families, its design's size).
func SeqLine(a *analysis.Analysis, v *analysis.SeqVariant) string {
	s := a.Sequential
	unit := cmpOrUnit(a.ClusterUnit)
	when := fmt.Sprintf("at %s %d of %d in the plan's order, its %s of %d", unit, v.At, s.Units, ordinal(v.OwnAt), v.Units)
	if v.Stop == stats.SeqUndecided {
		when = fmt.Sprintf("after %s %d of %d", unit, s.Looked, s.Units)
	}
	return fmt.Sprintf("%s: %s %s (%s); %s", v.Variant, SeqStopText(v.Stop, s.MinEffect), when, seqLook(v),
		seqSaved(v))
}

// seqLook words a look: "Δ −40.0 pts over 7, repeated interval [−80.0, −5.0], repeated p 0.005".
func seqLook(v *analysis.SeqVariant) string {
	if v.Look.N == 0 {
		return "no unit yet"
	}
	return fmt.Sprintf("Δ %s pts over %d, repeated interval [%s, %s], repeated p %s", stats.Pts(v.Look.Mean), v.Look.N,
		stats.Pts(v.Look.Lo), stats.Pts(v.Look.Hi), stats.FmtP(v.Look.P))
}

// seqSaved words an arm's saving: "12 of 20 attempts left unrun (about 40k tokens, $0.12)".
func seqSaved(v *analysis.SeqVariant) string {
	s := fmt.Sprintf("%d of %s left unrun", v.Saved, results.Count(v.Planned, "attempt", "attempts"))
	switch {
	case v.SavedCostUSD > 0:
		s += fmt.Sprintf(" (about %s tokens, $%.2f)", compactNum(v.SavedTokens), v.SavedCostUSD)
	case v.SavedTokens > 0:
		s += fmt.Sprintf(" (about %s tokens)", compactNum(v.SavedTokens))
	}
	return s
}

// SeqTable is the sequential outcome as a table: one row per variant, then the baseline's saving.
func SeqTable(a *analysis.Analysis) ReportTable {
	s := a.Sequential
	unit := cmpOrUnit(a.ClusterUnit)
	t := ReportTable{Title: SeqHeader(a), Header: []string{"variant", "decision", "at " + unit, "units",
		"Δ [repeated interval]", "repeated p", "attempts left unrun", "tokens saved (est.)", "cost saved (est.)"}}
	row := func(v *analysis.SeqVariant, decision, at string) []string {
		r := []string{v.Variant, decision, at, fmt.Sprintf("%d of %d", v.Look.N, v.Units), "", "",
			fmt.Sprintf("%d of %d", v.Saved, v.Planned), "", ""}
		if v.Look.N > 0 {
			r[4] = fmt.Sprintf("%s [%s, %s]", stats.Pts(v.Look.Mean), stats.Pts(v.Look.Lo), stats.Pts(v.Look.Hi))
			r[5] = stats.FmtP(v.Look.P)
		}
		if v.SavedTokens > 0 {
			r[7] = compactNum(v.SavedTokens)
		}
		if v.SavedCostUSD > 0 {
			r[8] = fmt.Sprintf("$%.2f", v.SavedCostUSD)
		}
		return r
	}
	for i := range s.Variants {
		v := &s.Variants[i]
		at := fmt.Sprintf("%d of %d (its %s of %d)", v.At, s.Units, ordinal(v.OwnAt), v.Units)
		if v.Stop == stats.SeqUndecided {
			at = fmt.Sprintf("— (looked at %d)", s.Looked)
		}
		t.Rows = append(t.Rows, row(v, SeqStopText(v.Stop, s.MinEffect), at))
	}
	b := s.Baseline
	b.Units = 0
	r := row(&b, "(baseline)", "")
	r[3] = ""
	t.Rows = append(t.Rows, r)
	t.Note = "The decisions follow the repeated p (Holm across the variants) and the repeated interval (at level " +
		"1 − α/variants), valid at whatever unit the run stopped; the comparison tables' fixed-size p-values and " +
		"verdicts are diagnostics."
	return t
}

// seqWarningText words the sequential warnings.
func seqWarningText(w analysis.Warning) string {
	switch {
	case w.Kind == analysis.WarnSeqShardStop:
		return shardStopText(w.ShardSkip)
	case w.Kind == analysis.WarnSeqBudget:
		return fmt.Sprintf("The run stopped on its budget (%s) before every variant was decided: the undecided ones "+
			"are reported at the last complete unit, and the repeated intervals and decisions hold at that stop.",
			budgetFlag(w.Budget))
	}
	return "Sequential run: variants were stopped on the data they are tested on, so the fixed-size p-values, " +
		"intervals and verdicts of the comparison tables are diagnostics, not the result; the sequential decisions are."
}

// shardStopText words a merged run's shard stop that the merged looks had not made (k nil: in general).
func shardStopText(k *results.SeqSkip) string {
	if k == nil {
		return "A shard's own stop left attempts unrun that the merged looks over all shards still needed: " +
			"those pairs count without an outcome."
	}
	left := results.Count(k.Attempts, "attempt", "attempts")
	if k.Stop == "" {
		return fmt.Sprintf("Shard %s left %s of %s unrun once no undecided variant of that shard needed them, "+
			"where the merged looks still did: those pairs count without an outcome.", k.Shard, left, k.Variant)
	}
	return fmt.Sprintf("Shard %s stopped %s (%s, at unit %d) on its own pairs, where the merged looks over all "+
		"shards had not decided it by then: the %s it left unrun count as pairs without an outcome, so the merged "+
		"decision rests on fewer pairs than planned.", k.Shard, k.Variant, k.Stop, k.Unit, left)
}

// budgetFlag names a budget by its flag.
func budgetFlag(b string) string {
	switch b {
	case results.BudgetCost:
		return "--max-cost"
	case results.BudgetAttempts:
		return "--max-attempts"
	}
	return b
}

// cmpOrUnit is the noun of the design's unit: the suite's cluster unit ("family"), else "unit".
func cmpOrUnit(u string) string {
	if u == "" || u == "cluster" {
		return "unit"
	}
	return u
}

// pct is k/n as a whole percentage ("0%" when n is 0).
func pct(k, n int) string {
	if n == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(k)/float64(n))
}

// compactNum words a count with a k/M suffix: 950, 12.3k, 4.1M.
func compactNum(x float64) string {
	switch {
	case x >= 1e6:
		return fmt.Sprintf("%.1fM", x/1e6)
	case x >= 1e3:
		return fmt.Sprintf("%.1fk", x/1e3)
	}
	return fmt.Sprintf("%.0f", x)
}

// ordinal words n as "1st", "2nd", "3rd", "11th", "22nd".
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// ptsAbs formats a proportion as unsigned percentage points, "10.0".
func ptsAbs(x float64) string { return fmt.Sprintf("%.1f", 100*x) }
