package analysis

// The clustered designs of the calibration suite (CALIBRATION.md "Clustered
// designs"): C families × m instances × R reps whose instances share their
// family's pass probability and, within one arm and rep, part of their
// outcome; simulated records carry the family as their cluster and go
// through the real Analyze, as a Zoo run's do.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"webbench/results"
)

// Within-family correlation levels of a clustered setting (ClusterSetting.Corr).
const (
	// CorrRates: instances share only their family's pass probability
	// (instance logit SD 0.5); given the rates their outcomes are
	// independent.
	CorrRates = "rates"
	// CorrModerate: rates as CorrRates, and with probability 0.5 an arm's
	// attempts at one rep of a family's instances share one draw.
	CorrModerate = "moderate"
	// CorrStrong: nearly identical instances (instance logit SD 0.1) whose
	// arm-and-rep draws are shared with probability 0.95.
	CorrStrong = "strong"
)

// ClusterSetting is one clustered setting: C families with rates from
// IssueMix, M instances per family, R reps per instance. Instance i of
// family f has pass probability logistic(logit(p_f) + Sigma·Z_i), Z_i
// standard normal (a family that always passes or fails stays so); for each
// arm, family and rep, with probability Kappa every instance's attempt uses
// one shared uniform draw (the instances then pass or fail together, as a
// deterministic agent does on near-identical pages), else each its own. So
// Kappa is the within-family correlation of two instances' outcomes in one
// arm and rep when their rates are equal, and Sigma the spread of rates
// within a family. Delta is the true pass-rate change of the power runs.
// Sizes, when set, makes families of unequal sizes: family f has
// Sizes[f mod len(Sizes)] instances, and M is their mean, rounded (the
// planner's block, as clusterUnits rounds a run's).
type ClusterSetting struct {
	C, M, R      int
	Corr         string
	Sigma, Kappa float64
	Delta        float64
	Sizes        []int
}

// String names the setting, e.g. "C=12 m=4 R=1 strong", or with unequal
// sizes "C=12 m=1|7 R=1 strong".
func (s ClusterSetting) String() string {
	if len(s.Sizes) > 0 {
		m := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(s.Sizes)), "|"), "[]")
		return fmt.Sprintf("C=%d m=%s R=%d %s", s.C, m, s.R, s.Corr)
	}
	if s.M == 1 {
		return fmt.Sprintf("C=%d m=1 R=%d", s.C, s.R)
	}
	return fmt.Sprintf("C=%d m=%d R=%d %s", s.C, s.M, s.R, s.Corr)
}

// size is family f's number of instances.
func (s ClusterSetting) size(f int) int {
	if len(s.Sizes) == 0 {
		return s.M
	}
	return s.Sizes[f%len(s.Sizes)]
}

// families returns each instance's family, in instance order (a family's
// instances together, family 0 first).
func (s ClusterSetting) families() []int {
	var out []int
	for f := range s.C {
		for range s.size(f) {
			out = append(out, f)
		}
	}
	return out
}

// ClusterDelta is the true drop of the clustered power runs at C families,
// chosen so that the power is neither 0 nor 1 in most settings.
func ClusterDelta(c int) float64 {
	switch {
	case c <= 6:
		return -0.31
	case c <= 12:
		return -0.2
	default:
		return -0.12
	}
}

// corrParams returns (Sigma, Kappa) of a correlation level.
func corrParams(corr string) (sigma, kappa float64) {
	switch corr {
	case CorrModerate:
		return 0.5, 0.5
	case CorrStrong:
		return 0.1, 0.95
	default:
		return 0.5, 0
	}
}

