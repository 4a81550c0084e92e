package guard

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"webbench/agent"
	"webbench/browser"
)

func newAttempt(t *testing.T) *agent.Attempt {
	t.Helper()
	return agent.NewAttempt(context.Background(), "t1", "goal", nil, time.Now().Add(time.Minute), nil)
}

// resultOf is the ToolResult the loop makes of a tool's result: Raw, and a copy the hooks edit.
func resultOf(r browser.Result) *agent.ToolResult {
	return &agent.ToolResult{Raw: r, Result: r.Clone()}
}

// failed is resultOf for a failed call.
func failed(r browser.Result) *agent.ToolResult { return resultOf(r) }

// textResult is the ToolResult of a result given in its text form (read with browser.ParseResult).
func textResult(text string) *agent.ToolResult { return resultOf(browser.ParseResult(text)) }

const esc = "\x1b"

// consentLog is the seed-000 shape: an ANSI-coloured call log of a click on the Coursera filter button under
// the OneTrust consent filter, with the "<X> from <Y> subtree" form. An earlier retry resolved another element
// and met another blocker: the LAST lines must win.
var consentLog = "TimeoutError: browserBackend.callTool: Timeout 5000ms exceeded.\nCall log:\n" +
	esc + "[2m  - waiting for locator('aria-ref=e312')" + esc + "[22m\n" +
	esc + "[2m    - locator resolved to <div class=\"old-target\">Old</div>" + esc + "[22m\n" +
	esc + "[2m  - attempting click action" + esc + "[22m\n" +
	esc + "[2m    2 × waiting for element to be visible, enabled and stable" + esc + "[22m\n" +
	esc + "[2m      - <div class=\"page-spinner\"></div> intercepts pointer events" + esc + "[22m\n" +
	esc + "[2m    - retrying click action" + esc + "[22m\n" +
	esc + "[2m  - waiting for locator('aria-ref=e312')" + esc + "[22m\n" +
	esc + "[2m    - locator resolved to <button type=\"button\" class=\"css-bnpmeq e1d3ldp0\" data-testid=\"filter-and-sort-button\">Filter &amp; sort</button>" + esc + "[22m\n" +
	strings.Repeat(esc+"[2m    - waiting 500ms"+esc+"[22m\n"+
		esc+"[2m    2 × waiting for element to be visible, enabled and stable"+esc+"[22m\n"+
		esc+"[2m      - element is visible, enabled and stable"+esc+"[22m\n"+
		esc+"[2m      - scrolling into view if needed"+esc+"[22m\n"+
		esc+"[2m      - done scrolling"+esc+"[22m\n"+
		esc+"[2m      - <div class=\"onetrust-pc-dark-filter ot-fade-in\"></div> from <div id=\"onetrust-consent-sdk\" data-nosnippet=\"true\">…</div> subtree intercepts pointer events"+esc+"[22m\n"+
		esc+"[2m    - retrying click action"+esc+"[22m\n", 12) +
	esc + "[2m  - retrying click action (x24)" + esc + "[22m"

