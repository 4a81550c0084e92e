package stats

// Statistics of one arm and of unpaired two-arm comparisons (STATS.md,
// "What is computed"). Every function here is pure and deterministic.
//
// Direction convention used throughout this package: a two-arm function
// taking (k1, n1, k2, n2) treats arm 1 as the baseline A and arm 2 as the
// variant B, and any signed difference is "second minus first",
// Δ = p2 − p1 = p_B − p_A, matching PairedDiff.

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Z95 is the two-sided 95% standard-normal quantile Φ⁻¹(0.975), the z used by
// STATS.md for every 95% interval.
const Z95 = 1.959964

// Wilson returns the Wilson score interval for a binomial proportion k/n
// (Wilson 1927, "Probable inference, the law of succession, and statistical
// inference", JASA 22:209; also Newcombe 1998, Stat Med 17:857, method 3):
//
//	(p̂ + z²/2n ± z·√(p̂q̂/n + z²/4n²)) / (1 + z²/n)
//
// with z the two-sided normal quantile (Z95 for 95%). Bounds are clamped to
// [0, 1]; lo is exactly 0 when k = 0 and hi exactly 1 when k = n. With no
// observations (n = 0) the interval is the whole range [0, 1]. It panics if
// k < 0, n < 0 or k > n.
func Wilson(k, n int, z float64) (lo, hi float64) {
	if k < 0 || n < 0 || k > n {
		panic(fmt.Sprintf("stats.Wilson: invalid k=%d n=%d", k, n))
	}
	if n == 0 {
		return 0, 1
	}
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	lo, hi = center-half, center+half
	if k == 0 || lo < 0 {
		lo = 0
	}
	if k == n || hi > 1 {
		hi = 1
	}
	return lo, hi
}

// ClusteredSE returns the cluster-robust standard error of the mean of values,
// where clusters[i] names the cluster of values[i] (e.g. the task of each
// attempt, so that reps of one task are not treated as independent). Source:
// Miller 2024, "Adding Error Bars to Evals", arXiv:2411.00640, eq. 4 /
// Appendix A, with the finite-cluster correction C/(C−1) exactly as Inspect's
// stderr(cluster=...) metric applies it:
//
//	SE = √( C/(C−1) · Σ_c (Σ_{i∈c} (x_i − x̄))² ) / n
//
// where n = len(values) and C the number of distinct clusters. With every
// value in its own cluster this equals the ordinary s/√n. It returns NaN when
// the SE is undefined (n = 0 or C < 2); callers must check math.IsNaN before
// printing or JSON-encoding. It panics if the slices differ in length.
func ClusteredSE(values []float64, clusters []string) float64 {
	if len(values) != len(clusters) {
		panic(fmt.Sprintf("stats.ClusteredSE: %d values but %d clusters", len(values), len(clusters)))
	}
	n := len(values)
	if n == 0 {
		return math.NaN()
	}
	mean := 0.0
	for _, v := range values {
		mean += v
	}
	mean /= float64(n)
	resid := map[string]float64{}
	for i, v := range values {
		resid[clusters[i]] += v - mean
	}
	c := len(resid)
	if c < 2 {
		return math.NaN()
	}
	ss := 0.0
	for _, k := range slices.Sorted(maps.Keys(resid)) { // a fixed order: the same sum, bit for bit, on every run
		ss += resid[k] * resid[k]
	}
	return math.Sqrt(ss*float64(c)/float64(c-1)) / float64(n)
}

// logChoose returns ln C(n, k) for 0 ≤ k ≤ n.
func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// binomCDFHalf returns P(X ≤ k) for X ~ Binomial(n, ½), summed exactly term
// by term.
func binomCDFHalf(k, n int) float64 {
	if k < 0 {
		return 0
	}
	if k >= n {
		return 1
	}
	s := 0.0
	ln2n := float64(n) * math.Ln2
	for i := 0; i <= k; i++ {
		s += math.Exp(logChoose(n, i) - ln2n)
	}
	return math.Min(s, 1)
}

// McNemarExact returns the two-sided exact McNemar p-value for b discordant
// pairs of one kind (A fail / B pass, "rescued") and c of the other (A pass /
// B fail, "broke"): p = min(1, 2·BinomCDF(min(b,c); b+c, ½)) (McNemar 1947;
// the exact conditional binomial form, STATS.md §2). With no discordant pairs
// (b + c = 0) it returns 1. It panics on negative counts.
func McNemarExact(b, c int) float64 {
	if b < 0 || c < 0 {
		panic(fmt.Sprintf("stats.McNemarExact: negative count b=%d c=%d", b, c))
	}
	if b+c == 0 {
		return 1
	}
	return math.Min(1, 2*binomCDFHalf(min(b, c), b+c))
}

