package stats

// The simulation that chose the sequential method (STATS.md "Sequential
// ablations"): betting confidence sequences against a group-sequential
// design with an O'Brien–Fleming-type spending function, looked at after
// every unit, on per-unit paired differences of binary outcomes (same-seed
// reps, sticky reps, clustered families). Run with WEBBENCH_STUDY=1
// (minutes); the calibration rows of the chosen method are in CALIBRATION.md.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// The betting confidence sequence under study: the hedged capital process
// of Waudby-Smith & Ramdas 2024, "Estimating means of bounded random
// variables by betting", JRSS-B 86:1 (arXiv 2010.09686), Theorem 3 and
// §5.1, with the predictable plug-in bets of its eq. (26), as in the
// `confseq` package (Howard & Waudby-Smith; betting_cs, lambda_predmix_eb):
// with X_i = (d_i + 1)/2 in [0, 1] and a candidate mean m,
//
//	K⁺_t(m) = Π_{i≤t} (1 + λ⁺_i(m)·(X_i − m)),  K⁻_t(m) = Π_{i≤t} (1 − λ⁻_i(m)·(X_i − m)),
//	K±_t(m) = ½K⁺_t(m) + ½K⁻_t(m),
//	λ_i = √(2·log(2/α) / (σ̂²_{i−1}·i·log(1+i))) (or ·n instead of ·i·log(1+i), tuned for n units),
//	λ⁺_i(m) = min(λ_i, c/m),  λ⁻_i(m) = min(λ_i, c/(1−m)),
//	μ̂_i = (½ + Σ_{j≤i} X_j)/(i + 1),  σ̂²_i = (¼ + Σ_{j≤i} (X_j − μ̂_j)²)/(i + 1).
//
// K±(m) is a nonnegative martingale under mean m, so by Ville's inequality
// the running intersection of {m : K±_t(m) < 1/α} is a confidence sequence
// and 1/max_{s≤t} K±_s(0) an anytime-valid p.

// betGrid is the number of intervals of the grid of candidate means on which
// the confidence sequence is tracked: candidate differences −1, −1 + 2/betGrid,
// …, 1 (0 is on it). An interval end is rounded outward to the grid (at most
// 2/betGrid = 0.002 wider), so coverage is never lost to the grid.
const betGrid = 1000

// betTrunc is c, the truncation of the bets (λ⁺ ≤ c/m, λ⁻ ≤ c/(1−m)):
// confseq's default trunc_scale.
const betTrunc = 0.5

// betState is one variant's monitoring state: the capital processes of every
// candidate mean on the grid, updated unit by unit in the plan's order.
type betState struct {
	d       SeqDesign
	n       int
	sum     float64 // Σ X_i
	ss      float64 // Σ (X_i − μ̂_i)²
	logKp   []float64
	logKm   []float64
	out     []bool  // candidate excluded at some earlier unit (running intersection)
	maxLogK float64 // max over units of log K±(½), the null "no difference"
	lambda  float64 // λ of the next unit (predictable: from units before it)
	trunc   float64 // c of the bets' truncation
	tuneN   int     // > 0: bets tuned for this many units (WSR's fixed-n plug-in), else t·log(1+t)
}

// newBet returns an empty monitoring state for design d. It panics when
// d.Alpha is outside (0, 1), d.Variants < 1 or d.MinEffect outside [0, 1).
func newBet(d SeqDesign) *betState {
	if !(d.Alpha > 0 && d.Alpha < 1) || d.Variants < 1 || !(d.MinEffect >= 0 && d.MinEffect < 1) {
		panic(fmt.Sprintf("stats.newBet: invalid design alpha=%v variants=%d min_effect=%v", d.Alpha, d.Variants, d.MinEffect))
	}
	s := &betState{d: d, logKp: make([]float64, betGrid+1), logKm: make([]float64, betGrid+1),
		out: make([]bool, betGrid+1), trunc: betTrunc}
	s.lambda = s.nextLambda()
	return s
}

// nextLambda is λ_{n+1} of the plug-in rule from the n units seen.
func (s *betState) nextLambda() float64 {
	t := float64(s.n + 1)
	sigma2 := (0.25 + s.ss) / t // σ̂²_n with one fake observation
	if s.tuneN > 0 {
		return math.Sqrt(2 * math.Log(2/(s.d.Alpha/float64(s.d.Variants))) / (sigma2 * float64(s.tuneN)))
	}
	return math.Sqrt(2 * math.Log(2/(s.d.Alpha/float64(s.d.Variants))) / (sigma2 * t * math.Log1p(t)))
}

