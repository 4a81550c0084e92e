package analysis

import (
	"math"
	"strings"
	"testing"
)

// A small run of the clustered calibration (CALIBRATION.md "Clustered
// designs"): 12 families × 4 nearly identical instances (κ = 0.95). The
// primary test, flipping the families' sums, keeps its A/A rate within the
// bound and the interval covers Δ = 0; the sign flip over tasks, which takes
// the 48 instances as independent, rejects far more often than α (about
// 0.2–0.3 in the full table). Then the family-unit power: planned and
// achieved agree within the bound at 12 families × 4 instances × 2 reps
// under strong correlation, where the instances of one rep share draws and
// the reps do not (a sticky share over all 8 of a unit's pairs with the
// same variance planned 0.35 against 0.21 achieved).
func TestCalibrationClustered(t *testing.T) {
	runs := 150
	if testing.Short() {
		runs = 80
	}
	sigma, kappa := corrParams(CorrStrong)
	s := ClusterSetting{C: 12, M: 4, R: 1, Corr: CorrStrong, Sigma: sigma, Kappa: kappa, Delta: ClusterDelta(12)}
	r := CalibrateClustered(s, runs, 0, 0.05, 7)
	aaSlack := 2.5 * math.Sqrt(CalBoundAA*(1-CalBoundAA)/float64(runs))
	if r.PPaired > CalBoundAA+aaSlack || r.FWER > CalBoundAA+aaSlack {
		t.Errorf("%s: A/A p_paired %.3f, p_holm %.3f > %.3f", s, r.PPaired, r.FWER, CalBoundAA+aaSlack)
	}
	covSlack := 2.5 * math.Sqrt(CalBoundCoverage*(1-CalBoundCoverage)/float64(runs))
	if r.CoverageAA < CalBoundCoverage-covSlack {
		t.Errorf("%s: coverage of Δ = 0 %.3f < %.3f", s, r.CoverageAA, CalBoundCoverage-covSlack)
	}
	if r.PPerm < 0.12 || r.PPerm < r.PPaired+0.08 {
		t.Errorf("%s: p_perm over tasks rejects %.3f of A/A runs, p_paired %.3f: want the task-level test inflated",
			s, r.PPerm, r.PPaired)
	}
	t.Logf("%s: A/A p_paired %.3f p_perm %.3f p_holm %.3f gate %.3f cov0 %.3f", s, r.PPaired, r.PPerm, r.FWER, r.GateAA, r.CoverageAA)

	if testing.Short() {
		return
	}
	s.R = 2
	r = CalibrateClustered(s, 0, runs, 0.05, 8)
	slack := 2.5 * math.Sqrt(math.Max(r.Achieved*(1-r.Achieved), 0.01)/float64(runs))
	if d := math.Abs(r.Predicted - r.Achieved); d > CalBoundPower+slack {
		t.Errorf("%s: planned power %.3f, achieved %.3f (|Δ| %.3f > %.3f)", s, r.Predicted, r.Achieved, d, CalBoundPower+slack)
	}
	if r.CoveragePower < CalBoundCoverage-covSlack {
		t.Errorf("%s: coverage of the true Δ %.3f < %.3f", s, r.CoveragePower, CalBoundCoverage-covSlack)
	}
	t.Logf("%s: planned %.3f reported %.3f achieved %.3f covΔ %.3f", s, r.Predicted, r.Reported, r.Achieved, r.CoveragePower)
}

// Instances share their family's rate (m = 1 has one per family) and, with
// κ = 1, one draw per arm and rep: a family's instances then pass or fail
// together, and its records carry the family as their cluster.
func TestClusterOutcomesShareDraws(t *testing.T) {
	s := ClusterSetting{C: 5, M: 3, R: 2, Corr: CorrStrong, Sigma: 0.1, Kappa: 1}
	rng := newRand(21)
	rates := clusterRates(rng, s)
	if len(rates) != 15 {
		t.Fatalf("%d instance rates, want 15", len(rates))
	}
	out := clusterOutcomes(rng, s, [][]float64{rates})
	for f := range s.C {
		for k := range s.R {
			for i := 1; i < s.M; i++ {
				a, b := f*s.M, f*s.M+i
				// With one shared draw u, instance i passes iff u < its rate.
				if out[0][a][k] != out[0][b][k] && math.Abs(rates[a]-rates[b]) > 0.2 {
					t.Errorf("family %d rep %d: instances 0 and %d differ at rates %.2f, %.2f", f, k, i, rates[a], rates[b])
				}
			}
		}
	}
	recs := clusterRecords(rng, s, []string{"baseline"}, [][]float64{rates})
	if len(recs) != 30 || recs[0].Cluster != "f000" || recs[len(recs)-1].Cluster != "f004" {
		t.Errorf("%d records, clusters %q … %q", len(recs), recs[0].Cluster, recs[len(recs)-1].Cluster)
	}
}

