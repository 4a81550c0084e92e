package guard

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"webbench/agent"
	"webbench/browser"
	"webbench/results"
)

// InterceptHint condenses Playwright's "intercepts pointer events" call log into a short error that names the
// target, the blocker and its container, with one hint (GUARDS.md §1, seed 000). It rewrites only the Error of
// a failed action's model-facing result; every other field is kept, and any result it cannot parse is left as
// it is. Events: "condensed" (bytes before/after, target, blocker, container)
// and "recovered" (steps from the condensed failure to the next successful action).
type InterceptHint struct{}

// NameInterceptHint is the guard's name in specs, --guards and the records.
const NameInterceptHint = "intercept_hint"

func init() {
	register(NameInterceptHint, 10, true, func() agent.Hook { return InterceptHint{} })
}

// Name implements agent.Hook.
func (InterceptHint) Name() string { return NameInterceptHint }

type interceptState struct {
	pending bool
	step    int
}

// ansiRE matches ANSI escape sequences (CSI and OSC), raw or JSON-escaped (\u001b[2m).
var ansiRE = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\\u001b\[[0-9;?]*[ -/]*[@-~]`)

// StripANSI removes ANSI escape sequences (raw ESC, or the JSON-escaped \u001b form) from s.
func StripANSI(s string) string { return ansiRE.ReplaceAllString(s, "") }

// AfterToolCall implements agent.AfterToolCaller.
func (g InterceptHint) AfterToolCall(a *agent.Attempt, call agent.ToolCall, res *agent.ToolResult) {
	st := agent.State(a, NameInterceptHint, func() *interceptState { return &interceptState{} })
	tool := browser.BaseName(call.Name)
	if !res.Failed() {
		if def, _ := browser.LookupTool(call.Name); st.pending && def.Acts {
			st.pending = false
			a.Event(NameInterceptHint, "recovered", fmt.Sprintf("steps=%d tool=%s", a.Step-st.step, tool))
		}
		return
	}
	out, in, ok := CondenseIntercept(res.Result)
	if !ok {
		return
	}
	before := len(res.Result.Format())
	res.Result = out
	st.pending, st.step = true, a.Step
	a.Event(NameInterceptHint, "condensed", fmt.Sprintf("bytes_before=%d bytes_after=%d tool=%s target=%s blocker=%s container=%s consent=%t relation=%s",
		before, len(res.Result.Format()), tool, in.Target, in.Blocker, in.Container, in.Consent, in.Relation))
}

// Intercept is a parsed "intercepts pointer events" failure.
type Intercept struct {
	// Target, Blocker and Container are CSS-like descriptors (tag#id.class[attr="v"]); Container is empty
	// when the log names none.
	Target, Blocker, Container string
	// Consent reports whether the blocker or container looks like a cookie-consent dialog.
	Consent bool
	// Relation is what the log tells of the blocker's place relative to the target (RelationOverlay,
	// RelationOverlayByName or RelationUnknown).
	Relation Relation
}

// Relation is what a call log tells of where the blocker sits relative to the target.
//
// Playwright's hit-target check (injectedScript.ts expectHitTarget) walks from the element hit at the click
// point up to the document (hitParents) and from the target up until it meets that chain. When they meet at
// hitParents[i] with i > 1 it logs "<hitParents[0]> from <hitParents[i-1]> subtree intercepts pointer
// events"; otherwise (i == 0: the hit element is an ancestor of the target; i == 1: its parent is) it logs
// "<hitParents[0]> intercepts pointer events". So the "from … subtree" form proves the blocker does not
// contain the target, and so does a bare blocker whose preview shows no element child (empty, text only, or
// a void tag: a preview renders children that are not all text as "…"); a bare blocker with "…" children may
// be either an overlay or the target's own ancestor, and the text cannot tell which.
type Relation string

const (
	// RelationOverlay: the log proves the blocker does not contain the target (an overlay or a sibling).
	RelationOverlay Relation = "overlay"
	// RelationOverlayByName: the log cannot place the blocker, but its id, class, role or aria-modal names
	// an overlay (backdrop, overlay, modal, dialog …) or a consent dialog; treated as an overlay.
	RelationOverlayByName Relation = "overlay_by_name"
	// RelationUnknown: the blocker may be an overlay or the target's own ancestor (a wrapper that contains
	// it); the log cannot tell which.
	RelationUnknown Relation = "unknown"
)

// ParseIntercept parses a Playwright call log (ANSI codes allowed): the target from the last
// "locator resolved to <…>" line and the blocker (and container, for "<X> from <Y> subtree intercepts pointer
// events") from the last line mentioning "intercepts pointer events". ok is false when the text does not
// mention an intercepted action or either element cannot be parsed.
func ParseIntercept(log string) (in Intercept, ok bool) {
	clean := StripANSI(log)
	if !strings.Contains(clean, results.InterceptPhrase) {
		return in, false
	}
	var targetLine, blockLine string
	lines := strings.Split(clean, "\n")
	for n, line := range lines {
		if t, found := resolvedElement(line); found {
			targetLine = t
		}
		if strings.Contains(line, results.InterceptPhrase) {
			blockLine = line
			// A log re-wrapped by hand ("<X> from <Y>…</Y>\n  subtree intercepts pointer events") has the
			// phrase on a line of its own: join it to the line before.
			if t := strings.TrimSpace(line); strings.HasPrefix(t, "subtree "+results.InterceptPhrase) && n > 0 &&
				strings.Contains(lines[n-1], " from <") {
				blockLine = lines[n-1] + " " + strings.TrimSpace(line)
			}
		}
	}
	if targetLine == "" {
		return in, false
	}
	target, _, ok := parseTag(targetLine)
	if !ok {
		return in, false
	}
	i := strings.IndexByte(blockLine, '<')
	if i < 0 {
		return in, false
	}
	blocker, rest, ok := parseTag(blockLine[i:])
	if !ok {
		return in, false
	}
	in.Target, in.Blocker = target.descriptor(), blocker.descriptor()
	in.Consent = blocker.consent()
	rest = strings.TrimLeft(afterElement(blocker, rest), " \t")
	if c, found := strings.CutPrefix(rest, "from <"); found {
		container, crest, ok := parseTag("<" + c)
		if !ok {
			return Intercept{}, false
		}
		if !strings.HasPrefix(strings.TrimLeft(afterElement(container, crest), " \t"), "subtree "+results.InterceptPhrase) {
			return Intercept{}, false
		}
		in.Container = container.descriptor()
		in.Consent = in.Consent || container.consent()
		in.Relation = RelationOverlay
		return in, true
	}
	switch {
	case !blocker.mayHaveElementChild():
		in.Relation = RelationOverlay
	case in.Consent || blocker.overlayName():
		in.Relation = RelationOverlayByName
	default:
		in.Relation = RelationUnknown
	}
	return in, true
}

// resolvedElement returns the element preview of a "locator resolved to" line: "locator resolved to <…>",
// "… to visible <…>" / "… to hidden <…>", or "… to N elements. Proceeding with the first one: <…>" (the
// forms Playwright's server-side frames.ts logs).
func resolvedElement(line string) (string, bool) {
	i := strings.Index(line, "locator resolved to ")
	if i < 0 {
		return "", false
	}
	rest := line[i+len("locator resolved to "):]
	if j := strings.Index(rest, "Proceeding with the first one: "); j >= 0 {
		rest = rest[j+len("Proceeding with the first one: "):]
	}
	for _, p := range []string{"visible ", "hidden "} {
		rest = strings.TrimPrefix(rest, p)
	}
	return rest, strings.HasPrefix(rest, "<")
}

// Texts of the condensed error that the scripted policy recognises (it plays a model that reads them).
const (
	// InterceptHintPrefix starts every condensed error.
	InterceptHintPrefix = "Click not delivered:"
	// InterceptCoveredBy separates the target from the blocker.
	InterceptCoveredBy = " is covered by "
)

// Message is the condensed model-facing error: InterceptHintPrefix, the target, InterceptCoveredBy, the blocker
// (and its container), then the hint: for a consent dialog, close it; for an overlay (RelationOverlay,
// RelationOverlayByName), dismiss it; when the log cannot tell an overlay from the target's own wrapper
// (RelationUnknown), it says so and gives the advice for each.
func (in Intercept) Message() string {
	var b strings.Builder
	b.WriteString(InterceptHintPrefix + " ")
	b.WriteString(in.Target)
	b.WriteString(InterceptCoveredBy)
	b.WriteString(in.Blocker)
	if in.Container != "" {
		b.WriteString(" (inside ")
		b.WriteString(in.Container)
		b.WriteString(")")
	}
	b.WriteString(". ")
	switch {
	case in.Consent:
		b.WriteString("This is a cookie-consent dialog: close it first (prefer 'Reject all' / 'Close'; if its " +
			"settings panel is open, confirm or close that panel).")
	case in.Relation == RelationUnknown:
		b.WriteString("The log does not say whether " + in.Blocker + " is an overlay or a wrapper that contains " +
			"the element: if an overlay or dialog is open, dismiss it first (its close button or Escape); if " +
			"nothing covers the page, click the element's visible label or text instead.")
	default:
		b.WriteString("Dismiss the overlay first (its close button or Escape), or click the control's visible " +
			"label when an icon covers its input.")
	}
	b.WriteString(" Then retry the action (take a fresh browser_snapshot if the page changed).")
	return b.String()
}

// CondenseIntercept returns r with its Error replaced by Intercept.Message() when the error is an intercepted
// action, and the parsed intercept; the other fields are kept. Sections the error text itself carries after
// the call log (lines from a "### " heading on, e.g. Playwright MCP's "### Ran Playwright code") are not
// part of the log: they are kept byte-identical after the message. ok is false (and r is returned as it is)
// when there is nothing to condense or the log cannot be parsed.
func CondenseIntercept(r browser.Result) (browser.Result, Intercept, bool) {
	log, tail := splitErrorSections(r.Error)
	in, ok := ParseIntercept(log)
	if !ok {
		return r, in, false
	}
	r.Error = in.Message()
	if tail != "" {
		r.Error += "\n" + tail
	}
	return r, in, true
}

// splitErrorSections cuts an error text before its first line that starts with "### ": log is the text before
// (without the newline), tail the rest, unchanged; tail is empty when there is no such line.
func splitErrorSections(text string) (log, tail string) {
	if strings.HasPrefix(text, "### ") {
		return "", text
	}
	if i := strings.Index(text, "\n### "); i >= 0 {
		return text[:i], text[i+1:]
	}
	return text, ""
}

// element is a parsed HTML start tag from a Playwright element preview.
type element struct {
	tag   string
	attrs map[string]string
	order []string
	text  string
	// cut is the attribute whose name or value Playwright's preview cut short ("" when none): its value in
	// attrs is the part kept, without the ellipsis.
	cut string
	// void: the preview is a void tag ("<input …/>"), which has no children and no end tag.
	void bool
}

// ellipsis is the character Playwright's previews end a cut string with (trimStringWithEllipsis, "\u2026").
const ellipsis = "…"

// parseTag parses the start tag at the beginning of s ("<button id=\"go\" …>Go</button> …"), returning the
// element and the text after the start tag.
//
// It reads what Playwright's InjectedScript.previewNode (packages/injected/src/injectedScript.ts,
// https://github.com/microsoft/playwright/blob/main/packages/injected/src/injectedScript.ts) emits: "<tag",
// the attributes (style left out; each ` name="value"`, or ` name` for an empty boolean one; sorted by
// length, shortest first), then "/>" for a void tag, else ">" + text + "</tag>", all through oneLine (newline
// → ↵, tab → ⇆). Values are not escaped. The attribute text as a whole is cut by trimStringWithEllipsis
// (packages/isomorphic/stringUtils.ts: keep cap-1 characters, append "…") at 50 characters in older
// releases and 500 in Playwright 1.64 (so the longest attribute, last, is the one cut): a cut preview reads
// ` class="fixed inset-0 …>` or ` aria-s…>` / ` da…/>`, its quote never closed. So "…>" or "…/>" before
// the closing quote ends the value and the tag; without that rule the open quote would run on into the
// next element (" from <div class=") and the container would be lost.
func parseTag(s string) (el element, rest string, ok bool) {
	if !strings.HasPrefix(s, "<") {
		return el, s, false
	}
	i := 1
	for i < len(s) && isNameByte(s[i]) {
		i++
	}
	if i == 1 {
		return el, s, false
	}
	el.tag = strings.ToLower(s[1:i])
	el.attrs = map[string]string{}
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) || s[i] == '\n' {
			return el, s, false
		}
		if s[i] == '>' {
			i++
			break
		}
		if strings.HasPrefix(s[i:], "/>") {
			i += 2
			el.void = true
			break
		}
		if end, n := cutEnd(s[i:]); end == 0 {
			// The cut fell on the space before a name: " …>".
			i += n
			el.void = strings.HasSuffix(s[:i], "/>")
			break
		}
		j := i
		for j < len(s) && s[j] != '=' && s[j] != '>' && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && !strings.HasPrefix(s[j:], "/>") {
			j++
		}
		if j == i {
			return el, s, false
		}
		name := s[i:j]
		val := ""
		i = j
		cut := false
		if base, found := strings.CutSuffix(name, ellipsis); found && (i >= len(s) || s[i] != '=') {
			name, cut = base, true // a name cut short: " aria-s…>"
		}
		name = strings.ToLower(name)
		if !cut && i < len(s) && s[i] == '=' {
			var ok bool
			if val, i, cut, ok = attrValue(s, i); !ok {
				return el, s, false
			}
		}
		if _, dup := el.attrs[name]; !dup && name != "" {
			el.order = append(el.order, name)
		}
		if name != "" {
			el.attrs[name] = val
		}
		if cut {
			// Playwright cuts the attribute text once, at its end: the tag ends here.
			if name != "" {
				el.cut = name
			}
			if strings.HasPrefix(s[i:], ellipsis) {
				i += len(ellipsis)
			}
			switch {
			case strings.HasPrefix(s[i:], ">"):
				i++
			case strings.HasPrefix(s[i:], "/>"):
				i += 2
				el.void = true
			default:
				return el, s, false
			}
			break
		}
	}
	rest = s[i:]
	if !el.void {
		if k := strings.IndexByte(rest, '<'); k >= 0 {
			el.text = strings.TrimSpace(rest[:k])
		}
	}
	return el, rest, true
}

