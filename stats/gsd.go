package stats

// Boundaries of a two-sided group-sequential design with an
// O'Brien–Fleming-type alpha-spending function (STATS.md "Sequential
// ablations").

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// gsdKey identifies one boundary computation.
type gsdKey struct {
	alpha float64
	looks int
}

// gsdCache holds computed boundaries ([]float64 by gsdKey): every variant
// and every simulated run of one design shares them.
var gsdCache sync.Map

// gsdCap is the boundary of a look that spends (next to) nothing: no
// self-normalised sum of bounded differences reaches it before enough units
// have moved, and the recursion treats its tail as empty.
const gsdCap = 12.0

// gsdKernelSD is how far (in increment SDs) the recursion integrates the
// normal kernel: φ(9) < 1e-17.
const gsdKernelSD = 9.0

// GSDBounds returns the two-sided boundaries c_1 … c_K (z scale) of a
// group-sequential design at family level alpha with K equally spaced looks
// and the Lan–DeMets O'Brien–Fleming-type spending function applied to each
// side, α(t) = 2·(2 − 2Φ(z_{1−α/4}/√t)) in all (Lan & DeMets 1983, "Discrete
// sequential boundaries for clinical trials", Biometrika 70:659; gsDesign's
// sfLDOF): under the null, a standardised sum Z_k of independent
// increments (information k/K at look k) first crosses ±c_k at look k with
// probability α(k/K) − α((k−1)/K). Computed by the recursive numerical
// integration of Armitage, McPherson & Rowe 1969 (JRSS-A 132:235; Jennison &
// Turnbull 2000, "Group Sequential Methods with Applications to Clinical
// Trials", ch. 19) on the partial sums' sub-density, trapezoid rule on a grid
// of step 0.25 over ±7 SD; K = 5, α = 0.05 gives 4.877, 3.357, 2.680, 2.290,
// 2.031 (gsDesign's values to 3 decimals). A look that spends less than
// 1e-15 gets gsdCap. Results are cached; it panics when alpha is outside
// (0, 1) or looks < 1.
func GSDBounds(alpha float64, looks int) []float64 {
	if !(alpha > 0 && alpha < 1) || looks < 1 {
		panic("stats.GSDBounds: alpha must be in (0, 1) and looks ≥ 1")
	}
	key := gsdKey{alpha, looks}
	if c, ok := gsdCache.Load(key); ok {
		return c.([]float64)
	}
	za := distuv.UnitNormal.Quantile(1 - alpha/4)
	c := gsdCompute(looks, func(t float64) float64 { return 4 * distuv.UnitNormal.Survival(za/math.Sqrt(t)) })
	gsdCache.Store(key, c)
	return c
}

// gsdCompute returns the two-sided boundaries of K = looks equally spaced
// looks for the cumulative spending function spend(t), t = k/K.
func gsdCompute(looks int, spend func(t float64) float64) []float64 {
	const h, width = 0.25, 7.0
	out := make([]float64, looks)
	var xs, fs []float64 // grid, and sub-density × trapezoid weight of S_k on the continuation region
	spent := 0.0
	for k := 1; k <= looks; k++ {
		sk := math.Sqrt(float64(k))
		cross := func(c float64) float64 {
			if k == 1 {
				return 2 * distuv.UnitNormal.Survival(c)
			}
			p := 0.0
			for i, x := range xs {
				p += fs[i] * (distuv.UnitNormal.CDF(-c*sk-x) + distuv.UnitNormal.Survival(c*sk-x))
			}
			return p
		}
		c := gsdCap
		if target := spend(float64(k)/float64(looks)) - spent; target > 1e-15 {
			c = bisectBound(cross, target, 1e-6)
		}
		out[k-1] = c
		spent += cross(c)
		xs, fs = gsdPropagate(xs, fs, k, math.Min(c, width)*sk, h)
	}
	return out
}

// gsdPropagate returns the grid over [−b, b] and the sub-density (times the
// trapezoid weights) at look k of the partial sum, from look k − 1's (xs, fs);
// at k = 1 the standard normal density.
func gsdPropagate(xs, fs []float64, k int, b, h float64) ([]float64, []float64) {
	n := max(3, int(math.Ceil(2*b/h))|1)
	step := 2 * b / float64(n-1)
	ys, gs := make([]float64, n), make([]float64, n)
	var lo0, step0 float64 // xs[i] = lo0 + i·step0
	if len(xs) > 1 {
		lo0, step0 = xs[0], xs[1]-xs[0]
	}
	for j := range ys {
		y := -b + float64(j)*step
		ys[j] = y
		if k == 1 {
			gs[j] = distuv.UnitNormal.Prob(y)
		} else {
			// Only the grid points within gsdKernelSD of y contribute.
			i0 := max(0, int(math.Floor((y-gsdKernelSD-lo0)/step0)))
			i1 := min(len(xs)-1, int(math.Ceil((y+gsdKernelSD-lo0)/step0)))
			for i := i0; i <= i1; i++ {
				d := y - xs[i]
				gs[j] += fs[i] * math.Exp(-d*d/2)
			}
			gs[j] /= math.Sqrt(2 * math.Pi)
		}
		w := step
		if j == 0 || j == n-1 {
			w /= 2
		}
		gs[j] *= w
	}
	return ys, gs
}

// bisectBound is the smallest boundary c in [0, gsdCap] (within tol, rounded
// up) whose crossing probability cross(c), decreasing in c, is at most want.
func bisectBound(cross func(float64) float64, want, tol float64) float64 {
	lo, hi := 0.0, gsdCap
	for hi-lo > tol {
		if mid := (lo + hi) / 2; cross(mid) > want {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}
