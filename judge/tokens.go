package judge

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// The answer judge compares answers token by token, as a careful grader reads them. This
// file is the tokeniser: text is folded (diacritics removed by NFD, dropping the nonspacing marks, NFC; case
// folded) and cut into tokens — words, numbers, identifiers (letters and digits mixed: C2, B12, 8x7b, v0.1) and
// CJK characters (one token each, since CJK text has no spaces). Numbers are one token with their sign,
// thousands separators, decimals, a fraction bar (1/32), scientific notation (5.3673×10^-18, 1e-5), a percent
// sign, a multiplier (k, M, thousand, million, billion) and a unit (MB, kg, mins, €, °F, …); number words
// (zero–twenty, the tens, "a dozen", "half a dozen") are numbers too. Words are canonicalised: month, weekday,
// street and unit abbreviations to one form (Oct = October), simple plurals to the singular.

// tokKind is what a token is.
type tokKind int

const (
	tokWord tokKind = iota
	tokNumber
	tokIdent
	tokCJK
)

// sepKind is what separates a token from the one before it.
type sepKind int

const (
	sepHard   sepKind = iota // whitespace or punctuation
	sepSoft                  // a '/' or '.' between two tokens without spaces (paths, hosts)
	sepJoiner                // a '-' or '_' between two tokens without spaces (resource-watch, ceti_audio)
)

// token is one token of a folded text.
type token struct {
	kind tokKind
	// text is the canonical form: the folded word (abbreviation expanded, singular), the folded identifier, the
	// CJK character; for a number its value formatted.
	text string
	// cap: the token as written starts with an upper-case letter.
	cap bool
	// num is a number's value (a percentage as written: 3.125 for 3.125%); prec half a unit of its last written
	// digit, in the same scale (0.005 for 0.19, 0.5 for 192, 50 for 1.2k).
	num, prec float64
	// pct: written with a percent sign; frac: written as a fraction a/b; weak: a number word (one, three);
	// ordinal: 1st, 21st, 10th; date: part of a date (next to a month name, or an ISO date).
	pct, frac, weak, ordinal, date bool
	// enumerator: a list marker ("1." "2." …) in a numbered list; label: a word right before a colon
	// ("Comments:", "Answer:") or on a Markdown heading line ("## Done").
	enumerator, label bool
	// scale: the maximum of a rating ("out of 5"); url: inside a URL of the text (its host, port, path and query
	// are no candidate numbers or names).
	scale, url bool
	// shortYear: two digits written after an apostrophe ("'07"), a year of its century.
	shortYear bool
	// unit is a number's unit, canonical ("mb", "kg", "min", "usd", "degf"); "" when none was written.
	unit string
	// sep is what separates this token from the previous one; seg the segment it is in (segments are cut at
	// , ; : ( ) [ ] ! ? newlines, a period followed by a space, and the words "or"/"and" are not cuts).
	sep sepKind
	seg int
	// start and end are byte offsets in the folded text.
	start, end int
}

// newFoldChain builds the NFD → remove marks → NFC transformer fold uses. It is built per call: a
// transform.Chain keeps buffers between calls and is not safe for concurrent use (a shared one panicked with
// "slice bounds out of range" in the runner's parallel judges; the same failure as vavallee/bindery#1374).
func newFoldChain() transform.Transformer {
	return transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
}

