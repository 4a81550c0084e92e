package ablation

// Targeted simulation tests of the validity of the main table (issue 11,
// items 3–8): A/A rejection rates of every p shown, the gate rate overall and
// conditional on the number of informative tasks, interval coverage, and the
// exact cases the issue names. The synthetic outcomes follow the issue's
// settings: task pass probabilities 40 % always pass, 20 % always fail, 40 %
// uniform in 0.2–0.9; G tasks × R reps; three outcome models (independent,
// same-seed pairs, sticky reps). Seeds are fixed (math/rand/v2 PCG).

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"webbench/results"
)

// simModel is how the attempts of a (task, rep) and of a task's reps are
// correlated.
type simModel int

const (
	// simIndep: every attempt draws its own outcome.
	simIndep simModel = iota
	// simSameSeed: the two arms of a (task, rep) share one uniform draw with
	// probability 0.8 (scripted same-seed runs).
	simSameSeed
	// simSticky: one arm's reps of a task share one uniform draw with
	// probability 0.8 (a deterministic model at temperature 0).
	simSticky
)

func (m simModel) String() string { return [...]string{"indep", "same-seed", "sticky"}[m] }

// simSetting is one simulated ablation: G tasks, R reps, an outcome model
// and the variant's harm h: on each task the variant passes with probability
// p·(1−h), p the baseline's (h = 0: A/A).
type simSetting struct {
	G, R  int
	Model simModel
	H     float64
}

func (s simSetting) String() string {
	return fmt.Sprintf("G=%d R=%d %s h=%.2f", s.G, s.R, s.Model, s.H)
}

// simMeanPass is the expected baseline pass probability of the task mix:
// 0.4·1 + 0.2·0 + 0.4·0.55.
const simMeanPass = 0.62

// trueDelta is the population Δ of s (the mean over the task mix of
// p·(1−h) − p).
func (s simSetting) trueDelta() float64 { return -s.H * simMeanPass }

// simTaskP draws one task's baseline pass probability from the mix.
func simTaskP(rng *rand.Rand) float64 {
	switch u := rng.Float64(); {
	case u < 0.4:
		return 1
	case u < 0.6:
		return 0
	default:
		return 0.2 + 0.7*rng.Float64()
	}
}

// simOutcomes returns, per task and rep, the outcomes of the baseline (a)
// and the variant (b) under s.
func simOutcomes(rng *rand.Rand, s simSetting) (a, b [][]bool) {
	a, b = make([][]bool, s.G), make([][]bool, s.G)
	for t := range s.G {
		pA := simTaskP(rng)
		pB := pA * (1 - s.H)
		a[t], b[t] = make([]bool, s.R), make([]bool, s.R)
		stickyA, stickyB := rng.Float64() < 0.8, rng.Float64() < 0.8
		uA0, uB0 := rng.Float64(), rng.Float64()
		for r := range s.R {
			uA, uB := rng.Float64(), rng.Float64()
			switch s.Model {
			case simSameSeed:
				if rng.Float64() < 0.8 {
					uB = uA
				}
			case simSticky:
				if stickyA {
					uA = uA0
				}
				if stickyB {
					uB = uB0
				}
			}
			a[t][r], b[t][r] = uA < pA, uB < pB
		}
	}
	return a, b
}

// simPairs draws one ablation of s as matched pairs.
func simPairs(rng *rand.Rand, s simSetting) []Pair {
	a, b := simOutcomes(rng, s)
	pairs := make([]Pair, 0, s.G*s.R)
	for t := range s.G {
		for r := range s.R {
			pairs = append(pairs, Pair{Task: fmt.Sprintf("t%03d", t), Rep: r, A: a[t][r], B: b[t][r]})
		}
	}
	return pairs
}

// simRecords draws one ablation of s as final records of the arms "base"
// and "v", built as the runner builds them (one record per attempt, pair
// ids shared by the arms, seeds per pair).
func simRecords(rng *rand.Rand, s simSetting) []results.Attempt {
	a, b := simOutcomes(rng, s)
	var out []results.Attempt
	for t := range s.G {
		for r := range s.R {
			for _, arm := range []struct {
				name string
				pass bool
			}{{"base", a[t][r]}, {"v", b[t][r]}} {
				o := byte('F')
				if arm.pass {
					o = 'P'
				}
				x := rec(arm.name, fmt.Sprintf("t%03d", t), r, o)
				seed := 1000*t + r
				x.Seed = &seed
				out = append(out, x)
			}
		}
	}
	return out
}

// simGrid is the grid of settings.
func simGrid(h float64) []simSetting {
	var out []simSetting
	for _, g := range []int{6, 12, 40, 100} {
		for _, r := range []int{1, 2, 5} {
			for _, m := range []simModel{simIndep, simSameSeed, simSticky} {
				out = append(out, simSetting{G: g, R: r, Model: m, H: h})
			}
		}
	}
	return out
}

// binomUpper is a one-sided upper bound for an observed rate of k/n when
// the true rate is p: p + 3·√(p(1−p)/n), about a 0.0013 false-alarm level
// per assertion (normal approximation to the binomial).
func binomUpper(p float64, n int) float64 { return p + 3*math.Sqrt(p*(1-p)/float64(n)) }

// binomLower is the matching lower bound.
func binomLower(p float64, n int) float64 { return p - 3*math.Sqrt(p*(1-p)/float64(n)) }

