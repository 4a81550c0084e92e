package stats

// The primary paired comparison of STATS.md §2: per-task differences, a t
// interval (task- or cluster-robust), and the exact sign-flip test.

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Defaults of the sign-flip permutation test for differences off any lattice
// (STATS.md §2: all 2^G flips when G ≤ 20, else 100,000 seeded random
// flips). Per-task means of 0/1 outcomes are always on a lattice, where
// SignFlip is exact at any G by convolution and these do not apply.
const (
	// DefaultSignFlipMaxExact is the largest number of non-zero task
	// differences enumerated exactly.
	DefaultSignFlipMaxExact = 20
	// DefaultSignFlipSamples is the number of random flips beyond that.
	DefaultSignFlipSamples = 100000
	// DefaultSignFlipSeed is the seed PairedDiff passes to SignFlip, so that
	// reports are reproducible.
	DefaultSignFlipSeed uint64 = 1
	// signFlipExactCap bounds maxExact so that one call stays well under a
	// second (2^24 subsets).
	signFlipExactCap = 24
)

// Pair is one matched attempt pair: the same task and rep (hence the same
// seed) run under baseline A and variant B. A and B are true when that arm's
// attempt passed. Attempts lost to infra errors must be dropped (both arms of
// the pair) before calling PairedDiff.
type Pair struct {
	// Task identifies the task; it is the unit of analysis.
	Task string
	// Cluster optionally groups tasks more coarsely (e.g. the site in
	// WebVoyager). Empty means the task is its own cluster. Every pair of a
	// task must carry the same Cluster.
	Cluster string
	// Rep is the repetition index; (Task, Rep) must be unique.
	Rep int
	// A and B are the pass/fail outcomes of the baseline and the variant.
	A, B bool
}

// TIntervalMinInformative is the number of informative units (tasks with
// d_t ≠ 0, or clusters with a non-zero sum when clustered) from which the
// interval of Δ is the t interval; below it (or when the t interval is
// undefined) it is the adjusted interval (AdjustedInterval).
// Chosen by simulation (validity_test.go, TestStudyCoverage): in the issue-11
// grid the t interval's coverage conditional on 6–11 informative tasks fell
// to 0.09–0.8 in several settings, while the rule "t from 12, adjusted
// below" kept the unconditional coverage ≥ 0.936 in every setting.
const TIntervalMinInformative = 12

// Interval methods (PairedResult.CIMethod).
const (
	// CIMethodT: Δ ± t_{0.975,DF}·SE (task- or cluster-robust SE).
	CIMethodT = "t"
	// CIMethodAdjusted: the Laplace-adjusted Wald interval over tasks, or
	// over clusters when clustered (AdjustedInterval).
	CIMethodAdjusted = "adjusted"
	// CIMethodNone: no interval can be estimated (fewer than 2 tasks): [−1, 1].
	CIMethodNone = "none"
)

