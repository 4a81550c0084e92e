package stats

// Sequential monitoring of paired ablations (STATS.md "Sequential
// ablations"): a group-sequential design with error spending (Kim–DeMets
// α·t³ by default, chosen by analysis' TestSeqSpendingStudy) and boundaries
// computed on the observed information (gsdinfo.go), looked at after every
// unit that moved, its repeated p-values and repeated confidence intervals,
// and the per-variant stops. Chosen over betting confidence sequences by the
// simulation in sequential_study_test.go: at the fixed design's minimum
// detectable effect the betting sequences kept 0.00–0.65 power where the
// fixed sign-flip test had 0.75–0.86 (CALIBRATION.md has the chosen
// design's power against the fixed design's on the same draws).
//
// At look k (units 1 … k, differences d_i in [−1, 1]) the statistic is the
// self-normalised sum Z_k = Σd_i/√Σd_i², the normal form of the sign-flip
// statistic (Efron 1969, JASA 64:1278), whose increments are independent
// under the null of exchangeable arms. The design at level a rejects at look
// k when |Z_k| ≥ c_k(a) and, as a guard where few units have moved and the
// normal form overstates the evidence (5 moved units of one sign give
// |Z| = 2.24 against an exact p of 1/16), the exact sign-flip p of the k
// differences (SignFlip, the fixed design's test) is below a as well. The
// simulation chose this guard over none (the same A/A false stops within
// noise, at most 0.050 of 300 runs either way, and the same power) and over
// the stricter guard at the look's nominal level 2·(1 − Φ(c_k)) (power
// 0.04–0.07 below the fixed design's in four of eight settings).

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// SeqMaxLooks bounds the looks of a design with planned information
// (SeqDesign.Info > 0): a look is taken once the information has grown by
// Info/SeqMaxLooks since the previous one (and at the last unit).
const SeqMaxLooks = 200

// SeqDesign is the design of a sequential ablation: the error rate, the
// futility margin, the planned size and the spending.
type SeqDesign struct {
	// Alpha is the two-sided family-wise error rate across all variants
	// (e.g. 0.05), in (0, 1).
	Alpha float64
	// MinEffect is the futility margin as a fraction (0.10 = 10 points);
	// 0 disables futility.
	MinEffect float64
	// Variants is the number of variants monitored together (≥ 1): each
	// repeated confidence interval is at level 1 − Alpha/Variants
	// (Bonferroni), and SeqDecide adjusts the efficacy stops by Holm.
	Variants int
	// MaxUnits is the planned number of units (tasks or families) per
	// variant (≥ 1): the last unit is the last look, and no unit may be
	// added past it.
	MaxUnits int
	// Info is the planned information, the expected Σd² over the MaxUnits
	// unit differences: the spending runs on the information fraction
	// t = min(1, Σd²/Info). 0: on the share of units, t = units/MaxUnits.
	// Only the spending study sets it (analysis' SeqCalDesign.InfoScale,
	// the mean Σd² of simulated draws), to measure that scale against the
	// units' share; the shipped design leaves it 0 (STATS.md "Why not the
	// information scale"). Either way the boundaries are computed on the
	// information observed (see gsdLevel), and the last unit spends what
	// is left.
	Info float64
	// Spending is the spending function (zero: SeqDefaultSpending).
	Spending Spending
}

