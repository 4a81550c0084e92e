package judge

import (
	"regexp"
	"strings"
)

// Equivalences a careful grader reads as one: abbreviations of US states and of countries (MA = Massachusetts,
// UK = United Kingdom), number words with a decimal point ("eleven point two"), a year written with an
// apostrophe ('07 = 2007), a rate per minute written "/min" after a heart rate.

// usStates maps the USPS two-letter codes (USPS Publication 28, Appendix B) to the state's name, folded.
var usStates = map[string]string{"AL": "alabama", "AK": "alaska", "AZ": "arizona", "AR": "arkansas",
	"CA": "california", "CO": "colorado", "CT": "connecticut", "DE": "delaware", "FL": "florida", "GA": "georgia",
	"HI": "hawaii", "ID": "idaho", "IL": "illinois", "IN": "indiana", "IA": "iowa", "KS": "kansas",
	"KY": "kentucky", "LA": "louisiana", "ME": "maine", "MD": "maryland", "MA": "massachusetts", "MI": "michigan",
	"MN": "minnesota", "MS": "mississippi", "MO": "missouri", "MT": "montana", "NE": "nebraska", "NV": "nevada",
	"NH": "new hampshire", "NJ": "new jersey", "NM": "new mexico", "NY": "new york", "NC": "north carolina",
	"ND": "north dakota", "OH": "ohio", "OK": "oklahoma", "OR": "oregon", "PA": "pennsylvania",
	"RI": "rhode island", "SC": "south carolina", "SD": "south dakota", "TN": "tennessee", "TX": "texas",
	"UT": "utah", "VT": "vermont", "VA": "virginia", "WA": "washington", "WV": "west virginia", "WI": "wisconsin",
	"WY": "wyoming", "DC": "district of columbia"}

// countryAbbrevs maps abbreviations of country names as written in English text (capitals, with or without
// periods) to the name, folded.
var countryAbbrevs = map[string]string{"US": "united states", "USA": "united states", "UK": "united kingdom",
	"UAE": "united arab emirates", "PRC": "china", "ROK": "south korea", "DPRK": "north korea",
	"NZ": "new zealand"}

// dottedAbbrevRe: an abbreviation written with periods ("U.S.", "U.S.A.", "U.K."), as one capital-letter string.
var dottedAbbrevRe = regexp.MustCompile(`\b((?:\p{Lu}\.){2,4})`)

// expandAbbrev is the folded name an abbreviation token stands for ("" when none): raw is the token as written.
// A state code counts only in capitals and after a comma or before a ZIP code (", MA", "MA 01913"), where an
// address has it; a country abbreviation in capitals anywhere.
func expandAbbrev(raw string, addressy bool) string {
	if n, ok := countryAbbrevs[raw]; ok {
		return n
	}
	if n, ok := usStates[raw]; ok && addressy {
		return n
	}
	return ""
}

// expandAbbrevs replaces each abbreviation token of in (s is the folded text) by the words of the name it stands
// for, each spanning the abbreviation's bytes.
func expandAbbrevs(s string, in []token) []token {
	out := make([]token, 0, len(in))
	for i, t := range in {
		if t.kind != tokWord {
			out = append(out, t)
			continue
		}
		raw := s[t.start:t.end]
		before := strings.TrimRight(s[:t.start], " ")
		addressy := strings.HasSuffix(before, ",") || i+1 < len(in) && in[i+1].kind == tokNumber && zipRe.MatchString(s[in[i+1].start:in[i+1].end])
		name := expandAbbrev(raw, addressy)
		if name == "" {
			out = append(out, t)
			continue
		}
		for k, w := range strings.Fields(name) {
			nt := t
			nt.text, nt.cap = w, true
			if k > 0 {
				nt.sep = sepHard
			}
			out = append(out, nt)
		}
	}
	return out
}

// zipRe: a US ZIP code (five digits, perhaps ZIP+4).
var zipRe = regexp.MustCompile(`^\d{5}(?:-\d{4})?$`)

// undotAbbrevs writes "U.S.", "U.S.A.", "U.K." as "US", "USA", "UK" (padded to keep byte offsets) so the
// tokeniser sees one word.
func undotAbbrevs(s string) string {
	return dottedAbbrevRe.ReplaceAllStringFunc(s, func(m string) string {
		letters := strings.ReplaceAll(m, ".", "")
		if _, ok := countryAbbrevs[letters]; !ok {
			return m
		}
		return letters + strings.Repeat(" ", len(m)-len(letters))
	})
}

// digitWords are the words read as digits after "point" ("eleven point two five" = 11.25).
var digitWords = map[string]int{"zero": 0, "oh": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
	"six": 6, "seven": 7, "eight": 8, "nine": 9}

// pointDecimals reads "point" and digit words after the number word at out's end ("eleven point two"), from
// in[i+1:]; it returns how many tokens of in it used (0 when none).
func pointDecimals(p *token, in []token, i int) int {
	if i+2 >= len(in) || in[i+1].text != "point" {
		return 0
	}
	frac, scale, used := 0.0, 0.1, 1
	for k := i + 2; k < len(in); k++ {
		d, ok := digitWords[in[k].text]
		if !ok || in[k].kind != tokWord {
			break
		}
		frac += float64(d) * scale
		scale /= 10
		used++
		p.end = in[k].end
	}
	if used == 1 {
		return 0
	}
	p.num += frac
	p.weak = false
	p.prec = scale * 5
	return used
}

// shortYearRe: a year written with an apostrophe for its century ("'07", "’95"), at a word start.
var shortYearRe = regexp.MustCompile(`(?:^|[^\pL\pN])'(\d{2})$`)

// isShortYear: the number token t of s is written "'07".
func isShortYear(s string, t token) bool {
	return t.start >= 1 && t.end-t.start == 2 && shortYearRe.MatchString(s[max(0, t.start-2):t.end])
}

// shortYearEq: the reference e is a year of the 1900s or 2000s whose last two digits the answer's "'07" gives.
func shortYearEq(e float64, got token) bool {
	return got.shortYear && e >= 1900 && e < 2100 && e == float64(int(e)) && int(e)%100 == int(got.num)
}

// perMinuteRe: a rate per minute written after a number ("/min", " / minute", " per minute", " per min").
var perMinuteRe = regexp.MustCompile(`^\s*(?:/\s*|per\s+)(?:min|minute)\b`)
