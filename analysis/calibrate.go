package analysis

// The calibration suite (CALIBRATION.md): simulated ablations in
// its 36 settings, built as the runner builds them (sim.go) and fed to
// the real Analyze, measuring the A/A rejection rate of every p the report
// shows, the family-wise error and gate rate over 7 identical variants, the
// reported vs achieved power of the primary test, and interval coverage.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// powerLevel limits the post-hoc power analysis (Inputs.power).
type powerLevel int

const (
	powerFull powerLevel = iota
	powerOnly
	powerNone
)

// CalSetting is one setting of the calibration suite: G tasks with rates
// from IssueMix, R reps, an outcome model with share 0.8, and the true
// pass-rate change Delta of the power runs (negative: a drop).
type CalSetting struct {
	G, R  int
	Model string
	Share float64
	Delta float64
}

// String names the setting, e.g. "G=40 R=5 same_seed".
func (s CalSetting) String() string { return fmt.Sprintf("G=%d R=%d %s", s.G, s.R, s.Model) }

// CalDelta is the true drop of the power runs at G tasks: chosen so that the
// primary test's power is neither 0 nor 1 in most settings (for
// example −31 pts at G = 6, −8 pts at G = 40).
func CalDelta(g int) float64 {
	switch {
	case g <= 6:
		return -0.31
	case g <= 12:
		return -0.2
	case g <= 40:
		return -0.08
	default:
		return -0.05
	}
}

// IssueSettings returns the calibration suite's 36 settings: G ∈ {6, 12, 40, 100} ×
// R ∈ {1, 2, 5} × {independent, same-seed, sticky} (share 0.8), with
// Delta = CalDelta(G).
func IssueSettings() []CalSetting {
	var out []CalSetting
	for _, g := range []int{6, 12, 40, 100} {
		for _, r := range []int{1, 2, 5} {
			for _, m := range []string{ModelIndependent, ModelSameSeed, ModelSticky} {
				out = append(out, CalSetting{G: g, R: r, Model: m, Share: 0.8, Delta: CalDelta(g)})
			}
		}
	}
	return out
}

// CalVariants is the number of identical variants of an A/A run.
const CalVariants = 7

// Main-table p fields of a comparison (CalResult.AA keys, bounded by
// CalBoundAA), and the diagnostics that assume independent attempts
// (reported, not bounded).
var (
	CalMainP        = []string{"p_paired", "p_perm", "p_mcnemar_clustered", "p_holm", "p_holm_targets"}
	CalDiagnosticsP = []string{"p_mcnemar", "p_cmh"}
)

// CalResult is the outcome of Calibrate for one setting. Rates are shares
// of runs.
type CalResult struct {
	Setting CalSetting
	// RunsAA and RunsPower are the numbers of simulated A/A and power runs.
	RunsAA, RunsPower int
	// AA maps a p field of the report to its A/A rejection rate at Alpha:
	// p_paired, p_perm, p_mcnemar_clustered and the diagnostics p_mcnemar
	// and p_cmh of variant 1's all-tasks row; p_holm the family-wise rate
	// over the 7 variants (FWER); p_holm_targets the family-wise rate over
	// every target-task row (each variant switches one guard tagged on half
	// the tasks; Holm within the target rows).
	AA map[string]float64
	// FWER is the share of A/A runs where some variant's p_holm < Alpha;
	// GateAA the share where the gate (margin 0) failed some variant.
	FWER, GateAA float64
	// CoverageAA and CoveragePower are the shares of runs whose 95% Δ
	// interval (variant 1) covers the true Δ (0, resp. Setting.Delta).
	CoverageAA, CoveragePower float64
	// Predicted is the planner's power for the setting (PowerPrimary on the
	// IssueMix design, as `bench power --mix seeds` prints it); Reported the
	// mean post-hoc power the reports print (PowerAnalysis.Power at the true
	// |Δ| as min_effect); Achieved the share of power runs with P < Alpha
	// and Δ̂ < 0.
	Predicted, Reported, Achieved float64
}

// Calibrate simulates one setting: runsAA A/A runs (a baseline and
// CalVariants identical variants, variant i switching guard g<i> that is
// tagged on the tasks t with t+i even) and runsPower runs of a baseline
// against one variant with rates ShiftRates(rates, s.Delta), task rates
// drawn from IssueMix afresh per run, all from a PCG generator seeded with
// seed, each analysed by Analyze at alpha.
func Calibrate(s CalSetting, runsAA, runsPower int, alpha float64, seed uint64) CalResult {
	rng := rand.New(rand.NewPCG(seed, uint64(s.G*100+s.R)))
	res := CalResult{Setting: s, RunsAA: runsAA, RunsPower: runsPower, AA: map[string]float64{}}
	for _, k := range slices.Concat(CalMainP, CalDiagnosticsP) {
		res.AA[k] = 0 // every field present, also when never rejected
	}
	in := calAAInputs(s.G, alpha)
	names := append([]string{"baseline"}, in.Variants...)
	for range runsAA {
		rates := IssueMix(rng, s.G)
		d := Design{Rates: rates, Rep: s.R, Model: s.Model, Share: s.Share}
		arms := make([][]float64, len(names))
		for i := range arms {
			arms[i] = rates
		}
		a := Analyze(SimRecords(d, names, SimOutcomes(rng, d, arms), 1), in)
		calAARun(&res, a, alpha)
	}
	n := float64(max(1, runsAA))
	for k := range res.AA {
		res.AA[k] /= n
	}
	res.FWER = res.AA["p_holm"]
	res.GateAA /= n
	res.CoverageAA /= n
	calPower(&res, rng, alpha)
	return res
}

