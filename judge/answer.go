package judge

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"webbench/suites"
)

// Answer judges the agent's final answer against the task's AnswerRule with Grade (token-level matching as a
// careful grader reads, see Grade): pass, fail, or uncertain — the rule matched but the answer also states other
// candidates or negates the expected item (Verdict.Uncertain, never a pass). With a fallback judge (the llm judge
// when bench judge --judge answer has --judge-model), an uncertain case is decided by it instead, shown the
// reference answer, the rule and the doubt (Reference, ReferenceJudge): its verdict, with this judge's doubt,
// the fallback's name and what it saw in Reason; the fallback also decides a rule with only a free-text
// Reference ("possible" WebVoyager answers). The question Grade sees is the task's goal. Without a
// fallback, a free-text-only rule is a judge error verdict (use the llm judge).
type Answer struct {
	// Fallback decides uncertain cases; nil leaves them uncertain.
	Fallback Judge
}

func init() {
	RegisterForTasks("answer", func(o Options) (Judge, error) {
		if o.Model == "" {
			return Answer{}, nil
		}
		fb, err := newLLMFromOptions(o)
		if err != nil {
			return nil, err
		}
		return Answer{Fallback: fb}, nil
	}, 20, func(t suites.Task) bool { return checkable(t.Check.Answer) })
}

// checkable reports whether r has a rule Grade checks (exact, must_include or number), not only a free-text
// reference.
func checkable(r *suites.AnswerRule) bool {
	return r != nil && (r.Exact != "" || len(r.MustInclude) > 0 || r.Number != nil)
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
	if !checkable(r) {
		if a.Fallback != nil {
			return a.decide(ctx, in, "the reference answer is free text only")
		}
		switch r.Type {
		case "golden":
			// A golden that is a date, a yes/no, a phrase, a "name, N unit" pair: no rule is derived without guessing.
			v.Error = "the golden answer gives no rule the answer judge can check (it checks a number with its unit, " +
				"a name or a list of names; not a date, a yes/no or a phrase); use the llm judge"
		case "possible":
			v.Error = "the reference is a possible answer (free text only, one of many acceptable); use the llm judge"
		default:
			v.Error = "reference answer has no checkable rule (free text only); use the llm judge"
		}
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

// Reference is what the answer judge hands its fallback judge besides the attempt: the reference answer, the
// rule it checked, and why it could not decide itself. An uncertain case is a narrow question ("9,674 or
// 9,675?", "does it also name Jaylen Brown?") that only the reference answers.
type Reference struct {
	// Answer is the reference answer as the task gives it (a WebVoyager golden or possible answer, a GAIA final
	// answer), or else the rule spelled out.
	Answer string
	// Rule is the rule the answer judge checked, spelled out ("" for a free-text reference only).
	Rule string
	// Doubt is why the answer judge could not decide (Grade's reason, or "the reference answer is free text
	// only").
	Doubt string
}

// ReferenceJudge is a judge that can decide an attempt against a reference answer (the llm judge): the
// answer judge's fallback.
type ReferenceJudge interface {
	Judge
	JudgeWithReference(ctx context.Context, in Input, ref Reference) (Verdict, error)
}

// referenceOf is the Reference of rule r with the doubt why.
func referenceOf(r suites.AnswerRule, why string) Reference {
	ref := Reference{Answer: strings.TrimSpace(r.Reference), Rule: ruleText(r), Doubt: why}
	if ref.Answer == "" {
		ref.Answer = ref.Rule
	}
	return ref
}

// ruleText spells out what rule r checks ("" when it checks nothing): `exactly "MH-07"`, `includes "OpenCV"`,
// `the number 192 MB (± 0.5)`.
func ruleText(r suites.AnswerRule) string {
	var parts []string
	if r.Exact != "" {
		parts = append(parts, fmt.Sprintf("exactly %q", r.Exact))
	}
	if len(r.MustInclude) > 0 {
		q := make([]string, len(r.MustInclude))
		for i, it := range r.MustInclude {
			q[i] = strconv.Quote(strings.ReplaceAll(it, " |OR| ", " or "))
		}
		parts = append(parts, "includes "+strings.Join(q, " and "))
	}
	if r.Number != nil {
		n := "the number " + strconv.FormatFloat(*r.Number, 'g', -1, 64)
		if r.Unit != "" {
			n += " " + r.Unit
		}
		if r.Tolerance > 0 {
			n += fmt.Sprintf(" (± %g)", r.Tolerance)
		}
		parts = append(parts, n)
	}
	return strings.Join(parts, "; ")
}

// decide has the fallback judge decide in, saying why it was asked and what it saw. A fallback that takes a
// reference (ReferenceJudge) gets the reference answer, the rule and the doubt; one that does not, sees only the
// attempt, and with no screenshots either it could only guess: that is a judge error, not a verdict.
func (a Answer) decide(ctx context.Context, in Input, why string) (Verdict, error) {
	name := a.Fallback.Name()
	shots := len(in.Screenshots)
	if l, ok := a.Fallback.(*LLM); ok && shots > l.k {
		shots = l.k
	}
	ref := referenceOf(*in.Task.Check.Answer, why)
	var fv Verdict
	var err error
	var saw string
	if rj, ok := a.Fallback.(ReferenceJudge); ok && ref.Answer != "" {
		fv, err = rj.JudgeWithReference(ctx, in, ref)
		saw = fmt.Sprintf("the reference %q, the rule, this doubt and %d screenshot(s)", clip(ref.Answer), shots)
	} else {
		if shots == 0 {
			return Verdict{Judge: "answer", Reason: why,
				Error: fmt.Sprintf("%s; the %s judge would see neither the reference answer nor screenshots", why, name)}, nil
		}
		fv, err = a.Fallback.Judge(ctx, in)
		saw = fmt.Sprintf("the task, the answer and %d screenshot(s), not the reference", shots)
	}
	if err != nil {
		return Verdict{Judge: "answer"}, err
	}
	fv.Judge = "answer"
	fv.Reason = fmt.Sprintf("%s; decided by the %s judge (it saw %s): %s", why, name, saw, fv.Reason)
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
