package analysis

import "webbench/results"

// HeadlineCosts are the cost outcomes a headline names, first recorded first: tokens (what a model run is billed
// by), else steps (every run records them).
var HeadlineCosts = []results.CostOutcome{results.CostTokens, results.CostSteps}

// Headline is the answer about one variant that every report leads with: its verdict (VerdictOf at the gate's
// margin), its primary comparison (All: Δ with its interval, the pass rates over the same pairs), the verdict of
// its first recorded HeadlineCosts outcome (nil when it has none) and the largest group of its moved pairs'
// causes (Cause nil when no pair moved or no divergence analysis was made; Moved counts its discordant pairs);
// Overlap is what two compared runs have in common (RunComparison.Headline; nil for an ablation, whose arms
// share their pairs by design).
type Headline struct {
	Variant string
	Verdict Verdict
	All     *Comparison
	Cost    *CostVerdict
	Cause   *CauseGroup
	Moved   int
	Overlap *Overlap
}

// Headlines are the headlines of a's variants, in a's order; w is the divergence analysis of a (Explain; nil:
// no causes).
func (a *Analysis) Headlines(w *Why) []Headline {
	out := make([]Headline, 0, len(a.Variants))
	for i := range a.Variants {
		v := &a.Variants[i]
		h := Headline{Variant: v.Name, Verdict: a.VerdictOf(v, a.FailIfWorse), All: &v.All}
		for _, o := range HeadlineCosts {
			if c := v.Cost(o); c != nil {
				vd := a.CostVerdictOf(v, c)
				h.Cost = &vd
				break
			}
		}
		if w != nil {
			h.Cause, h.Moved = topCause(w, v.Name)
		}
		out = append(out, h)
	}
	return out
}

// topCause is the largest cause group of variant's discordant pairs in w (Groups are ordered by outcome, then
// largest first, so the largest broke group wins over a fixed one of the same size) and the variant's
// discordant pairs; nil when none moved.
func topCause(w *Why, variant string) (*CauseGroup, int) {
	for i := range w.Variants {
		vw := &w.Variants[i]
		if vw.Variant != variant {
			continue
		}
		var top *CauseGroup
		for j := range vw.Groups {
			g := &vw.Groups[j]
			if g.Outcome.Discordant() && (top == nil || len(g.Pairs) > len(top.Pairs)) {
				top = g
			}
		}
		return top, vw.Discordant
	}
	return nil, 0
}