// PairedResult is the primary comparison of variant B with baseline A.
// It never contains NaN or Inf, so it can be JSON-encoded as is.
type PairedResult struct {
	// Delta is the mean over tasks of d_t = mean over reps of (B − A), in
	// [−1, 1]: each task weighs the same whatever its number of reps.
	Delta float64 `json:"delta"`
	// SE is s_d/√G, or the cluster-robust SE of the mean of the d_t
	// (ClusteredSE) when Clustered; 0 when undefined (G < 2) or when the
	// differences have no spread.
	SE float64 `json:"se"`
	// CI is the 95% interval of Δ, clamped to [−1, 1], by CIMethod: the t
	// interval Delta ± t_{0.975,DF}·SE when at least TIntervalMinInformative
	// units moved (MovedUnits) and SE > 0; else AdjustedInterval over the
	// d_t, or when Clustered AdjustedIntervalClustered over the clusters'
	// means weighted by their sizes; [−1, 1] with one task. It is never a point unless Δ is ±1 exactly.
	CI [2]float64 `json:"ci"`
	// CIMethod is CIMethodT, CIMethodAdjusted or CIMethodNone.
	CIMethod string `json:"ci_method"`
	// P is the primary two-sided p-value (p_paired): the exact sign-flip
	// (randomization) p of Σ d_t over the randomization units — the tasks,
	// or the clusters when Clustered (SignFlip on the cluster sums). It is
	// exact at every size: no t approximation. 1 with no tasks.
	P float64 `json:"p_paired"`
	// DF is the degrees of freedom of SE (and of the t interval when
	// CIMethod is CIMethodT): G−1, or C−1 when Clustered; 0 with one task.
	DF int `json:"df"`
	// G is the number of tasks with at least one pair.
	G int `json:"tasks"`
	// C is the number of clusters the SE is computed over (equal to G unless
	// Clustered).
	C int `json:"clusters"`
	// Clustered reports whether the SE, DF and P use Pair.Cluster (true only
	// when there are at least 2 clusters and fewer clusters than tasks).
	Clustered bool `json:"clustered"`
	// Informative is the number of tasks where the arms differ in at least
	// one rep; the other tasks carry no information on Δ.
	Informative int `json:"informative_tasks"`
	// Moved is the number of tasks with d_t ≠ 0 (Informative minus the
	// tasks whose rescues and breaks cancel).
	Moved int `json:"moved_tasks"`
	// Pairs is the number of matched pairs; Rescued (A fail, B pass) and
	// Broke (A pass, B fail) are the discordant pairs pooled over reps, the
	// b and c of McNemarExact.
	Pairs   int `json:"pairs"`
	Rescued int `json:"rescued"`
	Broke   int `json:"broke"`
	// RepsMin and RepsMax are the fewest and most pairs of one task.
	RepsMin int `json:"reps_min"`
	RepsMax int `json:"reps_max"`
	// PPerm is the two-sided sign-flip p over tasks (p_perm, see SignFlip)
	// and PermFloor the smallest value it could take, 2/2^G' with G' = Moved
	// (capped at 1). PPerm equals P unless Clustered.
	PPerm     float64 `json:"p_perm"`
	PermFloor float64 `json:"p_perm_floor"`
	// MovedUnits is the number of units P flips that moved: Moved, or when
	// Clustered the clusters whose sum of differences is not 0; PFloor is
	// the smallest value P could take, 2/2^MovedUnits (capped at 1).
	MovedUnits int     `json:"moved_units"`
	PFloor     float64 `json:"p_floor"`
	// Chi2Clustered is the cluster-adjusted McNemar statistic of Durkalski et
	// al. 2003 (Stat Med 22:2417) with tasks as clusters,
	// (Σ_t d_t)² / Σ_t d_t² (as clust.bin.pair's durkalski.test computes it
	// from per-cluster (b_k − c_k)/n_k); 0 when no task moved. Its exact
	// conditional p-value is PPerm: given |d_t|, the signs are fair coins
	// under the null, so the statistic's reference distribution is the
	// sign-flip one (the χ²₁ approximation is anti-conservative with few
	// informative tasks: 4 tasks moved alike give χ² = 4, p 0.046, exact 0.125).
	Chi2Clustered float64 `json:"mcnemar_clustered_chi2"`
	// Method is "signflip" (the exact sign-flip p) or "none" (no pairs).
	Method string `json:"method"`
	// Reasons says, in order, why the interval or the test is not the t
	// interval and sign-flip test over tasks (PairedReason); empty when it is.
	// The reports word them.
	Reasons []PairedReason `json:"reasons,omitempty"`
}

// PairedReason is one reason PairedDiff departs from the t interval and the
// sign-flip test over tasks (PairedResult.Reasons).
type PairedReason string

