package analysis

// The sequential rows of the calibration suite (CALIBRATION.md "Sequential
// ablations"): simulated ablations monitored after every unit (seqsim.go),
// measuring the A/A false efficacy stops (one variant, and seven with Holm),
// the repeated interval's coverage over all looks, the power at the planned
// size against the fixed design's on the same draws, and the attempts saved
// at twice the fixed design's minimum detectable effect.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"webbench/stats"
)

// SeqCalSetting is one sequential calibration setting: a paired design
// (Paired, its tasks the units) or, when Cluster.C > 0, a clustered one
// (families the units, family means of their instances' differences).
type SeqCalSetting struct {
	Paired  Design
	Cluster ClusterSetting
}

// String names the setting, e.g. "K=40 R=1 same_seed" or "C=20 m=4 R=1 moderate".
func (s SeqCalSetting) String() string {
	if s.Cluster.C > 0 {
		return s.Cluster.String()
	}
	return fmt.Sprintf("K=%d R=%d %s", s.Paired.Tasks, s.Paired.Rep, s.Paired.Model)
}

// units returns the planned units.
func (s SeqCalSetting) units() int {
	if s.Cluster.C > 0 {
		return s.Cluster.C
	}
	return s.Paired.Tasks
}

// unitDesign is the design the fixed planner uses for the setting's MDE.
func (s SeqCalSetting) unitDesign() Design {
	if s.Cluster.C > 0 {
		return ClusterUnitDesign(s.Cluster)
	}
	return s.Paired
}

// SeqSettings returns the sequential calibration settings: paired designs of
// 12, 40 and 100 tasks from IssueMix (correlated binary pairs: same-seed
// arms, sticky reps, independent attempts; share 0.8) and clustered ones
// (families of 4 instances, moderate and strong within-family correlation).
func SeqSettings() []SeqCalSetting {
	p := func(g, r int, model string) SeqCalSetting {
		return SeqCalSetting{Paired: Design{Mix: IssueMix, Tasks: g, Rep: r, Model: model, Share: 0.8}}
	}
	c := func(n, m, r int, corr string) SeqCalSetting {
		sigma, kappa := corrParams(corr)
		return SeqCalSetting{Cluster: ClusterSetting{C: n, M: m, R: r, Corr: corr, Sigma: sigma, Kappa: kappa}}
	}
	return []SeqCalSetting{
		p(12, 5, ModelSameSeed), p(40, 1, ModelSameSeed), p(40, 5, ModelSameSeed), p(40, 2, ModelIndependent),
		p(40, 5, ModelSticky), p(100, 2, ModelSameSeed),
		c(20, 4, 1, CorrModerate), c(30, 4, 2, CorrStrong),
	}
}

// draw draws one run of the setting with the given variants at change delta.
func (s SeqCalSetting) draw(rng *rand.Rand, variants int, delta float64) seqDraw {
	if s.Cluster.C == 0 {
		return designDraw(rng, s.Paired, variants, delta)
	}
	cs := s.Cluster
	rates := clusterRates(rng, cs)
	delta = clampDelta(rates, delta)
	arms := [][]float64{rates}
	for range variants {
		arms = append(arms, ShiftRates(rates, delta))
	}
	out := clusterOutcomes(rng, cs, arms)
	x := seqDraw{diffs: make([][]float64, variants), reps: make([]int, cs.C), delta: delta}
	order := rng.Perm(cs.C)
	for v := range x.diffs {
		x.diffs[v] = make([]float64, cs.C)
	}
	for u, f := range order {
		x.reps[u] = cs.M * cs.R
		for v := range variants {
			k := 0
			for i := range cs.M {
				for r := range cs.R {
					k += int(b2f(out[v+1][f*cs.M+i][r])) - int(b2f(out[0][f*cs.M+i][r]))
				}
			}
			x.diffs[v][u] = float64(k) / float64(cs.M*cs.R)
		}
	}
	return x
}

// SeqCalDesign is the sequential design the calibration monitors, beyond
// the setting's size and α: the spending function and its time scale.
type SeqCalDesign struct {
	// Spending is the spending function (zero: stats' default).
	Spending stats.Spending
	// InfoScale spends on the information fraction, the planned information
	// being the mean Σd² of SeqInfoDraws draws of the setting at a drop of
	// InfoAt (0: A/A); false: on the share of units.
	InfoScale bool
	InfoAt    float64
}

