package analysis

import (
	"math"
	"math/rand/v2"
	"testing"

	"webbench/results"
	"webbench/stats"
)

// TestHolmMDEHoldsUnderHolm simulates Holm's adjustment over m variants that all drop the pass rate by the same
// δ, each drawn on its own: at δ = the MDE at α/m the first variant's p_holm is below α in at least the target
// share of runs (up to simulation noise), and at the unadjusted MDE, when smaller, it is not — the unadjusted MDE
// overstates what the verdict can see.
func TestHolmMDEHoldsUnderHolm(t *testing.T) {
	const m, alpha, power, nsim = 3, 0.05, 0.8, 600
	rates := make([]float64, 20)
	for i := range rates {
		rates[i] = 0.9
	}
	d := Design{Rates: rates, Rep: 1}
	holm := MDEPrimary(d, alpha/m, power, true)
	plain := MDEPrimary(d, alpha, power, true)
	if math.IsNaN(holm) || !(plain < holm) {
		t.Fatalf("MDE at α/%d = %v, at α = %v: want a finite adjusted MDE above the unadjusted one", m, holm, plain)
	}
	holmPower := func(delta float64) float64 {
		rng := rand.New(rand.NewPCG(7, 11))
		alt := ShiftRates(rates, -delta)
		hits := 0
		var buf []float64
		for range nsim {
			ps := make([]float64, m)
			neg := true
			for j := range ps {
				buf = simDiffs(rng, d, rates, alt, buf)
				sum := 0.0
				for _, x := range buf {
					sum += x
				}
				ps[j] = 1
				if sum != 0 {
					ps[j], _ = stats.SignFlip(buf, stats.DefaultSignFlipMaxExact, stats.DefaultSignFlipSamples, stats.DefaultSignFlipSeed)
				}
				if j == 0 {
					neg = sum < 0
				}
			}
			if stats.Holm(ps)[0] < alpha && neg {
				hits++
			}
		}
		return float64(hits) / nsim
	}
	if got := holmPower(holm); got < power-0.05 {
		t.Errorf("at the Holm MDE %.3f the simulated Holm power is %.3f, want ≥ %.2f", holm, got, power-0.05)
	}
	if got := holmPower(plain); got >= power {
		t.Errorf("at the unadjusted MDE %.3f the simulated Holm power is %.3f, want below %.2f", plain, got, power)
	}
}

// TestHolmMDEOnTheWhyRun checks the recorded ablation: every variant that the holm_floor bound says cannot be
// shown different has no Holm MDE and no Holm power, and its multiplier is the bound's; a variant outside it
// has HolmM variants sharing its floor.
func TestHolmMDEOnTheWhyRun(t *testing.T) {
	run, err := results.Open("testdata/why-run")
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := AnalyzeRun(run, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	floors := HolmFloorOf(a)
	if len(floors) == 0 {
		t.Fatal("no variant at the Holm floor in the why run: nothing to check")
	}
	hidden := 0
	for _, v := range a.Variants {
		p := v.All.Power
		if h, ok := floors[v.Name]; ok {
			if p.HolmM != h.M || !math.IsNaN(p.MDEHolm) || p.HasEffect && p.PowerHolm != 0 {
				t.Errorf("%s: HolmM %d, MDEHolm %v, PowerHolm %v; want %d, NaN, 0 (floor %v)", v.Name, p.HolmM, p.MDEHolm,
					p.PowerHolm, h.M, h.Floor)
			}
			continue
		}
		if p.HolmM < 2 {
			t.Errorf("%s: HolmM %d, want the variants sharing its floor (≥ 2 of %d)", v.Name, p.HolmM, len(a.Variants))
		}
		if !math.IsNaN(p.MDEHolm) && p.MDEHolm < p.MDE-0.01 {
			t.Errorf("%s: MDE at α/%d %.3f below the unadjusted %.3f", v.Name, p.HolmM, p.MDEHolm, p.MDE)
		}
		if !math.IsNaN(p.MDE) && math.IsNaN(p.MDEHolm) {
			hidden++
		}
	}
	// no_repeat_guard and no_final_recovery: 10 tasks, 1 moved; an unadjusted MDE of about 66 pts, none at α/7.
	if hidden != 2 {
		t.Errorf("%d variants with an unadjusted MDE and none after Holm, want 2", hidden)
	}
}

// The post-hoc power is labelled where calibration found it too high (clustered, 2 reps, strong within-cluster
// share) and nowhere else: not over tasks, not at 1 rep, not at a moderate share.
func TestMayOverstate(t *testing.T) {
	for _, c := range []struct {
		p    PowerAnalysis
		want bool
	}{
		{PowerAnalysis{Unit: "family", TaskReps: 2, RepShare: 0.67}, true},
		{PowerAnalysis{Unit: "family", TaskReps: 2, RepShare: 0.47}, false},
		{PowerAnalysis{Unit: "family", TaskReps: 1, RepShare: 0.9}, false},
		{PowerAnalysis{Unit: UnitTask, TaskReps: 2, RepShare: 0.9}, false},
	} {
		if got := c.p.MayOverstate(); got != c.want {
			t.Errorf("%+v: MayOverstate %v, want %v", c.p, got, c.want)
		}
	}
}
