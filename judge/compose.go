package judge

import (
	"cmp"
	"context"
	"strings"

	"webbench/suites"
)

// NoJudgeError is the error of the verdict Compose gives when no judge applies: the task has no state check
// and no answer rule, so only the llm judge (bench judge --judge llm) can decide it.
const NoJudgeError = "task has no check a local judge can decide (re-judge the run with bench judge --judge llm)"

// ForTask is the run's own judges of task t: the judges registered with RegisterForTasks whose applies function
// accepts t, in their registered order — state when t has a state check, then answer when it has an answer rule
// (exact, must_include or number). Nil when none applies (Compose then gives NoJudgeError).
func ForTask(t suites.Task) []Judge {
	regMu.RLock()
	defer regMu.RUnlock()
	var js []Judge
	for _, tj := range taskJudges {
		if tj.applies(t) {
			js = append(js, tj.j)
		}
	}
	return js
}

// Compose applies js to in as one judge (all must pass); with none, the verdict of judge "none" is an error
// (NoJudgeError). A judge error ends it with that error (Judge: the names so far, joined by "+"); a fail of any
// judge is a fail (the last failing judge's reason); else an uncertain verdict of any judge makes the verdict
// uncertain (Pass false), its reasons joined by "; ". With more than one judge the verdict's Parts hold each
// judge's own verdict, in order, without parts of their own. The verdict's Judge is the judges' names joined by
// "+" ("state+answer").
func Compose(ctx context.Context, js []Judge, in Input) Verdict {
	if len(js) == 0 {
		return Verdict{Judge: "none", Error: NoJudgeError}
	}
	var names, reasons, doubts []string
	var parts []Verdict
	out := Verdict{Pass: true}
	for _, j := range js {
		v, err := j.Judge(ctx, in)
		names = append(names, j.Name())
		if err != nil {
			v.Error = err.Error()
		}
		if v.Error != "" {
			return Verdict{Judge: strings.Join(names, "+"), Error: v.Error, Reason: v.Reason}
		}
		v.Judge, v.Parts = cmp.Or(v.Judge, j.Name()), nil
		parts = append(parts, v)
		reasons = append(reasons, v.Reason)
		switch {
		case v.Uncertain:
			doubts = append(doubts, v.Reason)
		case !v.Pass:
			out.Pass = false
			out.Reason = v.Reason
		}
	}
	out.Judge = strings.Join(names, "+")
	if len(parts) > 1 {
		out.Parts = parts
	}
	switch {
	case out.Pass && len(doubts) > 0:
		out.Pass, out.Uncertain, out.Reason = false, true, strings.Join(doubts, "; ")
	case out.Pass:
		out.Reason = strings.Join(reasons, "; ")
	}
	return out
}
