package judge

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"webbench/suites"
)

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
		case t.kind == tokNumber && g.plainCandidate(i) && t.unit == "" && !g.countsThing(i):
			// A number that counts something ("80k stars", "54 of 58 games") is a fact about the item, not a
			// rival to a name.
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
	if t.kind != tokWord || !t.cap || t.label || g.capitalisedByPlace(i) {
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
	// A number the reference answer itself states beside the ruled item (54/58 beside a URL) is no rival.
	for _, r := range refNumRe.FindAllString(g.reference, -1) {
		if v, err := strconv.ParseFloat(r, 64); err == nil && math.Abs(v-t.num) <= relEps(v, t.num) && !g.matched[i] {
			return false
		}
	}
	return true
}

// refNumRe: the numbers written in a reference answer, each on its own ("54/58" states 54 and 58).
var refNumRe = regexp.MustCompile(`\d+(?:\.\d+)?`)

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

// capitalisedByPlace: the capital of the word at i says nothing of a name — a word opening its segment before a
// preposition ("Powered by Microsoft", "Provided by …"), or a compass word before a lower-case word or a label
// ("West leader: …").
func (g *grader) capitalisedByPlace(i int) bool {
	t := g.ans[i]
	if i+1 >= len(g.ans) || g.ans[i+1].seg != t.seg {
		return false
	}
	next := g.ans[i+1]
	if (i == 0 || g.ans[i-1].seg != t.seg) && next.kind == tokWord && !next.cap && prepositions[next.text] {
		return true
	}
	return compass[t.text] && next.kind == tokWord && (!next.cap || next.label)
}

var prepositions = map[string]bool{"by": true, "with": true, "from": true, "via": true, "to": true, "in": true,
	"for": true, "on": true, "at": true, "of": true}

var compass = map[string]bool{"north": true, "south": true, "east": true, "west": true, "northern": true,
	"southern": true, "eastern": true, "western": true}
