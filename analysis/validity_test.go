package analysis

// Targeted simulation tests of the validity of the main table: A/A rejection
// rates of every p shown, the gate rate overall and conditional on the number
// of informative tasks, interval coverage, and the exact cases of STATS.md.
// The synthetic outcomes follow the calibration suite's settings: task pass probabilities 40 % always pass, 20 % always fail, 40 %
// uniform in 0.2–0.9; G tasks × R reps; three outcome models (independent,
// same-seed pairs, sticky reps). Seeds are fixed (math/rand/v2 PCG).

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"webbench/analysis/analysistest"
	"webbench/results"
	"webbench/stats"
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

// simOutcomes returns, per task and rep, the outcomes of the baseline (a)
// and the variant (b) under s: the calibration suite's generator (IssueMix
// rates, SimOutcomes with share 0.8), the variant's rates p·(1−h).
func simOutcomes(rng *rand.Rand, s simSetting) (a, b [][]bool) {
	rates := IssueMix(rng, s.G)
	harmed := make([]float64, len(rates))
	for t, p := range rates {
		harmed[t] = p * (1 - s.H)
	}
	model := [...]string{simIndep: ModelIndependent, simSameSeed: ModelSameSeed, simSticky: ModelSticky}[s.Model]
	out := SimOutcomes(rng, Design{Rates: rates, Rep: s.R, Model: model, Share: 0.8}, [][]float64{rates, harmed})
	return out[0], out[1]
}

// valPairs draws one ablation of s as matched pairs.
func valPairs(rng *rand.Rand, s simSetting) []stats.Pair {
	a, b := simOutcomes(rng, s)
	pairs := make([]stats.Pair, 0, s.G*s.R)
	for t := range s.G {
		for r := range s.R {
			pairs = append(pairs, stats.Pair{Task: fmt.Sprintf("t%03d", t), Rep: r, A: a[t][r], B: b[t][r]})
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
				x := analysistest.Rec(arm.name, fmt.Sprintf("t%03d", t), r, o)
				seed := 1000*t + r
				x.Seed = &seed
				out = append(out, x)
			}
		}
	}
	return out
}

// simGrid is the issue's grid of settings.
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
			_, d, _, _ := stats.PerTask(valPairs(rng, s))
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
	return [2]float64{math.Max(-1, m-stats.Z95*se), math.Min(1, m+stats.Z95*se)}
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
				_, d, _, _ := stats.PerTask(valPairs(rng, s))
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

// simsPer returns n, or n/4 under -short, or VALIDITY_SIMS when set (the
// figures of the report were made with VALIDITY_SIMS=4000).
func simsPer(n int) int {
	if v, err := strconv.Atoi(os.Getenv("VALIDITY_SIMS")); err == nil && v > 0 {
		return v
	}
	if testing.Short() {
		return max(50, n/4)
	}
	return n
}

// TestValidityAARejection: under A/A every p of the main table (p_paired,
// p_perm, McNemar by task; p_holm equals p_paired with one variant) rejects
// at most 0.05 (+ binomial margin; the issue's bound is 0.06) in every
// setting of the grid, including sticky reps, where the pooled McNemar (now a
// diagnostic) rejects far more.
func TestValidityAARejection(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	sims := simsPer(800)
	var worst [4]float64
	defer func() {
		t.Logf("max A/A rejection over the grid (%d runs each): p_paired %.3f, p_perm %.3f, p_mcnemar_clustered %.3f; pooled McNemar (diagnostic) %.3f",
			sims, worst[0], worst[1], worst[2], worst[3])
	}()
	for _, s := range simGrid(0) {
		var rej [4]int
		for range sims {
			pr, err := stats.PairedDiff(valPairs(rng, s))
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range []float64{pr.P, pr.PPerm, pr.PPerm /* McNemar by task */, stats.McNemarExact(pr.Rescued, pr.Broke)} {
				if p < 0.05 {
					rej[i]++
				}
			}
		}
		for i := range worst {
			worst[i] = math.Max(worst[i], float64(rej[i])/float64(sims))
		}
		bound := binomUpper(0.05, sims)
		for i, name := range []string{"p_paired", "p_perm", "p_mcnemar_clustered"} {
			if r := float64(rej[i]) / float64(sims); r > bound {
				t.Errorf("%s: %s rejects %.3f of A/A runs (bound %.3f)", s, name, r, bound)
			}
		}
		if s.Model == simSticky && s.R == 5 && s.G >= 12 {
			// The reason the pooled McNemar left the main table.
			if r := float64(rej[3]) / float64(sims); r < 0.15 {
				t.Errorf("%s: pooled McNemar rejects only %.3f under sticky reps (issue: 0.29)", s, r)
			}
		}
	}
}