// The Markdown names every setting, leaves p_perm unbounded and flags a
// missed bound.
func TestClusterCalibrationMarkdown(t *testing.T) {
	r := ClusterCalResult{Setting: ClusterSetting{C: 12, M: 4, R: 1, Corr: CorrStrong, Delta: -0.2}, RunsAA: 400,
		RunsPower: 400, PPaired: 0.01, PPerm: 0.3, FWER: 0.2, CoverageAA: 1, CoveragePower: 0.95,
		Predicted: 0.1, Reported: 0.12, Achieved: 0.09}
	md := ClusterCalibrationMarkdown([]ClusterCalResult{r}, "test", 0)
	for _, want := range []string{ClusterSectionHeading, "| C=12 m=4 R=1 strong | 400 | 0.010 | 0.300 | 0.200 ✗ |",
		"p_holm = 0.200 (bound 0.060)"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "p_perm = ") {
		t.Errorf("p_perm over tasks was bounded:\n%s", md)
	}
}

// With Design.Block the variance of d_t under ModelMixed (taskMoments)
// counts only the pairs of reps within a block as sharing: it matches the
// variance of simulated d_t (8 reps in blocks of 4), and differs from the
// unblocked one.
func TestTaskMomentsBlock(t *testing.T) {
	d := Design{Rates: []float64{0.6}, Rep: 8, Model: ModelMixed, Share: 0.3, Sticky: 0.9, Block: 4}
	alt := []float64{0.4}
	_, want := taskMoments(d, 0, 0.6, 0.4)
	rng := newRand(31)
	const n = 40000
	var buf []float64
	sum, sum2 := 0.0, 0.0
	for range n {
		buf = simDiffs(rng, d, d.Rates, alt, buf)
		sum += buf[0]
		sum2 += buf[0] * buf[0]
	}
	got := sum2/n - (sum/n)*(sum/n)
	if math.Abs(got-want) > 0.03*want {
		t.Errorf("simulated Var(d_t) %.5f, taskMoments %.5f", got, want)
	}
	d.Block = 0
	if _, all := taskMoments(d, 0, 0.6, 0.4); math.Abs(all-want) < 0.1*want {
		t.Errorf("blocked variance %.5f ≈ unblocked %.5f", want, all)
	}
}

// A shared draw correlates instances with equal rates fully (hetShare 1)
// and instances whose logits spread by σ = 0.5 less (0.74).
func TestHetShare(t *testing.T) {
	if h := hetShare(ClusterSetting{C: 12, M: 4, R: 1}); math.Abs(h-1) > 1e-12 {
		t.Errorf("equal instance rates: hetShare %v, want 1", h)
	}
	if h := hetShare(ClusterSetting{C: 12, M: 4, R: 1, Sigma: 0.5}); h < 0.7 || h > 0.78 {
		t.Errorf("σ = 0.5: hetShare %.3f, want ≈ 0.74", h)
	}
}

// With Design.Sizes a unit of m tasks draws m·Rep reps in blocks of m and its statistic is m times its mean
// difference (the family's sum): taskMoments' mean and variance match the simulated ones for a family of 7
// tasks at 2 reps, and a family of 1 has its task's moments.
func TestTaskMomentsSizes(t *testing.T) {
	d := Design{Rates: []float64{0.6, 0.6}, Rep: 2, Sizes: []int{7, 1}, Model: ModelMixed, Share: 0.3, Sticky: 0.5}
	alt := []float64{0.4, 0.4}
	rng := newRand(32)
	const n = 40000
	var buf []float64
	var sum, sum2 [2]float64
	for range n {
		buf = simDiffs(rng, d, d.Rates, alt, buf)
		for u := range 2 {
			sum[u] += buf[u]
			sum2[u] += buf[u] * buf[u]
		}
	}
	for u, m := range []float64{7, 1} {
		wantMean, wantVar := taskMoments(d, u, 0.6, 0.4)
		mean := sum[u] / n
		v := sum2[u]/n - mean*mean
		if math.Abs(wantMean-m*(-0.2)) > 1e-12 || math.Abs(mean-wantMean) > 0.02*m || math.Abs(v-wantVar) > 0.03*wantVar {
			t.Errorf("unit of %v tasks: simulated mean %.4f var %.4f, taskMoments %.4f %.4f", m, mean, v, wantMean, wantVar)
		}
	}
	if d.RepsOf(0) != 14 || d.RepsOf(1) != 2 || d.Attempts() != 16 {
		t.Errorf("reps %d, %d, attempts %d; want 14, 2, 16", d.RepsOf(0), d.RepsOf(1), d.Attempts())
	}
}
