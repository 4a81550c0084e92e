package stats

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// rounds checks that got, rounded to as many decimals as want is written
// with, prints as want: "reproduce the STATS.md value to its precision".
func rounds(t *testing.T, label string, got float64, want string) {
	t.Helper()
	dec := 0
	if i := strings.IndexByte(want, '.'); i >= 0 {
		dec = len(want) - i - 1
	}
	if s := strconv.FormatFloat(got, 'f', dec, 64); s != want {
		t.Errorf("%s = %v (rounds to %s), want %s", label, got, s, want)
	}
}

func near(t *testing.T, label string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol || math.IsNaN(got) {
		t.Errorf("%s = %.12g, want %.12g (±%g)", label, got, want, tol)
	}
}

// STATS.md reference table: Wilson rows.
func TestWilsonReference(t *testing.T) {
	cases := []struct {
		k, n   int
		lo, hi string
	}{
		{0, 11, "0.000", "0.259"},
		{2, 11, "0.051", "0.477"},
		{9, 11, "0.523", "0.949"},
		{20, 20, "0.839", "1.000"},
	}
	for _, c := range cases {
		lo, hi := Wilson(c.k, c.n, Z95)
		rounds(t, "Wilson lo "+strconv.Itoa(c.k)+"/"+strconv.Itoa(c.n), lo, c.lo)
		rounds(t, "Wilson hi "+strconv.Itoa(c.k)+"/"+strconv.Itoa(c.n), hi, c.hi)
	}
	// Exact boundaries, and a full-precision value computed independently.
	if lo, _ := Wilson(0, 11, Z95); lo != 0 {
		t.Errorf("Wilson 0/11 lo = %v, want exactly 0", lo)
	}
	if _, hi := Wilson(20, 20, Z95); hi != 1 {
		t.Errorf("Wilson 20/20 hi = %v, want exactly 1", hi)
	}
	lo, hi := Wilson(3, 20, Z95)
	near(t, "Wilson 3/20 lo", lo, 0.05236874548672649, 1e-12)
	near(t, "Wilson 3/20 hi", hi, 0.36041886664286427, 1e-12)
}

func TestWilsonEdges(t *testing.T) {
	if lo, hi := Wilson(0, 0, Z95); lo != 0 || hi != 1 {
		t.Errorf("Wilson 0/0 = [%v, %v], want [0, 1]", lo, hi)
	}
	// Symmetry: k/n and (n−k)/n mirror each other.
	lo1, hi1 := Wilson(2, 11, Z95)
	lo2, hi2 := Wilson(9, 11, Z95)
	near(t, "mirror lo", lo1, 1-hi2, 1e-12)
	near(t, "mirror hi", hi1, 1-lo2, 1e-12)
	defer func() {
		if recover() == nil {
			t.Error("Wilson(3, 2) did not panic")
		}
	}()
	Wilson(3, 2, Z95)
}

func TestNewcombeReference(t *testing.T) {
	// STATS.md: "Newcombe Δ for 2/11 − 0/11 = [−0.108, 0.477]"; the second
	// arm minus the first.
	lo, hi := Newcombe(0, 11, 2, 11, Z95)
	rounds(t, "Newcombe lo", lo, "-0.108")
	rounds(t, "Newcombe hi", hi, "0.477")
	// Reversed arms give the mirrored interval for the negated difference.
	lo, hi = Newcombe(2, 11, 0, 11, Z95)
	near(t, "Newcombe reversed lo", lo, -0.47698056435423286, 1e-12)
	near(t, "Newcombe reversed hi", hi, 0.10802977377226092, 1e-12)
	// Unequal arms (value computed independently from method 10).
	lo, hi = Newcombe(3, 20, 12, 25, Z95)
	near(t, "Newcombe 12/25−3/20 lo", lo, 0.05329877426975549, 1e-12)
	near(t, "Newcombe 12/25−3/20 hi", hi, 0.5391945263059796, 1e-12)
	// An empty arm leaves the difference unconstrained.
	if lo, hi := Newcombe(0, 0, 3, 10, Z95); lo != -1 || hi != 1 {
		t.Errorf("Newcombe with empty arm = [%v, %v], want [-1, 1]", lo, hi)
	}
	// All pass in both arms: Δ = 0 inside a non-degenerate interval.
	lo, hi = Newcombe(20, 20, 20, 20, Z95)
	if !(lo < 0 && hi > 0 && lo >= -1 && hi <= 1) {
		t.Errorf("Newcombe 20/20 vs 20/20 = [%v, %v]", lo, hi)
	}
	near(t, "Newcombe all-pass symmetric", lo, -hi, 1e-12)
}

