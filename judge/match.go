package judge

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"webbench/suites"
)

// Outcome is the answer judge's decision on one answer: pass, fail, or uncertain (the rule matched but the
// answer also states other candidates, or negates the expected item: a grader must look).
type Outcome string

// Outcomes of Grade.
const (
	OutcomePass      Outcome = "pass"
	OutcomeFail      Outcome = "fail"
	OutcomeUncertain Outcome = "uncertain"
)

// MatchAnswer applies rule to answer without a question; it passes only when Grade's outcome is pass (an
// uncertain outcome is not a pass). It is Grade for callers that need a yes or no.
func MatchAnswer(rule suites.AnswerRule, answer string) (bool, string) {
	o, why := Grade(rule, answer, "")
	return o == OutcomePass, why
}

// Grade applies rule to answer as a careful grader reads them, token by token (tokens.go), and says why.
// question is the task's text: numbers and words it contains are the question's, not the answer's candidates
// (an answer "2x at x = 5.6 is 11.2" to "derivative of x^2 when x=5.6" states one candidate, 11.2), and a unit
// it asks for ("how many milligrams", "in euros", "Answer in millimetres") is the expected unit of a Number rule
// without one. Every set part of rule must hold:
//
//   - Exact: the answer's tokens equal the reference's, perhaps after a label ("SKU: MH-07"). An answer that
//     contains the reference among other words ("The SKU is MH-07.") is uncertain, not a fail.
//   - MustInclude: each item (" |OR| " separates alternatives) appears as a phrase: its tokens in sequence,
//     numbers compared by value (000000170 = 170, $0.00 = 0; 12 ≠ 2), not inside a longer identifier or
//     hyphenated name (resource-watch/resource-watch-api does not contain resource-watch/resource-watch); a
//     company suffix at the item's end is optional; an item that is a URL matches a URL of the answer with the
//     same scheme (when the item has one), host, port and leading whole path segments, and the item's query
//     parameters; an item of punctuation only ("-----") is a substring test (uncertain with a negation word in
//     its sentence: "there is no ----- separator"). A missing item fails — unless
//     the answer has some of its distinctive words (not the question's) and all its numbers, then it is
//     uncertain (Knicks (New York) for New York Knicks).
//   - Number: some number of the answer equals Number within Tolerance, after converting units of one family
//     (0.19 GB for 192 MB, 78 grams for 0.078 kg), percent and fraction (1/32 and 0.03125 for 3.125%), within
//     the answer's own precision when the representation changed (0.19 GB is 190 ± 5 MB) and the answer keeps
//     the reference's significant figures but one, at least two (0.2 GB for 192 MB, 0.03 for 3.125 % fail); not an ordinal (the
//     3rd), not a number followed by another unit (192 Mbps for 192 MB); a question counting in thousands
//     ("how many thousand hours") accepts 17, 17 thousand and 17000 for 17.
//
// Uncertain, when every part matched: the answer negates a match ("not", "no", "never", "neither", "nor",
// "without" up to three tokens before it, or "is not"/"does not" right after it); it states a bound of a matched
// number ("more than 12", "at least", "up to", "over", "under", "12+", "12 or more"); it states other candidate
// numbers than the one matched (a Number rule: numbers not in the question, not part of a date, not list
// markers, not a number word that counts nothing ("one of them", "the first one"; "one meaning" is a
// candidate), of the expected unit's family or without a unit); it names other
// items beside the expected ones (a segment of the answer — cut at , ; : ( ) and sentence ends — without a match
// that has a name or a plain number of its own; in a match's own segment another name that neither continues the
// match's name, "Microsoft Translator", nor is a place after a preposition, "in Los Angeles"; a list of numbers
// longer than the rule's; or an alternative or comparison: "or", "than", "vs", "instead", "but", "however"); a
// name is a capitalised word or an identifier that is not the question's, not the rule's, not a stop word, a
// month or a weekday, not a label before a colon or a Markdown heading, not inside a URL; in lower case, a
// content word (not a stop word, the question's or the rule's) is a name too after "and"/"or"/"then" in a
// match's segment when the rule lists several items or the answer has no capitals at all ("minnesota vikings and
// the cowboys"), and in a short list-item segment of an answer without capitals ("…, dallas cowboys"); a segment
// without a match that says what the answer is ("this year it is pillow"); the items appear in another order than the
// rule lists them; it has the opposite of an expected word (limited beside unlimited); it hedges ("not sure",
// "unable to", "failed to", "could not find", "maybe", "probably", "I think") or takes it back ("used to be", "was
// overtaken by"); a Number rule's match is called another statistic than the question's ("maximum", "average",
// "median" … absent from the question); digits grouped by a plain space match only as one number ("9 675"); or
// the question asks for several
// things ("compare", "both", "respectively") while the rule checks one item (an answer about one of them, "Pro
// has unlimited private repositories", matches a golden "Unlimited" for "Compare … the Free and Pro plans").
//
// A Number rule's match on another rating scale than the question's fails ("4.2 out of 10" for a question "…,
// out of 5?"). Digits grouped by a no-break space, a narrow no-break space or an apostrophe ("9'675", CLDR's
// separators for fr, SI and de-CH) are one number. An empty answer fails ("no final answer").
func Grade(rule suites.AnswerRule, answer, question string) (Outcome, string) {
	if strings.TrimSpace(answer) == "" {
		return OutcomeFail, "no final answer"
	}
	if ruleItems(rule) == 0 {
		// A rule that checks nothing confirms nothing (the answer judge reports a judge error before this).
		return OutcomeUncertain, "the rule has nothing to check"
	}
	g := grader{ans: tokenize(answer), q: tokenize(question), raw: answer}
	for _, loc := range urlSpanRe.FindAllStringIndex(fold(answer), -1) {
		for i, t := range g.ans {
			if t.start >= loc[0] && t.end <= loc[1] {
				g.ans[i].url = true
			}
		}
	}
	g.qWords, g.qNums = map[string]bool{}, nil
	for _, t := range g.q {
		if t.kind == tokNumber {
			g.qNums = append(g.qNums, t)
			continue
		}
		g.qWords[t.text] = true
		if f, err := strconv.ParseFloat(t.text, 64); err == nil && t.kind == tokIdent {
			// A code's number in the question (Apache-2.0) is the question's too when the answer writes it apart.
			g.qNums = append(g.qNums, token{kind: tokNumber, num: f})
		}
	}
	var fails, doubts []string
	if rule.Exact != "" {
		o, why := g.exact(rule.Exact)
		switch o {
		case OutcomeFail:
			fails = append(fails, why)
		case OutcomeUncertain:
			doubts = append(doubts, why)
		}
	}
	if len(rule.MustInclude) > 0 {
		f, d := g.mustInclude(rule.MustInclude)
		fails, doubts = append(fails, f...), append(doubts, d...)
		if len(f) == 0 && len(d) == 0 {
			if c := g.referenceContext(rule.Reference, rule.MustInclude); c != "" {
				doubts = append(doubts, c)
			}
		}
	}
	if rule.Number != nil {
		f, d := g.number(*rule.Number, rule.Tolerance, rule.Unit, question)
		fails, doubts = append(fails, f...), append(doubts, d...)
	}
	if len(fails) == 0 && len(doubts) == 0 {
		if h := hedgeRe.FindString(strings.ToLower(fold(answer))); h != "" {
			doubts = append(doubts, fmt.Sprintf("hedges (%q)", h))
		}
	}
	if len(fails) == 0 && len(doubts) == 0 && ruleItems(rule) == 1 {
		if m := severalRe.FindString(strings.ToLower(fold(question))); m != "" {
			doubts = append(doubts, fmt.Sprintf("the question asks for several things (%q) and the rule checks one", m))
		}
	}
	switch {
	case len(fails) > 0:
		return OutcomeFail, fmt.Sprintf("answer %q: %s", clip(answer), strings.Join(fails, "; "))
	case len(doubts) > 0:
		return OutcomeUncertain, fmt.Sprintf("answer %q: %s", clip(answer), strings.Join(doubts, "; "))
	}
	return OutcomePass, "answer matches the reference rule"
}