// fold removes diacritics (efímero → efimero), normalises apostrophes and spells "n't" as " not". Case is kept:
// the tokeniser needs it for multipliers (M) and names.
func fold(s string) string {
	out, _, err := transform.String(newFoldChain(), s)
	if err != nil {
		out = s
	}
	// "9\u00a0675", "9\u202f675" (SI and French grouping), "9'675" (Swiss): a thousands separator, written as ','.
	for range 6 {
		next := groupSepRe.ReplaceAllString(out, "$1,$2")
		if next == out {
			break
		}
		out = next
	}
	out = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`, "−", "-", "–", "-", "—", " - ",
		"\u00a0", " ", "\u202f", " ").Replace(out)
	out = cantRe.ReplaceAllStringFunc(out, func(m string) string {
		if strings.EqualFold(m[:2], "wo") {
			return m[:1] + "ill not"
		}
		return m[:3] + "not"
	})
	out = nTRe.ReplaceAllString(out, "$1 not")
	return undotAbbrevs(out)
}

// groupSepRe: a no-break space, narrow no-break space or apostrophe between a digit and a group of exactly three
// digits (CLDR's grouping separators for fr, SI and de-CH).
var groupSepRe = regexp.MustCompile(`(\d)[\x{00a0}\x{202f}'’](\d{3})\b`)

// cantRe: "can't" (can not) and "won't" (will not), which the n't rule would cut wrongly.
var cantRe = regexp.MustCompile(`(?i)\b(?:can|won)'t\b`)

var nTRe = regexp.MustCompile(`(?i)\b(is|are|was|were|do|does|did|has|have|had|ca|could|would|should|wo)n't\b`)

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		unicode.Is(unicode.Hangul, r)
}

func isAlnum(r rune) bool { return (unicode.IsLetter(r) || unicode.IsDigit(r)) && !isCJK(r) }

var (
	numRe = regexp.MustCompile(`^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|^[-+]?\.\d+`)
	// sciRe: "×10^-18", "x 10^5", "* 10^3", "e-18" right after a number's digits.
	sciRe     = regexp.MustCompile(`^(?:\s*[×x*]\s*10\s*\^\s*\(?([-+]?\d+)\)?|[eE]([-+]?\d+)\b)`)
	fracRe    = regexp.MustCompile(`^/(\d+)\b`)
	versionRe = regexp.MustCompile(`^(?:\.\d+)+`)
)

// tokenize folds s and cuts it into tokens.
func tokenize(s string) []token {
	s = fold(s)
	var toks []token
	seg := 0
	last := 0 // end of the previous token
	i := 0
	rs := s
	prevRune := func(at int) rune {
		if at <= 0 {
			return ' '
		}
		r, _ := utf8.DecodeLastRuneInString(rs[:at])
		return r
	}
	emit := func(t token) {
		gap := rs[last:t.start]
		switch {
		case len(toks) == 0:
			t.sep = sepHard
		case gap == "-" || gap == "_":
			t.sep = sepJoiner
		case gap == "/" || gap == ".":
			t.sep = sepSoft
		default:
			t.sep = sepHard
		}
		if len(toks) > 0 && segmentCut(gap) {
			seg++
		}
		t.seg = seg
		toks = append(toks, t)
		last = t.end
	}
	for i < len(rs) {
		r, w := decodeRune(rs[i:])
		switch {
		case isCJK(r):
			emit(token{kind: tokCJK, text: string(r), start: i, end: i + w})
			i += w
		case unicode.IsDigit(r) || ((r == '-' || r == '+' || r == '.') && i+w < len(rs) && startsNumber(rs[i+w:]) && !isAlnum(prevRune(i))):
			if isAlnum(prevRune(i)) {
				// a digit right after letters is handled by the letter branch; not reached.
				i += w
				continue
			}
			t, n := scanNumber(rs, i)
			if t.kind == tokNumber && r == '-' && len(toks) > 0 && last == i && toks[len(toks)-1].kind == tokNumber {
				// "2023-24": a range, not a negative number.
				t, n = scanNumber(rs, i+1)
				t.start = i + 1
			}
			emit(t)
			i = n
		case isAlnum(r):
			j := i
			hasDigit, hasLetter := false, false
			for j < len(rs) {
				r2, w2 := decodeRune(rs[j:])
				if !isAlnum(r2) {
					// v0.1, 17.1b: a '.' between digits stays inside an identifier.
					if r2 == '.' && hasDigit && hasLetter && j+1 < len(rs) && unicode.IsDigit(rune(rs[j+1])) {
						j += w2
						continue
					}
					break
				}
				if unicode.IsDigit(r2) {
					hasDigit = true
				} else {
					hasLetter = true
				}
				j += w2
			}
			raw := rs[i:j]
			first, _ := decodeRune(raw)
			t := token{start: i, end: j, cap: unicode.IsUpper(first)}
			if hasDigit {
				t.kind, t.text = tokIdent, strings.ToLower(raw)
			} else {
				t.kind, t.text = tokWord, strings.ToLower(raw)
			}
			emit(t)
			i = j
		case r == '&':
			emit(token{kind: tokWord, text: "and", start: i, end: i + w})
			i += w
		default:
			i += w
		}
	}
	toks = postprocess(rs, toks)
	return toks
}

// decodeRune is utf8.DecodeRuneInString: an invalid byte is one rune of width 1.
func decodeRune(s string) (rune, int) { return utf8.DecodeRuneInString(s) }

func startsNumber(s string) bool {
	return len(s) > 0 && (unicode.IsDigit(rune(s[0])) || (s[0] == '.' && len(s) > 1 && unicode.IsDigit(rune(s[1]))))
}

// segmentCut: the gap between two tokens ends a segment (a list item or a clause).
func segmentCut(gap string) bool {
	// A dash between spaces ("it does not diverge - it converges", an em dash folded) ends a clause too.
	return strings.ContainsAny(gap, ",;:()[]!?\n|") || strings.Contains(gap, " - ") || strings.Contains(gap, ". ") || strings.HasSuffix(gap, ".") &&
		len(gap) > 1
}

// scanNumber reads the number starting at s[i:] (a sign, digits with thousands separators, decimals, then a
// fraction, scientific notation, a percent sign, an attached multiplier or unit). A number with letters right
// after it that are no known unit or multiplier (2x, 8x7b, 3e) is an identifier; one with a second decimal
// point (4.0.2) is an identifier (a version).
func scanNumber(s string, i int) (token, int) {
	m := numRe.FindString(s[i:])
	if m == "" {
		return token{kind: tokWord, text: s[i : i+1], start: i, end: i + 1}, i + 1
	}
	j := i + len(m)
	if v := versionRe.FindString(s[j:]); v != "" && strings.Contains(m, ".") || v != "" && strings.Count(v, ".") >= 2 {
		j += len(v)
		j = identTail(s, j)
		return token{kind: tokIdent, text: strings.ToLower(s[i:j]), start: i, end: j}, j
	}
	clean := strings.ReplaceAll(m, ",", "")
	f, err := strconv.ParseFloat(clean, 64)
	if err != nil {
		return token{kind: tokIdent, text: s[i:j], start: i, end: j}, j
	}
	t := token{kind: tokNumber, num: f, start: i, end: j}
	dec := 0
	if k := strings.IndexByte(clean, '.'); k >= 0 {
		dec = len(clean) - k - 1
	}
	t.prec = 0.5 * math.Pow(10, -float64(dec))
	if sm := sciRe.FindStringSubmatch(s[j:]); sm != nil {
		e := sm[1] + sm[2]
		if p, err := strconv.Atoi(e); err == nil {
			// Parsed as one literal (5.3673e-18), not multiplied, so no rounding creeps in.
			if v, err := strconv.ParseFloat(clean+"e"+strconv.Itoa(p), 64); err == nil {
				t.num = v
				t.prec *= math.Pow(10, float64(p))
				j += len(sm[0])
			}
		}
	} else if fm := fracRe.FindStringSubmatch(s[j:]); fm != nil && dec == 0 && !strings.HasPrefix(s[j+len(fm[0]):], "/") &&
		(i == 0 || s[i-1] != '/') {
		d, err := strconv.ParseFloat(fm[1], 64)
		if err == nil && d != 0 {
			t.num /= d
			t.frac = true
			t.prec = 0
			j += len(fm[0])
		}
	}
	// Letters right after the digits: a multiplier, an ordinal suffix, a unit, or else an identifier.
	k := j
	for k < len(s) {
		r, w := decodeRune(s[k:])
		if !unicode.IsLetter(r) || isCJK(r) {
			break
		}
		k += w
	}
	if k > j {
		suf := s[j:k]
		if k < len(s) && unicode.IsDigit(rune(s[k])) {
			j = identTail(s, k)
			return token{kind: tokIdent, text: strings.ToLower(s[i:j]), start: i, end: j}, j
		}
		switch {
		case suf == "k" || suf == "K":
			t.num, t.prec = t.num*1e3, t.prec*1e3
		case suf == "M" || suf == "bn" || suf == "B":
			mult := 1e6
			if suf != "M" {
				mult = 1e9
			}
			t.num, t.prec = t.num*mult, t.prec*mult
		case ordinalSuffix[strings.ToLower(suf)]:
			t.ordinal = true
		default:
			if u, ok := unitOf(suf); ok {
				t.unit = u
			} else {
				j = identTail(s, k)
				return token{kind: tokIdent, text: strings.ToLower(s[i:j]), start: i, end: j}, j
			}
		}
		j = k
	}
	j = scanSign(s, j, &t)
	currencyBefore(s, i, &t)
	t.text = strconv.FormatFloat(t.num, 'g', -1, 64)
	return t, j
}

// scanSign reads the sign written after a number's digits at s[j:] into t — per mille, percent (attached or
// after a space), degrees (°F, °C, or bare) — and returns the index after it (j when none).
func scanSign(s string, j int, t *token) int {
	if strings.HasPrefix(s[j:], "‰") || strings.HasPrefix(s[j:], " ‰") {
		// Per mille: a tenth of a percent, never the percent a rule asks for.
		t.unit = "permille"
		j += strings.Index(s[j:], "‰") + len("‰")
	} else if j < len(s) && s[j] == '%' {
		t.pct = true
		j++
	} else if strings.HasPrefix(s[j:], " %") {
		t.pct = true
		j += 2
	} else if strings.HasPrefix(s[j:], "°") {
		n := j + len("°")
		switch {
		case strings.HasPrefix(s[n:], "F"):
			t.unit, j = "degf", n+1
		case strings.HasPrefix(s[n:], "C"):
			t.unit, j = "degc", n+1
		default:
			t.unit, j = "deg", n
		}
	}
	return j
}

// currencyBefore sets t's unit from a currency sign just before the number starting at s[i] (spaces between
// allowed).
func currencyBefore(s string, i int, t *token) {
	// A currency sign just before the number. Capital letters written onto a "$" name another dollar ("CA$",
	// "C$", "AU$", "NZ$", "HK$", "S$", "R$": ISO 4217's and the usual local signs), which is not the US dollar
	// a plain "$" stands for; "US$" is.
	for _, c := range []struct{ sym, unit string }{{"$", "usd"}, {"€", "eur"}, {"£", "gbp"}} {
		b := strings.TrimRight(s[:i], " ")
		if strings.HasSuffix(b, c.sym) {
			t.unit = c.unit
			if m := dollarPrefixRe.FindStringSubmatch(b); c.sym == "$" && m != nil && m[1] != "US" {
				t.unit = strings.ToLower(m[1]) + "$"
			}
		}
	}
}

// dollarPrefixRe: capital letters written onto a "$" at the end of the text before a number ("CA$", "AU$").
var dollarPrefixRe = regexp.MustCompile(`(?:^|[^\pL])(\p{Lu}{1,3})\$$`)

// identTail extends an identifier over the letters and digits after j.
func identTail(s string, j int) int {
	for j < len(s) {
		r, w := decodeRune(s[j:])
		if !isAlnum(r) {
			break
		}
		j += w
	}
	return j
}

var ordinalSuffix = map[string]bool{"st": true, "nd": true, "rd": true, "th": true}

// numberWords are the number words a grader reads as numbers (zero–twenty, the tens, "a dozen").
var numberWords = map[string]float64{"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
	"fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
	"forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "dozen": 12}

var multiplierWords = map[string]float64{"hundred": 100, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}

// units: canonical unit → family and factor to the family's base unit. Decimal prefixes for data sizes (1 GB =
// 1000 MB), as storage vendors and GitHub's pricing state them.
var units = map[string]struct {
	family string
	factor float64
}{
	"b": {"data", 1}, "kb": {"data", 1e3}, "mb": {"data", 1e6}, "gb": {"data", 1e9}, "tb": {"data", 1e12},
	"kib": {"data", 1024}, "mib": {"data", 1 << 20}, "gib": {"data", 1 << 30}, "tib": {"data", 1 << 40},
	"mm": {"length", 1e-3}, "cm": {"length", 1e-2}, "m": {"length", 1}, "km": {"length", 1e3},
	"in": {"length", 0.0254}, "ft": {"length", 0.3048}, "mi": {"length", 1609.344},
	"mg": {"mass", 1e-3}, "g": {"mass", 1}, "kg": {"mass", 1e3}, "lb": {"mass", 453.59237}, "oz": {"mass", 28.349523125},
	"ms": {"time", 1e-3}, "s": {"time", 1}, "min": {"time", 60}, "h": {"time", 3600}, "day": {"time", 86400},
	"week": {"time", 7 * 86400}, "month": {"time", 30.436875 * 86400}, "year": {"time", 365.25 * 86400},
	"kcal": {"energy", 4184}, "kj": {"energy", 1000}, "j": {"energy", 1},
	"degf": {"tempf", 1}, "degc": {"tempc", 1}, "deg": {"angle", 1},
	"usd": {"usd", 1}, "eur": {"eur", 1}, "gbp": {"gbp", 1},
	"bpm": {"rate", 1},
	"bit": {"bits", 1}, "kbit": {"bits", 1e3}, "mbit": {"bits", 1e6}, "gbit": {"bits", 1e9}, "tbit": {"bits", 1e12},
	"permille": {"permille", 1},
	"bps":      {"datarate", 1}, "kbps": {"datarate", 1e3}, "mbps": {"datarate", 1e6}, "gbps": {"datarate", 1e9},
}

// bitUnitRe: a data size in bits as SI and IEC 80000-13 write it, a prefix letter in capitals (k in either
// case) then a lower-case b ("Mb", "Gb", "kb" is not: lower-case "mb"/"kb" are read as the bytes informal text
// means by them). A "b" is a bit and "B" a byte only in that spelling.
var bitUnitRe = regexp.MustCompile(`^[KMGT]b$`)

// unitOf is the canonical unit of a unit as written in the answer (its case kept): "Mb" is megabits (bitUnitRe),
// any other spelling is looked up folded in unitAlias.
func unitOf(raw string) (string, bool) {
	if bitUnitRe.MatchString(raw) {
		return strings.ToLower(raw[:1]) + "bit", true
	}
	u, ok := unitAlias[strings.ToLower(raw)]
	return u, ok
}

// unitAlias maps a unit as written (folded) to its canonical name. "calories" are food calories (kcal), as
// nutrition labels use them; "pounds" are the mass (a £ sign is the currency).
var unitAlias = map[string]string{
	"b": "b", "byte": "b", "bytes": "b", "kb": "kb", "kilobyte": "kb", "kilobytes": "kb", "mb": "mb",
	"megabyte": "mb", "megabytes": "mb", "gb": "gb", "gigabyte": "gb", "gigabytes": "gb", "tb": "tb",
	"terabyte": "tb", "terabytes": "tb", "kib": "kib", "mib": "mib", "gib": "gib", "tib": "tib",
	"mm": "mm", "millimetre": "mm", "millimetres": "mm", "millimeter": "mm", "millimeters": "mm",
	"cm": "cm", "centimetre": "cm", "centimetres": "cm", "centimeter": "cm", "centimeters": "cm",
	"m": "m", "metre": "m", "metres": "m", "meter": "m", "meters": "m", "km": "km", "kilometre": "km",
	"kilometres": "km", "kilometer": "km", "kilometers": "km", "inch": "in", "inches": "in", "ft": "ft",
	"foot": "ft", "feet": "ft", "mi": "mi", "mile": "mi", "miles": "mi",
	"mg": "mg", "milligram": "mg", "milligrams": "mg", "g": "g", "gram": "g", "grams": "g", "kg": "kg",
	"kilogram": "kg", "kilograms": "kg", "lb": "lb", "lbs": "lb", "pound": "lb", "pounds": "lb", "oz": "oz",
	"ounce": "oz", "ounces": "oz",
	"ms": "ms", "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s", "min": "min", "mins": "min",
	"minute": "min", "minutes": "min", "h": "h", "hr": "h", "hrs": "h", "hour": "h", "hours": "h", "day": "day",
	"days": "day", "night": "day", "nights": "day", "month": "month", "months": "month", "week": "week", "weeks": "week", "year": "year", "years": "year", "yr": "year", "yrs": "year",
	"kcal": "kcal", "calorie": "kcal", "calories": "kcal", "cal": "kcal", "kj": "kj", "kilojoule": "kj",
	"kilojoules": "kj", "j": "j", "joule": "j", "joules": "j",
	"usd": "usd", "dollar": "usd", "dollars": "usd", "eur": "eur", "euro": "eur", "euros": "eur", "gbp": "gbp",
	"bpm": "bpm", "beats": "bpm", "bps": "bps", "kbps": "kbps", "mbps": "mbps", "gbps": "gbps",
	"degrees": "deg", "degree": "deg",
	"bit": "bit", "bits": "bit", "kbit": "kbit", "kilobit": "kbit", "kilobits": "kbit", "mbit": "mbit",
	"megabit": "mbit", "megabits": "mbit", "gbit": "gbit", "gigabit": "gbit", "gigabits": "gbit", "tbit": "tbit",
	"terabit": "tbit", "terabits": "tbit", "permille": "permille",
}

// wordAlias: abbreviations and variants folded to one form (months, weekdays, street types).
var wordAlias = map[string]string{
	"jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june", "jul": "july",
	"aug": "august", "sep": "september", "sept": "september", "oct": "october", "nov": "november",
	"dec": "december", "mon": "monday", "tue": "tuesday", "tues": "tuesday", "wed": "wednesday",
	"thu": "thursday", "thur": "thursday", "thurs": "thursday", "fri": "friday", "sat": "saturday",
	"sun": "sunday", "st": "street", "ave": "avenue", "av": "avenue", "rd": "road", "blvd": "boulevard",
	"dr": "drive", "ln": "lane", "hwy": "highway",
}

var months = map[string]bool{"january": true, "february": true, "march": true, "april": true, "may": true,
	"june": true, "july": true, "august": true, "september": true, "october": true, "november": true,
	"december": true}

var weekdays = map[string]bool{"monday": true, "tuesday": true, "wednesday": true, "thursday": true,
	"friday": true, "saturday": true, "sunday": true}

// companySuffix: words a grader drops from the end of a company's name (Booking Holdings Inc. = Booking
// Holdings).
var companySuffix = map[string]bool{"inc": true, "incorporated": true, "ltd": true, "limited": true, "llc": true,
	"corp": true, "corporation": true, "co": true, "plc": true, "gmbh": true, "ag": true, "sa": true, "nv": true,
	"bv": true}

// britishLL folds the doubled l of British inflections to the American spelling (cancelled → canceled,
// travelling → traveling) for words of seven letters or more.
func britishLL(w string) string {
	if len(w) < 7 {
		return w
	}
	for _, suf := range []string{"lled", "lling", "ller", "llers"} {
		if strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)] + suf[1:]
		}
	}
	return w
}

