package stats

// Sequential (anytime-valid) monitoring of paired ablations: a betting
// confidence sequence for the mean per-unit difference, its anytime-valid p,
// and the per-variant stops (STATS.md "Sequential ablations").
//
// The confidence sequence is the hedged capital process of Waudby-Smith &
// Ramdas 2024, "Estimating means of bounded random variables by betting",
// JRSS-B 86:1 (arXiv 2010.09686), Theorem 3 and §5.1, with the predictable
// plug-in bets of its eq. (26), as in the `confseq` package (Howard &
// Waudby-Smith, betting_cs / lambda_predmix_eb): with X_i = (d_i + 1)/2 in
// [0, 1] and a candidate mean m,
//
//	K⁺_t(m) = Π_{i≤t} (1 + λ⁺_i(m)·(X_i − m)),  K⁻_t(m) = Π_{i≤t} (1 − λ⁻_i(m)·(X_i − m)),
//	K±_t(m) = ½K⁺_t(m) + ½K⁻_t(m),
//	λ_i = √(2·log(2/α) / (σ̂²_{i−1}·i·log(1+i))),  λ⁺_i(m) = min(λ_i, c/m),  λ⁻_i(m) = min(λ_i, c/(1−m)),
//	μ̂_i = (½ + Σ_{j≤i} X_j)/(i + 1),  σ̂²_i = (¼ + Σ_{j≤i} (X_j − μ̂_j)²)/(i + 1),  c = ½.
//
// K±(m) is a nonnegative martingale under mean m, so by Ville's inequality
// the running intersection of {m : K±_t(m) < 1/α} covers the true mean at
// every t with probability ≥ 1 − α, and 1/max_{s≤t} K±_s(m) is an
// anytime-valid p of mean m.

import (
	"fmt"
	"math"
	"sort"
)

// SeqGrid is the number of intervals of the grid of candidate means on which
// the confidence sequence is tracked: candidate differences −1, −1 + 2/SeqGrid,
// …, 1 (0 is on it). An interval end is rounded outward to the grid (at most
// 2/SeqGrid = 0.002 wider), so coverage is never lost to the grid.
const SeqGrid = 1000

// seqTrunc is c, the truncation of the bets (λ⁺ ≤ c/m, λ⁻ ≤ c/(1−m)):
// confseq's default trunc_scale.
const seqTrunc = 0.5

// SeqDesign is the design of a sequential ablation: the error rate, the
// futility margin, and the planned size.
type SeqDesign struct {
	// Alpha is the two-sided family-wise error rate across all variants
	// (e.g. 0.05), in (0, 1).
	Alpha float64
	// MinEffect is the futility margin as a fraction (0.10 = 10 points);
	// 0 disables futility.
	MinEffect float64
	// Variants is the number of variants monitored together (≥ 1): each
	// confidence sequence is at level 1 − Alpha/Variants (Bonferroni), and
	// SeqDecide adjusts the efficacy stops by Holm over the variants.
	Variants int
	// MaxUnits is the planned number of units (tasks or families) per
	// variant. The betting sequence does not need it (it is valid at any
	// number of units); planners and reports use it.
	MaxUnits int
}

// level returns the confidence sequence's error rate, Alpha/Variants.
func (d SeqDesign) level() float64 { return d.Alpha / float64(max(1, d.Variants)) }

// SeqState is one variant's monitoring state: the capital processes of every
// candidate mean on the grid, updated unit by unit in the plan's order.
type SeqState struct {
	d       SeqDesign
	n       int
	sum     float64 // Σ X_i
	ss      float64 // Σ (X_i − μ̂_i)²
	logKp   []float64
	logKm   []float64
	out     []bool  // candidate excluded at some earlier unit (running intersection)
	maxLogK float64 // max over units of log K±(½), the null "no difference"
	lambda  float64 // λ of the next unit (predictable: from units before it)
}

// NewSeq returns an empty monitoring state for design d. It panics when
// d.Alpha is outside (0, 1), d.Variants < 1 or d.MinEffect outside [0, 1).
func NewSeq(d SeqDesign) *SeqState {
	if !(d.Alpha > 0 && d.Alpha < 1) || d.Variants < 1 || !(d.MinEffect >= 0 && d.MinEffect < 1) {
		panic(fmt.Sprintf("stats.NewSeq: invalid design alpha=%v variants=%d min_effect=%v", d.Alpha, d.Variants, d.MinEffect))
	}
	s := &SeqState{d: d, logKp: make([]float64, SeqGrid+1), logKm: make([]float64, SeqGrid+1),
		out: make([]bool, SeqGrid+1)}
	s.lambda = s.nextLambda()
	return s
}

// nextLambda is λ_{n+1} of the plug-in rule from the n units seen.
func (s *SeqState) nextLambda() float64 {
	t := float64(s.n + 1)
	sigma2 := (0.25 + s.ss) / t // σ̂²_n with one fake observation
	return math.Sqrt(2 * math.Log(2/s.d.level()) / (sigma2 * t * math.Log1p(t)))
}

