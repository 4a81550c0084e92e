package runner

import (
	"context"
	"strings"
	"testing"

	"webbench/judge"
	"webbench/results"
	"webbench/suites"
)

// fixedJudge returns its verdict.
type fixedJudge struct {
	name string
	v    judge.Verdict
}

func (f fixedJudge) Name() string { return f.name }
func (f fixedJudge) Judge(context.Context, judge.Input) (judge.Verdict, error) {
	return f.v, nil
}

// Judge's combination: a fail wins over an uncertain verdict, an uncertain one over a pass (never a pass), and
// the default judges make an ambiguous answer uncertain.
func TestJudgeCombinesUncertain(t *testing.T) {
	pass := fixedJudge{"a", judge.Verdict{Pass: true, Reason: "ok"}}
	fail := fixedJudge{"b", judge.Verdict{Reason: "wrong"}}
	unsure := fixedJudge{"c", judge.Verdict{Uncertain: true, Reason: "two candidates"}}
	ctx := context.Background()
	if v := Judge(ctx, []judge.Judge{pass, unsure}, judge.Input{}); v.Pass || !v.Uncertain || v.Reason != "two candidates" || v.Judge != "a+c" {
		t.Errorf("pass+uncertain = %+v", v)
	}
	if v := Judge(ctx, []judge.Judge{unsure, fail}, judge.Input{}); v.Pass || v.Uncertain || v.Reason != "wrong" {
		t.Errorf("uncertain+fail = %+v", v)
	}
	n := 4.0
	task := suites.Task{Goal: "How many styles are there?", Check: suites.Check{Answer: &suites.AnswerRule{Number: &n}}}
	if v := Judge(ctx, nil, judge.Input{Task: task, Final: "3 of 4"}); v.Pass || !v.Uncertain || v.Outcome() != "uncertain" {
		t.Errorf("default judges on an ambiguous answer = %+v", v)
	}
	if v := Judge(ctx, nil, judge.Input{Task: task, Final: "4 styles"}); !v.Pass || v.Outcome() != "pass" {
		t.Errorf("default judges on a clear answer = %+v", v)
	}
}

// A task with a state check and an answer rule is judged by both, and the verdict keeps each judge's own verdict
// as its parts (state first), which bench report compares on Zoo Q&A tasks; one judge gives no parts.
func TestJudgeKeepsParts(t *testing.T) {
	n := 229.0
	task := suites.Task{Goal: "How many calories? Log them.", Check: suites.Check{
		State:  map[string]any{"log": []any{map[string]any{"amount": 229.0}}},
		Answer: &suites.AnswerRule{Number: &n}}}
	state := []byte(`{"log": [{"amount": 229}]}`)
	v := Judge(context.Background(), nil, judge.Input{Task: task, Final: "It has 230 calories.", State: state})
	if v.Judge != "state+answer" || v.Pass || len(v.Parts) != 2 || v.Parts[0].Judge != "state" || !v.Parts[0].Pass ||
		v.Parts[1].Judge != "answer" || v.Parts[1].Pass || v.Parts[1].Uncertain {
		t.Errorf("state pass, answer fail: %+v", v)
	}
	task.Check.State = nil
	if v := Judge(context.Background(), nil, judge.Input{Task: task, Final: "229"}); !v.Pass || v.Parts != nil {
		t.Errorf("one judge: %+v, want a pass without parts", v)
	}
}

// The run's summary and its progress lines count uncertain verdicts apart from errors (review S2): a pass, an
// uncertain record and an infrastructure error give passed 1, errors 1, uncertain 1, and the pass rate over the
// decided one.
func TestSummaryAndProgressCountUncertain(t *testing.T) {
	var out strings.Builder
	sc := &scheduler{sum: &Summary{}, prog: newProgress(&out, 3, 0), opts: Options{}}
	for _, r := range []results.Attempt{
		{Status: results.StatusPass},
		{Status: results.StatusError, ErrorClass: results.ClassUncertain},
		{Status: results.StatusError, ErrorClass: results.ClassInfra},
	} {
		sc.record(r)
	}
	if s := *sc.sum; s.Ran != 3 || s.Passed != 1 || s.Errors != 1 || s.Uncertain != 1 {
		t.Errorf("summary %+v, want ran 3, passed 1, errors 1, uncertain 1", s)
	}
	if want := "progress: 3/3 attempts, pass rate 100.0% (1/1), errors 1, uncertain 1, ETA 0s\n"; !strings.HasSuffix(out.String(), want) {
		t.Errorf("progress output %q, want it to end %q", out.String(), want)
	}
}
