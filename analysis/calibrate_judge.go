package analysis

// The calibration of the pass rates corrected for judge error (CALIBRATION.md "Judge-corrected pass rates"):
// simulated arms whose attempts a judge misreads at known rates, an audit of trusted verdicts drawn at random from
// each arm, and the prediction-powered estimate (stats.PPIMean, as CorrectRates uses it) checked for coverage of
// the true pass rate and of the true Δ between two arms.

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"webbench/stats"
)

// JudgeCalSetting is one setting of the judge-error calibration: N attempts per arm, an audit of Audit of them
// per arm, the baseline arm's true pass rate P and the variant's P + Delta, the judge's false-pass rate (a
// failed attempt judged pass) and false-fail rate (a passed one judged fail), and the share of attempts it
// leaves uncertain (prediction 0.5).
type JudgeCalSetting struct {
	N, Audit                        int
	P, Delta                        float64
	FalsePass, FalseFail, Uncertain float64
}

// String names the setting, e.g. "N=400 audit=50 p=0.30".
func (s JudgeCalSetting) String() string {
	return fmt.Sprintf("N=%d audit=%d p=%.2f", s.N, s.Audit, s.P)
}

// JudgeCalSettings are the settings of the calibration: N ∈ {400, 1000} attempts per arm (an audit is a subset:
// a full audit is a plain binomial rate), audits of 50, 100 and 200, true rates 0.3 and 0.7 with a Δ of +0.1, the judge wrong on 10 % of the attempts of each kind and
// uncertain on 5 %.
func JudgeCalSettings() []JudgeCalSetting {
	var out []JudgeCalSetting
	for _, n := range []int{400, 1000} {
		for _, a := range []int{50, 100, 200} {
			for _, p := range []float64{0.3, 0.7} {
				out = append(out, JudgeCalSetting{N: n, Audit: a, P: p, Delta: 0.1, FalsePass: 0.1, FalseFail: 0.1, Uncertain: 0.05})
			}
		}
	}
	return out
}

// JudgeCalResult is one setting's result over Runs simulated runs: how often the corrected interval covered the
// true rate (baseline arm) and the true Δ, the mean interval widths, and for contrast how often the judge's own
// rate's Wilson interval (uncorrected, uncertain out of the denominator) covered the true rate.
type JudgeCalResult struct {
	Setting                           JudgeCalSetting
	Runs                              int
	CoverRate, CoverDelta, CoverNaive float64
	WidthRate, WidthDelta, MeanJudged float64
}

// CalibrateJudge simulates runs runs of setting s from seed (PCG) and counts the coverage of the 95 % intervals.
func CalibrateJudge(s JudgeCalSetting, runs int, seed uint64) JudgeCalResult {
	rng := rand.New(rand.NewPCG(seed, 41))
	res := JudgeCalResult{Setting: s, Runs: runs}
	const conf = 0.95
	for range runs {
		a := simJudgedArm(rng, s, s.P)
		b := simJudgedArm(rng, s, s.P+s.Delta)
		ea, eb := a.correct(conf), b.correct(conf)
		d := stats.PPIDiff(ea, eb, conf)
		if ea.Lo <= s.P && s.P <= ea.Hi {
			res.CoverRate++
		}
		if d.Lo <= s.Delta && s.Delta <= d.Hi {
			res.CoverDelta++
		}
		res.WidthRate += ea.Hi - ea.Lo
		res.WidthDelta += d.Hi - d.Lo
		pass, decided := 0, 0
		for _, f := range append(append([]float64{}, a.fl...), a.fu...) {
			if f != 0.5 {
				decided++
				if f == 1 {
					pass++
				}
			}
		}
		lo, hi := stats.Wilson(pass, decided, 1.959963984540054)
		if lo <= s.P && s.P <= hi {
			res.CoverNaive++
		}
		res.MeanJudged += float64(pass) / float64(max(decided, 1))
	}
	r := float64(runs)
	res.CoverRate, res.CoverDelta, res.CoverNaive = res.CoverRate/r, res.CoverDelta/r, res.CoverNaive/r
	res.WidthRate, res.WidthDelta, res.MeanJudged = res.WidthRate/r, res.WidthDelta/r, res.MeanJudged/r
	return res
}