// Levels returns the ladder of levels whose designs every SeqState tracks,
// ascending: Alpha/j for j = 1 … Variants (Holm's thresholds), and those of
// Alpha/1000, Alpha/100, Alpha/10, 0.1, 0.2 and 0.5 outside
// [Alpha/Variants, Alpha]: the values SeqLook.P is rounded up to.
func (d SeqDesign) Levels() []float64 {
	var out []float64
	for j := 1; j <= max(1, d.Variants); j++ {
		out = append(out, d.Alpha/float64(j))
	}
	for _, l := range []float64{d.Alpha / 1000, d.Alpha / 100, d.Alpha / 10, 0.1, 0.2, 0.5} {
		if l > d.Alpha || l < d.Alpha/float64(max(1, d.Variants)) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// level returns the repeated confidence interval's error rate, Alpha/Variants.
func (d SeqDesign) level() float64 { return d.Alpha / float64(max(1, d.Variants)) }

// SeqState is one variant's monitoring state, updated unit by unit in the
// plan's order.
type SeqState struct {
	d       SeqDesign
	levels  []float64   // d.Levels()
	designs []*gsdLevel // the error-spending design of each level
	ci      []float64   // the interval's boundaries, GSDBounds(Alpha/Variants, ciLooks)
	diffs   []float64
	skipped int // units that gave no difference (Skip): they count toward MaxUnits, not the mean
	s1, s2  float64
	lastI   float64 // information Σd² at the latest look
	h       float64 // grid step of the recursion, set at the first look
	crossed int     // index into levels of the smallest level rejected so far, len(levels) if none
	lo, hi  float64
}

// NewSeq returns an empty monitoring state for design d. It panics when
// d.Alpha is outside (0, 1), d.Variants < 1, d.MaxUnits < 1, d.Info < 0,
// d.MinEffect outside [0, 1) or the spending unknown (or a power spending
// without a positive Rho).
func NewSeq(d SeqDesign) *SeqState {
	if !(d.Alpha > 0 && d.Alpha < 1) || d.Variants < 1 || d.MaxUnits < 1 || !(d.MinEffect >= 0 && d.MinEffect < 1) ||
		!(d.Info >= 0) || !d.Spending.valid() {
		panic(fmt.Sprintf("stats.NewSeq: invalid design alpha=%v variants=%d max_units=%d min_effect=%v info=%v spending=%v",
			d.Alpha, d.Variants, d.MaxUnits, d.MinEffect, d.Info, d.Spending))
	}
	s := &SeqState{d: d, levels: d.Levels(), lo: -1, hi: 1}
	s.designs = make([]*gsdLevel, len(s.levels))
	for i, a := range s.levels {
		s.designs[i] = &gsdLevel{a: a, c: gsdCap}
	}
	s.ci = GSDBounds(d.level(), d.ciLooks())
	s.crossed = len(s.levels)
	return s
}

// Clone returns an independent copy of s: adding to one leaves the other as
// it was.
func (s *SeqState) Clone() *SeqState {
	c := *s
	c.diffs = slices.Clone(s.diffs)
	c.designs = make([]*gsdLevel, len(s.designs))
	for i, g := range s.designs {
		c.designs[i] = g.clone()
	}
	return &c
}

// Add records one unit's mean paired difference (variant − baseline), in
// [−1, 1], and takes a look when the information has grown enough since the
// last one (at the last unit, whenever it has grown at all). It panics when
// diff is outside [−1, 1] or NaN, or past MaxUnits units.
func (s *SeqState) Add(diff float64) {
	if !(diff >= -1 && diff <= 1) {
		panic(fmt.Sprintf("stats.SeqState.Add: difference %v outside [-1, 1]", diff))
	}
	s.checkRoom("Add")
	s.diffs = append(s.diffs, diff)
	s.s1 += diff
	s.s2 += diff * diff
	s.interval()
	s.advance()
}

// Skip records a planned unit that gave no difference (every pair of it
// without a judged outcome on both arms): the unit count advances, the
// information and the mean do not, and at the last planned unit the final
// look still spends what is left of α, as Add's would. It panics past
// MaxUnits units.
func (s *SeqState) Skip() {
	s.checkRoom("Skip")
	s.skipped++
	s.advance()
}

// units is the number of units recorded, by Add or Skip.
func (s *SeqState) units() int { return len(s.diffs) + s.skipped }

func (s *SeqState) checkRoom(op string) {
	if s.units() >= s.d.MaxUnits {
		panic(fmt.Sprintf("stats.SeqState.%s: unit %d past the design's %d", op, s.units()+1, s.d.MaxUnits))
	}
}

// advance takes the look due after the latest unit, if any.
func (s *SeqState) advance() {
	final := s.units() == s.d.MaxUnits
	dI := s.s2 - s.lastI
	if dI <= 1e-12 {
		if final && s.h > 0 {
			// The last unit adds no information but the rest of α is still unspent: a look at the same
			// information with a lower boundary spends it on the paths still inside.
			s.look(0, true)
		}
		return
	}
	minStep := s.d.Info / SeqMaxLooks
	if s.h > 0 {
		// The grid resolves increments whose SD is at least its step: the sampled normal kernel then sums to 1
		// within exp(−2π²) ≈ 3e-9 (Poisson summation).
		minStep = math.Max(minStep, s.h*s.h)
	}
	if !final && dI < minStep*(1-1e-9) {
		return
	}
	if s.h == 0 {
		s.h = gsdGridSD * math.Sqrt(math.Max(dI, minStep))
	}
	s.look(dI, final)
}

// look takes a look after an information increment dI (0 only at the last
// unit): each level's design
// still needed (those below the smallest level rejected, and the
// interval's) spends to its target at the look's information fraction, and
// the repeated p and interval are updated.
func (s *SeqState) look(dI float64, final bool) {
	t := float64(s.units()) / float64(s.d.MaxUnits)
	if s.d.Info > 0 {
		t = s.s2 / s.d.Info
	}
	if final {
		t = 1
	}
	var kern []float64
	switch {
	case dI == 0:
		kern = []float64{1} // S does not move
	case !final || dI >= s.h*s.h:
		kern = normalKernel(math.Sqrt(dI), s.h)
	}
	for i, g := range s.designs {
		if i < s.crossed {
			g.step(s.s2, dI, s.d.Spending.spent(g.a, t), s.h, kern)
		}
	}
	s.lastI = s.s2
	z := math.Abs(s.s1) / math.Sqrt(s.s2)
	exact := math.NaN() // the sign-flip p, computed only when a boundary is crossed
	for i := s.crossed - 1; i >= 0; i-- {
		if z < s.designs[i].c {
			continue
		}
		if math.IsNaN(exact) {
			exact, _ = SignFlip(s.diffs, DefaultSignFlipMaxExact, seqSignFlipSamples, DefaultSignFlipSeed)
		}
		if exact < s.levels[i] {
			s.crossed = i
		}
	}
}

// SeqIntervalSpending is the spending of the repeated confidence interval's
// boundaries (GSDBounds): O'Brien–Fleming-type over equally spaced looks on
// the units, not the test's SeqDesign.Spending on the observed information.
// The interval estimates the mean over every unit, moved or not, so its
// information grows with the units; any spending gives a repeated interval
// at its level, and the coverage CALIBRATION.md measures is this one's.
var SeqIntervalSpending = Spending{Family: "obf"}

// ciLooks is the number of equally spaced looks of the interval's
// boundaries: MaxUnits, at most SeqMaxLooks.
func (d SeqDesign) ciLooks() int { return min(d.MaxUnits, SeqMaxLooks) }

// interval updates the repeated interval after the latest unit, with the
// boundary of the calendar design at the interval's level
// (SeqIntervalSpending: GSDBounds, look
// ⌈n·ciLooks/MaxUnits⌉): the mean difference is estimated by every unit,
// moved or not, so the interval narrows on units of 0 too, where the test's
// information does not grow.
func (s *SeqState) interval() {
	n := len(s.diffs)
	k := (n*s.d.ciLooks() + s.d.MaxUnits - 1) / s.d.MaxUnits
	lo, hi := seqInterval(float64(n), s.s1, s.s2, s.ci[k-1])
	s.lo, s.hi = math.Max(s.lo, lo), math.Min(s.hi, hi)
	if s.lo > s.hi {
		// Disjoint with an earlier unit's (probability ≤ the level): keep the latest.
		s.lo, s.hi = lo, hi
	}
}

// seqSignFlipSamples is the number of random flips of the guard's sign-flip p
// when the differences are off any lattice and too many to enumerate.
const seqSignFlipSamples = 20000

// seqInterval is the repeated confidence interval at boundary c after n
// units with S1 = Σd, S2 = Σd²: AdjustedInterval's Laplace-adjusted Wald
// interval (one pseudo-unit at +1 and one at −1) with c for z, which is
// never a point when the differences have no spread (a self-normalised or t
// interval is, e.g. every unit at −1).
func seqInterval(n, s1, s2, c float64) (float64, float64) {
	n += 2
	m := s1 / n
	half := c * math.Sqrt(math.Max(0, (s2+2)/n-m*m)/n)
	return math.Max(-1, m-half), math.Min(1, m+half)
}

// SeqLook is a variant's state after its latest unit.
type SeqLook struct {
	// N is the number of units added so far (Add; a skipped unit has no
	// difference and is not counted).
	N int
	// Mean is the mean paired difference so far (0 with no unit).
	Mean float64
	// P is the repeated p-value (unadjusted, two-sided) rounded up to the
	// design's ladder (SeqDesign.Levels): the smallest level whose design
	// has rejected "no difference" at some look so far, 1 if none. It is
	// non-increasing in N, and P ≤ a happens by the end with probability
	// ≤ a under the null for every ladder level a (Jennison & Turnbull 1989,
	// JRSS-B 51:305 §5), which is what Holm needs: exactly so for normal
	// increments, approximately for Z_k, and the exact guard only removes
	// rejections (CALIBRATION.md "Sequential ablations" measures it).
	P float64
	// Lo, Hi is the repeated confidence interval for the mean difference
	// at level 1 − Alpha/Variants (Jennison & Turnbull 1989): the adjusted
	// Wald interval (AdjustedInterval) with the look's boundary c_k for z,
	// meant to cover the true mean at every look simultaneously with that
	// probability (CALIBRATION.md measures it); running intersection over
	// looks, within [−1, 1].
	Lo, Hi float64
}

// Look returns the variant's current look (P, Lo and Hi as of its latest
// look, which is its latest unit unless looks are spaced).
func (s *SeqState) Look() SeqLook {
	l := SeqLook{N: len(s.diffs), P: 1, Lo: s.lo, Hi: s.hi}
	if s.crossed < len(s.levels) {
		l.P = s.levels[s.crossed]
	}
	if l.N > 0 {
		l.Mean = s.s1 / float64(l.N)
	}
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
	// MinEffect or more (its repeated interval lies above −MinEffect).
	SeqFutile SeqStop = "futile"
)

// SeqDecide gives each variant's stop from its latest look (looks[i] of
// variant i), adjusted across the len(looks) variants by Holm's step-down
// over the repeated p-values (Holm 1979, Scand J Stat 6:65): sorted
// ascending, p_(k) is rejected while p_(j) < Alpha/(V − j + 1) for every
// j ≤ k; those thresholds are on the ladder when len(looks) is d.Variants
// (the design's), so the rounding of P costs nothing here. Holm needs only each p to be valid, which a repeated p is at
// any stopping time, and a p that only falls keeps an earlier rejection, so
// decisions persist as units arrive. A rejected variant is SeqWorse or
// SeqBetter by the sign of its mean. A variant not rejected is SeqFutile
// when d.MinEffect > 0 and its repeated interval excludes every drop of
// MinEffect or more (Lo > −MinEffect): only the worse side is tested, since
// an ablation looks for harm, so a variant that may be better by any amount
// is futile in this sense. Otherwise SeqUndecided, as is a look with no unit.
func SeqDecide(d SeqDesign, looks []SeqLook) []SeqStop {
	out := make([]SeqStop, len(looks))
	idx := make([]int, len(looks))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return looks[idx[a]].P < looks[idx[b]].P })
	for k, i := range idx {
		l := looks[i]
		// The thresholds of the ladder: a P equal to one has rejected at it.
		if l.N == 0 || !(l.P <= d.Alpha/float64(len(looks)-k)*(1+1e-12)) {
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