// The reasons of PairedResult.Reasons, in the order PairedDiff gives them:
// ReasonNoPairs or ReasonOneTask alone; else ReasonOneCluster or
// ReasonClusterFlip (at most one), then ReasonFewMoved or ReasonNoSpread
// when CIMethod is CIMethodAdjusted.
const (
	// ReasonNoPairs: there are no matched pairs (Method "none").
	ReasonNoPairs PairedReason = "no_pairs"
	// ReasonOneTask: one task only, so variation across tasks cannot be
	// estimated and CI is [−1, 1] (CIMethodNone).
	ReasonOneTask PairedReason = "one_task"
	// ReasonOneCluster: every task carries the same non-empty cluster, so SE
	// and P are over tasks instead.
	ReasonOneCluster PairedReason = "one_cluster"
	// ReasonClusterFlip: Clustered, so P flips the signs of the C clusters'
	// sums of d_t.
	ReasonClusterFlip PairedReason = "cluster_flip"
	// ReasonFewMoved: CI is the adjusted interval (CIMethodAdjusted) because
	// fewer than TIntervalMinInformative units moved (MovedUnits: Moved of G
	// tasks, or of C clusters when Clustered).
	ReasonFewMoved PairedReason = "few_moved"
	// ReasonNoSpread: CI is the adjusted interval because SE is 0 (the d_t
	// have no spread; with Clustered, the cluster means are identical).
	ReasonNoSpread PairedReason = "no_spread"
)

// PairedDiff computes the primary paired comparison of STATS.md §2. For each
// task t, d_t is the mean over its reps of (B − A) (pass = 1); Δ is the mean
// of the d_t over the G tasks. Then:
//
//   - P: the exact sign-flip test of Σ d_t (Fisher 1935; the paired
//     randomization test, equivalent to the permutation t test since Σ d_t²
//     is invariant under flips) over tasks, or over clusters when tasks are
//     grouped into C clusters with 2 ≤ C < G. Under the null that the arms
//     are exchangeable within each task, it is exact conditionally on the
//     |d_t| and hence on the number of informative tasks. It replaces the t
//     approximation, which validity_test.go's TestStudyTThreshold shows
//     rejecting A/A runs at 0.06–0.14 conditionally on 4–29 informative
//     tasks.
//   - SE = s_d/√G (DF = G−1), or the cluster-robust SE of the mean of the
//     d_t (ClusteredSE: Miller 2024, arXiv:2411.00640 eq. 4, with C/(C−1);
//     DF = C−1). A single cluster falls back to tasks (ReasonOneCluster).
//   - CI: the t interval Δ ± F_DF⁻¹(0.975)·SE when MovedUnits ≥
//     TIntervalMinInformative and SE > 0, else AdjustedInterval over the
//     d_t, or AdjustedIntervalClustered over the clusters (their means,
//     weighted by their sizes).
//   - PPerm: SignFlip over the task d_t; Chi2Clustered: Durkalski's statistic.
//
// With no pairs: Method "none", Delta 0, CI [−1, 1], P = PPerm = 1. With one
// task: CI [−1, 1] (CIMethodNone), P = PPerm. It returns an error if a (Task,
// Rep) appears twice or a task carries two different clusters.
func PairedDiff(pairs []Pair) (PairedResult, error) {
	res, d, cl, err := PerTask(pairs)
	if err != nil {
		return PairedResult{}, err
	}
	g := len(d)
	res.G, res.C = g, g
	res.PPerm, res.PermFloor = SignFlip(d, DefaultSignFlipMaxExact, DefaultSignFlipSamples, DefaultSignFlipSeed)
	res.P = res.PPerm
	res.Method = "signflip"
	if g == 0 {
		res.Method, res.CIMethod = "none", CIMethodNone
		res.CI = [2]float64{-1, 1}
		res.Reasons = []PairedReason{ReasonNoPairs}
		return res, nil
	}
	sum, sum2 := 0.0, 0.0
	for _, v := range d {
		sum += v
		sum2 += v * v
		if v != 0 {
			res.Moved++
		}
	}
	res.Delta = sum / float64(g)
	res.MovedUnits, res.PFloor = res.Moved, res.PermFloor
	if sum2 > 0 {
		res.Chi2Clustered = sum * sum / sum2
	}
	if g == 1 {
		res.CIMethod = CIMethodNone
		res.CI = [2]float64{-1, 1}
		res.Reasons = []PairedReason{ReasonOneTask}
		return res, nil
	}
	if pairedSE(&res, d, cl) {
		res.Reasons = append(res.Reasons, ReasonOneCluster)
	}
	adjusted := func() [2]float64 { return AdjustedInterval(d, Z95) }
	if res.Clustered {
		sums, sizes := clusterSums(d, cl)
		res.P, res.PFloor = SignFlip(sums, DefaultSignFlipMaxExact, DefaultSignFlipSamples, DefaultSignFlipSeed)
		res.MovedUnits = len(sums) - countZero(sums)
		res.Reasons = append(res.Reasons, ReasonClusterFlip)
		adjusted = func() [2]float64 { return AdjustedIntervalClustered(sums, sizes, Z95) }
	}
	if res.MovedUnits >= TIntervalMinInformative && res.SE > 1e-12 {
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(res.DF)}
		q := t.Quantile(0.975)
		res.CIMethod = CIMethodT
		res.CI = [2]float64{math.Max(-1, res.Delta-q*res.SE), math.Min(1, res.Delta+q*res.SE)}
	} else {
		res.CIMethod = CIMethodAdjusted
		res.CI = adjusted()
		why := ReasonFewMoved
		if res.SE <= 1e-12 {
			res.SE, why = 0, ReasonNoSpread
		}
		res.Reasons = append(res.Reasons, why)
	}
	return res, nil
}