// gateRate is the share of n runs of s that the gate's rule (margin 0)
// fails.
func gateRate(rng *rand.Rand, s simSetting, n int) float64 {
	f := 0
	for range n {
		pr, _ := stats.PairedDiff(valPairs(rng, s))
		if gateRule(pr.Delta, pr.CI, pr.P, 0, 0.05) {
			f++
		}
	}
	return float64(f) / float64(n)
}

// TestValidityGateConditional: the gate's rule (Δ < −margin, interval below
// 0, p below α; margin 0 is the most liberal) fails at most α/2 of A/A runs
// in every setting and conditionally on every number of moved tasks G'
// (buckets with at least 100 runs).
func TestValidityGateConditional(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 1))
	sims := simsPer(800)
	byMoved := map[int][2]int{}
	worst, worstCond, worstG, worstN := 0.0, 0.0, 0, 0
	defer func() {
		t.Logf("max A/A gate rate (margin 0): %.4f per setting, %.4f per number of moved tasks (G' = %d, %d runs; buckets ≥ 100 runs)",
			worst, worstCond, worstG, worstN)
	}()
	for _, s := range simGrid(0) {
		fails := 0
		for range sims {
			pr, _ := stats.PairedDiff(valPairs(rng, s))
			f := gateRule(pr.Delta, pr.CI, pr.P, 0, 0.05)
			if f {
				fails++
			}
			x := byMoved[pr.Moved]
			x[1]++
			if f {
				x[0]++
			}
			byMoved[pr.Moved] = x
		}
		worst = math.Max(worst, float64(fails)/float64(sims))
		if r := float64(fails) / float64(sims); r > binomUpper(0.025, sims) {
			// 3 SEs over 36 settings still flags a true 0.021 now and
			// then (G=100 R=5 indep: 0.043 in 800 runs, 0.021 in 12,000):
			// confirm on 5× fresh runs before failing.
			if c := gateRate(rng, s, 5*sims); c > binomUpper(0.025, 5*sims) {
				t.Errorf("%s: A/A gate rate %.3f, confirmed %.3f > α/2", s, r, c)
			} else {
				t.Logf("%s: A/A gate rate %.3f in %d runs, %.4f in %d fresh runs", s, r, sims, c, 5*sims)
			}
		}
	}
	for g, x := range byMoved {
		if x[1] >= 100 {
			if r := float64(x[0]) / float64(x[1]); r > worstCond {
				worstCond, worstG, worstN = r, g, x[1]
			}
			if r := float64(x[0]) / float64(x[1]); r > binomUpper(0.025, x[1]) {
				t.Errorf("G' = %d: A/A gate rate %.3f of %d runs > α/2", g, r, x[1])
			}
		}
	}
}

// TestValidityCoverage: the 95% interval of Δ covers the population Δ
// (−h·0.62) in at least 0.93 of runs (minus a binomial margin) in every
// setting with G ≥ 6, for h = 0 (A/A), 0.13 (Δ −8 pts) and 0.5 (Δ −31 pts).
func TestValidityCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 1))
	sims := simsPer(800)
	lowest, where := 1.0, ""
	defer func() { t.Logf("lowest coverage %.3f (%s), %d runs per setting", lowest, where, sims) }()
	for _, h := range []float64{0, 0.13, 0.5} {
		for _, s := range simGrid(h) {
			td, cov := s.trueDelta(), 0
			for range sims {
				pr, _ := stats.PairedDiff(valPairs(rng, s))
				if pr.CI[0] <= td+1e-12 && td <= pr.CI[1]+1e-12 {
					cov++
				}
				if pr.CI[0] == pr.CI[1] {
					t.Fatalf("%s: point interval %v", s, pr.CI)
				}
			}
			if r := float64(cov) / float64(sims); r < lowest {
				lowest, where = r, s.String()
			}
			if r := float64(cov) / float64(sims); r < binomLower(0.93, sims) {
				t.Errorf("%s: coverage %.3f < 0.93", s, r)
			}
		}
	}
}

