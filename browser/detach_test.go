package browser

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// Pages for the node-replaced-mid-action cases of detach.go. Each has a #region holding the
// target; window.clicks counts the clicks any copy of the target received (inline handlers are cloned with the
// node).
// hostileListeners makes every addEventListener of the page's world throw.
const hostileListeners = `<script>EventTarget.prototype.addEventListener = function () { throw new Error("hostile page") };</script>`

var racePages = map[string]string{
	// The region is replaced synchronously in a mousedown listener: after Playwright's hit-target check (on
	// pointerdown) and before the release, what the Zoo's ref_churn did when its timer fired mid-click.
	"/midpress": `<div id="region"><a id="t" href="#went" onclick="clicks++">Target link</a></div>
<script>document.addEventListener("mousedown", () => { const r = document.getElementById("region");
r.replaceWith(r.cloneNode(true)); }, true);</script>`,
	// The region is replaced synchronously in the first mousemove: after Playwright's preliminary hit-target
	// check and before the press, at a point fixed by the click's own input events (no timer). The press hits
	// the fresh copy ("… intercepts pointer events, retrying"), the retry finds the element detached: a
	// locator click would wait for the aria-ref to resolve again, the element-handle click fails at once.
	"/beforepress": `<div id="region"><button id="t" onclick="clicks++">Target button</button></div>
<script>let moved = false; document.addEventListener("mousemove", () => { if (moved) return; moved = true;
const r = document.getElementById("region"); r.replaceWith(r.cloneNode(true)); }, true);</script>`,
	// Clicks that remove their own target (a delete button, a dismiss link): delivered, so not stale.
	// Clicks the page acts on before the click event and whose handler removes the target:
	// an autocomplete option picked on mousedown, a select2-style option picked on mouseup, a tab
	// activated on pointerdown whose strip re-renders. window.acted counts the handler's runs. They are
	// delivered: the node left while the page handled this press, not under it.
	"/mdact": `<div id="region"><div id="list"><button id="opt" onmousedown="acted++; this.remove()">Option A</button></div></div>`,
	"/muact": `<div id="region"><div id="list"><button id="opt" onmouseup="acted++; this.remove()">Option B</button></div></div>`,
	"/pdtab": `<div id="region"><div id="tabs"><button onpointerdown="acted++; document.getElementById('tabs').innerHTML = '<button>Tab 2 (active)</button>'">Tab 2</button></div></div>`,
	// A double click whose region is replaced at the first mousedown (page-wide, as ref_churn): the first click
	// is lost, the second press and release hit the fresh copy, which gets a click and the dblclick.
	"/dbl": `<div id="region"><button id="t" onclick="clicks++" ondblclick="acted++">Dbl button</button></div>
<script>let once = false; document.addEventListener("mousedown", () => { if (once) return; once = true;
const r = document.getElementById("region"); r.replaceWith(r.cloneNode(true)); }, true);</script>`,
	// The region leaves at the click's first mousemove and comes back (the same node) once the page sees the
	// tool's next call, window.back() (no timer): a click that gave up must not click it then.
	"/reattach": `<div id="region"><button id="t" onclick="clicks++">Target button</button></div><p>x</p>
<script>let moved = false, parent = null, region = null; document.addEventListener("mousemove", () => { if (moved) return;
moved = true; region = document.getElementById("region"); parent = region.parentNode; region.remove(); }, true);
window.back = () => { parent.prepend(region); return region.isConnected; };</script>`,
	// Pages that break the click probe: every addEventListener throws, so the probe cannot be armed in the page's
	// world (TestClickWithoutProbeFallsBack). The first replaces the region on mousedown (bubble phase, a handler
	// property), so the click is lost; the second keeps it.
	"/noprobe-churn": `<div id="region"><button id="t" onclick="clicks++">Target button</button></div>` + hostileListeners +
		`<script>document.onmousedown = () => { const r = document.getElementById("region"); r.replaceWith(r.cloneNode(true)); };</script>`,
	"/noprobe-plain": `<div id="region"><button id="t" onclick="clicks++">Target button</button></div>` + hostileListeners,
	// A radio group the page re-renders in the first mousedown (as ref_churn): a
	// fill_form radio is set by a click, which is lost the same way.
	"/radios": `<div id="region"><label><input type="radio" name="room" onclick="clicks++"> Deluxe</label>
<label><input type="radio" name="room" onclick="clicks++"> Standard</label></div>
<script>let once = false; document.addEventListener("mousedown", () => { if (once) return; once = true;
const r = document.getElementById("region"); r.replaceWith(r.cloneNode(true)); }, true);</script>`,
	// The target stops taking pointer events on mousedown: the release lands on its parent #wrap, so the browser
	// sends the click to the nearest common ancestor of the press and release targets, #wrap
	// (https://w3c.github.io/uievents/#click). window.wrapClicks counts trusted clicks whose target is #wrap.
	"/ancestor": `<div id="wrap" style="padding:20px" onclick="wrapClicks += event.isTrusted && event.target === this">
<button id="t" onclick="clicks++" onmousedown="this.style.pointerEvents = 'none'">Press me</button></div>
<script>var wrapClicks = 0;</script>`,
	// A checkbox whose change handler re-renders its region (a React-style re-render):
	// the click is delivered and the fresh copy is checked (cloneNode copies checkedness), but Playwright's
	// re-read of the state on the old element fails with "Element is not attached".
	"/rerender-check": `<div id="region"><label><input type="checkbox" onchange="acted++; const r = document.getElementById('region'); r.replaceWith(r.cloneNode(true))"> Breakfast</label></div>`,
	"/selfremove": `<div id="region"><button id="t" onclick="clicks++; this.remove()">Delete me</button>
<button id="m" oncontextmenu="clicks++; event.preventDefault(); this.remove()">Menu me</button></div>`,
}

func raceServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := racePages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>Race</title><body><script>var clicks = 0, acted = 0;</script>%s</body>`, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// raceSession opens path of srv and returns the session and the ref of the snapshot line containing target.
func raceSession(t *testing.T, o SessionOptions, srv *httptest.Server, path, target string) (*Session, string) {
	t.Helper()
	s, _ := newSession(t, o)
	if err := s.Navigate(srv.URL + path); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Observe(false)
	if err != nil {
		t.Fatal(err)
	}
	return s, refOf(t, snap, target)
}

// A click whose target is replaced between press and release reaches no node: Playwright reports success
// (its hit-target check ran on the pointerdown), the page never saw a click. The tool says stale ref instead.
func TestClickReplacedMidPressIsStale(t *testing.T) {
	srv := raceServer(t)
	s, ref := raceSession(t, SessionOptions{}, srv, "/midpress", `link "Target link"`)
	r := call(t, s, ToolClick, map[string]any{"target": ref, "element": "Target link"})
	if !strings.Contains(r.Error, StaleRefPhrase) || !strings.HasPrefix(r.Error, WhyClickLost) {
		t.Fatalf("click on a node replaced mid-press: error %q, want %s + the stale-ref message", r.Error, WhyClickLost)
	}
	if got := eval(t, s, "() => clicks + ' ' + location.hash"); got != `"0 "` {
		t.Fatalf("page after the lost click: clicks and hash %s, want none", got)
	}
	// Playwright itself reports the lost click as a plain success: the call log of the Zoo's lost "Reserve"
	// click (DEBUG=pw:api) has no detach or intercept line, so only the page can tell.
	logb, err := os.ReadFile("testdata/issue17/click_no_effect.log")
	if err != nil {
		t.Fatal(err)
	}
	if l := string(logb); !strings.Contains(l, "click action done") || lostNodeLog(l) {
		t.Fatalf("recorded call log: %s", l)
	}
}

// A click whose target is replaced before its press fails as a stale ref at once: Playwright
// resolves the aria-ref again and would wait out the whole action timeout for a node that is gone; the click
// probe sees the node leave before any press reached it and the click fails then. The action timeout is a
// minute, so a click that waited it out could not pass the elapsed-time check however loaded the machine.
func TestClickReplacedBeforePressIsStale(t *testing.T) {
	s := staleAtOnce(t, "/beforepress")
	if got := eval(t, s, "() => clicks"); got != "0" {
		t.Fatalf("clicks = %s", got)
	}
}

// staleAtOnce clicks button "Target button" of path, whose node leaves before the press, with a one-minute
// action timeout: the click must fail as a stale ref (WhyDetached) before that timeout, so a click that waited
// it out could not pass however loaded the machine. It returns the session for the page checks.
func staleAtOnce(t *testing.T, path string) *Session {
	t.Helper()
	const timeout = time.Minute
	s, ref := raceSession(t, SessionOptions{ActionTimeout: timeout}, raceServer(t), path, `button "Target button"`)
	start := time.Now()
	r := call(t, s, ToolClick, map[string]any{"target": ref, "element": "Target button"})
	if el := time.Since(start); el >= timeout {
		t.Fatalf("the click took %v: it waited out the action timeout", el)
	}
	if !strings.Contains(r.Error, StaleRefPhrase) || !strings.HasPrefix(r.Error, WhyDetached) {
		t.Fatalf("click on a node gone before the press (%s): error %q, want %s + the stale-ref message", path, r.Error, WhyDetached)
	}
	return s
}

// The call log of a radio click whose node the Zoo's ref_churn replaced between the mouse move and the press
// (recorded): the press hit the fresh copy's page ("<html> intercepts pointer events"), the retry
// found the element detached. It is a lost node, not a covered element.
func TestLostNodeLog(t *testing.T) {
	b, err := os.ReadFile("testdata/issue17/detached_after_intercept.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !lostNodeLog(string(b)) {
		t.Fatalf("recorded detach not recognised:\n%s", b)
	}
	covered := "playwright: timeout: Timeout 5000ms exceeded.\nCall log:\n  - waiting for locator('aria-ref=e5')\n" +
		"    - locator resolved to <button>Go</button>\n  - attempting click action\n" +
		"    - <div class=\"onetrust-pc-dark-filter\"></div> intercepts pointer events\n  - retrying click action\n"
	for _, msg := range []string{covered, "Error: strict mode violation", "Element is not an <input>"} {
		if lostNodeLog(msg) {
			t.Errorf("lostNodeLog(%q) = true", msg)
		}
	}
}

// Clicks that reach their target and remove it (left click, right click) are successes, not lost clicks.
func TestClickThatRemovesItsTargetSucceeds(t *testing.T) {
	srv := raceServer(t)
	s, snap := newSession(t, SessionOptions{})
	_ = snap
	if err := s.Navigate(srv.URL + "/selfremove"); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Observe(false)
	if err != nil {
		t.Fatal(err)
	}
	del, menu := refOf(t, snap, `button "Delete me"`), refOf(t, snap, `button "Menu me"`)
	mustOK(t, call(t, s, ToolClick, map[string]any{"target": del}))
	mustOK(t, call(t, s, ToolClick, map[string]any{"target": menu, "button": "right"}))
	if got := eval(t, s, "() => clicks + ' ' + document.querySelectorAll('button').length"); got != `"2 0"` {
		t.Fatalf("clicks and buttons left: %s", got)
	}
}

// Clicks the page acted on (its handler ran on the press or release and removed the target) are successes,
// not lost clicks: the handler ran once and the tool reports no error.
func TestClickThePageActedOnSucceeds(t *testing.T) {
	srv := raceServer(t)
	for _, c := range []struct{ path, target, left string }{
		{"/mdact", `button "Option A"`, "0"},
		{"/muact", `button "Option B"`, "0"},
		{"/pdtab", `button "Tab 2"`, "1"},
	} {
		t.Run(c.path[1:], func(t *testing.T) {
			s, ref := raceSession(t, SessionOptions{}, srv, c.path, c.target)
			mustOK(t, call(t, s, ToolClick, map[string]any{"target": ref}))
			want := `"1 ` + c.left + `"`
			if got := eval(t, s, "() => acted + ' ' + document.querySelectorAll('button').length"); got != want {
				t.Fatalf("handler runs and buttons left: %s, want %s", got, want)
			}
		})
	}
}

// A double click whose first press the page re-renders under (page-wide, before the target's own listeners)
// still reaches the fresh copy with its second click: delivered (click 1, dblclick 1), not lost.
func TestDoubleClickOnAFreshCopySucceeds(t *testing.T) {
	srv := raceServer(t)
	s, ref := raceSession(t, SessionOptions{}, srv, "/dbl", `button "Dbl button"`)
	mustOK(t, call(t, s, ToolClick, map[string]any{"target": ref, "doubleClick": true}))
	if got := eval(t, s, "() => clicks + ' ' + acted"); got != `"1 1"` {
		t.Fatalf("clicks and dblclicks on the fresh copy: %s, want 1 1", got)
	}
}

// A click whose node leaves before the press and comes back afterwards fails as a stale ref, and nothing clicks
// the node once it is back (the abandoned locator click used to click it): the click runs
// on an element handle, which is not resolved again, so no call outlives the tool.
func TestClickOnANodeThatComesBackIsStale(t *testing.T) {
	s := staleAtOnce(t, "/reattach")
	if got := eval(t, s, "() => window.back()"); got != "true" {
		t.Fatalf("region back: %s", got)
	}
	// A locator click left running would retry within its backoff (at most 500 ms, Playwright's _retryAction)
	// and click the node now that it resolves again; the handle click has returned, so clicks stays 0 whatever
	// the wait (this one only gives a leaked call the chance to show).
	time.Sleep(2 * time.Second)
	if got := eval(t, s, "() => clicks"); got != "0" {
		t.Fatalf("clicks after the tool said stale: %s, want 0", got)
	}
}

// A page that breaks the click probe (here every addEventListener throws, so the probe cannot be armed in the
// page's world) gets the fallback of detach.go: the click runs on the locator, a target that is gone afterwards
// with the URL unchanged is a lost click (stale ref), one still there is delivered, and either way the tool
// records ProbeSkipped in Result.Harness (the loop's click_probe trajectory event; the determinism test
// requires none).
func TestClickWithoutProbeFallsBack(t *testing.T) {
	srv := raceServer(t)
	for _, c := range []struct {
		path, clicks, lost string
		stale              bool
	}{
		{"/noprobe-churn", "0", "lost=true", true},
		{"/noprobe-plain", "1", "lost=false", false},
	} {
		t.Run(c.path[1:], func(t *testing.T) {
			s, ref := raceSession(t, SessionOptions{}, srv, c.path, `button "Target button"`)
			r := call(t, s, ToolClick, map[string]any{"target": ref})
			if c.stale != strings.HasPrefix(r.Error, WhyClickLost) {
				t.Fatalf("error %q, want stale (%s): %t", r.Error, WhyClickLost, c.stale)
			}
			if len(r.Harness) != 1 || !strings.HasPrefix(r.Harness[0], ProbeSkipped+" (not armed") ||
				!strings.HasSuffix(r.Harness[0], c.lost) || !strings.Contains(r.Harness[0], "ref "+ref) {
				t.Fatalf("harness notes %q, want one %q … ref %s, %s", r.Harness, ProbeSkipped, ref, c.lost)
			}
			if got := eval(t, s, "() => clicks"); got != c.clicks {
				t.Fatalf("clicks = %s, want %s", got, c.clicks)
			}
		})
	}
}

// browser_fill_form sets a radio with a click: when the page replaces the group under the press, the click is
// lost and the field fails as a stale ref at once, as browser_click does — not a locator timeout the
// stale_ref_refresh guard cannot read (5 s and "Timeout 5000ms exceeded"). The same
// radio set again, on the fresh copy, is checked.
func TestFillFormRadioReplacedMidPressIsStale(t *testing.T) {
	srv := raceServer(t)
	const timeout = time.Minute
	s, ref := raceSession(t, SessionOptions{ActionTimeout: timeout}, srv, "/radios", `radio "Deluxe"`)
	fill := func(ref string) Result {
		return call(t, s, ToolFillForm, map[string]any{"fields": []any{
			map[string]any{"target": ref, "name": "Deluxe", "type": "radio", "value": "true"}}})
	}
	start := time.Now()
	r := fill(ref)
	if el := time.Since(start); el >= timeout {
		t.Fatalf("fill_form took %v: it waited out the action timeout", el)
	}
	if !strings.Contains(r.Error, StaleRefPhrase) || !strings.HasPrefix(r.Error, WhyClickLost) {
		t.Fatalf("fill_form radio replaced mid-press: error %q, want %s + the stale-ref message", r.Error, WhyClickLost)
	}
	if got := eval(t, s, "() => clicks + ' ' + document.querySelectorAll('input:checked').length"); got != `"0 0"` {
		t.Fatalf("clicks and checked radios after the lost click: %s, want 0 0", got)
	}
	snap, err := s.Observe(false)
	if err != nil {
		t.Fatal(err)
	}
	mustOK(t, fill(refOf(t, snap, `radio "Deluxe"`)))
	if got := eval(t, s, "() => clicks + ' ' + document.querySelectorAll('input:checked').length"); got != `"1 1"` {
		t.Fatalf("clicks and checked radios after the retry: %s, want 1 1", got)
	}
}

// A click event on an ancestor of the target is not this click's delivery: a
// press and a release on two different nodes give a click on their nearest common ancestor, and a browser that
// sent a removed press target's click to its nearest attached ancestor (w3c/pointerevents#576) would otherwise
// make a lost click look delivered. Here the target stays in the page, so the tool reports no error
// either way, and the probe's own record shows the ancestor's click was not counted.
func TestClickOnAnAncestorIsNotCounted(t *testing.T) {
	srv := raceServer(t)
	s, ref := raceSession(t, SessionOptions{}, srv, "/ancestor", `button "Press me"`)
	mustOK(t, call(t, s, ToolClick, map[string]any{"target": ref}))
	if got := eval(t, s, "() => wrapClicks + ' ' + clicks"); got != `"1 0"` {
		t.Fatalf("trusted clicks on #wrap and on the target: %s, want 1 0 (the page did not set up the case)", got)
	}
	if got := eval(t, s, `() => window[Symbol.for("webbench.clickProbe")].clicked`); got != "false" {
		t.Fatalf("probe counted the ancestor's click as delivered: clicked = %s", got)
	}
}

// A fill_form checkbox the page re-renders after handling its click is set, not a stale ref: the
// tool goes on to the next field, and the page shows one change and a checked box.
func TestFillFormCheckboxRerenderedAfterItsClickIsSet(t *testing.T) {
	srv := raceServer(t)
	s, ref := raceSession(t, SessionOptions{}, srv, "/rerender-check", `checkbox "Breakfast"`)
	r := call(t, s, ToolFillForm, map[string]any{"fields": []any{
		map[string]any{"target": ref, "name": "Breakfast", "type": "checkbox", "value": "true"}}})
	mustOK(t, r)
	if got := eval(t, s, "() => acted + ' ' + document.querySelectorAll('input:checked').length"); got != `"1 1"` {
		t.Fatalf("changes and checked boxes: %s, want 1 1", got)
	}
}

// A click that starts a navigation the server is slow to answer is a delivered click: Playwright performs it,
// then waits within the action timeout for the navigation to commit and reports a timeout when it does not
// ("click action done", "waiting for scheduled navigations to finish"); the tool waits for the commit instead
// (within the navigation timeout) and reports the new page, so the step does not depend on how fast the server
// or the machine is. The server answers the results request two action timeouts after it arrived, which is
// after the click's navigation wait gave up (that wait began before the request was sent). On a machine so
// loaded that Playwright's timer fires later than the answer, the click passes without the timeout: the test
// then does not exercise the path, but cannot fail for it.
func TestClickWhoseNavigationOutlastsTheActionTimeoutSucceeds(t *testing.T) {
	const action = 2 * time.Second
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/results" {
			select {
			case <-time.After(2 * action): // the slow server is the case under test
			case <-r.Context().Done():
				return
			}
			fmt.Fprint(w, `<!doctype html><title>Results</title><h1>132 results</h1>`)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Search</title><a href="/results">Search</a>`)
	}))
	t.Cleanup(srv.Close)
	s, ref := raceSession(t, SessionOptions{ActionTimeout: action}, srv, "/", `link "Search"`)
	r := call(t, s, ToolClick, map[string]any{"target": ref, "element": "Search"})
	if r.IsError() {
		t.Fatalf("a click whose navigation is slow: error %q, want success", r.Error)
	}
	if !strings.Contains(r.Snapshot.YAML, "132 results") {
		t.Fatalf("snapshot after the click: want the results page, got\n%s", r.Snapshot.YAML)
	}
}