// UseClusters is the rule for the unit of a paired test over g tasks in nc clusters: the clusters when
// 2 ≤ nc < g (tasks share clusters, and there are at least two), else the tasks — one cluster leaves nothing to
// compare across, and clusters of one task each are the tasks.
func UseClusters(nc, g int) bool { return nc >= 2 && nc < g }

// pairedSE fills res.SE, DF, C and Clustered from the task differences d and
// their clusters cl, and reports whether all tasks are in one cluster (the
// SE then falls back to tasks: ReasonOneCluster).
func pairedSE(res *PairedResult, d []float64, cl []string) (oneCluster bool) {
	g := len(d)
	nc := len(slices.Compact(slices.Sorted(slices.Values(cl))))
	if UseClusters(nc, g) {
		res.SE, res.DF, res.C, res.Clustered = ClusteredSE(d, cl), nc-1, nc, true
		return false
	}
	ss := 0.0
	for _, v := range d {
		ss += (v - res.Delta) * (v - res.Delta)
	}
	res.SE, res.DF = math.Sqrt(ss/float64(g-1))/math.Sqrt(float64(g)), g-1
	return nc == 1
}

// AdjustedIntervalClustered is AdjustedInterval over clusters of unequal sizes: cluster c of n_c tasks with
// the sum s_c of its d_t is one unit at its mean x_c = s_c/n_c ∈ [−1, 1] with weight w_c = n_c·C/G (C clusters,
// G = Σn_c tasks; the weights average 1, and Σw_c·x_c/C = Δ, the mean over tasks). One pseudo-unit of weight 1
// at +1 and one at −1 are added; with n = C + 2 the point is m = Σw·x/n over all units and the half-width
// z·√(Σw²(x − m)²)/n, the linearised (ratio-estimator) variance of a weighted mean of cluster means (Cochran
// 1977, Sampling Techniques, §6.3), clamped to [−1, 1]. With equal sizes every w_c is 1 and this is exactly
// AdjustedInterval over the cluster means. Why not the sums scaled by C/G as plain units: with unequal sizes
// they leave [−1, 1] (a family of 6 tasks that all moved, among 3 families of 8 tasks, weighs −2.25, beyond the
// pseudo-units' bounds), and a large family's weight enters the variance as spread. Sizes must be
// positive and as many as sums; with no clusters it returns [−1, 1].
func AdjustedIntervalClustered(sums []float64, sizes []int, z float64) [2]float64 {
	if len(sums) == 0 {
		return [2]float64{-1, 1}
	}
	g := 0
	for _, k := range sizes {
		g += k
	}
	c := float64(len(sums))
	x, w := make([]float64, 0, len(sums)+2), make([]float64, 0, len(sums)+2)
	for i, s := range sums {
		x = append(x, s/float64(sizes[i]))
		w = append(w, float64(sizes[i])*c/float64(g))
	}
	x, w = append(x, 1, -1), append(w, 1, 1)
	n := c + 2
	m := 0.0
	for i := range x {
		m += w[i] * x[i]
	}
	m /= n
	v := 0.0
	for i := range x {
		v += w[i] * w[i] * (x[i] - m) * (x[i] - m)
	}
	half := z * math.Sqrt(v) / n
	return [2]float64{math.Max(-1, m-half), math.Min(1, m+half)}
}

