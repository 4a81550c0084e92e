package analysis

// The calibration of the cost outcomes (CALIBRATION.md "Cost outcomes"): simulated pairs with lognormal,
// heavy-tailed per-attempt costs, per-task effects and correlated reps, through the analysis' own pairing layer
// (PerUnit) and test (stats.PairedMeans): A/A rejection, interval coverage, and the planner's power (PlanCost
// from a pilot run) against the power achieved.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"webbench/results"
	"webbench/stats"
)

// The cost model of the calibration (CostPairs): σ of log cost between tasks, of the per-task effect around
// the ratio, of a per-(arm, task) draw shared by the arm's reps (correlated reps), of a per-(task, rep) draw
// shared by the pair's arms (the same seed), and of each attempt's own draw.
const (
	costSigmaTask   = 1.0
	costSigmaEffect = 0.2
	costSigmaArm    = 0.3
	costSigmaPair   = 0.5
	costSigmaOwn    = 0.8
)

// CostCalSetting is one setting of the cost calibration: G tasks × R reps, and the true ratio of means of the
// power runs.
type CostCalSetting struct {
	G, R  int
	Ratio float64
}

// String names the setting, e.g. "G=10 R=2".
func (s CostCalSetting) String() string { return fmt.Sprintf("G=%d R=%d", s.G, s.R) }

// CostSettings returns the cost calibration's settings: G ∈ {6, 10, 14, 30} × R ∈ {1, 2, 5}, with a true
// ratio of 1.6 at G = 6, 1.4 at 10 and 14, 1.25 at 30 (power neither 0 nor 1).
func CostSettings() []CostCalSetting {
	var out []CostCalSetting
	for _, g := range []int{6, 10, 14, 30} {
		ratio := map[int]float64{6: 1.6, 10: 1.4, 14: 1.4, 30: 1.25}[g]
		for _, r := range []int{1, 2, 5} {
			out = append(out, CostCalSetting{G: g, R: r, Ratio: ratio})
		}
	}
	return out
}

// CostCalResult is the outcome of CalibrateCost for one setting; rates are shares of runs.
type CostCalResult struct {
	Setting CostCalSetting
	Runs    int
	// AA is the A/A rejection rate of p < 0.05; CoverageAA and CoveragePower the shares of runs whose ratio
	// interval covers the true ratio (1, Setting.Ratio); CoverageDiff that of the difference's interval in
	// the power runs.
	AA, CoverageAA, CoveragePower, CoverageDiff float64
	// Reported is the mean power PlanCost reports from Pilots pilot runs of the setting; Achieved the share
	// of power runs with p < 0.05 and the ratio above 1.
	Reported, Achieved float64
	Pilots             int
}

// CostPairs draws the matched pairs of one simulated run: g tasks × r reps, tokens lognormal (the constants
// above; mean 40,000 per task before the between-task draw), the variant's task t multiplied by
// ratio·exp(σZ − σ²/2) (σ = costSigmaEffect; none when ratio is 1: an A/A run).
func CostPairs(rng *rand.Rand, g, r int, ratio float64) []RecPair {
	ln := func(s float64) float64 { return math.Exp(s*rng.NormFloat64() - s*s/2) }
	out := make([]RecPair, 0, g*r)
	for t := range g {
		task := fmt.Sprintf("t%03d", t)
		mu := 40000 * math.Exp(costSigmaTask*rng.NormFloat64())
		k := 1.0
		if ratio != 1 {
			k = ratio * ln(costSigmaEffect)
		}
		armA, armB := ln(costSigmaArm), ln(costSigmaArm)
		for rep := range r {
			s := ln(costSigmaPair)
			a := &results.Attempt{TaskID: task, Rep: rep, Status: results.StatusPass}
			b := &results.Attempt{TaskID: task, Rep: rep, Status: results.StatusPass}
			a.Tokens.Prompt = int(mu * armA * s * ln(costSigmaOwn))
			b.Tokens.Prompt = int(k * mu * armB * s * ln(costSigmaOwn))
			out = append(out, RecPair{A: a, B: b})
		}
	}
	return out
}

// costMeans is the analysis' comparison of tokens over the pairs.
func costMeans(pairs []RecPair) (stats.MeansResult, []UnitMeans) {
	us := PerUnit(pairs, results.CostTokens.Value, UnitOf)
	a, b := make([]float64, len(us)), make([]float64, len(us))
	for i, u := range us {
		a[i], b[i] = u.A, u.B
	}
	return stats.PairedMeans(a, b), us
}

