package browser

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Result is the outcome of one browser tool call as a value: the sections Playwright MCP (≤0.0.68, inline
// snapshot) prints, each a field, plus what guards and the loop add before the model sees it (Notes, Refreshed).
// Guards edit the fields; Format renders the model-facing text once, at the model boundary, and ParseResult
// reads such a text back (for a reader that only has the text: the scripted policy, a Playwright MCP server's
// reply, and trajectories of schema version 1, which stored the text).
//
// Its JSON form is the trajectory's record of a tool result (results.ToolRecord): one field per section, each
// omitted when empty — {"error", "result", "url", "title", "snapshot": {"yaml", "elided"}, "events": [...],
// "notes": [{"heading", "body"}], "refreshed": {"yaml", "elided"}}. Image and Harness are not part of it (nor of
// the text): the image is kept as a screenshot file, the harness notes as guard events.
type Result struct {
	// Error is the raw error message (with Playwright's call log when there is one); empty on success.
	Error string `json:"error,omitempty"`
	// Result is the tool's value (evaluate's JSON, wait_for's message …).
	Result string `json:"result,omitempty"`
	// URL and Title of the page after the call.
	URL   string `json:"url,omitempty"`
	Title string `json:"title,omitempty"`
	// Snapshot is the AI-mode aria snapshot taken after the call, when the call changes the page or is
	// browser_snapshot; zero otherwise.
	Snapshot Snapshot `json:"snapshot,omitzero"`
	// Events are console errors, dialogs and downloads seen during the call, one per entry.
	Events []string `json:"events,omitempty"`
	// Notes are sections a guard appends after Events (repeat_guard's "### Repeated call"), in order.
	Notes []Note `json:"notes,omitempty"`
	// Refreshed is a fresh snapshot the loop appends last (stale_ref_refresh); nil when none.
	Refreshed *Snapshot `json:"refreshed,omitempty"`
	// Image is a PNG screenshot (browser_take_screenshot), bytes; not part of the text.
	Image []byte `json:"-"`
	// Harness are notes for the trajectory, never shown to the model (not part of the text): the loop records
	// each as an event of guard ProbeGuard (ProbeSkipped).
	Harness []string `json:"-"`
}

// Snapshot is an AI-mode aria snapshot in a result: its YAML, or, in a request, the placeholder that replaced
// an older one (Elided). Its refs are parsed from the YAML (Refs, Nodes).
type Snapshot struct {
	// YAML is the snapshot text as Playwright's page.ariaSnapshot({mode: "ai"}) returns it.
	YAML string `json:"yaml,omitempty"`
	// Elided marks a snapshot replaced by SnapshotPlaceholder (older snapshots in a request, DESIGN.md
	// "Context"); YAML is then empty.
	Elided bool `json:"elided,omitempty"`
}

// Note is a section appended to a result: "### " + Heading, then Body.
type Note struct {
	Heading string `json:"heading"`
	Body    string `json:"body"`
}

// IsError reports whether the call failed.
func (r Result) IsError() bool { return r.Error != "" }

// Clone returns a copy of r that shares no slice or pointer with it (guards edit the copy).
func (r Result) Clone() Result {
	r.Events = slices.Clone(r.Events)
	r.Notes = slices.Clone(r.Notes)
	r.Harness = slices.Clone(r.Harness)
	if r.Refreshed != nil {
		s := *r.Refreshed
		r.Refreshed = &s
	}
	return r
}

// LastSnapshot returns the last snapshot of the result (Refreshed, else Snapshot); ok is false when it has none.
func (r Result) LastSnapshot() (Snapshot, bool) {
	if r.Refreshed != nil {
		return *r.Refreshed, true
	}
	return r.Snapshot, r.Snapshot.present()
}

// HasNote reports whether r has a note whose heading is name, or name followed by a non-word character
// ("Repeated call (3rd)").
func (r Result) HasNote(name string) bool {
	return slices.ContainsFunc(r.Notes, func(n Note) bool {
		h := n.Heading
		return strings.HasPrefix(h, name) && (len(h) == len(name) || !isWordByte(h[len(name)]))
	})
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

func (s Snapshot) present() bool { return s.YAML != "" || s.Elided }

// Section headings of the text form.
const (
	headError    = "### Error"
	headResult   = "### Result"
	headPage     = "### Page"
	headSnapshot = "### Snapshot"
	headEvents   = "### Events"
	pageURL      = "- Page URL: "
	pageTitle    = "- Page Title: "
	yamlOpen     = "```yaml"
	fenceClose   = "```"
)

// SnapshotPlaceholder is the text of an elided snapshot section (Snapshot.Elided).
const SnapshotPlaceholder = headSnapshot + "\n[older snapshot elided; the latest snapshot is further below]"

// Format renders the model-facing text: "### Error", "### Result", "### Page", "### Snapshot" (a ```yaml
// fence) and "### Events" sections, each only when it has content, in that order (DESIGN.md "Tool results");
// then each note ("### Heading\nBody") and the refreshed snapshot. No trailing newline.
func (r Result) Format() string {
	var b strings.Builder
	if r.Error != "" {
		b.WriteString(headError + "\n" + r.Error + "\n")
	}
	if r.Result != "" {
		b.WriteString(headResult + "\n" + r.Result + "\n")
	}
	if r.URL != "" || r.Title != "" {
		b.WriteString(headPage + "\n" + pageURL + r.URL + "\n" + pageTitle + r.Title + "\n")
	}
	if r.Snapshot.present() {
		b.WriteString(r.Snapshot.section() + "\n")
	}
	if len(r.Events) > 0 {
		b.WriteString(headEvents + "\n")
		for _, e := range r.Events {
			b.WriteString("- " + e + "\n")
		}
	}
	out := strings.TrimRight(b.String(), "\n")
	for _, n := range r.Notes {
		out = strings.TrimRight(out, "\n") + "\n### " + n.Heading + "\n" + n.Body
	}
	if r.Refreshed != nil {
		out = strings.TrimRight(out, "\n") + "\n" + r.Refreshed.section()
	}
	return out
}

// section renders the snapshot's section without a trailing newline.
func (s Snapshot) section() string {
	if s.Elided {
		return SnapshotPlaceholder
	}
	return headSnapshot + "\n" + yamlOpen + "\n" + strings.TrimRight(s.YAML, "\n") + "\n" + fenceClose
}

// ParseResult is the inverse of Format: it reads a model-facing result text into its sections. Text before the
// first "### " heading (the "Task: …" lead of the first observation) is skipped; a "### Snapshot" section is the
// result's Snapshot unless it follows Events, a note or another snapshot (then it is Refreshed); a snapshot
// section that is not a ```yaml fence is Elided (text after a fence's closing line is dropped); any other
// heading is a Note. Format(ParseResult(t)) == t for
// every text Format produced whose Error, Result, event and note bodies have no line starting "### ".
func ParseResult(text string) Result {
	var r Result
	tail := false // past Events or a note: a snapshot now is the refreshed one
	for _, s := range splitSections(text) {
		switch s.heading {
		case headError:
			r.Error = s.body
		case headResult:
			r.Result = s.body
		case headPage:
			for _, line := range strings.Split(s.body, "\n") {
				if v, ok := strings.CutPrefix(line, pageURL); ok {
					r.URL = v
				} else if v, ok := strings.CutPrefix(line, pageTitle); ok {
					r.Title = v
				}
			}
		case headSnapshot:
			snap := Snapshot{Elided: true}
			if y, ok := strings.CutPrefix(s.body, yamlOpen+"\n"); ok {
				snap = Snapshot{YAML: fenced(y)}
			}
			if tail || r.Snapshot.present() || r.Refreshed != nil {
				r.Refreshed = &snap
			} else {
				r.Snapshot = snap
			}
		case headEvents:
			tail = true
			for _, line := range strings.Split(s.body, "\n") {
				if e, ok := strings.CutPrefix(line, "- "); ok || len(r.Events) == 0 {
					r.Events = append(r.Events, e)
				} else {
					r.Events[len(r.Events)-1] += "\n" + line
				}
			}
		default:
			tail = true
			r.Notes = append(r.Notes, Note{Heading: strings.TrimPrefix(s.heading, "### "), Body: s.body})
		}
	}
	return r
}

// fenced returns the YAML of a snapshot fence's body: up to the closing "```" line (anything after it is not
// part of any section Format writes, and is dropped).
func fenced(body string) string {
	if body == fenceClose {
		return ""
	}
	if i := strings.Index(body, "\n"+fenceClose+"\n"); i >= 0 {
		return body[:i]
	}
	return strings.TrimSuffix(body, "\n"+fenceClose)
}

type section struct{ heading, body string }

// splitSections cuts text at lines starting "### " (outside a snapshot's ```yaml fence); each body is the
// text between its heading line and the next heading, without the newline before that heading.
func splitSections(text string) []section {
	var out []section
	var body []string
	inFence := false
	flush := func() {
		if len(out) > 0 {
			out[len(out)-1].body = strings.Join(body, "\n")
		}
		body = body[:0]
	}
	for _, line := range strings.Split(text, "\n") {
		switch {
		case inFence:
			inFence = line != fenceClose
		case strings.HasPrefix(line, "### "):
			flush()
			out = append(out, section{heading: line})
			continue
		case len(out) > 0 && out[len(out)-1].heading == headSnapshot && len(body) == 0 && line == yamlOpen:
			inFence = true
		}
		if len(out) > 0 {
			body = append(body, line)
		}
	}
	flush()
	return out
}

// The ref grammar (Playwright 1.64's aria refs): "e12", or "f3e2" inside a frame. Written once; every ref
// pattern below is built from it.
const (
	refPrefixExpr = `(?:f\d+)?e`
	refExpr       = refPrefixExpr + `\d+`
)

var (
	// RefPattern matches a ref inside an AI snapshot line, e.g. "[ref=e12]" or "[ref=f3e2]". Group 1 is the ref.
	RefPattern = regexp.MustCompile(`\[ref=(` + refExpr + `)\]`)
	bareRef    = regexp.MustCompile(`^` + refExpr + `$`)
	splitRef   = regexp.MustCompile(`^(` + refPrefixExpr + `)(\d+)$`)
	// roleLine matches a snapshot node line: indentation, "- ", an optional YAML quote, the role (a whole word),
	// and later a ref.
	roleLine = regexp.MustCompile(`^\s*- ['"]?([A-Za-z]+)\b.*?` + RefPattern.String())
)

// Refs returns the refs of a snapshot (or any text) in document order.
func Refs(snapshot string) []string {
	var out []string
	for _, m := range RefPattern.FindAllStringSubmatch(snapshot, -1) {
		out = append(out, m[1])
	}
	return out
}

// ParseRef extracts the ref from a target: "e12", "ref=e12", "[ref=e12]" or a snapshot line holding one.
func ParseRef(target string) (string, bool) {
	t := strings.TrimSpace(target)
	if m := RefPattern.FindStringSubmatch(t); m != nil {
		return m[1], true
	}
	t = strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(t, "["), "]"), "ref=")
	if bareRef.MatchString(t) {
		return t, true
	}
	return "", false
}

