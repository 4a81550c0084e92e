package analysis

// Causes: the first divergence (divergence.go) of every pair whose outcome moved between the arms and of every
// pair whose cost differs materially, grouped by signature — the guard event that explains it (or none) × the
// tool × the result kind — so that a report says in a few lines which guard broke what, and how.

import (
	"cmp"
	"maps"
	"slices"
	"sort"

	"webbench/results"
)

// PairOutcome is why a pair is examined: its outcome moved (broke, fixed) or its cost differs materially
// (costlier, cheaper; MaterialCost).
type PairOutcome string

// The pair outcomes, in report order.
const (
	// OutcomeBroke: the baseline passed, the variant failed.
	OutcomeBroke PairOutcome = "broke"
	// OutcomeFixed: the baseline failed, the variant passed.
	OutcomeFixed PairOutcome = "fixed"
	// OutcomeCostlier: both arms had the same outcome and the variant cost materially more (MaterialCost).
	OutcomeCostlier PairOutcome = "costlier"
	// OutcomeCheaper: both arms had the same outcome and the variant cost materially less.
	OutcomeCheaper PairOutcome = "cheaper"
)

// PairOutcomes lists the pair outcomes in report order.
var PairOutcomes = []PairOutcome{OutcomeBroke, OutcomeFixed, OutcomeCostlier, OutcomeCheaper}

// Discordant reports whether the outcome is a moved pass/fail (broke or fixed).
func (o PairOutcome) Discordant() bool { return o == OutcomeBroke || o == OutcomeFixed }

// What makes a cost difference material (MaterialCost).
const (
	// MaterialSteps is the least difference in model calls (steps) that is material: two calls, one more
	// action and its reply, is the least a changed path costs.
	MaterialSteps = 2
	// MaterialTokenRatio is the least ratio of the larger to the smaller token count (prompt + completion)
	// that is material: 25 %, the min_effect-sized change the ablations plan for.
	MaterialTokenRatio = 1.25
)

// MaterialCost compares the costs of a pair whose arms had the same outcome: +1 when b cost materially more
// than a, −1 when materially less, 0 otherwise. Material: the steps differ by at least MaterialSteps, or the
// tokens by a ratio of at least MaterialTokenRatio (the steps decide the sign when they differ). Wall time is
// left out: on a shared machine it moves with the load, not with the agent's path.
func MaterialCost(a, b results.Attempt) int {
	if d := b.Steps - a.Steps; d >= MaterialSteps || d <= -MaterialSteps {
		return cmp.Compare(d, 0)
	}
	ta, tb := float64(a.Tokens.Prompt+a.Tokens.Completion), float64(b.Tokens.Prompt+b.Tokens.Completion)
	switch {
	case ta > 0 && tb >= ta*MaterialTokenRatio:
		return 1
	case tb > 0 && ta >= tb*MaterialTokenRatio:
		return -1
	}
	return 0
}

// pairOutcome classifies a matched judged pair, ok false when it is neither discordant nor materially
// different in cost.
func pairOutcome(a, b results.Attempt) (PairOutcome, bool) {
	pa, pb := a.Status == results.StatusPass, b.Status == results.StatusPass
	switch {
	case pa && !pb:
		return OutcomeBroke, true
	case !pa && pb:
		return OutcomeFixed, true
	}
	switch MaterialCost(a, b) {
	case 1:
		return OutcomeCostlier, true
	case -1:
		return OutcomeCheaper, true
	}
	return "", false
}

// Cause is the signature of a divergence: the outcome, the guard event that explains it (Guard "" when the
// arms diverged before any guard acted), and the raw result kind the arm that went wrong (Divergence.Focus)
// met there. Where it met it — the tool, the first observation, the end — is counted inside the group
// (CauseGroup.Where), as are the failure modes (CauseGroup.Endings): a guard that acted on the same kind of
// result at a click in one task and a key press in another, or that ended in two ways, is one cause.
type Cause struct {
	Outcome PairOutcome `json:"outcome"`
	Guard   string      `json:"guard,omitempty"`
	Action  string      `json:"action,omitempty"`
	// ActedIn is the arm the guard event is in: "a" (the baseline) or "b" (the variant); "" without one.
	ActedIn string             `json:"acted_in,omitempty"`
	Kind    results.ResultKind `json:"kind"`
}

