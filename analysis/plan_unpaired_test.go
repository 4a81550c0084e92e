package analysis

import (
	"errors"
	"math"
	"testing"
)

// PlanUnpaired's figures for STATS.md §5's 18%→0% failure rates, a paired design, the MDEs at n, and its
// refusals of a paired design whose discordant share is missing or below the effect.
func TestPlanUnpaired(t *testing.T) {
	near := func(got, want, tol float64) bool { return math.Abs(got-want) <= tol }
	p, err := PlanUnpaired(UnpairedInputs{Base: 0.82, Target: 1, HasTarget: true, Alpha: 0.05, Power: 0.8})
	if err != nil || !near(p.RunsPerArm, 38.5, 0.05) || p.ExactAt != 39 || !near(p.ExactPower, 0.855, 5e-4) ||
		!p.Clean || p.CleanRuns != 16 || !near(p.CleanProb, 0.0418, 5e-5) || p.PairsNeeded != 0 ||
		!math.IsNaN(p.MDE) || !math.IsNaN(p.MDEPaired) {
		t.Errorf("82%% → 100%%: %+v, %v", p, err)
	}
	p, err = PlanUnpaired(UnpairedInputs{Base: 0.8, Target: 0.9, HasTarget: true, Alpha: 0.05, Power: 0.8, N: 50,
		Paired: true, Discordant: 0.3})
	if err != nil || !near(p.PairsNeeded, 233.1, 0.05) || !near(p.RunsPerArm, 199.0, 0.05) || p.ExactAt != 199 ||
		p.Clean || !near(p.PowerAtN, 0.305, 5e-4) || !near(p.MDE, 0.175, 5e-4) || !near(p.MDEPaired, 0.212, 5e-4) {
		t.Errorf("paired 80%% → 90%% at n=50: %+v, %v", p, err)
	}
	// A tiny effect needs too many runs for the exact power; a small n reaches no MDE.
	if p, _ := PlanUnpaired(UnpairedInputs{Base: 0.9, Target: 0.901, HasTarget: true, Alpha: 0.05, Power: 0.8}); p.ExactAt != 0 ||
		p.RunsPerArm < MaxExactPowerRuns {
		t.Errorf("tiny effect: %+v", p)
	}
	if p, _ := PlanUnpaired(UnpairedInputs{Base: 0.5, Alpha: 0.05, Power: 0.8, N: 3}); !math.IsNaN(p.MDE) || p.RunsPerArm != 0 {
		t.Errorf("n=3: %+v", p)
	}
	// A paired MDE with a share too small for any effect at n is absent; a paired design without a target needs no ψ.
	if p, err := PlanUnpaired(UnpairedInputs{Base: 0.8, Alpha: 0.05, Power: 0.8, N: 5, Paired: true, Discordant: 0.01}); err != nil ||
		!math.IsNaN(p.MDEPaired) || !near(p.MDE, 0.773, 5e-4) {
		t.Errorf("n=5, ψ=0.01: %+v, %v", p, err)
	}
	if _, err := PlanUnpaired(UnpairedInputs{Base: 0.8, Alpha: 0.05, Power: 0.8, N: 5, Paired: true}); err != nil {
		t.Errorf("paired MDE without ψ: %v", err)
	}
	for _, psi := range []float64{0, 0.05} {
		var de *DiscordantError
		_, err := PlanUnpaired(UnpairedInputs{Base: 0.8, Target: 0.9, HasTarget: true, Alpha: 0.05, Power: 0.8, Paired: true,
			Discordant: psi})
		if !errors.As(err, &de) || de.Discordant != psi || !near(de.Effect, 0.1, 1e-12) {
			t.Errorf("ψ=%v: %v", psi, err)
		}
	}
}
