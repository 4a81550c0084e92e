package judge

import (
	"fmt"
	"regexp"
	"strings"
)

// How a must_include item may be written other than as its own tokens: the count and its noun the other way
// round ("Figures: 2" for "2 Figures"), a word of the same meaning ("no limit" for "Unlimited"), a longer hash
// for its prefix (a full commit SHA for "eedf571"), a run of punctuation by its name ("five hyphens" for
// "-----"); and where its tokens do not count: inside a URL of another page (github.com/opencv/opencv_contrib
// does not name OpenCV).

// findItem returns where the item alt (its tokens toks) appears in the answer: the start indexes and the
// length of each occurrence; none with why saying when the item's tokens appear only inside URLs of other pages.
func (g *grader) findItem(alt string, toks []token) (at []int, n int, why string) {
	if at = findPhrase(g.ans, toks); len(at) > 0 {
		var kept []int
		var other string
		for _, a := range at {
			if u := g.urlOf(a, len(toks)); u != "" && !urlNames(u, alt) {
				other = u
				continue
			}
			kept = append(kept, a)
		}
		if len(kept) == 0 {
			return nil, 0, fmt.Sprintf("names %q only inside %s, the URL of another page", alt, other)
		}
		return kept, len(toks), ""
	}
	if a := g.reversedCount(toks); a >= 0 {
		return []int{a}, 2, ""
	}
	if a, n := g.equivalent(toks); a >= 0 {
		return []int{a}, n, ""
	}
	if a := g.hashPrefix(toks); a >= 0 {
		return []int{a}, 1, ""
	}
	return nil, 0, ""
}

// urlOf is the URL of the answer that the occurrence ans[a:a+n] lies inside ("" when it is not all inside one).
func (g *grader) urlOf(a, n int) string {
	s := fold(g.raw)
	for _, loc := range urlSpanRe.FindAllStringIndex(s, -1) {
		if g.ans[a].start >= loc[0] && g.ans[a+n-1].end <= loc[1] {
			return strings.TrimRight(s[loc[0]:loc[1]], ".,;:!?")
		}
	}
	return ""
}

// urlNames: the URL u is the page of the item (a name "OpenCV", a path "WerWolv/ImHex"): the item's "/"
// segments are the last segments of u's path, or, for a one-segment item, the second segment of a path of
// several (github.com/opencv/opencv/releases: an owner/repository path) or the host's name (opencv.org).
func urlNames(u, item string) bool {
	p, err := parseLooseURL(u)
	if err != nil {
		return false
	}
	segs := pathSegments(strings.ToLower(p.Path))
	want := pathSegments(strings.ToLower(fold(item)))
	if len(want) == 0 {
		return false
	}
	if len(segs) >= len(want) && strings.Join(segs[len(segs)-len(want):], "/") == strings.Join(want, "/") {
		return true
	}
	if len(want) == 1 {
		if len(segs) >= 2 && segs[1] == want[0] {
			return true
		}
		labels := strings.Split(strings.ToLower(strings.TrimPrefix(p.Hostname(), "www.")), ".")
		return len(labels) >= 2 && labels[len(labels)-2] == want[0]
	}
	if len(segs) > len(want) {
		// owner/repository followed by a page of it (tree/main, releases).
		for k := 0; k+len(want) <= len(segs); k++ {
			if strings.Join(segs[k:k+len(want)], "/") == strings.Join(want, "/") && k <= 1 {
				return true
			}
		}
	}
	return false
}

// countSepRe: what may stand between a count's noun and its number written the other way round ("Figures: 2",
// "figures - 2", "Tables = 8").
var countSepRe = regexp.MustCompile(`^\s*[:=\-]?\s*$`)

// reversedCount finds an item "<number> <word>" ("2 Figures") written as "<word> <number>" with at most a colon,
// an equals sign or a dash between ("Figures: 2"): the index of the word, -1 when none.
func (g *grader) reversedCount(toks []token) int {
	if len(toks) != 2 || toks[0].kind != tokNumber || toks[1].kind != tokWord {
		return -1
	}
	s := fold(g.raw)
	for i := 0; i+1 < len(g.ans); i++ {
		w, n := g.ans[i], g.ans[i+1]
		if tokEq(toks[1], w) && tokEq(toks[0], n) && countSepRe.MatchString(s[w.end:n.start]) {
			return i
		}
	}
	return -1
}

