package judge

import (
	"context"
	"fmt"
)

// Answer judges the agent's final answer against the task's AnswerRule with Grade (token-level matching as a
// careful grader reads, see Grade): pass, fail, or uncertain — the rule matched but the answer also states other
// candidates or negates the expected item (Verdict.Uncertain, never a pass). With a fallback judge (the llm judge
// when bench judge --judge answer has --judge-model), an uncertain case is decided by it instead: its verdict,
// with this judge's doubt and the fallback's name in Reason; the fallback also decides a rule with only a
// free-text Reference ("possible" WebVoyager answers). The question Grade sees is the task's goal. Without a
// fallback, a free-text-only rule is a judge error verdict (use the llm judge).
type Answer struct {
	// Fallback decides uncertain cases; nil leaves them uncertain.
	Fallback Judge
}

func init() {
	Register("answer", func(o Options) (Judge, error) {
		if o.Model == "" {
			return Answer{}, nil
		}
		fb, err := newLLMFromOptions(o)
		if err != nil {
			return nil, err
		}
		return Answer{Fallback: fb}, nil
	})
}

// Name is "answer".
func (Answer) Name() string { return "answer" }

// Judge implements Judge. An error is the fallback judge's (its endpoint failed).
func (a Answer) Judge(ctx context.Context, in Input) (Verdict, error) {
	v := Verdict{Judge: "answer"}
	r := in.Task.Check.Answer
	if r == nil {
		v.Error = "task has no answer rule"
		return v, nil
	}
	if r.Exact == "" && len(r.MustInclude) == 0 && r.Number == nil {
		if a.Fallback != nil {
			return a.decide(ctx, in, "the reference answer is free text only")
		}
		v.Error = "reference answer has no checkable rule (free text only); use the llm judge"
		return v, nil
	}
	o, why := Grade(*r, in.Final, in.Task.Goal)
	v.Reason = why
	switch o {
	case OutcomePass:
		v.Pass = true
	case OutcomeUncertain:
		if a.Fallback == nil {
			v.Uncertain = true
			return v, nil
		}
		return a.decide(ctx, in, "uncertain: "+why)
	}
	return v, nil
}

// decide has the fallback judge decide in, saying why it was asked.
func (a Answer) decide(ctx context.Context, in Input, why string) (Verdict, error) {
	fv, err := a.Fallback.Judge(ctx, in)
	if err != nil {
		return Verdict{Judge: "answer"}, err
	}
	fv.Judge = "answer"
	fv.Reason = fmt.Sprintf("%s; decided by the %s judge: %s", why, a.Fallback.Name(), fv.Reason)
	return fv, nil
}

// Preflight checks the fallback judge's endpoint (nil without one).
func (a Answer) Preflight(ctx context.Context) error {
	if p, ok := a.Fallback.(Preflighter); ok {
		return p.Preflight(ctx)
	}
	return nil
}

var _ Preflighter = Answer{}

func clip(s string) string {
	if len(s) > 100 {
		return s[:97] + "..."
	}
	return s
}
