package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"

	"webbench/agent/browser"
)

// interactiveRoles are the ARIA widget roles that make a snapshot actionable (GUARDS.md §4).
const interactiveRoles = `button|link|textbox|searchbox|checkbox|radio|switch|combobox|listbox|option|` +
	`menuitemcheckbox|menuitemradio|menuitem|tab|slider|spinbutton|treeitem`

// interactiveRefRE matches a snapshot line whose role — anchored at the start of the node, after "- " and an
// optional YAML quote — is an interactive role, and which carries a ref.
var interactiveRefRE = regexp.MustCompile(`(?m)^[ \t]*- ['"]?(?:` + interactiveRoles + `)\b[^\n]*\[ref=(?:f\d+)?e\d+\]`)

// HasInteractiveRef reports whether an AI snapshot has at least one actionable element: a node whose role
// (the first word after "- " and an optional YAML quote) is an ARIA widget role (button, link, textbox,
// searchbox, checkbox, radio, switch, combobox, listbox, option, menuitem[checkbox|radio], tab, slider,
// spinbutton, treeitem) and that carries a [ref=…]. A role word inside a name (`- generic "button" [ref=e5]`)
// does not count; a quoted key (`- 'button "Go"' [ref=e2]`) does. The rule of snapshot_ready, the scripted
// policy and the empty_snapshot failure mode (GUARDS.md §4, seed 002).
func HasInteractiveRef(snapshot string) bool { return interactiveRefRE.MatchString(snapshot) }

// evaluateDigits and evaluateSpace normalise browser_evaluate functions for CallKey.
var (
	evaluateDigits = regexp.MustCompile(`[0-9]+`)
	evaluateSpace  = regexp.MustCompile(`\s+`)
)

// CallKey identifies a tool call for repeat detection (GUARDS.md §2): the tool name without any MCP prefix,
// a space, and the canonical JSON of the arguments (object keys sorted, no insignificant whitespace). For
// browser_evaluate the "function" argument is compared with whitespace removed and every digit run replaced by
// "#" ('done19' and 'done20' have the same key); other tools compare exactly. Arguments that are not valid JSON
// are used verbatim.
func CallKey(call ToolCall) string {
	name := browser.ToolName(call.Name)
	var args any
	if err := json.Unmarshal([]byte(call.Args), &args); err != nil {
		return name + " " + call.Args
	}
	if m, ok := args.(map[string]any); ok && name == "browser_evaluate" {
		if fn, ok := m["function"].(string); ok {
			m["function"] = evaluateDigits.ReplaceAllString(evaluateSpace.ReplaceAllString(fn, ""), "#")
		}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b) // encoding/json sorts map keys: canonical
	enc.SetEscapeHTML(false)
	if err := enc.Encode(args); err != nil {
		return name + " " + call.Args
	}
	return name + " " + strings.TrimSuffix(b.String(), "\n")
}

// consoleLineRE matches Playwright's volatile console lines ("New console entries: …", "Console: 3 errors").
var consoleLineRE = regexp.MustCompile(`(?i)^\s*(?:-\s*)?(?:new console (?:entries|messages)|console(?: messages| entries| logs| errors| warnings)?\s*[:(]|\d+\s+console\b)`)

