package analysis

// The planner of cost outcomes (`bench power --from RUN_DIR --outcome tokens --effect 0.15`): the power of the
// cost comparison's exact sign-flip test, simulated by resampling a pilot run's units (STATS.md "Cost outcomes").

import (
	"fmt"
	"math"
	"math/rand/v2"

	"webbench/results"
	"webbench/stats"
)

// CostPlanRuns is the number of simulated runs behind each power figure of PlanCost.
const CostPlanRuns = 2000

// The sign-flip test of each simulated run: exact up to costPlanExact moved units, else costPlanFlips random
// flips (a p within ±0.014 of the exact one at 0.05, 2 SEs: enough to count rejections).
const (
	costPlanExact = 10
	costPlanFlips = 1000
)

// CostPlan is the planner's answer for one cost outcome: the power of the two-sided sign-flip test at Alpha for
// a relative increase Effect with G units (Reps pairs each, as in the pilot), its MDE (the smallest relative
// increase reaching Power; NaN when none up to +1000 % does), and the pilot it resampled: PilotUnits units of
// arm Variant against Baseline in Dir, whose own ratio PilotRatio was divided out.
type CostPlan struct {
	Outcome                results.CostOutcome
	Dir, Baseline, Variant string
	PilotUnits             int
	PilotRatio             float64
	Reps                   float64
	G                      int
	Effect, Alpha          float64
	Target                 float64
	Power, MDE             float64
	Runs                   int
	// HolmK is the number of variants in the pilot run's Holm family per outcome (HolmFamily): the plan is at
	// Alpha unadjusted, as the pass-rate plan (PlanPrimary) is; the run's verdicts compare p_holm, up to HolmK
	// times p, with Alpha, so a plan at Alpha/HolmK holds for the verdict whatever the other variants show.
	HolmK int
}

// PlanCost simulates the power of the cost comparison for a relative increase effect at g units (0: the pilot's):
// each simulated run takes the pilot's per-unit means (the baseline's A_u; the variant's B_u divided by the
// pilot's ratio of means, so that the pilot's own effect is not counted twice), flips the sign of each unit's
// residual B_u − A_u at random, multiplies the variant's side by 1 + effect (costPower) and tests them as the
// analysis does (stats.SignFlipReal, two-sided; a rejection counts when the ratio is on the effect's side). The
// units keep the pilot's reps, pairing and spread, so the plan holds for the pilot's reps per unit. It is an
// error with fewer than 2 pilot units or no baseline cost.
func PlanCost(units []UnitMeans, g int, effect, alpha, power float64, seed uint64) (CostPlan, error) {
	p := CostPlan{PilotUnits: len(units), G: g, Effect: effect, Alpha: alpha, Target: power, Runs: CostPlanRuns}
	if len(units) < 2 {
		return p, fmt.Errorf("the pilot has %d units with pairs: at least 2 are needed", len(units))
	}
	a, b, ratio, reps := pilotArms(units)
	if ratio == 0 {
		return p, fmt.Errorf("the baseline's mean is 0: no ratio to plan for")
	}
	p.PilotRatio, p.Reps = ratio, reps
	if p.G <= 0 {
		p.G = len(units)
	}
	p.Power = costPower(a, b, p.G, effect, alpha, seed)
	p.MDE = costMDE(a, b, p.G, effect, alpha, power, seed)
	return p, nil
}

// pilotArms returns the pilot's per-unit means of the baseline (a) and of the variant divided by the pilot's ratio
// of means (b), that ratio (0 when the baseline's sum is not positive) and the mean pairs per unit.
func pilotArms(units []UnitMeans) (a, b []float64, ratio, reps float64) {
	sa, sb, pairs := 0.0, 0.0, 0
	for _, u := range units {
		sa += u.A
		sb += u.B
		pairs += u.Pairs
	}
	if sa <= 0 {
		return nil, nil, 0, 0
	}
	ratio = sb / sa
	a, b = make([]float64, len(units)), make([]float64, len(units))
	for i, u := range units {
		a[i], b[i] = u.A, u.B/ratio
	}
	return a, b, ratio, float64(pairs) / float64(len(units))
}

// costPower is the share of CostPlanRuns simulated runs (PlanCost) whose sign-flip p is below alpha with the
// difference on the effect's side. A run keeps each unit's baseline mean A_u and its residual e_u = B_u − A_u (the
// variant with the pilot's ratio divided out) with a random sign, the null's symmetry, and multiplies the
// variant's side by 1 + effect: (1 + effect)·(A_u ± e_u) − A_u. With g equal to the pilot's units it uses each
// once (the pilot's own spread, heavy tail included); otherwise it draws g with replacement.
func costPower(a, b []float64, g int, effect, alpha float64, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(seed, 0xc057))
	d := make([]float64, g)
	hits := 0
	for range CostPlanRuns {
		sum := 0.0
		for t := range d {
			i := t
			if g != len(a) {
				i = rng.IntN(len(a))
			}
			e := b[i] - a[i]
			if rng.Uint64()&1 == 1 {
				e = -e
			}
			d[t] = (1+effect)*(a[i]+e) - a[i]
			sum += d[t]
		}
		if p, _ := stats.SignFlipReal(d, costPlanExact, costPlanFlips, rng.Uint64()); p < alpha && sum*effect > 0 {
			hits++
		}
	}
	return float64(hits) / CostPlanRuns
}

// costMDE is the smallest relative change, on the side of effect, whose simulated power reaches power: the
// bracket doubled from ±0.25 (up to +1600 %, or down to −99 %), then bisected (bisectMDE) to 1/128 of its width;
// NaN when the bracket's end does not reach it.
func costMDE(a, b []float64, g int, effect, alpha, power float64, seed uint64) float64 {
	ok := func(e float64) bool { return costPower(a, b, g, e, alpha, seed) >= power }
	lo, hi := 0.0, 0.25
	if effect < 0 {
		hi = -0.25
	}
	for !ok(hi) {
		if hi >= 16 || hi <= -0.99 {
			return math.NaN()
		}
		lo = hi
		if hi > 0 {
			hi *= 2
		} else {
			hi = -1 + (1+hi)/2
		}
	}
	return bisectMDE(lo, hi, math.Abs(hi-lo)/128, ok)
}

// PilotUnits returns the per-unit means of outcome o of a variant against baseline on their matched judged pairs
// in recs (the records of one run) that hold o (recordedPairs), and the variant used: the first of candidates
// (e.g. the plan's variants in order) with such a pair; nil and "" when none has one.
func PilotUnits(recs []results.Attempt, baseline string, candidates []string, o results.CostOutcome) ([]UnitMeans, string) {
	arms := map[string][]results.Attempt{}
	for _, r := range recs {
		arms[r.Variant] = append(arms[r.Variant], r)
	}
	for _, v := range candidates {
		if v == baseline {
			continue
		}
		c := Comparison{DroppedByClass: map[string]int{}}
		keep := func(results.Attempt) bool { return true }
		matchPairs(&c, newIndexed(arms[baseline], keep), newIndexed(arms[v], keep), nil)
		if ps := recordedPairs(c.recPairs, o); len(ps) > 0 {
			_, unitOf, _ := unitsOf(ps, "")
			return PerUnit(ps, o.Value, unitOf), v
		}
	}
	return nil, ""
}
