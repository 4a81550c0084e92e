package webvoyager

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"webbench/suites"
)

// RawTask is one line of a WebVoyager task file (WebVoyager_data.jsonl): {"web_name", "id", "ques", "web"}.
// Fields other than these four are kept in Extra.
type RawTask struct {
	// WebName is the site ("Allrecipes"). Optional: when absent it is the part of ID before the last "--".
	WebName string
	// ID is "Site--N" ("Allrecipes--0"). Required.
	ID string
	// Ques is the task text. Required.
	Ques string
	// Web is the start URL. Optional in the file; a task without one cannot be opened.
	Web string
	// Extra holds any other fields of the line, decoded as JSON values.
	Extra map[string]any
	// Source is "file:line".
	Source string
}

// RefAnswer is one entry of reference_answer.json: {"id": N, "type": "golden"|"possible", "ans": "..."} under
// its site.
type RefAnswer struct {
	Site string `json:"site"`
	ID   int    `json:"id"`
	Type string `json:"type"`
	Ans  string `json:"ans"`
	// Notice is the site's "notice" (e.g. " real-time"), trimmed.
	Notice string `json:"notice,omitempty"`
}

// Key is the join key of a reference answer: "Site--N", the form of a task id.
func (a RefAnswer) Key() string { return a.Site + "--" + strconv.Itoa(a.ID) }

// ReadTasksFile reads a WebVoyager task file (one JSON object a line; blank lines are skipped; the last line
// may lack its newline; a UTF-8 byte-order mark is ignored). A malformed line, a line without "id" or "ques",
// or a repeated id is an error naming "file:line".
func ReadTasksFile(path string) ([]RawTask, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("webvoyager: %w", err)
	}
	defer f.Close()
	return ParseTasks(f, path)
}

// ParseTasks reads task lines from r; name is used in error messages and Source ("name:line").
func ParseTasks(r io.Reader, name string) ([]RawTask, error) {
	br := bufio.NewReader(r)
	var out []RawTask
	seen := map[string]string{}
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if len(b) == 0 && err == io.EOF {
			break
		}
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		text := bytes.TrimSpace(b)
		if len(text) > 0 {
			t, perr := parseTaskLine(text)
			if perr != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, line, perr)
			}
			t.Source = fmt.Sprintf("%s:%d", name, line)
			if prev, dup := seen[t.ID]; dup {
				return nil, fmt.Errorf("%s:%d: duplicate task id %q (first at %s)", name, line, t.ID, prev)
			}
			seen[t.ID] = t.Source
			out = append(out, t)
		}
		if err == io.EOF {
			break
		}
	}
	return out, nil
}

func parseTaskLine(text []byte) (RawTask, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(text, &m); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return RawTask{}, fmt.Errorf("malformed JSON at byte %d: %v", se.Offset, err)
		}
		return RawTask{}, fmt.Errorf("not a JSON object: %v", err)
	}
	var t RawTask
	str := func(key string, dst *string) error {
		raw, ok := m[key]
		if !ok {
			return nil
		}
		delete(m, key)
		if string(raw) == "null" {
			return nil
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return fmt.Errorf("field %q: want a string, got %s", key, clip(string(raw), 40))
		}
		return nil
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"web_name", &t.WebName}, {"id", &t.ID}, {"ques", &t.Ques}, {"web", &t.Web}} {
		if err := str(f.key, f.dst); err != nil {
			return t, err
		}
	}
	t.ID, t.Ques, t.Web, t.WebName = strings.TrimSpace(t.ID), strings.TrimSpace(t.Ques), strings.TrimSpace(t.Web),
		strings.TrimSpace(t.WebName)
	if t.ID == "" {
		return t, errors.New(`missing "id"`)
	}
	if t.Ques == "" {
		return t, errors.New(`missing "ques"`)
	}
	if t.WebName == "" {
		t.WebName, _ = splitID(t.ID)
	}
	if len(m) > 0 {
		t.Extra = map[string]any{}
		for k, raw := range m {
			var v any
			_ = json.Unmarshal(raw, &v)
			t.Extra[k] = v
		}
	}
	return t, nil
}