// Add records one unit's mean paired difference (variant − baseline), in
// [−1, 1]. It panics when diff is outside [−1, 1] or NaN.
func (s *SeqState) Add(diff float64) {
	if !(diff >= -1 && diff <= 1) {
		panic(fmt.Sprintf("stats.SeqState.Add: difference %v outside [-1, 1]", diff))
	}
	x := (diff + 1) / 2
	lam := s.lambda
	thr := math.Log(1 / s.d.level())
	alive, least, leastK := false, SeqGrid/2, math.Inf(1)
	for i := range s.logKp {
		if s.out[i] && i != SeqGrid/2 {
			continue // excluded for good: its capital is no longer needed
		}
		m := float64(i) / SeqGrid
		lp, lm := lam, lam
		if m > 0 {
			lp = math.Min(lam, seqTrunc/m)
		}
		if m < 1 {
			lm = math.Min(lam, seqTrunc/(1-m))
		}
		s.logKp[i] += math.Log1p(lp * (x - m))
		s.logKm[i] += math.Log1p(-lm * (x - m))
		k := hedged(s.logKp[i], s.logKm[i])
		if !s.out[i] && k < leastK {
			least, leastK = i, k
		}
		if k >= thr {
			s.out[i] = true
		} else if !s.out[i] {
			alive = true
		}
	}
	if !alive {
		// Every candidate excluded (a miss of the sequence, probability ≤ α):
		// keep the one of least capital, so the interval is a point.
		s.out[least] = false
	}
	s.maxLogK = math.Max(s.maxLogK, hedged(s.logKp[SeqGrid/2], s.logKm[SeqGrid/2]))
	s.n++
	s.sum += x
	mu := (0.5 + s.sum) / float64(s.n+1)
	s.ss += (x - mu) * (x - mu)
	s.lambda = s.nextLambda()
}

// hedged returns log(½e^a + ½e^b), the log of the hedged capital.
func hedged(a, b float64) float64 {
	hi, lo := math.Max(a, b), math.Min(a, b)
	return hi + math.Log1p(math.Exp(lo-hi)) - math.Ln2
}

// SeqLook is a variant's state after its latest unit.
type SeqLook struct {
	// N is the number of units added so far.
	N int
	// Mean is the mean paired difference so far (0 with no unit).
	Mean float64
	// P is the anytime-valid two-sided p of "no difference" (unadjusted):
	// 1/max_{s≤N} K±_s(0), capped at 1, non-increasing in N.
	P float64
	// Lo, Hi is the anytime-valid confidence sequence for the mean
	// difference at level 1 − Alpha/Variants (running intersection, rounded
	// outward to the grid), within [−1, 1].
	Lo, Hi float64
}

// Look returns the variant's current look.
func (s *SeqState) Look() SeqLook {
	l := SeqLook{N: s.n, P: math.Min(1, math.Exp(-s.maxLogK)), Lo: -1, Hi: 1}
	if s.n == 0 {
		return l
	}
	l.Mean = 2*s.sum/float64(s.n) - 1
	first, last := -1, -1
	for i, o := range s.out {
		if !o {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	// Outward to the excluded neighbours: the set is an interval (K± is
	// quasiconvex in m), its true ends lie between grid points.
	l.Lo = 2*float64(max(0, first-1))/SeqGrid - 1
	l.Hi = 2*float64(min(SeqGrid, last+1))/SeqGrid - 1
	return l
}

// SeqStop is a variant's sequential decision.
type SeqStop string

// Sequential decisions (SeqDecide).
const (
	// SeqUndecided: keep running the variant.
	SeqUndecided SeqStop = ""
	// SeqWorse: efficacy stop, the variant passes less often than the baseline.
	SeqWorse SeqStop = "worse"
	// SeqBetter: efficacy stop, the variant passes more often.
	SeqBetter SeqStop = "better"
	// SeqFutile: futility stop, the variant does not drop the pass rate by
	// MinEffect or more (its confidence sequence lies above −MinEffect).
	SeqFutile SeqStop = "futile"
)

// SeqDecide gives each variant's stop from its latest look (looks[i] of
// variant i), adjusted across the len(looks) variants by Holm's step-down
// over the anytime-valid p's (Holm 1979, Scand J Stat 6:65): sorted
// ascending, p_(k) is rejected while p_(j) < Alpha/(V − j + 1) for every
// j ≤ k. Holm needs only each p to be valid, which an anytime-valid p is at
// any stopping time, and a p that only falls keeps an earlier rejection,
// so decisions persist as units arrive. A rejected variant is SeqWorse or
// SeqBetter by the sign of its mean. A variant not rejected is SeqFutile
// when d.MinEffect > 0 and its confidence sequence excludes every drop of
// MinEffect or more (Lo > −MinEffect): only the worse side, since an
// ablation looks for harm; a variant that may be better by any amount is
// still futile in this sense. Otherwise SeqUndecided, as is a look with no
// unit.
func SeqDecide(d SeqDesign, looks []SeqLook) []SeqStop {
	out := make([]SeqStop, len(looks))
	idx := make([]int, len(looks))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return looks[idx[a]].P < looks[idx[b]].P })
	for k, i := range idx {
		l := looks[i]
		if l.N == 0 || !(l.P < d.Alpha/float64(len(looks)-k)) {
			break
		}
		out[i] = SeqBetter
		if l.Mean < 0 {
			out[i] = SeqWorse
		}
	}
	for i, l := range looks {
		if out[i] == SeqUndecided && l.N > 0 && d.MinEffect > 0 && l.Lo > -d.MinEffect {
			out[i] = SeqFutile
		}
	}
	return out
}
