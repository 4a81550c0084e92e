package guard

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"webbench/agent"
	"webbench/agent/browser"
)

// InterceptHint condenses Playwright's "intercepts pointer events" call log into a short error that names the
// target, the blocker and its container, with one hint (GUARDS.md §1, seed 000). It rewrites only the Error of
// a failed action's model-facing result; every other field is kept, and any result it cannot parse is left as
// it is. Events: "condensed" (bytes before/after, target, blocker, container)
// and "recovered" (steps from the condensed failure to the next successful action).
type InterceptHint struct{}

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
	a.Event(NameInterceptHint, "condensed", fmt.Sprintf("bytes_before=%d bytes_after=%d tool=%s target=%s blocker=%s container=%s consent=%t",
		before, len(res.Result.Format()), tool, in.Target, in.Blocker, in.Container, in.Consent))
}

// Intercept is a parsed "intercepts pointer events" failure.
type Intercept struct {
	// Target, Blocker and Container are CSS-like descriptors (tag#id.class[attr="v"]); Container is empty
	// when the log names none.
	Target, Blocker, Container string
	// Consent reports whether the blocker or container looks like a cookie-consent dialog.
	Consent bool
}

// ParseIntercept parses a Playwright call log (ANSI codes allowed): the target from the last
// "locator resolved to <…>" line and the blocker (and container, for "<X> from <Y> subtree intercepts pointer
// events") from the last line mentioning "intercepts pointer events". ok is false when the text does not
// mention an intercepted action or either element cannot be parsed.
func ParseIntercept(log string) (in Intercept, ok bool) {
	clean := StripANSI(log)
	if !strings.Contains(clean, agent.InterceptPhrase) {
		return in, false
	}
	var targetLine, blockLine string
	for _, line := range strings.Split(clean, "\n") {
		if i := strings.Index(line, "locator resolved to <"); i >= 0 {
			targetLine = line[i+len("locator resolved to "):]
		}
		if strings.Contains(line, agent.InterceptPhrase) {
			blockLine = line
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
	if strings.Contains(rest, "subtree "+agent.InterceptPhrase) {
		if j := strings.Index(rest, " from <"); j >= 0 {
			container, _, ok := parseTag(rest[j+len(" from "):])
			if !ok {
				return Intercept{}, false
			}
			in.Container = container.descriptor()
			in.Consent = in.Consent || container.consent()
		}
	}
	return in, true
}

// Texts of the condensed error that the scripted policy recognises (it plays a model that reads them).
const (
	// InterceptHintPrefix starts every condensed error.
	InterceptHintPrefix = "Click not delivered:"
	// InterceptCoveredBy separates the target from the blocker.
	InterceptCoveredBy = " is covered by "
)

// Message is the condensed model-facing error: InterceptHintPrefix, the target, InterceptCoveredBy, the blocker
// (and its container), then the hint.
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
	if in.Consent {
		b.WriteString("This is a cookie-consent dialog: close it first (prefer 'Reject all' / 'Close'; if its " +
			"settings panel is open, confirm or close that panel).")
	} else {
		b.WriteString("Dismiss the overlay first (its close button or Escape), or click the control's visible " +
			"label when an icon covers its input.")
	}
	b.WriteString(" Then retry the action (take a fresh browser_snapshot if the page changed).")
	return b.String()
}

// CondenseIntercept returns r with its Error replaced by Intercept.Message() when the error is an intercepted
// action, and the parsed intercept; the other fields are kept. ok is false (and r is returned as it is) when
// there is nothing to condense or the log cannot be parsed.
func CondenseIntercept(r browser.Result) (browser.Result, Intercept, bool) {
	in, ok := ParseIntercept(r.Error)
	if !ok {
		return r, in, false
	}
	r.Error = in.Message()
	return r, in, true
}

// element is a parsed HTML start tag from a Playwright element preview.
type element struct {
	tag   string
	attrs map[string]string
	order []string
	text  string
}

// parseTag parses the start tag at the beginning of s ("<button id=\"go\" …>Go</button> …"), returning the
// element and the text after the start tag.
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
			break
		}
		j := i
		for j < len(s) && s[j] != '=' && s[j] != '>' && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && !strings.HasPrefix(s[j:], "/>") {
			j++
		}
		if j == i {
			return el, s, false
		}
		name := strings.ToLower(s[i:j])
		val := ""
		i = j
		if i < len(s) && s[i] == '=' {
			i++
			if i < len(s) && (s[i] == '"' || s[i] == '\'') {
				q := s[i]
				k := strings.IndexByte(s[i+1:], q)
				if k < 0 {
					return el, s, false
				}
				val = s[i+1 : i+1+k]
				i += k + 2
			} else {
				k := i
				for k < len(s) && s[k] != ' ' && s[k] != '>' && s[k] != '\n' {
					k++
				}
				val = s[i:k]
				i = k
			}
		}
		if _, dup := el.attrs[name]; !dup {
			el.order = append(el.order, name)
		}
		el.attrs[name] = val
	}
	rest = s[i:]
	if k := strings.IndexByte(rest, '<'); k >= 0 {
		el.text = strings.TrimSpace(rest[:k])
	}
	return el, rest, true
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':'
}

// descriptorAttrs are the attributes a descriptor shows, in this order.
var descriptorAttrs = []string{"type", "name", "role", "aria-label", "data-testid"}

var cssIdentRE = regexp.MustCompile(`^-?[A-Za-z_][\w-]*$`)

// descriptor renders tag#id.class[type="…"][name="…"][role="…"][aria-label="…"][data-testid="…"] (first class
// only; values shortened to 40 characters). A bare tag with short text gets :has-text("…").
func (el element) descriptor() string {
	var b strings.Builder
	b.WriteString(el.tag)
	if id := el.attrs["id"]; id != "" {
		if cssIdentRE.MatchString(id) {
			b.WriteString("#" + id)
		} else {
			fmt.Fprintf(&b, "[id=%q]", shorten(id, 40))
		}
	}
	if cls := strings.Fields(el.attrs["class"]); len(cls) > 0 {
		if cssIdentRE.MatchString(cls[0]) {
			b.WriteString("." + cls[0])
		}
	}
	for _, k := range descriptorAttrs {
		if v, ok := el.attrs[k]; ok && v != "" {
			fmt.Fprintf(&b, "[%s=%q]", k, shorten(v, 40))
		}
	}
	if b.Len() == len(el.tag) && el.text != "" && el.text != "…" && utf8.RuneCountInString(el.text) <= 40 {
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