// SplitRef splits a ref into its prefix (frame part and "e") and its number: "f1e30" → "f1e", 30. ok is false
// for a string that is not a ref.
func SplitRef(ref string) (prefix string, n int, ok bool) {
	m := splitRef.FindStringSubmatch(ref)
	if m == nil {
		return "", 0, false
	}
	n, err := strconv.Atoi(m[2])
	return m[1], n, err == nil
}

// RefNode is a snapshot line that carries a ref: the ref and the node's role ("" when the line does not start
// with a role word, e.g. a quoted text node).
type RefNode struct {
	Ref, Role string
}

// Nodes returns the refs of the snapshot with their roles, in document order: for a line that starts with a
// role, its first ref with that role; for any other line, each of its refs with role "". These are the refs
// the element tools accept (Session.Locator).
func (s Snapshot) Nodes() []RefNode {
	var out []RefNode
	for _, line := range strings.Split(s.YAML, "\n") {
		if m := roleLine.FindStringSubmatch(line); m != nil {
			out = append(out, RefNode{Ref: m[2], Role: m[1]})
			continue
		}
		for _, r := range Refs(line) {
			out = append(out, RefNode{Ref: r})
		}
	}
	return out
}

// InteractiveRoles are the ARIA widget roles that make a snapshot actionable (GUARDS.md §4), the one list
// behind HasInteractiveRef.
var InteractiveRoles = []string{"button", "link", "textbox", "searchbox", "checkbox", "radio", "switch", "combobox",
	"listbox", "option", "menuitemcheckbox", "menuitemradio", "menuitem", "tab", "slider", "spinbutton", "treeitem"}