// attrValue reads the attribute value after the "=" at s[i]: quoted (a value Playwright cut ends at the "…>" or
// "…/>" before its closing quote) or bare (a cut one ends in "…", dropped). It returns the value, the index
// after it, whether it was cut, and ok false for a quote that neither closes nor is cut.
func attrValue(s string, i int) (val string, next int, cut, ok bool) {
	i++
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		q := s[i]
		k := strings.IndexByte(s[i+1:], q)
		if end, _ := cutEnd(s[i+1:]); end >= 0 && (k < 0 || end < k) {
			return s[i+1 : i+1+end], i + 1 + end, true, true
		} else if k < 0 {
			return "", i, false, false
		}
		return s[i+1 : i+1+k], i + k + 2, false, true
	}
	k := i
	for k < len(s) && s[k] != ' ' && s[k] != '>' && s[k] != '\n' && !strings.HasPrefix(s[k:], "/>") {
		k++
	}
	val = s[i:k]
	if base, found := strings.CutSuffix(val, ellipsis); found {
		val, cut = base, true
	}
	return val, k, cut, true
}

// cutEnd returns the index in s of the first "…>" or "…/>" (Playwright's cut attribute text meeting the end
// of its tag) and the length of that marker; -1 when there is none.
func cutEnd(s string) (int, int) {
	a, b := strings.Index(s, ellipsis+">"), strings.Index(s, ellipsis+"/>")
	switch {
	case a < 0 && b < 0:
		return -1, 0
	case b < 0 || a >= 0 && a < b:
		return a, len(ellipsis) + 1
	default:
		return b, len(ellipsis) + 2
	}
}