func TestMcNemarExact(t *testing.T) {
	rounds(t, "McNemar 5/0", McNemarExact(5, 0), "0.0625")
	rounds(t, "McNemar 6/0", McNemarExact(6, 0), "0.03125")
	rounds(t, "McNemar 8/2", McNemarExact(8, 2), "0.109375")
	near(t, "McNemar 8/2 exact", McNemarExact(8, 2), 112.0/1024, 1e-14)
	near(t, "McNemar symmetric", McNemarExact(2, 8), McNemarExact(8, 2), 0)
	if p := McNemarExact(0, 0); p != 1 {
		t.Errorf("McNemar with no discordant pairs = %v, want 1", p)
	}
	if p := McNemarExact(3, 3); p != 1 {
		t.Errorf("McNemar 3/3 = %v, want 1 (capped)", p)
	}
	// Larger n stays accurate: b=30, c=10 → 2·P(X ≤ 10; 40, ½).
	near(t, "McNemar 30/10", McNemarExact(30, 10), 0.0022214337732293643, 1e-13)
}

func TestFisherExact(t *testing.T) {
	rounds(t, "Fisher 0/11 vs 2/11", FisherExact(0, 11, 2, 11), "0.476")
	rounds(t, "Fisher 0/11 vs 5/11", FisherExact(0, 11, 5, 11), "0.0351")
	rounds(t, "Fisher 3/20 vs 12/20", FisherExact(3, 20, 12, 20), "0.00791")
	// Full precision against independent enumeration; symmetric in arms.
	near(t, "Fisher 3/20 vs 12/20 full", FisherExact(3, 20, 12, 20), 0.007911693673651405, 1e-12)
	near(t, "Fisher swapped", FisherExact(12, 20, 3, 20), 0.007911693673651405, 1e-12)
	// Unequal arms.
	near(t, "Fisher 1/10 vs 6/12", FisherExact(1, 10, 6, 12), 0.07430340557275542, 1e-12)
	// Tables exactly as likely as the observed one count (the tolerance):
	// 0/11 vs 2/11 includes both 0 and 2 successes in arm 1.
	near(t, "Fisher ties", FisherExact(2, 11, 0, 11), 0.47619047619047616, 1e-12)
	// Edges: empty arms, all pass, identical arms.
	for _, c := range [][4]int{{0, 0, 0, 0}, {0, 0, 3, 5}, {11, 11, 11, 11}, {0, 11, 0, 11}, {4, 10, 4, 10}} {
		if p := FisherExact(c[0], c[1], c[2], c[3]); p != 1 {
			t.Errorf("FisherExact%v = %v, want 1", c, p)
		}
	}
}

func TestFisherExactOneSided(t *testing.T) {
	// H1: p2 > p1, i.e. P(X1 ≤ k1).
	near(t, "one-sided 3/20 < 12/20", FisherExactOneSided(3, 20, 12, 20), 0.003955846836825702, 1e-12)
	near(t, "one-sided 1/10 < 6/12", FisherExactOneSided(1, 10, 6, 12), 0.058823529411764705, 1e-12)
	near(t, "one-sided wrong direction", FisherExactOneSided(6, 12, 1, 10), 0.9953560371517027, 1e-12)
	// 0/11 vs k/11 rejects at 0.05 from k = 4 (C(11,k)/C(22,k)).
	near(t, "one-sided 0/11 vs 3/11", FisherExactOneSided(0, 11, 3, 11), 165.0/1540, 1e-12)
	near(t, "one-sided 0/11 vs 4/11", FisherExactOneSided(0, 11, 4, 11), 330.0/7315, 1e-12)
}

