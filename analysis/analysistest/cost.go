package analysistest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"webbench/results"
)

// CostRun builds an ablation of a baseline "base" and a variant "v" on g tasks × reps, every attempt passed, with
// costs that are lognormal per task (tokens around 40,000 with a σ of 0.5 between tasks, a per-attempt σ of 0.3,
// a same-seed component σ 0.3 shared by the two arms of a pair) and the variant's multiplied by ratio: tokens,
// steps (tokens/4,000, rounded, at least 1), wall time (tokens/10 ms) and USD (tokens × 1e-6). Drawn from a PCG
// seeded with seed.
func CostRun(g, reps int, ratio float64, seed uint64) []results.Attempt {
	rng := rand.New(rand.NewPCG(seed, 42))
	ln := func(s float64) float64 { return math.Exp(s*rng.NormFloat64() - s*s/2) }
	var out []results.Attempt
	for t := range g {
		task := fmt.Sprintf("t%02d", t)
		mu := 40000 * ln(0.5)
		for r := range reps {
			shared := ln(0.3)
			for _, arm := range []struct {
				name string
				k    float64
			}{{"base", 1}, {"v", ratio}} {
				x := Rec(arm.name, task, r, 'P')
				tok := arm.k * mu * shared * ln(0.3)
				x.Tokens = results.Tokens{Prompt: int(0.9 * tok), Completion: int(0.1 * tok)}
				x.Steps = max(1, int(math.Round(tok/4000)))
				x.DurationMS = int64(tok / 10)
				x.CostUSD = tok * 1e-6
				out = append(out, x)
			}
		}
	}
	return out
}
