package browser

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// One driver and one browser for the whole package (TestMain); each test opens its own session.
var (
	testDriver  *Driver
	testBrowser *Browser
	testServer  *httptest.Server
	blockedHits atomic.Int64
	ticks       atomic.Int64 // requests of /tick
)

const homePage = `<!doctype html><html><head><title>Home</title></head><body>
<h1>Test page</h1>
<a href="/next">Next page</a>
<a href="/popup" target="_blank">Open popup</a>
<form id="f" onsubmit="event.preventDefault(); document.getElementById('out').textContent='submitted:'+document.getElementById('q').value">
  <label for="q">Query</label><input id="q" name="q">
  <label for="color">Color</label><select id="color"><option value="r">Red</option><option value="g">Green</option></select>
  <label><input type="checkbox" id="agree"> Agree</label>
  <button type="submit">Search</button>
</form>
<p id="out">idle</p>
<button id="hov" onmouseenter="document.getElementById('out').textContent='hovered'">Hover me</button>
<button id="rerender" onclick="rerender()">Rerender</button>
<button id="counter" onclick="this.textContent='Clicked '+(++n)">Count</button>
<button id="dlg" onclick="alert('hello there'); console.error('oops from page')">Alert</button>
<button id="covered" style="position:absolute;top:420px;left:20px">Covered</button>
<div id="onetrust-consent-sdk"><div class="onetrust-pc-dark-filter"
  style="position:fixed;top:400px;left:0;width:100%;height:100px;background:#0004;z-index:9"></div></div>
<script>
let n = 0;
function rerender() { const b = document.getElementById('rerender'); const c = b.cloneNode(true); c.textContent = 'Rerendered'; b.replaceWith(c); }
setTimeout(() => { const p = document.createElement('p'); p.textContent = 'Late text'; document.body.append(p); }, 400);
</script>
</body></html>`