// Where a divergence is, as CauseGroup.Where counts it: a tool's base name, or one of these.
const (
	// WhereObservation: the first observation (Step −1).
	WhereObservation = "first_observation"
	// WhereEnd: one arm ended there (AtEnd).
	WhereEnd = "end"
	// WhereReply: a reply without tool calls.
	WhereReply = "reply"
)

// whereOf is where d is (CauseGroup.Where).
func whereOf(d *Divergence) string {
	switch {
	case d.Step == -1:
		return WhereObservation
	case d.At == AtEnd:
		return WhereEnd
	}
	return cmp.Or(d.Focus().Tool, WhereReply)
}

// Count is a name and how many times it occurred.
type Count struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

// CauseGroup is the pairs of one variant with the same Cause.
type CauseGroup struct {
	Cause
	// Pairs are the indexes of the group's pairs in VariantWhy.Pairs.
	Pairs []int `json:"pairs"`
	// Where counts where the pairs diverged (whereOf: a tool, the first observation, the end), most first.
	Where []Count `json:"where"`
	// Endings count how the arm that went wrong ended: its failure mode when it failed, else its status
	// ("pass"), most first.
	Endings []Count `json:"endings"`
	// ABytes and BBytes are the median model-facing bytes at the divergence in each arm (ArmAt.Bytes).
	ABytes int `json:"a_bytes"`
	BBytes int `json:"b_bytes"`
	// FirstCall counts the pairs whose divergent call is the focus arm's first call of its tool.
	FirstCall int `json:"first_call"`
	// Steps are the group's median steps from the divergence to the end in the baseline (AAfter) and the
	// variant (BAfter); ExtraSteps sums the variant's steps minus the baseline's over the group's pairs.
	AAfter     int `json:"a_after"`
	BAfter     int `json:"b_after"`
	ExtraSteps int `json:"extra_steps"`
	// SpentOn are the tools of the extra calls from the divergence on: per tool, the costlier arm's calls minus
	// the other's, summed over the pairs, positive ones only, most first (cost outcomes only).
	SpentOn []Count `json:"spent_on,omitempty"`
}

// VariantWhy is the divergences of one variant against the baseline.
type VariantWhy struct {
	Variant string `json:"variant"`
	// Pairs are the examined pairs (discordant, or costlier/cheaper), in the comparison's pair order.
	Pairs []Divergence `json:"pairs"`
	// Groups are Pairs grouped by Cause: by outcome (PairOutcomes order), then largest first.
	Groups []CauseGroup `json:"groups"`
	// Discordant is the number of discordant pairs; Unguarded those of them whose trajectories diverged before
	// any guard acted (no guard event explains the divergence, or the trajectories are the same throughout):
	// under a deterministic policy a measure of the environment's noise, under a sampled model of the
	// sampling's share of Δ. Unread counts the pairs whose trajectories could not be read.
	Discordant int `json:"discordant"`
	Unguarded  int `json:"unguarded"`
	Unread     int `json:"unread"`
}

// Why is the divergence analysis of every variant of an Analysis (Explain).
type Why struct {
	// Variants are in the analysis's order; a variant with no examined pair has an entry without pairs.
	Variants []VariantWhy `json:"variants"`
	// MaterialSteps and MaterialTokenRatio echo what made a cost difference material (MaterialCost).
	MaterialSteps      int     `json:"material_steps"`
	MaterialTokenRatio float64 `json:"material_token_ratio"`
}

// TrajectoryReader reads the trajectory of one attempt record (results.Run.Trajectory by its attempt id).
type TrajectoryReader func(r *results.Attempt) (*results.Trajectory, error)

// RunTrajectories is the TrajectoryReader of one run directory.
func RunTrajectories(run *results.Run) TrajectoryReader {
	return func(r *results.Attempt) (*results.Trajectory, error) { return run.Trajectory(r.AttemptID) }
}

// cached wraps read with a cache by attempt id of the prepared trajectories (a baseline attempt is paired
// with every variant); the error is the reading's, as text.
func cached(read TrajectoryReader) func(r *results.Attempt) (*aligned, string) {
	type entry struct {
		a   *aligned
		err string
	}
	memo := map[string]entry{}
	return func(r *results.Attempt) (*aligned, string) {
		if e, ok := memo[r.AttemptID]; ok {
			return e.a, e.err
		}
		var e entry
		if t, err := read(r); err != nil {
			e.err = err.Error()
		} else {
			e.a = prepare(t)
		}
		memo[r.AttemptID] = e
		return e.a, e.err
	}
}