// fisherTol is the relative tolerance R's fisher.test uses (1 + 1e-7) when
// deciding which tables are "no more likely" than the observed one, so that
// tables equally likely up to rounding are counted.
const fisherTol = 1e-7

// hyperPMF returns the hypergeometric probabilities P(X = x) of the number of
// successes X in arm 1 of a 2×2 table with row totals n1, n2 and K successes
// in all, for x = lo..hi, together with lo.
func hyperPMF(n1, n2, kTot int) (probs []float64, lo int) {
	lo = max(0, kTot-n2)
	hi := min(kTot, n1)
	lden := logChoose(n1+n2, kTot)
	probs = make([]float64, hi-lo+1)
	for x := lo; x <= hi; x++ {
		probs[x-lo] = math.Exp(logChoose(n1, x) + logChoose(n2, kTot-x) - lden)
	}
	return probs, lo
}

func checkArms(name string, k1, n1, k2, n2 int) {
	if k1 < 0 || n1 < 0 || k1 > n1 || k2 < 0 || n2 < 0 || k2 > n2 {
		panic(fmt.Sprintf("stats.%s: invalid arms %d/%d, %d/%d", name, k1, n1, k2, n2))
	}
}

// FisherExact returns the two-sided Fisher exact test p-value for k1 successes
// of n1 in arm 1 against k2 of n2 in arm 2 (Fisher 1935; conditional on both
// margins, X = k1 is hypergeometric). Two-sided means the sum of the
// probabilities of all tables no more likely than the observed one, counting
// ties within a relative tolerance of 1e-7 as R's fisher.test does. It is the
// unpaired fallback of STATS.md §2 and is symmetric in the arms. It returns 1
// when either arm is empty or no table other than the observed is possible.
// It panics on invalid counts.
func FisherExact(k1, n1, k2, n2 int) float64 {
	checkArms("FisherExact", k1, n1, k2, n2)
	probs, lo := hyperPMF(n1, n2, k1+k2)
	obs := probs[k1-lo] * (1 + fisherTol)
	p := 0.0
	for _, q := range probs {
		if q <= obs {
			p += q
		}
	}
	return math.Min(1, p)
}

// FisherExactOneSided returns the one-sided Fisher exact p-value for the
// alternative that arm 2's success rate exceeds arm 1's (p2 > p1):
// P(X ≤ k1), X the hypergeometric number of successes in arm 1 given the
// margins (equivalently, arm 2 has at least k2). For the other direction swap
// the arms. It panics on invalid counts.
func FisherExactOneSided(k1, n1, k2, n2 int) float64 {
	checkArms("FisherExactOneSided", k1, n1, k2, n2)
	probs, lo := hyperPMF(n1, n2, k1+k2)
	p := 0.0
	for x := lo; x <= k1; x++ {
		p += probs[x-lo]
	}
	return math.Min(1, p)
}

// Newcombe returns the hybrid score interval for the difference of two
// independent proportions, Δ = p2 − p1 = k2/n2 − k1/n1 (second arm minus
// first; call it with the baseline first to get p_B − p_A). Source: Newcombe
// 1998, "Interval estimation for the difference between independent
// proportions", Stat Med 17:873, method 10, built from the Wilson intervals
// (l_i, u_i) of each arm at the same z:
//
//	lo = Δ − √((p2 − l2)² + (u1 − p1)²)
//	hi = Δ + √((u2 − p2)² + (p1 − l1)²)
//
// STATS.md's reference "Newcombe Δ for 2/11 − 0/11 = [−0.108, 0.477]" is
// Newcombe(0, 11, 2, 11, Z95). When either arm has n = 0 the difference is
// unconstrained and the result is [−1, 1]. It panics on invalid counts.
func Newcombe(k1, n1, k2, n2 int, z float64) (lo, hi float64) {
	checkArms("Newcombe", k1, n1, k2, n2)
	if n1 == 0 || n2 == 0 {
		return -1, 1
	}
	p1 := float64(k1) / float64(n1)
	p2 := float64(k2) / float64(n2)
	l1, u1 := Wilson(k1, n1, z)
	l2, u2 := Wilson(k2, n2, z)
	d := p2 - p1
	lo = d - math.Sqrt((p2-l2)*(p2-l2)+(u1-p1)*(u1-p1))
	hi = d + math.Sqrt((u2-p2)*(u2-p2)+(p1-l1)*(p1-l1))
	return math.Max(-1, lo), math.Min(1, hi)
}

