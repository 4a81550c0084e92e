package stats

// The simulation that chose PairedMeans' intervals (STATS.md "Cost
// outcomes"): coverage of three 95 % intervals for the ratio of means and three
// for the mean difference, on lognormal per-attempt costs with per-task
// effects and correlated reps. Run with WEBBENCH_STUDY=1 (minutes); the
// calibration rows of the chosen method are in CALIBRATION.md.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// costSim draws one paired design: g units, r reps, per-unit means lognormal
// (σ 1 around 40,000), a per-unit multiplicative effect θ_t = θ·exp(τZ − τ²/2)
// (so E θ_t = θ), a per-(arm, unit) component σ_v shared by the arm's reps
// (correlated reps), a per-(unit, rep) component σ_s shared by the pair's arms
// (same seed), and per-attempt lognormal noise σ_e. It returns the per-unit
// arm means and the population ratio and difference.
func costSim(rng *rand.Rand, g, r int, theta float64) (a, b []float64, ratio, diff float64) {
	const sigTask, tau, sigV, sigS, sigE = 1.0, 0.2, 0.3, 0.5, 0.8
	ln := func(s float64) float64 { return math.Exp(s*rng.NormFloat64() - s*s/2) }
	a, b = make([]float64, g), make([]float64, g)
	for t := range g {
		mu := 40000 * math.Exp(sigTask*rng.NormFloat64())
		th := theta * ln(tau)
		va, vb := ln(sigV), ln(sigV)
		for range r {
			s := ln(sigS)
			a[t] += mu * va * s * ln(sigE)
			b[t] += th * mu * vb * s * ln(sigE)
		}
		a[t] /= float64(r)
		b[t] /= float64(r)
	}
	emu := 40000 * math.Exp(sigTask*sigTask/2)
	return a, b, theta, (theta - 1) * emu
}

// deltaLogRatio is the delta-method interval of log(mean b / mean a) with a t
// quantile on G−1 df, exponentiated.
func deltaLogRatio(a, b []float64) [2]float64 {
	g := float64(len(a))
	ma, mb := mean(a), mean(b)
	var vaa, vbb, vab float64
	for i := range a {
		vaa += (a[i] - ma) * (a[i] - ma)
		vbb += (b[i] - mb) * (b[i] - mb)
		vab += (a[i] - ma) * (b[i] - mb)
	}
	vaa, vbb, vab = vaa/(g-1), vbb/(g-1), vab/(g-1)
	se := math.Sqrt(math.Max(0, (vbb/(mb*mb)+vaa/(ma*ma)-2*vab/(ma*mb))/g))
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: g - 1}.Quantile(0.975)
	l := math.Log(mb / ma)
	return [2]float64{math.Exp(l - q*se), math.Exp(l + q*se)}
}

// tDiff is the t interval of the mean difference.
func tDiff(a, b []float64) [2]float64 {
	d := make([]float64, len(a))
	for i := range a {
		d[i] = b[i] - a[i]
	}
	g := float64(len(d))
	m := mean(d)
	v := 0.0
	for _, x := range d {
		v += (x - m) * (x - m)
	}
	se := math.Sqrt(v / (g - 1) / g)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: g - 1}.Quantile(0.975)
	return [2]float64{m - q*se, m + q*se}
}

// bootRatio is the percentile cluster bootstrap of the ratio of means
// (units resampled with replacement, 2000 resamples).
func bootRatio(rng *rand.Rand, a, b []float64) [2]float64 {
	const n = 2000
	rs := make([]float64, n)
	for k := range rs {
		sa, sb := 0.0, 0.0
		for range a {
			i := rng.IntN(len(a))
			sa += a[i]
			sb += b[i]
		}
		rs[k] = sb / sa
	}
	slices.Sort(rs)
	return [2]float64{rs[int(0.025*n)], rs[int(0.975*n)-1]}
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func TestStudyMeansCoverage(t *testing.T) {
	if os.Getenv("WEBBENCH_STUDY") == "" {
		t.Skip("the interval study: WEBBENCH_STUDY=1")
	}
	const runs = 1000
	for _, g := range []int{6, 10, 14, 30} {
		for _, r := range []int{1, 2, 5} {
			for _, theta := range []float64{1, 1.3} {
				rng := rand.New(rand.NewPCG(uint64(g), uint64(r)))
				var inv, del, boot, invD, tD, scD, rej int
				for range runs {
					a, b, ratio, diff := costSim(rng, g, r, theta)
					m := PairedMeans(a, b)
					in := func(ci [2]float64, x float64) bool { return ci[0] <= x && x <= ci[1] }
					if in(m.RatioCI, ratio) {
						inv++
					}
					if in(deltaLogRatio(a, b), ratio) {
						del++
					}
					if in(bootRatio(rng, a, b), ratio) {
						boot++
					}
					d, ones := make([]float64, g), make([]float64, g)
					for i := range d {
						d[i], ones[i] = b[i]-a[i], 1
					}
					if in(newFlipSet(g).invert(ones, d, m.Diff, math.Inf(-1), 0.05), diff) {
						invD++
					}
					if in(tDiff(a, b), diff) {
						tD++
					}
					if in(m.DiffCI, diff) {
						scD++
					}
					if m.P < 0.05 {
						rej++
					}
				}
				f := func(n int) float64 { return float64(n) / runs }
				fmt.Printf("G=%d R=%d θ=%.1f ratio: invert %.3f delta %.3f boot %.3f | diff: invert %.3f t %.3f scaled %.3f | reject %.3f\n",
					g, r, theta, f(inv), f(del), f(boot), f(invD), f(tD), f(scD), f(rej))
			}
		}
	}
}