// ClusterSettings returns the clustered settings: C ∈ {6, 12, 30} ×
// R ∈ {1, 2}, each with m = 1 (one instance per family: unclustered, the
// correlation has nothing to act on) and m = 4 at the three correlation
// levels, Delta = ClusterDelta(C); then C ∈ {6, 12} × R = 1 with families of
// 1 and 7 instances alternating (Sizes), moderate and strong.
func ClusterSettings() []ClusterSetting {
	var out []ClusterSetting
	for _, c := range []int{6, 12, 30} {
		for _, r := range []int{1, 2} {
			out = append(out, ClusterSetting{C: c, M: 1, R: r, Corr: CorrRates, Sigma: 0.5, Delta: ClusterDelta(c)})
			for _, corr := range []string{CorrRates, CorrModerate, CorrStrong} {
				sigma, kappa := corrParams(corr)
				out = append(out, ClusterSetting{C: c, M: 4, R: r, Corr: corr, Sigma: sigma, Kappa: kappa, Delta: ClusterDelta(c)})
			}
		}
	}
	// Unequal sizes, last so that the settings above keep their seeds: families of 1 and 7 instances alternating
	// (mean 4), where the adjusted interval weighs each family's mean by its size.
	for _, c := range []int{6, 12} {
		for _, corr := range []string{CorrModerate, CorrStrong} {
			sigma, kappa := corrParams(corr)
			out = append(out, ClusterSetting{C: c, M: 4, R: 1, Corr: corr, Sigma: sigma, Kappa: kappa, Delta: ClusterDelta(c),
				Sizes: []int{1, 7}})
		}
	}
	return out
}

// clusterPlanSims is the simulated runs of a clustered setting's planned power: its family rates are drawn
// afresh per run (Design.Mix), and at PowerSims (400) from PowerSeed C = 12 families of 1 and 7 instances planned
// 0.223 where 4,000 runs from seeds 1, 2, 3 and 11 give 0.149–0.168 (achieved 0.128–0.163).
const clusterPlanSims = 2000

// ClusterCalResult is the outcome of CalibrateClustered for one setting.
// Rates are shares of runs.
type ClusterCalResult struct {
	Setting ClusterSetting
	// RunsAA and RunsPower are the numbers of A/A and power runs.
	RunsAA, RunsPower int
	// PPaired and PPerm are the A/A rejection rates at alpha of variant 1's
	// p_paired (the sign flip over family sums when m > 1) and p_perm (the
	// sign flip over tasks, ignoring the families); FWER the share of runs
	// where some variant's p_holm < alpha; GateAA the share where the gate
	// (margin 0) failed some variant.
	PPaired, PPerm, FWER, GateAA float64
	// CoverageAA and CoveragePower are the shares of runs whose 95% Δ
	// interval covers the true Δ (0, resp. the run's shifted mean).
	CoverageAA, CoveragePower float64
	// Predicted is the primary test's power on the family-unit design (ClusterUnitDesign, clusterPlanSims runs);
	// Reported the mean post-hoc power the reports print (PowerAnalysis.Power,
	// each family one unit); Achieved the share of power runs with
	// p_paired < alpha and Δ̂ < 0.
	Predicted, Reported, Achieved float64
	// Labelled is the share of power runs whose printed power is labelled as possibly overstated
	// (PowerAnalysis.MayOverstate).
	Labelled float64
}

// clusterRates draws one run's instance rates of s (family f's instances at
// f·M … f·M+M−1).
func clusterRates(rng *rand.Rand, s ClusterSetting) []float64 {
	fam := IssueMix(rng, s.C)
	out := make([]float64, 0, s.C*s.M)
	for f, p := range fam {
		for range s.size(f) {
			q := p
			if p > 0 && p < 1 {
				q = 1 / (1 + math.Exp(-(math.Log(p/(1-p)) + s.Sigma*rng.NormFloat64())))
			}
			out = append(out, q)
		}
	}
	return out
}

// clusterOutcomes draws one run of s for the given arms (per-instance
// rates): out[arm][task][rep], the draws shared within an arm, family and
// rep with probability s.Kappa.
func clusterOutcomes(rng *rand.Rand, s ClusterSetting, arms [][]float64) [][][]bool {
	out := make([][][]bool, len(arms))
	for a := range arms {
		out[a] = make([][]bool, len(arms[a]))
		for t := range out[a] {
			out[a][t] = make([]bool, s.R)
		}
		first := 0
		for f := range s.C {
			for k := range s.R {
				shared := rng.Float64() < s.Kappa
				u := rng.Float64()
				for i := range s.size(f) {
					if !shared {
						u = rng.Float64()
					}
					out[a][first+i][k] = u < arms[a][first+i]
				}
			}
			first += s.size(f)
		}
	}
	return out
}