// Explain finds the first divergence of every examined pair of every variant of a (its matched pairs on all
// common tasks: discordant ones and those whose cost differs materially) and groups them by cause. readA reads
// the baseline's trajectories, readB the variants' (the same reader for an ablation run; each run's own for a
// comparison of two runs, whose attempt ids may coincide).
func Explain(a *Analysis, readA, readB TrajectoryReader) *Why {
	w := &Why{MaterialSteps: MaterialSteps, MaterialTokenRatio: MaterialTokenRatio}
	ra, rb := cached(readA), cached(readB)
	for _, v := range a.Variants {
		vw := VariantWhy{Variant: v.Name}
		for _, p := range v.All.recPairs {
			o, ok := pairOutcome(*p.A, *p.B)
			if !ok {
				continue
			}
			ta, errA := ra(p.A)
			tb, errB := rb(p.B)
			d := Diverge(p.A, p.B, nil, nil, o)
			if ta != nil && tb != nil {
				d = diverge(d, ta, tb)
			}
			d.Err = cmp.Or(errA, errB)
			vw.Pairs = append(vw.Pairs, d)
		}
		vw.count()
		vw.Groups = groupCauses(vw.Pairs)
		w.Variants = append(w.Variants, vw)
	}
	return w
}

// count fills Discordant, Unguarded and Unread from Pairs.
func (v *VariantWhy) count() {
	for _, d := range v.Pairs {
		if d.At == AtUnread {
			v.Unread++
			continue
		}
		if d.Outcome.Discordant() {
			v.Discordant++
			if !d.Guarded() {
				v.Unguarded++
			}
		}
	}
}

// causeOf is the signature of d.
func causeOf(d *Divergence) Cause {
	f := d.Focus()
	c := Cause{Outcome: d.Outcome, Kind: f.Raw}
	if d.Acted != nil {
		c.Guard, c.Action, c.ActedIn = d.Acted.Guard, d.Acted.Action, d.ActedIn
	}
	return c
}

// groupCauses groups ds by Cause (unread pairs left out).
func groupCauses(ds []Divergence) []CauseGroup {
	idx := map[Cause]int{}
	var gs []CauseGroup
	for i := range ds {
		if ds[i].At == AtUnread {
			continue
		}
		c := causeOf(&ds[i])
		k, ok := idx[c]
		if !ok {
			k = len(gs)
			idx[c] = k
			gs = append(gs, CauseGroup{Cause: c})
		}
		gs[k].Pairs = append(gs[k].Pairs, i)
	}
	for k := range gs {
		gs[k].summarize(ds)
	}
	order := map[PairOutcome]int{}
	for i, o := range PairOutcomes {
		order[o] = i
	}
	sort.SliceStable(gs, func(i, j int) bool {
		if gs[i].Outcome != gs[j].Outcome {
			return order[gs[i].Outcome] < order[gs[j].Outcome]
		}
		return len(gs[i].Pairs) > len(gs[j].Pairs)
	})
	return gs
}

// summarize fills g's endings, bytes, steps and spending from its pairs in ds.
func (g *CauseGroup) summarize(ds []Divergence) {
	endings, where := map[string]int{}, map[string]int{}
	spent := map[string]int{}
	var ab, bb, aa, ba []int
	for _, i := range g.Pairs {
		d := &ds[i]
		f := d.Focus()
		endings[cmp.Or(string(f.FailureMode), string(f.Status))]++
		where[whereOf(d)]++
		ab, bb = append(ab, d.A.Bytes), append(bb, d.B.Bytes)
		aa, ba = append(aa, d.A.After), append(ba, d.B.After)
		g.ExtraSteps += d.B.Steps - d.A.Steps
		if f.FirstCall {
			g.FirstCall++
		}
		if !g.Outcome.Discordant() {
			long, short := &d.B, &d.A
			if g.Outcome == OutcomeCheaper {
				long, short = &d.A, &d.B
			}
			for t, n := range long.Tools {
				spent[t] += n - short.Tools[t]
			}
		}
	}
	g.Endings, g.Where = counts(endings), counts(where)
	g.SpentOn = slices.DeleteFunc(counts(spent), func(c Count) bool { return c.N <= 0 })
	g.ABytes, g.BBytes, g.AAfter, g.BAfter = median(ab), median(bb), median(aa), median(ba)
}

// counts lists m's entries, most first, then by name.
func counts(m map[string]int) []Count {
	out := make([]Count, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, Count{k, m[k]})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].N > out[j].N })
	return out
}

// median is the lower median of xs (0 for none).
func median(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	return s[(len(s)-1)/2]
}
