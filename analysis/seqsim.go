package analysis

// Simulated sequential ablations (STATS.md "Sequential ablations"): per-unit
// differences of V variants against one baseline, monitored after every
// unit with stats.SeqState and stopped per variant by stats.SeqDecide, as
// the runner does; and the same draws tested once at the planned size. The
// planner of `bench power --sequential` and the sequential calibration rows
// both run on it.

import (
	"math"
	"math/rand/v2"
	"slices"

	"webbench/stats"
)

// seqDraw is one simulated run: diffs[v][u] is variant v's mean paired
// difference on the u-th unit in monitoring order, reps[u] that unit's pairs
// per arm (attempts of one arm), and delta the true mean difference.
type seqDraw struct {
	diffs [][]float64
	reps  []int
	delta float64
}

// seqOutcome is one monitored run.
type seqOutcome struct {
	// stop[v] is variant v's first decision and at[v] the units it had then
	// (MaxUnits when undecided).
	stop []stats.SeqStop
	at   []int
	// covered[v]: variant v's repeated interval held the true difference at
	// every one of the MaxUnits looks (monitoring continued after a stop).
	covered []bool
	// fixed[v] is the decision of the fixed design on all MaxUnits units:
	// Holm over the variants' exact sign-flip p's at d.Alpha, "worse" or
	// "better" by the mean's sign, "" when not rejected.
	fixed []stats.SeqStop
	// attempts is the run's attempts (every arm), fixedAttempts the fixed
	// design's.
	attempts, fixedAttempts int
}

// monitor runs the sequential design d over one draw: each variant's units
// are added in order until SeqDecide decides it (its look then frozen for
// the others' Holm adjustment), the baseline runs while any variant is
// undecided.
func monitor(d stats.SeqDesign, x seqDraw) seqOutcome {
	v := len(x.diffs)
	o := seqOutcome{stop: make([]stats.SeqStop, v), at: make([]int, v), covered: make([]bool, v),
		fixed: make([]stats.SeqStop, v)}
	states := make([]*stats.SeqState, v)
	looks := make([]stats.SeqLook, v)
	for i := range states {
		states[i] = stats.NewSeq(d)
		o.at[i] = d.MaxUnits
		o.covered[i] = true
	}
	decided, baseUnits := 0, d.MaxUnits
	for u := range d.MaxUnits {
		for i, s := range states {
			s.Add(x.diffs[i][u])
			l := s.Look()
			if l.Lo > x.delta || l.Hi < x.delta {
				o.covered[i] = false
			}
			if o.stop[i] == stats.SeqUndecided {
				looks[i] = l
			}
		}
		if decided == v {
			continue // only the coverage is still followed
		}
		for i, st := range stats.SeqDecide(d, looks) {
			if st != stats.SeqUndecided && o.stop[i] == stats.SeqUndecided {
				o.stop[i], o.at[i] = st, u+1
				decided++
			}
		}
		if decided == v && baseUnits == d.MaxUnits {
			baseUnits = u + 1
		}
	}
	cum := make([]int, d.MaxUnits+1)
	for u, r := range x.reps[:d.MaxUnits] {
		cum[u+1] = cum[u] + r
	}
	o.attempts = cum[baseUnits]
	for _, a := range o.at {
		o.attempts += cum[a]
	}
	o.fixedAttempts = (v + 1) * cum[d.MaxUnits]
	o.fixed = fixedDecisions(d.Alpha, x.diffs)
	return o
}

// fixedDecisions tests each variant once on all its units: the exact
// sign-flip p (PairedDiff's primary test), Holm over the variants at alpha.
func fixedDecisions(alpha float64, diffs [][]float64) []stats.SeqStop {
	ps := make([]float64, len(diffs))
	for i, d := range diffs {
		ps[i], _ = stats.SignFlip(d, stats.DefaultSignFlipMaxExact, stats.DefaultSignFlipSamples, stats.DefaultSignFlipSeed)
	}
	holm := stats.Holm(ps)
	out := make([]stats.SeqStop, len(diffs))
	for i, d := range diffs {
		if holm[i] < alpha {
			out[i] = stats.SeqBetter
			if mean(d) < 0 {
				out[i] = stats.SeqWorse
			}
		}
	}
	return out
}

// mean is the mean of x (0 when empty).
func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(max(1, len(x)))
}