// SeqShipped is the design the runner and `bench power --sequential` use.
var SeqShipped = SeqCalDesign{}

// SeqInfoDraws is the number of A/A draws the planned information is the mean of.
const SeqInfoDraws = 200

// design returns the stats design of v variants over the setting's units.
func (cd SeqCalDesign) design(s SeqCalSetting, rng *rand.Rand, alpha float64, v int, minEffect float64) stats.SeqDesign {
	d := stats.SeqDesign{Alpha: alpha, MinEffect: minEffect, Variants: v, MaxUnits: s.units(), Spending: cd.Spending}
	if cd.InfoScale {
		d.Info = planInfo(func() seqDraw { return s.draw(rng, 1, -cd.InfoAt) })
	}
	return d
}

// planInfo is the mean over SeqInfoDraws draws of the first variant's Σd²
// over all its units: the planned information of a design.
func planInfo(draw func() seqDraw) float64 {
	sum := 0.0
	for range SeqInfoDraws {
		for _, d := range draw().diffs[0] {
			sum += d * d
		}
	}
	return math.Max(1e-3, sum/SeqInfoDraws)
}

// lateMoved reorders each variant's units so that those that moved (d ≠ 0)
// come last, in their order: drift in time, the order the calendar
// spending on equally spaced boundaries did not hold its level in. The
// reps follow the first variant's order.
func lateMoved(x seqDraw) seqDraw {
	for v, d := range x.diffs {
		idx := make([]int, len(d))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return d[idx[a]] == 0 && d[idx[b]] != 0 })
		nd := make([]float64, len(d))
		nr := make([]int, len(d))
		for i, j := range idx {
			nd[i] = d[j]
			nr[i] = x.reps[j]
		}
		x.diffs[v] = nd
		if v == 0 {
			x.reps = nr
		}
	}
	return x
}

// SeqCalResult is the outcome of CalibrateSequential for one setting. Rates
// are shares of runs.
type SeqCalResult struct {
	Setting SeqCalSetting
	Runs    int
	// FalseStop is the A/A share of runs where the one variant was stopped
	// for efficacy; FalseStopLate the same with the moved units last
	// (lateMoved); FWER7 the share where any of CalVariants A/A variants was
	// (Holm across them, SeqDecide).
	FalseStop, FalseStopLate, FWER7 float64
	// CoverAA and CoverMDE are the shares of runs whose repeated interval
	// (one variant) held the true difference at every look (A/A, resp. at
	// the fixed design's MDE).
	CoverAA, CoverMDE float64
	// MDE is the fixed design's minimum detectable drop at power 0.8
	// (MDEPrimary on the unit design); PowerSeq the share of runs stopped
	// "worse" by the planned units at a drop of MDE, PowerFixed the fixed
	// sign-flip test's share on the same draws.
	MDE, PowerSeq, PowerFixed float64
	// Saved2 is 1 − mean attempts / fixed attempts at a drop of 2·MDE (one
	// variant), PowerSeq2 the share stopped "worse" there.
	Saved2, PowerSeq2 float64
	// With the futility margin MinEffect = MDE: WrongFutile is the share of
	// runs at a true drop of MDE decided futile ("no drop of MDE or more",
	// an error), FutileAA the share of A/A runs decided futile (right) and
	// SavedAA the attempts those A/A runs saved.
	WrongFutile, FutileAA, SavedAA float64
}

// CalibrateSequential simulates one setting at alpha: runs A/A runs of one
// variant and runs/2 of CalVariants variants, and runs runs of one variant
// at a drop of MDE and of 2·MDE, from a PCG generator seeded with seed.
// The design has MinEffect 0 (futility off), so that every stop counted is
// an efficacy stop.
func CalibrateSequential(s SeqCalSetting, runs int, alpha float64, seed uint64) SeqCalResult {
	return calibrateSeq(s, SeqShipped, runs, alpha, seed, true)
}

