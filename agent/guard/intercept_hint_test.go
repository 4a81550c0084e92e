package guard

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"webbench/agent"
	"webbench/agent/browser"
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