// calAAInputs returns the Inputs of Calibrate's A/A runs over g tasks:
// CalVariants variants, variant i switching guard g<i>, tagged on the tasks
// t with t+i even; no power analysis.
func calAAInputs(g int, alpha float64) Inputs {
	in := Inputs{Baseline: "baseline", Alpha: alpha, CMH: true, power: powerNone,
		Switched: map[string][]string{}, TaskTags: map[string][]string{}}
	for i := 1; i <= CalVariants; i++ {
		v, guard := fmt.Sprintf("v%d", i), fmt.Sprintf("g%d", i)
		in.Variants = append(in.Variants, v)
		in.Switched[v] = []string{guard}
		for t := range g {
			if (t+i)%2 == 0 {
				in.TaskTags[SimTaskID(t)] = append(in.TaskTags[SimTaskID(t)], guard)
			}
		}
	}
	return in
}

// calAARun adds one A/A analysis to the counts of res.
func calAARun(res *CalResult, a *Analysis, alpha float64) {
	c := a.Variants[0].All
	rej := func(k string, p float64) {
		if p < alpha {
			res.AA[k]++
		}
	}
	rej("p_paired", c.P)
	rej("p_perm", c.Paired.PPerm)
	rej("p_mcnemar_clustered", c.PMcNemarClustered)
	rej("p_mcnemar", c.PMcNemar)
	if c.CMH != nil {
		rej("p_cmh", c.CMH.P)
	}
	holm, targets := 1.0, 1.0
	for _, vr := range a.Variants {
		holm = min(holm, vr.PHolm)
		for _, t := range vr.Targets {
			targets = min(targets, t.PHolm)
		}
	}
	rej("p_holm", holm)
	rej("p_holm_targets", targets)
	if failed, _ := a.Gate(0); failed {
		res.GateAA++
	}
	if c.CI[0] <= 0 && 0 <= c.CI[1] {
		res.CoverageAA++
	}
}

// calPower runs the power half of Calibrate.
func calPower(res *CalResult, rng *rand.Rand, alpha float64) {
	s := res.Setting
	res.Predicted, _ = PowerPrimary(Design{Mix: IssueMix, Tasks: s.G, Rep: s.R, Model: s.Model, Share: s.Share},
		s.Delta, alpha)
	reported := 0.0
	nrep := 0
	for range res.RunsPower {
		rates := IssueMix(rng, s.G)
		delta := clampDelta(rates, s.Delta)
		d := Design{Rates: rates, Rep: s.R, Model: s.Model, Share: s.Share}
		recs := SimRecords(d, []string{"baseline", "v"}, SimOutcomes(rng, d, [][]float64{rates, ShiftRates(rates, delta)}), 1)
		a := Analyze(recs, Inputs{Baseline: "baseline", Variants: []string{"v"}, Alpha: alpha,
			MinEffect: math.Abs(s.Delta), power: powerOnly})
		c := a.Variants[0].All
		if c.P < alpha && c.Delta < 0 {
			res.Achieved++
		}
		if c.CI[0] <= delta && delta <= c.CI[1] {
			res.CoveragePower++
		}
		if pw := c.Power.Power; !math.IsNaN(pw) {
			reported += pw
			nrep++
		}
	}
	n := float64(max(1, res.RunsPower))
	res.Achieved /= n
	res.CoveragePower /= n
	res.Reported = math.NaN()
	if nrep > 0 {
		res.Reported = reported / float64(nrep)
	}
}

// Calibration bounds: the rates the calibration suite must stay within.
const (
	// CalBoundAA bounds the A/A rejection rate of every p in the main table.
	CalBoundAA = 0.06
	// CalBoundGate bounds the A/A gate rate (α/2 at α = 0.05).
	CalBoundGate = 0.025
	// CalBoundCoverage is the least coverage of a 95% Δ interval (G ≥ 6).
	CalBoundCoverage = 0.93
	// CalBoundPower bounds |planner power − achieved power|.
	CalBoundPower = 0.05
)