// splitID splits "Site--N" into ("Site", N); n is -1 when the id has no numeric "--N" suffix (then site is
// the whole id).
func splitID(id string) (site string, n int) {
	i := strings.LastIndex(id, "--")
	if i < 0 {
		return id, -1
	}
	k, err := strconv.Atoi(id[i+2:])
	if err != nil || k < 0 {
		return id, -1
	}
	return id[:i], k
}

// ReadAnswersFile reads a WebVoyager reference_answer.json: {"Site": {"notice": "...", "answers": [{"id": N,
// "type": "golden"|"possible", "ans": "..."}]}}. A syntax error names "file:line:col"; a repeated (site, id)
// or an unknown type is an error. Answers are returned sorted by site, then id.
func ReadAnswersFile(path string) ([]RefAnswer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("webvoyager: %w", err)
	}
	return ParseAnswers(b, path)
}

// ParseAnswers parses the content of a reference_answer.json; name is used in error messages.
func ParseAnswers(b []byte, name string) ([]RefAnswer, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	var doc map[string]struct {
		Notice  string `json:"notice"`
		Answers []struct {
			ID   *int    `json:"id"`
			Type string  `json:"type"`
			Ans  *string `json:"ans"`
		} `json:"answers"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			l, c := lineCol(b, se.Offset)
			return nil, fmt.Errorf("%s:%d:%d: %v", name, l, c, err)
		case errors.As(err, &te):
			l, c := lineCol(b, te.Offset)
			return nil, fmt.Errorf("%s:%d:%d: %v", name, l, c, err)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	var out []RefAnswer
	for site, s := range doc {
		seen := map[int]bool{}
		for i, a := range s.Answers {
			where := fmt.Sprintf("%s: %q answers[%d]", name, site, i)
			if a.ID == nil || a.Ans == nil {
				return nil, fmt.Errorf(`%s: needs "id" and "ans"`, where)
			}
			typ := strings.ToLower(strings.TrimSpace(a.Type))
			if typ != "golden" && typ != "possible" {
				return nil, fmt.Errorf(`%s: type %q, want "golden" or "possible"`, where, a.Type)
			}
			if seen[*a.ID] {
				return nil, fmt.Errorf("%s: duplicate id %d", where, *a.ID)
			}
			seen[*a.ID] = true
			out = append(out, RefAnswer{Site: site, ID: *a.ID, Type: typ, Ans: *a.Ans,
				Notice: strings.TrimSpace(s.Notice)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Site != out[j].Site {
			return out[i].Site < out[j].Site
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

func lineCol(b []byte, off int64) (line, col int) {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	line, col = 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// ToTask turns a raw task into a suites.Task: ID = id, Suite "webvoyager", App = Cluster = web_name,
// Goal = ques, Start = web, Source = file:line, Meta["extra"] = unknown fields. The answer, when not nil,
// becomes Check.Answer (see AnswerRuleFor) and its site notice Meta["notice"]; without one, a GAIA-format line's
// "Final answer" field (WebVoyager's data/GAIA_web.jsonl: the WebVoyager line shape plus GAIA's "task_id",
// "Level" and "Final answer") becomes Check.Answer (GAIARule; the field stays in Meta["extra"] too).
func ToTask(r RawTask, ans *RefAnswer) suites.Task {
	t := suites.Task{ID: r.ID, Suite: Name, App: r.WebName, Cluster: r.WebName, Goal: r.Ques, Start: r.Web,
		Source: r.Source, Meta: map[string]any{}}
	if len(r.Extra) > 0 {
		t.Meta["extra"] = r.Extra
	}
	if ans != nil {
		rule := AnswerRuleFor(*ans)
		t.Check.Answer = &rule
		if ans.Notice != "" {
			t.Meta["notice"] = ans.Notice
		}
	} else if fa, ok := r.Extra[GAIAFinalAnswer]; ok {
		var s string
		switch v := fa.(type) {
		case string:
			s = v
		case float64:
			s = strconv.FormatFloat(v, 'f', -1, 64)
		}
		if strings.TrimSpace(s) != "" {
			rule := GAIARule(s)
			t.Check.Answer = &rule
		}
	}
	return t
}

// GAIAFinalAnswer is the field of a GAIA-format task line that holds the reference answer.
const GAIAFinalAnswer = "Final answer"

// GAIARule makes the answer rule of a GAIA "Final answer", after GAIA's own scorer (question_scorer in the
// gaia-benchmark leaderboard's scorer.py: a reference that parses as a number is compared as a number, one with a
// "," or ";" element by element, any other as a normalised string): Type "golden", Reference the answer, and
//   - a number ("17", "0.1777", and "1,000" with thousands separators, which GAIA would split as a list) →
//     Number, Tolerance 0 (GAIA compares for equality);
//   - a list ("Braintree, Honolulu", "3.1.3.1; 1.11.1.7") → MustInclude its items, split on ";" when it has one,
//     else on ",";
//   - anything else ("THE CASTLE", "So we had to let it die.") → MustInclude the whole answer, a final period
//     removed.
//
// GAIA grades a bare answer; agents answer in sentences, so the answer judge's token-level phrase match
// (judge.Grade, which says uncertain when the answer states other candidates) stands in for the equality.
func GAIARule(final string) suites.AnswerRule {
	s := strings.TrimSpace(final)
	r := suites.AnswerRule{Type: "golden", Reference: s}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		r.Number = &f
		return r
	}
	if thousandsRe.MatchString(s) {
		// GAIA's scorer would split "1,000" into "1" and "000" and compare item by item, so its own "1,000"
		// passes; an answer's "1,000" is one number (judge.Grade reads thousands separators), so the items
		// could never match: a number, which "1,000", "1000" and "one thousand" all pass.
		f, _ := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
		r.Number = &f
		return r
	}
	sep := ","
	if strings.Contains(s, ";") {
		sep = ";"
	}
	if strings.Contains(s, sep) {
		for _, it := range strings.Split(s, sep) {
			if it = strings.TrimSpace(it); it != "" {
				r.MustInclude = append(r.MustInclude, it)
			}
		}
		if len(r.MustInclude) > 0 {
			return r
		}
	}
	r.MustInclude = []string{strings.TrimSpace(strings.TrimSuffix(s, "."))}
	return r
}

// AnswerRuleFor makes the answer rule of a reference answer: Type and Reference always; for a golden answer
// a checkable rule when one can be derived without guessing (DeriveGoldenRule). "possible" answers are
// examples of an acceptable answer, not the only one, so they get no checkable rule (the answer judge reports
// a judge error for them; use the llm judge).
func AnswerRuleFor(a RefAnswer) suites.AnswerRule {
	r := suites.AnswerRule{Type: a.Type, Reference: a.Ans}
	if a.Type == "golden" {
		d := DeriveGoldenRule(a.Ans)
		r.MustInclude, r.Number, r.Tolerance, r.Unit = d.MustInclude, d.Number, d.Tolerance, d.Unit
	}
	return r
}

var (
	// thousandsRe: a number written with "," thousands separators ("1,000", "-12,345.5").
	thousandsRe = regexp.MustCompile(`^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$`)
	numAnswerRe = regexp.MustCompile(`^((?i:approximately|approx\.?|about|around|~)?)\s*([$€£]?)\s*(-?\d[\d,]*(?:\.(\d+))?)\s*(%|[A-Za-z]{1,5})?$`)
	freeTextRe  = regexp.MustCompile(`(?i)(\bor\b|\bany\b|\baction\b|<|>|\.\.\.|…|\(|\)|\[|\]|\\|\bnot\b)`)
	nameConnect = map[string]bool{"of": true, "the": true, "and": true, "to": true, "de": true, "&": true,
		"a": true, "in": true, "for": true, "on": true, "at": true, "du": true, "la": true, "von": true}
)

// DeriveGoldenRule derives a checkable rule from a golden answer, conservatively. Agents answer in sentences,
// so no rule is Exact; instead:
//   - a bare number, perhaps with a currency sign or a short unit ("3", "11.2", "approximately 33038",
//     "3.125%", "$89.99", "192 MB") → Number, Unit the sign or unit as written ("%", "$", "MB"), Tolerance half
//     a unit of the last written digit for decimals (11.2 accepts 11.15…11.25) and for integers stated
//     "approximately" (about, around, ~) or with a unit other than % (192 MB accepts 191.5…192.5: a
//     measurement), 0 for other integers (a count: 3 is 3) and currency amounts;
//   - one token ("Microsoft", "OpenCV", "resource-watch/resource-watch", "怀旧") or a short proper name of up
//     to five words whose words are capitalised or digits, connectors (of, the, and, …) aside ("Apple Tower
//     Theatre", "IOS 17.1") → MustInclude that text (surrounding quotes and a final period removed);
//   - a list of two or more such names separated by ";" or "," (a final "and" allowed: "Chicago Bears,
//     Detroit Lions, Green Bay Packers, and Minnesota Vikings") → MustInclude every item;
//   - anything else — dates (written in too many ways), prose, alternatives ("X or Y", "Any 2 of"),
//     placeholders ("<Action>"), parentheses, mixed name-and-value items ("Providence $13.81") — gets no
//     rule (zero value): only the llm judge can decide it.
//
// On the real reference_answer.json this gives 47 of the 143 golden answers a rule (TestRealFile).
func DeriveGoldenRule(ans string) suites.AnswerRule {
	s := cleanAtom(ans)
	if s == "" {
		return suites.AnswerRule{}
	}
	if m := numAnswerRe.FindStringSubmatch(s); m != nil {
		f, err := strconv.ParseFloat(strings.ReplaceAll(m[3], ",", ""), 64)
		if err == nil {
			unit := m[2] + m[5]
			tol := 0.0
			switch {
			case m[4] != "":
				tol = 0.5 * math.Pow(10, -float64(len(m[4])))
			case m[1] != "" || m[5] != "" && m[5] != "%":
				// "approximately 33038", "192 MB": a measurement stated to the unit, not a count.
				tol = 0.5
			}
			return suites.AnswerRule{Number: &f, Tolerance: tol, Unit: unit}
		}
	}
	if freeTextRe.MatchString(s) || len(FindDates(s, time.Time{}).Mentions) > 0 {
		return suites.AnswerRule{}
	}
	if isAtom(s) {
		return suites.AnswerRule{MustInclude: []string{s}}
	}
	for _, sep := range []string{";", ","} {
		if !strings.Contains(s, sep) {
			continue
		}
		var items []string
		ok := true
		for _, it := range strings.Split(s, sep) {
			it = strings.TrimSpace(it)
			it = strings.TrimSpace(strings.TrimPrefix(it, "and "))
			it = cleanAtom(it)
			if it == "" || !isName(it) {
				ok = false
				break
			}
			items = append(items, it)
		}
		if ok && len(items) >= 2 {
			return suites.AnswerRule{MustInclude: items}
		}
	}
	return suites.AnswerRule{}
}

// cleanAtom trims spaces, a final period and one pair of surrounding quotes.
func cleanAtom(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimSpace(strings.TrimSuffix(s, "."))
	for _, q := range [][2]string{{"'", "'"}, {`"`, `"`}, {"‘", "’"}, {"“", "”"}} {
		if len(s) >= 2 && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
			inner := s[len(q[0]) : len(s)-len(q[1])]
			if !strings.Contains(inner, q[0]) {
				s = strings.TrimSpace(inner)
			}
			break
		}
	}
	return s
}

// isAtom: one token without separators, or a short proper name.
func isAtom(s string) bool {
	if strings.ContainsAny(s, ";,:") {
		return false
	}
	if !strings.ContainsAny(s, " \t") {
		return utf8.RuneCountInString(s) <= 60
	}
	return isName(s)
}

// isName: 1–5 words, each capitalised or starting with a digit, or a connector word; no ";,:"; at least one
// capitalised word.
func isName(s string) bool {
	if strings.ContainsAny(s, ";,:$") {
		return false
	}
	words := strings.Fields(s)
	if len(words) == 0 || len(words) > 5 {
		return false
	}
	if len(words) == 1 {
		return true
	}
	caps := 0
	for _, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		switch {
		case unicode.IsUpper(r):
			caps++
		case unicode.IsDigit(r):
		case nameConnect[strings.ToLower(w)]:
		default:
			return false
		}
	}
	return caps > 0
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n-3] + "..."
	}
	return s
}