// ResultFingerprint is the hex SHA-256 of a model-facing tool result with its volatile parts removed: the
// "### Events" section, the "### Repeated call" note a guard may have appended, and console-count lines
// (GUARDS.md §2). Two results with the same fingerprint showed the model the same thing.
func ResultFingerprint(text string) string {
	var b strings.Builder
	skip := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "### ") {
			h := strings.TrimSpace(line[4:])
			skip = h == "Events" || h == "Repeated call"
			if skip {
				continue
			}
		}
		if skip || consoleLineRE.MatchString(line) {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// noopReadRE are the page reads that carry no page content: title and URL.
var noopReadRE = regexp.MustCompile(`^(?:(?:window\.)?document\.(?:title|URL|location\.href)|(?:window\.)?location\.href)$`)

var (
	noopNumberRE = regexp.MustCompile(`^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$`)
	noopArrowRE  = regexp.MustCompile(`^(?:async\s*)?(?:\([^()]*\)|[A-Za-z_$][\w$]*)\s*=>([\s\S]*)$`)
	noopFuncRE   = regexp.MustCompile(`^(?:async\s+)?function\b[^(]*\([^()]*\)\s*\{([\s\S]*)\}$`)
	noopReturnRE = regexp.MustCompile(`^return\b([\s\S]*?);?$`)
	noopKeyRE    = regexp.MustCompile(`^(?:[A-Za-z_$][\w$]*|'[^'\\]*'|"[^"\\]*"|\d+)$`)
)

// IsNoopEvaluate reports whether a browser_evaluate function does nothing useful (GUARDS.md §2, streak b): its
// body only returns a literal (string without interpolation, number, boolean, null, undefined), document.title,
// document.URL, location.href, or a flat object/array of those — whatever its parameters. An empty body is a
// no-op. Anything that reads page content (document.body, querySelector, an element argument …) is not.
func IsNoopEvaluate(function string) bool {
	s := strings.TrimSpace(function)
	var body string
	if m := noopArrowRE.FindStringSubmatch(s); m != nil {
		body = strings.TrimSpace(m[1])
		if strings.HasPrefix(body, "{") && strings.HasSuffix(body, "}") {
			return noopBlock(body[1 : len(body)-1])
		}
		return noopExpr(body)
	}
	if m := noopFuncRE.FindStringSubmatch(s); m != nil {
		return noopBlock(m[1])
	}
	// A bare expression ("document.title", "'ok'") is evaluated as such.
	return noopExpr(s)
}

func noopBlock(body string) bool {
	b := strings.TrimSpace(body)
	for strings.HasSuffix(b, ";") {
		b = strings.TrimSpace(strings.TrimSuffix(b, ";"))
	}
	if b == "" || b == "return" {
		return true
	}
	m := noopReturnRE.FindStringSubmatch(b)
	if m == nil || strings.Contains(m[1], ";") && !quotedOnly(m[1]) {
		return false
	}
	return noopExpr(m[1])
}

// quotedOnly reports whether every ';' of s is inside a string literal.
func quotedOnly(s string) bool {
	parts, ok := splitTop(s, ';')
	return ok && len(parts) == 1
}

func noopExpr(e string) bool {
	e = strings.TrimSpace(e)
	for strings.HasSuffix(e, ";") {
		e = strings.TrimSpace(strings.TrimSuffix(e, ";"))
	}
	for len(e) >= 2 && e[0] == '(' && closing(e, 0) == len(e)-1 {
		e = strings.TrimSpace(e[1 : len(e)-1])
	}
	if noopAtom(e) {
		return true
	}
	if len(e) >= 2 && (e[0] == '{' && e[len(e)-1] == '}' || e[0] == '[' && e[len(e)-1] == ']') {
		obj := e[0] == '{'
		parts, ok := splitTop(e[1:len(e)-1], ',')
		if !ok {
			return false
		}
		for _, p := range parts {
			p = strings.TrimSpace(p)
			if p == "" {
				continue // trailing comma, empty literal
			}
			if obj {
				kv, ok := splitTop(p, ':')
				if !ok || len(kv) != 2 || !noopKeyRE.MatchString(strings.TrimSpace(kv[0])) {
					return false
				}
				p = strings.TrimSpace(kv[1])
			}
			if !noopAtom(p) {
				return false
			}
		}
		return true
	}
	return false
}

func noopAtom(a string) bool {
	switch a {
	case "true", "false", "null", "undefined", "NaN", "Infinity":
		return true
	}
	if noopNumberRE.MatchString(a) || noopReadRE.MatchString(a) {
		return true
	}
	if len(a) >= 2 && (a[0] == '\'' || a[0] == '"' || a[0] == '`') && a[len(a)-1] == a[0] {
		// One literal only: the closing quote must be the last character.
		if end := literalEnd(a, 0); end != len(a)-1 {
			return false
		}
		return a[0] != '`' || !strings.Contains(a, "${")
	}
	return false
}

// literalEnd returns the index of the quote closing the string literal that starts at i, or -1.
func literalEnd(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j
		}
	}
	return -1
}

