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

// The count model of the calibration (CountPairs), for the waste outcomes (repeated calls): per task, the
// chance that an attempt wastes anything at all is logistic(μ + σZ) (countLogitMean, countLogitSigma: from
// tasks that almost never loop to tasks that almost always do), and a wasting attempt's count is Poisson with
// a mean countMean·e^(σZ) per task (σ = countSigmaTask) times the lognormal draws of the token model (per arm
// and task, per pair, per attempt).
const (
	countLogitMean  = -1.0
	countLogitSigma = 1.5
	countMean       = 4.0
	countSigmaTask  = 1.0
)

// Cost models of the calibration (CostCalSetting.Model).
const (
	// CostModelTokens: lognormal, heavy-tailed tokens (CostPairs).
	CostModelTokens = "tokens"
	// CostModelCounts: discrete, zero-inflated counts of repeated calls (CountPairs).
	CostModelCounts = "counts"
)

// CostCalSetting is one setting of the cost calibration: G tasks × R reps, the true ratio of means of the
// power runs, and the cost model (CostModelTokens when empty, or CostModelCounts).
type CostCalSetting struct {
	G, R  int
	Ratio float64
	Model string
}

// String names the setting, e.g. "G=10 R=2", "counts G=10 R=2".
func (s CostCalSetting) String() string {
	if s.Model == CostModelCounts {
		return fmt.Sprintf("counts G=%d R=%d", s.G, s.R)
	}
	return fmt.Sprintf("G=%d R=%d", s.G, s.R)
}

// CostSettings returns the cost calibration's settings: for tokens then for counts, G ∈ {6, 10, 14, 30} × R ∈
// {1, 2, 5}; tokens with a true ratio of 1.6 at G = 6, 1.4 at 10 and 14, 1.25 at 30, counts (noisier) 2.5, 2,
// 2 and 1.5 (power neither 0 nor 1).
func CostSettings() []CostCalSetting {
	var out []CostCalSetting
	for _, m := range []string{CostModelTokens, CostModelCounts} {
		for _, g := range []int{6, 10, 14, 30} {
			ratio := map[int]float64{6: 1.6, 10: 1.4, 14: 1.4, 30: 1.25}[g]
			if m == CostModelCounts {
				ratio = map[int]float64{6: 2.5, 10: 2, 14: 2, 30: 1.5}[g]
			}
			for _, r := range []int{1, 2, 5} {
				out = append(out, CostCalSetting{G: g, R: r, Ratio: ratio, Model: m})
			}
		}
	}
	return out
}

