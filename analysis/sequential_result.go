package analysis

import (
	"slices"

	"webbench/results"
)

// The sequential outcome as the reports show it, and its warnings.

// The warnings of a sequential ablation.
const (
	// WarnSeqFixedP: the run is sequential, so the fixed-size p-values, intervals and verdicts of the comparison
	// tables are diagnostics (the design stopped arms on the data they test); the sequential decisions are the
	// result.
	WarnSeqFixedP WarningKind = "sequential_fixed_p"
	// WarnSeqBudget: the run stopped on a budget (Budget: results.BudgetCost or BudgetAttempts) before every
	// variant was decided; the repeated intervals and decisions hold at that stop.
	WarnSeqBudget WarningKind = "sequential_budget"
	// WarnSeqShardStop: in a merged run, a shard's own rule left attempts unrun (ShardSkip: the shard, the arm,
	// its stop and unit, the attempts) that the merged looks still needed when they reached them, so those pairs
	// count without an outcome.
	WarnSeqShardStop WarningKind = "sequential_shard_stop"
)

// SeqResult is a sequential ablation's outcome: the design, how far the looks got, each monitored variant's
// decision and what the stops saved against the fixed plan.
type SeqResult struct {
	// Alpha and MinEffect are the design's (results.Sequential).
	Alpha, MinEffect float64
	// Units is the number of units planned (K), Looked the units complete in plan order at the last look.
	Units, Looked int
	// Variants are the monitored variants in plan order.
	Variants []SeqVariant
	// Baseline is the baseline's share of the attempts (no decision of its own).
	Baseline SeqVariant
	// Planned, Saved are all arms' planned attempts and those the stops left unrun; SavedTokens and
	// SavedCostUSD estimate what those would have spent (each arm's saved attempts times its mean per recorded
	// attempt), TokensKnown and CostKnown when some arm with saved attempts recorded tokens or a cost.
	Planned, Saved            int
	SavedTokens, SavedCostUSD float64
	TokensKnown, CostKnown    bool
	// Budget is the budget the run stopped on (results.Summary.Budget; "" when none).
	Budget string
	// Budgets are the budgets the run ran under (results.Summary.Budgets; nil: none), counted per shard in a
	// sharded run: ShardBudgets are the merged shards' own, Budgets then their sum.
	Budgets      *results.Budgets
	ShardBudgets []results.ShardBudget
	// ShardStops are the attempts shards' own stops left unrun where the merged looks still needed them (a
	// merged run's skips naming a shard, their ids left out), per shard and arm; Saved counts them too.
	ShardStops []results.SeqSkip
}

// SeqVariant is one arm in a sequential outcome: its decision (SeqDecision; none for the baseline), the units it
// was planned on (Units, its design's K) and how many of them came up to the unit it was decided at (OwnAt: k of
// K, where At counts the plan's units; 0 undecided), its planned attempts, those the stops left unrun, and their
// estimated tokens and cost.
type SeqVariant struct {
	SeqDecision
	Units, OwnAt              int
	Planned, Saved            int
	SavedTokens, SavedCostUSD float64
}

// Result is the sequential outcome of recs (the run's final records) under r; sum is the run's manifest summary
// (its budget stop and budgets; nil: none).
func (r *SeqRule) Result(recs []results.Attempt, sum *results.Summary) *SeqResult {
	latest := latestRecords(recs)
	rp := r.replay(latest)
	skips := r.skips(latest, rp.decisions)
	out := &SeqResult{Alpha: r.design.Alpha, MinEffect: r.design.MinEffect, Units: len(r.units), Looked: rp.looked}
	if sum != nil {
		out.Budget, out.Budgets, out.ShardBudgets = sum.Budget, sum.Budgets, sum.ShardBudgets
	}
	for _, s := range results.SumSkips(skips, append([]string{r.baseline}, r.monitored...)) {
		if s.Shard != "" {
			s.IDs = nil
			out.ShardStops = append(out.ShardStops, s)
		}
	}
	arm := func(name string) SeqVariant {
		v := SeqVariant{SeqDecision: SeqDecision{Variant: name}, Units: r.plannedUnits(name)}
		for _, pairs := range r.units {
			for _, p := range pairs {
				if slices.Contains(p.arms, name) {
					v.Planned++
				}
			}
		}
		for _, s := range skips {
			if s.Variant == name {
				v.Saved++
			}
		}
		n, tok, cost := 0, 0.0, 0.0
		for _, a := range recs {
			if a.Variant == name {
				n++
				tok += float64(a.Tokens.Prompt + a.Tokens.Completion)
				cost += a.CostUSD
			}
		}
		if n > 0 && v.Saved > 0 {
			v.SavedTokens, v.SavedCostUSD = tok/float64(n)*float64(v.Saved), cost/float64(n)*float64(v.Saved)
			out.TokensKnown = out.TokensKnown || tok > 0
			out.CostKnown = out.CostKnown || cost > 0
		}
		out.Planned += v.Planned
		out.Saved += v.Saved
		out.SavedTokens += v.SavedTokens
		out.SavedCostUSD += v.SavedCostUSD
		return v
	}
	out.Baseline = arm(r.baseline)
	for i, name := range r.monitored {
		v := arm(name)
		v.SeqDecision = rp.decisions[i]
		v.OwnAt = r.unitsUpTo(name, v.At)
		out.Variants = append(out.Variants, v)
	}
	return out
}

// seqWarnings are the warnings of a sequential outcome: the fixed-size tests are diagnostics, and a stop on a
// budget with a variant undecided.
func seqWarnings(s *SeqResult) []Warning {
	out := []Warning{{Kind: WarnSeqFixedP}}
	if s.Budget != "" && slices.ContainsFunc(s.Variants, func(v SeqVariant) bool { return v.Stop == "" }) {
		out = append(out, Warning{Kind: WarnSeqBudget, Budget: s.Budget})
	}
	for i := range s.ShardStops {
		k := &s.ShardStops[i]
		w := Warning{Kind: WarnSeqShardStop, ShardSkip: k}
		if k.Stop != "" { // a variant's stop; the baseline's skips concern the whole run
			w.Variants = []string{k.Variant}
		}
		out = append(out, w)
	}
	return out
}
