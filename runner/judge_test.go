package runner

import (
	"context"
	"testing"

	"webbench/judge"
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
