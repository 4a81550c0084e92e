package results

// The sequential design of an ablation as the manifest records it, and what the runner's stops left unrun.

import "slices"

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
type SeqSkip struct {
	Variant  string `json:"variant"`
	Stop     string `json:"stop,omitempty"`
	Unit     int    `json:"unit,omitempty"`
	Attempts int    `json:"attempts"`
}

// The budgets a run can stop on (Summary.Budget).
const (
	// BudgetCost: --max-cost, the recorded model spend.
	BudgetCost = "max_cost"
	// BudgetAttempts: --max-attempts, the attempts of the run across all arms.
	BudgetAttempts = "max_attempts"
)

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

// SumSkips adds the per-attempt skips (attempt id → its skip, Attempts 1 each) up per arm, stop and unit, the arms
// in the order of arms: the manifest's Summary.SeqSkips.
func SumSkips(skips map[string]SeqSkip, arms []string) []SeqSkip {
	var out []SeqSkip
	for _, arm := range arms {
		var mine []SeqSkip
		for _, s := range skips {
			if s.Variant != arm {
				continue
			}
			if i := slices.IndexFunc(mine, func(m SeqSkip) bool { return m.Stop == s.Stop && m.Unit == s.Unit }); i >= 0 {
				mine[i].Attempts += s.Attempts
			} else {
				mine = append(mine, s)
			}
		}
		out = append(out, mine...)
	}
	return out
}
