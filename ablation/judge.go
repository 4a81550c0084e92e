package ablation

import (
	"fmt"

	"webbench/results"
)

// OriginalJudge names the verdicts a run recorded itself (Attempt.Verdict);
// WithJudge returns such records unchanged.
const OriginalJudge = "original"

// WithJudge returns copies of the final records recs with the verdicts of the
// re-judge name (Attempt.Verdicts[name], filled from verdicts-<name>.jsonl
// when a run is read), so that every analysis and report can use them in
// place of the run's own (`--judge NAME`). name "" or OriginalJudge returns
// recs unchanged.
//
// A record that ended in an error keeps it (`bench judge` re-scores judged
// attempts only). A judged record takes its status from the re-judge's
// verdict: pass; fail (error class agent; a failure mode the original judge
// recorded is kept, an attempt it passed gets wrong_answer); or, when the
// verdict has an Error or the record has no verdict of name, status error with
// error class judge (excluded from the denominators and warned about, as any
// judge error). It fails when no record has a verdict of name: the run was
// not re-judged with it.
func WithJudge(recs []results.Attempt, name string) ([]results.Attempt, error) {
	if name == "" || name == OriginalJudge {
		return recs, nil
	}
	out := make([]results.Attempt, 0, len(recs))
	found := false
	for _, r := range recs {
		if !r.Done() {
			out = append(out, r)
			continue
		}
		v, ok := r.Verdicts[name]
		found = found || ok
		wasPass := r.Status == results.StatusPass
		switch {
		case !ok:
			r.Status, r.ErrorClass, r.Error, r.FailureMode = results.StatusError, results.ClassJudge,
				fmt.Sprintf("no verdict of judge %q", name), ""
		case v.Error != "":
			r.Status, r.ErrorClass, r.Error, r.FailureMode = results.StatusError, results.ClassJudge, v.Error, ""
		case v.Pass:
			r.Status, r.ErrorClass, r.FailureMode = results.StatusPass, "", ""
		default:
			r.Status, r.ErrorClass = results.StatusFail, results.ClassAgent
			if wasPass {
				r.FailureMode = "wrong_answer"
			}
		}
		if ok {
			r.Verdict = v
		}
		out = append(out, r)
	}
	if !found {
		return nil, fmt.Errorf("no record has a verdict of judge %q: re-score the run with `bench judge DIR --judge %s` first", name, name)
	}
	return out, nil
}
