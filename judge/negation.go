package judge

import (
	"regexp"
)

var negations = map[string]bool{"not": true, "no": true, "never": true, "neither": true, "nor": true,
	"without": true, "none": true, "cannot": true}

// negated returns the negation word before the match at ans[start:start+n] (up to three tokens before it, in
// its segment), right after it ("X is not", "X does not", "X is no longer"), opening the next segment ("X? No."),
// calling it wrong within eight tokens after it ("X is wrong", "X. That is incorrect"), or a bare "No" opening
// the answer; "" when there is none.
func (g *grader) negated(start, n int) string {
	seg := g.ans[start].seg
	for k := start - 1; k >= 0 && k >= start-3; k-- {
		if g.ans[k].seg != seg {
			break
		}
		if negations[g.ans[k].text] {
			return g.ans[k].text
		}
	}
	end := start + n
	for k := end; k < len(g.ans) && k <= end+2; k++ {
		if g.ans[k].seg != g.ans[end-1].seg {
			break
		}
		w := g.ans[k].text
		if w == "not" {
			return "not"
		}
		// "X is no longer", "X was never": after a verb other than have ("X has no rival" is no negation).
		if (w == "no" || w == "never") && k > end && copulas[g.ans[k-1].text] {
			return g.ans[k-1].text + " " + w
		}
	}
	// The next segment takes it back ("OpenCV? No. It is scikit-image."), or the sentence after calls it wrong.
	for k := end; k < len(g.ans); k++ {
		if g.ans[k].seg == g.ans[end-1].seg || g.matched[k] {
			continue
		}
		if takeBack[g.ans[k].text] {
			return g.ans[k].text
		}
		break
	}
	for k := end; k < len(g.ans) && k <= end+8; k++ {
		if wrongWords[g.ans[k].text] && !g.matched[k] {
			return g.ans[k].text
		}
	}
	// A bare "No" opening the answer ("No, it is not OpenCV …", "No. OpenCV was last year's").
	if len(g.ans) > 1 && start > 0 && g.ans[0].text == "no" && g.ans[1].seg != g.ans[0].seg && !g.matched[0] {
		return "no"
	}
	return ""
}

var (
	// copulas: verbs after which "no"/"never" negates the subject's claim ("is no longer", "was never").
	copulas = map[string]bool{"is": true, "are": true, "was": true, "were": true, "be": true, "been": true,
		"do": true, "does": true, "did": true, "will": true, "would": true, "can": true}
	// takeBack: the first word of the segment after a match that takes it back.
	takeBack = map[string]bool{"no": true, "not": true, "nope": true, "wrong": true, "incorrect": true}
	// wrongWords: words right after a match that call it wrong.
	wrongWords = map[string]bool{"wrong": true, "incorrect": true, "mistaken": true, "outdated": true}
)

// sentenceEndRe: the end of a sentence (., ! or ? before a space or the end).
var sentenceEndRe = regexp.MustCompile(`[.!?](?:\s|$)`)

// negatedSpan returns a negation word in the sentence of fold(answer)[lo:hi] (a match without tokens, such as
// "-----"), "" when there is none.
func (g *grader) negatedSpan(lo, hi int) string {
	s := fold(g.raw)
	from, to := 0, len(s)
	for _, e := range sentenceEndRe.FindAllStringIndex(s, -1) {
		if e[1] <= lo {
			from = e[1]
		} else if e[0] >= hi {
			to = e[0]
			break
		}
	}
	for _, t := range g.ans {
		if t.start >= from && t.end <= to && negations[t.text] {
			return t.text
		}
	}
	return ""
}
