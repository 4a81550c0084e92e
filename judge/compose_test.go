package judge

import (
	"context"
	"testing"

	"webbench/suites"
)

// verdictJudge returns its verdict.
type verdictJudge struct {
	name string
	v    Verdict
}

func (f verdictJudge) Name() string { return f.name }
func (f verdictJudge) Judge(context.Context, Input) (Verdict, error) {
	return f.v, nil
}

// Compose's combination: a fail wins over an uncertain verdict, an uncertain one over a pass (never a pass), and
// the default judges make an ambiguous answer uncertain.
func TestComposeCombinesUncertain(t *testing.T) {
	pass := verdictJudge{"a", Verdict{Pass: true, Reason: "ok"}}
	fail := verdictJudge{"b", Verdict{Reason: "wrong"}}
	unsure := verdictJudge{"c", Verdict{Uncertain: true, Reason: "two candidates"}}
	ctx := context.Background()
	if v := Compose(ctx, []Judge{pass, unsure}, Input{}); v.Pass || !v.Uncertain || v.Reason != "two candidates" || v.Judge != "a+c" {
		t.Errorf("pass+uncertain = %+v", v)
	}
	if v := Compose(ctx, []Judge{unsure, fail}, Input{}); v.Pass || v.Uncertain || v.Reason != "wrong" {
		t.Errorf("uncertain+fail = %+v", v)
	}
	n := 4.0
	task := suites.Task{Goal: "How many styles are there?", Check: suites.Check{Answer: &suites.AnswerRule{Number: &n}}}
	if v := Compose(ctx, ForTask(task), Input{Task: task, Final: "3 of 4"}); v.Pass || !v.Uncertain || v.Outcome() != "uncertain" {
		t.Errorf("default judges on an ambiguous answer = %+v", v)
	}
	if v := Compose(ctx, ForTask(task), Input{Task: task, Final: "4 styles"}); !v.Pass || v.Outcome() != "pass" {
		t.Errorf("default judges on a clear answer = %+v", v)
	}
}

// A task with a state check and an answer rule is judged by both, and the verdict keeps each judge's own verdict
// as its parts (state first), which bench report compares on Zoo Q&A tasks; one judge gives no parts.
func TestComposeKeepsParts(t *testing.T) {
	n := 229.0
	task := suites.Task{Goal: "How many calories? Log them.", Check: suites.Check{
		State:  map[string]any{"log": []any{map[string]any{"amount": 229.0}}},
		Answer: &suites.AnswerRule{Number: &n}}}
	state := []byte(`{"log": [{"amount": 229}]}`)
	v := Compose(context.Background(), ForTask(task), Input{Task: task, Final: "It has 230 calories.", State: state})
	if v.Judge != "state+answer" || v.Pass || len(v.Parts) != 2 || v.Parts[0].Judge != "state" || !v.Parts[0].Pass ||
		v.Parts[1].Judge != "answer" || v.Parts[1].Pass || v.Parts[1].Uncertain {
		t.Errorf("state pass, answer fail: %+v", v)
	}
	task.Check.State = nil
	if v := Compose(context.Background(), ForTask(task), Input{Task: task, Final: "229"}); !v.Pass || v.Parts != nil {
		t.Errorf("one judge: %+v, want a pass without parts", v)
	}
}
