package judge

import (
	"fmt"
	"math"
	"regexp"
	"strings"
)

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
	var others []int
	var unitOthers []int // candidates with a unit, when the rule expects none: rivals if a hit has their unit
	pn, psig := questionPrecision(question)
	var rates []string // the rates stated where the question asks for an amount ("per mile")
	for i, t := range g.ans {
		if t.kind != tokNumber || t.enumerator || t.url {
			continue
		}
		if !t.ordinal && g.unitCompatible(i, unit) && !(pct && t.unit != "") && precise(t, pn, psig) &&
			(numEq(exp, t, tol) || m != 1 && numEq(scaled, t, tol*m)) {
			if d := g.rateOf(i, question, g.reference); d != "" {
				rates = append(rates, fmt.Sprintf("%s per %s", strings.TrimSpace(g.surface(t)), d))
				continue
			}
			hit = append(hit, i)
			continue
		}
		if !g.plainCandidate(i) {
			continue
		}
		if isYearValue(want) && yearOf(t) == 0 && !t.shortYear && g.qWords["year"] {
			// The question asks for a year: a count beside it ("2007, with 50 touchdowns") is no rival year.
			continue
		}
		// A number with a unit of another family than the expected one (or any unit when none is expected) is
		// another quantity, not a rival answer.
		if t.unit != "" {
			if unit == "" {
				unitOthers = append(unitOthers, i)
				continue
			}
			if ue, ug := units[unit], units[t.unit]; ue.family != ug.family {
				continue
			}
		}
		others = append(others, i)
	}
	// With no unit expected, "€834 … €912": the matched number's own unit makes a number of that unit's family
	// a rival (the right value attached to another thing is still one of two prices).
	for _, k := range unitOthers {
		for _, i := range hit {
			if h := g.ans[i]; h.unit != "" && units[h.unit].family == units[g.ans[k].unit].family {
				others = append(others, k)
				break
			}
		}
	}
	if len(hit) == 0 && len(rates) > 0 {
		return []string{fmt.Sprintf("states a rate (%s) where the question asks for an amount", strings.Join(rates, ", "))}, nil
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
	return g.hitDoubts(hit, others)
}

// hitDoubts checks the answer's numbers hit that state the rule's number, with others the candidate rivals:
// a fail for a match on another rating scale than the question's; else the doubts (another statistic, a
// negation, a bound, other candidates).
func (g *grader) hitDoubts(hit, others []int) (fails, doubts []string) {
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
	for _, i := range hit {
		g.matched[i] = true
	}
	if others = g.working(g.ans[hit[0]], others); len(others) > 0 {
		var os []string
		for _, k := range others {
			os = append(os, strings.TrimSpace(g.surface(g.ans[k])))
		}
		return nil, []string{fmt.Sprintf("states other candidate numbers beside %s: %s", strings.TrimSpace(g.surface(g.ans[hit[0]])),
			strings.Join(os, ", "))}
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