// CostCalResult is the outcome of CalibrateCost for one setting; rates are shares of runs.
type CostCalResult struct {
	Setting CostCalSetting
	Runs    int
	// AA is the A/A rejection rate of p < 0.05; CoverageAA and CoveragePower the shares of runs whose ratio
	// interval covers the true ratio (1, Setting.Ratio), among the runs with a ratio (the baseline's mean not
	// 0); CoverageDiff that of the difference's interval in the power runs (all of them).
	AA, CoverageAA, CoveragePower, CoverageDiff float64
	// NoRatioAA and NoRatioPower are the shares of A/A and power runs without a ratio: the baseline's mean is
	// 0 (counts that are 0 on every baseline attempt; the report prints "n/a" and the difference's interval).
	NoRatioAA, NoRatioPower float64
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

// CountPairs draws the matched pairs of one simulated run of the count model (the constants above): g tasks × r
// reps of RepeatedCalls, the variant's task t with its Poisson mean multiplied by ratio·exp(σZ − σ²/2) (σ =
// costSigmaEffect; none when ratio is 1: an A/A run). The population ratio of means is ratio.
func CountPairs(rng *rand.Rand, g, r int, ratio float64) []RecPair {
	ln := func(s float64) float64 { return math.Exp(s*rng.NormFloat64() - s*s/2) }
	out := make([]RecPair, 0, g*r)
	for t := range g {
		task := fmt.Sprintf("t%03d", t)
		pi := 1 / (1 + math.Exp(-(countLogitMean + countLogitSigma*rng.NormFloat64())))
		mu := countMean * ln(countSigmaTask)
		k := 1.0
		if ratio != 1 {
			k = ratio * ln(costSigmaEffect)
		}
		armA, armB := ln(costSigmaArm), ln(costSigmaArm)
		draw := func(m float64) *int {
			n := 0
			if rng.Float64() < pi {
				n = poisson(rng, m*ln(costSigmaOwn))
			}
			return &n
		}
		for rep := range r {
			s := ln(costSigmaPair)
			a := &results.Attempt{TaskID: task, Rep: rep, Status: results.StatusPass, RepeatedCalls: draw(mu * armA * s)}
			b := &results.Attempt{TaskID: task, Rep: rep, Status: results.StatusPass, RepeatedCalls: draw(k * mu * armB * s)}
			out = append(out, RecPair{A: a, B: b})
		}
	}
	return out
}

// poisson draws a Poisson count of mean m (Knuth's product of uniforms; m is capped at 500, far above the
// model's means, so that e^−m stays a normal float64).
func poisson(rng *rand.Rand, m float64) int {
	limit, p, n := math.Exp(-math.Min(m, 500)), 1.0, 0
	for {
		p *= rng.Float64()
		if p <= limit {
			return n
		}
		n++
	}
}

// costMeans is the analysis' comparison of outcome o over the pairs.
func costMeans(pairs []RecPair, o results.CostOutcome) (stats.MeansResult, []UnitMeans) {
	us := PerUnit(pairs, o.Value, UnitOf)
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
	// The population difference per attempt: (ratio − 1)·E[μ_t] (E[e^(σZ)] = e^(σ²/2)).
	diff := (s.Ratio - 1) * 40000 * math.Exp(costSigmaTask*costSigmaTask/2)
	draw, o := CostPairs, results.CostTokens
	if s.Model == CostModelCounts {
		draw, o = CountPairs, results.CostRepeatedCalls
		diff = (s.Ratio - 1) * countMean * countWasteShare() // the per-task means μ_t have mean countMean
	}
	for range runs {
		m, _ := costMeans(draw(rng, s.G, s.R, 1), o)
		if m.P < 0.05 {
			res.AA++
		}
		if math.IsNaN(m.Ratio) {
			res.NoRatioAA++
		} else if in(m.RatioCI, 1) {
			res.CoverageAA++
		}
		m, _ = costMeans(draw(rng, s.G, s.R, s.Ratio), o)
		if m.P < 0.05 && m.Ratio > 1 {
			res.Achieved++
		}
		if math.IsNaN(m.Ratio) {
			res.NoRatioPower++
		} else if in(m.RatioCI, s.Ratio) {
			res.CoveragePower++
		}
		if in(m.DiffCI, diff) {
			res.CoverageDiff++
		}
	}
	usable := 0
	for i := range pilots {
		_, us := costMeans(draw(rng, s.G, s.R, s.Ratio), o)
		if a, b, ratio, _ := pilotArms(us); ratio > 0 { // PlanCost refuses a pilot without a ratio
			res.Reported += costPower(a, b, s.G, s.Ratio-1, 0.05, seed+uint64(i)) // PlanCost's power
			usable++
		}
	}
	n := float64(runs)
	res.CoverageAA /= max(1, n-res.NoRatioAA)
	res.CoveragePower /= max(1, n-res.NoRatioPower)
	res.AA, res.CoverageDiff, res.NoRatioAA, res.NoRatioPower = res.AA/n, res.CoverageDiff/n, res.NoRatioAA/n, res.NoRatioPower/n
	res.Achieved /= n
	res.Pilots = usable
	if usable > 0 {
		res.Reported /= float64(usable)
	}
	return res
}

// countWasteShare is E[logistic(countLogitMean + countLogitSigma·Z)], the share of attempts that waste
// anything, by the midpoint rule over ±8 SDs of Z.
func countWasteShare() float64 {
	const n = 4000
	sum := 0.0
	for i := range n {
		z := -8 + 16*(float64(i)+0.5)/n
		sum += math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) * 16 / n / (1 + math.Exp(-(countLogitMean + countLogitSigma*z)))
	}
	return sum
}