type grader struct {
	ans, q []token
	qWords map[string]bool
	qNums  []token
	raw    string
	// matched marks answer tokens inside a match; literal: some item matched as a substring (punctuation only).
	matched map[int]bool
	literal bool
}

// markSpan marks the answer tokens inside fold(answer)[lo:hi] as matched.
func (g *grader) markSpan(lo, hi int) {
	for i, t := range g.ans {
		if t.start >= lo && t.end <= hi {
			g.matched[i] = true
		}
	}
}

// numEq reports whether the answer's number got states the expected number exp within tol (see Grade).
func numEq(exp, got token, tol float64) bool {
	e, v := exp.num, got.num
	changed := false
	ref := sigFigsOf(exp)
	keeps := sigFigs(got) >= min(ref, max(ref-1, 2))
	// Units: convert got into exp's unit when both are known and of one family.
	if exp.unit != "" && got.unit != "" && exp.unit != got.unit {
		ue, ok1 := units[exp.unit]
		ug, ok2 := units[got.unit]
		if !ok1 || !ok2 || ue.family != ug.family {
			return false
		}
		v = v * ug.factor / ue.factor
		got.prec = got.prec * ug.factor / ue.factor
		changed = true
	}
	switch {
	case exp.pct && !got.pct:
		// 3.125% as 3.125, 0.03125 or 1/32.
		if math.Abs(v-e) <= tol+relEps(e, v) && !got.frac {
			return true
		}
		v *= 100
		got.prec *= 100
		changed = true
	case !exp.pct && got.pct:
		v /= 100
		got.prec /= 100
		changed = true
	}
	if got.frac != exp.frac {
		changed = true
	}
	t := tol
	// A change of representation rounds: 0.19 GB is 190 ± 5 MB. Only as far as the answer keeps the reference's
	// significant figures but one, and at least two (0.19 GB for 192 MB keeps 2 of 3; 0.2 GB, 1 of 3, 0.05 TB
	// for 48 GB, 1 of 2, and 0.03 for 3.125 %, 1 of 4, are too rough).
	if changed && got.prec > t && keeps {
		t = got.prec
	}
	return math.Abs(v-e) <= t+relEps(e, v)
}

// sigFigs is how many significant figures the answer's number t was written with (from its value and its
// precision, half a unit of its last digit); exact numbers (fractions, number words) count as many.
func sigFigs(t token) int {
	if t.prec <= 0 || t.num == 0 {
		return math.MaxInt32
	}
	return int(math.Floor(math.Log10(math.Abs(t.num)/(2*t.prec))+1e-9)) + 1
}

// sigFigsOf counts the significant figures of a reference number: its shortest decimal digits without leading
// zeros, and without trailing zeros of an integer (192 → 3, 0.078 → 2, 3.125 → 4, 1200 → 2); a fraction
// (1/186313420339200000) or a long decimal counts as 4.
func sigFigsOf(ref token) int {
	if ref.frac {
		return 4
	}
	s := strconv.FormatFloat(math.Abs(ref.num), 'f', -1, 64)
	int_, frac, _ := strings.Cut(s, ".")
	digits := strings.TrimLeft(int_+frac, "0")
	if frac == "" {
		digits = strings.TrimRight(digits, "0")
	}
	return min(max(len(digits), 1), 6)
}

// relEps is the rounding slack of comparing a and b: a billionth of the larger.
func relEps(a, b float64) float64 { return 1e-9 * math.Max(math.Abs(a), math.Abs(b)) }

// tokEq: the answer's token b states the reference's token a (numbers by value, exactly).
func tokEq(a, b token) bool {
	if a.kind == tokNumber || b.kind == tokNumber {
		return a.kind == tokNumber && b.kind == tokNumber && numEq(a, b, 0)
	}
	if a.kind != b.kind && !(a.kind == tokIdent || b.kind == tokIdent) {
		return false
	}
	return a.text == b.text
}

func isLetterish(t token) bool { return t.kind == tokWord || t.kind == tokIdent }