func TestInterceptHintConsentDialog(t *testing.T) {
	a := newAttempt(t)
	r := browser.Result{Error: consentLog, URL: "https://www.coursera.org/search?query=python", Title: "Python | Coursera"}
	res := failed(r)
	raw := res.Raw.Format()
	InterceptHint{}.AfterToolCall(a, agent.ToolCall{Name: "browser_click", Args: `{"target":"e312"}`}, res)

	want := "### Error\nClick not delivered: button.css-bnpmeq[type=\"button\"][data-testid=\"filter-and-sort-button\"] " +
		"is covered by div.onetrust-pc-dark-filter (inside div#onetrust-consent-sdk). This is a cookie-consent dialog: " +
		"close it first (prefer 'Reject all' / 'Close'; if its settings panel is open, confirm or close that panel). " +
		"Then retry the action (take a fresh browser_snapshot if the page changed).\n" +
		"### Page\n- Page URL: https://www.coursera.org/search?query=python\n- Page Title: Python | Coursera"
	if res.Result.Format() != want {
		t.Fatalf("text:\n%s\nwant:\n%s", res.Result.Format(), want)
	}
	if res.Raw.Format() != raw {
		t.Fatal("raw text changed")
	}
	if len(raw) < 2000 || len(res.Result.Format()) > 500 {
		t.Fatalf("sizes: before %d after %d", len(raw), len(res.Result.Format()))
	}
	ev := a.Events()
	if len(ev) != 1 || ev[0].Guard != NameInterceptHint || ev[0].Action != "condensed" {
		t.Fatalf("events %+v", ev)
	}
	for _, s := range []string{"bytes_before=" + strconv.Itoa(len(raw)), "bytes_after=" + strconv.Itoa(len(want)), "consent=true",
		"blocker=div.onetrust-pc-dark-filter", "container=div#onetrust-consent-sdk"} {
		if !strings.Contains(ev[0].Detail, s) {
			t.Errorf("event detail %q lacks %q", ev[0].Detail, s)
		}
	}

	// The next successful action records the steps it took to recover.
	a.Step = 3
	InterceptHint{}.AfterToolCall(a, agent.ToolCall{Name: "browser_snapshot"}, textResult("### Result\nok"))
	if n := len(a.Events()); n != 1 {
		t.Fatalf("a snapshot is not an action: %d events", n)
	}
	InterceptHint{}.AfterToolCall(a, agent.ToolCall{Name: "mcp__playwright__browser_click"}, textResult("### Result\nok"))
	ev = a.Events()
	if len(ev) != 2 || ev[1].Action != "recovered" || !strings.HasPrefix(ev[1].Detail, "steps=3 ") {
		t.Fatalf("events %+v", ev)
	}
}

// realLog is the error text Playwright 1.64 produced on this machine for the browser-hello page (a click under
// a OneTrust filter), without ANSI codes.
const realLog = `playwright: timeout: Timeout 1500ms exceeded.
Call log:
  - waiting for locator('aria-ref=e2')
    - locator resolved to <button id="go" onclick="this.textContent='done'">Go</button>
  - attempting click action
    2 × waiting for element to be visible, enabled and stable
      - element is visible, enabled and stable
      - scrolling into view if needed
      - done scrolling
      - <div class="onetrust-pc-dark-filter"></div> from <div id="onetrust-consent-sdk">…</div> subtree intercepts pointer events
    - retrying click action
    - waiting 20ms`

func TestInterceptHintRealLogAndGenericBlocker(t *testing.T) {
	cr, _, ok := CondenseIntercept(browser.Result{Error: realLog})
	got := cr.Format()
	want := "### Error\nClick not delivered: button#go is covered by div.onetrust-pc-dark-filter (inside " +
		"div#onetrust-consent-sdk). This is a cookie-consent dialog: close it first (prefer 'Reject all' / 'Close'; " +
		"if its settings panel is open, confirm or close that panel). Then retry the action (take a fresh " +
		"browser_snapshot if the page changed)."
	if !ok || got != want {
		t.Fatalf("got %v\n%s", ok, got)
	}

	// An icon drawn over its own radio input (Amazon): generic hint, no container.
	log := "Timeout 5000ms exceeded.\nCall log:\n  - locator resolved to <input type=\"radio\" name=\"shipping\" id=\"ship-fast\" value=\"1\">\n" +
		"      - <i class=\"a-icon a-icon-radio\"></i> intercepts pointer events\n    - retrying click action"
	cr, _, ok = CondenseIntercept(browser.Result{Error: log, URL: "u", Title: "t", Events: []string{"[ERROR] x"}})
	got = cr.Format()
	want = "### Error\nClick not delivered: input#ship-fast[type=\"radio\"][name=\"shipping\"] is covered by i.a-icon. " +
		"Dismiss the overlay first (its close button or Escape), or click the control's visible label when an icon " +
		"covers its input. Then retry the action (take a fresh browser_snapshot if the page changed).\n" +
		"### Page\n- Page URL: u\n- Page Title: t\n### Events\n- [ERROR] x"
	if !ok || got != want {
		t.Fatalf("got %v\n%s\nwant\n%s", ok, got, want)
	}

	in, ok := ParseIntercept("- locator resolved to <button>Search</button>\n- <div role=\"dialog\" aria-label=\"Search overlay\" class=\"gb_overlay\">…</div> intercepts pointer events")
	if !ok || in.Target != `button:has-text("Search")` || in.Blocker != `div.gb_overlay[role="dialog"][aria-label="Search overlay"]` || in.Consent {
		t.Fatalf("%+v %v", in, ok)
	}
}