// settlePage has one control per kind of work settle waits for: a render in the next animation frame after a
// click, a chain of two requests (the second starts when the first's body is read, then the page renders), a tab
// opened by window.open from a timer after the click, and a text box whose input handler renders in the next
// animation frame.
const settlePage = `<!doctype html><html><head><title>Settle</title></head><body>
<button onclick="requestAnimationFrame(() => { document.getElementById('out').textContent = 'rendered in a frame'; })">Frame</button>
<button onclick="fetch('/api/a').then(r => r.text()).then(a => fetch('/api/b').then(r => r.text()).then(b => { document.getElementById('out').textContent = 'chain ' + a + b; }))">Chain</button>
<button onclick="setTimeout(() => window.open('/popup'), 0)">Open tab</button>
<input aria-label="Name" oninput="const v = this.value; requestAnimationFrame(() => { document.getElementById('typed').textContent = 'typed ' + v; })">
<p id="out">idle</p><p id="typed">none</p>
</body></html>`

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	testServer = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch {
		case r.URL.Path == "/":
			fmt.Fprint(w, homePage)
		case r.URL.Path == "/next":
			fmt.Fprint(w, `<!doctype html><title>Next</title><h1>Second page</h1><a href="/">Home</a>`)
		case r.URL.Path == "/popup":
			fmt.Fprint(w, `<!doctype html><title>Popup</title><h1>Popup page</h1>`)
		case r.URL.Path == "/settle":
			fmt.Fprint(w, settlePage)
		case r.URL.Path == "/api/a" || r.URL.Path == "/api/b":
			fmt.Fprint(w, r.URL.Path[len("/api/"):])
		case r.URL.Path == "/embeds":
			fmt.Fprint(w, `<!doctype html><title>Embeds</title><img src="/blocked/pixel.png"><p>ok</p>`)
		case r.URL.Path == "/tick": // the Zoo's api/busy-tick: 204 after 100 ms
			ticks.Add(1)
			time.Sleep(100 * time.Millisecond)
			w.WriteHeader(http.StatusNoContent)
		case strings.HasPrefix(r.URL.Path, "/blocked"):
			blockedHits.Add(1)
			fmt.Fprint(w, `<!doctype html><title>Blocked</title>secret`)
		default:
			http.NotFound(w, r)
		}
	}))
	var err error
	testDriver, err = StartDriver(DriverOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testBrowser, err = testDriver.Launch(LaunchOptions{Headless: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = testDriver.Stop()
		os.Exit(1)
	}
	code := m.Run()
	_ = testBrowser.Close()
	_ = testDriver.Stop()
	testServer.Close()
	os.Exit(code)
}

// newSession opens a session on the home page and takes the first snapshot.
func newSession(t *testing.T, o SessionOptions) (*Session, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test (needs Chromium)")
	}
	s, err := testBrowser.NewSession(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Navigate(testServer.URL + "/"); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Observe(false)
	if err != nil {
		t.Fatal(err)
	}
	return s, snap
}

// refOf returns the ref on the first snapshot line that contains all of parts.
func refOf(t *testing.T, snap string, parts ...string) string {
	t.Helper()
lines:
	for _, l := range strings.Split(snap, "\n") {
		for _, p := range parts {
			if !strings.Contains(l, p) {
				continue lines
			}
		}
		if m := RefPattern.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	t.Fatalf("no ref for %q in snapshot:\n%s", parts, snap)
	return ""
}

func call(t *testing.T, s *Session, tool ToolName, args any) Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return s.Call(context.Background(), string(tool), raw)
}

func mustOK(t *testing.T, r Result) Result {
	t.Helper()
	if r.IsError() {
		t.Fatalf("unexpected error:\n%s", r.Error)
	}
	return r
}

func eval(t *testing.T, s *Session, fn string) string {
	t.Helper()
	return mustOK(t, call(t, s, ToolEvaluate, map[string]any{"function": fn})).Result
}

func TestNavigateSnapshotBack(t *testing.T) {
	s, snap := newSession(t, SessionOptions{})
	if !strings.Contains(snap, `link "Next page"`) || !strings.Contains(snap, `[ref=`) {
		t.Fatalf("first snapshot lacks the link:\n%s", snap)
	}
	r := mustOK(t, call(t, s, ToolNavigate, map[string]any{"url": testServer.URL + "/next"}))
	if r.URL != testServer.URL+"/next" || r.Title != "Next" || !strings.Contains(r.Snapshot.YAML, "Second page") {
		t.Fatalf("navigate result: %+v", r)
	}
	r = mustOK(t, call(t, s, ToolNavigateBack, map[string]any{}))
	if r.URL != testServer.URL+"/" || r.Title != "Home" || !strings.Contains(r.Snapshot.YAML, "Test page") {
		t.Fatalf("navigate_back result: %+v", r)
	}
	// browser_snapshot with and without boxes; MCP-prefixed name.
	r = mustOK(t, s.Call(context.Background(), "mcp__playwright__browser_snapshot", nil))
	if !strings.Contains(r.Snapshot.YAML, `button "Count"`) || strings.Contains(r.Snapshot.YAML, "[box=") || r.Title != "Home" {
		t.Fatalf("snapshot result: %+v", r)
	}
	r = mustOK(t, call(t, s, ToolSnapshot, map[string]any{"boxes": true}))
	if !regexp.MustCompile(`button "Count" \[ref=(?:f\d+)?e\d+\].*\[box=\d+,\d+,\d+,\d+\]`).MatchString(r.Snapshot.YAML) {
		t.Fatalf("boxes snapshot lacks a box on the button:\n%s", r.Snapshot.YAML)
	}
}

func TestClickLinkAndCounter(t *testing.T) {
	s, snap := newSession(t, SessionOptions{})
	r := mustOK(t, call(t, s, ToolClick, map[string]any{"target": refOf(t, snap, `button "Count"`), "element": "Count button"}))
	if !strings.Contains(r.Snapshot.YAML, `button "Clicked 1"`) {
		t.Fatalf("click did not register:\n%s", r.Snapshot.YAML)
	}
	r = mustOK(t, call(t, s, ToolClick, map[string]any{"target": refOf(t, r.Snapshot.YAML, `button "Clicked 1"`),
		"doubleClick": true}))
	if !strings.Contains(r.Snapshot.YAML, `button "Clicked 3"`) {
		t.Fatalf("double click did not register twice:\n%s", r.Snapshot.YAML)
	}
	// A click that navigates: the result is the new page, settled.
	r = mustOK(t, call(t, s, ToolClick, map[string]any{"target": "[ref=" + refOf(t, r.Snapshot.YAML, `link "Next page"`) + "]"}))
	if r.URL != testServer.URL+"/next" || r.Title != "Next" || !strings.Contains(r.Snapshot.YAML, "Second page") {
		t.Fatalf("link click result: %+v", r)
	}
}

func TestFormTools(t *testing.T) {
	s, snap := newSession(t, SessionOptions{})
	q := refOf(t, snap, `textbox "Query"`)
	r := mustOK(t, call(t, s, ToolType, map[string]any{"target": q, "text": "hello", "submit": true}))
	if !strings.Contains(r.Snapshot.YAML, "submitted:hello") {
		t.Fatalf("type+submit did not submit:\n%s", r.Snapshot.YAML)
	}
	r = mustOK(t, call(t, s, ToolType, map[string]any{"target": refOf(t, r.Snapshot.YAML, `textbox "Query"`), "text": "abc"}))
	if strings.Contains(r.Snapshot.YAML, "submitted:abc") {
		t.Fatal("type without submit submitted")
	}
	r = mustOK(t, call(t, s, ToolPressKey, map[string]any{"key": "Enter"}))
	if !strings.Contains(r.Snapshot.YAML, "submitted:abc") {
		t.Fatalf("press_key Enter did not submit:\n%s", r.Snapshot.YAML)
	}
	r = mustOK(t, call(t, s, ToolSelectOption, map[string]any{"target": refOf(t, r.Snapshot.YAML, `combobox "Color"`),
		"values": []string{"Green"}}))
	if got := eval(t, s, "() => document.getElementById('color').value"); got != `"g"` {
		t.Fatalf("select_option by label: value %s", got)
	}
	// fill_form: type given for the textbox, inferred (checkbox, combobox) from the snapshot for the others.
	r = mustOK(t, call(t, s, ToolFillForm, map[string]any{"fields": []map[string]any{
		{"target": refOf(t, r.Snapshot.YAML, `textbox "Query"`), "name": "Query", "type": "textbox", "value": "filled"},
		{"target": refOf(t, r.Snapshot.YAML, `checkbox "Agree"`), "name": "Agree", "value": true},
		{"target": refOf(t, r.Snapshot.YAML, `combobox "Color"`), "name": "Color", "value": "Red"},
	}}))
	got := eval(t, s, "() => [document.getElementById('q').value, document.getElementById('agree').checked, document.getElementById('color').value]")
	if want := "[\n  \"filled\",\n  true,\n  \"r\"\n]"; got != want {
		t.Fatalf("fill_form state = %s, want %s", got, want)
	}
	if !strings.Contains(r.Snapshot.YAML, `checkbox "Agree" [checked]`) {
		t.Fatalf("fill_form snapshot does not show the checked box:\n%s", r.Snapshot.YAML)
	}
	r = mustOK(t, call(t, s, ToolHover, map[string]any{"target": refOf(t, r.Snapshot.YAML, `button "Hover me"`)}))
	if !strings.Contains(r.Snapshot.YAML, "hovered") {
		t.Fatalf("hover did not fire mouseenter:\n%s", r.Snapshot.YAML)
	}
}

func TestReadingTools(t *testing.T) {
	s, snap := newSession(t, SessionOptions{KeepScreenshots: 4})
	r := mustOK(t, call(t, s, ToolEvaluate, map[string]any{"function": "() => ({title: document.title, n: 1 + 2, tag: '<b>'})"}))
	if want := "{\n  \"n\": 3,\n  \"tag\": \"<b>\",\n  \"title\": \"Home\"\n}"; r.Result != want || r.Snapshot.YAML != "" || r.Title != "Home" {
		t.Fatalf("evaluate = %+v, want Result %q", r, want)
	}
	r = mustOK(t, call(t, s, ToolEvaluate, map[string]any{"function": "(el) => el.id", "target": refOf(t, snap, `button "Count"`)}))
	if r.Result != `"counter"` {
		t.Fatalf("evaluate on element = %q", r.Result)
	}
	if got := eval(t, s, "() => { document.title; }"); got != "undefined" {
		t.Fatalf("evaluate undefined = %q", got)
	}
	r = call(t, s, ToolEvaluate, map[string]any{"function": "() => { throw new Error('boom') }"})
	if !strings.Contains(r.Error, "boom") {
		t.Fatalf("evaluate error = %+v", r)
	}
	start := time.Now()
	r = mustOK(t, call(t, s, ToolWaitFor, map[string]any{"text": "Late text"}))
	if r.Result != "Waited for Late text" || r.Snapshot.YAML != "" {
		t.Fatalf("wait_for text: %+v", r)
	}
	r = mustOK(t, call(t, s, ToolWaitFor, map[string]any{"textGone": "Never on the page"}))
	if r.Result != "Waited for Never on the page" {
		t.Fatalf("wait_for textGone: %+v", r)
	}
	r = mustOK(t, call(t, s, ToolWaitFor, map[string]any{"time": 0.3}))
	if r.Result != "Waited for 0.3" {
		t.Fatalf("wait_for time: %+v", r)
	}
	if el := time.Since(start); el < 300*time.Millisecond || el > 4*time.Second {
		t.Fatalf("wait_for took %v", el)
	}
	if r := call(t, s, ToolWaitFor, map[string]any{}); r.Error != "Either time, text or textGone must be provided" {
		t.Fatalf("wait_for without args: %+v", r)
	}
	r = mustOK(t, call(t, s, ToolTakeScreenshot, map[string]any{}))
	if !bytes.HasPrefix(r.Image, []byte("\x89PNG\r\n\x1a\n")) || r.Result == "" {
		t.Fatalf("screenshot: result %q, %d image bytes", r.Result, len(r.Image))
	}
	if n := len(s.Screenshots()); n != 1 {
		t.Fatalf("kept %d screenshots after one, want 1", n)
	}
	// The tool's screenshot belongs to no step until the capture after its step tags it.
	if got := s.ScreenshotSteps(); !slices.Equal(got, []int{-1}) {
		t.Fatalf("steps of the tool's screenshot before any capture: %v, want [-1]", got)
	}
	var last []byte
	for i := 0; i < 5; i++ {
		mustOK(t, call(t, s, ToolClick, map[string]any{"target": refOf(t, mustOK(t, call(t, s, ToolSnapshot, nil)).Snapshot.YAML, `button "C`)}))
		if err := s.CaptureForJudge(i + 10); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if got := s.ScreenshotSteps(); !slices.Equal(got, []int{10, 10}) {
				t.Fatalf("steps after the first capture: %v, want [10 10] (the tool's screenshot taken during step 10)", got)
			}
		}
		last = s.Screenshots()[len(s.Screenshots())-1]
	}
	shots := s.Screenshots()
	if len(shots) != 4 || !bytes.Equal(shots[3], last) || bytes.Equal(shots[0], shots[3]) {
		t.Fatalf("kept %d screenshots, want the last 4 (distinct first/last)", len(shots))
	}
	if got := s.ScreenshotSteps(); !slices.Equal(got, []int{11, 12, 13, 14}) {
		t.Fatalf("steps of the kept screenshots: %v, want [11 12 13 14]", got)
	}
}