// Stratum is one 2×2 table of a stratified comparison (for CMH, one task):
// K1 successes of N1 attempts in arm 1 (baseline) and K2 of N2 in arm 2.
type Stratum struct {
	K1, N1, K2, N2 int
}

// CMHResult is the outcome of a Cochran–Mantel–Haenszel test.
type CMHResult struct {
	// Chi2 is the continuity-corrected CMH statistic (1 df).
	Chi2 float64 `json:"chi2"`
	// P is its upper-tail chi-square(1) p-value; 1 when no stratum carries
	// information.
	P float64 `json:"p"`
	// OddsRatio is the Mantel–Haenszel common odds ratio estimate of
	// odds(arm 1)/odds(arm 2), Σ(a·d/T)/Σ(b·c/T) with a = K1, b = N1−K1,
	// c = K2, d = N2−K2. It is 0 or +Inf at the boundaries and 1 when both
	// sums are 0 (undefined; also flagged by Strata = 0 or P = 1).
	OddsRatio float64 `json:"odds_ratio"`
	// Strata is the number of strata used (total size T ≥ 2 and both
	// outcomes observed, i.e. non-zero hypergeometric variance).
	Strata int `json:"strata"`
}

// CMH returns the Cochran–Mantel–Haenszel test of no association between arm
// and success across strata (Mantel & Haenszel 1959, JNCI 22:719; Cochran
// 1954), with the 0.5 continuity correction applied as R's mantelhaen.test
// does (only when |Σ(a − E a)| ≥ 0.5):
//
//	E a = n1·m1/T, Var a = n1·n2·m1·m0 / (T²(T−1)),
//	χ² = (|Σ(a − E a)| − ½)² / Σ Var a  on 1 df,
//
// with a = K1, m1 = K1+K2, m0 = T−m1, T = N1+N2. Strata with zero variance
// (T < 2, or all successes or all failures) carry no information and are
// skipped. It panics on invalid counts.
func CMH(strata []Stratum) CMHResult {
	var dev, vr, orNum, orDen float64
	used := 0
	for _, s := range strata {
		checkArms("CMH", s.K1, s.N1, s.K2, s.N2)
		t := float64(s.N1 + s.N2)
		m1 := float64(s.K1 + s.K2)
		m0 := t - m1
		if t < 2 {
			continue
		}
		a, b := float64(s.K1), float64(s.N1-s.K1)
		c, d := float64(s.K2), float64(s.N2-s.K2)
		orNum += a * d / t
		orDen += b * c / t
		v := float64(s.N1) * float64(s.N2) * m1 * m0 / (t * t * (t - 1))
		if v == 0 {
			continue
		}
		used++
		dev += a - float64(s.N1)*m1/t
		vr += v
	}
	res := CMHResult{P: 1, OddsRatio: 1, Strata: used}
	switch {
	case orNum > 0 && orDen == 0:
		res.OddsRatio = math.Inf(1)
	case orDen > 0:
		res.OddsRatio = orNum / orDen
	}
	if vr == 0 {
		return res
	}
	ad := math.Abs(dev)
	if ad >= 0.5 {
		ad -= 0.5
	}
	res.Chi2 = ad * ad / vr
	res.P = distuv.ChiSquared{K: 1}.Survival(res.Chi2)
	return res
}

// Holm returns Holm's step-down adjusted p-values (Holm 1979, Scand J Stat
// 6:65), controlling the family-wise error rate: with p sorted ascending,
// adj_(i) = max_{j≤i} min(1, (m−j+1)·p_(j)). The result is in the original
// order of p, monotone in p and capped at 1; ties keep their input order. An
// empty input gives an empty result.
func Holm(p []float64) []float64 {
	m := len(p)
	idx := order(p)
	out := make([]float64, m)
	run := 0.0
	for j, i := range idx {
		v := math.Min(1, float64(m-j)*p[i])
		run = math.Max(run, v)
		out[i] = run
	}
	return out
}

// BH returns Benjamini–Hochberg step-up adjusted p-values (Benjamini &
// Hochberg 1995, JRSS B 57:289), controlling the false discovery rate: with p
// sorted ascending, adj_(i) = min_{j≥i} min(1, m/j·p_(j)), as R's
// p.adjust(method="BH"). The result is in the original order of p, monotone
// and capped at 1. An empty input gives an empty result.
func BH(p []float64) []float64 {
	m := len(p)
	idx := order(p)
	out := make([]float64, m)
	run := 1.0
	for j := m - 1; j >= 0; j-- {
		i := idx[j]
		v := math.Min(1, float64(m)/float64(j+1)*p[i])
		run = math.Min(run, v)
		out[i] = run
	}
	return out
}

// order returns the indices of p sorted by ascending value (stable).
func order(p []float64) []int {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	return idx
}