// TestValidityZeroZeroCase: same-seed pairs, G = 6, R = 2 — where the old
// report printed [0, 0] and covered the true Δ in 0.72 of runs. Runs with
// no moved task now get a real interval, and coverage holds for effects of
// −8 and −31 pts.
func TestValidityZeroZeroCase(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1))
	sims := simsPer(2000)
	for _, h := range []float64{0.13, 0.5} {
		s := simSetting{G: 6, R: 2, Model: simSameSeed, H: h}
		cov, zero := 0, 0
		for range sims {
			pr, _ := stats.PairedDiff(valPairs(rng, s))
			if pr.Moved == 0 {
				zero++
				if pr.CI[1]-pr.CI[0] < 0.6 {
					t.Fatalf("no moved task: interval %v", pr.CI)
				}
			}
			if pr.CI[0] <= s.trueDelta() && s.trueDelta() <= pr.CI[1] {
				cov++
			}
		}
		r := float64(cov) / float64(sims)
		t.Logf("%s: coverage %.3f, %d of %d runs with no moved task", s, r, zero, sims)
		if r < binomLower(0.93, sims) {
			t.Errorf("%s: coverage %.3f", s, r)
		}
	}
}

// TestValidityOneArmErrors: Δ −20 pts on 80 pairs (8 of 40 tasks break in
// both reps: p 2/2^8) becomes Δ 0 when those 16 attempts of the variant end
// in infra errors instead. The report warns with both counts (16/80 vs
// 0/80), gives the bounds (as fail: Δ −20 pts; as pass: 0), and the gate
// fails: the variant's errors alone could hide a failure.
func TestValidityOneArmErrors(t *testing.T) {
	recs := analysistest.OneArmBroken('F')
	a := Analyze(recs, Inputs{Baseline: "base", FailIfWorse: 0.05})
	analysistest.Approx(t, "Δ without errors", a.Variants[0].All.Delta, -0.2, 1e-12)
	analysistest.Approx(t, "p without errors", a.Variants[0].All.P, 2.0/256, 1e-12)
	if failed, _ := a.Gate(0.05); !failed {
		t.Fatal("setup: the gate should fail without errors")
	}
	for i := range recs {
		if recs[i].Variant == "v" && recs[i].Status == results.StatusFail {
			recs[i].Status, recs[i].ErrorClass, recs[i].FailureMode = results.StatusError, results.ClassInfra, "infra"
		}
	}
	a = Analyze(recs, Inputs{Baseline: "base", FailIfWorse: 0.05})
	c := a.Variants[0].All
	if c.Delta != 0 || c.Pairs != 64 || c.CommonPairs != 80 || c.ErrorsB["infra"] != 16 || len(c.Differential) != 1 {
		t.Fatalf("Δ %v pairs %d common %d errors %v differential %v", c.Delta, c.Pairs, c.CommonPairs, c.ErrorsB, c.Differential)
	}
	if p, want := c.DifferentialP["infra"], stats.FisherExact(0, 80, 16, 80); len(c.DifferentialP) != 1 || p != want || p >= DifferentialErrorP {
		t.Errorf("differential p = %v, want the Fisher p %v of 0/80 vs 16/80", c.DifferentialP, want)
	}
	w := a.Warning(WarnDifferentialErrors)
	if w == nil || w.Comparison == nil || !slices.Equal(w.Comparison.Differential, []string{"infra"}) ||
		w.Comparison.ErrorsB["infra"] != 16 || w.Comparison.ErrorsA["infra"] != 0 || w.Comparison.CommonPairs != 80 ||
		w.Comparison.Bounds != c.Bounds {
		t.Errorf("differential warning: %+v", w)
	}
	b := c.Bounds
	if b == nil || b.Pairs != 16 || math.Abs(b.AsFail.Delta+0.2) > 1e-12 || b.AsPass.Delta != 0 {
		t.Fatalf("bounds %+v", b)
	}
	failed, why := a.Gate(0.05)
	if !failed || len(why) != 1 || why[0].Kind != GateErrorsCouldHide || why[0].Variant != "v" || why[0].CommonPairs != 80 ||
		why[0].ErrorsB["infra"] != 16 || why[0].AsFailBoth != c.Bounds.AsFailBoth {
		t.Errorf("gate with 16/80 errors on the variant: %v %+v", failed, why)
	}
	sa, sb := sides(recs, "base", "v")
	cmp, err := CompareRuns(sa, sb, CompareOptions{FailIfWorse: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Gate.Failed || cmp.Gate.Reason.Kind != GateErrorsCouldHide {
		t.Errorf("compare gate %+v", cmp.Gate)
	}
	// Judge errors behave the same.
	for i := range recs {
		if recs[i].Status == results.StatusError {
			recs[i].ErrorClass = results.ClassJudge
		}
	}
	a = Analyze(recs, Inputs{Baseline: "base", FailIfWorse: 0.05})
	if failed, _ := a.Gate(0.05); !failed || a.Warning(WarnDifferentialErrors) == nil {
		t.Errorf("judge errors: gate %v warnings %+v", failed, a.Warnings)
	}
}

// TestValidityAAWithRandomErrors: infra errors at 10% on both arms of an A/A
// run (independently) neither fail the gate more than α/2 of the time nor
// count as differential more than a few percent of runs.
func TestValidityAAWithRandomErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1))
	sims := simsPer(300)
	fails, diff := 0, 0
	for range sims {
		recs := simRecords(rng, simSetting{G: 40, R: 2, Model: simSameSeed})
		for i := range recs {
			if rng.Float64() < 0.1 {
				recs[i].Status, recs[i].ErrorClass = results.StatusError, results.ClassInfra
			}
		}
		a := Analyze(recs, Inputs{Baseline: "base", FailIfWorse: 0.01, power: powerNone})
		if f, _ := a.Gate(0.01); f {
			fails++
		}
		if len(a.Variants[0].All.Differential) > 0 {
			diff++
		}
	}
	t.Logf("A/A with 10%% random infra errors: gate fails %d of %d, differential %d", fails, sims, diff)
	if r := float64(fails) / float64(sims); r > binomUpper(0.025, sims) {
		t.Errorf("A/A gate rate with random errors %.3f", r)
	}
}

