package ablation

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

func TestExplorePowerPrimary(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, g := range []int{6, 12, 40, 100} {
		rates := IssueMix(rng, g)
		for _, r := range []int{1, 2, 5} {
			for _, m := range []string{ModelIndependent, ModelSameSeed, ModelSticky} {
				d := Design{Rates: rates, Rep: r, Model: m, Share: 0.8}
				t0 := time.Now()
				s := PowerPrimarySim(d, -0.1, 0.05, 400, 1)
				el := time.Since(t0)
				a := PowerPrimaryApprox(d, -0.1, 0.05)
				s0 := PowerPrimarySim(d, 0, 0.05, 400, 1)
				fmt.Printf("G=%3d R=%d %-11s sim %.3f approx %.3f size %.3f  %v\n", g, r, m, s, a, s0, el/400)
			}
		}
	}
}

func TestExploreCalibrate(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	for _, s := range IssueSettings() {
		t0 := time.Now()
		r := Calibrate(s, 100, 100, 0.05, 1)
		fmt.Printf("%-22s AA %v fwer %.3f gate %.3f cov %.2f/%.2f pred %.3f rep %.3f ach %.3f  %v\n", s, r.AA, r.FWER, r.GateAA, r.CoverageAA, r.CoveragePower, r.Predicted, r.Reported, r.Achieved, time.Since(t0).Round(time.Millisecond))
	}
}

func TestExploreDesign(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 6; i++ {
		rates := IssueMix(rng, 40)
		d := Design{Rates: rates, Rep: 5, Model: ModelIndependent}
		alt := ShiftRates(rates, -0.08)
		names := make([]string, 40)
		for i := range names {
			names[i] = SimTaskID(i)
		}
		pairs := simPairs(rng, d, names, rates, alt, nil)
		e := DesignFromPairs(pairs)
		r, _ := PairedDiff(pairs)
		fmt.Printf("true %.3f est %.3f share %.3f sticky %.3f obsSE %.4f  p %.3f\n", PowerPrimarySim(d, -0.08, 0.05, 400, 1), PowerPrimarySim(e, -0.08, 0.05, 400, 1), e.Share, e.Sticky, r.SE, r.P)
		fmt.Printf("  rates %.2f\n  est   %.2f\n", rates[:10], e.Rates[:10])
	}
}

func TestExploreDesign2(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 6; i++ {
		rates := IssueMix(rng, 40)
		d := Design{Rates: rates, Rep: 5, Model: ModelIndependent}
		alt := ShiftRates(rates, -0.08)
		names := make([]string, 40)
		for i := range names {
			names[i] = SimTaskID(i)
		}
		pairs := simPairs(rng, d, names, rates, alt, nil)
		e := DesignFromPairs(pairs)
		mid := make([]float64, 40)
		for i := range mid {
			mid[i] = (rates[i] + alt[i]) / 2
		}
		raw := Design{Rates: make([]float64, 40), Rep: 5, Model: ModelIndependent}
		for _, p := range pairs {
			var x float64
			if p.A {
				x++
			}
			if p.B {
				x++
			}
			var ti int
			fmt.Sscanf(p.Task, "t%d", &ti)
			raw.Rates[ti] += x / 10
		}
		e0 := e
		e0.Share, e0.Sticky = 0, 0
		fmt.Printf("true %.3f mid %.3f raw %.3f shrunk0 %.3f est %.3f\n", PowerPrimarySim(d, -0.08, 0.05, 400, 1),
			PowerPrimarySim(Design{Rates: mid, Rep: 5}, -0.08, 0.05, 400, 1), PowerPrimarySim(raw, -0.08, 0.05, 400, 1),
			PowerPrimarySim(e0, -0.08, 0.05, 400, 1), PowerPrimarySim(e, -0.08, 0.05, 400, 1))
	}
}