// countZero returns how many of v are 0.
func countZero(v []float64) int {
	n := 0
	for _, x := range v {
		if x == 0 {
			n++
		}
	}
	return n
}

// clusterSums returns the sum of the d_t of each cluster and its number of tasks (in sorted cluster order): the
// units a clustered sign-flip test flips, and their sizes.
func clusterSums(d []float64, cl []string) (sums []float64, sizes []int) {
	sum, size := map[string]float64{}, map[string]int{}
	for i, v := range d {
		sum[cl[i]] += v
		size[cl[i]]++
	}
	for _, k := range slices.Sorted(maps.Keys(sum)) {
		sums, sizes = append(sums, sum[k]), append(sizes, size[k])
	}
	return sums, sizes
}

// AdjustedInterval returns the Laplace-adjusted Wald interval for the mean of
// the per-task differences d ∈ [−1, 1]: one pseudo-task at +1 and one at −1
// are added, and with n = G + 2, m = Σd/n and v = (Σd² + 2)/n − m²,
//
//	m ± z·√(v/n), clamped to [−1, 1].
//
// With one rep per task (d ∈ {−1, 0, 1}) this is exactly the interval of
// Bonett & Price 2012 ("Adjusted Wald confidence interval for a difference of
// binomial proportions based on paired data", J Educ Behav Stat 37:479), the
// Wald interval after adding 1 to each discordant cell, which Fagerland,
// Lydersen & Laake 2014 (Stat Med 33:2850) recommend for paired proportions;
// with R reps the pseudo-tasks stay at the bounds ±1 of d_t (pseudo-values at
// ±1/R under-cover: 0.82 at G = 6, R = 5 in TestStudyCoverage). Unlike a
// t, bootstrap or sign-flip-inversion interval it is never a point when the
// differences have no spread: all d_t = 0 on 6 tasks gives ±0.49. With no
// tasks it returns [−1, 1].
func AdjustedInterval(d []float64, z float64) [2]float64 {
	if len(d) == 0 {
		return [2]float64{-1, 1}
	}
	n := float64(len(d) + 2)
	s, s2 := 0.0, 2.0
	for _, v := range d {
		s += v
		s2 += v * v
	}
	m := s / n
	half := z * math.Sqrt(math.Max(0, s2/n-m*m)/n)
	return [2]float64{math.Max(-1, m-half), math.Min(1, m+half)}
}