// CalibrateCost simulates one setting: runs A/A runs and runs power runs (CostPairs), and pilots pilot runs of
// the setting (its ratio and per-task effects, which PlanCost divides out and keeps as spread) whose PlanCost
// power at the setting's ratio is averaged, all from a PCG seeded with seed.
func CalibrateCost(s CostCalSetting, runs, pilots int, seed uint64) CostCalResult {
	rng := rand.New(rand.NewPCG(seed, uint64(s.G*100+s.R)))
	res := CostCalResult{Setting: s, Runs: runs, Pilots: pilots}
	in := func(ci [2]float64, x float64) bool { return ci[0] <= x && x <= ci[1] }
	// The population difference per attempt: (ratio − 1)·E[μ_t].
	diff := (s.Ratio - 1) * 40000 * math.Exp(costSigmaTask*costSigmaTask/2)
	for range runs {
		m, _ := costMeans(CostPairs(rng, s.G, s.R, 1))
		if m.P < 0.05 {
			res.AA++
		}
		if in(m.RatioCI, 1) {
			res.CoverageAA++
		}
		m, _ = costMeans(CostPairs(rng, s.G, s.R, s.Ratio))
		if m.P < 0.05 && m.Ratio > 1 {
			res.Achieved++
		}
		if in(m.RatioCI, s.Ratio) {
			res.CoveragePower++
		}
		if in(m.DiffCI, diff) {
			res.CoverageDiff++
		}
	}
	for i := range pilots {
		_, us := costMeans(CostPairs(rng, s.G, s.R, s.Ratio))
		if a, b, ratio, _ := pilotArms(us); ratio > 0 {
			res.Reported += costPower(a, b, s.G, s.Ratio-1, 0.05, seed+uint64(i)) // PlanCost's power
		}
	}
	n := float64(runs)
	res.AA, res.CoverageAA, res.CoveragePower, res.CoverageDiff = res.AA/n, res.CoverageAA/n, res.CoveragePower/n,
		res.CoverageDiff/n
	res.Achieved /= n
	if pilots > 0 {
		res.Reported /= float64(pilots)
	}
	return res
}

// CostCalibrationMarkdown is the CALIBRATION.md section of the cost outcomes' results rs, made by cmd in took.
func CostCalibrationMarkdown(rs []CostCalResult, cmd string, took time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Cost outcomes (issue 38)\n\nProduced by `%s` in %s. Simulated pairs of tokens per attempt, "+
		"lognormal and heavy-tailed: per-task means 40,000·e^(σZ) with σ = %.1f between tasks, a per-(arm, task) draw "+
		"shared by the arm's reps (σ %.1f: correlated reps), a per-(task, rep) draw shared by both arms (σ %.1f: the "+
		"same seed), each attempt's own draw (σ %.1f), and in the power runs a per-task effect ratio·e^(σZ−σ²/2) "+
		"(σ %.1f) — through the analysis' pairing layer (`analysis.PerUnit`) and test (`stats.PairedMeans`).\n\n",
		cmd, took.Round(time.Second), costSigmaTask, costSigmaArm, costSigmaPair, costSigmaOwn, costSigmaEffect)
	b.WriteString("- `A/A` = rejection rate of p < 0.05 with no effect; `covAA`, `cov` = coverage of the true ratio " +
		"(1, the setting's) by the 95 % interval of the ratio of means; `covΔ` = coverage of the true difference " +
		"per attempt; `reported` = mean power `bench power --outcome` (analysis.PlanCost) reports from a pilot " +
		"run of the same design (its own ratio divided out); `achieved` = share of power runs with p < 0.05 and the ratio above 1.\n" +
		"- Bounds: A/A ≤ 0.06, coverage ≥ 0.93, |reported − achieved| ≤ 0.05; ✗ = missed by more than 1.96 " +
		"binomial SEs.\n\n")
	b.WriteString("| setting | runs | A/A | covAA | ratio | cov | covΔ | pilots | reported | achieved |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	var missed []string
	for _, r := range rs {
		se := func(p float64) float64 { return 1.96 * math.Sqrt(math.Max(p*(1-p), 0.0025)/float64(r.Runs)) }
		mark := func(bad bool, x float64) string {
			if bad {
				missed = append(missed, r.Setting.String())
				return fmt.Sprintf("%.3f ✗", x)
			}
			return fmt.Sprintf("%.3f", x)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %.2f | %s | %s | %d | %.3f | %s |\n", r.Setting, r.Runs,
			mark(r.AA > 0.06+se(0.06), r.AA), mark(r.CoverageAA < 0.93-se(0.93), r.CoverageAA), r.Setting.Ratio,
			mark(r.CoveragePower < 0.93-se(0.93), r.CoveragePower), mark(r.CoverageDiff < 0.93-se(0.93), r.CoverageDiff),
			r.Pilots, r.Reported, mark(math.Abs(r.Reported-r.Achieved) > 0.05+se(r.Achieved), r.Achieved))
	}
	b.WriteString("\n### Cost bounds missed\n\n")
	if len(missed) == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString(strings.Join(missed, ", ") + "\n")
	}
	return b.String()
}
