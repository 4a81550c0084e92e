package analysis

import (
	"math"
	"testing"

	"webbench/results"
)

// An arm's model-cache account sums its records': replayed calls, their tokens and cost; sent and paid are what
// is left of the arm's calls and cost.
func TestSummarizeArmModelCache(t *testing.T) {
	rec := func(status results.Status, steps int, cost float64, mc *results.ModelCache) results.Attempt {
		return results.Attempt{Variant: "v", TaskID: "t", Status: status, Steps: steps, CostUSD: cost, ModelCache: mc}
	}
	arm := SummarizeArm("v", []results.Attempt{
		rec(results.StatusPass, 10, 0.10, &results.ModelCache{Replayed: 10, Tokens: results.Tokens{Prompt: 900, Completion: 100}, SavedUSD: 0.10}),
		rec(results.StatusFail, 6, 0.06, &results.ModelCache{Replayed: 2, Tokens: results.Tokens{Prompt: 150, Completion: 50}, SavedUSD: 0.02}),
		rec(results.StatusError, 1, 0.01, &results.ModelCache{}),
	})
	c := arm.ModelCache
	if arm.ModelCalls != 17 || c == nil || c.Replayed != 12 || c.Sent != 5 || c.ReplayedTokens != 1200 ||
		math.Abs(c.SavedUSD-0.12) > 1e-12 || math.Abs(c.PaidUSD-0.05) > 1e-12 {
		t.Fatalf("calls %d, cache %+v", arm.ModelCalls, c)
	}
	if a := SummarizeArm("w", []results.Attempt{rec(results.StatusPass, 3, 0, nil)}); a.ModelCache != nil || a.ModelCalls != 3 {
		t.Errorf("an arm run without the cache: calls %d, cache %+v", a.ModelCalls, a.ModelCache)
	}
}