func TestHolmBH(t *testing.T) {
	p := []float64{.01, .04, .03, .2}
	holm := Holm(p)
	for i, w := range []string{"0.040", "0.090", "0.090", "0.200"} {
		rounds(t, "Holm["+strconv.Itoa(i)+"]", holm[i], w)
	}
	bh := BH(p)
	for i, w := range []string{"0.040", "0.0533", "0.0533", "0.200"} {
		rounds(t, "BH["+strconv.Itoa(i)+"]", bh[i], w)
	}
	near(t, "BH exact", bh[1], 0.04*4/3, 1e-15)
	// Capping at 1 and the input is untouched.
	h := Holm([]float64{0.5, 0.6})
	if h[0] != 1 || h[1] != 1 {
		t.Errorf("Holm(.5,.6) = %v, want [1 1]", h)
	}
	if p[1] != .04 {
		t.Error("Holm modified its input")
	}
	if len(Holm(nil)) != 0 || len(BH(nil)) != 0 {
		t.Error("empty input must give empty output")
	}
	b := BH([]float64{0.9, 0.95})
	if b[0] != 0.95 || b[1] != 0.95 {
		t.Errorf("BH(.9,.95) = %v, want [.95 .95]", b)
	}
}

func TestClusteredSE(t *testing.T) {
	// Each value its own cluster: the ordinary s/√n.
	v := []float64{1, 0, 1, 1, 0}
	near(t, "singleton clusters", ClusteredSE(v, []string{"a", "b", "c", "d", "e"}), math.Sqrt(0.3/5), 1e-15)
	// Two clusters of identical values: resid ±1, SE = √(2·2/1)/4 = 0.5.
	near(t, "two clusters", ClusteredSE([]float64{1, 1, 0, 0}, []string{"a", "a", "b", "b"}), 0.5, 1e-15)
	// The test case of the R port of Inspect's metric (interleaved
	// clusters): resid −0.5 and +0.5, SE = √(0.5·2)/6.
	near(t, "interleaved", ClusteredSE([]float64{1, 1, 1, 0, 0, 0}, []string{"0", "1", "1", "1", "0", "0"}), 1.0/6, 1e-15)
	if !math.IsNaN(ClusteredSE(nil, nil)) {
		t.Error("empty input: want NaN")
	}
	if !math.IsNaN(ClusteredSE([]float64{1, 0}, []string{"x", "x"})) {
		t.Error("one cluster: want NaN")
	}
}

func TestCMH(t *testing.T) {
	// R's mantelhaen.test example (Agresti 1990, penicillin and rabbits;
	// the R help says "p = 0.047"; R prints X² = 3.9286, p = 0.04747).
	// Arm 1 = no delay, arm 2 = 1.5h delay, success = cured. The MH odds
	// ratio by hand: Σ ad/T = 18/12 + 24/12, Σ bc/T = 6/12, so 3.5/0.5 = 7.
	strata := []Stratum{
		{K1: 0, N1: 6, K2: 0, N2: 5},
		{K1: 3, N1: 6, K2: 0, N2: 6},
		{K1: 6, N1: 6, K2: 2, N2: 6},
		{K1: 5, N1: 6, K2: 6, N2: 6},
		{K1: 2, N1: 2, K2: 5, N2: 5},
	}
	r := CMH(strata)
	rounds(t, "CMH chi2", r.Chi2, "3.9286")
	rounds(t, "CMH p", r.P, "0.04747")
	near(t, "CMH OR", r.OddsRatio, 7, 1e-12)
	if r.Strata != 3 {
		t.Errorf("CMH strata used = %d, want 3 (two have no variance)", r.Strata)
	}
	// No information at all.
	r = CMH([]Stratum{{K1: 5, N1: 5, K2: 5, N2: 5}})
	if r.P != 1 || r.Chi2 != 0 || r.Strata != 0 {
		t.Errorf("CMH all pass = %+v", r)
	}
	// |Σ(a−E)| < 0.5: no continuity correction applied, statistic stays ≥ 0.
	r = CMH([]Stratum{{K1: 1, N1: 2, K2: 1, N2: 2}})
	if r.Chi2 != 0 || r.P != 1 {
		t.Errorf("CMH balanced = %+v", r)
	}
}