func TestInterceptHintLeavesOtherTextByteIdentical(t *testing.T) {
	cases := map[string]*agent.ToolResult{
		// A plain timeout: no intercepted action.
		"other error": failed(browser.Result{Error: "TimeoutError: locator.click: Timeout 5000ms exceeded.\nCall log:\n" +
			esc + "[2m  - waiting for locator('aria-ref=e9')" + esc + "[22m", URL: "u", Title: "t"}),
		// Mentions the phrase but has no "locator resolved to" line: cannot be parsed.
		"no target": failed(browser.Result{Error: "Call log:\n  - <div class=\"x\"></div> intercepts pointer events", URL: "u"}),
		// The blocker line has no element.
		"no blocker tag": failed(browser.Result{Error: "Call log:\n  - locator resolved to <a href=\"/\">Home</a>\n  - something intercepts pointer events"}),
		// A broken start tag.
		"broken tag": failed(browser.Result{Error: "Call log:\n  - locator resolved to <a href=\"/>Home\n  - <div class=\"x\"></div> intercepts pointer events"}),
		// A successful result whose content quotes the phrase.
		"success": textResult("### Result\n\"- locator resolved to <a> / <div> intercepts pointer events\""),
	}
	for name, res := range cases {
		a := newAttempt(t)
		before := res.Result.Format()
		InterceptHint{}.AfterToolCall(a, agent.ToolCall{Name: "browser_click"}, res)
		if res.Result.Format() != before {
			t.Errorf("%s: text changed:\n%s", name, res.Result.Format())
		}
		if len(a.Events()) != 0 {
			t.Errorf("%s: events %+v", name, a.Events())
		}
	}
}

func TestStripANSI(t *testing.T) {
	if got := StripANSI(esc + "[2m- x" + esc + "[22m \\u001b[31my\\u001b[39m"); got != "- x y" {
		t.Fatalf("%q", got)
	}
}

// realCase is one case of testdata/intercept_real_lines.txt.
type realCase struct {
	name string
	f    map[string]string
	log  string
}

func readRealCases(t *testing.T) []realCase {
	t.Helper()
	b, err := os.ReadFile("testdata/intercept_real_lines.txt")
	if err != nil {
		t.Fatal(err)
	}
	var cases []realCase
	for _, chunk := range strings.Split(string(b), "\n=== ")[1:] {
		head, log, found := strings.Cut(chunk, "\nlog:\n")
		if !found {
			t.Fatalf("case without log: %q", chunk)
		}
		lines := strings.Split(head, "\n")
		c := realCase{name: lines[0], f: map[string]string{}, log: strings.TrimRight(log, "\n")}
		for _, l := range lines[1:] {
			k, v, _ := strings.Cut(l, ":")
			c.f[k] = strings.TrimSpace(v)
		}
		cases = append(cases, c)
	}
	return cases
}

// adviceOf names the hint of a condensed message.
func adviceOf(msg string) string {
	switch {
	case strings.Contains(msg, "This is a cookie-consent dialog"):
		return "consent"
	case strings.Contains(msg, "The log does not say whether"):
		return "unknown"
	case strings.Contains(msg, "Dismiss the overlay first"):
		return "overlay"
	}
	return "?"
}

