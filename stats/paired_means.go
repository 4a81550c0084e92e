package stats

// The paired comparison of a real-valued outcome (steps, tokens, cost, wall
// time) over units (tasks, or task families): per-unit arm means, their
// difference and ratio of means, the exact sign-flip p of the per-unit
// differences, a 95 % interval of the ratio by inverting the same sign-flip
// test and a t interval of the difference (STATS.md "Cost outcomes").

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Sizes of the sign-flip reference set the intervals of PairedMeans invert.
const (
	// MeansCIMaxExact is the largest number of units whose 2^G sign flips
	// the interval search enumerates; above it, MeansCISamples seeded random
	// flips (the same flips at every θ, so the p-value curve is a function).
	MeansCIMaxExact = 14
	// MeansCISamples is the number of random flips above MeansCIMaxExact.
	MeansCISamples = 20000
	// meansCIBisections is the number of bisection steps per interval end.
	meansCIBisections = 60
)

// Interval methods of MeansResult.CIMethod.
const (
	// MeansCIInvert: the 95 % interval is the set of values the two-sided
	// sign-flip test does not reject at 0.05 (test inversion).
	MeansCIInvert = "signflip_inversion"
	// MeansCINone: fewer than two units; the interval is unbounded.
	MeansCINone = "none"
)

// MeansResult is the paired comparison of a real-valued outcome over G units:
// for unit t, A_t and B_t are the baseline's and the variant's means over the
// unit's matched pairs, d_t = B_t − A_t. Ratio and its interval are NaN when
// MeanA is 0 (no ratio); an unbounded interval end is ±Inf.
type MeansResult struct {
	// G is the number of units; Moved the units with d_t ≠ 0.
	G, Moved int
	// MeanA and MeanB are the means over units of A_t and B_t (each unit
	// weighs the same, whatever its number of pairs).
	MeanA, MeanB float64
	// Diff = MeanB − MeanA = mean of d_t = MeanA·(Ratio − 1), and DiffCI its
	// 95 % interval: the ratio's scaled by the baseline's mean on these units,
	// MeanA·(RatioCI − 1), so that both say the same; the t interval over units,
	// Diff ± t_{0.975,G−1}·s_d/√G, when there is no ratio (MeanA = 0).
	Diff   float64
	DiffCI [2]float64
	// Ratio = MeanB / MeanA (the ratio of means, not a mean of ratios), and
	// RatioCI its 95 % interval: the θ ≥ 0 at which the sign-flip test of
	// B_t − θ·A_t is not rejected (a permutation analogue of Fieller's
	// interval: Fieller 1954, JRSS-B 16:175).
	Ratio   float64
	RatioCI [2]float64
	// CIMethod is MeansCIInvert (the ratio's interval) or MeansCINone.
	CIMethod string
	// P is the two-sided sign-flip p of Σ d_t (SignFlipReal: exact up to
	// DefaultSignFlipMaxExact moved units, else DefaultSignFlipSamples seeded
	// flips) and PermFloor its smallest attainable value, 2/2^Moved.
	P, PermFloor float64
}

// PairedMeans compares per-unit means b (variant) with a (baseline), unit by
// unit (len(a) == len(b)). The ratio's interval inverts the sign-flip test:
// exact over all 2^G flips when G ≤ MeansCIMaxExact, else over MeansCISamples
// seeded random flips; it is exact when B_t − θ·A_t is symmetric about 0,
// which exchangeable arms within a unit give for a multiplicative effect. The
// difference's interval is the ratio's times MeanA (the t interval without a
// ratio). It panics when the lengths differ.
func PairedMeans(a, b []float64) MeansResult {
	if len(a) != len(b) {
		panic("stats.PairedMeans: arms of different lengths")
	}
	g := len(a)
	r := MeansResult{G: g, CIMethod: MeansCIInvert}
	d := make([]float64, g)
	for i := range a {
		r.MeanA += a[i]
		r.MeanB += b[i]
		d[i] = b[i] - a[i]
		if d[i] != 0 {
			r.Moved++
		}
	}
	if g > 0 {
		r.MeanA /= float64(g)
		r.MeanB /= float64(g)
	}
	r.Diff = r.MeanB - r.MeanA
	r.Ratio = math.NaN()
	if r.MeanA > 0 {
		r.Ratio = r.MeanB / r.MeanA
	}
	r.P, r.PermFloor = SignFlipReal(d, DefaultSignFlipMaxExact, DefaultSignFlipSamples, DefaultSignFlipSeed)
	if g < 2 {
		r.CIMethod = MeansCINone
		r.DiffCI = [2]float64{math.Inf(-1), math.Inf(1)}
		r.RatioCI = [2]float64{0, math.Inf(1)}
		if math.IsNaN(r.Ratio) {
			r.RatioCI = [2]float64{math.NaN(), math.NaN()}
		}
		return r
	}
	switch {
	case math.IsNaN(r.Ratio):
		r.RatioCI = [2]float64{math.NaN(), math.NaN()}
		r.DiffCI = tInterval(d, r.Diff)
		return r
	case r.Moved == 0:
		r.RatioCI = unmovedInterval(a, r.Ratio)
	default:
		r.RatioCI = newFlipSet(g).invert(a, b, r.Ratio, 0, 0.05)
	}
	r.DiffCI = [2]float64{r.MeanA * (r.RatioCI[0] - 1), r.MeanA * (r.RatioCI[1] - 1)}
	return r
}

