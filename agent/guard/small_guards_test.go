package guard

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"webbench/agent"
	"webbench/browser"
)

func TestHasInteractiveRef(t *testing.T) {
	cases := []struct {
		snap string
		want bool
	}{
		// The sparse pre-hydration shell of seed 002.
		{"- generic [ref=e1]:\n  - img [ref=e2]\n  - img [ref=e3]", false},
		{`- generic "button" [ref=e5]`, false},
		{`- text "click the link below" [ref=e6]`, false},
		{`- heading "button" [level=1] [ref=e3]`, false},
		{`- button "Go"`, false}, // no ref
		{`- tablist [ref=e4]`, false},
		{`- table "links" [ref=e4]`, false},
		{`- 'button "Go"' [ref=e2]`, true},
		{`- 'button "Go: now" [ref=e2]'`, true},
		{`- button "Go" [ref=e2] [cursor=pointer]`, true},
		{"- generic [ref=e1]:\n  - link \"Home\" [ref=f1e4]:\n    - /url: /", true},
		{"- main:\n    - textbox \"Email\" [ref=e3]", true},
		{`- menuitemcheckbox "Bold" [checked] [ref=e9]`, true},
		{`- tab "Settings" [selected] [ref=e7]`, true},
		{`- switch [ref=e8]`, true},
		{`- combobox "Sort" [ref=e10]`, true},
		{`- spinbutton "Qty" [ref=e11]`, true},
		{"", false},
	}
	for _, c := range cases {
		if got := browser.HasInteractiveRef(c.snap); got != c.want {
			t.Errorf("HasInteractiveRef(%q) = %v", c.snap, got)
		}
	}
}

func TestSnapshotReady(t *testing.T) {
	shell := "- generic [ref=e1]:\n  - img [ref=e2]"
	form := "- generic [ref=e1]:\n  - textbox \"Email\" [ref=e3]\n  - button \"Log in\" [ref=e4]"

	// Hydrates on the 2nd re-capture.
	var calls int
	g := SnapshotReady{Wait: 20 * time.Millisecond, MaxRecaptures: 3, capture: func(*agent.Attempt, bool) (string, error) {
		calls++
		if calls == 2 {
			return form, nil
		}
		return shell, nil
	}}
	a := newAttempt(t)
	t0 := time.Now()
	if got := g.AfterSnapshot(a, shell); got != form {
		t.Fatalf("got %q", got)
	}
	if calls != 2 || time.Since(t0) < 40*time.Millisecond {
		t.Fatalf("calls %d after %v", calls, time.Since(t0))
	}
	if ev := a.Events(); len(ev) != 3 || ev[2].Action != "ready" || ev[2].Detail != "recaptures=2" {
		t.Fatalf("events %+v", ev)
	}

	// Never hydrates: initial + 3 re-captures, then the last capture is handed over.
	calls = 0
	g.capture = func(*agent.Attempt, bool) (string, error) {
		calls++
		if calls == 2 {
			return "", errors.New("snapshot failed")
		}
		return shell + strings.Repeat("\n  - img", calls), nil
	}
	a = newAttempt(t)
	if got := g.AfterSnapshot(a, shell); got != shell+"\n  - img\n  - img\n  - img" {
		t.Fatalf("got %q", got)
	}
	if ev := a.Events(); calls != 3 || ev[len(ev)-1].Action != "gave_up" {
		t.Fatalf("calls %d events %+v", calls, ev)
	}

	// Without MaxRecaptures the budget bounds the re-captures: at most ReadyTimeout / Wait of them.
	calls = 0
	g = SnapshotReady{Wait: 20 * time.Millisecond, ReadyTimeout: 100 * time.Millisecond,
		capture: func(*agent.Attempt, bool) (string, error) { calls++; return shell, nil }}
	a = newAttempt(t)
	if got := g.AfterSnapshot(a, shell); got != shell {
		t.Fatalf("got %q", got)
	}
	if ev := a.Events(); calls < 1 || calls > 5 || ev[len(ev)-1].Action != "gave_up" ||
		ev[len(ev)-1].Detail != fmt.Sprintf("recaptures=%d", calls) {
		t.Fatalf("calls %d events %+v", calls, ev)
	}

	// A snapshot with an actionable element is a no-op; boxes are kept on re-capture.
	calls = 0
	a = newAttempt(t)
	if got := g.AfterSnapshot(a, form); got != form || calls != 0 || len(a.Events()) != 0 {
		t.Fatalf("no-op expected: calls %d", calls)
	}
	var boxes bool
	g.capture = func(_ *agent.Attempt, b bool) (string, error) { boxes = b; return form, nil }
	g.AfterSnapshot(a, "- img [ref=e2] [box=0,0,10,10]")
	if !boxes {
		t.Fatal("boxes not kept")
	}
}