// designDraw draws one run of design d with the given number of variants,
// each at the change delta (ShiftRates of the run's rates; 0 for A/A): the
// arms' outcomes by d.Model (SimOutcomes), units in a shuffled order (the
// plan's), per-unit differences as PairedDiff forms them.
func designDraw(rng *rand.Rand, d Design, variants int, delta float64) seqDraw {
	rates := d.Rates
	if d.Mix != nil {
		rates = d.Mix(rng, d.Tasks)
	}
	delta = clampDelta(rates, delta)
	arms := [][]float64{rates}
	alt := ShiftRates(rates, delta)
	for range variants {
		arms = append(arms, alt)
	}
	out := SimOutcomes(rng, d, arms)
	g := d.G()
	x := seqDraw{diffs: make([][]float64, variants), reps: make([]int, g), delta: delta}
	order := rng.Perm(g)
	for v := range x.diffs {
		x.diffs[v] = make([]float64, g)
	}
	for u, t := range order {
		r := d.RepsOf(t)
		x.reps[u] = r
		for v := range variants {
			k := 0
			for rep := range r {
				k += int(b2f(out[v+1][t][rep])) - int(b2f(out[0][t][rep]))
			}
			x.diffs[v][u] = float64(k) / float64(r)
		}
	}
	return x
}

// SeqPlan is the planner's answer for a sequential ablation (PlanSequential):
// the expected and maximum attempts of the design against the fixed
// design's, by simulation.
type SeqPlan struct {
	// Design is the planned paired design, Baseline where its rates come
	// from, Seq the sequential design (its MaxUnits the design's tasks).
	Design   Design
	Baseline PlanBaseline
	Seq      stats.SeqDesign
	// Effect is the assumed change in mean pass rate of every variant.
	Effect float64
	// Sims and Seed are the simulated runs and their PCG seed.
	Sims int
	Seed uint64
	// FixedAttempts is the fixed design's attempts (every arm, every planned
	// pair); MaxAttempts the sequential design's most (the same: it never
	// adds units past the plan); ExpectedAttempts its mean over the runs,
	// and P90Attempts their 90th percentile.
	FixedAttempts, MaxAttempts int
	ExpectedAttempts           float64
	P90Attempts                int
	// ExpectedUnits is the mean units a variant ran (of Seq.MaxUnits).
	ExpectedUnits float64
	// Worse, Better, Futile and Undecided are the shares of the variants'
	// sequential decisions; PowerSeq the share decided in Effect's
	// direction, PowerFixed the fixed design's on the same draws (Holm over
	// the variants' sign-flip p's at Alpha).
	Worse, Better, Futile, Undecided float64
	PowerSeq, PowerFixed             float64
}

// SeqPlanSims and SeqPlanSeed are the planner's default simulated runs and seed.
const (
	SeqPlanSims        = 400
	SeqPlanSeed uint64 = 13
)

// PlanSequential simulates sims runs (≤ 0: SeqPlanSims) of design d with
// seq.Variants variants, every one at the change effect, monitored by seq
// (its MaxUnits set to d's tasks), from a PCG generator seeded with seed.
func PlanSequential(d Design, baseline PlanBaseline, seq stats.SeqDesign, effect float64, sims int, seed uint64) SeqPlan {
	if sims <= 0 {
		sims = SeqPlanSims
	}
	seq.MaxUnits = d.G()
	p := SeqPlan{Design: d, Baseline: baseline, Seq: seq, Effect: effect, Sims: sims, Seed: seed}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b9))
	var atts []int
	nv := 0.0
	for range sims {
		o := monitor(seq, designDraw(rng, d, seq.Variants, effect))
		p.FixedAttempts, p.MaxAttempts = o.fixedAttempts, o.fixedAttempts
		atts = append(atts, o.attempts)
		p.ExpectedAttempts += float64(o.attempts)
		for i, st := range o.stop {
			nv++
			p.ExpectedUnits += float64(o.at[i])
			switch st {
			case stats.SeqWorse:
				p.Worse++
			case stats.SeqBetter:
				p.Better++
			case stats.SeqFutile:
				p.Futile++
			default:
				p.Undecided++
			}
			p.PowerSeq += b2f(st == seqDirection(effect))
			p.PowerFixed += b2f(o.fixed[i] == seqDirection(effect))
		}
	}
	p.ExpectedAttempts /= float64(sims)
	p.P90Attempts = quantileInt(atts, 0.9)
	for _, f := range []*float64{&p.ExpectedUnits, &p.Worse, &p.Better, &p.Futile, &p.Undecided, &p.PowerSeq, &p.PowerFixed} {
		*f /= nv
	}
	return p
}

// seqDirection is the efficacy stop in the direction of a change.
func seqDirection(effect float64) stats.SeqStop {
	if effect < 0 {
		return stats.SeqWorse
	}
	return stats.SeqBetter
}

// quantileInt returns the q-quantile of x (the smallest value with at least
// q of the values at or below it); 0 when empty.
func quantileInt(x []int, q float64) int {
	if len(x) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(x))
	return s[min(len(s)-1, int(math.Ceil(q*float64(len(s))))-1)]
}