// TestValidityUnequalReps: one task with 10 reps all broken, three with one
// rep rescued, six with one rep failing in both arms: Δ = +20 pts over 10
// tasks while the pooled rates read 52.6% → 15.8% and McNemar says rescued
// 3, broke 10. The report warns.
func TestValidityUnequalReps(t *testing.T) {
	recs := analysistest.UnequalReps()
	a := Analyze(recs, Inputs{Baseline: "base"})
	c := a.Variants[0].All
	analysistest.Approx(t, "Δ", c.Delta, 0.2, 1e-12)
	analysistest.Approx(t, "baseline pooled", c.A.Rate, 10.0/19, 1e-12)
	analysistest.Approx(t, "variant pooled", c.B.Rate, 3.0/19, 1e-12)
	w := a.Warning(WarnUnequalReps)
	if w == nil || w.Comparison == nil || w.Comparison.Paired.RepsMin != 1 || w.Comparison.Paired.RepsMax != 10 ||
		w.Comparison.Rescued != 3 || w.Comparison.Broke != 10 || !w.Comparison.PooledDisagrees() {
		t.Errorf("unequal-reps warning: %+v", w)
	}
	// Equal reps: no warning.
	if w := (Analyze(analysistest.FourOfForty(), Inputs{Baseline: "base"})).Warning(WarnUnequalReps); w != nil {
		t.Errorf("warning with equal reps: %+v", w)
	}
}

// TestValidityTargetHolm: 7 A/A variants, each switching a guard whose
// target tasks are 10 of 20: the family-wise error of the target rows'
// Holm-adjusted p stays at α (the unadjusted rows: 29 % in the issue).
func TestValidityTargetHolm(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	sims := simsPer(200)
	s := simSetting{G: 20, R: 2, Model: simIndep}
	raw, adj := 0, 0
	for range sims {
		a, _ := simOutcomes(rng, s)
		var recs []results.Attempt
		tags := map[string][]string{}
		switched := map[string][]string{}
		var names []string
		for vi := range 8 {
			name := "base"
			if vi > 0 {
				name = fmt.Sprintf("v%d", vi)
				names = append(names, name)
				switched[name] = []string{fmt.Sprintf("g%d", vi)}
			}
			b := a
			if vi > 0 {
				_, b = simOutcomes(rng, s)
			}
			for tk := range s.G {
				task := fmt.Sprintf("t%03d", tk)
				if vi > 0 && (tk+vi)%2 == 0 {
					tags[task] = append(tags[task], fmt.Sprintf("g%d", vi))
				}
				for r := range s.R {
					o := byte('F')
					if b[tk][r] {
						o = 'P'
					}
					recs = append(recs, analysistest.Rec(name, task, r, o))
				}
			}
		}
		an := Analyze(recs, Inputs{Baseline: "base", Variants: names, Switched: switched, TaskTags: tags, power: powerNone})
		anyRaw, anyAdj := false, false
		for _, v := range an.Variants {
			for _, c := range v.Targets {
				anyRaw = anyRaw || c.P < 0.05
				anyAdj = anyAdj || c.PHolm < 0.05
			}
		}
		if anyRaw {
			raw++
		}
		if anyAdj {
			adj++
		}
	}
	t.Logf("7 A/A variants: some target row p < 0.05 in %d of %d runs unadjusted, %d Holm-adjusted", raw, sims, adj)
	if r := float64(adj) / float64(sims); r > binomUpper(0.05, sims) {
		t.Errorf("target rows' family-wise error %.3f", r)
	}
}