// clusterRecords returns the records of one run of s with each attempt's
// cluster set to its family ("f000", …), as a Zoo run records it.
func clusterRecords(rng *rand.Rand, s ClusterSetting, names []string, arms [][]float64) []results.Attempt {
	d := Design{Rates: arms[0], Rep: s.R, Model: "family_" + s.Corr}
	recs := SimRecords(d, names, clusterOutcomes(rng, s, arms), 1)
	fam := s.families()
	for i := range recs {
		var t int
		fmt.Sscanf(recs[i].TaskID, "t%d", &t)
		recs[i].Cluster = fmt.Sprintf("f%03d", fam[t])
	}
	return recs
}

// ClusterUnitDesign is the family-unit design the planner uses for s: C
// units whose rates are the mean of their instances' rates drawn as in s,
// unit f standing for its family's size(f) instances (Design.Sizes: M, or
// s.Sizes), each with size·R reps in R blocks of size (ModelMixed, Share 0):
// within a block, each arm's attempts share one draw with probability
// Sticky, as s's instances of one rep do, and the unit weighs in the sign
// flip by its size, as the family's sum does in the analysis (with the mean
// size M for every unit, C = 12 families of 1 and 7 planned 0.230 against
// 0.128 achieved). Sticky is s.Kappa scaled by hetShare: with
// unequal instance rates a shared draw makes two instances agree less often
// than it makes two reps of one rate agree, and planning with κ itself
// (C = 30, m = 4, R = 1, κ = 0.5, σ = 0.5) gave 0.31 against 0.39 achieved.
// Pooling the instances' rates into the unit's mean still overstates their
// independent binomial noise a little (conservative).
func ClusterUnitDesign(s ClusterSetting) Design {
	mix := func(rng *rand.Rand, g int) []float64 {
		u := s
		u.C = g
		inst := clusterRates(rng, u)
		out := make([]float64, g)
		for i, f := range u.families() {
			out[f] += inst[i] / float64(u.size(f))
		}
		return out
	}
	sizes := s.Sizes
	if len(sizes) == 0 {
		sizes = []int{s.M}
	}
	return Design{Mix: mix, Tasks: s.C, Rep: s.R, Sizes: sizes, Model: ModelMixed, Sticky: s.Kappa * hetShare(s)}
}

// hetShare returns the ratio of the covariance a shared draw gives two
// instances of one family, Σ_{i≠j} (min(p_i, p_j) − p_i·p_j), to the one it
// gives two reps at the family's mean rate p̄, m(m−1)·p̄(1 − p̄), each summed
// over 4,000 families drawn as in s from a fixed seed: 1 when the instances'
// rates are equal, less the more they differ.
func hetShare(s ClusterSetting) float64 {
	if s.M < 2 && len(s.Sizes) == 0 {
		return 1
	}
	u := s
	u.C = 4000
	rates := clusterRates(rand.New(rand.NewPCG(PowerSeed, 3)), u)
	num, den := 0.0, 0.0
	first := 0
	for f := range u.C {
		m := u.size(f)
		fam := rates[first : first+m]
		first += m
		mean := 0.0
		for _, p := range fam {
			mean += p / float64(m)
		}
		den += float64(m*(m-1)) * mean * (1 - mean)
		for i, p := range fam {
			for j, q := range fam {
				if i != j {
					num += min(p, q) - p*q
				}
			}
		}
	}
	if den == 0 {
		return 1
	}
	return num / den
}

