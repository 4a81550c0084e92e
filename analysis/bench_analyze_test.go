package analysis

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"webbench/results"
)

// records100k returns 100,016 final records: 8 arms (a baseline and 7
// variants, one of them 10 pts worse) × g tasks × r reps with g·r = 12,502,
// same-seed pairs (share 0.8), task rates from IssueMix.
func records100k(g, r int) []results.Attempt {
	rng := rand.New(rand.NewPCG(100, 16))
	rates := IssueMix(rng, g)
	d := Design{Rates: rates, Rep: r, Model: ModelSameSeed, Share: 0.8}
	names := []string{"baseline"}
	arms := [][]float64{rates}
	for i := range 7 {
		names = append(names, fmt.Sprintf("v%d", i+1))
		if i == 0 {
			arms = append(arms, ShiftRates(rates, -0.1))
		} else {
			arms = append(arms, rates)
		}
	}
	return SimRecords(d, names, SimOutcomes(rng, d, arms), 1)
}

// BenchmarkAnalyze100k is the speed case: `bench report --format
// json` over 100,016 attempts of 8 arms (analysis and JSON rendering).
func BenchmarkAnalyze100k(b *testing.B) {
	for _, shape := range [][2]int{{1786, 7}, {94, 133}} {
		recs := records100k(shape[0], shape[1])
		if len(recs) != 100016 {
			b.Fatalf("%d records", len(recs))
		}
		b.Run(fmt.Sprintf("G=%d_R=%d", shape[0], shape[1]), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				a := Analyze(recs, Inputs{Baseline: "baseline", MinEffect: 0.1})
				if len(a.Variants) != 7 {
					b.Fatal("variants")
				}
			}
		})
	}
}