func TestStaleRefsFailFast(t *testing.T) {
	// A 20 s action timeout: a ref that reached Playwright would wait all of it (GetByRef does not fail fast),
	// so a 3 s bound tells the fast path from the timeout even on a loaded machine.
	s, snap := newSession(t, SessionOptions{ActionTimeout: 20 * time.Second})
	for _, target := range []string{"e999", "f7e3", "not a ref"} {
		start := time.Now()
		r := call(t, s, ToolClick, map[string]any{"target": target})
		if el := time.Since(start); el > 3*time.Second {
			t.Fatalf("unknown ref %q took %v", target, el)
		}
		if want := StaleRefMessage(target); r.Error != want {
			t.Fatalf("unknown ref %q: error %q, want %q", target, r.Error, want)
		}
	}
	old := refOf(t, snap, `button "Rerender"`)
	// Re-render through evaluate (a reading tool: the ref set stays that of the snapshot above).
	eval(t, s, "() => rerender()")
	for _, tool := range []ToolName{ToolClick, ToolHover, ToolEvaluate} {
		start := time.Now()
		r := call(t, s, tool, map[string]any{"target": old, "function": "(e) => e.id"})
		if el := time.Since(start); el > 3*time.Second {
			t.Fatalf("%s on a gone node took %v", tool, el)
		}
		if r.Error != StaleRefMessage(old) || !strings.Contains(r.Error, StaleRefPhrase) {
			t.Fatalf("%s on a gone node: %q", tool, r.Error)
		}
	}
	if _, err := s.Locator(old); err == nil || err.Error() != StaleRefMessage(old) {
		t.Fatalf("Locator(gone) err = %v", err)
	}
	loc, err := s.Locator(refOf(t, snap, `button "Count"`))
	if err != nil {
		t.Fatal(err)
	}
	if id, err := loc.GetAttribute("id"); err != nil || id != "counter" {
		t.Fatalf("Locator resolves to id %q, %v", id, err)
	}
	// A fresh snapshot has the re-rendered button under a new ref, and it works.
	snap = mustOK(t, call(t, s, ToolSnapshot, nil)).Snapshot.YAML
	nr := refOf(t, snap, `button "Rerendered"`)
	if nr == old {
		t.Fatalf("re-rendered node kept ref %s", old)
	}
	mustOK(t, call(t, s, ToolClick, map[string]any{"target": nr}))
}

