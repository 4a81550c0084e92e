package results

// The sequential design of an ablation as the manifest records it, and what the runner's stops left unrun.

import (
	"cmp"
	"slices"
)

// Sequential is an ablation's sequential design (STATS.md "Sequential ablations"): the variants are compared
// with the baseline after every unit (a task, or the suite's cluster: the Zoo's family) in the order Units lists
// them, each by a group-sequential test of the mean paired difference (valid at every look), and a variant decided worse, better or
// futile has its remaining attempts left unrun. Recorded in the manifest (Ablation.Sequential), so a resume and
// bench merge replay the same looks; absent (nil) for a fixed-size ablation and in manifests written before it.
type Sequential struct {
	// Alpha is the level of the efficacy stops (two-sided, adjusted across the variants); MinEffect the drop in
	// pass rate (a proportion) a futility stop rules out.
	Alpha     float64 `json:"alpha"`
	MinEffect float64 `json:"min_effect"`
	// Units are the units of the looks in look order (the plan's shuffled order): a look after unit k uses
	// units 1..k once all their needed attempts have a record.
	Units []SeqUnit `json:"units"`
}

// SeqUnit is one unit of a sequential design: its name (the cluster, or the task id) and the task ids it holds,
// in plan order.
type SeqUnit struct {
	Name  string   `json:"name"`
	Tasks []string `json:"tasks"`
}

// SeqSkip is what a sequential design left unrun of one arm: Attempts planned attempts of Variant never
// started because the variant was decided (Stop: "worse", "better" or "futile") at unit Unit (1-based, of the
// design's Units), or, for the baseline (Stop ""), because no undecided variant needed them any more.
//
// In a merged run (bench merge) the design is replayed over all the shards' records, and the skips are that
// replay's; Shard names a shard ("2/4") whose own rule, looking at its pairs only, left attempts unrun that the
// merged replay still needed when it reached them. Such a skip keeps the shard's stop and unit, and lists the
// attempt ids (IDs, sorted), so that every later replay of the merged records counts exactly those as left unrun
// by a shard (pairs without an outcome) rather than as missing; the other skips carry neither.
type SeqSkip struct {
	Variant  string   `json:"variant"`
	Stop     string   `json:"stop,omitempty"`
	Unit     int      `json:"unit,omitempty"`
	Attempts int      `json:"attempts"`
	Shard    string   `json:"shard,omitempty"`
	IDs      []string `json:"ids,omitempty"`
}

// The budgets a run can stop on (Summary.Budget).
const (
	// BudgetCost: --max-cost, the recorded model spend.
	BudgetCost = "max_cost"
	// BudgetAttempts: --max-attempts, the attempts of the run across all arms.
	BudgetAttempts = "max_attempts"
)

// Budgets are the budgets an invocation of the runner ran under (0: none): MaxAttempts the attempts across all
// arms, MaxCostUSD the recorded model spend in USD, each counted over the records of its own run directory, earlier
// invocations' included — a shard's over its own records only, since shards do not share a count.
type Budgets struct {
	MaxAttempts int     `json:"max_attempts,omitempty"`
	MaxCostUSD  float64 `json:"max_cost_usd,omitempty"`
}

// ShardBudget is one shard's budgets in a merged run (Summary.ShardBudgets): the shard's "i/n" and its own.
type ShardBudget struct {
	Shard string `json:"shard"`
	Budgets
}

// SumBudgets is the cap on a run merged from shards with budgets per: each budget added up over the shards, or
// none (0) when some shard ran without it, since that shard's share had no cap; nil when the sum has none.
func SumBudgets(per []ShardBudget, shards int) *Budgets {
	var out Budgets
	n, c := 0, 0
	for _, b := range per {
		if b.MaxAttempts > 0 {
			out.MaxAttempts += b.MaxAttempts
			n++
		}
		if b.MaxCostUSD > 0 {
			out.MaxCostUSD += b.MaxCostUSD
			c++
		}
	}
	if n < shards {
		out.MaxAttempts = 0
	}
	if c < shards {
		out.MaxCostUSD = 0
	}
	if out == (Budgets{}) {
		return nil
	}
	return &out
}

// SeqSkipped is the number of planned attempts s's sequential stops left unrun (0 without a summary).
func (s *Summary) SeqSkipped() int {
	if s == nil {
		return 0
	}
	n := 0
	for _, k := range s.SeqSkips {
		n += k.Attempts
	}
	return n
}

// SumSkips adds the per-attempt skips (attempt id → its skip, Attempts 1 each) up per arm, shard, stop and unit,
// the arms in the order of arms, then by shard, unit and stop: the manifest's Summary.SeqSkips. A skip naming a
// shard keeps its attempt ids (IDs, sorted).
func SumSkips(skips map[string]SeqSkip, arms []string) []SeqSkip {
	var out []SeqSkip
	for _, arm := range arms {
		var mine []SeqSkip
		for id, s := range skips {
			if s.Variant != arm {
				continue
			}
			i := slices.IndexFunc(mine, func(m SeqSkip) bool { return m.Stop == s.Stop && m.Unit == s.Unit && m.Shard == s.Shard })
			if i < 0 {
				mine = append(mine, SeqSkip{Variant: arm, Stop: s.Stop, Unit: s.Unit, Shard: s.Shard})
				i = len(mine) - 1
			}
			mine[i].Attempts += s.Attempts
			if s.Shard != "" {
				mine[i].IDs = append(mine[i].IDs, id)
			}
		}
		for i := range mine {
			slices.Sort(mine[i].IDs)
		}
		slices.SortFunc(mine, func(a, b SeqSkip) int {
			return cmp.Or(cmp.Compare(a.Shard, b.Shard), cmp.Compare(a.Unit, b.Unit), cmp.Compare(a.Stop, b.Stop))
		})
		out = append(out, mine...)
	}
	return out
}

// ShardSkips are the attempts of skips (a manifest's Summary.SeqSkips) that a shard's own rule left unrun where a
// merged replay still needed them (SeqSkip.Shard set), by attempt id, each with its entry's Attempts set to 1 and
// IDs to none.
func ShardSkips(skips []SeqSkip) map[string]SeqSkip {
	out := map[string]SeqSkip{}
	for _, s := range skips {
		if s.Shard == "" {
			continue
		}
		one := s
		one.Attempts, one.IDs = 1, nil
		for _, id := range s.IDs {
			out[id] = one
		}
	}
	return out
}