// IsInteractiveRole reports whether role (exact, lower case as Playwright prints it) is in InteractiveRoles.
func IsInteractiveRole(role string) bool { return slices.Contains(InteractiveRoles, role) }

// HasInteractiveRef reports whether the snapshot has at least one actionable element: a node whose role (the
// first word after "- " and an optional YAML quote) is one of InteractiveRoles and that carries a [ref=…]. A role
// word inside a name (`- generic "button" [ref=e5]`) does not count; a quoted key (`- 'button "Go"' [ref=e2]`)
// does. The one rule snapshot_ready, the empty_snapshot failure mode and the scripted policy's "empty snapshot"
// test call (GUARDS.md §4).
func (s Snapshot) HasInteractiveRef() bool {
	return slices.ContainsFunc(s.Nodes(), func(n RefNode) bool { return IsInteractiveRole(n.Role) })
}

// HasInteractiveRef is Snapshot{YAML: yaml}.HasInteractiveRef(), for a snapshot held as text.
func HasInteractiveRef(yaml string) bool { return Snapshot{YAML: yaml}.HasInteractiveRef() }

// StaleRefMessage is the error for a ref that is not in the last snapshot or whose node is gone, in Playwright
// MCP's words. The system prompt and the stale_ref_refresh guard key on the phrase StaleRefPhrase.
func StaleRefMessage(ref string) string {
	return "Ref " + ref + " not found in the current page snapshot. Try capturing new snapshot."
}

