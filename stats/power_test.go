package stats

import (
	"math"
	"strconv"
	"testing"
)

func TestProbZeroFailuresReference(t *testing.T) {
	rounds(t, "0.82^11", ProbZeroFailures(0.18, 11), "0.1127")
	rounds(t, "0.82^15", ProbZeroFailures(0.18, 15), "0.0510")
	rounds(t, "0.82^16", ProbZeroFailures(0.18, 16), "0.0418")
	if ProbZeroFailures(0.3, 0) != 1 || ProbZeroFailures(0, 50) != 1 || ProbZeroFailures(1, 3) != 0 {
		t.Error("ProbZeroFailures edges")
	}
	// "0/n is significant at α = 0.05 only for n ≥ 16 here."
	if n := MinRunsZeroFailures(0.18, 0.05); n != 16 {
		t.Errorf("MinRunsZeroFailures(.18, .05) = %d, want 16", n)
	}
	if n := MinRunsZeroFailures(0.5, 0.25); n != 2 { // 0.5² = 0.25 exactly
		t.Errorf("MinRunsZeroFailures(.5, .25) = %d, want 2", n)
	}
	if n := MinRunsZeroFailures(0, 0.05); n != -1 {
		t.Errorf("MinRunsZeroFailures(0, .05) = %d, want -1", n)
	}
}

func TestExactPowerFisherReference(t *testing.T) {
	ns := []int{11, 20, 30, 40}
	to0 := []string{"0.120", "0.285", "0.649", "0.870"}
	to9 := []string{"0.045", "0.090", "0.138", "0.213"}
	for i, n := range ns {
		rounds(t, "power 18%→0% n="+strconv.Itoa(n), ExactPowerFisher(0.18, 0, n, 0.05), to0[i])
		rounds(t, "power 18%→9% n="+strconv.Itoa(n), ExactPowerFisher(0.18, 0.09, n, 0.05), to9[i])
	}
	// At n = 11 the test rejects 0/11 vs k/11 exactly when k ≥ 4, so the
	// power is P(Bin(11, .18) ≥ 4).
	b := binomPMF(11, 0.18)
	want := 1 - b[0] - b[1] - b[2] - b[3]
	near(t, "power n=11 by hand", ExactPowerFisher(0.18, 0, 11, 0.05), want, 1e-12)
	// Direction-free: the same change expressed as pass rates (82%→100%).
	near(t, "pass-rate form", ExactPowerFisher(0.82, 1, 20, 0.05), ExactPowerFisher(0.18, 0, 20, 0.05), 1e-12)
	// No effect: the size, at most alpha.
	if s := ExactPowerFisher(0.3, 0.3, 25, 0.05); !(s > 0 && s <= 0.05) {
		t.Errorf("size at p1 = p2 = %v, want in (0, .05]", s)
	}
}

func TestNUnpaired(t *testing.T) {
	n := NUnpaired(0.18, 0, 0.05, 0.8)
	rounds(t, "unpaired n 18%→0%", n, "38.5")
	near(t, "unpaired n 18%→0% full", n, 38.48004255707991, 1e-6) // computed independently
	near(t, "unpaired n 50%→30%", NUnpaired(0.5, 0.3, 0.05, 0.8), 92.9988448275456, 1e-6)
	near(t, "symmetric in arms", NUnpaired(0, 0.18, 0.05, 0.8), n, 1e-12)
	if !math.IsInf(NUnpaired(0.3, 0.3, 0.05, 0.8), 1) {
		t.Error("p1 = p2 must need infinitely many runs")
	}
}

func TestNPairedMcNemar(t *testing.T) {
	// ψ = .25, δ = .15: [1.959964·.5 + 0.841621·√.2275]² / .0225.
	near(t, "Connor n", NPairedMcNemar(0.2, 0.05, 0.05, 0.8), 84.81301594230996, 1e-6)
	near(t, "direction-free", NPairedMcNemar(0.05, 0.2, 0.05, 0.8), 84.81301594230996, 1e-6)
	if !math.IsInf(NPairedMcNemar(0.1, 0.1, 0.05, 0.8), 1) {
		t.Error("δ = 0 must need infinitely many pairs")
	}
}

func TestMDE(t *testing.T) {
	// 39 per arm suffices for 18%→0% (38.5), so the downward MDE is < .18 and
	// the formula at the MDE needs exactly 39.
	d := MDEUnpaired(0.18, 39, 0.05, 0.8)
	if !(d > 0 && d < 0.18) {
		t.Fatalf("MDEUnpaired(.18, 39) = %v", d)
	}
	lo := NUnpaired(0.18, 0.18-d, 0.05, 0.8)
	up := NUnpaired(0.18, 0.18+d, 0.05, 0.8)
	if math.Abs(math.Min(lo, up)-39) > 1e-3 {
		t.Errorf("n at MDE = %v/%v, want 39", lo, up)
	}
	// Symmetric base rate: both directions equal; check against n(δ) = n.
	d = MDEUnpaired(0.5, 93, 0.05, 0.8)
	near(t, "MDE at 50% base", d, 0.2, 2e-3) // n(.5→.3) = 92.999
	near(t, "MDE round trip", NUnpaired(0.5, 0.5-d, 0.05, 0.8), 93, 1e-3)
	// Far too few runs: nothing is detectable.
	if d := MDEUnpaired(0.5, 2, 0.05, 0.8); !math.IsNaN(d) {
		t.Errorf("MDEUnpaired(.5, 2) = %v, want NaN", d)
	}

	// Paired: with ψ = .25, 85 pairs detect δ ≈ .15 (84.8 pairs needed).
	d = MDEPaired(0.25, 85, 0.05, 0.8)
	if !(d > 0.14 && d < 0.15) {
		t.Errorf("MDEPaired(.25, 85) = %v, want just under .15", d)
	}
	near(t, "paired round trip", NPairedMcNemar((0.25+d)/2, (0.25-d)/2, 0.05, 0.8), 85, 1e-3)
	// δ ≤ ψ: 10 pairs at ψ = .1 cannot reach the power.
	if d := MDEPaired(0.1, 10, 0.05, 0.8); !math.IsNaN(d) {
		t.Errorf("MDEPaired(.1, 10) = %v, want NaN", d)
	}
}

// bruteExactPower is the definition of ExactPowerFisher written out as a
// double loop over all outcomes (no monotonicity shortcut).
func bruteExactPower(p1, p2 float64, n int, alpha float64) float64 {
	if p2 < p1 {
		p1, p2 = p2, p1
	}
	b1, b2 := binomPMF(n, p1), binomPMF(n, p2)
	pow := 0.0
	for x1 := 0; x1 <= n; x1++ {
		for x2 := 0; x2 <= n; x2++ {
			if FisherExactOneSided(x1, n, x2, n) <= alpha {
				pow += b1[x1] * b2[x2]
			}
		}
	}
	return pow
}

func TestExactPowerFisherMatchesDefinition(t *testing.T) {
	for _, c := range []struct {
		p1, p2 float64
		n      int
		alpha  float64
	}{
		{0.18, 0, 11, 0.05}, {0.18, 0.09, 40, 0.05}, {0.5, 0.8, 23, 0.05},
		{0.7, 0.2, 17, 0.01}, {0.05, 0.3, 60, 0.1}, {0.4, 0.4, 15, 0.05},
	} {
		near(t, "power vs definition", ExactPowerFisher(c.p1, c.p2, c.n, c.alpha), bruteExactPower(c.p1, c.p2, c.n, c.alpha), 1e-12)
	}
}