func TestCoveredClickError(t *testing.T) {
	s, snap := newSession(t, SessionOptions{ActionTimeout: 1500 * time.Millisecond})
	start := time.Now()
	r := call(t, s, ToolClick, map[string]any{"target": refOf(t, snap, `button "Covered"`)})
	el := time.Since(start)
	for _, want := range []string{"Timeout 1500ms exceeded", "locator resolved to", "intercepts pointer events",
		"onetrust"} {
		if !strings.Contains(r.Error, want) {
			t.Fatalf("covered click error lacks %q:\n%s", want, r.Error)
		}
	}
	if el < 1400*time.Millisecond || el > 5*time.Second || r.Snapshot.YAML != "" {
		t.Fatalf("covered click took %v, snapshot %q", el, r.Snapshot.YAML)
	}
	f := r.Format()
	if !strings.HasPrefix(f, "### Error\n"+r.Error+"\n### Page\n- Page URL: "+testServer.URL+"/\n- Page Title: Home") {
		t.Fatalf("error Format:\n%s", f)
	}
}

func TestMouseClickXY(t *testing.T) {
	s, _ := newSession(t, SessionOptions{})
	snap := mustOK(t, call(t, s, ToolSnapshot, map[string]any{"boxes": true})).Snapshot.YAML
	m := regexp.MustCompile(`button "Count" .*\[box=(\d+),(\d+),(\d+),(\d+)\]`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no box for Count:\n%s", snap)
	}
	n := make([]float64, 4)
	for i := range n {
		n[i], _ = strconv.ParseFloat(m[i+1], 64)
	}
	r := mustOK(t, call(t, s, ToolMouseClickXY, map[string]any{"x": n[0] + n[2]/2, "y": n[1] + n[3]/2}))
	if !strings.Contains(r.Snapshot.YAML, `button "Clicked 1"`) {
		t.Fatalf("xy click missed the button:\n%s", r.Snapshot.YAML)
	}
	if r := call(t, s, ToolMouseClickXY, map[string]any{"x": 1}); !strings.Contains(r.Error, `"y" is required`) {
		t.Fatalf("missing y: %+v", r)
	}
}

func TestEventsDialogConsolePopup(t *testing.T) {
	s, snap := newSession(t, SessionOptions{})
	r := mustOK(t, call(t, s, ToolClick, map[string]any{"target": refOf(t, snap, `button "Alert"`)}))
	ev := strings.Join(r.Events, "\n")
	if !strings.Contains(ev, `Dialog (alert) "hello there" was dismissed`) || !strings.Contains(ev, "[ERROR] oops from page") {
		t.Fatalf("events = %q", r.Events)
	}
	// Events are reported once.
	if r := mustOK(t, call(t, s, ToolSnapshot, nil)); len(r.Events) != 0 {
		t.Fatalf("events repeated: %q", r.Events)
	}
	f := r.Format()
	if !strings.Contains(f, "\n### Snapshot\n```yaml\n- ") || !strings.HasSuffix(f, "### Events\n- "+strings.Join(r.Events, "\n- ")) ||
		!strings.HasPrefix(f, "### Page\n- Page URL: "+testServer.URL+"/\n- Page Title: Home\n### Snapshot\n") {
		t.Fatalf("Format layout:\n%s", f)
	}
	// A link opening a new tab: the tab becomes the current page.
	r = mustOK(t, call(t, s, ToolClick, map[string]any{"target": refOf(t, snap, `link "Open popup"`)}))
	if r.URL != testServer.URL+"/popup" || r.Title != "Popup" || !strings.Contains(r.Snapshot.YAML, "Popup page") {
		t.Fatalf("popup result: %+v", r)
	}
}

func TestAllowedBlocksRequests(t *testing.T) {
	var asked atomic.Int64
	s, _ := newSession(t, SessionOptions{Allowed: func(u string) bool {
		asked.Add(1)
		return !strings.Contains(u, "/blocked")
	}})
	before := blockedHits.Load()
	r := call(t, s, ToolNavigate, map[string]any{"url": testServer.URL + "/blocked/page"})
	if !strings.Contains(r.Error, "net::ERR_BLOCKED_BY_CLIENT") {
		t.Fatalf("blocked navigation: %+v", r)
	}
	mustOK(t, call(t, s, ToolNavigate, map[string]any{"url": testServer.URL + "/embeds"}))
	if blockedHits.Load() != before {
		t.Fatalf("blocked URLs reached the server %d times", blockedHits.Load()-before)
	}
	if asked.Load() < 3 {
		t.Fatalf("Allowed asked %d times", asked.Load())
	}
	// Without Allowed the same URL loads.
	s2, _ := newSession(t, SessionOptions{})
	mustOK(t, call(t, s2, ToolNavigate, map[string]any{"url": testServer.URL + "/blocked/page"}))
	if blockedHits.Load() == before {
		t.Fatal("unrestricted session did not reach the server")
	}
}