// StaleRefPhrase is the part of StaleRefMessage that identifies a stale-ref error.
const StaleRefPhrase = "not found in the current page snapshot"

// The words of an evaluate that was cut off (EvaluateCutOffMessage): "evaluate <verb> after …".
const (
	evaluateTimedOut  = "evaluate timed out"
	evaluateCancelled = "evaluate cancelled"
	// cdpTerminated is CDP's error for a script ended by Runtime.terminateExecution.
	cdpTerminated = "execution was terminated"
)

// evaluateCutOffRE matches the error of a cut-off evaluate: EvaluateCutOffMessage's, or CDP's.
var evaluateCutOffRE = regexp.MustCompile(`(?i)` + evaluateTimedOut + `|` + evaluateCancelled + `|` + cdpTerminated)

// EvaluateCutOffMessage is the error of a browser_evaluate the evaluate_isolation guard cut off when its budget
// (budgetMS, milliseconds) was spent or, cancelled, when the attempt's context ended: "evaluate timed out after
// 5000 ms; page script was terminated" ("evaluate cancelled after …"; "page script could not be terminated"
// when terminated is false). The failure-mode classifier recognises it with IsEvaluateCutOff.
func EvaluateCutOffMessage(cancelled bool, budgetMS int64, terminated bool) string {
	lead, how := evaluateTimedOut, "page script could not be terminated"
	if cancelled {
		lead = evaluateCancelled
	}
	if terminated {
		how = "page script was terminated"
	}
	return fmt.Sprintf("%s after %d ms; %s", lead, budgetMS, how)
}

// IsEvaluateCutOff reports whether an error message is that of a cut-off evaluate (EvaluateCutOffMessage's, or
// CDP's "Execution was terminated"), case-insensitively.
func IsEvaluateCutOff(msg string) bool { return evaluateCutOffRE.MatchString(msg) }
