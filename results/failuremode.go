package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"webbench/browser"
	"webbench/llm"
)

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
	name := string(browser.BaseName(call.Name))
	var args any
	if err := json.Unmarshal([]byte(call.Args), &args); err != nil {
		return name + " " + call.Args
	}
	if m, ok := args.(map[string]any); ok && name == string(browser.ToolEvaluate) {
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

// ResultFingerprint is the hex SHA-256 of what a tool result showed the model, computed from its fields with the
// volatile parts left out: the Events, the notes a guard appended ("### Repeated call") and, inside the Error,
// Result and snapshot fields, console-count lines (consoleLineRE; GUARDS.md §2). Each present field is hashed
// with its tag and length-prefixed lines, so two results have the same fingerprint exactly when they showed the
// model the same error, value, page, snapshot and refreshed snapshot.
func ResultFingerprint(r browser.Result) string {
	h := sha256.New()
	field := func(tag, text string) {
		if text == "" {
			return
		}
		fmt.Fprintf(h, "%s\n", tag)
		for _, line := range strings.Split(text, "\n") {
			if !consoleLineRE.MatchString(line) {
				fmt.Fprintf(h, "%d:%s\n", len(line), line)
			}
		}
	}
	snapshot := func(tag string, s browser.Snapshot) {
		if s.Elided {
			fmt.Fprintf(h, "%s elided\n", tag)
		}
		field(tag, s.YAML)
	}
	field("error", r.Error)
	field("result", r.Result)
	if r.URL != "" || r.Title != "" {
		fmt.Fprintf(h, "page\n%d:%s\n%d:%s\n", len(r.URL), r.URL, len(r.Title), r.Title)
	}
	snapshot("snapshot", r.Snapshot)
	if r.Refreshed != nil {
		fmt.Fprintf(h, "refreshed\n")
		snapshot("refreshed", *r.Refreshed)
	}
	return hex.EncodeToString(h.Sum(nil))
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

// Observe adds one executed call with its model-facing result and returns the longer streak.
func (s *Streaks) Observe(call ToolCall, result browser.Result) int {
	key, fp := CallKey(call), ResultFingerprint(result)
	if s.Identical > 0 && key == s.lastKey && fp == s.lastFP {
		s.Identical++
	} else {
		s.Identical = 1
	}
	s.lastKey, s.lastFP = key, fp
	if browser.BaseName(call.Name) == browser.ToolEvaluate && IsNoopEvaluate(evaluateFunction(call.Args)) {
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

// InterceptPhrase is the part of Playwright's call log that identifies a click on a covered element.
const InterceptPhrase = "intercepts pointer events"

// reasonModes are the finish reasons that are a failure mode of their own when no mechanism mode applies.
var reasonModes = map[FinishReason]FailureMode{
	FinishStalled:         ModeStalled,
	FinishErrorBudget:     ModeErrorBudget,
	FinishMaxSteps:        ModeMaxSteps,
	FinishTimeout:         ModeTimeout,
	FinishContextOverflow: ModeContextOverflow,
}

// endModes are the finish reasons whose failure mode is decided before any mechanism mode: the endpoint or
// the model ended the attempt, whatever the agent did before.
var endModes = map[FinishReason]FailureMode{
	FinishRefusal:       ModeRefusal,
	FinishContentFilter: ModeContentFilter,
	FinishTruncated:     ModeTruncated,
	FinishAgentCrashed:  ModeAgentCrashed,
}

// DeadlineCutOffPrefix begins the error of a tool call the agent loop cut off when the attempt's context
// ended: "attempt deadline reached while <tool> was running". ClassifyFailure recognises a browser_evaluate cut
// off so.
const DeadlineCutOffPrefix = "attempt deadline reached while "

// ClassifyFailure classifies a failed attempt into one failure mode (DESIGN.md "Failure modes"; the most specific
// wins, in this order): "agent_crashed" (an external agent exited without a final JSON answer: Reason
// "agent_crashed"), "refusal" (the model refused: Reason "refusal"), "content_filter" (the endpoint's filter
// stopped the reply), "truncated" (ended without an answer after a reply cut off at the token limit, whose calls
// were not executed: Reason "truncated", or the last loop step marked Truncated with no final answer and no
// later deadline or model error), "stale_ref_deadlock" (error budget or stall limit spent with ≥3 stale-ref
// errors among the last 5 tool results), "empty_snapshot" (final ok=false while the last snapshot seen had no
// interactive ref), "intercepted" (the last failed tool call was an intercepted click and no action succeeded
// after it), "hung_evaluate" (ended by timeout while a browser_evaluate was running, or the last tool call was
// an evaluate that timed out or was cut off at the attempt deadline), "loop" (ended inside a streak of ≥5 identical or no-op calls), "stalled",
// "error_budget", "max_steps", "timeout", "context_overflow", "no_json" (empty or non-JSON output, or a
// forced finish without an answer), "gave_up" (ok=false), "wrong_answer" (ok=true but the judge said no).
// It returns "" for a pass (judgePass), "infra" for an attempt ended by an infrastructure, rate-limit or
// endpoint (config, auth, quota) error or by Reason "browser_closed" (not an agent failure), and
// "model_error" for any other model-call error.
func ClassifyFailure(t *Trajectory, judgePass bool) FailureMode {
	if judgePass {
		return ""
	}
	f := t.Finish
	reason, class := f.Reason, f.ErrorClass
	if ClassOf(class) == ClassInfra || reason == FinishBrowserClosed {
		return ModeInfra
	}
	if m, ok := endModes[reason]; ok {
		return m
	}
	if f.Final == nil && endedTruncated(t) {
		return ModeTruncated
	}
	if m := mechanismMode(t, toolRecords(t)); m != "" {
		return m
	}
	if m, ok := reasonModes[reason]; ok {
		return m
	}
	switch {
	case class == llm.ErrorContextOverflow:
		return ModeContextOverflow
	case reason == FinishModelError:
		return ModeModelError
	case f.Final == nil:
		return ModeNoJSON
	case !f.Final.OK:
		return ModeGaveUp
	}
	return ModeWrongAnswer
}

// toolRec is a recorded tool call with its raw result.
type toolRec struct {
	r   *ToolRecord
	raw browser.Result
}

// toolRecords returns the trajectory's tool records in order.
func toolRecords(t *Trajectory) []toolRec {
	var recs []toolRec
	for _, st := range t.Steps {
		if st == nil {
			continue
		}
		for _, r := range st.Results {
			if r != nil {
				recs = append(recs, toolRec{r, r.Raw})
			}
		}
	}
	return recs
}

// mechanismMode returns the first of the mechanism failure modes (stale_ref_deadlock, empty_snapshot,
// intercepted, hung_evaluate, loop) that applies, or "".
func mechanismMode(t *Trajectory, recs []toolRec) FailureMode {
	f := t.Finish
	reason := f.Reason
	isStale := func(x toolRec) bool { return x.r.Failed && strings.Contains(x.raw.Error, browser.StaleRefPhrase) }
	isAction := func(x toolRec) bool {
		def, _ := browser.LookupTool(x.r.Call.Name)
		return !x.r.Failed && (x.r.Action || def.Progress)
	}
	isEvaluate := func(name string) bool { return browser.BaseName(name) == browser.ToolEvaluate }

	// stale_ref_deadlock: whichever budget ended it — with one call per iteration the stall limit (3) comes
	// before the consecutive-error budget (5), so a stale-ref deadlock usually ends as "stalled".
	if reason == FinishErrorBudget || reason == FinishStalled {
		n := 0
		for _, x := range recs[max(0, len(recs)-5):] {
			if isStale(x) {
				n++
			}
		}
		if n >= 3 {
			return ModeStaleRefDeadlock
		}
	}
	if f.Final != nil && !f.Final.OK && lastSnapshotEmpty(t, recs) {
		return ModeEmptySnapshot
	}
	// intercepted
	lastFailed := -1
	for i, x := range recs {
		if x.r.Failed {
			lastFailed = i
		}
	}
	if lastFailed >= 0 && strings.Contains(recs[lastFailed].raw.Error, InterceptPhrase) &&
		!slices.ContainsFunc(recs[lastFailed+1:], isAction) {
		return ModeIntercepted
	}
	// hung_evaluate: the loop records the call it cut off at the deadline as a failed result; a call still
	// unrecorded was running.
	if reason == FinishTimeout && len(recs) > 0 {
		if last := recs[len(recs)-1].r; last.Failed && isEvaluate(last.Call.Name) {
			return ModeHungEvaluate
		}
	}
	if reason == FinishTimeout && len(t.Steps) > 0 {
		if st := t.Steps[len(t.Steps)-1]; st != nil && len(st.ToolCalls) > len(st.Results) &&
			isEvaluate(st.ToolCalls[len(st.Results)].Name) {
			return ModeHungEvaluate
		}
	}
	if n := len(recs); n > 0 {
		last := recs[n-1]
		// An evaluate cut off by the evaluate_isolation guard, or at the attempt deadline (CallTool's
		// DeadlineCutOffPrefix) after which an external agent still answered (the built-in loop ends as a
		// timeout then, the rule above).
		if isEvaluate(last.r.Call.Name) && last.r.Failed && (browser.IsEvaluateCutOff(last.raw.Error) ||
			strings.HasPrefix(last.raw.Error, DeadlineCutOffPrefix)) {
			return ModeHungEvaluate
		}
	}
	// loop
	var s Streaks
	streak := 0
	for _, x := range recs {
		streak = s.Observe(x.r.Call, x.raw)
	}
	if streak >= RepeatWithholdAt {
		return ModeLoop
	}
	return ""
}

// lastSnapshotEmpty reports whether the last snapshot the model saw (the first observation's, then each
// model-facing result's, refreshed ones included; a diff, observation mode diff, is not a whole view and is
// skipped) had no interactive ref.
func lastSnapshotEmpty(t *Trajectory, recs []toolRec) bool {
	var snap browser.Snapshot
	seen := false
	if t.FirstObservation != nil {
		snap, seen = t.FirstObservation.LastSnapshot()
	}
	for _, x := range recs {
		if s, ok := x.r.ShownResult().LastSnapshot(); ok && !browser.IsSnapshotDiff(s.YAML) {
			snap, seen = s, true
		}
	}
	return seen && !snap.HasInteractiveRef()
}

// endedTruncated reports whether the attempt's last loop step (recovery calls aside) was cut off at the token
// limit and nothing else ended the attempt after it (no deadline, no model-call error).
func endedTruncated(t *Trajectory) bool {
	switch t.Finish.Reason {
	case FinishTimeout, FinishModelError, FinishContextOverflow, FinishBrowserClosed:
		return false
	}
	for i := len(t.Steps) - 1; i >= 0; i-- {
		if st := t.Steps[i]; st != nil && !st.Recovery {
			return st.Truncated || st.FinishReason == "length"
		}
	}
	return false
}
