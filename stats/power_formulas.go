package stats

// Power and minimum detectable effect (STATS.md §4) and the plain-words
// "P(0 failures by chance)" warning of §5. Rates are probabilities in [0, 1];
// the formulas are symmetric under swapping pass and fail, so p1, p2 may be
// pass rates or failure rates as long as both are the same kind.

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// zq returns the standard-normal quantile Φ⁻¹(q).
func zq(q float64) float64 { return distuv.UnitNormal.Quantile(q) }

// CheckAlphaPower panics, naming the function name, unless alpha and power are both in (0, 1).
func CheckAlphaPower(name string, alpha, power float64) {
	if !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1) {
		panic(fmt.Sprintf("%s: alpha=%v and power=%v must be in (0, 1)", name, alpha, power))
	}
}

// NUnpaired returns the number of attempts per arm needed to detect rates p1
// vs p2 with a two-sided test at level alpha with the given power, by the
// normal approximation without continuity correction (Fleiss, Levin & Paik
// 2003, "Statistical Methods for Rates and Proportions", 3rd ed., ch. 4;
// STATS.md §4):
//
//	n = [z_{α/2}·√(2p̄q̄) + z_β·√(p1q1 + p2q2)]² / (p1 − p2)²,  p̄ = (p1+p2)/2,
//
// with z_{α/2} = Φ⁻¹(1 − α/2), z_β = Φ⁻¹(power). The result is not rounded
// (round up to plan a run): 18%→0% at α = 0.05, power 0.8 gives 38.5. It is
// +Inf when p1 = p2, and panics if a rate is outside [0, 1] or alpha, power
// are outside (0, 1).
func NUnpaired(p1, p2, alpha, power float64) float64 {
	CheckAlphaPower("stats.NUnpaired", alpha, power)
	if p1 < 0 || p1 > 1 || p2 < 0 || p2 > 1 {
		panic(fmt.Sprintf("stats.NUnpaired: rates %v, %v outside [0, 1]", p1, p2))
	}
	if p1 == p2 {
		return math.Inf(1)
	}
	pb := (p1 + p2) / 2
	num := zq(1-alpha/2)*math.Sqrt(2*pb*(1-pb)) + zq(power)*math.Sqrt(p1*(1-p1)+p2*(1-p2))
	return num * num / ((p1 - p2) * (p1 - p2))
}

// NPairedMcNemar returns the number of matched pairs needed for McNemar's test
// at two-sided level alpha to reach the given power (Connor 1987, "Sample size
// for testing differences in proportions for the paired-sample design",
// Biometrics 43:207; STATS.md §4):
//
//	n = [z_{α/2}·√ψ + z_β·√(ψ − δ²)]² / δ²,  ψ = p10 + p01, δ = p10 − p01,
//
// where p10 and p01 are the probabilities of the two kinds of discordant
// pair (e.g. A fail/B pass and A pass/B fail). Not rounded; +Inf when
// p10 = p01. It panics if p10, p01 < 0 or p10 + p01 > 1, or alpha, power are
// outside (0, 1).
func NPairedMcNemar(p10, p01, alpha, power float64) float64 {
	CheckAlphaPower("stats.NPairedMcNemar", alpha, power)
	if p10 < 0 || p01 < 0 || p10+p01 > 1+1e-12 {
		panic(fmt.Sprintf("stats.NPairedMcNemar: invalid discordance p10=%v p01=%v", p10, p01))
	}
	psi := p10 + p01
	delta := p10 - p01
	if delta == 0 {
		return math.Inf(1)
	}
	num := zq(1-alpha/2)*math.Sqrt(psi) + zq(power)*math.Sqrt(math.Max(0, psi-delta*delta))
	return num * num / (delta * delta)
}

