package analysis

// Pass rates corrected for judge error: the prediction-powered estimate (stats.PPIMean) of each arm's pass rate
// from a judge's verdicts and an audit of trusted verdicts (results.AuditFile), and of each variant's Δ.

import (
	"webbench/judge"
	"webbench/results"
	"webbench/stats"
)

// CorrectedArm is one arm's pass rate corrected for judge error: Attempts the attempts the judge gave a verdict,
// Audited those of them with a trusted verdict, JudgeRate the judge's own rate over its decided verdicts, and
// Rate the prediction-powered estimate with its 95 % interval (OK false when the arm has no audited attempt).
type CorrectedArm struct {
	Variant   string    `json:"variant"`
	Attempts  int       `json:"attempts"`
	Audited   int       `json:"audited"`
	JudgeRate float64   `json:"judge_rate"`
	Rate      stats.PPI `json:"rate"`
}

// CorrectedDelta is a variant's Δ (variant − baseline) of corrected pass rates with its 95 % interval (the two
// arms independent: stats.PPIDiff).
type CorrectedDelta struct {
	Variant  string    `json:"variant"`
	Baseline string    `json:"baseline"`
	Delta    stats.PPI `json:"delta"`
}

// JudgeCorrection is one judge's pass rates corrected by the audit (JSON judge_corrected): the judge, the audit's
// size and where it came from, each arm's corrected rate (plan order, baseline first) and each variant's Δ.
type JudgeCorrection struct {
	Judge  string           `json:"judge"`
	Source string           `json:"source"`
	Audit  int              `json:"audit"`
	Arms   []CorrectedArm   `json:"arms"`
	Deltas []CorrectedDelta `json:"deltas"`
}

// prediction is a verdict as a prediction of the attempt's true pass: 1 pass, 0 fail, 0.5 when the judge did not
// decide (uncertain, judge error).
func prediction(v judge.Verdict) float64 {
	switch v.Outcome() {
	case "pass":
		return 1
	case "fail":
		return 0
	}
	return 0.5
}

// CorrectRates corrects the pass rates of judge name's verdicts over run by audit (attempt id → trusted pass):
// per arm of the plan, the attempts the judge gave a verdict, split into audited (y and the prediction) and not
// (the prediction), then stats.PPIMean at 95 %; each variant's Δ against the plan's baseline. Audit labels of
// attempts the judge has no verdict for are left out. Errors are those of reading a re-judge's verdicts.
func CorrectRates(run *results.Run, name string, audit map[string]bool) (JudgeCorrection, error) {
	vs, err := judgeOutcomes(run, name)
	if err != nil {
		return JudgeCorrection{}, err
	}
	jc := JudgeCorrection{Judge: name, Source: results.AuditFile, Arms: []CorrectedArm{}, Deltas: []CorrectedDelta{}}
	type arm struct{ y, fl, fu []float64 }
	arms := map[string]*arm{}
	for _, a := range run.Final() {
		v, ok := vs[a.AttemptID]
		if !ok {
			continue
		}
		ar := arms[a.Variant]
		if ar == nil {
			ar = &arm{}
			arms[a.Variant] = ar
		}
		f := prediction(v)
		if y, ok := audit[a.AttemptID]; ok {
			jc.Audit++
			ar.fl = append(ar.fl, f)
			ar.y = append(ar.y, map[bool]float64{true: 1, false: 0}[y])
		} else {
			ar.fu = append(ar.fu, f)
		}
	}
	est := map[string]stats.PPI{}
	for _, v := range run.Manifest.Plan.Variants {
		ar := arms[v.Name]
		if ar == nil {
			continue
		}
		pass, decided := 0, 0
		for _, f := range append(append([]float64{}, ar.fl...), ar.fu...) {
			if f != 0.5 {
				decided++
				pass += int(f)
			}
		}
		ca := CorrectedArm{Variant: v.Name, Attempts: len(ar.fl) + len(ar.fu), Audited: len(ar.y),
			Rate: stats.PPIMean(ar.y, ar.fl, ar.fu, 0.95, 0, 1)}
		if decided > 0 {
			ca.JudgeRate = float64(pass) / float64(decided)
		}
		est[v.Name] = ca.Rate
		jc.Arms = append(jc.Arms, ca)
	}
	base := run.Manifest.Plan.Baseline
	if b, ok := est[base]; ok {
		for _, ca := range jc.Arms {
			if ca.Variant != base {
				jc.Deltas = append(jc.Deltas, CorrectedDelta{Variant: ca.Variant, Baseline: base,
					Delta: stats.PPIDiff(b, ca.Rate, 0.95)})
			}
		}
	}
	return jc, nil
}