// TestAskOnlyLimitsRouting checks that with AskOnly only the requests whose URL it matches reach Allowed (the
// driver matches the pattern, written here with a character class as JavaScript reads it) and that a refused one
// among them is still blocked.
func TestAskOnlyLimitsRouting(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	s, _ := newSession(t, SessionOptions{Allowed: func(u string) bool {
		mu.Lock()
		asked = append(asked, u)
		mu.Unlock()
		return !strings.Contains(u, "/blocked")
	}, AskOnly: regexp.MustCompile(`^[^?]*/blocked/`)})
	before := blockedHits.Load()
	mustOK(t, call(t, s, ToolNavigate, map[string]any{"url": testServer.URL + "/embeds"}))
	r := call(t, s, ToolNavigate, map[string]any{"url": testServer.URL + "/blocked/page"})
	if !strings.Contains(r.Error, "net::ERR_BLOCKED_BY_CLIENT") {
		t.Fatalf("blocked navigation: %+v", r)
	}
	if blockedHits.Load() != before {
		t.Fatalf("blocked URLs reached the server %d times", blockedHits.Load()-before)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{testServer.URL + "/blocked/pixel.png", testServer.URL + "/blocked/page"}
	if !slices.Equal(asked, want) {
		t.Fatalf("Allowed asked about %q, want %q", asked, want)
	}
}

func TestCallCancelAndErrors(t *testing.T) {
	s, _ := newSession(t, SessionOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	r := s.Call(ctx, string(ToolEvaluate), json.RawMessage(`{"function":"() => new Promise(() => {})"}`))
	if el := time.Since(start); el > 3*time.Second || !strings.Contains(r.Error, "deadline exceeded") {
		t.Fatalf("cancelled evaluate: %v, %+v", el, r)
	}
	// The page is still usable afterwards.
	if got := eval(t, s, "() => 40 + 2"); got != "42" {
		t.Fatalf("after cancel: %q", got)
	}
	cases := map[ToolName]string{
		"browser_nope":   `Tool "browser_nope" not found`,
		ToolClick:        `Invalid arguments for browser_click: "target" is required`,
		ToolNavigate:     `Invalid arguments for browser_navigate: "url" is required`,
		ToolSelectOption: `Invalid arguments for browser_select_option: "values" is required`,
	}
	for tool, want := range cases {
		if r := s.Call(context.Background(), string(tool), json.RawMessage(`{}`)); r.Error != want {
			t.Fatalf("%s: %q, want %q", tool, r.Error, want)
		}
	}
	if r := s.Call(context.Background(), string(ToolClick), json.RawMessage(`{"target": 3`)); !strings.HasPrefix(r.Error, "Invalid arguments for browser_click: ") {
		t.Fatalf("bad JSON: %q", r.Error)
	}
	d, _ := newSession(t, SessionOptions{DisableEvaluate: true})
	if r := call(t, d, ToolEvaluate, map[string]any{"function": "() => 1"}); !strings.Contains(r.Error, "disabled") {
		t.Fatalf("disabled evaluate: %+v", r)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if r := call(t, s, ToolSnapshot, nil); r.Error != "browser: session closed" {
		t.Fatalf("after Close: %+v", r)
	}
}

func TestSnapshotFilter(t *testing.T) {
	s, _ := newSession(t, SessionOptions{})
	var seen int
	s.SetSnapshotFilter(func(snap string) string { seen++; return "filtered\n" + snap })
	r := mustOK(t, call(t, s, ToolPressKey, map[string]any{"key": "Tab"}))
	if !strings.HasPrefix(r.Snapshot.YAML, "filtered\n") || seen != 1 {
		t.Fatalf("action snapshot not filtered (seen %d): %q", seen, r.Snapshot.YAML[:min(40, len(r.Snapshot.YAML))])
	}
	raw, err := s.Snapshot(false)
	if err != nil || strings.HasPrefix(raw, "filtered") || seen != 1 {
		t.Fatalf("Snapshot ran the filter: %v", err)
	}
	s.SetSnapshotFilter(nil)
	if r := mustOK(t, call(t, s, ToolSnapshot, nil)); strings.HasPrefix(r.Snapshot.YAML, "filtered") {
		t.Fatal("filter not removed")
	}
}

func TestSessionDefaultsAndBrowser(t *testing.T) {
	s, _ := newSession(t, SessionOptions{})
	got := eval(t, s, "() => [innerWidth, innerHeight, navigator.language, Intl.DateTimeFormat().resolvedOptions().timeZone]")
	if want := "[\n  1280,\n  720,\n  \"en-US\",\n  \"UTC\"\n]"; got != want {
		t.Fatalf("context defaults = %s, want %s", got, want)
	}
	if o := s.Options(); o.ActionTimeout != 5*time.Second || o.NavigationTimeout != 15*time.Second || o.KeepScreenshots != 15 {
		t.Fatalf("defaults: %+v", o)
	}
	if !testBrowser.IsConnected() || !regexp.MustCompile(`^\d+\.\d+`).MatchString(testBrowser.Version()) {
		t.Fatalf("browser connected=%v version=%q", testBrowser.IsConnected(), testBrowser.Version())
	}
	if v := testDriver.Version(); v != pinnedCoreVersion {
		t.Fatalf("driver version %q, pinned %q", v, pinnedCoreVersion)
	}
}

func TestToolDefs(t *testing.T) {
	s := &Session{}
	defs := s.ToolDefs()
	var names []string
	for _, d := range defs {
		names = append(names, d.Function.Name)
		b, err := json.Marshal(d)
		if err != nil || !bytes.Contains(b, []byte(`"parameters":{`)) {
			t.Fatalf("%s: %s %v", d.Function.Name, b, err)
		}
	}
	want := "browser_navigate browser_navigate_back browser_snapshot browser_click browser_type browser_hover " +
		"browser_select_option browser_fill_form browser_press_key browser_evaluate browser_wait_for " +
		"browser_take_screenshot browser_mouse_click_xy"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("tools = %s", got)
	}
	var progress []string
	for _, tl := range Tools() {
		if tl.Progress {
			progress = append(progress, string(tl.Name))
		}
	}
	if got := strings.Join(progress, " "); got != "browser_navigate browser_navigate_back browser_click browser_type "+
		"browser_hover browser_select_option browser_fill_form browser_press_key" {
		t.Fatalf("progress tools = %s", got)
	}
	b, _ := json.Marshal(defs[3].Function.Parameters)
	if string(b) != `{"additionalProperties":false,"properties":{"button":{"description":"Button to click, defaults to left","enum":["left","right","middle"],"type":"string"},"doubleClick":{"description":"Whether to perform a double click instead of a single click","type":"boolean"},"element":{"description":"Human-readable element description used to obtain permission to interact with the element","type":"string"},"target":{"description":"Exact target element reference from the page snapshot, e.g. e12 or f1e3","type":"string"}},"required":["target"],"type":"object"}` {
		t.Fatalf("click schema: %s", b)
	}
	s.opts.DisableEvaluate = true
	for _, d := range s.ToolDefs() {
		if d.Function.Name == string(ToolEvaluate) {
			t.Fatal("evaluate offered while disabled")
		}
	}
	if len(s.ToolDefs()) != 12 {
		t.Fatalf("%d tools with evaluate disabled", len(s.ToolDefs()))
	}
}

func TestParseRefAndRoles(t *testing.T) {
	for in, want := range map[string]string{"e12": "e12", " f1e3 ": "f1e3", "[ref=e7]": "e7", "ref=e8": "e8",
		`button "Go" [ref=f2e9]`: "f2e9"} {
		if got, ok := ParseRef(in); !ok || got != want {
			t.Fatalf("ParseRef(%q) = %q, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "button", "e", "x12"} {
		if _, ok := ParseRef(in); ok {
			t.Fatalf("ParseRef(%q) accepted", in)
		}
	}
	roles := snapshotRoles("- generic [ref=e1]:\n  - 'checkbox \"a: b\" [ref=e2]'\n  - text: x [ref=e3]\n  - /url: y")
	if roles["e1"] != "generic" || roles["e2"] != "checkbox" || roles["e3"] != "text" || len(roles) != 3 {
		t.Fatalf("roles = %v", roles)
	}
	if FormatValue(nil) != "undefined" || FormatValue("a<b") != `"a<b"` || FormatValue(1.5) != "1.5" {
		t.Fatal("FormatValue")
	}
}

func TestDiscoveryErrors(t *testing.T) {
	t.Setenv(EnvDriverDir, "/nonexistent/driver")
	_, err := StartDriver(DriverOptions{})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/driver") || !strings.Contains(err.Error(), "make setup") ||
		!strings.Contains(err.Error(), EnvDriverDir) {
		t.Fatalf("driver error: %v", err)
	}
	_, err = StartDriver(DriverOptions{DriverDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "node_modules/playwright-core/cli.js") {
		t.Fatalf("DriverDir error: %v", err)
	}
	t.Setenv(EnvChromium, "/nonexistent/chromium")
	if _, err := findChromium("", true); err == nil || !strings.Contains(err.Error(), EnvChromium) {
		t.Fatalf("chromium error: %v", err)
	}
	if p, err := findChromium(os.Args[0], true); err != nil || p != os.Args[0] {
		t.Fatalf("explicit executable: %q %v", p, err)
	}
	t.Setenv(EnvNode, "/nonexistent/node")
	if _, err := findNode(""); err == nil || !strings.Contains(err.Error(), EnvNode) {
		t.Fatalf("node error: %v", err)
	}
}

// A snapshot is bounded by the navigation timeout, not the action timeout: a page whose main thread is busy
// for 7 s (a large page's capture on a loaded machine, here a script's loop) is captured once it is free
// instead of failing at the 5 s action timeout.
// WaitInteractive waits for what HasInteractiveRef counts in an AI snapshot: a visible element of an interactive
// role (one in an aria-hidden subtree too: the AI snapshot lists it), not a hidden one nor one without a role.
func TestWaitInteractive(t *testing.T) {
	s, _ := newSession(t, SessionOptions{})
	set := func(html string) {
		t.Helper()
		if _, err := s.Page().Evaluate(`(h) => { document.body.innerHTML = h; }`, html); err != nil {
			t.Fatal(err)
		}
	}
	for _, html := range []string{`<img alt="Logo">`, `<div style="display:none"><button>Go</button></div>`,
		`<button hidden>Go</button><a>no href</a>`} {
		set(html)
		if shown, err := s.WaitInteractive(300 * time.Millisecond); shown || err != nil {
			t.Fatalf("%s: shown %v, err %v; want a timeout", html, shown, err)
		}
		if snap, _ := s.Snapshot(false); HasInteractiveRef(snap) {
			t.Fatalf("%s: the snapshot has an interactive ref:\n%s", html, snap)
		}
	}
	set(`<div aria-hidden="true"><button>Go</button></div>`)
	if shown, err := s.WaitInteractive(30 * time.Second); !shown || err != nil {
		t.Fatalf("aria-hidden button: shown %v, err %v", shown, err)
	}
	if snap, _ := s.Snapshot(false); !HasInteractiveRef(snap) {
		t.Fatalf("aria-hidden button: the snapshot has no interactive ref:\n%s", snap)
	}
	// A hidden button first, the link the page adds later: the wait ends when the link is there.
	set(`<button hidden>Go</button><img alt="Logo">`)
	if _, err := s.Page().Evaluate(`() => { setTimeout(() => {
		const a = document.createElement('a'); a.href = '/next'; a.textContent = 'Next'; document.body.append(a);
	}, 200); }`); err != nil {
		t.Fatal(err)
	}
	if shown, err := s.WaitInteractive(30 * time.Second); !shown || err != nil {
		t.Fatalf("shown %v, err %v; want the link", shown, err)
	}
	if snap, _ := s.Snapshot(false); !HasInteractiveRef(snap) || !strings.Contains(snap, `link "Next"`) {
		t.Fatalf("snapshot after the wait:\n%s", snap)
	}
}

func TestSnapshotOutlastsTheActionTimeout(t *testing.T) {
	s, _ := newSession(t, SessionOptions{})
	if _, err := s.Page().Evaluate(`() => { setTimeout(() => { const end = Date.now() + 7000; while (Date.now() < end) {} }, 0); }`); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Snapshot(false)
	if err != nil {
		t.Fatalf("snapshot of a page busy for 7 s (action timeout %v, navigation timeout %v): %v",
			s.Options().ActionTimeout, s.Options().NavigationTimeout, err)
	}
	if !strings.Contains(snap, `button "Count"`) {
		t.Fatalf("snapshot:\n%s", snap)
	}
}

func TestBusyEvaluateBlocksPage(t *testing.T) {
	s, snap := newSession(t, SessionOptions{ActionTimeout: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	r := s.Call(ctx, string(ToolEvaluate), json.RawMessage(`{"function":"() => { while (true) {} }"}`))
	if el := time.Since(start); el > 3*time.Second || !strings.Contains(r.Error, "cancelled") {
		t.Fatalf("busy evaluate: %v, %+v", el, r)
	}
	// Unbounded evaluate (the pre-fix behaviour): the tab is blocked, so a later click times out. Its budget with
	// the 1 s action timeout: arming the click probe ≤ 2 s (the timeout and the Go bound's second, detach.go),
	// the fallback locator click ≤ 1 s, two node checks ≤ 1 s each; 8 s leaves room for a loaded machine.
	start = time.Now()
	r = call(t, s, ToolClick, map[string]any{"target": refOf(t, snap, `button "Count"`)})
	if el := time.Since(start); el > 8*time.Second || !strings.Contains(r.Error, "Timeout 1000ms exceeded") {
		t.Fatalf("click on a busy page after %v: %+v", el, r)
	}
	start = time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("Close of a busy page took %v", el)
	}
}

// TestRemoteEndpoint connects to a Playwright browser server (`playwright launch-server`) through
// LaunchOptions.Endpoint.
func TestRemoteEndpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test (needs Chromium)")
	}
	cfg := filepath.Join(t.TempDir(), "server.json")
	exe, err := findChromium("", true)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"executablePath": exe, "headless": true, "args": DefaultLaunchArgs})
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testDriver.node, testDriver.cliPath, "launch-server", "--browser", "chromium",
		"--config", cfg)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan struct{})
	go func() { _ = cmd.Wait(); close(stopped) }()
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt) // the server closes its browser on SIGINT
		select {
		case <-stopped:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
		}
	}()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "ws://") {
				lines <- sc.Text()
			}
		}
	}()
	var ws string
	select {
	case ws = <-lines:
	case <-time.After(20 * time.Second):
		t.Fatal("launch-server printed no ws:// endpoint")
	}
	if _, err := testDriver.Launch(LaunchOptions{Endpoint: "http://" + strings.TrimPrefix(ws, "ws://")}); err == nil ||
		!strings.Contains(err.Error(), "ws://") {
		t.Fatalf("http endpoint accepted: %v", err)
	}
	rb, err := testDriver.Launch(LaunchOptions{Endpoint: ws})
	if err != nil {
		t.Fatal(err)
	}
	if !rb.remote || !rb.IsConnected() || rb.Version() == "" {
		t.Fatalf("remote browser: remote=%v connected=%v version=%q", rb.remote, rb.IsConnected(), rb.Version())
	}
	s, err := rb.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := mustOK(t, call(t, s, ToolNavigate, map[string]any{"url": testServer.URL + "/next"}))
	if r.Title != "Next" || !strings.Contains(r.Snapshot.YAML, "Second page") {
		t.Fatalf("remote navigate: %+v", r)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rb.Close(); err != nil {
		t.Fatal(err)
	}
	if rb.IsConnected() {
		t.Fatal("still connected after Close")
	}
}