// SignFlipReal is SignFlip for real-valued differences (costs): the same p, but never by the lattice convolution,
// whose arrays grow with Σ|k_t| — millions for token counts — so all 2^G' flips are enumerated up to maxExact
// non-zero differences (≤ 0: DefaultSignFlipMaxExact), and `samples` seeded random flips are drawn beyond.
func SignFlipReal(d []float64, maxExact, samples int, seed uint64) (p, floor float64) {
	nz := make([]float64, 0, len(d))
	obs, scale := 0.0, 0.0
	for _, v := range d {
		if v != 0 {
			nz = append(nz, v)
			obs += v
			scale += math.Abs(v)
		}
	}
	floor = math.Min(1, math.Ldexp(2, -len(nz)))
	if len(nz) == 0 {
		return 1, 1
	}
	thr := math.Abs(obs) - 1e-9*scale
	if maxExact <= 0 {
		maxExact = DefaultSignFlipMaxExact
	}
	if len(nz) <= min(maxExact, signFlipExactCap) {
		return signFlipEnumerate(nz, thr), floor
	}
	if samples <= 0 {
		samples = DefaultSignFlipSamples
	}
	return signFlipMonteCarlo(nz, thr, samples, seed), floor
}

// unmovedInterval is PairedMeans' ratio interval when no unit moved (B_u = A_u for every u), in closed form:
// every flip but the two all-equal ones shrinks |Σ ±(1 − θ)·A_u|, so a θ other than 1 is rejected exactly when
// 2/2^G' ≤ 0.05, G' the units with A_u ≠ 0: the point 1 then, else [0, ∞).
func unmovedInterval(a []float64, ratio float64) [2]float64 {
	if math.IsNaN(ratio) {
		return [2]float64{math.NaN(), math.NaN()}
	}
	nz := 0
	for _, x := range a {
		if x != 0 {
			nz++
		}
	}
	if math.Ldexp(2, -nz) <= 0.05 {
		return [2]float64{1, 1}
	}
	return [2]float64{0, math.Inf(1)}
}

// tInterval is the 95 % t interval of the mean m of d over its G ≥ 2 values, on G − 1 df.
func tInterval(d []float64, m float64) [2]float64 {
	g := float64(len(d))
	ss := 0.0
	for _, x := range d {
		ss += (x - m) * (x - m)
	}
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: g - 1}.Quantile(0.975) * math.Sqrt(ss/(g-1)/g)
	return [2]float64{m - half, m + half}
}

// flipSet is a fixed reference set of sign vectors over g units: all 2^g
// when g ≤ MeansCIMaxExact, else MeansCISamples seeded random ones.
type flipSet struct {
	g     int
	exact bool
	signs [][]float64 // nil when exact (the bits of the index are the signs)
}

func newFlipSet(g int) *flipSet {
	f := &flipSet{g: g, exact: g <= MeansCIMaxExact}
	if f.exact {
		return f
	}
	rng := rand.New(rand.NewPCG(DefaultSignFlipSeed, 0x5bd1e995))
	f.signs = make([][]float64, MeansCISamples)
	for i := range f.signs {
		s := make([]float64, g)
		for j := range s {
			s[j] = 1
			if rng.Uint64()&1 == 1 {
				s[j] = -1
			}
		}
		f.signs[i] = s
	}
	return f
}

// sums returns, for each flip s, Σ s_t x_t and Σ s_t y_t.
func (f *flipSet) sums(x, y []float64) (sx, sy []float64) {
	if f.exact {
		n := 1 << f.g
		sx, sy = make([]float64, n), make([]float64, n)
		for m := range n {
			for t := range f.g {
				if m&(1<<t) != 0 {
					sx[m] -= x[t]
					sy[m] -= y[t]
				} else {
					sx[m] += x[t]
					sy[m] += y[t]
				}
			}
		}
		return sx, sy
	}
	sx, sy = make([]float64, len(f.signs)), make([]float64, len(f.signs))
	for i, s := range f.signs {
		for t, v := range s {
			sx[i] += v * x[t]
			sy[i] += v * y[t]
		}
	}
	return sx, sy
}

// invert returns the 95 % (1 − alpha) interval of θ in Σ (y_t − θ·x_t) = 0:
// the θ ≥ floor whose two-sided sign-flip p of the y_t − θ·x_t is above alpha,
// searched outward from the estimate est and bisected at each end (an end the
// test never rejects is ±Inf, or floor below).
func (f *flipSet) invert(x, y []float64, est, floor, alpha float64) [2]float64 {
	sx, sy := f.sums(x, y)
	X, Y := 0.0, 0.0
	scale := 0.0
	for t := range x {
		X += x[t]
		Y += y[t]
		scale += math.Abs(y[t]) + math.Abs(x[t])
	}
	p := func(th float64) float64 {
		obs := math.Abs(Y - th*X)
		tol := 1e-9 * (scale + math.Abs(th)*scale)
		n := 0
		for i := range sx {
			if math.Abs(sy[i]-th*sx[i]) >= obs-tol {
				n++
			}
		}
		if f.exact {
			return float64(n) / float64(len(sx))
		}
		return float64(1+n) / float64(len(sx)+1)
	}
	step := 0.0
	for t := range x {
		if x[t] != 0 {
			step = math.Max(step, math.Abs(y[t]/x[t]-est))
		}
	}
	if step == 0 {
		step = math.Max(math.Abs(est), 1) * 1e-6
	}
	end := func(dir float64) float64 {
		in, out := est, est+dir*step
		for k := 1; ; k++ {
			if dir < 0 && out < floor {
				out = floor
			}
			if p(out) <= alpha {
				break
			}
			if dir < 0 && out == floor {
				return floor // not rejected down to the floor
			}
			if k > 60 {
				return dir * math.Inf(1) // never rejected: unbounded
			}
			in, out = out, est+dir*step*math.Ldexp(1, k)
		}
		for range meansCIBisections {
			mid := (in + out) / 2
			if p(mid) > alpha {
				in = mid
			} else {
				out = mid
			}
		}
		return in
	}
	return [2]float64{end(-1), end(1)}
}