// CalibrateClustered simulates one clustered setting: runsAA A/A runs (a
// baseline and CalVariants identical variants, as Calibrate) and runsPower
// runs of a baseline against one variant with instance rates
// ShiftRates(rates, s.Delta), rates drawn afresh per run, from a PCG
// generator seeded with seed, each analysed by Analyze at alpha with the
// family as the cluster.
func CalibrateClustered(s ClusterSetting, runsAA, runsPower int, alpha float64, seed uint64) ClusterCalResult {
	rng := rand.New(rand.NewPCG(seed, uint64(s.C*1000+s.M*10+s.R)))
	res := ClusterCalResult{Setting: s, RunsAA: runsAA, RunsPower: runsPower}
	g := len(s.families())
	in := calAAInputs(g, alpha)
	in.ClusterUnit = "family"
	names := append([]string{"baseline"}, in.Variants...)
	for range runsAA {
		rates := clusterRates(rng, s)
		arms := make([][]float64, len(names))
		for i := range arms {
			arms[i] = rates
		}
		a := Analyze(clusterRecords(rng, s, names, arms), in)
		c := a.Variants[0].All
		res.PPaired += b2f(c.P < alpha)
		res.PPerm += b2f(c.Paired.PPerm < alpha)
		holm := 1.0
		for _, vr := range a.Variants {
			holm = min(holm, vr.PHolm)
		}
		res.FWER += b2f(holm < alpha)
		failed, _ := a.Gate(0)
		res.GateAA += b2f(failed)
		res.CoverageAA += b2f(c.CI[0] <= 0 && 0 <= c.CI[1])
	}
	n := float64(max(1, runsAA))
	res.PPaired, res.PPerm, res.FWER, res.GateAA, res.CoverageAA =
		res.PPaired/n, res.PPerm/n, res.FWER/n, res.GateAA/n, res.CoverageAA/n
	res.Predicted, _ = powerPrimaryN(ClusterUnitDesign(s), s.Delta, alpha, clusterPlanSims)
	reported, nrep := 0.0, 0
	pin := Inputs{Baseline: "baseline", Variants: []string{"v"}, Alpha: alpha, MinEffect: math.Abs(s.Delta),
		power: powerOnly, ClusterUnit: "family"}
	for range runsPower {
		rates := clusterRates(rng, s)
		delta := clampDelta(rates, s.Delta)
		a := Analyze(clusterRecords(rng, s, []string{"baseline", "v"}, [][]float64{rates, ShiftRates(rates, delta)}), pin)
		c := a.Variants[0].All
		res.Achieved += b2f(c.P < alpha && c.Delta < 0)
		res.CoveragePower += b2f(c.CI[0] <= delta && delta <= c.CI[1])
		if pw := c.Power.Power; !math.IsNaN(pw) {
			reported += pw
			nrep++
		}
		res.Labelled += b2f(c.Power.MayOverstate())
	}
	np := float64(max(1, runsPower))
	res.Achieved /= np
	res.CoveragePower /= np
	res.Labelled /= np
	res.Reported = math.NaN()
	if nrep > 0 {
		res.Reported = reported / float64(nrep)
	}
	return res
}

