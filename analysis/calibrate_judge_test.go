package analysis

import (
	"testing"
)

// The corrected intervals cover the true rate and Δ at the 95 % level with a 10 % judge error and audits of 50
// and 200 (within the Monte Carlo slack), where the judge's own rate does not: its bias moves the rate.
func TestCalibrateJudgeCoverage(t *testing.T) {
	const runs = 1000
	for i, s := range []JudgeCalSetting{
		{N: 400, Audit: 50, P: 0.3, Delta: 0.1, FalsePass: 0.1, FalseFail: 0.1, Uncertain: 0.05},
		{N: 1000, Audit: 200, P: 0.7, Delta: 0.1, FalsePass: 0.1, FalseFail: 0.1, Uncertain: 0.05},
	} {
		r := CalibrateJudge(s, runs, uint64(7+i))
		t.Logf("%s: coverage p %.3f Δ %.3f, widths %.3f %.3f, judge-only %.3f (mean %.3f)", s, r.CoverRate,
			r.CoverDelta, r.WidthRate, r.WidthDelta, r.CoverNaive, r.MeanJudged)
		slack := binomSlack(0.95, runs)
		if r.CoverRate < 0.95-slack || r.CoverDelta < 0.95-slack {
			t.Errorf("%s: coverage %.3f (rate), %.3f (Δ), want ≥ 0.95 within %.3f", s, r.CoverRate, r.CoverDelta, slack)
		}
		if r.CoverNaive > 0.8 {
			t.Errorf("%s: the uncorrected rate covers %.3f: the simulated judge is not biased enough to test the correction", s, r.CoverNaive)
		}
	}
}
