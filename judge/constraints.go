package judge

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The question's constraints, checked against what the answer states: the month and year it asks about, an
// amount rather than a rate, and a precision it asks for.

// yearOf is the year a token states (1900–2099, an integer without a unit), 0 when none.
func yearOf(t token) int {
	if t.kind != tokNumber || t.weak || t.pct || t.unit != "" || t.num != math.Trunc(t.num) || t.prec != 0.5 ||
		t.num < 1900 || t.num > 2099 {
		return 0
	}
	return int(t.num)
}

// isYearValue: v could be a year (an integer 1900–2099).
func isYearValue(v float64) bool { return v == math.Trunc(v) && v >= 1900 && v <= 2099 }

// questionDates are the months and years the question names; a season "2023-24" names 2024 too.
func questionDates(q []token) (months map[string]bool, years map[int]bool) {
	months, years = map[string]bool{}, map[int]bool{}
	for i, t := range q {
		if t.kind == tokWord && monthsOf[t.text] {
			months[t.text] = true
		}
		if y := yearOf(t); y != 0 {
			years[y] = true
			if i+1 < len(q) && q[i+1].kind == tokNumber && q[i+1].num >= 0 && q[i+1].num < 100 && q[i+1].start == t.end+1 {
				years[y/100*100+int(q[i+1].num)] = true
			}
		}
	}
	return months, years
}

// monthsOf are the month names (canonical); "may" only counts capitalised (datesOutside checks).
var monthsOf = months

// datesOutside checks the months and years the answer states against the question's: an answer that names
// months (years) of which none is one the question asks about ("announced in October 2022" for October 2023)
// states another period. Matched tokens are the answer's value, not a period ("2007" answering "which year").
// It returns the fail ("" when none).
func (g *grader) datesOutside(hits map[int]bool) string {
	qm, qy := questionDates(g.q)
	var am []string
	var ay []int
	amIn, ayIn := false, false
	for i, t := range g.ans {
		if hits[i] || g.matched[i] || t.url {
			continue
		}
		if t.kind == tokWord && monthsOf[t.text] && (t.text != "may" || t.cap) {
			am = append(am, g.surface(t))
			amIn = amIn || qm[t.text]
		}
		if y := yearOf(t); y != 0 {
			ay = append(ay, y)
			ayIn = ayIn || qy[y]
		}
	}
	switch {
	case len(qm) > 0 && len(am) > 0 && !amIn:
		return fmt.Sprintf("states %s where the question asks about %s", strings.Join(am, ", "), keys(qm))
	case len(qy) > 0 && len(ay) > 0 && !ayIn:
		ys := make([]string, len(ay))
		for i, y := range ay {
			ys[i] = strconv.Itoa(y)
		}
		return fmt.Sprintf("states %s where the question asks about %s", strings.Join(ys, ", "), yearKeys(qy))
	}
	return ""
}

func keys(m map[string]bool) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return strings.Join(sortedStrings(out), ", ")
}

func yearKeys(m map[int]bool) string {
	var out []string
	for k := range m {
		out = append(out, strconv.Itoa(k))
	}
	return strings.Join(sortedStrings(out), ", ")
}

func sortedStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// rateAfterRe: a rate written after a number and its unit, up to three words between ("0.078 kg of fat per
// mile", "89.5 TWh per month", "110 bpm per hour"): its denominator.
var rateAfterRe = regexp.MustCompile(`^(?:\s+\pL+){0,3}?\s*(?:\bper\s+|/\s*)(\pL+)`)