// calibrateSeq is CalibrateSequential of design cd; without full, only the
// one-variant A/A, late-moved, MDE and 2·MDE runs (no 7 variants, no
// futility).
func calibrateSeq(s SeqCalSetting, cd SeqCalDesign, runs int, alpha float64, seed uint64, full bool) SeqCalResult {
	rng := rand.New(rand.NewPCG(seed, uint64(s.units())))
	r := SeqCalResult{Setting: s, Runs: runs}
	one := cd.design(s, rng, alpha, 1, 0)
	for range runs {
		o := monitor(one, s.draw(rng, 1, 0))
		r.FalseStop += b2f(o.stop[0] != stats.SeqUndecided)
		r.CoverAA += b2f(o.covered[0])
		o = monitor(one, lateMoved(s.draw(rng, 1, 0)))
		r.FalseStopLate += b2f(o.stop[0] != stats.SeqUndecided)
	}
	seven := one
	seven.Variants = CalVariants
	sevenRuns := 0
	if full {
		sevenRuns = runs / 2
	}
	for range sevenRuns {
		o := monitor(seven, s.draw(rng, CalVariants, 0))
		any := false
		for _, st := range o.stop {
			any = any || st != stats.SeqUndecided
		}
		r.FWER7 += b2f(any)
	}
	r.MDE = MDEPrimary(s.unitDesign(), alpha, 0.8, true)
	if !math.IsNaN(r.MDE) {
		saved := 0.0
		for range runs {
			o := monitor(one, s.draw(rng, 1, -r.MDE))
			r.PowerSeq += b2f(o.stop[0] == stats.SeqWorse)
			r.PowerFixed += b2f(o.fixed[0] == stats.SeqWorse)
			r.CoverMDE += b2f(o.covered[0])
			o = monitor(one, s.draw(rng, 1, -2*r.MDE))
			r.PowerSeq2 += b2f(o.stop[0] == stats.SeqWorse)
			saved += 1 - float64(o.attempts)/float64(o.fixedAttempts)
		}
		r.Saved2 = saved / float64(runs)
		if full {
			calFutility(&r, s, one, rng)
		}
	}
	n := float64(max(1, runs))
	r.FalseStop /= n
	r.FalseStopLate /= n
	r.CoverAA /= n
	r.FWER7 /= float64(max(1, sevenRuns))
	r.PowerSeq /= n
	r.PowerFixed /= n
	r.CoverMDE /= n
	r.PowerSeq2 /= n
	return r
}

// calFutility fills the futility columns of r: runs at a drop of r.MDE and
// A/A runs of design one with the margin MinEffect = r.MDE.
func calFutility(r *SeqCalResult, s SeqCalSetting, one stats.SeqDesign, rng *rand.Rand) {
	if r.MDE >= 1 {
		return
	}
	fut := one
	fut.MinEffect = r.MDE
	saved := 0.0
	for range r.Runs {
		o := monitor(fut, s.draw(rng, 1, -r.MDE))
		r.WrongFutile += b2f(o.stop[0] == stats.SeqFutile)
		o = monitor(fut, s.draw(rng, 1, 0))
		r.FutileAA += b2f(o.stop[0] == stats.SeqFutile)
		saved += 1 - float64(o.attempts)/float64(o.fixedAttempts)
	}
	n := float64(max(1, r.Runs))
	r.WrongFutile /= n
	r.FutileAA /= n
	r.SavedAA = saved / n
}

// Bounds of the sequential calibration.
const (
	// SeqBoundCoverage is the least share of runs whose repeated interval
	// covers the true difference at every look.
	SeqBoundCoverage = 0.95
	// SeqBoundPower bounds fixed power − sequential power at the planned size.
	SeqBoundPower = 0.05
	// SeqBoundSaved is the least share of the fixed design's attempts saved
	// at twice its MDE.
	SeqBoundSaved = 0.40
)

// SeqSectionHeading is the heading of CALIBRATION.md's sequential section.
const SeqSectionHeading = "## Sequential ablations"