// singular folds simple English plurals: -ies → -y, -sses → -ss, -xes/-ches/-shes → drop "es", else a final
// "s" (not after s, u or i) is dropped. Words of three letters or fewer are kept.
func singular(w string) string {
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") &&
		!strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

// postprocess joins number words and multiplier words into numbers, attaches a unit word to the number before
// it, canonicalises words, and marks dates and list enumerators.
func postprocess(s string, in []token) []token {
	in = expandAbbrevs(s, in)
	var out []token
	for i := 0; i < len(in); i++ {
		t := in[i]
		if t.kind == tokWord {
			w := t.text
			// "half a dozen" = 6, "a dozen" = 12; "twenty-one", "twenty one" = 21.
			if w == "half" && i+2 < len(in) && in[i+1].text == "a" && in[i+2].text == "dozen" {
				t = token{kind: tokNumber, num: 6, weak: true, start: t.start, end: in[i+2].end, sep: t.sep, seg: t.seg}
				i += 2
				out = append(out, numText(t))
				continue
			}
			if v, ok := numberWords[w]; ok {
				t = token{kind: tokNumber, num: v, weak: true, start: t.start, end: t.end, sep: t.sep, seg: t.seg, cap: t.cap}
				if v >= 20 && v < 100 && int(v)%10 == 0 && i+1 < len(in) && in[i+1].kind == tokWord {
					if u, ok := numberWords[in[i+1].text]; ok && u >= 1 && u <= 9 {
						t.num += u
						t.end = in[i+1].end
						i++
					}
				}
				i += pointDecimals(&t, in, i)
				out = append(out, numText(t))
				continue
			}
		}
		if t.kind == tokWord && len(out) > 0 && out[len(out)-1].kind == tokNumber {
			p := &out[len(out)-1]
			if (p.unit == "" || p.unit == "bpm") && !p.pct && (t.text == "min" || t.text == "minute") &&
				perMinuteRe.MatchString(s[p.end:]) {
				// "110 /min", "110 beats/min": a heart rate (a count per minute), not minutes nor a minimum.
				p.unit, p.end = "bpm", t.end
				continue
			}
			if m, ok := multiplierWords[t.text]; ok && !p.pct {
				p.num, p.prec = p.num*m, p.prec*m
				p.end = t.end
				*p = numText(*p)
				continue
			}
			if t.text == "percent" || t.text == "per" && i+1 < len(in) && in[i+1].text == "cent" {
				p.pct = true
				if t.text == "per" {
					i++
				}
				continue
			}
			if t.text == "per" && i+1 < len(in) && in[i+1].text == "mille" && p.unit == "" && !p.pct {
				p.unit, p.end = "permille", in[i+1].end
				i++
				continue
			}
			if u, ok := unitOf(s[t.start:t.end]); ok && p.unit == "" {
				if u == "deg" && i+1 < len(in) && (in[i+1].text == "fahrenheit" || in[i+1].text == "celsius") {
					u = map[string]string{"fahrenheit": "degf", "celsius": "degc"}[in[i+1].text]
					i++
				}
				if u == "bpm" && i+2 < len(in) && in[i+1].text == "per" && in[i+2].text == "minute" {
					i += 2
				}
				p.unit = u
				p.end = in[i].end
				continue
			}
		}
		if t.kind == tokWord {
			if a, ok := wordAlias[t.text]; ok {
				t.text = a
			} else {
				t.text = singular(britishLL(t.text))
			}
		}
		out = append(out, t)
	}
	markTokens(s, out)
	return out
}

// markTokens marks the tokens of the folded text s: codes (MH-07), years written "'07", labels and headings,
// rating scales, dates and list enumerators.
func markTokens(s string, out []token) {
	headings := headingLines(s)
	for i := range out {
		t := &out[i]
		// A number joined by '-' or '_' to the word before it is part of a code (MH-07, GPT-4, COVID-19): its
		// digits as written, not its value (MH-7 is another code).
		if t.kind == tokNumber && isShortYear(s, *t) {
			t.shortYear = true
		}
		if t.kind == tokNumber && t.sep == sepJoiner && i > 0 && isLetterish(out[i-1]) && !t.weak {
			t.kind, t.text = tokIdent, strings.ToLower(s[t.start:t.end])
		}
		if t.kind == tokWord && (strings.HasPrefix(strings.TrimLeft(s[t.end:], " "), ":") || inSpans(headings, t.start)) {
			t.label = true
		}
		// "4.6 out of 5", "4.2/5": the 5 is the scale, not a value.
		if t.kind == tokNumber && i >= 2 && out[i-2].text == "out" && out[i-1].text == "of" ||
			t.kind == tokNumber && i >= 1 && out[i-1].kind == tokNumber && s[out[i-1].end:t.start] == "/" &&
				(t.num == 5 || t.num == 10 || t.num == 100) {
			t.scale = true
		}
	}
	markDates(out)
	markEnumerators(s, out)
}

// headingLines returns the [start, end) byte ranges of the Markdown heading lines of s ("## Done").
func headingLines(s string) [][2]int {
	var out [][2]int
	for start := 0; start <= len(s); {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		if strings.HasPrefix(strings.TrimLeft(s[start:end], " "), "#") {
			out = append(out, [2]int{start, end})
		}
		start = end + 1
	}
	return out
}

// inSpans: offset at lies in one of spans.
func inSpans(spans [][2]int, at int) bool {
	for _, sp := range spans {
		if at >= sp[0] && at < sp[1] {
			return true
		}
	}
	return false
}

func numText(t token) token {
	t.text = strconv.FormatFloat(t.num, 'g', -1, 64)
	return t
}

// markDates marks numbers next to a month name (27 March 2023, January 16, 2024) and ISO dates (2026-09-10).
func markDates(ts []token) {
	for i, t := range ts {
		if t.kind == tokWord && months[t.text] {
			for _, j := range []int{i - 1, i + 1, i + 2} {
				if j >= 0 && j < len(ts) && ts[j].kind == tokNumber && !ts[j].weak {
					ts[j].date = true
				}
			}
		}
		if t.kind == tokNumber && t.num >= 1000 && t.num <= 2999 && t.prec == 0.5 && i+2 < len(ts) &&
			ts[i+1].sep == sepJoiner && ts[i+2].sep == sepJoiner && ts[i+1].kind == tokNumber && ts[i+2].kind == tokNumber {
			ts[i].date, ts[i+1].date, ts[i+2].date = true, true, true
		}
	}
}

// markEnumerators marks "1." "2." … (or "1)" …) list markers: integers 1, 2, 3, … each followed by "." or ")"
// and a space, at least two in sequence.
func markEnumerators(s string, ts []token) {
	var idx []int
	for i, t := range ts {
		if t.kind == tokNumber && !t.weak && t.prec == 0.5 && t.num >= 1 && t.num <= 99 && t.unit == "" &&
			(strings.HasPrefix(s[t.end:], ". ") || strings.HasPrefix(s[t.end:], ") ")) {
			idx = append(idx, i)
		}
	}
	for k := 0; k < len(idx); k++ {
		if ts[idx[k]].num != 1 {
			continue
		}
		run := []int{idx[k]}
		for m := k + 1; m < len(idx) && ts[idx[m]].num == float64(len(run)+1); m++ {
			run = append(run, idx[m])
		}
		if len(run) >= 2 {
			for _, j := range run {
				ts[j].enumerator = true
			}
		}
	}
}

// ruleUnit reads an AnswerRule's Unit as written: "%" is a percentage, a currency sign or a unit name its
// canonical unit; an unknown unit is "" (any).
func ruleUnit(u string) (unit string, pct bool) {
	u = strings.ToLower(strings.TrimSpace(u))
	switch u {
	case "%", "percent":
		return "", true
	case "$":
		return "usd", false
	case "€":
		return "eur", false
	case "£":
		return "gbp", false
	case "°f":
		return "degf", false
	case "°c":
		return "degc", false
	}
	return unitAlias[u], false
}