// closing returns the index of the bracket closing the one at i (nesting and string literals respected), or -1.
func closing(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '\'', '"', '`':
			end := literalEnd(s, j)
			if end < 0 {
				return -1
			}
			j = end
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// splitTop splits s at sep outside string literals; ok is false when s nests brackets or has an unterminated
// literal (a nested structure is not "flat").
func splitTop(s string, sep byte) (parts []string, ok bool) {
	start := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"', '`':
			end := literalEnd(s, i)
			if end < 0 {
				return nil, false
			}
			i = end
		case '(', ')', '[', ']', '{', '}':
			return nil, false
		default:
			if c == sep {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:]), true
}

// Streak thresholds of repeat detection (GUARDS.md §2) shared by repeat_guard and FailureMode.
const (
	// RepeatNoteAt is the streak length from which a "### Repeated call" note is appended.
	RepeatNoteAt = 3
	// RepeatWithholdAt is the streak length after which the next model request carries no tools, and the
	// length from which an attempt that ends inside the streak is a "loop".
	RepeatWithholdAt = 5
)

// Streaks tracks the two repeat streaks of GUARDS.md §2 over a sequence of executed tool calls. The zero value
// is ready; call Observe once per executed call, in order.
type Streaks struct {
	lastKey, lastFP string
	// Identical is the length of the current run of identical calls with identical results (1 after any call).
	Identical int
	// Noop is the length of the current run of no-op browser_evaluate calls (0 after any other call).
	Noop int
}

// Observe adds one executed call with its model-facing result text and returns the longer streak.
func (s *Streaks) Observe(call ToolCall, resultText string) int {
	key, fp := CallKey(call), ResultFingerprint(resultText)
	if s.Identical > 0 && key == s.lastKey && fp == s.lastFP {
		s.Identical++
	} else {
		s.Identical = 1
	}
	s.lastKey, s.lastFP = key, fp
	if browser.ToolName(call.Name) == "browser_evaluate" && IsNoopEvaluate(evaluateFunction(call.Args)) {
		s.Noop++
	} else {
		s.Noop = 0
	}
	return max(s.Identical, s.Noop)
}

// evaluateFunction returns the "function" argument of a browser_evaluate call ("" when absent).
func evaluateFunction(args string) string {
	var a struct {
		Function string `json:"function"`
	}
	_ = json.Unmarshal([]byte(args), &a)
	return a.Function
}

// EvaluateFunction returns the "function" argument of browser_evaluate arguments ("" when absent or invalid).
func EvaluateFunction(args string) string { return evaluateFunction(args) }

// InterceptPhrase is the part of Playwright's call log that identifies a click on a covered element.
const InterceptPhrase = "intercepts pointer events"

// snapshotBlockRE extracts the YAML of a "### Snapshot" section.
var snapshotBlockRE = regexp.MustCompile("(?s)### Snapshot\n```yaml\n(.*?)\n```")

// lastSnapshot returns the last snapshot YAML in text, if any.
func lastSnapshot(text string) (string, bool) {
	m := snapshotBlockRE.FindAllStringSubmatch(text, -1)
	if len(m) == 0 {
		return "", false
	}
	return m[len(m)-1][1], true
}

// evaluateTimeoutRE matches the error of an evaluate that was cut off (evaluate_isolation's message, or CDP's).
var evaluateTimeoutRE = regexp.MustCompile(`(?i)evaluate (?:timed out|cancelled)|execution was terminated`)