// On a backend that can wait for the page (waitReady), snapshot_ready waits on it and re-captures once the page
// shows an interactive element; it falls back to the timer when that wait fails or the re-capture disagrees.
func TestSnapshotReadyWaitsForThePage(t *testing.T) {
	shell := "- generic [ref=e1]:\n  - img [ref=e2]"
	form := "- generic [ref=e1]:\n  - textbox \"Email\" [ref=e3]\n  - button \"Log in\" [ref=e4]"
	type answer struct {
		shown bool
		err   error
	}
	cases := []struct {
		name     string
		waits    []answer // what each wait for the page answers
		captures []string // what each re-capture returns
		want     string
		events   []string // action detail
	}{
		{"renders", []answer{{true, nil}}, []string{form}, form,
			[]string{"recapture n=1 interactive=true bytes=77", "ready recaptures=1"}},
		{"never renders: one wait, then the last capture", []answer{{false, nil}}, []string{shell}, shell,
			[]string{"recapture n=1 interactive=false bytes=36", "gave_up recaptures=1"}},
		{"the snapshot disagrees with the page: the timer next", []answer{{true, nil}}, []string{shell, form}, form,
			[]string{"recapture n=1 interactive=false bytes=36", "recapture n=2 interactive=true bytes=77",
				"ready recaptures=2"}},
		{"the wait fails: the timer", []answer{{false, errors.New("page closed")}}, []string{form}, form,
			[]string{"recapture n=1 interactive=true bytes=77", "ready recaptures=1"}},
		// The page was shown but its re-capture failed: the next one comes after the timer, not after another
		// wait that would return at once (a loop of re-captures without a pause).
		{"shown, the capture fails: the timer next", []answer{{true, nil}}, []string{"error", form}, form,
			[]string{"recapture n=1 error=snapshot failed", "recapture n=2 interactive=true bytes=77",
				"ready recaptures=2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var waits, captures int
			var timeouts []time.Duration
			g := SnapshotReady{Wait: 10 * time.Millisecond, ReadyTimeout: 5 * time.Second,
				waitReady: func(_ *agent.Attempt, d time.Duration) (bool, error) {
					timeouts = append(timeouts, d)
					waits++
					if waits > len(c.waits) {
						t.Fatalf("wait %d: the page was waited for again", waits)
					}
					return c.waits[waits-1].shown, c.waits[waits-1].err
				},
				capture: func(*agent.Attempt, bool) (string, error) {
					captures++
					if c.captures[captures-1] == "error" {
						return "", errors.New("snapshot failed")
					}
					return c.captures[captures-1], nil
				}}
			a := newAttempt(t)
			if got := g.AfterSnapshot(a, shell); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			var got []string
			for _, e := range a.Events() {
				got = append(got, e.Action+" "+e.Detail)
			}
			if !slices.Equal(got, c.events) || captures != len(c.captures) || waits != len(c.waits) {
				t.Fatalf("events %q (want %q), %d captures, %d waits", got, c.events, captures, waits)
			}
			if timeouts[0] <= 0 || timeouts[0] > 5*time.Second {
				t.Fatalf("waited for the page at most %v, want the rest of ReadyTimeout (5 s)", timeouts[0])
			}
		})
	}
}

