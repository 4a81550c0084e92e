package analysis

import (
	"fmt"
	"math"

	"webbench/stats"
)

// The unpaired (legacy) planner of bench power: sample sizes and MDEs of the
// closed-form designs (stats' power formulas), before the primary test's
// planner (PlanPrimary).

// MaxExactPowerRuns bounds the runs per arm at which UnpairedPlan computes the
// exact Fisher power of the needed sample size (ExactPowerFisher is O(n²)).
const MaxExactPowerRuns = 5000

// UnpairedInputs are the unpaired planner's inputs: the baseline pass rate
// Base and, when HasTarget, the pass rate Target to detect (rates in
// [0, 1]); the level Alpha and the power Power (in (0, 1)); N the runs per
// arm (or pairs) of a planned run, 0 for none; Paired the paired (McNemar)
// design with Discordant its expected share ψ of discordant pairs.
type UnpairedInputs struct {
	Base, Target float64
	HasTarget    bool
	Alpha, Power float64
	N            int
	Paired       bool
	Discordant   float64
}

// UnpairedPlan is the unpaired planner's answer (PlanUnpaired). The fields of
// a target are set only when In.HasTarget, those of N only when In.N > 0.
type UnpairedPlan struct {
	In UnpairedInputs
	// PairsNeeded is the McNemar sample size of Base → Target (Connor 1987,
	// stats.NPairedMcNemar; unrounded), set when In.Paired.
	PairsNeeded float64
	// RunsPerArm is the unpaired sample size of Base → Target (normal
	// approximation, stats.NUnpaired; unrounded, +Inf without an effect).
	RunsPerArm float64
	// ExactAt is RunsPerArm rounded up and ExactPower the one-sided Fisher
	// power there (stats.ExactPowerFisher); ExactAt is 0 when RunsPerArm is
	// infinite or not below MaxExactPowerRuns.
	ExactAt    int
	ExactPower float64
	// Clean says that Target is 1 above a Base below 1: CleanRuns is then the
	// fewest runs for an arm without failures to be significant
	// (stats.MinRunsZeroFailures) and CleanProb the chance of that clean arm
	// at the baseline rate (stats.ProbZeroFailures).
	Clean     bool
	CleanRuns int
	CleanProb float64
	// PowerAtN is the exact one-sided Fisher power at In.N per arm, set with a
	// target.
	PowerAtN float64
	// MDE is the unpaired MDE at In.N per arm (stats.MDEUnpaired), NaN when
	// none is reachable; MDEPaired the McNemar MDE at In.N pairs and
	// discordant share ψ (stats.MDEPaired), NaN when none is reachable or
	// the design is not paired with a ψ.
	MDE, MDEPaired float64
}

// DiscordantError is PlanUnpaired's refusal of a paired design with a target
// whose discordant share Discordant is missing (≤ 0) or smaller than the
// effect |Effect| (Target − Base): no pair split (p10, p01) has it.
type DiscordantError struct {
	Discordant, Effect float64
}

// Error says what the paired design lacks.
func (e *DiscordantError) Error() string {
	if e.Discordant <= 0 {
		return "the paired design needs the share ψ of pairs whose outcomes differ"
	}
	return fmt.Sprintf("the discordant share %.3f is smaller than the effect %.3f", e.Discordant, math.Abs(e.Effect))
}

// PlanUnpaired computes the unpaired planner's figures for in (whose rates,
// level and power are valid, stats' formulas panic otherwise). It fails with
// *DiscordantError when in is paired with a target and its discordant share
// cannot hold the effect.
func PlanUnpaired(in UnpairedInputs) (UnpairedPlan, error) {
	p := UnpairedPlan{In: in, MDE: math.NaN(), MDEPaired: math.NaN()}
	if in.HasTarget {
		if in.Paired {
			d := in.Target - in.Base
			p10, p01 := (in.Discordant+d)/2, (in.Discordant-d)/2
			if in.Discordant <= 0 || p10 < 0 || p01 < 0 {
				return p, &DiscordantError{Discordant: in.Discordant, Effect: d}
			}
			p.PairsNeeded = stats.NPairedMcNemar(p10, p01, in.Alpha, in.Power)
		}
		p.RunsPerArm = stats.NUnpaired(in.Base, in.Target, in.Alpha, in.Power)
		if !math.IsInf(p.RunsPerArm, 0) && p.RunsPerArm < MaxExactPowerRuns {
			p.ExactAt = int(math.Ceil(p.RunsPerArm))
			p.ExactPower = stats.ExactPowerFisher(in.Base, in.Target, p.ExactAt, in.Alpha)
		}
		if in.Base < 1 && in.Target == 1 {
			p.Clean = true
			p.CleanRuns = stats.MinRunsZeroFailures(1-in.Base, in.Alpha)
			p.CleanProb = stats.ProbZeroFailures(1-in.Base, p.CleanRuns)
		}
	}
	if in.N > 0 {
		if in.HasTarget {
			p.PowerAtN = stats.ExactPowerFisher(in.Base, in.Target, in.N, in.Alpha)
		}
		p.MDE = stats.MDEUnpaired(in.Base, in.N, in.Alpha, in.Power)
		if in.Paired && in.Discordant > 0 {
			p.MDEPaired = stats.MDEPaired(in.Discordant, in.N, in.Alpha, in.Power)
		}
	}
	return p, nil
}
