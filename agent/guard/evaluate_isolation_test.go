package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"webbench/agent"
	"webbench/browser"
)

const evalPage = `<!doctype html><html><head><title>Eval demo</title></head><body>
<button id="go" onclick="this.textContent='done'">Go</button>
<input id="q" aria-label="Query">
<button id="covered" style="position:absolute;top:420px;left:20px">Covered</button>
<div id="onetrust-consent-sdk"><div class="onetrust-pc-dark-filter ot-fade-in"
  style="position:fixed;top:400px;left:0;width:100%;height:100px;background:#0004;z-index:9"></div></div>
</body></html>`

var (
	evalOnce    sync.Once
	evalBrowser *browser.Browser
	evalURL     string
	evalErr     error
)

// evalSession starts (once per test binary) a driver, Chromium and a page server, and opens a fresh session on
// the page with its first snapshot taken.
func evalSession(t *testing.T) (*browser.Session, string) {
	t.Helper()
	return evalSessionWith(t, browser.SessionOptions{})
}

func evalSessionWith(t *testing.T, o browser.SessionOptions) (*browser.Session, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test (needs Chromium)")
	}
	evalOnce.Do(func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, evalPage)
		}))
		evalURL = srv.URL + "/"
		d, err := browser.StartDriver(browser.DriverOptions{})
		if err != nil {
			evalErr = err
			return
		}
		evalBrowser, evalErr = d.Launch(browser.LaunchOptions{Headless: true})
		// The driver, browser and server live until the test binary exits.
	})
	if evalErr != nil {
		t.Fatal(evalErr)
	}
	s, err := evalBrowser.NewSession(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Navigate(evalURL); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Observe(false)
	if err != nil {
		t.Fatal(err)
	}
	return s, snap
}

func refFor(t *testing.T, snap, part string) string {
	t.Helper()
	for _, l := range strings.Split(snap, "\n") {
		if strings.Contains(l, part) {
			if m := browser.RefPattern.FindStringSubmatch(l); m != nil {
				return m[1]
			}
		}
	}
	t.Fatalf("no ref for %q in\n%s", part, snap)
	return ""
}

