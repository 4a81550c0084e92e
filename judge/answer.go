package judge

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"webbench/suites"
)

// Answer judges the agent's final answer against the task's AnswerRule: Exact (trimmed, case-folded
// equality), MustInclude (every string present, case-insensitive), Number (some number in the answer within
// Tolerance). A rule with only a free-text Reference ("possible" WebVoyager answers) cannot be decided here: that
// is a judge error verdict (use the llm judge).
type Answer struct{}

func init() { Register("answer", func(Options) (Judge, error) { return Answer{}, nil }) }

// Name is "answer".
func (Answer) Name() string { return "answer" }

// Judge implements Judge.
func (Answer) Judge(_ context.Context, in Input) (Verdict, error) {
	v := Verdict{Judge: "answer"}
	r := in.Task.Check.Answer
	if r == nil {
		v.Error = "task has no answer rule"
		return v, nil
	}
	if r.Exact == "" && len(r.MustInclude) == 0 && r.Number == nil {
		v.Error = "reference answer has no checkable rule (free text only); use the llm judge"
		return v, nil
	}
	v.Pass, v.Reason = MatchAnswer(*r, in.Final)
	return v, nil
}

var numberRe = regexp.MustCompile(`-?\d[\d,]*(?:\.\d+)?|-?\.\d+`)

// MatchAnswer applies rule to answer and says why.
func MatchAnswer(rule suites.AnswerRule, answer string) (bool, string) {
	norm := strings.ToLower(strings.TrimSpace(answer))
	if strings.TrimSpace(answer) == "" {
		return false, "no final answer"
	}
	if rule.Exact != "" && norm != strings.ToLower(strings.TrimSpace(rule.Exact)) {
		return false, fmt.Sprintf("answer %q is not exactly %q", clip(answer), rule.Exact)
	}
	for _, s := range rule.MustInclude {
		if !strings.Contains(norm, strings.ToLower(s)) {
			return false, fmt.Sprintf("answer %q does not include %q", clip(answer), s)
		}
	}
	if rule.Number != nil {
		found := false
		for _, m := range numberRe.FindAllString(answer, -1) {
			f, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64)
			if err == nil && math.Abs(f-*rule.Number) <= rule.Tolerance+1e-9 {
				found = true
				break
			}
		}
		if !found {
			return false, fmt.Sprintf("answer %q has no number within %g of %g", clip(answer), rule.Tolerance, *rule.Number)
		}
	}
	return true, "answer matches the reference rule"
}

func clip(s string) string {
	if len(s) > 100 {
		return s[:97] + "..."
	}
	return s
}