// SignFlip returns the two-sided sign-flip (randomization) p-value for the
// mean of the paired differences d being 0, and the smallest p-value the
// exact test could give. Under the null that the arm labels are exchangeable
// within each unit, each d_t is equally likely to have either sign; p is the
// fraction of the 2^G sign assignments whose |Σ ± d_t| is at least the
// observed |Σ d_t| (Fisher 1935, "The Design of Experiments"; the paired
// randomization test; R: exactRankTests::perm.test(d, paired = TRUE) for
// integer scores), ties counted with a relative tolerance of 1e-9.
//
// Zero differences are invariant under flipping and do not change p, so the
// computation runs over the G' non-zero entries only. When the d_t lie on a
// lattice k_t/L (always the case for per-task means of 0/1 outcomes: L the
// least common multiple of the reps, here ≤ signFlipMaxDenominator) the
// distribution of Σ ± k_t is convolved exactly in O(G'·Σ|k_t|) (the shift
// algorithm of Streitberg & Röhmel 1986, Statistical Software Newsletter
// 12:10), at any G'. Otherwise it enumerates all 2^G' flips when G' ≤
// maxExact (≤ 0 means DefaultSignFlipMaxExact; capped at 24), else draws
// `samples` random flips (≤ 0 means DefaultSignFlipSamples) from a PCG
// generator seeded with seed, giving the Monte Carlo p-value
// (1 + #{as extreme})/(samples + 1) (Phipson & Smyth 2010, SAGMB 9:39), which
// is never 0. floor = min(1, 2/2^G') is the exact test's smallest attainable
// p (the observed signs and their mirror image always count): with G' = 4
// informative tasks no result can be significant below 0.125. With no
// non-zero difference p = floor = 1.
func SignFlip(d []float64, maxExact int, samples int, seed uint64) (p float64, floor float64) {
	nz := make([]float64, 0, len(d))
	scale := 0.0
	obs := 0.0
	for _, v := range d {
		if v != 0 {
			nz = append(nz, v)
			scale += math.Abs(v)
			obs += v
		}
	}
	g := len(nz)
	floor = math.Min(1, math.Ldexp(2, -g))
	if g == 0 {
		return 1, 1
	}
	if k, ok := onLattice(nz); ok {
		return signFlipLattice(k), floor
	}
	thr := math.Abs(obs) - 1e-9*scale
	if maxExact <= 0 {
		maxExact = DefaultSignFlipMaxExact
	}
	maxExact = min(maxExact, signFlipExactCap)
	if samples <= 0 {
		samples = DefaultSignFlipSamples
	}
	if g <= maxExact {
		return signFlipEnumerate(nz, thr), floor
	}
	return signFlipMonteCarlo(nz, thr, samples, seed), floor
}

// Bounds of SignFlip's exact lattice convolution.
const (
	// signFlipMaxDenominator is the largest common denominator L tried.
	signFlipMaxDenominator = 5040
	// signFlipMaxWork bounds G'·Σ|k_t|, the convolution's cost.
	signFlipMaxWork = 50_000_000
)

