package results

import (
	"context"
	"fmt"
	"os"

	"webbench/judge"
	"webbench/llm"
	"webbench/suites"
)

// Rejudged is one pass of a judge over a run's final attempts (Run.Rejudge).
type Rejudged struct {
	// Verdicts are the pass's verdicts in attempt order; after a Stop, followed by the verdicts an earlier pass
	// of the same judge wrote for the attempts not reached (so a fatal stop part-way keeps them).
	Verdicts []VerdictRecord
	// Judged counts the verdicts this pass gave; Pass, Uncertain and Errors count those with that outcome.
	Judged, Pass, Uncertain, Errors int
	// Stop is the endpoint error that stopped the pass (its class stops runs: llm.FatalError); nil when every
	// attempt was judged.
	Stop *llm.Error
}

// Rejudge judges every final pass/fail attempt of the run whose task is in tasks (by id) again with j, from its
// final answer, its trajectory's final state and its kept screenshots. A judge failure is a verdict with Error
// (redacted), except an endpoint error of a class that stops runs, which stops the pass (Rejudged.Stop).
func (r *Run) Rejudge(ctx context.Context, j judge.Judge, tasks map[string]suites.Task) Rejudged {
	var res Rejudged
	for _, a := range r.Final() {
		t, ok := tasks[a.TaskID]
		if !ok || !a.Judged() {
			continue
		}
		v, fatal := r.judgeAttempt(ctx, a, t, j)
		if fatal != nil {
			res.Stop = fatal
			break
		}
		switch v.Outcome() {
		case "error":
			res.Errors++
		case "uncertain":
			res.Uncertain++
		case "pass":
			res.Pass++
		}
		res.Verdicts = append(res.Verdicts, VerdictRecord{AttemptID: a.AttemptID, TaskID: a.TaskID, Variant: a.Variant, Verdict: v})
	}
	res.Judged = len(res.Verdicts)
	if res.Stop != nil {
		seen := map[string]bool{}
		for _, v := range res.Verdicts {
			seen[v.AttemptID] = true
		}
		for _, v := range r.VerdictRecords(j.Name()) {
			if !seen[v.AttemptID] {
				res.Verdicts = append(res.Verdicts, v)
			}
		}
	}
	return res
}

// judgeAttempt judges one recorded attempt a with j. fatal is an endpoint error of a class that stops runs
// (no verdict).
func (r *Run) judgeAttempt(ctx context.Context, a Attempt, t suites.Task, j judge.Judge) (judge.Verdict, *llm.Error) {
	in := judge.Input{Task: t, Final: a.Final, OK: a.OK}
	if tr, err := r.Trajectory(a.AttemptID); err == nil {
		in.State = tr.State
		for _, p := range r.ScreenshotFiles(tr) {
			if b, err := os.ReadFile(p); err == nil {
				in.Screenshots = append(in.Screenshots, b)
			}
		}
	}
	v, err := j.Judge(ctx, in)
	if le := llm.FatalError(err); le != nil {
		return v, le
	}
	if err != nil {
		v = judge.Verdict{Judge: j.Name(), Error: llm.RedactString(err.Error())}
	}
	return v, nil
}

// AllErrorsHint says, when every verdict of out is the same judge error, that the judge name decided no attempt
// and why ("every one of the 3 verdicts is the judge error "task has no state check": …; no task of this run
// has a state check …, so judge it with --judge answer or llm"); "" otherwise.
func AllErrorsHint(name string, out []VerdictRecord) string {
	if len(out) == 0 {
		return ""
	}
	msg := out[0].Verdict.Error
	for _, v := range out {
		if v.Verdict.Error == "" || v.Verdict.Error != msg {
			return ""
		}
	}
	hint := fmt.Sprintf("every one of the %d verdicts is the judge error %q: the %s judge decided no attempt", len(out), msg, name)
	switch msg {
	case "task has no state check":
		hint += "; no task of this run has a state check (check.state: the Zoo's action tasks), so judge it with --judge answer or llm"
	case "task has no answer rule":
		hint += "; no task of this run has an answer rule (check.answer), so judge it with --judge state or llm"
	}
	return hint
}