// studyEnabled reports whether the long studies (printed tables, not
// assertions) were asked for with VALIDITY_STUDY=1.
func studyEnabled(t *testing.T) {
	if os.Getenv("VALIDITY_STUDY") == "" {
		t.Skip("set VALIDITY_STUDY=1 to run the study")
	}
}

// tPValue is the paired t test on per-task differences d (t on G−1 df),
// used by the threshold study to show where the t approximation fails.
func tPValue(d []float64) float64 {
	g := len(d)
	mean := 0.0
	for _, v := range d {
		mean += v
	}
	mean /= float64(g)
	ss := 0.0
	for _, v := range d {
		ss += (v - mean) * (v - mean)
	}
	se := math.Sqrt(ss/float64(g-1)) / math.Sqrt(float64(g))
	if se <= 1e-12 {
		return math.NaN()
	}
	return tTwoSided(mean/se, g-1)
}

// TestStudyTThreshold prints, per number of informative tasks G', the A/A
// rejection rate at α = 0.05 of the t approximation over all settings of
// the grid: the evidence for ExactMaxInformative.
func TestStudyTThreshold(t *testing.T) {
	studyEnabled(t)
	rng := rand.New(rand.NewPCG(11, 3))
	const sims = 4000
	rej := map[int][2]int{}
	worst := map[int]float64{}
	for _, s := range simGrid(0) {
		local := map[int][2]int{}
		for range sims {
			_, d, _, _ := perTask(simPairs(rng, s))
			gp := 0
			for _, v := range d {
				if v != 0 {
					gp++
				}
			}
			p := tPValue(d)
			if math.IsNaN(p) {
				continue
			}
			x := local[gp]
			x[1]++
			if p < 0.05 {
				x[0]++
			}
			local[gp] = x
		}
		for gp, x := range local {
			y := rej[gp]
			y[0] += x[0]
			y[1] += x[1]
			rej[gp] = y
			if x[1] >= 200 {
				worst[gp] = math.Max(worst[gp], float64(x[0])/float64(x[1]))
			}
		}
	}
	for gp := 1; gp <= 60; gp++ {
		if x := rej[gp]; x[1] > 0 {
			t.Logf("G'=%2d  t rejects %.4f of %6d (worst setting with ≥200 runs: %.4f)", gp, float64(x[0])/float64(x[1]), x[1], worst[gp])
		}
	}
}

// tTwoSided is 2·(1 − F_df(|x|)), F_df the Student's t CDF.
func tTwoSided(x float64, df int) float64 {
	return 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Survival(math.Abs(x))
}

// bpInterval is the study's copy of the Laplace-adjusted Wald interval over
// tasks (one pseudo-task at +1 and one at −1).
func bpInterval(d []float64, w float64) [2]float64 {
	n := float64(len(d) + 2)
	s, s2 := 0.0, 2*w*w
	for _, v := range d {
		s += v
		s2 += v * v
	}
	m := s / n
	se := math.Sqrt(math.Max(0, s2/n-m*m) / n)
	return [2]float64{math.Max(-1, m-Z95*se), math.Min(1, m+Z95*se)}
}

// tInterval is the t interval over tasks, or the point when SE is 0.
func tInterval(d []float64) [2]float64 {
	g := len(d)
	mean := 0.0
	for _, v := range d {
		mean += v
	}
	mean /= float64(g)
	ss := 0.0
	for _, v := range d {
		ss += (v - mean) * (v - mean)
	}
	se := math.Sqrt(ss/float64(g-1)) / math.Sqrt(float64(g))
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(g - 1)}.Quantile(0.975)
	return [2]float64{mean - q*se, mean + q*se}
}

// TestStudyCoverage prints the coverage of the population Δ by the t
// interval and by the adjusted interval, overall and for G' < 12.
func TestStudyCoverage(t *testing.T) {
	studyEnabled(t)
	rng := rand.New(rand.NewPCG(12, 3))
	const sims = 3000
	for _, h := range []float64{0, 0.13, 0.5} {
		for _, s := range simGrid(h) {
			td := s.trueDelta()
			var covT, covBP, covMix [4]int
			var n [4]int
			for range sims {
				_, d, _, _ := perTask(simPairs(rng, s))
				gp := 0
				for _, v := range d {
					if v != 0 {
						gp++
					}
				}
				ti, bi := tInterval(d), bpInterval(d, 1/float64(s.R))
				band := 0
				switch {
				case gp < 6:
					band = 1
				case gp < 12:
					band = 2
				default:
					band = 3
				}
				mi := ti
				if gp < 12 || ti[0] == ti[1] {
					mi = bi
				}
				for _, k := range []int{0, band} {
					n[k]++
					if ti[0] <= td+1e-12 && td <= ti[1]+1e-12 {
						covT[k]++
					}
					if bi[0] <= td+1e-12 && td <= bi[1]+1e-12 {
						covBP[k]++
					}
					if mi[0] <= td+1e-12 && td <= mi[1]+1e-12 {
						covMix[k]++
					}
				}
			}
			r := func(c [4]int, k int) string {
				if n[k] == 0 {
					return "  -  "
				}
				return fmt.Sprintf("%.3f", float64(c[k])/float64(n[k]))
			}
			t.Logf("%-28s t %s bp %s mix %s | G'<6 (%4d) t %s bp %s | 6-11 (%4d) t %s bp %s", s, r(covT, 0), r(covBP, 0), r(covMix, 0),
				n[1], r(covT, 1), r(covBP, 1), n[2], r(covT, 2), r(covBP, 2))
		}
	}
}
