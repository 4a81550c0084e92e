package judge

import (
	"strings"

	"webbench/suites"
)

// maxReferenceWords bounds a free-text reference looked for on a page as a phrase: a short name or value ("Priya
// Raman", "15 mins") is a phrase a page writes; a sentence is the grader's paraphrase, which no page carries.
const maxReferenceWords = 5

// OnPage is the test of whether a task's reference answer appears in a page's text, for telling when a recorded
// site changed under its answer (bench cassette diff): the page's text read as an answer to rule's checkable parts
// — MustInclude and Exact as phrases, Number as a number of the page — present unless Grade fails it (a page
// states many other names and numbers, which make an answer uncertain, not wrong). A rule with nothing checkable
// falls back to its free-text Reference as a phrase when it has at most five words. ok is false when there is
// nothing to look for.
func OnPage(rule *suites.AnswerRule) (present func(text string) bool, ok bool) {
	if rule == nil {
		return nil, false
	}
	r := suites.AnswerRule{MustInclude: append([]string(nil), rule.MustInclude...), Number: rule.Number,
		Tolerance: rule.Tolerance, Unit: rule.Unit}
	if rule.Exact != "" {
		// A page never equals the answer: the exact value is looked for as a phrase.
		r.MustInclude = append(r.MustInclude, rule.Exact)
	}
	if ref := strings.TrimSpace(rule.Reference); ruleItems(r) == 0 && ref != "" && len(strings.Fields(ref)) <= maxReferenceWords {
		r.MustInclude = []string{ref}
	}
	if ruleItems(r) == 0 {
		return nil, false
	}
	return func(text string) bool {
		o, _ := Grade(r, text, "")
		return o != OutcomeFail
	}, true
}