// findPhrase returns the start indexes in ans where the tokens of item appear in sequence, not joined by '-' or
// '_' to a word before or after.
func findPhrase(ans, item []token) []int {
	var out []int
	n := len(item)
	for i := 0; i+n <= len(ans); i++ {
		ok := true
		for k := 0; k < n && ok; k++ {
			ok = tokEq(item[k], ans[i+k])
		}
		if !ok {
			continue
		}
		if i > 0 && ans[i].sep == sepJoiner && isLetterish(ans[i]) && isLetterish(ans[i-1]) {
			continue
		}
		if i+n < len(ans) && ans[i+n].sep == sepJoiner && isLetterish(ans[i+n]) && isLetterish(ans[i+n-1]) {
			continue
		}
		out = append(out, i)
	}
	return out
}

func (g *grader) exact(ref string) (Outcome, string) {
	rt := tokenize(ref)
	if len(rt) == 0 {
		if strings.TrimSpace(strings.ToLower(g.raw)) == strings.TrimSpace(strings.ToLower(ref)) {
			return OutcomePass, ""
		}
		return OutcomeFail, fmt.Sprintf("is not exactly %q", ref)
	}
	if at := findPhrase(g.ans, rt); len(at) == 1 && at[0]+len(rt) == len(g.ans) {
		// The whole answer, or the reference after labels only ("SKU: MH-07").
		labels := true
		for _, t := range g.ans[:at[0]] {
			labels = labels && t.label
		}
		if labels {
			return OutcomePass, ""
		}
	}
	if len(findPhrase(g.ans, rt)) > 0 {
		return OutcomeUncertain, fmt.Sprintf("contains %q but is not exactly it", ref)
	}
	return OutcomeFail, fmt.Sprintf("is not exactly %q", ref)
}

// itemTokens are the tokens of a must_include item, a company suffix at its end dropped.
func itemTokens(item string) []token {
	t := tokenize(item)
	for len(t) > 1 && t[len(t)-1].kind == tokWord && companySuffix[t[len(t)-1].text] {
		t = t[:len(t)-1]
	}
	return t
}

var (
	urlItemRe = regexp.MustCompile(`(?i)^(?:[a-z][a-z0-9+.-]*://)?[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?/\S*$`)
	// urlSpanRe: a URL written with a scheme or "www." (the spans whose tokens are not candidates).
	urlSpanRe = regexp.MustCompile(`(?i)(?:\b[a-z][a-z0-9+.-]*://|\bwww\.)[^\s"'<>()\[\]]+`)
	urlAnsRe  = regexp.MustCompile(`(?i)(?:[a-z][a-z0-9+.-]*://)?[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?(?:/[^\s"'<>()\[\]]*)?`)
)

// match is one found item: its first token index in the answer and its tokens.
type match struct {
	item  string
	start int
	n     int
	// lit is the byte span in fold(answer) of an item of punctuation only ("-----"), which has no tokens.
	lit [2]int
}

func (g *grader) mustInclude(items []string) (fails, doubts []string) {
	g.matched = map[int]bool{}
	var found []match
	allNumbers := true
	var itemToks [][]token
	for _, it := range items {
		alts := strings.Split(it, " |OR| ")
		var best *match
		var partial bool
		var urlNear string // the doubt of a URL that matches only loosely (urlMatch)
		for _, alt := range alts {
			alt = strings.TrimSpace(alt)
			if urlItemRe.MatchString(alt) {
				allNumbers = false
				if lo, hi, near, ok := g.urlMatch(alt); ok {
					best = &match{item: alt, start: -1}
					g.markSpan(lo, hi)
					if near == "" {
						urlNear = ""
					} else if urlNear == "" {
						urlNear = fmt.Sprintf("gives %q for %q (%s): the same page only if the site treats them alike",
							strings.TrimRight(fold(g.raw)[lo:hi], ".,;:!?"), alt, near)
					}
				}
				continue
			}
			toks := itemTokens(alt)
			itemToks = append(itemToks, toks)
			if len(toks) != 1 || toks[0].kind != tokNumber {
				allNumbers = false
			}
			if len(toks) == 0 {
				if at := strings.Index(fold(g.raw), fold(alt)); at >= 0 {
					best = &match{item: alt, start: -1, lit: [2]int{at, at + len(fold(alt))}}
					g.literal = true
				}
				continue
			}
			if at := findPhrase(g.ans, toks); len(at) > 0 {
				best = &match{item: alt, start: at[0], n: len(toks)}
				for _, a := range at {
					for k := range len(toks) {
						g.matched[a+k] = true
					}
				}
				break
			}
			partial = partial || g.partial(toks)
		}
		switch {
		case best != nil:
			found = append(found, *best)
			if urlNear != "" {
				doubts = append(doubts, urlNear)
			}
		case partial:
			doubts = append(doubts, fmt.Sprintf("has part of %q but not the whole", it))
		default:
			fails = append(fails, fmt.Sprintf("does not include %q", it))
		}
	}
	if len(fails) > 0 {
		return fails, nil
	}
	for _, m := range found {
		if m.lit[1] > 0 {
			if neg := g.negatedSpan(m.lit[0], m.lit[1]); neg != "" {
				doubts = append(doubts, fmt.Sprintf("negates %q (%q in its sentence)", m.item, neg))
			}
		}
		if m.start >= 0 {
			if neg := g.negated(m.start, m.n); neg != "" {
				doubts = append(doubts, fmt.Sprintf("negates %q (%q)", m.item, neg))
			} else if m.n == 1 && g.ans[m.start].kind == tokNumber {
				if c := g.comparator(m.start); c != "" {
					doubts = append(doubts, fmt.Sprintf("states a bound (%q %s), not the number", c, m.item))
				}
			}
		}
	}
	for i := 1; i < len(found); i++ {
		// Items of one kind (two names, two numbers) named in the reverse order may answer the question the
		// other way round (first and last place); a phrase and a date may come in any order.
		if found[i].start >= 0 && found[i-1].start >= 0 && found[i].start < found[i-1].start &&
			itemKind(g.ans[found[i].start:found[i].start+found[i].n]) == itemKind(g.ans[found[i-1].start:found[i-1].start+found[i-1].n]) {
			doubts = append(doubts, fmt.Sprintf("names %q before %q, the reverse of the rule's order", found[i].item, found[i-1].item))
			break
		}
	}
	if len(doubts) == 0 && !g.literal {
		if extra := g.extraItems(allNumbers, itemToks); extra != "" {
			doubts = append(doubts, extra)
		}
	}
	if len(doubts) == 0 {
		if a := g.antonym(itemToks); a != "" {
			doubts = append(doubts, a)
		}
	}
	return nil, doubts
}