func TestStaleRefRefresh(t *testing.T) {
	a := newAttempt(t)
	res := failed(browser.Result{Error: browser.StaleRefMessage("e44"), URL: "u"})
	StaleRefRefresh{}.AfterToolCall(a, agent.ToolCall{Name: "browser_click"}, res)
	if !res.RefreshSnapshot || len(a.Events()) != 1 || a.Events()[0].Action != "refresh" {
		t.Fatalf("refresh %v events %+v", res.RefreshSnapshot, a.Events())
	}
	// A result read from its text form: the "### Error" section is its Error.
	res = textResult("### Error\nRef e9 not found in the current page snapshot. Try capturing new snapshot.")
	StaleRefRefresh{}.AfterToolCall(a, agent.ToolCall{Name: "browser_type"}, res)
	if !res.RefreshSnapshot {
		t.Fatal("raw stale-ref error not refreshed")
	}
	// Other errors, and successful results quoting the phrase, keep the old behaviour.
	for _, r := range []*agent.ToolResult{
		failed(browser.Result{Error: "TimeoutError: locator.click: Timeout 5000ms exceeded."}),
		textResult("### Result\n\"not found in the current page snapshot\""),
	} {
		StaleRefRefresh{}.AfterToolCall(a, agent.ToolCall{Name: "browser_click"}, r)
		if r.RefreshSnapshot {
			t.Fatalf("refreshed %q", r.Raw.Format())
		}
	}
	if len(a.Events()) != 2 {
		t.Fatalf("events %+v", a.Events())
	}
}

func TestVisualProgress(t *testing.T) {
	a := newAttempt(t)
	g := VisualProgress{}
	ok := resultOf(browser.Result{URL: "u"})
	bad := failed(browser.Result{Error: "x"})
	xy := agent.ToolCall{Name: "browser_mouse_click_xy", Args: `{"x":10,"y":20}`}
	if !g.IsProgress(a, xy, ok, false) {
		t.Fatal("a successful visual click is progress")
	}
	if !g.IsProgress(a, agent.ToolCall{Name: "mcp__playwright__browser_mouse_click_xy"}, ok, false) {
		t.Fatal("prefixed name")
	}
	if g.IsProgress(a, xy, bad, false) {
		t.Fatal("a failed visual click is not progress")
	}
	if !g.IsProgress(a, agent.ToolCall{Name: "browser_click"}, ok, true) || g.IsProgress(a, agent.ToolCall{Name: "browser_snapshot"}, ok, false) ||
		g.IsProgress(a, agent.ToolCall{Name: "browser_evaluate"}, ok, false) {
		t.Fatal("other tools keep the default")
	}
	if n := len(a.Events()); n != 2 {
		t.Fatalf("%d events", n)
	}
	// Off (the guard absent), the loop's default for browser_mouse_click_xy is false.
	if def, _ := browser.LookupTool("browser_mouse_click_xy"); def.Progress || !def.Acts {
		t.Fatal("mouse_click_xy acts on the page but must not be a default action")
	}
}