// Real call-log lines from public issues (testdata/intercept_real_lines.txt, each with its URL): Playwright's
// cut previews (`class="el-cascader…/>`, `aria-s…>`, `aria-label="Block li…>`) keep their container and consent
// detection; a bare blocker with children (Salesforce's flowruntime-screen-field around its radio) is not
// called an overlay.
func TestInterceptHintRealLines(t *testing.T) {
	cases := readRealCases(t)
	if len(cases) < 10 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		if !strings.HasPrefix(c.f["url"], "https://github.com/") {
			t.Errorf("%s: no source url", c.name)
		}
		log := c.log
		if c.f["target"] != "in log" {
			log = c.f["target"] + "\n" + log
		}
		if bl := c.f["blocker-line"]; bl != "" {
			log += "\n" + bl
		}
		in, ok := ParseIntercept(log)
		if !ok {
			t.Errorf("%s: not parsed", c.name)
			continue
		}
		if w := c.f["want-target"]; w != "" && in.Target != w {
			t.Errorf("%s: target %q, want %q", c.name, in.Target, w)
		}
		if in.Blocker != c.f["blocker"] || in.Container != c.f["container"] || in.Consent != (c.f["consent"] == "yes") ||
			string(in.Relation) != c.f["relation"] {
			t.Errorf("%s: got blocker %q container %q consent %v relation %s\nwant blocker %q container %q consent %s relation %s",
				c.name, in.Blocker, in.Container, in.Consent, in.Relation, c.f["blocker"], c.f["container"], c.f["consent"], c.f["relation"])
		}
		if got := adviceOf(in.Message()); got != c.f["advice"] {
			t.Errorf("%s: advice %s, want %s: %s", c.name, got, c.f["advice"], in.Message())
		}
	}
}

// A cut preview's open quote ends at "…>" / "…/>" (Playwright 1.64 cuts at 500 characters, older releases at
// 50): the container after it, and a consent word in it, survive.
func TestInterceptHintCutPreview(t *testing.T) {
	for _, tc := range []struct{ log, blocker, container string }{
		{`- <div class="fixed inset-0 bg-black/30 transition-opacity data-[closed…>…</div> from <div id="headlessui-portal-root">…</div> subtree intercepts pointer events`,
			`div.fixed`, `div#headlessui-portal-root`},
		{`- <div class="components-modal__screen-overlay…>…</div> from <div id="onetrust-consent-sdk">…</div> subtree intercepts pointer events`,
			`div[class^="components-modal__screen-overlay"]`, `div#onetrust-consent-sdk`},
		{`- <div tabindex="-1" class="components-modal__screen-overlay">…</div> from <div class="cookie-notice-c…>…</div> subtree intercepts pointer events`,
			`div.components-modal__screen-overlay`, `div[class^="cookie-notice-c"]`},
		{`- <span class="…>…</span> from <div id="x">…</div> subtree intercepts pointer events`, `span`, `div#x`},
		{`- <img alt="" src="data:image/png;base64,iVBO…/> from <div role="dialog" aria-label="Sign in wi…>…</div> subtree intercepts pointer events`,
			`img`, `div[role="dialog"][aria-label^="Sign in wi"]`},
	} {
		in, ok := ParseIntercept("- locator resolved to <button>Go</button>\n" + tc.log)
		if !ok || in.Blocker != tc.blocker || in.Container != tc.container || in.Relation != RelationOverlay {
			t.Errorf("%s:\n%+v %v", tc.log, in, ok)
		}
		if want := strings.Contains(tc.log, "onetrust") || strings.Contains(tc.log, "cookie"); in.Consent != want {
			t.Errorf("%s: consent %v", tc.log, in.Consent)
		}
	}
	// A "from" clause that does not end in "subtree intercepts pointer events" is not a container: unparsed.
	if in, ok := ParseIntercept("- locator resolved to <button>Go</button>\n- <div class=\"a…>…</div> from <div id=\"x\"> intercepts pointer events"); ok {
		t.Errorf("parsed %+v", in)
	}
	// The target line's other forms.
	for _, line := range []string{
		`- locator resolved to visible <button id="go">Go</button>`,
		`- locator resolved to 2 elements. Proceeding with the first one: <button id="go">Go</button>`,
	} {
		if in, ok := ParseIntercept(line + "\n- <div></div> intercepts pointer events"); !ok || in.Target != "button#go" {
			t.Errorf("%s: %+v %v", line, in, ok)
		}
	}
}