// itemKind classifies an item's tokens: "number" (numbers only), "mixed" (some number), "name" (a capitalised
// word), "text".
func itemKind(ts []token) string {
	nums, caps := 0, 0
	for _, t := range ts {
		switch {
		case t.kind == tokNumber:
			nums++
		case t.cap || t.kind == tokIdent:
			caps++
		}
	}
	switch {
	case nums == len(ts):
		return "number"
	case nums > 0:
		return "mixed"
	case caps > 0:
		return "name"
	}
	return "text"
}

// partial: the answer has every number of the item and one of its distinctive words (not a stop word, not the
// question's).
func (g *grader) partial(item []token) bool {
	words := 0
	for _, it := range item {
		if it.kind == tokNumber {
			if !slices.ContainsFunc(g.ans, func(a token) bool { return tokEq(it, a) }) {
				return false
			}
			continue
		}
		if stopWords[it.text] || g.qWords[it.text] {
			continue
		}
		if slices.ContainsFunc(g.ans, func(a token) bool { return tokEq(it, a) }) {
			words++
		}
	}
	return words > 0
}

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

// extraItems says which other items the answer names beside the matched ones ("" when none).
func (g *grader) extraItems(allNumbers bool, items [][]token) string {
	inItems := map[string]bool{}
	for _, it := range items {
		for _, t := range it {
			inItems[t.text] = true
		}
	}
	if allNumbers {
		var extra []string
		for i, t := range g.ans {
			if t.kind == tokNumber && !g.matched[i] && g.plainCandidate(i) {
				extra = append(extra, strings.TrimSpace(g.surface(t)))
			}
		}
		if len(extra) > 0 {
			return fmt.Sprintf("also states %s", strings.Join(extra, ", "))
		}
		return ""
	}
	segHas := map[int]bool{}
	for i := range g.matched {
		segHas[g.ans[i].seg] = true
	}
	// An answer without capitals ("chicago bears, …, dallas cowboys") hides its names: its content words are
	// read as names where a capitalised word would be one.
	lower := !strings.ContainsFunc(g.raw, unicode.IsUpper)
	for i, t := range g.ans {
		if g.matched[i] {
			continue
		}
		if w := g.anotherAnswer(i, inItems); w != "" {
			return fmt.Sprintf("names another answer (%q)", w)
		}
		if segHas[t.seg] && g.lowerName(i, inItems) && g.afterConjunction(i) && (lower || len(items) > 1) {
			// "microsoft and google", "Minnesota Vikings and the cowboys", "orange, white and blue".
			return fmt.Sprintf("also names %q", g.surface(t))
		}
		if !segHas[t.seg] && lower && g.lowerName(i, inItems) && g.listItemSegment(t.seg) {
			return fmt.Sprintf("also names %q", g.surface(t))
		}
		if segHas[t.seg] && lower && alternatives[t.text] && g.lowerNameInSegment(t.seg, inItems) {
			return fmt.Sprintf("offers an alternative (%q …)", t.text)
		}
		if segHas[t.seg] {
			// In a segment with a match: an alternative or a comparison to another name, or another name of its
			// own — not one that continues the match's name (Microsoft Translator, Yeovil Town F.C.) or a place
			// after a preposition (Apple Tower Theatre in Los Angeles).
			if alternatives[t.text] && g.nameInSegment(t.seg, inItems) {
				return fmt.Sprintf("offers an alternative (%q …)", t.text)
			}
			if g.isName(i, inItems) && !g.nameRunTouchesMatch(i) && !g.placeAfterPreposition(i) {
				return fmt.Sprintf("also names %q", g.surface(t))
			}
			continue
		}
		switch {
		case t.kind == tokNumber && g.plainCandidate(i) && t.unit == "":
			return fmt.Sprintf("also states %s", strings.TrimSpace(g.surface(t)))
		case g.isName(i, inItems):
			return fmt.Sprintf("also names %q", g.surface(t))
		}
	}
	return ""
}

// lowerName: the token at i is a word written in lower case that could name an item: not a stop word, the
// question's, the rule's, a month, a weekday, a unit, a label, in a URL, or shorter than three letters.
func (g *grader) lowerName(i int, inItems map[string]bool) bool {
	t := g.ans[i]
	if t.kind != tokWord || t.cap || t.label || t.url || len(t.text) < 3 {
		return false
	}
	_, unit := unitAlias[t.text]
	return !unit && !stopWords[t.text] && !g.qWords[t.text] && !inItems[t.text] && !months[t.text] &&
		!weekdays[t.text] && !companySuffix[t.text] && !listWords[t.text]
}