// TestSettleOnEvents checks that the snapshot after an action shows what the page did, without fixed sleeps:
// a render in the next animation frame after a click and after a fill on a page that was quiet before the
// action (settle waits two frames after the DOM is quiet: the page's frame callback runs before settle's own in
// the same frame; a fill dispatches no pointer or key event, only input), a chain of requests (the second
// request starts before the round's DOM window ends, so a second round waits for it and the render), and a tab
// the page asked for from a timer (window.open is recorded by the init script, so settle awaits the tab's page
// event).
func TestSettleOnEvents(t *testing.T) {
	s, _ := newSession(t, SessionOptions{})
	r := mustOK(t, call(t, s, ToolNavigate, map[string]any{"url": testServer.URL + "/settle"}))
	snap := r.Snapshot.YAML
	r = mustOK(t, call(t, s, ToolClick, map[string]any{"target": refOf(t, snap, `button "Frame"`)}))
	if !strings.Contains(r.Snapshot.YAML, "rendered in a frame") {
		t.Fatalf("frame render missing after click:\n%s", r.Snapshot.YAML)
	}
	r = mustOK(t, call(t, s, ToolType, map[string]any{"target": refOf(t, r.Snapshot.YAML, `textbox "Name"`), "text": "abc"}))
	if !strings.Contains(r.Snapshot.YAML, "typed abc") {
		t.Fatalf("frame render missing after fill:\n%s", r.Snapshot.YAML)
	}
	r = mustOK(t, call(t, s, ToolClick, map[string]any{"target": refOf(t, r.Snapshot.YAML, `button "Chain"`)}))
	if !strings.Contains(r.Snapshot.YAML, "chain ab") {
		t.Fatalf("request chain's render missing after click:\n%s", r.Snapshot.YAML)
	}
	r = mustOK(t, call(t, s, ToolClick, map[string]any{"target": refOf(t, r.Snapshot.YAML, `button "Open tab"`)}))
	if r.URL != testServer.URL+"/popup" || !strings.Contains(r.Snapshot.YAML, "Popup page") ||
		!strings.Contains(strings.Join(r.Events, "\n"), "A new tab opened and is now the current page") {
		t.Fatalf("window.open result: %+v", r)
	}
}