// onLattice returns integers k with v_i = k_i/L for a common denominator
// L ≤ signFlipMaxDenominator (within 1e-9), when the convolution over them
// stays within signFlipMaxWork.
func onLattice(v []float64) ([]int, bool) {
	l := 1
	for _, x := range v {
		q := 1
		for ; q <= signFlipMaxDenominator; q++ {
			if y := x * float64(q); math.Abs(y-math.Round(y)) <= 1e-9*float64(q) {
				break
			}
		}
		if q > signFlipMaxDenominator {
			return nil, false
		}
		l = l / gcd(l, q) * q
		if l > signFlipMaxDenominator {
			return nil, false
		}
	}
	k := make([]int, len(v))
	total := 0
	for i, x := range v {
		k[i] = int(math.Round(x * float64(l)))
		total += max(k[i], -k[i])
	}
	if total*len(v) > signFlipMaxWork {
		return nil, false
	}
	return k, true
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// signFlipLattice returns P(|Σ ± k_i| ≥ |Σ k_i|) under fair independent
// signs, by convolving the two-point distributions of ±|k_i| exactly.
func signFlipLattice(k []int) float64 {
	total, obs := 0, 0
	for _, x := range k {
		total += max(x, -x)
		obs += x
	}
	obs = max(obs, -obs)
	cur, next := make([]float64, 2*total+1), make([]float64, 2*total+1)
	cur[total] = 1
	reach := 0
	for _, x := range k {
		a := max(x, -x)
		clear(next[total-reach-a : total+reach+a+1])
		for s := total - reach; s <= total+reach; s++ {
			if q := cur[s]; q != 0 {
				next[s-a] += q / 2
				next[s+a] += q / 2
			}
		}
		reach += a
		cur, next = next, cur
	}
	p := 0.0
	for s := obs; s <= total; s++ {
		p += cur[total+s]
		if s != 0 {
			p += cur[total-s]
		}
	}
	return math.Min(1, p)
}

// signFlipEnumerate counts the sign assignments of nz with |sum| ≥ thr.
func signFlipEnumerate(nz []float64, thr float64) float64 {
	// Enumerate half the subsets: flipping every sign maps a subset to its
	// complement with the same |sum|, so fix the sign of the last entry.
	half := uint64(1) << (len(nz) - 1)
	var count uint64
	for mask := uint64(0); mask < half; mask++ {
		s := 0.0
		for i, v := range nz {
			if mask&(1<<i) != 0 {
				s -= v
			} else {
				s += v
			}
		}
		if math.Abs(s) >= thr {
			count++
		}
	}
	return float64(count) / float64(half)
}

// signFlipMonteCarlo is the Monte Carlo sign-flip p over `samples` seeded
// random flips.
func signFlipMonteCarlo(nz []float64, thr float64, samples int, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	count := signFlipCount(rng, nz, samples, thr)
	return float64(1+count) / float64(samples+1)
}

// PerTask checks pairs and returns, per task in sorted order, the mean
// paired difference d (B − A over its reps) and its cluster cl (the task
// itself when it has none), with Pairs, Rescued, Broke, Informative, RepsMin
// and RepsMax of the result filled in.
func PerTask(pairs []Pair) (PairedResult, []float64, []string, error) {
	type acc struct {
		sum     float64
		n       int
		differs bool
		cluster string
	}
	tasks := map[string]*acc{}
	seen := map[string]map[int]bool{}
	var res PairedResult
	for _, p := range pairs {
		if seen[p.Task] == nil {
			seen[p.Task] = map[int]bool{}
		}
		if seen[p.Task][p.Rep] {
			return PairedResult{}, nil, nil, fmt.Errorf("stats.PairedDiff: duplicate pair for task %q rep %d", p.Task, p.Rep)
		}
		seen[p.Task][p.Rep] = true
		a := tasks[p.Task]
		if a == nil {
			a = &acc{cluster: p.Cluster}
			tasks[p.Task] = a
		} else if a.cluster != p.Cluster {
			return PairedResult{}, nil, nil, fmt.Errorf("stats.PairedDiff: task %q has clusters %q and %q", p.Task, a.cluster, p.Cluster)
		}
		res.Pairs++
		switch {
		case p.B && !p.A:
			a.sum++
			a.differs = true
			res.Rescued++
		case p.A && !p.B:
			a.sum--
			a.differs = true
			res.Broke++
		}
		a.n++
	}

	// Deterministic task order (map iteration is random; sums must not be).
	names := slices.Sorted(maps.Keys(tasks))
	d := make([]float64, len(names))
	cl := make([]string, len(names))
	for i, name := range names {
		a := tasks[name]
		d[i] = a.sum / float64(a.n)
		cl[i] = a.cluster
		if cl[i] == "" {
			cl[i] = "\x00task:" + name
		}
		if a.differs {
			res.Informative++
		}
		if i == 0 || a.n < res.RepsMin {
			res.RepsMin = a.n
		}
		res.RepsMax = max(res.RepsMax, a.n)
	}
	return res, d, cl, nil
}
