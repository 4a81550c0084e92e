package ablation

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

// Defaults of the sign-flip permutation test (STATS.md §2: all 2^G flips when
// G ≤ 20, else 100,000 seeded random flips).
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

// PairedResult is the primary comparison of variant B with baseline A.
// It never contains NaN or Inf, so it can be JSON-encoded as is.
type PairedResult struct {
	// Delta is the mean over tasks of d_t = mean over reps of (B − A), in
	// [−1, 1]: each task weighs the same whatever its number of reps.
	Delta float64 `json:"delta"`
	// SE is s_d/√G, or the cluster-robust SE of the mean of the d_t
	// (ClusteredSE) when Clustered. It is 0 when undefined (G < 2) or when
	// the differences have no spread; see Method and Note.
	SE float64 `json:"se"`
	// CI is the 95% interval Delta ± t_{0.975,DF}·SE, clamped to [−1, 1].
	// When the t interval is undefined (G < 2) it is [−1, 1]; when the
	// differences have zero spread it is the degenerate [Delta, Delta].
	CI [2]float64 `json:"ci"`
	// P is the primary two-sided p-value (p_paired): from Student's t on DF
	// degrees of freedom when Method is "t", otherwise the exact sign-flip
	// p-value PPerm (Method "signflip"). It is 1 with no tasks.
	P float64 `json:"p_paired"`
	// DF is G−1, or C−1 when Clustered; 0 when the t test is not used.
	DF int `json:"df"`
	// G is the number of tasks with at least one pair.
	G int `json:"tasks"`
	// C is the number of clusters the SE is computed over (equal to G unless
	// Clustered).
	C int `json:"clusters"`
	// Clustered reports whether the SE and DF use Pair.Cluster (true only
	// when there are at least 2 clusters and fewer clusters than tasks).
	Clustered bool `json:"clustered"`
	// Informative is the number of tasks where the arms differ in at least
	// one rep; the other tasks carry no information on Δ.
	Informative int `json:"informative_tasks"`
	// Pairs is the number of matched pairs; Rescued (A fail, B pass) and
	// Broke (A pass, B fail) are the discordant pairs pooled over reps, the
	// b and c of McNemarExact.
	Pairs   int `json:"pairs"`
	Rescued int `json:"rescued"`
	Broke   int `json:"broke"`
	// PPerm is the two-sided sign-flip permutation p-value over tasks
	// (p_perm, see SignFlip) and PermFloor the smallest value it could take,
	// 2/2^G' with G' the number of tasks with d_t ≠ 0 (capped at 1).
	PPerm     float64 `json:"p_perm"`
	PermFloor float64 `json:"p_perm_floor"`
	// Method is "t" (Student's t), "signflip" (t undefined: one task or zero
	// spread) or "none" (no pairs).
	Method string `json:"method"`
	// Note explains in plain words any fallback taken; empty when Method is
	// "t" and no fallback occurred.
	Note string `json:"note,omitempty"`
}

// PairedDiff computes the primary paired comparison of STATS.md §2. For each
// task t, d_t is the mean over its reps of (B − A) (pass = 1); Δ is the mean
// of the d_t over the G tasks. Then:
//
//   - SE = s_d/√G with s_d the sample standard deviation of the d_t, DF = G−1;
//     or, when tasks are grouped into C clusters with 2 ≤ C < G, the
//     cluster-robust SE of the mean of the d_t (ClusteredSE: Miller 2024,
//     arXiv:2411.00640 eq. 4, with C/(C−1)) and DF = C−1. With every task its
//     own cluster the two coincide. A single cluster falls back to tasks (Note).
//   - t = Δ/SE; P = 2·(1 − F_DF(|t|)) and CI = Δ ± F_DF⁻¹(0.975)·SE, F_DF the
//     Student's t CDF (the paired t test on per-task means).
//   - PPerm: SignFlip over the d_t with the package defaults and
//     DefaultSignFlipSeed.
//
// Edge cases, chosen so the result is always defined: with no pairs, Method
// "none", Delta 0, CI [−1, 1], P = PPerm = 1. With one task the t test has 0
// df: CI [−1, 1], SE 0, P = PPerm (= 1). When all d_t are equal (or the
// clustered SE is 0) the t statistic is undefined (0/0 if Δ = 0, ∞ if not);
// P is then the exact sign-flip p, which is 1 if Δ = 0 and 2/2^G if every
// task moved the same way, SE is 0 and CI the degenerate [Δ, Δ], flagged in
// Note. It returns an error if a (Task, Rep) appears twice or a task carries
// two different clusters.
func PairedDiff(pairs []Pair) (PairedResult, error) { return pairedDiff(pairs, true) }