// FailureMode classifies a failed attempt into one failure mode (DESIGN.md "Failure modes"; the most specific
// wins, in this order): "stale_ref_deadlock" (error budget or stall limit spent with ≥3 stale-ref errors among
// the last 5 tool results), "empty_snapshot" (final ok=false while the last snapshot seen had no interactive ref),
// "intercepted" (the last failed tool call was an intercepted click and no action succeeded after it),
// "hung_evaluate" (ended by timeout while a browser_evaluate was running, or the last tool call was an
// evaluate that timed out), "loop" (ended inside a streak of ≥5 identical or no-op calls), "stalled",
// "error_budget", "max_steps", "timeout", "context_overflow", "no_json" (empty or non-JSON output, or a
// forced finish without an answer), "gave_up" (ok=false), "wrong_answer" (ok=true but the judge said no).
// It returns "" for a pass (judgePass), "infra" for an attempt ended by an infrastructure or quota error or by
// Reason "browser_closed" (not an agent failure), and "model_error" for any other model-call error.
func FailureMode(t *Trajectory, judgePass bool) string {
	if judgePass {
		return ""
	}
	f := t.Finish
	if f.ErrorClass == "infra" || f.ErrorClass == "quota" || f.Reason == "browser_closed" {
		return "infra"
	}
	type rec struct {
		call ToolCall
		r    *ToolRecord
	}
	var recs []rec
	for _, st := range t.Steps {
		if st == nil {
			continue
		}
		for _, r := range st.Results {
			if r != nil {
				recs = append(recs, rec{r.Call, r})
			}
		}
	}
	text := func(r *ToolRecord) string {
		if r.Text != "" {
			return r.Text
		}
		return r.Raw
	}
	isStale := func(r *ToolRecord) bool { return r.Failed && strings.Contains(r.Raw, browser.StaleRefPhrase) }
	isAction := func(r *ToolRecord) bool {
		return !r.Failed && (r.Action || browser.ActionTools[browser.ToolName(r.Call.Name)])
	}

	// stale_ref_deadlock: whichever budget ended it — with one call per iteration the stall limit (3) comes
	// before the consecutive-error budget (5), so a stale-ref deadlock usually ends as "stalled".
	if f.Reason == "error_budget" || f.Reason == "stalled" {
		n := 0
		for i := max(0, len(recs)-5); i < len(recs); i++ {
			if isStale(recs[i].r) {
				n++
			}
		}
		if n >= 3 {
			return "stale_ref_deadlock"
		}
	}
	// empty_snapshot
	if f.Final != nil && !f.Final.OK {
		snap, seen := lastSnapshot(t.FirstObservation)
		for _, r := range recs {
			if s, ok := lastSnapshot(text(r.r)); ok {
				snap, seen = s, true
			}
		}
		if seen && !HasInteractiveRef(snap) {
			return "empty_snapshot"
		}
	}
	// intercepted
	lastFailed := -1
	for i, r := range recs {
		if r.r.Failed {
			lastFailed = i
		}
	}
	if lastFailed >= 0 && strings.Contains(recs[lastFailed].r.Raw, InterceptPhrase) {
		recovered := false
		for _, r := range recs[lastFailed+1:] {
			if isAction(r.r) {
				recovered = true
			}
		}
		if !recovered {
			return "intercepted"
		}
	}
	// hung_evaluate
	if f.Reason == "timeout" && len(recs) > 0 {
		// The loop records the call it cut off as a failed result.
		if last := recs[len(recs)-1].r; last.Failed && browser.ToolName(last.Call.Name) == "browser_evaluate" {
			return "hung_evaluate"
		}
	}
	if f.Reason == "timeout" && len(t.Steps) > 0 {
		if st := t.Steps[len(t.Steps)-1]; st != nil && len(st.ToolCalls) > len(st.Results) &&
			browser.ToolName(st.ToolCalls[len(st.Results)].Name) == "browser_evaluate" {
			return "hung_evaluate"
		}
	}
	if n := len(recs); n > 0 {
		last := recs[n-1].r
		if browser.ToolName(last.Call.Name) == "browser_evaluate" && last.Failed && evaluateTimeoutRE.MatchString(last.Raw) {
			return "hung_evaluate"
		}
	}
	// loop
	var s Streaks
	streak := 0
	for _, r := range recs {
		streak = s.Observe(r.call, r.r.Raw)
	}
	if streak >= RepeatWithholdAt {
		return "loop"
	}
	switch f.Reason {
	case "stalled", "error_budget", "max_steps", "timeout", "context_overflow":
		return f.Reason
	}
	if f.ErrorClass == "context_overflow" {
		return "context_overflow"
	}
	if f.Reason == "model_error" {
		return "model_error"
	}
	if f.Final == nil {
		return "no_json"
	}
	if !f.Final.OK {
		return "gave_up"
	}
	return "wrong_answer"
}