// rateOf is the denominator of a rate stated after the answer's number at i ("mile"), "" when it states an
// amount, or when the question or the reference asks for that rate ("per mile", "each month", "annual" for a
// year).
func (g *grader) rateOf(i int, question, reference string) string {
	t, s := g.ans[i], fold(g.raw)
	if t.end > len(s) {
		return ""
	}
	m := rateAfterRe.FindStringSubmatch(s[t.end:])
	if m == nil {
		return ""
	}
	d := singular(britishLL(strings.ToLower(m[1])))
	if a, ok := wordAlias[d]; ok {
		d = a
	}
	if u, ok := unitAlias[d]; ok && u == "year" || d == "annum" {
		d = "year"
	}
	// The question's "/mile" may belong to another quantity ("a pace of 6min/mile"); its "per mile" asks for
	// the rate, as the reference's "/mile" or "per mile" gives it.
	q, ref := strings.ToLower(fold(question)), strings.ToLower(fold(reference))
	for _, w := range []string{"per ", "each ", "every ", "a ", "an ", "one ", "single ", "/"} {
		for _, ctx := range []string{q, ref} {
			if w == "/" && ctx == q {
				continue
			}
			if strings.Contains(ctx, w+d) || strings.Contains(ctx, w+strings.ToLower(m[1])) {
				return ""
			}
		}
	}
	ctx := q + " " + ref
	for _, adj := range rateAdjectives[d] {
		if strings.Contains(ctx, adj) {
			return "" // "the nightly price", "monthly fee", "annual revenue": the question asks for the rate
		}
	}
	if currencyUnit(t.unit) && !totalRe.MatchString(q) {
		// Prices are quoted per night, per month, per person: a price stated as a rate is the price asked for,
		// unless the question asks for a total.
		return ""
	}
	return d
}

// rateAdjectives are the words that ask for a rate of a denominator without "per" ("nightly price").
var rateAdjectives = map[string][]string{
	"night": {"nightly", "per-night"}, "day": {"daily", "per-day"}, "week": {"weekly"}, "month": {"monthly"},
	"hour": {"hourly"}, "year": {"annual", "yearly", "per-year"}, "person": {"per-person"},
}

// totalRe: a question that asks for a total amount, where a price stated per unit is not the answer.
var totalRe = regexp.MustCompile(`\b(?:total|in all|altogether|overall cost|for the whole)\b`)

// currencyUnit reports whether a number's unit is a currency ("usd", "eur", "gbp", "ca$").
func currencyUnit(u string) bool {
	return u == "usd" || u == "eur" || u == "gbp" || strings.HasSuffix(u, "$")
}

// precisionRe: a precision the question asks for ("rounded to three decimals", "to 2 decimal places", "5
// significant figures").
var precisionRe = regexp.MustCompile(`(?i)\b(\d+|one|two|three|four|five|six|seven|eight)\s+(decimal places?|decimals|decimal digits|significant (?:figures|digits))\b`)

// questionPrecision is the number of decimals (sig false) or significant figures (sig true) the question asks
// for; n is 0 when it asks for none.
func questionPrecision(q string) (n int, sig bool) {
	m := precisionRe.FindStringSubmatch(fold(q))
	if m == nil {
		return 0, false
	}
	if v, ok := numberWords[strings.ToLower(m[1])]; ok {
		n = int(v)
	} else {
		n, _ = strconv.Atoi(m[1])
	}
	return n, strings.HasPrefix(strings.ToLower(m[2]), "significant")
}

// precise: the answer's number t is written with at least the precision the question asks for.
func precise(t token, n int, sig bool) bool {
	if n == 0 || t.prec <= 0 {
		return true
	}
	if sig {
		return sigFigs(t) >= n
	}
	return t.prec <= 0.5*math.Pow(10, -float64(n))+1e-12
}

// working drops from others the two numbers of the answer whose difference or sum is the matched number (the
// answer shows its working: "48 GB more (50 GB vs 2 GB)"); it returns others unchanged otherwise.
func (g *grader) working(hit token, others []int) []int {
	if len(others) != 2 {
		return others
	}
	a, b := g.ans[others[0]], g.ans[others[1]]
	if a.unit != b.unit || a.unit != hit.unit || a.pct != b.pct {
		return others
	}
	for _, v := range []float64{a.num - b.num, b.num - a.num, a.num + b.num} {
		if math.Abs(v-hit.num) <= relEps(v, hit.num) {
			return nil
		}
	}
	return others
}