// binomSlack is 1.96 binomial standard errors of a rate near p over n runs:
// a bound is flagged only when the estimate misses it by more than that.
func binomSlack(p float64, n int) float64 {
	p = math.Max(p, 0.01)
	return 1.96 * math.Sqrt(p*(1-p)/float64(max(1, n)))
}

// CalibrationMarkdown renders Calibrate results as CALIBRATION.md: one row
// per setting, every bounded figure with a ✗ when it misses its bound by
// more than 1.96 binomial SEs, the diagnostics' rates in their own columns
// (no bound: they assume independent attempts), and the list of misses; cmd
// is the command that produced it.
func CalibrationMarkdown(res []CalResult, cmd string, took time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Calibration of the ablation statistics\n\n")
	fmt.Fprintf(&b, "Produced by `%s` (`make calibrate`) in %s. Simulated ablations: task pass rates from the seeds mix "+
		"(40 %% always pass, 20 %% always fail, 40 %% uniform in 0.2–0.9, drawn afresh per run), G tasks × R reps, "+
		"three outcome models (share 0.8), records built as the runner builds them (analysis.SimRecords: pair ids, "+
		"seeds, variants) and fed to the real `analysis.Analyze` at α = 0.05.\n\n", cmd, took.Round(time.Second))
	b.WriteString("- **A/A** columns (main table): one baseline and 7 identical variants, variant i switching guard g<i> " +
		"tagged on half the tasks; rejection rate at 0.05 of p_paired, p_perm and p_mcnemar_clustered (variant 1), " +
		"`p_holm` = share of runs where some variant's p_holm < 0.05 (family-wise error), `p_holm_targets` = the same " +
		"over all target-task rows, `gate` = share of runs where the gate (margin 0) fails some variant, " +
		"`cov0` = coverage of Δ = 0 by the 95 % interval.\n")
	b.WriteString("- **Diagnostics** columns: p_mcnemar (pooled McNemar) and p_cmh (Mantel–Haenszel over tasks): " +
		"diagnostic, assumes independent attempts (no bound); the report shows them only in its Diagnostics table.\n")
	b.WriteString("- **Power** columns: baseline against one variant whose per-task rates are `ShiftRates(rates, Δ)`; " +
		"`planned` = `bench power --tasks G --reps R --mix seeds --pairing … --effect Δ` (analysis.PowerPrimary on the " +
		"mix), `reported` = mean post-hoc power the report prints (PowerAnalysis.Power with min_effect |Δ|), " +
		"`achieved` = share of runs with p_paired < 0.05 and Δ̂ < 0, `covΔ` = coverage of the true Δ.\n")
	fmt.Fprintf(&b, "- Bounds: every main-table p ≤ %.2f, gate ≤ %.3f, coverage ≥ %.2f, |planned − achieved| ≤ %.2f; ✗ = missed "+
		"by more than 1.96 binomial SEs.\n\n", CalBoundAA, CalBoundGate, CalBoundCoverage, CalBoundPower)
	b.WriteString("| setting | runs | " + strings.Join(CalMainP, " | ") + " | gate | cov0 | " +
		strings.Join(CalDiagnosticsP, " (diagnostic) | ") + " (diagnostic) | Δ | planned | reported | achieved | covΔ |\n")
	b.WriteString("|---|---|" + strings.Repeat("---|", len(CalMainP)+len(CalDiagnosticsP)+7) + "\n")
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
		cells := []string{r.Setting.String(), fmt.Sprint(r.RunsAA)}
		for _, k := range CalMainP {
			cells = append(cells, cell(k, r.AA[k], CalBoundAA, true, r.RunsAA))
		}
		cells = append(cells, cell("gate", r.GateAA, CalBoundGate, true, r.RunsAA),
			cell("cov0", r.CoverageAA, CalBoundCoverage, false, r.RunsAA))
		for _, k := range CalDiagnosticsP {
			cells = append(cells, fmt.Sprintf("%.3f", r.AA[k]))
		}
		pw := fmt.Sprintf("%.3f", r.Achieved)
		if math.Abs(r.Predicted-r.Achieved) > CalBoundPower+binomSlack(r.Achieved, r.RunsPower) {
			misses = append(misses, fmt.Sprintf("%s: planned power %.3f vs achieved %.3f", r.Setting, r.Predicted, r.Achieved))
			pw += " ✗"
		}
		cells = append(cells, fmt.Sprintf("%+.2f", r.Setting.Delta), fmt.Sprintf("%.3f", r.Predicted),
			fmt.Sprintf("%.3f", r.Reported), pw, cell("covΔ", r.CoveragePower, CalBoundCoverage, false, r.RunsPower))
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\n## Bounds missed\n\n")
	if len(misses) == 0 {
		b.WriteString("None.\n")
	}
	for _, m := range misses {
		fmt.Fprintf(&b, "- %s\n", m)
	}
	return b.String()
}