// BenchmarkPairedDiff100x5 is the primary test on 100 tasks × 5 reps (the
// cost stats2's power simulation pays per draw).
func BenchmarkPairedDiff100x5(b *testing.B) {
	pairs := valPairs(rand.New(rand.NewPCG(1, 1)), simSetting{G: 100, R: 5, Model: simIndep, H: 0.1})
	for b.Loop() {
		if _, err := stats.PairedDiff(pairs); err != nil {
			b.Fatal(err)
		}
	}
}

// TestValidityAAThroughAnalyze: the same A/A property through the whole
// analysis (synthetic records → Analyze): with sticky reps (R = 5) every p
// of the main table — p_paired, p_perm, p_holm, McNemar by task — rejects at
// most 0.05 (+ margin), while the pooled McNemar of the diagnostics table
// does not.
func TestValidityAAThroughAnalyze(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	sims := simsPer(300)
	s := simSetting{G: 40, R: 5, Model: simSticky}
	var rej [5]int
	for range sims {
		c := Analyze(simRecords(rng, s), Inputs{Baseline: "base", power: powerNone})
		v := c.Variants[0]
		for i, p := range []float64{v.All.P, v.All.Paired.PPerm, v.PHolm, v.All.PMcNemarClustered, v.All.PMcNemar} {
			if p < 0.05 {
				rej[i]++
			}
		}
	}
	t.Logf("%s, %d runs through Analyze: rejections p_paired %d, p_perm %d, p_holm %d, p_mcnemar_clustered %d; pooled McNemar %d",
		s, sims, rej[0], rej[1], rej[2], rej[3], rej[4])
	for i, name := range []string{"p_paired", "p_perm", "p_holm", "p_mcnemar_clustered"} {
		if r := float64(rej[i]) / float64(sims); r > binomUpper(0.05, sims) {
			t.Errorf("%s rejects %.3f", name, r)
		}
	}
	if r := float64(rej[4]) / float64(sims); r < 0.15 {
		t.Errorf("pooled McNemar rejects only %.3f under sticky reps", r)
	}
}

// TestValidityEqualClusters: 40 tasks in 4 clusters of 10, one task of each
// cluster moved down: the clustered SE is 0 (equal cluster means), but 36 of
// 40 tasks did not move. The warning and note say so — not "every task moved
// by the same amount" — and the interval is not a point.
func TestValidityEqualClusters(t *testing.T) {
	recs := analysistest.FourOfFortyInClusters()
	a := Analyze(recs, Inputs{Baseline: "base"})
	c := a.Variants[0].All
	if !c.Paired.Clustered || c.Paired.SE != 0 || c.CI[0] == c.CI[1] || c.Paired.Moved != 4 {
		t.Fatalf("clustered %v SE %v CI %v moved %d", c.Paired.Clustered, c.Paired.SE, c.CI, c.Paired.Moved)
	}
	// The wording of this warning (clusters with identical means, not "every task moved alike") is
	// report.TestWarningTextsEqualClusters'.
	w := a.Warning(WarnFewTasks)
	if w == nil || w.Comparison == nil || w.Comparison.Paired.C != 4 || w.Moved != 4 || w.Comparison.G() != 40 {
		t.Errorf("few-tasks warning: %+v", w)
	}
	if want := []stats.PairedReason{stats.ReasonClusterFlip, stats.ReasonNoSpread}; !slices.Equal(c.Paired.Reasons, want) {
		t.Errorf("reasons = %v, want %v", c.Paired.Reasons, want)
	}
	// p_paired flips the 4 cluster sums (all −1): 2/2^4.
	analysistest.Approx(t, "p_paired", c.P, 0.125, 1e-12)
}