// afterElement returns the text after the element whose start tag ended where rest begins: past its end tag
// "</tag>" (its preview text never holds one: previewNode shows an element child only as "…"), or rest
// itself for a void tag or when the end tag is missing.
func afterElement(el element, rest string) string {
	if el.void {
		return rest
	}
	if k := strings.Index(rest, "</"+el.tag+">"); k >= 0 {
		return rest[k+len("</"+el.tag+">"):]
	}
	return rest
}

// mayHaveElementChild reports whether the preview leaves room for an element child: previewNode renders
// the text of an element with at most 5 children, all text nodes, and "…" for any other element with
// children; a void tag and "<x></x>" have none.
func (el element) mayHaveElementChild() bool {
	return !el.void && el.text == ellipsis
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':'
}

// descriptorAttrs are the attributes a descriptor shows, in this order.
var descriptorAttrs = []string{"type", "name", "role", "aria-label", "data-testid"}

var cssIdentRE = regexp.MustCompile(`^-?[A-Za-z_][\w-]*$`)

// descriptor renders tag#id.class[type="…"][name="…"][role="…"][aria-label="…"][data-testid="…"] (first class
// only; values shortened to 40 characters). A value Playwright cut short is matched by its prefix
// ([id^="…"], [class^="…"] for a first class cut, [aria-label^="…"]). A bare tag with short text gets
// :has-text("…").
func (el element) descriptor() string {
	var b strings.Builder
	b.WriteString(el.tag)
	if id := el.attrs["id"]; id != "" {
		switch {
		case el.cut == "id":
			fmt.Fprintf(&b, "[id^=%q]", shorten(id, 40))
		case cssIdentRE.MatchString(id):
			b.WriteString("#" + id)
		default:
			fmt.Fprintf(&b, "[id=%q]", shorten(id, 40))
		}
	}
	cv := el.attrs["class"]
	if cls := strings.Fields(cv); len(cls) > 0 {
		if el.cut == "class" && len(cls) == 1 && strings.TrimRight(cv, " \t") == cv {
			fmt.Fprintf(&b, "[class^=%q]", shorten(strings.TrimSpace(cv), 40))
		} else if cssIdentRE.MatchString(cls[0]) {
			b.WriteString("." + cls[0])
		}
	}
	for _, k := range descriptorAttrs {
		if v, ok := el.attrs[k]; ok && v != "" {
			op := "="
			if el.cut == k {
				op = "^="
			}
			fmt.Fprintf(&b, "[%s%s%q]", k, op, shorten(v, 40))
		}
	}
	if b.Len() == len(el.tag) && el.text != "" && el.text != ellipsis && utf8.RuneCountInString(el.text) <= 40 {
		fmt.Fprintf(&b, ":has-text(%q)", el.text)
	}
	return b.String()
}

func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// consentWords mark cookie-consent dialogs by id or class (OneTrust, Didomi, Cookiebot, Usercentrics,
// Quantcast/TCF "cmp", TrustArc, Sourcepoint, Osano, iubenda, CookieYes, Termly …).
var consentWords = []string{"onetrust", "cookie", "consent", "cmp", "didomi", "cookiebot", "usercentrics", "gdpr",
	"truste", "trustarc", "quantcast", "sp_message", "osano", "iubenda", "cookieyes", "termly", "optanon"}

func (el element) consent() bool {
	s := strings.ToLower(el.attrs["id"] + " " + el.attrs["class"])
	for _, w := range consentWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// overlayWords mark an overlay by id or class.
var overlayWords = []string{"overlay", "backdrop", "modal", "dialog", "lightbox", "scrim"}

// overlayName reports whether the element names itself an overlay: an id or class with one of overlayWords,
// role dialog or alertdialog, or aria-modal="true".
func (el element) overlayName() bool {
	if r := strings.ToLower(el.attrs["role"]); r == "dialog" || r == "alertdialog" || el.attrs["aria-modal"] == "true" {
		return true
	}
	s := strings.ToLower(el.attrs["id"] + " " + el.attrs["class"])
	for _, w := range overlayWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