func evalArgs(fn, target string) string {
	m := map[string]string{"function": fn}
	if target != "" {
		m["target"] = target
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// runEval runs browser_evaluate through the guard; next (the plain tool) must not be reached.
func runEval(t *testing.T, g EvaluateIsolation, a *agent.Attempt, fn, target string) (*agent.ToolResult, time.Duration) {
	t.Helper()
	call := agent.ToolCall{Name: "browser_evaluate", Args: evalArgs(fn, target)}
	next := func(context.Context, agent.ToolCall) browser.Result {
		t.Fatal("the plain evaluate ran")
		return browser.Result{}
	}
	t0 := time.Now()
	res := resultOf(g.WrapTool(a, call, next)(a.Ctx, call))
	return res, time.Since(t0)
}

func plain(s *browser.Session, tool string, args string) browser.Result {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.Call(ctx, tool, json.RawMessage(args))
}

func TestEvaluateIsolationHungAndBusy(t *testing.T) {
	s, snap := evalSession(t)
	a := agent.NewAttempt(context.Background(), "t", "g", s, time.Now().Add(time.Minute), nil)
	g := EvaluateIsolation{Cap: time.Second}
	goRef := refFor(t, snap, `button "Go"`)

	for _, fn := range []string{
		"() => new Promise(()=>{})",              // never resolves
		"() => { while(true){} }",                // busy loop: the page-side timeout terminates it
		"async () => { await 0; while(true){} }", // busy microtask: terminated from the Go side
	} {
		res, took := runEval(t, g, a, fn, "")
		if took > 4*time.Second || took < 900*time.Millisecond {
			t.Fatalf("%s: returned after %v (budget 1 s)", fn, took)
		}
		if !res.Failed() || !strings.HasPrefix(res.Result.Format(), "### Error\nevaluate timed out after 1000 ms; page script was terminated") {
			t.Fatalf("%s: %q", fn, res.Result.Format())
		}
		// The tab still works: a read and a click by ref.
		r := plain(s, "browser_evaluate", evalArgs("() => document.title", ""))
		if r.IsError() || r.Result != `"Eval demo"` {
			t.Fatalf("after %s: evaluate %+v", fn, r)
		}
	}
	t0 := time.Now()
	r := plain(s, string(browser.ToolClick), fmt.Sprintf(`{"target":%q}`, goRef))
	if r.IsError() || time.Since(t0) > 3*time.Second {
		t.Fatalf("click after the hung evaluates: %v %q", time.Since(t0), r.Error)
	}
	if !strings.Contains(r.Snapshot.YAML, `button "done"`) {
		t.Fatalf("click not delivered:\n%s", r.Snapshot.YAML)
	}
	r = plain(s, "browser_snapshot", `{}`)
	if r.IsError() || !strings.Contains(r.Snapshot.YAML, `textbox "Query"`) {
		t.Fatalf("snapshot after: %+v", r)
	}

	var timeouts, terminated int
	for _, e := range a.Events() {
		if e.Guard != NameEvaluateIsolation {
			t.Fatalf("event %+v", e)
		}
		switch e.Action {
		case "timeout":
			timeouts++
		case "terminated":
			terminated++
			if !strings.HasPrefix(e.Detail, "ok=true") {
				t.Fatalf("termination failed: %+v", e)
			}
		}
	}
	if timeouts != 3 || terminated != 3 {
		t.Fatalf("events %+v", a.Events())
	}
}

func TestEvaluateIsolationValuesTargetsAndBudget(t *testing.T) {
	s, snap := evalSession(t)
	a := agent.NewAttempt(context.Background(), "t", "g", s, time.Now().Add(time.Minute), nil)
	g := EvaluateIsolation{Cap: time.Second}
	goRef := refFor(t, snap, `button "Go"`)

	// Values render exactly as the plain tool renders them.
	for _, fn := range []string{"() => document.title", "() => ({a: 1, b: [true, 'x'], c: null})", "() => undefined",
		"() => 2.5", "async () => { await new Promise(r => setTimeout(r, 50)); return 'late'; }"} {
		res, _ := runEval(t, g, a, fn, "")
		want := plain(s, "browser_evaluate", evalArgs(fn, ""))
		if res.Failed() || res.Raw.Result != want.Result || res.Raw.URL != want.URL || res.Raw.Title != want.Title {
			t.Fatalf("%s: guard %+v, plain %+v", fn, res.Raw, want)
		}
	}
	// A page exception is an error result.
	res, _ := runEval(t, g, a, "() => { throw new Error('boom') }", "")
	if !res.Failed() || !strings.Contains(res.Result.Format(), "boom") {
		t.Fatalf("exception: %q", res.Result.Format())
	}

	// With a target the function gets the element.
	res, _ = runEval(t, g, a, "(el) => el.textContent + ':' + el.id", goRef)
	if res.Failed() || res.Raw.Result != `"Go:go"` {
		t.Fatalf("target: %q", res.Result.Format())
	}
	// A busy loop on a target is cut off too, and the element still answers afterwards.
	res, took := runEval(t, g, a, "(el) => { while(true){} }", goRef)
	if !res.Failed() || !strings.Contains(res.Result.Format(), "evaluate timed out after 1000 ms; page script was terminated") || took > 4*time.Second {
		t.Fatalf("busy target: %v %q", took, res.Result.Format())
	}
	res, _ = runEval(t, g, a, "(el) => el.tagName", goRef)
	if res.Failed() || res.Raw.Result != `"BUTTON"` {
		t.Fatalf("target after: %q", res.Result.Format())
	}
	// A stale ref fails at once with the plain tool's message.
	res, took = runEval(t, g, a, "(el) => 1", "e999")
	if !res.Failed() || !strings.Contains(res.Result.Format(), browser.StaleRefMessage("e999")) || took > 2*time.Second {
		t.Fatalf("stale: %v %q", took, res.Result.Format())
	}

	// The budget is the attempt's remaining time when that is shorter than the cap.
	short := agent.NewAttempt(context.Background(), "t", "g", s, time.Now().Add(400*time.Millisecond), nil)
	res, took = runEval(t, EvaluateIsolation{}, short, "() => new Promise(()=>{})", "")
	if !res.Failed() || !strings.Contains(res.Result.Format(), "page script was terminated") || took > 3*time.Second {
		t.Fatalf("short budget: %v %q", took, res.Result.Format())
	}
	// Other tools pass through; a session with evaluate disabled keeps the plain tool (which refuses).
	called := false
	next := func(context.Context, agent.ToolCall) browser.Result { called = true; return browser.Result{} }
	g.WrapTool(a, agent.ToolCall{Name: "browser_click"}, next)(context.Background(), agent.ToolCall{Name: "browser_click"})
	if !called {
		t.Fatal("browser_click did not pass through")
	}
	off, err := evalBrowser.NewSession(browser.SessionOptions{DisableEvaluate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	called = false
	b := agent.NewAttempt(context.Background(), "t", "g", off, time.Now().Add(time.Minute), nil)
	call := agent.ToolCall{Name: "browser_evaluate", Args: evalArgs("() => 1", "")}
	g.WrapTool(b, call, next)(context.Background(), call)
	if !called {
		t.Fatal("evaluate disabled: the guard must leave the call to the tool")
	}
}

// intercept_hint on a real covered click: Playwright's call log from this machine's stack is condensed.
func TestInterceptHintRealClick(t *testing.T) {
	s, snap := evalSessionWith(t, browser.SessionOptions{ActionTimeout: time.Second})
	ref := refFor(t, snap, `button "Covered"`)
	r := plain(s, string(browser.ToolClick), fmt.Sprintf(`{"target":%q}`, ref))
	if !r.IsError() || !strings.Contains(r.Error, "intercepts pointer events") {
		t.Fatalf("expected an intercepted click, got %+v", r)
	}
	res := resultOf(r)
	a := agent.NewAttempt(context.Background(), "t", "g", s, time.Now().Add(time.Minute), nil)
	InterceptHint{}.AfterToolCall(a, agent.ToolCall{Name: "browser_click"}, res)
	want := "### Error\nClick not delivered: button#covered is covered by div.onetrust-pc-dark-filter (inside " +
		"div#onetrust-consent-sdk). This is a cookie-consent dialog"
	if !strings.HasPrefix(res.Result.Format(), want) || !strings.HasSuffix(res.Result.Format(), "\n### Page\n- Page URL: "+r.URL+"\n- Page Title: Eval demo") {
		t.Fatalf("text:\n%s\nraw:\n%s", res.Result.Format(), res.Raw.Format())
	}
	if len(res.Result.Format()) >= len(res.Raw.Format()) {
		t.Fatalf("not shorter: %d >= %d", len(res.Result.Format()), len(res.Raw.Format()))
	}
}
