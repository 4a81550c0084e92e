package judge

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

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
//     same scheme (when the item has one), host, port and whole path, and the item's query
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
// The question's constraints (constraints.go): months or years of which none is the question's fail, a Number
// match stated as a rate ("per mile") fails where the question asks for an amount, a precision the question asks
// for must be written. Equivalent writings of an item (items.go): a count and its noun reversed, "no limit" for
// "unlimited", "five hyphens" for "-----", a full hash for its prefix; a name inside a URL counts only when the
// URL is its page. State and country abbreviations, "'07" and "eleven point two" are read by the tokeniser
// (equiv.go).
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
	g := grader{ans: tokenize(answer), q: tokenize(question), raw: answer, reference: rule.Reference, matched: map[int]bool{}}
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
	if len(fails) == 0 {
		if d := g.datesOutside(nil); d != "" {
			fails = append(fails, d)
		}
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
	// reference is the rule's reference answer as the task gives it ("" when none).
	reference string
	// matched marks answer tokens inside a match; literal: some item matched as a substring (punctuation only).
	matched map[int]bool
	literal bool
	// missingDoubts: items the answer lacks that a grader would not fail it for alone (a street address).
	missingDoubts []string
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
	if tol < 1 && shortYearEq(e, got) {
		return true
	}
	changed := got.frac != exp.frac
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
	t := tol
	// An answer's number stands for the interval of its last digit when it is written with decimals or in
	// another representation: 0.19 GB is 190 ± 5 MB, 3.13 % is 3.125 % rounded (an integer is a count or a
	// truncation: 17 is not iOS 17.1, 39 not 39.2). Only as far as the answer keeps the reference's significant figures but one,
	// and at least two (0.19 GB for 192 MB keeps 2 of 3; 0.2 GB, 1 of 3, 0.05 TB for 48 GB, 1 of 2, and 0.03 for
	// 3.125 %, 1 of 4, are too rough).
	if got.prec > t && keeps && (changed || got.prec < 0.5) {
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
	// and a host with a top-level domain of letters followed by a path (github.com/opencv/cvat).
	urlSpanRe = regexp.MustCompile(`(?i)(?:\b[a-z][a-z0-9+.-]*://|\bwww\.|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/)[^\s"'<>()\[\]]+`)
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

// mustInclude checks that the answer includes every must_include item (an item is alternatives joined by
// " |OR| "; a URL item matches loosely, an item of punctuation only literally): fails names the items missing,
// doubts what makes a found item debatable (a part only, a negation, a bound, the reverse order, extra
// candidates, an antonym). Matched answer tokens are marked in g.matched.
func (g *grader) mustInclude(items []string) (fails, doubts []string) {
	var found []match
	allNumbers := true
	var itemToks [][]token
	var missing []string
	for _, it := range items {
		alts := strings.Split(it, " |OR| ")
		var best *match
		var partial bool
		var urlNear string  // the doubt of a URL that matches only loosely (urlMatch)
		var urlOther string // the item's tokens only inside URLs of other pages
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
				} else if a := g.punctuationWords(alt); a >= 0 {
					best = &match{item: alt, start: a, n: 2}
					g.matched[a], g.matched[a+1] = true, true
				}
				continue
			}
			if at, n, why := g.findItem(alt, toks); len(at) > 0 {
				best = &match{item: alt, start: at[0], n: n}
				for _, a := range at {
					for k := range n {
						g.matched[a+k] = true
					}
				}
				break
			} else if why != "" {
				urlOther = why
			}
			partial = partial || g.partial(toks)
		}
		switch {
		case best != nil:
			found = append(found, *best)
			if urlNear != "" {
				doubts = append(doubts, urlNear)
			}
		case urlOther != "":
			fails = append(fails, urlOther)
		case partial:
			doubts = append(doubts, fmt.Sprintf("has part of %q but not the whole", it))
		default:
			missing = append(missing, it)
		}
	}
	fails = append(fails, g.missingItems(missing, len(found))...)
	if len(fails) > 0 {
		return fails, nil
	}
	doubts = append(doubts, g.missingDoubts...)
	doubts = append(doubts, g.foundDoubts(found)...)
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

// foundDoubts are the doubts about the found items themselves: an item negated in its sentence, a number stated
// as a bound, and items of one kind named in the reverse of the rule's order.
func (g *grader) foundDoubts(found []match) (doubts []string) {
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
	return doubts
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
		// A word inside a URL is part of an address, not a mention (huggingface.co/…/ceti_audio_small).
		if slices.ContainsFunc(g.ans, func(a token) bool { return !a.url && tokEq(it, a) }) {
			words++
		}
	}
	return words > 0
}

// missingItems are the fails of the items the answer does not include, found of them found: none for a street
// address, or for titles when a segment of the answer is in another language, when the answer has other items
// — those are doubts, added to g.missingDoubts.
func (g *grader) missingItems(missing []string, found int) (fails []string) {
	foreign := ""
	if len(missing) > 0 && found >= len(missing) {
		foreign = g.foreignSegment()
	}
	for _, it := range missing {
		switch {
		case found >= 2 && streetAddressRe.MatchString(strings.TrimSpace(it)):
			g.missingDoubts = append(g.missingDoubts, fmt.Sprintf("does not give the street address %q", it))
		case foreign != "" && itemKind(itemTokens(it)) == "name":
			g.missingDoubts = append(g.missingDoubts, fmt.Sprintf("does not include %q; it may give it in another language (%q)", it, foreign))
		default:
			fails = append(fails, fmt.Sprintf("does not include %q", it))
		}
	}
	return fails
}