// CostCalibrationMarkdown is the CALIBRATION.md section of the cost outcomes' results rs, all of one cost model
// (CostSettings' tokens or counts), made by cmd in took.
func CostCalibrationMarkdown(rs []CostCalResult, cmd string, took time.Duration) string {
	var b strings.Builder
	counts := len(rs) > 0 && rs[0].Setting.Model == CostModelCounts
	if counts {
		fmt.Fprintf(&b, "\n## Cost outcomes: zero-inflated counts (repeated calls)\n\nProduced by `%s` in %s. "+
			"Simulated pairs of `repeated_calls` per attempt, discrete and zero-inflated: per task, an attempt wastes "+
			"anything with probability logistic(%.1f + %.1f·Z) (mean %.2f: most attempts repeat nothing), and then "+
			"a Poisson count of mean %.0f·e^(σZ) (σ = %.1f between tasks) times the token model's lognormal draws per "+
			"(arm, task), per (task, rep) and per attempt (σ %.1f, %.1f, %.1f), and in the power runs a per-task "+
			"effect ratio·e^(σZ−σ²/2) (σ %.1f) on the Poisson mean — through `analysis.PerUnit` and "+
			"`stats.PairedMeans`, as the waste outcomes are compared.\n\n",
			cmd, took.Round(time.Second), countLogitMean, countLogitSigma, countWasteShare(), countMean,
			countSigmaTask, costSigmaArm, costSigmaPair, costSigmaOwn, costSigmaEffect)
	} else {
		fmt.Fprintf(&b, "\n## Cost outcomes\n\nProduced by `%s` in %s. Simulated pairs of tokens per attempt, "+
			"lognormal and heavy-tailed: per-task means 40,000·e^(σZ) with σ = %.1f between tasks, a per-(arm, task) draw "+
			"shared by the arm's reps (σ %.1f: correlated reps), a per-(task, rep) draw shared by both arms (σ %.1f: the "+
			"same seed), each attempt's own draw (σ %.1f), and in the power runs a per-task effect ratio·e^(σZ−σ²/2) "+
			"(σ %.1f) — through the analysis' pairing layer (`analysis.PerUnit`) and test (`stats.PairedMeans`).\n\n",
			cmd, took.Round(time.Second), costSigmaTask, costSigmaArm, costSigmaPair, costSigmaOwn, costSigmaEffect)
	}
	b.WriteString("- `A/A` = rejection rate of p < 0.05 with no effect; `covAA`, `cov` = coverage of the true ratio " +
		"(1, the setting's) by the 95 % interval of the ratio of means; `covΔ` = coverage of the true difference " +
		"per attempt; `reported` = mean power `bench power --outcome` (analysis.PlanCost) reports from a pilot " +
		"run of the same design (its own ratio divided out); `achieved` = share of power runs with p < 0.05 and the ratio above 1.\n")
	if counts {
		b.WriteString("- `no ratio` = shares of A/A and power runs whose baseline mean is 0 (no repeated call in the " +
			"baseline arm): the report has no ratio then (\"n/a\", the gate cannot fail) and gives the difference's " +
			"t interval; `covAA` and `cov` are over the runs with a ratio, `covΔ` over all; `pilots` counts the pilots " +
			"with a ratio (PlanCost refuses the others).\n")
	}
	b.WriteString("- Bounds: A/A ≤ 0.06, coverage ≥ 0.93, |reported − achieved| ≤ 0.05; ✗ = missed by more than 1.96 " +
		"binomial SEs.\n\n")
	extra, sep := "", ""
	if counts {
		extra, sep = " no ratio |", "---|"
	}
	b.WriteString("| setting | runs | A/A | covAA | ratio | cov | covΔ |" + extra + " pilots | reported | achieved |\n")
	b.WriteString("|---|---|---|---|---|---|---|" + sep + "---|---|---|\n")
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
		noRatio := ""
		if counts {
			noRatio = fmt.Sprintf(" %.3f / %.3f |", r.NoRatioAA, r.NoRatioPower)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %.2f | %s | %s |%s %d | %.3f | %s |\n", r.Setting, r.Runs,
			mark(r.AA > 0.06+se(0.06), r.AA), mark(r.CoverageAA < 0.93-se(0.93), r.CoverageAA), r.Setting.Ratio,
			mark(r.CoveragePower < 0.93-se(0.93), r.CoveragePower), mark(r.CoverageDiff < 0.93-se(0.93), r.CoverageDiff),
			noRatio, r.Pilots, r.Reported, mark(math.Abs(r.Reported-r.Achieved) > 0.05+se(r.Achieved), r.Achieved))
	}
	if counts {
		b.WriteString("\n### Count bounds missed\n\n")
	} else {
		b.WriteString("\n### Cost bounds missed\n\n")
	}
	if len(missed) == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString(strings.Join(missed, ", ") + "\n")
	}
	return b.String()
}