// equivalents: words and the phrases of the same meaning an answer may write for them.
var equivalents = map[string][]string{
	"unlimited": {"no limit", "without limit", "limitless", "no cap", "no maximum", "no upper limit"},
}

// equivalent finds a phrase of the same meaning as the one-word item toks: its start and length, -1 when none.
func (g *grader) equivalent(toks []token) (int, int) {
	if len(toks) != 1 || toks[0].kind != tokWord {
		return -1, 0
	}
	for _, p := range equivalents[toks[0].text] {
		pt := tokenize(p)
		if at := findPhrase(g.ans, pt); len(at) > 0 {
			return at[0], len(pt)
		}
	}
	return -1, 0
}

// hexRe: a hexadecimal hash or id of at least seven digits (git's default abbreviation).
var hexRe = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

// hashPrefix finds, for an item that is a hash prefix ("eedf571"), a longer hash of the answer that starts with
// it (the full SHA): its index, -1 when none.
func (g *grader) hashPrefix(toks []token) int {
	if len(toks) != 1 || !hexRe.MatchString(toks[0].text) {
		return -1
	}
	for i, t := range g.ans {
		if (t.kind == tokIdent || t.kind == tokWord) && hexRe.MatchString(t.text) && len(t.text) > len(toks[0].text) &&
			strings.HasPrefix(t.text, toks[0].text) {
			return i
		}
	}
	return -1
}

// punctNames: the names of punctuation characters, singular as the tokeniser folds them.
var punctNames = map[rune][]string{'-': {"hyphen", "dash", "minus"}, '=': {"equal", "equals"},
	'*': {"asterisk", "star"}, '_': {"underscore"}, '#': {"hash", "pound"}, '~': {"tilde"}, '.': {"dot", "period"}}

// punctuationWords finds an item that is one punctuation character repeated ("-----") written as its count and
// name ("five hyphens", "5 dashes"): the number's index, -1 when none.
func (g *grader) punctuationWords(item string) int {
	r := []rune(strings.TrimSpace(item))
	if len(r) == 0 || strings.Count(string(r), string(r[0])) != len(r) {
		return -1
	}
	for i := 0; i+1 < len(g.ans); i++ {
		n, w := g.ans[i], g.ans[i+1]
		if n.kind != tokNumber || n.num != float64(len(r)) || w.kind != tokWord {
			continue
		}
		for _, name := range punctNames[r[0]] {
			if w.text == name {
				return i
			}
		}
	}
	return -1
}

// streetAddressRe: an item that is a street address ("18 Bay St", "1600 Amphitheatre Parkway").
var streetAddressRe = regexp.MustCompile(`(?i)^\d+[a-z]?\s+[\pL .'-]+\b(?:st|street|ave|avenue|rd|road|blvd|boulevard|dr|drive|ln|lane|way|hwy|highway|pkwy|parkway|pl|place|ct|court)\.?$`)

// foreignWords: function words of Italian, French, Spanish and German that an English title does not have; a
// segment with one gives a title in another language ("La vita è bella" for "Life Is Beautiful").
var foreignWords = map[string]bool{"la": true, "il": true, "lo": true, "gli": true, "della": true, "delle": true,
	"del": true, "le": true, "les": true, "des": true, "du": true, "el": true, "los": true, "las": true,
	"der": true, "die": true, "das": true, "und": true, "et": true, "une": true, "un": true}

// foreignSegment returns the text of a segment of the answer without a match that has a foreign function word
// (a title in another language), "" when none.
func (g *grader) foreignSegment() string {
	segHas := map[int]bool{}
	for i := range g.matched {
		segHas[g.ans[i].seg] = true
	}
	for _, t := range g.ans {
		if !segHas[t.seg] && t.kind == tokWord && foreignWords[t.text] && !t.url {
			lo, hi := t.start, t.end
			for _, u := range g.ans {
				if u.seg == t.seg {
					lo, hi = min(lo, u.start), max(hi, u.end)
				}
			}
			return fold(g.raw)[lo:hi]
		}
	}
	return ""
}