// SeqCalibrationMarkdown renders CalibrateSequential results as the
// sequential section of CALIBRATION.md at level alpha, a ✗ on every figure
// that misses its bound by more than 1.96 binomial SEs (the saving, a mean,
// by more than 0.01), and the list of misses; cmd is the command that
// produced it.
func SeqCalibrationMarkdown(res []SeqCalResult, alpha float64, cmd string, took time.Duration) string {
	var b strings.Builder
	mk := "make calibrate-sequential"
	if len(res) > 0 && res[0].Runs != 400 {
		mk += fmt.Sprintf(" CALIBRATE_RUNS=%d", res[0].Runs)
	}
	fmt.Fprintf(&b, "%s\n\nProduced by `%s` (`%s`) in %s. Each variant monitored after every unit by "+
		"`stats.SeqState`, a group-sequential design with two spendings, as the run reports name them: the test, which "+
		"makes the efficacy stops, spends %s over the share of planned units with boundaries on the observed "+
		"information Σd² and an exact sign-flip guard; the repeated interval, which gives the coverage and the "+
		"futility stops, has %s boundaries over the units. Stopped by `stats.SeqDecide` (Holm across variants), as "+
		"the runner stops it; futility off except in the last two columns. Units in a shuffled order; task rates "+
		"from the seeds mix; clustered settings as in \"Clustered designs\" (families the units). α = %.2g.\n\n",
		SeqSectionHeading, cmd, mk, took.Round(time.Second), stats.SeqDefaultSpending, stats.SeqIntervalSpending, alpha)
	b.WriteString("- `false stop`: A/A, one variant, share of runs stopped for efficacy; `late`: the same with the units " +
		"that moved (d ≠ 0) moved last, in their order (drift in time); `FWER 7`: A/A, 7 variants, share of " +
		"runs where any was (Holm); `cov A/A`, `cov MDE`: share of runs whose repeated interval held the true difference " +
		"at every one of the planned looks; `MDE`: the fixed design's minimum detectable drop at power 0.8 " +
		"(`bench power`); `power seq` / `power fixed`: share of runs at a drop of MDE decided worse by the planned " +
		"units / rejected by the fixed sign-flip test on the same draws; `saved 2×MDE`: mean share of the fixed design's " +
		"attempts not run at a drop of 2·MDE (power seq there in brackets); with the futility margin set to the MDE: " +
		"`wrong futile` = share of runs at a true drop of MDE decided \"no drop of MDE or more\", `futile A/A` = share " +
		"of A/A runs decided so, with the attempts they saved in brackets.\n")
	fmt.Fprintf(&b, "- Bounds: false stop, late, FWER 7 and wrong futile ≤ %.2g, coverage ≥ %.2f, power fixed − power seq ≤ %.2f, saved ≥ %.2f; "+
		"✗ = missed by more than 1.96 binomial SEs.\n\n", alpha, SeqBoundCoverage, SeqBoundPower, SeqBoundSaved)
	b.WriteString("| setting | runs | false stop | late | FWER 7 | cov A/A | cov MDE | MDE | power seq | power fixed | " +
		"saved 2×MDE | wrong futile | futile A/A |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var misses []string
	for _, r := range res {
		chk := func(name string, x float64, bad bool) string {
			if !bad {
				return fmt.Sprintf("%.3f", x)
			}
			misses = append(misses, fmt.Sprintf("%s: %s = %.3f", r.Setting, name, x))
			return fmt.Sprintf("%.3f ✗", x)
		}
		n := r.Runs
		cells := []string{r.Setting.String(), fmt.Sprint(n),
			chk("false stop", r.FalseStop, r.FalseStop > alpha+binomSlack(alpha, n)),
			chk("late", r.FalseStopLate, r.FalseStopLate > alpha+binomSlack(alpha, n)),
			chk("FWER 7", r.FWER7, r.FWER7 > alpha+binomSlack(alpha, n/2)),
			chk("cov A/A", r.CoverAA, r.CoverAA < SeqBoundCoverage-binomSlack(SeqBoundCoverage, n)),
			chk("cov MDE", r.CoverMDE, r.CoverMDE < SeqBoundCoverage-binomSlack(SeqBoundCoverage, n)),
			fmt.Sprintf("%.3f", r.MDE),
			chk("power seq", r.PowerSeq, r.PowerFixed-r.PowerSeq > SeqBoundPower+binomSlack(r.PowerFixed, n)),
			fmt.Sprintf("%.3f", r.PowerFixed),
			chk("saved 2×MDE", r.Saved2, r.Saved2 < SeqBoundSaved-0.01) + fmt.Sprintf(" (%.3f)", r.PowerSeq2),
			chk("wrong futile", r.WrongFutile, r.WrongFutile > alpha+binomSlack(alpha, n)),
			fmt.Sprintf("%.3f (%.3f)", r.FutileAA, r.SavedAA)}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\n### Sequential bounds missed\n\n")
	if len(misses) == 0 {
		b.WriteString("None.\n")
	}
	for _, m := range misses {
		fmt.Fprintf(&b, "- %s\n", m)
	}
	return b.String()
}