// listItemSegment: the segment seg is short (at most five tokens) and reads as a list item, not a clause or an
// aside: it opens with no function word other than "the", "and", "or", "then", "plus" ("dallas cowboys", "then
// torquay united"; not "(by comparison with 1/n^3)").
func (g *grader) listItemSegment(seg int) bool {
	var ts []token
	for _, t := range g.ans {
		if t.seg == seg {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 || len(ts) > 5 {
		return false
	}
	switch w := ts[0].text; {
	case w == "the" || w == "and" || w == "or" || w == "then" || w == "plus":
		return true
	case stopWords[w]:
		return false
	}
	return true
}

// listWords: lower-case words that join or close a list rather than name an item.
var listWords = map[string]bool{"then": true, "plus": true, "etc": true, "respectively": true, "together": true}

func (g *grader) lowerNameInSegment(seg int, inItems map[string]bool) bool {
	for i, t := range g.ans {
		if t.seg == seg && !g.matched[i] && g.lowerName(i, inItems) {
			return true
		}
	}
	return false
}

// afterConjunction: the token at i follows "and", "or", "&", "then" or "plus" (perhaps with "the" between) in
// its segment: the next item of a list.
func (g *grader) afterConjunction(i int) bool {
	k := i - 1
	if k >= 0 && g.ans[k].text == "the" {
		k--
	}
	if k < 0 || g.ans[k].seg != g.ans[i].seg {
		return false
	}
	switch g.ans[k].text {
	case "and", "or", "&", "then", "plus", "nor":
		return true
	}
	return false
}

// anotherAnswerRe: a segment that names the answer ("it is pillow", "the answer is pillow", "now it's X").
var answerSubjects = map[string]bool{"it": true, "answer": true, "winner": true, "result": true, "tool": true,
	"one": true}

// anotherAnswer: the token at i, in a segment without a match, is what the segment says the answer is ("this
// year it is pillow") and could name an item; it returns its text, "" otherwise.
func (g *grader) anotherAnswer(i int, inItems map[string]bool) string {
	t := g.ans[i]
	if i < 2 || g.matched[i] || !copulas[g.ans[i-1].text] || !answerSubjects[g.ans[i-2].text] ||
		g.ans[i-1].seg != t.seg || g.ans[i-2].seg != t.seg {
		return ""
	}
	for k := range g.ans {
		if g.ans[k].seg == t.seg && g.matched[k] {
			return ""
		}
	}
	if (i+1 < len(g.ans) && g.ans[i+1].seg == t.seg) || !(g.lowerName(i, inItems) || g.isName(i, inItems)) {
		return ""
	}
	return g.surface(t)
}

// nameRun returns the bounds [lo, hi] of the run of capitalised words and identifiers around i in its segment.
func (g *grader) nameRun(i int) (lo, hi int) {
	isCap := func(k int) bool {
		t := g.ans[k]
		return t.seg == g.ans[i].seg && (t.cap || t.kind == tokIdent)
	}
	lo, hi = i, i
	for lo > 0 && isCap(lo-1) {
		lo--
	}
	for hi+1 < len(g.ans) && isCap(hi+1) {
		hi++
	}
	return lo, hi
}

// nameRunTouchesMatch: the capitalised run around i is next to (or part of) a match.
func (g *grader) nameRunTouchesMatch(i int) bool {
	lo, hi := g.nameRun(i)
	for k := max(lo-1, 0); k <= hi+1 && k < len(g.ans); k++ {
		if g.matched[k] {
			return true
		}
	}
	return false
}

var placePrepositions = map[string]bool{"in": true, "at": true, "near": true, "from": true, "on": true, "of": true,
	"via": true, "inside": true}

// placeAfterPreposition: the capitalised run around i follows "in", "at", "near", … (a place, not a rival item).
func (g *grader) placeAfterPreposition(i int) bool {
	lo, _ := g.nameRun(i)
	return lo > 0 && g.ans[lo-1].seg == g.ans[i].seg && placePrepositions[g.ans[lo-1].text]
}

var alternatives = map[string]bool{"or": true, "than": true, "vs": true, "versus": true, "instead": true,
	"either": true, "maybe": true, "possibly": true, "but": true, "however": true, "whereas": true, "rather": true}

// severalRe: a question that asks about several things at once ("Compare the Free and Pro plans"), which a
// rule of one item cannot check: an answer about one of them matches it too.
var severalRe = regexp.MustCompile(`\b(?:compare|comparing|respectively|both|each of)\b`)

// ruleItems counts what rule checks: its must_include items, plus one for Exact and one for Number.
// referenceContext: when a rule item is one word of a longer reference ("nylon" of "Recycled nylon ripstop"),
// the answer that writes a neighbour of it in the reference ("ripstop") next to another content word instead
// ("a polyester ripstop shell with a nylon mesh lining") names the reference's thing with something else, and
// the item it does name may belong to another part of the answer: a doubt, with the words. "" when there is
// no reference, no such item, or every such neighbour the answer writes stands next to the item or to words of
// the reference, a stop word or punctuation.
func (g *grader) referenceContext(reference string, items []string) string {
	ref := tokenize(reference)
	if len(ref) < 2 {
		return ""
	}
	inRef := map[string]bool{}
	for _, t := range ref {
		inRef[t.text] = true
	}
	for _, it := range items {
		toks := itemTokens(it)
		if len(toks) != 1 || toks[0].kind != tokWord {
			continue
		}
		w := toks[0].text
		for k, r := range ref {
			if r.text != w {
				continue
			}
			// The reference's neighbours of w: the word after it (the answer's word before that neighbour
			// should be w) and the word before it (the answer's word after it should be w).
			for _, nb := range []struct {
				at, dir int
			}{{k + 1, -1}, {k - 1, +1}} {
				if nb.at < 0 || nb.at >= len(ref) || ref[nb.at].kind != tokWord || stopWords[ref[nb.at].text] {
					continue
				}
				for i, a := range g.ans {
					if a.text != ref[nb.at].text {
						continue
					}
					j := i + nb.dir
					if j < 0 || j >= len(g.ans) || g.ans[j].seg != a.seg {
						continue
					}
					o := g.ans[j]
					if o.kind != tokWord || o.text == w || inRef[o.text] || stopWords[o.text] || g.qWords[o.text] {
						continue
					}
					pair := o.text + " " + a.text
					if nb.dir == +1 {
						pair = a.text + " " + o.text
					}
					return fmt.Sprintf("writes %q where the reference %q has %q next to it", pair, reference, w)
				}
			}
		}
	}
	return ""
}

func ruleItems(r suites.AnswerRule) int {
	n := len(r.MustInclude)
	if r.Exact != "" {
		n++
	}
	if r.Number != nil {
		n++
	}
	return n
}

// hedgeRe: phrases of an answer that does not commit to what it states ("not sure", "unable to find", "failed
// to determine", "maybe") or takes it back ("used to be", "was overtaken by"): a match of the rule in such an
// answer is uncertain.
var hedgeRe = regexp.MustCompile(`\b(?:not sure|unsure|unclear|(?:do|does|did) not know|cannot (?:be )?(?:determine|confirm|verify|find)|` +
	`(?:could|can|was|were) not (?:be )?(?:able to )?(?:find|determine|confirm|verify|locate)|unable to|failed to|no information|` +
	`(?:could|can|did|do) not tell|cannot tell|used to be|formerly|previously|fell behind|lost to|lost out to|` +
	`(?:overtaken|surpassed|replaced|superseded|outranked|outpaced|dethroned|beaten|overtook|passed)(?:\s+\w+){0,3}\s+by|` +
	`possibly|perhaps|maybe|probably|i think|i guess|i believe)\b`)

func (g *grader) nameInSegment(seg int, inItems map[string]bool) bool {
	for i, t := range g.ans {
		if t.seg == seg && !g.matched[i] && g.isName(i, inItems) {
			return true
		}
	}
	return false
}

// isName: the token at i is a capitalised word or an identifier that is not the question's, not one of the
// rule's, not a stop word, a month or a weekday.
func (g *grader) isName(i int, inItems map[string]bool) bool {
	t := g.ans[i]
	if t.url {
		return false
	}
	if t.kind == tokIdent {
		return !g.qWords[t.text] && !inItems[t.text]
	}
	if t.kind == tokWord && !t.cap && !t.label && i+1 < len(g.ans) && g.ans[i+1].sep == sepJoiner && g.ans[i+1].kind == tokWord &&
		len(t.text) >= 3 && !stopWords[t.text] && !g.qWords[t.text] && !inItems[t.text] && !inItems[g.ans[i+1].text] {
		// A lower-case compound joined by '-' or '_' (scikit-image, tensorflow-models, ceti_audio) reads as a
		// package or repository name, a rival like a capitalised one.
		return true
	}
	if t.kind != tokWord || !t.cap || t.label {
		return false
	}
	return !stopWords[t.text] && !g.qWords[t.text] && !inItems[t.text] && !months[t.text] && !weekdays[t.text] &&
		!companySuffix[t.text]
}

// plainCandidate: the answer's number at i counts as a candidate answer — not a list marker, not part of a date,
// not an ordinal, not a rating's scale ("out of 5"), not a number of the question, and a number word only when
// it counts something ("one meaning", "five styles"; not "one of them", "the first one", "no one").
func (g *grader) plainCandidate(i int) bool {
	t := g.ans[i]
	if t.enumerator || t.date || t.ordinal || t.scale || t.url {
		return false
	}
	if t.weak && !g.countsThing(i) {
		return false
	}
	for _, q := range g.qNums {
		if math.Abs(q.num-t.num) <= relEps(q.num, t.num) {
			return false
		}
	}
	return true
}

// pronounOne: words before "one" that make it a pronoun ("the one", "no one", "which one").
var pronounOne = map[string]bool{"the": true, "no": true, "this": true, "that": true, "which": true, "each": true,
	"every": true, "any": true, "some": true, "first": true, "last": true, "another": true, "a": true}

// countsThing: the number word at i is followed, in its segment, by a content word it counts (a word that is
// no stop word: "one meaning", "five styles").
func (g *grader) countsThing(i int) bool {
	if i+1 >= len(g.ans) {
		return false
	}
	next := g.ans[i+1]
	if next.seg != g.ans[i].seg || next.kind != tokWord || stopWords[next.text] || next.label {
		return false
	}
	if i > 0 && g.ans[i-1].seg == g.ans[i].seg && pronounOne[g.ans[i-1].text] {
		return false
	}
	return true
}

func (g *grader) surface(t token) string {
	s := fold(g.raw)
	if t.start >= 0 && t.end <= len(s) && t.start < t.end {
		return s[t.start:t.end]
	}
	return t.text
}

// antonym: an expected word and its opposite by prefix (unlimited and limited) both in the answer.
func (g *grader) antonym(items [][]token) string {
	have := map[string]bool{}
	for i, t := range g.ans {
		if !g.matched[i] && t.kind == tokWord {
			have[t.text] = true
		}
	}
	for _, it := range items {
		for _, t := range it {
			if t.kind != tokWord {
				continue
			}
			for _, p := range []string{"un", "non", "in", "im", "dis"} {
				if w, ok := strings.CutPrefix(t.text, p); ok && len(w) > 3 && have[w] {
					return fmt.Sprintf("has %q beside %q", w, t.text)
				}
				if have[p+t.text] {
					return fmt.Sprintf("has %q beside %q", p+t.text, t.text)
				}
			}
		}
	}
	return ""
}

// urlMatch: some URL in the answer has the item's scheme (when both have one), host, port, leading whole path
// segments and query parameters: ok with near "". Failing that, a URL that differs only in what many sites
// treat alike — a "www." prefix on one side, http for https, the path's letter case (GitHub's owner/repo) — is
// ok with near saying how (the caller makes it uncertain: a careful grader would not fail it outright, nor
// pass it unseen). lo, hi is the URL's span in fold(g.raw).
func (g *grader) urlMatch(item string) (lo, hi int, near string, ok bool) {
	ref, err := parseLooseURL(item)
	if err != nil {
		return 0, 0, "", false
	}
	text := fold(g.raw)
	nearLo, nearHi, nearWhy := 0, 0, ""
	for _, loc := range urlAnsRe.FindAllStringIndex(text, -1) {
		s := strings.TrimRight(text[loc[0]:loc[1]], ".,;:!?")
		u, err := parseLooseURL(s)
		if err != nil {
			continue
		}
		var why []string
		if ref.Scheme != "" && u.Scheme != "" && !strings.EqualFold(ref.Scheme, u.Scheme) {
			if !httpPair(ref.Scheme, u.Scheme) {
				continue
			}
			why = append(why, u.Scheme+" for "+ref.Scheme)
		}
		if !strings.EqualFold(ref.Host, u.Host) {
			if !strings.EqualFold(strings.TrimPrefix(strings.ToLower(ref.Host), "www."), strings.TrimPrefix(strings.ToLower(u.Host), "www.")) {
				continue
			}
			why = append(why, "host "+u.Host+" for "+ref.Host)
		}
		rp, up := pathSegments(ref.Path), pathSegments(u.Path)
		if len(up) < len(rp) {
			continue
		}
		if !slices.Equal(rp, up[:len(rp)]) {
			if !slices.EqualFunc(rp, up[:len(rp)], strings.EqualFold) {
				continue
			}
			why = append(why, "the path in another letter case")
		}
		ok := true
		uq := u.Query()
		for k, vs := range ref.Query() {
			for _, v := range vs {
				if !slices.Contains(uq[k], v) {
					ok = false
				}
			}
		}
		if !ok {
			continue
		}
		if len(why) == 0 {
			return loc[0], loc[0] + len(s), "", true
		}
		if nearWhy == "" {
			nearLo, nearHi, nearWhy = loc[0], loc[0]+len(s), strings.Join(why, ", ")
		}
	}
	if nearWhy != "" {
		return nearLo, nearHi, nearWhy, true
	}
	return 0, 0, "", false
}

// httpPair reports whether schemes a and b are http and https, in either order.
func httpPair(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	return a == "http" && b == "https" || a == "https" && b == "http"
}

// parseLooseURL parses s with net/url, reading a URL without a scheme as host/path.
func parseLooseURL(s string) (*url.URL, error) {
	if !strings.Contains(s, "://") {
		u, err := url.Parse("//" + s)
		if err != nil {
			return nil, err
		}
		return u, nil
	}
	return url.Parse(s)
}

func pathSegments(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// unitInQuestionRe finds the unit a question asks for: "how many milligrams", "in euros", "Answer in
// millimetres", "in degrees Fahrenheit".
var unitInQuestionRe = regexp.MustCompile(`(?i)\b(?:how\s+many|how\s+much|in|answer\s+in)\s+((?:degrees\s+)?[a-z€$£]+)`)

func questionUnit(q string) string {
	for _, m := range unitInQuestionRe.FindAllStringSubmatch(fold(q), -1) {
		w := strings.ToLower(m[1])
		switch w {
		case "degrees fahrenheit":
			return "degf"
		case "degrees celsius":
			return "degc"
		}
		if u, ok := unitAlias[w]; ok && len(w) > 2 {
			return u
		}
	}
	return ""
}

// unitCompatible: the answer's number at i may state a quantity in unit — it has a unit (numEq converts or
// refuses it), or no unit is expected, or the word after it is no unit of another kind: a known unit word, or a
// short abbreviation with a capital letter ("Mbps", "kWh", "GHz") that is none of the expected unit's.
func (g *grader) unitCompatible(i int, unit string) bool {
	t := g.ans[i]
	if t.unit != "" || unit == "" || i+1 >= len(g.ans) {
		return true
	}
	next := g.ans[i+1]
	if next.kind != tokWord || next.seg != t.seg {
		return true
	}
	if u, ok := unitAlias[next.text]; ok && u != unit {
		return false
	}
	raw := g.surface(next)
	if n := len(raw); n >= 2 && n <= 5 && strings.ToLower(raw) != raw && !stopWords[next.text] {
		return false
	}
	return true
}

// questionScaleRe finds a scale the question counts in: "how many thousand hours", "in millions", "how many
// thousands of".
var questionScaleRe = regexp.MustCompile(`(?i)\b(?:how\s+many|in)\s+(thousand|million|billion)s?\b`)

// questionScale is the multiplier of the scale the question counts in (1 when none).
func questionScale(q string) float64 {
	if m := questionScaleRe.FindStringSubmatch(q); m != nil {
		return multiplierWords[strings.ToLower(m[1])]
	}
	return 1
}

func (g *grader) number(want, tol float64, unit, question string) (fails, doubts []string) {
	unit, pct := ruleUnit(unit)
	if unit == "" && !pct {
		unit = questionUnit(question)
	}
	exp := token{kind: tokNumber, num: want, unit: unit, pct: pct}
	// "How many thousand hours": the rule's 17 is 17 thousand; an answer may say 17, 17 thousand or 17000.
	scaled := exp
	m := questionScale(question)
	scaled.num *= m
	var hit []int
	var others []string
	var unitOthers []token // candidates with a unit, when the rule expects none: rivals if a hit has their unit
	for i, t := range g.ans {
		if t.kind != tokNumber || t.enumerator || t.url {
			continue
		}
		if !t.ordinal && g.unitCompatible(i, unit) && !(pct && t.unit != "") && (numEq(exp, t, tol) || m != 1 && numEq(scaled, t, tol*m)) {
			hit = append(hit, i)
			continue
		}
		if !g.plainCandidate(i) {
			continue
		}
		// A number with a unit of another family than the expected one (or any unit when none is expected) is
		// another quantity, not a rival answer.
		if t.unit != "" {
			if unit == "" {
				unitOthers = append(unitOthers, t)
				continue
			}
			if ue, ug := units[unit], units[t.unit]; ue.family != ug.family {
				continue
			}
		}
		others = append(others, strings.TrimSpace(g.surface(t)))
	}
	// With no unit expected, "€834 … €912": the matched number's own unit makes a number of that unit's family
	// a rival (the right value attached to another thing is still one of two prices).
	for _, t := range unitOthers {
		for _, i := range hit {
			if h := g.ans[i]; h.unit != "" && units[h.unit].family == units[t.unit].family {
				others = append(others, strings.TrimSpace(g.surface(t)))
				break
			}
		}
	}
	if len(hit) == 0 {
		if sp := g.spacedThousands(exp, tol); sp != "" {
			// "9 675": a space as the thousands separator (SI, French) or two numbers; a grader would ask.
			return nil, []string{fmt.Sprintf("writes %q, which is %g only if the space separates thousands", sp, want)}
		}
		what := fmt.Sprintf("%g", want)
		if unit != "" {
			what += " " + unit
		}
		return []string{fmt.Sprintf("has no number within %g of %s", tol, what)}, nil
	}
	qScale := 0.0
	for _, t := range g.q {
		if t.scale {
			qScale = t.num
			break
		}
	}
	for _, i := range hit {
		if s := g.scaleAfter(i); s != 0 && qScale != 0 && s != qScale {
			// "4.2 out of 10" for a question "out of 5": the same digits on another scale are another rating.
			return []string{fmt.Sprintf("states %s out of %g where the question counts out of %g",
				strings.TrimSpace(g.surface(g.ans[i])), s, qScale)}, nil
		}
	}
	for _, i := range hit {
		if w := g.otherStatistic(i); w != "" {
			return nil, []string{fmt.Sprintf("calls %s the %q value, which the question does not ask for",
				strings.TrimSpace(g.surface(g.ans[i])), w)}
		}
	}
	for _, i := range hit {
		if neg := g.negated(i, 1); neg != "" {
			return nil, []string{fmt.Sprintf("negates %s (%q)", g.surface(g.ans[i]), neg)}
		}
		if c := g.comparator(i); c != "" {
			return nil, []string{fmt.Sprintf("states a bound (%q %s), not the number", c, strings.TrimSpace(g.surface(g.ans[i])))}
		}
	}
	if len(others) > 0 {
		return nil, []string{fmt.Sprintf("states other candidate numbers beside %s: %s", strings.TrimSpace(g.surface(g.ans[hit[0]])),
			strings.Join(others, ", "))}
	}
	return nil, nil
}

// scaleAfter is the rating scale written right after the answer's number at i ("4.2 out of 10", "4.2/10": 10),
// 0 when there is none.
func (g *grader) scaleAfter(i int) float64 {
	for j := i + 1; j < len(g.ans) && j <= i+5 && g.ans[j].seg == g.ans[i].seg; j++ {
		if g.ans[j].scale {
			return g.ans[j].num
		}
		if g.ans[j].kind == tokNumber {
			break
		}
	}
	return 0
}

// statisticWords name which value of a quantity is meant (the maximum heart rate, the average price): one in
// the segment of a matched number that the question does not use makes the match another quantity's value
// ("The maximum heart rate is 110 bpm" for a question about the heart rate reserve).
var statisticWords = map[string]bool{"maximum": true, "minimum": true, "max": true, "min": true, "average": true,
	"mean": true, "median": true, "peak": true, "resting": true, "target": true, "recommended": true, "ideal": true,
	"typical": true, "lowest": true, "highest": true}

// quantityWords name what a number measures; an answer that gives the matched number as one of them that the
// question does not name, when the question names one, gives another quantity's value ("an area of 39.2" for a
// question about a curve's length).
var quantityWords = map[string]bool{"area": true, "length": true, "volume": true, "perimeter": true,
	"circumference": true, "distance": true, "weight": true, "mass": true, "height": true, "width": true,
	"depth": true, "radius": true, "diameter": true, "speed": true, "velocity": true, "duration": true,
	"population": true, "density": true, "pressure": true, "temperature": true, "altitude": true, "elevation": true}

// otherStatistic returns the statistic word ("maximum") or quantity word ("area") that the answer gives its
// number at i as and the question does not use, "" when there is none. It looks in the number's segment and in
// the one before it when a ':', '=' or '-' joins them ("Maximum heart rate: 110 bpm").
func (g *grader) otherStatistic(i int) string {
	seg := g.ans[i].seg
	segs := map[int]bool{seg: true}
	s := fold(g.raw)
	for j := i; j > 0; j-- {
		if g.ans[j].seg == seg && g.ans[j-1].seg == seg-1 {
			if a, b := g.ans[j-1].end, g.ans[j].start; a >= 0 && b <= len(s) && a <= b && strings.ContainsAny(s[a:b], ":=-") {
				segs[seg-1] = true
			}
			break
		}
	}
	qQuantity := false
	for w := range g.qWords {
		if quantityWords[w] {
			qQuantity = true
		}
	}
	for _, t := range g.ans {
		if !segs[t.seg] || t.kind != tokWord || g.qWords[t.text] {
			continue
		}
		if statisticWords[t.text] || qQuantity && quantityWords[t.text] {
			return t.text
		}
	}
	return ""
}

// spacedThousands returns the answer's text of two numbers written with one plain space between them that,
// read as one number with a space as the thousands separator ("9 675"), is exp within tol; "" when there is
// none. A no-break or narrow no-break space, or an apostrophe (Swiss "9'675"), between digit groups is read as a
// thousands separator by fold already.
func (g *grader) spacedThousands(exp token, tol float64) string {
	s := fold(g.raw)
	for i := 0; i+1 < len(g.ans); i++ {
		a, b := g.ans[i], g.ans[i+1]
		if a.kind != tokNumber || b.kind != tokNumber || a.start < 0 || b.end > len(s) || a.unit != "" || a.pct {
			continue
		}
		// b's own digits, without the unit the tokenizer attached to it ("675 days").
		if s[a.end:b.start] != " " || !threeDigitsRe.MatchString(s[b.start:]) || strings.ContainsAny(s[a.start:a.end], ".,") {
			continue
		}
		v := a.num*1000 + b.num
		if math.Abs(v-exp.num) <= tol+relEps(v, exp.num) && (exp.unit == "" || b.unit == "" || b.unit == exp.unit) {
			return strings.TrimSpace(s[a.start:b.end])
		}
	}
	return ""
}

// threeDigitsRe: exactly three digits at the start of a number's text, not followed by another digit or a
// decimal part.
var threeDigitsRe = regexp.MustCompile(`^\d{3}(?:[^\d.,]|$)`)

var (
	// comparatorBeforeRe, comparatorAfterRe: a bound around a number ("more than 12", "at least 12", "12+", "12
	// or more"): the answer says the value is not, or not only, that number.
	comparatorBeforeRe = regexp.MustCompile(`(?i)(?:\b(?:more|less|fewer|greater|higher|lower|larger|smaller)\s+than|` +
		`\b(?:over|under|above|below|beyond|exceeding|at\s+least|at\s+most|up\s+to|upwards\s+of|in\s+excess\s+of|no\s+more\s+than|no\s+fewer\s+than)|[<>≤≥]=?)\s*[$€£]?\s*$`)
	comparatorAfterRe = regexp.MustCompile(`(?i)^(?:\+|\s*(?:or|and)\s+(?:more|less|fewer|above|below|over|under)\b)`)
)

// comparator returns the bound around the answer's number at i ("more than", "+"), "" when there is none.
func (g *grader) comparator(i int) string {
	t, s := g.ans[i], fold(g.raw)
	if t.start < 0 || t.end > len(s) {
		return ""
	}
	if m := comparatorBeforeRe.FindString(s[:t.start]); m != "" {
		return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(m), "$€£"))
	}
	if m := comparatorAfterRe.FindString(s[t.end:]); m != "" {
		return strings.TrimSpace(m)
	}
	return ""
}

// stopWords: function words and common sentence openers, never a name.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but nor of to in on at for by with from into onto as is are was
	were be been being it its this that these those there here he she they we i you me my your our their his her
	them us yes no not all both each every first last total answer according after before then than so if also
	only just about around approximately approx nearly over under per one two three what which who whom whose
	when where why how do does did has have had can could will would should may might must shall please note
	found see find located there's it's via using use used based best most more less many much some any other
	another such same new latest current currently here's result results search page site website option
	options available yes join see visit check click go try open contact call read follow select choose
	note`) {
		stopWords[w] = true
		stopWords[singular(w)] = true
	}
}