// binomPMF returns the Binomial(n, p) probabilities of 0..n.
func binomPMF(n int, p float64) []float64 {
	out := make([]float64, n+1)
	switch p {
	case 0:
		out[0] = 1
		return out
	case 1:
		out[n] = 1
		return out
	}
	lp, lq := math.Log(p), math.Log1p(-p)
	for x := 0; x <= n; x++ {
		out[x] = math.Exp(logChoose(n, x) + float64(x)*lp + float64(n-x)*lq)
	}
	return out
}

// ExactPowerFisher returns the exact power of the one-sided Fisher exact test
// at level alpha with n attempts per arm, when the true rates are p1 (arm 1,
// baseline) and p2 (arm 2, variant). The test is one-sided in the direction
// of the hypothesised change (H1: p2 > p1 if p2 > p1, else H1: p2 < p1; for
// p1 = p2 the direction p2 > p1, giving the size ≤ alpha). Power is computed
// by enumerating both binomials: Σ Bin(x1; n, p1)·Bin(x2; n, p2) over every
// outcome (x1, x2) whose one-sided Fisher p-value (FisherExactOneSided, in
// that direction) is ≤ alpha. This plain convention (P(reject in the
// hypothesised direction), rejection when p ≤ α, no mid-p, no
// randomisation) reproduces STATS.md's table: for failure rates 18%→0% at
// n = 11/20/30/40 it gives 0.120/0.285/0.649/0.870, for 18%→9%
// 0.045/0.090/0.138/0.213. Cost is O(n²); it panics if n < 1 or a rate or
// alpha is outside its range.
func ExactPowerFisher(p1, p2 float64, n int, alpha float64) float64 {
	if n < 1 || p1 < 0 || p1 > 1 || p2 < 0 || p2 > 1 || !(alpha > 0 && alpha < 1) {
		panic(fmt.Sprintf("stats.ExactPowerFisher: invalid p1=%v p2=%v n=%d alpha=%v", p1, p2, n, alpha))
	}
	// Orient so that the alternative is "arm 2 greater".
	if p2 < p1 {
		p1, p2 = p2, p1
	}
	b1, b2 := binomPMF(n, p1), binomPMF(n, p2)
	// tail[x] = P(X2 ≥ x).
	tail := make([]float64, n+2)
	for x := n; x >= 0; x-- {
		tail[x] = tail[x+1] + b2[x]
	}
	// The one-sided p-value P(X1 ≤ x1 | x1+x2) decreases in x2 and increases
	// in x1, so the rejection region is {x2 ≥ t(x1)} with t non-decreasing:
	// one pass of a pointer finds every threshold (O(n) Fisher tests).
	pow := 0.0
	t := 0
	for x1 := 0; x1 <= n; x1++ {
		for t <= n && FisherExactOneSided(x1, n, t, n) > alpha {
			t++
		}
		if t > n {
			break
		}
		pow += b1[x1] * tail[t]
	}
	return math.Min(1, pow)
}

// MDEUnpaired returns the minimum detectable effect for an unpaired
// comparison with n attempts per arm at base rate p1: the smallest |p2 − p1|
// for which NUnpaired(p1, p2, alpha, power) ≤ n, searching both directions
// (p2 above and below p1) and returning the smaller. Each direction is
// scanned on a 0.001 grid for the first crossing, which is then refined by
// bisection to 1e-9, so the result does not rely on the formula being
// monotone. It returns NaN when no p2 in [0, 1] reaches the power (n too
// small). It panics on invalid arguments.
func MDEUnpaired(p1 float64, n int, alpha, power float64) float64 {
	CheckAlphaPower("stats.MDEUnpaired", alpha, power)
	if p1 < 0 || p1 > 1 || n < 1 {
		panic(fmt.Sprintf("stats.MDEUnpaired: invalid p1=%v n=%d", p1, n))
	}
	nf := float64(n)
	best := math.NaN()
	for _, sign := range []float64{1, -1} {
		room := 1 - p1
		if sign < 0 {
			room = p1
		}
		ok := func(d float64) bool {
			p2 := math.Min(1, math.Max(0, p1+sign*d))
			return NUnpaired(p1, p2, alpha, power) <= nf
		}
		if d, found := firstCrossing(ok, room); found && (math.IsNaN(best) || d < best) {
			best = d
		}
	}
	return best
}