// Add records one unit's mean paired difference (variant − baseline), in
// [−1, 1]. It panics when diff is outside [−1, 1] or NaN.
func (s *betState) Add(diff float64) {
	if !(diff >= -1 && diff <= 1) {
		panic(fmt.Sprintf("stats.betState.Add: difference %v outside [-1, 1]", diff))
	}
	x := (diff + 1) / 2
	lam := s.lambda
	thr := math.Log(1 / (s.d.Alpha / float64(s.d.Variants)))
	alive, least, leastK := false, betGrid/2, math.Inf(1)
	for i := range s.logKp {
		if s.out[i] && i != betGrid/2 {
			continue // excluded for good: its capital is no longer needed
		}
		m := float64(i) / betGrid
		lp, lm := lam, lam
		if m > 0 {
			lp = math.Min(lam, s.trunc/m)
		}
		if m < 1 {
			lm = math.Min(lam, s.trunc/(1-m))
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
	s.maxLogK = math.Max(s.maxLogK, hedged(s.logKp[betGrid/2], s.logKm[betGrid/2]))
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

// Look returns the variant's current look.
func (s *betState) Look() SeqLook {
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
	l.Lo = 2*float64(max(0, first-1))/betGrid - 1
	l.Hi = 2*float64(min(betGrid, last+1))/betGrid - 1
	return l
}

// seqMethod is one sequential rule under study, fed one unit at a time.
type seqMethod interface {
	reset()
	add(d float64)
	// state returns whether the rule rejects 0 now, and its interval.
	state() (reject bool, lo, hi float64)
	p() float64 // the rule's p (for Holm); NaN when it has none
}

type bettingMethod struct {
	d     SeqDesign
	trunc float64
	tuneN int
	s     *betState
}

func (b *bettingMethod) reset() {
	b.s = newBet(b.d)
	b.s.trunc, b.s.tuneN = b.trunc, b.tuneN
	b.s.lambda = b.s.nextLambda()
}
func (b *bettingMethod) add(d float64) { b.s.Add(d) }
func (b *bettingMethod) state() (bool, float64, float64) {
	l := b.s.Look()
	return l.P < b.d.Alpha, l.Lo, l.Hi
}
func (b *bettingMethod) p() float64 { return b.s.Look().P }

// gsdMethod: Z_k = Σd/√Σd² (the self-normalised sum, the normal form of the
// sign-flip statistic) against the boundaries c_k, and the repeated
// confidence interval inverting that test (Jennison & Turnbull 1989, JRSS-B 51:305).
type gsdMethod struct {
	c       []float64
	every   int
	n       int
	sum, ss float64
	rej     bool
	lo, hi  float64
}

func (g *gsdMethod) reset() { g.n, g.sum, g.ss, g.rej, g.lo, g.hi = 0, 0, 0, false, -1, 1 }
func (g *gsdMethod) add(d float64) {
	g.n++
	g.sum += d
	g.ss += d * d
	if g.n%g.every != 0 && g.n != len(g.c) {
		return
	}
	c := g.c[min(g.n, len(g.c))-1]
	if g.ss > 0 && math.Abs(g.sum)/math.Sqrt(g.ss) >= c {
		g.rej = true
	}
	lo, hi := selfNormCI(float64(g.n), g.sum, g.ss, c)
	g.lo, g.hi = math.Max(g.lo, lo), math.Min(g.hi, hi)
	if g.lo > g.hi { // an empty running intersection: keep the latest interval
		g.lo, g.hi = lo, hi
	}
}

// selfNormCI inverts the self-normalised test: the θ in [−1, 1] with
// (S1 − nθ)² < c²·(S2 − 2θS1 + nθ²), S1 = Σd, S2 = Σd².
func selfNormCI(n, s1, s2, c float64) (float64, float64) {
	qa := n*n - c*c*n
	qb := -2*n*s1 + 2*c*c*s1
	qc := s1*s1 - c*c*s2
	if qa <= 0 {
		return -1, 1
	}
	disc := qb*qb - 4*qa*qc
	if disc < 0 {
		return s1 / n, s1 / n
	}
	r := math.Sqrt(disc)
	return math.Max(-1, (-qb-r)/(2*qa)), math.Min(1, (-qb+r)/(2*qa))
}

func (g *gsdMethod) state() (bool, float64, float64) { return g.rej, g.lo, g.hi }
func (g *gsdMethod) p() float64                      { return math.NaN() }

// shippedMethod is SeqState as shipped (the exact guard, the t-widened interval).
type shippedMethod struct {
	d SeqDesign
	s *SeqState
}

func (m *shippedMethod) reset()        { m.s = NewSeq(m.d) }
func (m *shippedMethod) add(d float64) { m.s.Add(d) }
func (m *shippedMethod) state() (bool, float64, float64) {
	l := m.s.Look()
	return l.P <= m.d.Alpha/float64(m.d.Variants), l.Lo, l.Hi
}
func (m *shippedMethod) p() float64 { return m.s.Look().P }

// newGSD spaces the boundaries of K/every looks on units every, 2·every, …
func newGSD(alpha float64, k, every int) *gsdMethod {
	looks := (k + every - 1) / every
	cb := GSDBounds(alpha, looks)
	c := make([]float64, k)
	for i := range c {
		c[i] = cb[min(looks, (i+every)/every)-1]
	}
	return &gsdMethod{c: c, every: every}
}

// studySetting draws one run's K per-unit differences at a pass-rate change
// delta and returns them with the true mean difference of the run.
type studySetting struct {
	name string
	k    int
	gen  func(rng *rand.Rand, delta float64) ([]float64, float64)
}

// issueRates draws g task rates of the calibration mix (40 % pass, 20 % fail,
// 40 % uniform in 0.2–0.9).
func issueRates(rng *rand.Rand, g int) []float64 {
	out := make([]float64, g)
	for i := range out {
		switch u := rng.Float64(); {
		case u < 0.4:
			out[i] = 1
		case u < 0.6:
		default:
			out[i] = 0.2 + 0.7*rng.Float64()
		}
	}
	return out
}

// shift scales the rates so that their mean moves by delta (the
// proportional model of the planner), clamping delta to what is possible.
func shift(r []float64, delta float64) ([]float64, float64) {
	m := 0.0
	for _, p := range r {
		m += p / float64(len(r))
	}
	out := make([]float64, len(r))
	if delta < 0 {
		delta = math.Max(delta, -m)
		for i, p := range r {
			out[i] = p * (1 + delta/m)
		}
	} else {
		delta = math.Min(delta, 1-m)
		for i, p := range r {
			out[i] = 1 - (1-p)*(1-delta/(1-m))
		}
	}
	return out, delta
}

// pairedSetting: K tasks × R reps; model "same_seed" (arms share the draw
// with probability 0.8) or "sticky" (an arm's reps share one draw with
// probability 0.8).
func pairedSetting(k, r int, model string) studySetting {
	return studySetting{name: fmt.Sprintf("K=%d R=%d %s", k, r, model), k: k,
		gen: func(rng *rand.Rand, delta float64) ([]float64, float64) {
			a := issueRates(rng, k)
			b, dl := shift(a, delta)
			d := make([]float64, k)
			for t := range k {
				shA, shB := rng.Float64() < 0.8, rng.Float64() < 0.8
				ua0, ub0 := rng.Float64(), rng.Float64()
				for range r {
					var ua, ub float64
					if model == "sticky" {
						ua, ub = ua0, ub0
						if !shA {
							ua = rng.Float64()
						}
						if !shB {
							ub = rng.Float64()
						}
					} else {
						ua = rng.Float64()
						ub = ua
						if rng.Float64() >= 0.8 {
							ub = rng.Float64()
						}
					}
					d[t] += (b2f(ub < b[t]) - b2f(ua < a[t])) / float64(r)
				}
			}
			return d, dl
		}}
}

// familySetting: C families × M instances × R reps, instance rates the
// family's, an arm's attempts at one rep of a family sharing one draw with
// probability kappa; the unit is the family (its mean difference).
func familySetting(c, m, r int, kappa float64) studySetting {
	return studySetting{name: fmt.Sprintf("C=%d m=%d R=%d κ=%.1f", c, m, r, kappa), k: c,
		gen: func(rng *rand.Rand, delta float64) ([]float64, float64) {
			a := issueRates(rng, c)
			b, dl := shift(a, delta)
			d := make([]float64, c)
			for f := range c {
				for range r {
					shA, shB := rng.Float64() < kappa, rng.Float64() < kappa
					ua, ub := rng.Float64(), rng.Float64()
					for range m {
						if !shA {
							ua = rng.Float64()
						}
						if !shB {
							ub = rng.Float64()
						}
						d[f] += (b2f(ub < b[f]) - b2f(ua < a[f])) / float64(m*r)
					}
				}
			}
			return d, dl
		}}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// fixedPower is the exact sign-flip test's power at K units (p < alpha, the
// right direction) over n runs.
func fixedPower(s studySetting, delta, alpha float64, n int, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	hits := 0
	for range n {
		d, _ := s.gen(rng, delta)
		sum := 0.0
		for _, x := range d {
			sum += x
		}
		if p, _ := SignFlip(d, DefaultSignFlipMaxExact, 2000, 1); p < alpha && sum*delta > 0 {
			hits++
		}
	}
	return float64(hits) / float64(n)
}

// studyMDE is the drop the fixed design detects with power 0.8 (bisected to 0.005).
func studyMDE(s studySetting, alpha float64) float64 {
	lo, hi := 0.0, 0.6
	for hi-lo > 0.005 {
		mid := (lo + hi) / 2
		if fixedPower(s, -mid, alpha, 400, 3) >= 0.8 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

type studyRow struct {
	falseStop, fwer7, cover, coverAA, power, power2, units2, fixedPower float64
}

// runStudy measures one method in one setting.
func runStudy(s studySetting, mk func(variants int) []seqMethod, holm bool, mde, alpha float64, runs int) studyRow {
	var r studyRow
	rng := rand.New(rand.NewPCG(11, uint64(s.k)))
	// A/A with 1 variant, and with 7 (the family-wise rate).
	for _, v := range []int{1, 7} {
		ms := mk(v)
		hits := 0
		n := runs
		if v == 7 {
			n = runs / 2
		}
		for range n {
			for _, m := range ms {
				m.reset()
			}
			stop, cover := false, true
			ds := make([][]float64, v)
			for i := range ds {
				ds[i], _ = s.gen(rng, 0)
			}
			for t := range s.k {
				ps := make([]float64, v)
				for i, m := range ms {
					m.add(ds[i][t])
					rej, lo, hi := m.state()
					ps[i] = m.p()
					if !holm && rej {
						stop = true
					}
					if i == 0 && (lo > 0 || hi < 0) {
						cover = false
					}
				}
				if holm && holmAny(ps, alpha) {
					stop = true
				}
			}
			hits += int(b2f(stop))
			if v == 1 {
				r.coverAA += b2f(cover)
			}
		}
		if v == 1 {
			r.falseStop = float64(hits) / float64(n)
			r.coverAA /= float64(n)
		} else {
			r.fwer7 = float64(hits) / float64(n)
		}
	}
	m := mk(1)[0]
	for _, eff := range []float64{-mde, -2 * mde} {
		for range runs {
			d, dl := s.gen(rng, eff)
			m.reset()
			stopAt, cover, rejK := s.k, true, false
			for t, x := range d {
				m.add(x)
				rej, lo, hi := m.state()
				if lo > dl || hi < dl {
					cover = false
				}
				if rej && stopAt == s.k && t+1 < s.k {
					stopAt = t + 1
				}
				rejK = rej
			}
			if eff == -mde {
				r.cover += b2f(cover)
				r.power += b2f(rejK && meanOf(d) < 0)
			} else {
				r.power2 += b2f(rejK && meanOf(d) < 0)
				r.units2 += float64(stopAt)
			}
		}
	}
	r.cover /= float64(runs)
	r.power /= float64(runs)
	r.power2 /= float64(runs)
	r.units2 /= float64(runs)
	return r
}

func meanOf(d []float64) float64 {
	s := 0.0
	for _, x := range d {
		s += x
	}
	return s / float64(len(d))
}

// holmAny is whether Holm at alpha rejects some p (its first step, which
// decides whether any is rejected).
func holmAny(ps []float64, alpha float64) bool {
	m := math.Inf(1)
	for _, p := range ps {
		m = math.Min(m, p)
	}
	// ≤: SeqLook.P equals the ladder level it has rejected at.
	return m <= alpha/float64(len(ps))*(1+1e-12)
}

func TestSeqStudy(t *testing.T) {
	if os.Getenv("WEBBENCH_STUDY") == "" {
		t.Skip("set WEBBENCH_STUDY=1 to run the sequential study (minutes)")
	}
	const alpha = 0.05
	runs := 300
	settings := []studySetting{
		pairedSetting(12, 2, "same_seed"), pairedSetting(40, 1, "same_seed"), pairedSetting(40, 5, "sticky"),
		pairedSetting(100, 2, "same_seed"), familySetting(20, 4, 1, 0.5),
	}
	if only := os.Getenv("WEBBENCH_STUDY_ONLY"); only != "" {
		var keep []studySetting
		for _, s := range settings {
			if strings.Contains(s.name, only) {
				keep = append(keep, s)
			}
		}
		settings = keep
	}
	var b strings.Builder
	b.WriteString("| setting | MDE | method | A/A false stop | A/A 7 variants | cov (A/A) | cov (MDE) | power at K (fixed) | power at 2×MDE | units at 2×MDE (of K) |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range settings {
		mde := studyMDE(s, alpha)
		fixed := fixedPower(s, -mde, alpha, runs, 5)
		methods := []struct {
			name string
			holm bool
			mk   func(v int) []seqMethod
		}{
			{"betting c=½", true, func(v int) []seqMethod { return bettings(v, alpha, s.k, 0.5, 0) }},
			{"betting c=¾ tuned K", true, func(v int) []seqMethod { return bettings(v, alpha, s.k, 0.75, s.k) }},
			{"GSD OBF every unit", false, func(v int) []seqMethod { return gsds(v, alpha, s.k, 1) }},
			{"GSD OBF every 5", false, func(v int) []seqMethod { return gsds(v, alpha, s.k, 5) }},
			{"GSD α·t² every unit", false, func(v int) []seqMethod { return gsdPow(v, alpha, s.k, 2) }},
			{"GSD OBF every unit, exact guard at the level, adjusted-Wald interval (chosen)", true, func(v int) []seqMethod { return shipped(v, alpha, s.k) }},
		}
		for _, m := range methods {
			if f := os.Getenv("WEBBENCH_STUDY_METHOD"); f != "" && !strings.Contains(m.name, f) {
				continue
			}
			r := runStudy(s, m.mk, m.holm, mde, alpha, runs)
			line := fmt.Sprintf("| %s | %.3f | %s | %.3f | %.3f | %.3f | %.3f | %.3f (%.3f) | %.3f | %.1f (%.0f %%) |\n",
				s.name, mde, m.name, r.falseStop, r.fwer7, r.coverAA, r.cover, r.power, fixed, r.power2, r.units2,
				100*r.units2/float64(s.k))
			b.WriteString(line)
			fmt.Fprint(os.Stderr, line)
		}
	}
	t.Log("\n" + b.String())
}

func bettings(v int, alpha float64, k int, trunc float64, tune int) []seqMethod {
	out := make([]seqMethod, v)
	for i := range out {
		out[i] = &bettingMethod{d: SeqDesign{Alpha: alpha, Variants: v, MaxUnits: k}, trunc: trunc, tuneN: tune}
	}
	return out
}

func gsds(v int, alpha float64, k, every int) []seqMethod {
	out := make([]seqMethod, v)
	g := newGSD(alpha/float64(v), k, every)
	for i := range out {
		out[i] = &gsdMethod{c: g.c, every: every}
	}
	return out
}

func shipped(v int, alpha float64, k int) []seqMethod {
	out := make([]seqMethod, v)
	for i := range out {
		out[i] = &shippedMethod{d: SeqDesign{Alpha: alpha, Variants: v, MaxUnits: k}}
	}
	return out
}

// gsdPow: the Kim–DeMets power family α·t^ρ (Kim & DeMets 1987,
// Biometrika 74:149), between Pocock (ρ = 1) and O'Brien–Fleming (ρ ≈ 3).
func gsdPow(v int, alpha float64, k int, rho float64) []seqMethod {
	a := alpha / float64(v)
	c := gsdCompute(k, func(t float64) float64 { return a * math.Pow(t, rho) })
	out := make([]seqMethod, v)
	for i := range out {
		out[i] = &gsdMethod{c: c, every: 1}
	}
	return out
}