func TestRegistry(t *testing.T) {
	want := []string{"intercept_hint", "repeat_guard", "final_recovery", "snapshot_ready", "stale_ref_refresh",
		"evaluate_isolation", "visual_progress"}
	if got := strings.Join(Names(), ","); got != strings.Join(want, ",") {
		t.Fatalf("names %s", got)
	}
	d := Default()
	if len(d) != 7 {
		t.Fatalf("default %v", d)
	}
	for _, n := range want {
		if !d[n] {
			t.Fatalf("%s off by default", n)
		}
	}
	m, err := Parse("repeat_guard=off,intercept_hint=on")
	if err != nil || m["repeat_guard"] || !m["intercept_hint"] || !m["visual_progress"] || len(m) != 7 {
		t.Fatalf("%v %v", m, err)
	}
	for _, spec := range []string{"all=off", "none", " none "} {
		m, err = Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		for n, on := range m {
			if on {
				t.Fatalf("%s: %s on", spec, n)
			}
		}
	}
	m, err = Parse("none,visual_progress=on")
	if err != nil || !m["visual_progress"] || m["repeat_guard"] {
		t.Fatalf("%v %v", m, err)
	}
	m, err = Parse("")
	if err != nil || len(m) != 7 || !m["final_recovery"] {
		t.Fatalf("%v %v", m, err)
	}
	for _, spec := range []string{"bogus=off", "repeat_gaurd=off", "none=on"} {
		_, err = Parse(spec)
		if err == nil {
			t.Fatalf("%s: no error", spec)
		}
		for _, n := range want {
			if !strings.Contains(err.Error(), n) {
				t.Fatalf("%s: error %q does not list %s", spec, err, n)
			}
		}
	}
	if _, err = Parse("repeat_guard=maybe"); err == nil {
		t.Fatal("bad value accepted")
	}

	hooks, err := Build(nil)
	if err != nil || len(hooks) != 7 {
		t.Fatalf("%d %v", len(hooks), err)
	}
	for i, h := range hooks {
		if h.Name() != want[i] {
			t.Fatalf("hook %d is %s", i, h.Name())
		}
	}
	hooks, err = Build(map[string]bool{"repeat_guard": false, "visual_progress": false, "final_recovery": true})
	if err != nil || len(hooks) != 5 || hooks[1].Name() != "final_recovery" || hooks[4].Name() != "evaluate_isolation" {
		t.Fatalf("%v %v", hooks, err)
	}
	off, _ := Parse("all=off")
	if hooks, _ = Build(off); len(hooks) != 0 {
		t.Fatalf("all off: %d hooks", len(hooks))
	}
	if _, err = Build(map[string]bool{"nope": true}); err == nil || !strings.Contains(err.Error(), "evaluate_isolation") {
		t.Fatalf("unknown name: %v", err)
	}

	// Each guard implements exactly the hooks GUARDS.md gives it.
	var (
		_ agent.AfterToolCaller   = InterceptHint{}
		_ agent.AfterToolCaller   = RepeatGuard{}
		_ agent.BeforeModelCaller = RepeatGuard{}
		_ agent.Finisher          = FinalRecovery{}
		_ agent.AfterSnapshotter  = SnapshotReady{}
		_ agent.AfterToolCaller   = StaleRefRefresh{}
		_ agent.ToolWrapper       = EvaluateIsolation{}
		_ agent.ProgressJudge     = VisualProgress{}
	)
	if _, ok := any(FinalRecovery{}).(agent.AfterToolCaller); ok {
		t.Fatal("final_recovery must not touch tool results")
	}
}

// BuildToolLevel keeps the tool-level guards that are on, in registry order, and drops the model-level ones
// (repeat_guard, final_recovery, visual_progress) whatever their switch; unknown names are refused as by Build.
func TestBuildToolLevel(t *testing.T) {
	want := "intercept_hint,snapshot_ready,stale_ref_refresh,evaluate_isolation"
	if got := strings.Join(ToolLevel(), ","); got != want {
		t.Fatalf("ToolLevel %s, want %s", got, want)
	}
	names := func(hs []agent.Hook) string {
		var out []string
		for _, h := range hs {
			out = append(out, h.Name())
		}
		return strings.Join(out, ",")
	}
	hooks, err := BuildToolLevel(nil)
	if err != nil || names(hooks) != want {
		t.Fatalf("nil settings: %s %v", names(hooks), err)
	}
	m, _ := Parse("intercept_hint=off,repeat_guard=on,visual_progress=on")
	if hooks, err = BuildToolLevel(m); err != nil || names(hooks) != "snapshot_ready,stale_ref_refresh,evaluate_isolation" {
		t.Fatalf("intercept_hint off: %s %v", names(hooks), err)
	}
	off, _ := Parse("none")
	if hooks, _ = BuildToolLevel(off); len(hooks) != 0 {
		t.Fatalf("none: %s", names(hooks))
	}
	if _, err = BuildToolLevel(map[string]bool{"nope": true}); err == nil || !strings.Contains(err.Error(), "intercept_hint") {
		t.Fatalf("unknown name: %v", err)
	}
}