// MDEPaired returns the minimum detectable effect δ = p10 − p01 for a paired
// comparison of n pairs by McNemar's test (Connor 1987, NPairedMcNemar), given
// the total discordance rate psi = p10 + p01 (the fraction of pairs whose
// arms disagree; estimate it from a pilot or the observed run): the smallest
// δ in (0, psi] with NPairedMcNemar((psi+δ)/2, (psi−δ)/2, alpha, power) ≤ n.
// The required n decreases monotonically in δ, and the crossing is found by
// bisection to 1e-9. It returns NaN when even δ = psi (every discordant pair
// in the same direction) needs more than n pairs. It panics on invalid
// arguments.
func MDEPaired(psi float64, n int, alpha, power float64) float64 {
	CheckAlphaPower("stats.MDEPaired", alpha, power)
	if !(psi > 0 && psi <= 1) || n < 1 {
		panic(fmt.Sprintf("stats.MDEPaired: invalid psi=%v n=%d", psi, n))
	}
	nf := float64(n)
	ok := func(d float64) bool { return NPairedMcNemar((psi+d)/2, (psi-d)/2, alpha, power) <= nf }
	if d, found := firstCrossing(ok, psi); found {
		return d
	}
	return math.NaN()
}

// firstCrossing returns the smallest d in (0, room] with ok(d), assuming ok
// switches from false to true at most once within each 0.001 step: it scans
// a grid and bisects the first step that turns true.
func firstCrossing(ok func(float64) bool, room float64) (float64, bool) {
	if room <= 0 {
		return 0, false
	}
	const step = 1e-3
	prev := 0.0
	for {
		d := math.Min(prev+step, room)
		if ok(d) {
			lo, hi := prev, d
			for hi-lo > 1e-9 {
				mid := (lo + hi) / 2
				if ok(mid) {
					hi = mid
				} else {
					lo = mid
				}
			}
			return hi, true
		}
		if d >= room {
			return 0, false
		}
		prev = d
	}
}

// ProbZeroFailures returns (1 − pfail)^n, the probability that n independent
// attempts with failure rate pfail all pass, i.e. that a "clean 0/n" arises
// by chance with no improvement (STATS.md §5: 0.82^11 ≈ 0.113). It panics if
// pfail is outside [0, 1] or n < 0.
func ProbZeroFailures(pfail float64, n int) float64 {
	if pfail < 0 || pfail > 1 || n < 0 {
		panic(fmt.Sprintf("stats.ProbZeroFailures: invalid pfail=%v n=%d", pfail, n))
	}
	return math.Pow(1-pfail, float64(n))
}

// MinRunsZeroFailures returns the smallest n for which a clean 0/n is
// significant at level alpha against base failure rate pfail, i.e.
// ProbZeroFailures(pfail, n) ≤ alpha (one-sided exact binomial test; 16 for
// pfail = 0.18, alpha = 0.05 as STATS.md §5 says). It returns -1 when pfail
// is 0 (never significant). It panics if pfail is outside [0, 1] or alpha
// outside (0, 1).
func MinRunsZeroFailures(pfail, alpha float64) int {
	if pfail < 0 || pfail > 1 || !(alpha > 0 && alpha < 1) {
		panic(fmt.Sprintf("stats.MinRunsZeroFailures: invalid pfail=%v alpha=%v", pfail, alpha))
	}
	if pfail == 0 {
		return -1
	}
	if pfail == 1 {
		return 1
	}
	n := int(math.Ceil(math.Log(alpha) / math.Log1p(-pfail)))
	// Guard the ceiling against rounding on either side.
	for n > 1 && ProbZeroFailures(pfail, n-1) <= alpha {
		n--
	}
	for ProbZeroFailures(pfail, n) > alpha {
		n++
	}
	return max(n, 1)
}