// pairedDiff is PairedDiff; with perm false it skips the sign-flip p_perm
// column (PPerm, PermFloor stay 0) unless P itself is the sign-flip p, so
// the power simulation (power.go) runs the primary test as PairedDiff does
// at a fraction of the cost.
func pairedDiff(pairs []Pair, perm bool) (PairedResult, error) {
	res, d, cl, err := perTask(pairs)
	if err != nil {
		return PairedResult{}, err
	}
	signFlip := func() {
		if res.PermFloor == 0 {
			res.PPerm, res.PermFloor = SignFlip(d, DefaultSignFlipMaxExact, DefaultSignFlipSamples, DefaultSignFlipSeed)
		}
	}
	clusterSet := map[string]bool{}
	for _, c := range cl {
		clusterSet[c] = true
	}
	g := len(d)
	res.G = g
	res.C = g
	if perm {
		signFlip()
	}

	if g == 0 {
		res.Method = "none"
		res.CI = [2]float64{-1, 1}
		res.P = 1
		res.Note = "no matched pairs"
		return res, nil
	}
	mean := 0.0
	for _, v := range d {
		mean += v
	}
	mean /= float64(g)
	res.Delta = mean
	if g == 1 {
		res.Method = "signflip"
		res.CI = [2]float64{-1, 1}
		signFlip()
		res.P = res.PPerm
		res.Note = "one task only: the t test has 0 degrees of freedom; no interval"
		return res, nil
	}

	allEqual := true
	for _, v := range d[1:] {
		if v != d[0] {
			allEqual = false
			break
		}
	}
	nc := len(clusterSet)
	var se float64
	df := g - 1
	note := ""
	switch {
	case nc >= 2 && nc < g:
		se = ClusteredSE(d, cl)
		df = nc - 1
		res.C = nc
		res.Clustered = true
	default:
		if nc == 1 && g > 1 {
			note = "all tasks are in one cluster: SE over tasks instead; "
		}
		ss := 0.0
		for _, v := range d {
			ss += (v - mean) * (v - mean)
		}
		se = math.Sqrt(ss/float64(g-1)) / math.Sqrt(float64(g))
	}

	if allEqual || se <= 1e-12 {
		res.Method = "signflip"
		res.SE = 0
		res.CI = [2]float64{mean, mean}
		signFlip()
		res.P = res.PPerm
		res.DF = 0
		if allEqual {
			note += fmt.Sprintf("every task has the same difference (%.3g): the t test is undefined, p is the exact sign-flip p and the interval is degenerate", d[0])
		} else {
			note += "cluster means are identical (clustered SE = 0): the t test is undefined, p is the exact sign-flip p and the interval is degenerate"
		}
		res.Note = note
		return res, nil
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}
	q := t.Quantile(0.975)
	res.Method = "t"
	res.SE = se
	res.DF = df
	res.P = math.Min(1, 2*t.Survival(math.Abs(mean/se)))
	res.CI = [2]float64{math.Max(-1, mean-q*se), math.Min(1, mean+q*se)}
	if note != "" {
		res.Note = note[:len(note)-2]
	}
	return res, nil
}

// SignFlip returns the two-sided sign-flip (randomization) p-value for the
// mean of the paired differences d being 0, and the smallest p-value the
// exact test could give. Under the null that the arm labels are exchangeable
// within each task, each d_t is equally likely to have either sign; p is the
// fraction of the 2^G sign assignments whose |Σ ± d_t| is at least the
// observed |Σ d_t| (Fisher 1935, "The Design of Experiments"; the
// paired randomization test), ties counted with a relative
// tolerance of 1e-9.
//
// Zero differences are invariant under flipping and do not change p, so the
// enumeration runs over the G' non-zero entries only: exact over all 2^G'
// flips when G' ≤ maxExact (≤ 0 means DefaultSignFlipMaxExact; capped at 24),
// otherwise `samples` random flips (≤ 0 means DefaultSignFlipSamples) from a
// PCG generator seeded with seed, giving the Monte Carlo p-value
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
	thr := math.Abs(obs) - 1e-9*scale
	if maxExact <= 0 {
		maxExact = DefaultSignFlipMaxExact
	}
	maxExact = min(maxExact, signFlipExactCap)
	if samples <= 0 {
		samples = DefaultSignFlipSamples
	}
	if g <= maxExact {
		// Enumerate half the subsets: flipping every sign maps a subset to its
		// complement with the same |sum|, so fix the sign of the last entry.
		half := uint64(1) << (g - 1)
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
		return float64(count) / float64(half), floor
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	count := signFlipCount(rng, nz, samples, thr)
	return float64(1+count) / float64(samples+1), floor
}

// perTask checks pairs and returns, per task in sorted order, the mean
// paired difference d (B − A over its reps) and its cluster cl (the task
// itself when it has none), with Pairs, Rescued, Broke and Informative of
// the result filled in.
func perTask(pairs []Pair) (PairedResult, []float64, []string, error) {
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
			return PairedResult{}, nil, nil, fmt.Errorf("ablation.PairedDiff: duplicate pair for task %q rep %d", p.Task, p.Rep)
		}
		seen[p.Task][p.Rep] = true
		a := tasks[p.Task]
		if a == nil {
			a = &acc{cluster: p.Cluster}
			tasks[p.Task] = a
		} else if a.cluster != p.Cluster {
			return PairedResult{}, nil, nil, fmt.Errorf("ablation.PairedDiff: task %q has clusters %q and %q", p.Task, a.cluster, p.Cluster)
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
	}
	return res, d, cl, nil
}
