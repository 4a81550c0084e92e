package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestPairedMeansExactRatio(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 6}
	b := []float64{2, 4, 6, 8, 10, 12}
	m := PairedMeans(a, b)
	if m.G != 6 || m.Moved != 6 || m.MeanA != 3.5 || m.MeanB != 7 || m.Diff != 3.5 || m.Ratio != 2 {
		t.Fatalf("means: %+v", m)
	}
	if math.Abs(m.P-2.0/64) > 1e-12 || math.Abs(m.PermFloor-2.0/64) > 1e-12 {
		t.Errorf("p %v floor %v, want 2/64", m.P, m.PermFloor)
	}
	// B_t − θ·A_t = (2 − θ)·A_t has one sign for every θ ≠ 2: only θ = 2 is not rejected.
	if math.Abs(m.RatioCI[0]-2) > 1e-6 || math.Abs(m.RatioCI[1]-2) > 1e-6 {
		t.Errorf("ratio CI %v, want the point 2", m.RatioCI)
	}
	if !(m.DiffCI[0] > 0 && m.DiffCI[0] < 3.5 && m.DiffCI[1] > 3.5) {
		t.Errorf("diff CI %v does not hold 3.5 inside (0, ∞)", m.DiffCI)
	}
}

func TestPairedMeansIdenticalArms(t *testing.T) {
	a := []float64{10, 20, 30}
	m := PairedMeans(a, a)
	if m.P != 1 || m.Moved != 0 || m.Ratio != 1 || m.Diff != 0 {
		t.Fatalf("identical arms: %+v", m)
	}
	// With 3 units 2/2^3 = 0.25 > 0.05: the test rejects no ratio, whose interval is [0, ∞); the difference's is
	// it times the baseline's mean 20: [−20, ∞).
	if m.DiffCI != [2]float64{-20, math.Inf(1)} || m.RatioCI[0] != 0 || !math.IsInf(m.RatioCI[1], 1) {
		t.Errorf("intervals %v %v, want [-20, ∞) and [0, ∞)", m.DiffCI, m.RatioCI)
	}
	if six := PairedMeans([]float64{1, 2, 3, 4, 5, 6}, []float64{1, 2, 3, 4, 5, 6}); six.RatioCI != [2]float64{1, 1} {
		t.Errorf("6 identical units: ratio interval %v, want the point 1 (2/2^6 < 0.05)", six.RatioCI)
	}
}

func TestPairedMeansFewUnits(t *testing.T) {
	m := PairedMeans([]float64{5}, []float64{7})
	if m.CIMethod != MeansCINone || m.P != 1 || m.Ratio != 1.4 {
		t.Errorf("one unit: %+v", m)
	}
	z := PairedMeans([]float64{0, 0}, []float64{1, 2})
	if !math.IsNaN(z.Ratio) || !math.IsNaN(z.RatioCI[0]) {
		t.Errorf("baseline mean 0: ratio %v %v, want NaN", z.Ratio, z.RatioCI)
	}
}

// The ratio's interval and the p invert the same test: the interval excludes 1 exactly when p < 0.05 (for G ≤
// MeansCIMaxExact, where both are exact; the bisection and p's own enumeration may part within 0.01 of α).
func TestPairedMeansIntervalAgreesWithP(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		g := 6 + rng.IntN(8)
		a, b := make([]float64, g), make([]float64, g)
		for i := range a {
			mu := math.Exp(rng.NormFloat64())
			a[i] = mu * math.Exp(0.5*rng.NormFloat64())
			b[i] = 1.3 * mu * math.Exp(0.5*rng.NormFloat64())
		}
		m := PairedMeans(a, b)
		excl := m.RatioCI[0] > 1 || m.RatioCI[1] < 1
		if excl != (m.P < 0.05) && math.Abs(m.P-0.05) > 0.01 {
			t.Fatalf("G=%d p %v but ratio CI %v", g, m.P, m.RatioCI)
		}
	}
}

// Coverage on lognormal costs with per-task effects and correlated reps (costSim, the study's model) at a small
// G: a fast check of the calibration rows (CALIBRATION.md has the full grid).
func TestPairedMeansCoverageSmallG(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 2))
	const runs = 300
	cover, rejectAA := 0, 0
	for i := range runs {
		theta := 1.3
		if i%2 == 0 {
			theta = 1
		}
		a, b, ratio, _ := costSim(rng, 10, 2, theta)
		m := PairedMeans(a, b)
		if m.RatioCI[0] <= ratio && ratio <= m.RatioCI[1] {
			cover++
		}
		if theta == 1 && m.P < 0.05 {
			rejectAA++
		}
	}
	if c := float64(cover) / runs; c < 0.91 {
		t.Errorf("coverage %.3f, want ≥ 0.93 (0.91 allows for 300 runs)", c)
	}
	if r := float64(rejectAA) / (runs / 2); r > 0.09 {
		t.Errorf("A/A rejection %.3f, want ≤ 0.06 (0.09 allows for 150 runs)", r)
	}
}