// The relation a bare blocker gets: no element child → overlay (it cannot contain the target); children and
// an overlay name → overlay by name; children and no such name → unknown, and the message says the log
// cannot tell (it does not tell the model to dismiss an overlay).
func TestInterceptHintRelation(t *testing.T) {
	for _, tc := range []struct {
		blocker string
		want    Relation
	}{
		{`<div class="x"></div>`, RelationOverlay},
		{`<span class="x">Pay now</span>`, RelationOverlay},
		{`<img src="a.png"/>`, RelationOverlay},
		{`<div class="subheading">…</div>`, RelationUnknown},
		{`<div id="zoo-geo-redirect" class="zoo-geo-backdrop">…</div>`, RelationOverlayByName},
		{`<div role="dialog">…</div>`, RelationOverlayByName},
		{`<div aria-modal="true">…</div>`, RelationOverlayByName},
		{`<div id="cookie-banner">…</div>`, RelationOverlayByName},
	} {
		in, ok := ParseIntercept("- locator resolved to <input id=\"q\"/>\n- " + tc.blocker + " intercepts pointer events")
		if !ok || in.Relation != tc.want {
			t.Errorf("%s: %+v %v", tc.blocker, in, ok)
		}
	}
	in, _ := ParseIntercept("- locator resolved to <input id=\"q\"/>\n- <div class=\"subheading\">…</div> intercepts pointer events")
	want := "Click not delivered: input#q is covered by div.subheading. The log does not say whether div.subheading is " +
		"an overlay or a wrapper that contains the element: if an overlay or dialog is open, dismiss it first (its " +
		"close button or Escape); if nothing covers the page, click the element's visible label or text instead. " +
		"Then retry the action (take a fresh browser_snapshot if the page changed)."
	if got := in.Message(); got != want {
		t.Fatalf("%s\nwant\n%s", got, want)
	}
}

// Sections the error text carries after its call log (Playwright MCP's "### Ran Playwright code") are kept
// byte-identical after the condensed message; so are the result's own unknown sections (Notes).
func TestInterceptHintKeepsUnknownSections(t *testing.T) {
	code := "### Ran Playwright code\n```js\nawait page.getByRole('button', { name: 'Go' }).click();\n```\n\n### Odd\n  kept  as is \n"
	r := browser.Result{Error: "TimeoutError: Timeout 5000ms exceeded.\nCall log:\n  - locator resolved to <button id=\"go\">Go</button>\n" +
		"  - <div class=\"x\"></div> intercepts pointer events\n" + code, URL: "u"}
	out, _, ok := CondenseIntercept(r)
	if !ok || !strings.HasSuffix(out.Error, "\n"+code) || !strings.HasPrefix(out.Error, InterceptHintPrefix) {
		t.Fatalf("%v\n%q", ok, out.Error)
	}
	// The phrase only in a later section: nothing to condense.
	r = browser.Result{Error: "Error: boom\n### Ran Playwright code\n// <div></div> intercepts pointer events"}
	if out, _, ok := CondenseIntercept(r); ok || out.Error != r.Error {
		t.Fatalf("condensed %q", out.Error)
	}

	text := "### Error\nCall log:\n  - locator resolved to <button id=\"go\">Go</button>\n  - <div class=\"x\"></div> intercepts pointer events\n" +
		"### Page\n- Page URL: u\n- Page Title: t\n### Ran Playwright code\n```js\nawait page.click('#go');\n```"
	res := textResult(text)
	InterceptHint{}.AfterToolCall(newAttempt(t), agent.ToolCall{Name: "browser_click"}, res)
	if got := res.Result.Format(); !strings.HasSuffix(got, "\n### Ran Playwright code\n```js\nawait page.click('#go');\n```") ||
		!strings.HasPrefix(got, "### Error\n"+InterceptHintPrefix) {
		t.Fatalf("%s", got)
	}
}