// judgedArm is one simulated arm: the trusted outcomes and judge predictions of its audited attempts, and the
// predictions of the others.
type judgedArm struct{ y, fl, fu []float64 }

func (a judgedArm) correct(conf float64) stats.PPI { return stats.PPIMean(a.y, a.fl, a.fu, conf, 0, 1) }

// simJudgedArm draws s.N attempts passing with probability p, the judge's verdict on each (wrong at s's rates,
// uncertain at s.Uncertain), and audits the first s.Audit (the attempts are exchangeable, so the first are a
// random subset).
func simJudgedArm(rng *rand.Rand, s JudgeCalSetting, p float64) judgedArm {
	var a judgedArm
	for i := range s.N {
		y := 0.0
		if rng.Float64() < p {
			y = 1
		}
		f := y
		switch u := rng.Float64(); {
		case u < s.Uncertain:
			f = 0.5
		case y == 1 && u < s.Uncertain+s.FalseFail:
			f = 0
		case y == 0 && u < s.Uncertain+s.FalsePass:
			f = 1
		}
		if i < s.Audit {
			a.y, a.fl = append(a.y, y), append(a.fl, f)
		} else {
			a.fu = append(a.fu, f)
		}
	}
	return a
}

// JudgeCalSectionHeading is the heading of the judge-error section of CALIBRATION.md.
const JudgeCalSectionHeading = "## Judge-corrected pass rates"

// JudgeCalibrationMarkdown renders the judge-error calibration as a CALIBRATION.md section; cmd is the command
// that produced it, took its wall time.
func JudgeCalibrationMarkdown(res []JudgeCalResult, cmd string, took time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", JudgeCalSectionHeading)
	fmt.Fprintf(&b, "`%s` (%s). Each run simulates two arms of N attempts (true pass rates p and p + 0.1); a judge "+
		"passes 10 %% of the failed attempts, fails 10 %% of the passed ones and leaves 5 %% uncertain; an audit of "+
		"trusted verdicts is drawn at random from each arm. The corrected rate is the prediction-powered estimate "+
		"(Angelopoulos et al. 2023, *Science*; stats.PPIMean: the judge's rate on the unaudited attempts plus its "+
		"mean error on the audit, uncertain verdicts predicted 0.5), its 95 %% interval ± t·SE (Welch–Satterthwaite "+
		"degrees of freedom); Δ's interval adds the two arms' variances. The bar: coverage ≥ 0.95 (✗ when below it by more than the Monte Carlo error, ±%.3f at %d runs). "+
		"`judge-only` is the coverage of the uncorrected judge rate's Wilson interval, for contrast.\n\n",
		cmd, took.Round(time.Second), binomSlack(0.95, res[0].Runs), res[0].Runs)
	b.WriteString("| setting | runs | coverage of p | coverage of Δ | width of p's CI | width of Δ's CI | judge-only coverage (mean judged rate) |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	var misses []string
	for _, r := range res {
		slack := binomSlack(0.95, r.Runs)
		mark := func(c float64, what string) string {
			if c < 0.95-slack {
				misses = append(misses, fmt.Sprintf("%s: coverage of %s %.3f", r.Setting, what, c))
				return fmt.Sprintf("%.3f ✗", c)
			}
			return fmt.Sprintf("%.3f", c)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %.3f | %.3f | %.3f (%.3f) |\n", r.Setting, r.Runs, mark(r.CoverRate, "p"),
			mark(r.CoverDelta, "Δ"), r.WidthRate, r.WidthDelta, r.CoverNaive, r.MeanJudged)
	}
	if len(misses) == 0 {
		b.WriteString("\nNo setting's coverage is below 0.95 by more than the Monte Carlo error.\n")
	} else {
		fmt.Fprintf(&b, "\nBelow 0.95 by more than the Monte Carlo error (✗): %s.\n", strings.Join(misses, "; "))
	}
	return b.String()
}