// clickDoneWaitingNavigation tells a click delivered whose navigation wait timed out from the other timeouts
// of a click, on Playwright's call logs (playwright-core 1.64.1 log lines).
func TestClickDoneWaitingNavigation(t *testing.T) {
	const head = "Timeout 5000ms exceeded.\nCall log:\n  - waiting for locator('aria-ref=e5')\n" +
		"    - locator resolved to <a href=\"/results\">Search</a>\n  - attempting click action\n" +
		"    - waiting for element to be visible, enabled and stable\n    - element is visible, enabled and stable\n" +
		"    - scrolling into view if needed\n    - done scrolling\n    - performing click action\n"
	for msg, want := range map[string]bool{
		head + "    - click action done\n    - waiting for scheduled navigations to finish\n":                                true,
		head + "    - dblclick action done\n    - waiting for scheduled navigations to finish\n":                             true,
		head + "    - click action done\n    - waiting for scheduled navigations to finish\n  - navigations have finished\n": false,
		head: false, // timed out while clicking
		"Timeout 5000ms exceeded.\nCall log:\n  - attempting click action\n" +
			"    - <div class=\"onetrust-pc-dark-filter\"></div> intercepts pointer events\n  - retrying click action\n": false,
	} {
		if got := clickDoneWaitingNavigation(errors.New(msg)); got != want {
			t.Errorf("clickDoneWaitingNavigation(%q) = %t, want %t", msg, got, want)
		}
	}
	if clickDoneWaitingNavigation(nil) {
		t.Error("nil error: true")
	}
}