// TestSettleWithoutInitScript checks that settle's Evaluate answers on a document the init script did not run
// in (a context of its own without it: {init: false} after the two frames), and that an action on a session's
// initial about:blank settles.
func TestSettleWithoutInitScript(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test (needs Chromium)")
	}
	bctx, err := testBrowser.b.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bctx.Close() })
	p, err := bctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Goto(testServer.URL + "/settle"); err != nil {
		t.Fatal(err)
	}
	v, err := p.Evaluate(settleDOMScript, []any{ms(settleQuiet), ms(settleQuietNet), ms(settleRequests), ms(settleFrameCap)})
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := v.(map[string]any); m == nil || m["init"] != false || m["tab"] != false {
		t.Fatalf("settleDOMScript without the init script = %#v, want map[init:false tab:false]", v)
	}
	s, err := testBrowser.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if r := mustOK(t, call(t, s, ToolPressKey, map[string]any{"key": "Tab"})); r.URL != "about:blank" {
		t.Fatalf("press_key on about:blank: %+v", r)
	}
}

// TestSettleAfterTerminatedSyncXHR terminates (Runtime.terminateExecution, as the evaluate_isolation guard
// does) a script that loops over synchronous XHRs — the Zoo's busy_script — and checks that the next settle does
// not wait for the XHR the termination cut: the termination takes effect as send() returns, in the loadend
// listener the init script added, so the request stays in window.__webbenchSettle.reqs although its readyState
// is DONE. Before the fix settleDOMScript waited for it until its cap (2 s in settle; 60 s here).
func TestSettleAfterTerminatedSyncXHR(t *testing.T) {
	s, _ := newSession(t, SessionOptions{})
	p := s.cur()
	cdp, err := p.Context().NewCDPSession(p)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cdp.Detach() }()
	const loop = `() => { const end = Date.now() + 30000; while (Date.now() < end) {
  const x = new XMLHttpRequest(); x.open('GET', '/tick', false); x.send(); } }`
	const stale = `() => window.__webbenchSettle.reqs.size` // nothing else is in flight
	reproduced := false
	for try := 0; try < 5 && !reproduced; try++ {
		before := ticks.Load()
		done := make(chan error, 1)
		go func() { _, err := p.Evaluate(loop); done <- err }()
		for ticks.Load() < before+2 {
			time.Sleep(10 * time.Millisecond)
		}
		if _, err := cdp.Send("Runtime.terminateExecution", nil); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("the loop was not terminated")
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the terminated evaluate did not return")
		}
		v, err := p.Evaluate(stale)
		if err != nil {
			t.Fatal(err)
		}
		reproduced = v == 1
	}
	if !reproduced {
		t.Fatal("no termination left a finished XHR in the settle state: the test does not test the case")
	}
	type answer struct {
		v   any
		err error
	}
	got := make(chan answer, 1)
	go func() {
		v, err := p.Evaluate(settleDOMScript, []any{ms(settleQuiet), ms(settleQuietNet), 60000, ms(settleFrameCap)})
		got <- answer{v, err}
	}()
	select {
	case a := <-got:
		if m, _ := a.v.(map[string]any); a.err != nil || m == nil || m["init"] != true {
			t.Fatalf("settleDOMScript = %#v, %v", a.v, a.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("settleDOMScript still waits for the terminated XHR after 20 s (its cap is 60 s)")
	}
	if v, err := p.Evaluate(`() => window.__webbenchSettle.reqs.size`); err != nil || v != 0 {
		t.Fatalf("requests left in the settle state: %v, %v", v, err)
	}
}