// b2f is 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// ClusterCalibrationMarkdown renders CalibrateClustered results as
// CALIBRATION.md's "Clustered designs" section: one row per setting, each
// bounded figure with a ✗ when it misses its bound (as CalibrationMarkdown)
// — except p_perm, which ignores the families and is shown to measure what
// that would cost — and the list of misses; cmd is the command that
// produced it.
func ClusterCalibrationMarkdown(res []ClusterCalResult, cmd string, took time.Duration) string {
	var b strings.Builder
	b.WriteString(ClusterSectionHeading + "\n\n")
	alone := ""
	if strings.Contains(cmd, "-only clustered") {
		alone = " (this section alone, `make calibrate-clustered`; `make calibrate` regenerates it with the others)"
	}
	fmt.Fprintf(&b, "Produced by `%s` in %s%s. C families × m instances × R reps, family pass rates from the seeds mix "+
		"(as above), instance i of family f at logistic(logit p_f + σZ_i); for each arm, family and rep, with "+
		"probability κ all m instances' attempts use one shared draw (they pass or fail together), else each its own: "+
		"κ is the within-family correlation of two instances' outcomes in one arm and rep (at equal rates). "+
		"Correlation levels: `rates` σ = 0.5, κ = 0 (instances share only their family's rate); `moderate` σ = 0.5, "+
		"κ = 0.5; `strong` σ = 0.1, κ = 0.95 (nearly identical instances). m = 1 is one instance per family "+
		"(unclustered). Every record carries its family as `cluster`, analysed by the real `analysis.Analyze`.\n\n",
		cmd, took.Round(time.Second), alone)
	b.WriteString("- **A/A**: one baseline and 7 identical variants; `p_paired` = rejection rate at 0.05 of the primary " +
		"test (the sign flip over the families' sums when m > 1), `p_perm (tasks)` = the same test over tasks, " +
		"ignoring the families (not bounded: what ignoring the family would cost), `p_holm` = family-wise error " +
		"over the 7 variants, `gate` = share of runs where the gate (margin 0) fails some variant, `cov0` = coverage " +
		"of Δ = 0 by the 95 % interval (cluster-robust SE on C − 1 df).\n")
	b.WriteString("- **Power**: baseline against one variant with instance rates `ShiftRates(rates, Δ)`; `planned` = " +
		"the primary test's power simulated (2,000 runs) on the family-unit design (`analysis.ClusterUnitDesign`: C units of m·R reps, unit " +
		"rate the mean of its instances', each arm's draws shared within a block of one rep's m instances with " +
		"probability κ scaled to the instances' spread of rates, `analysis.hetShare`, each unit weighted by its size " +
		"as the family's sum is in the test), `reported` = mean post-hoc power " +
		"the report prints (each family one unit), `achieved` = share of runs with p_paired < 0.05 and Δ̂ < 0, " +
		"`covΔ` = coverage of the true Δ.\n")
	fmt.Fprintf(&b, "- Bounds: p_paired and p_holm ≤ %.2f, gate ≤ %.3f, coverage ≥ %.2f, |planned − achieved| ≤ %.2f; "+
		"✗ = missed by more than 1.96 binomial SEs.\n\n", CalBoundAA, CalBoundGate, CalBoundCoverage, CalBoundPower)
	b.WriteString("| setting | runs | p_paired | p_perm (tasks) | p_holm | gate | cov0 | Δ | planned | reported | achieved | covΔ |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var misses []string
	for _, r := range res {
		cell := func(name string, x, bound float64, above bool, n int) string {
			bad := (above && x > bound+binomSlack(bound, n)) || (!above && x < bound-binomSlack(bound, n))
			if !bad {
				return fmt.Sprintf("%.3f", x)
			}
			misses = append(misses, fmt.Sprintf("%s: %s = %.3f (bound %.3f)", r.Setting, name, x, bound))
			return fmt.Sprintf("%.3f ✗", x)
		}
		pw := fmt.Sprintf("%.3f", r.Achieved)
		if math.Abs(r.Predicted-r.Achieved) > CalBoundPower+binomSlack(r.Achieved, r.RunsPower) {
			misses = append(misses, fmt.Sprintf("%s: planned power %.3f vs achieved %.3f", r.Setting, r.Predicted, r.Achieved))
			pw += " ✗"
		}
		cells := []string{r.Setting.String(), fmt.Sprint(r.RunsAA),
			cell("p_paired", r.PPaired, CalBoundAA, true, r.RunsAA), fmt.Sprintf("%.3f", r.PPerm),
			cell("p_holm", r.FWER, CalBoundAA, true, r.RunsAA), cell("gate", r.GateAA, CalBoundGate, true, r.RunsAA),
			cell("cov0", r.CoverageAA, CalBoundCoverage, false, r.RunsAA), fmt.Sprintf("%+.2f", r.Setting.Delta),
			fmt.Sprintf("%.3f", r.Predicted), fmt.Sprintf("%.3f", r.Reported), pw,
			cell("covΔ", r.CoveragePower, CalBoundCoverage, false, r.RunsPower)}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\n### Clustered bounds missed\n\n")
	if len(misses) == 0 {
		b.WriteString("None.\n")
	}
	for _, m := range misses {
		fmt.Fprintf(&b, "- %s\n", m)
	}
	return b.String()
}

// ClusterSectionHeading is the heading of CALIBRATION.md's clustered
// section (cmd/calibrate -only clustered replaces the section it starts).
const ClusterSectionHeading = "## Clustered designs"
