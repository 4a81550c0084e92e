package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"webbench/agent/guard"
	"webbench/browser"
	"webbench/results"
	"webbench/suites/zoo"
)

// One driver, one headless Chromium and one Zoo server for the package (TestMain); each test opens a tenant
// and a fresh browser context, as the runner does for an attempt.
var (
	testBrowser *browser.Browser
	testZoo     *zoo.Server
)

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	var err error
	if testZoo, err = zoo.Start(zoo.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	d, err := browser.StartDriver(browser.DriverOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if testBrowser, err = d.Launch(browser.LaunchOptions{Headless: true}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = d.Stop()
		os.Exit(1)
	}
	code := m.Run()
	_ = testBrowser.Close()
	_ = d.Stop()
	_ = testZoo.Close()
	os.Exit(code)
}

// attemptSession opens what the runner opens for one attempt: a Zoo tenant of app with the mutations, a fresh
// browser context fenced to the tenant (its allow-list), on the app's start page.
func attemptSession(t *testing.T, app string, muts ...string) (*browser.Session, *zoo.Tenant) {
	t.Helper()
	return attemptSessionWith(t, 0, app, muts...)
}

// attemptSessionWith is attemptSession with the session's action timeout (0: browser's default).
func attemptSessionWith(t *testing.T, actionTimeout time.Duration, app string, muts ...string) (*browser.Session, *zoo.Tenant) {
	t.Helper()
	if testing.Short() {
		t.Skip("real-Chromium test (-short)")
	}
	tn, err := testZoo.NewTenant(app, muts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tn.Close)
	sess, err := testBrowser.NewSession(browser.SessionOptions{Allowed: tn.Allowed, ActionTimeout: actionTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sess.Close() })
	if err := sess.Navigate(tn.URL("/")); err != nil {
		t.Fatal(err)
	}
	return sess, tn
}

// newServer builds the attempt's server (closed at cleanup).
func newServer(t *testing.T, sess *browser.Session, o Options) *Server {
	t.Helper()
	s, err := New(context.Background(), sess, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// httpClient connects the SDK's own client to the server's Streamable HTTP endpoint.
func httpClient(t *testing.T, s *Server) *mcp.ClientSession {
	t.Helper()
	url, err := s.StartHTTP()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/mcp$`).MatchString(url) {
		t.Fatalf("URL %q, want http://127.0.0.1:PORT/mcp", url)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "webbench-test", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// memClient connects the SDK's client to the server over the SDK's in-memory transport pair.
func memClient(t *testing.T, s *Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "webbench-test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		<-done
	})
	return cs
}

// call makes one tools/call and returns its result and its text content (the first content, which must be
// text).
func call(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("%s: no content", name)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: first content is %T, want text", name, res.Content[0])
	}
	return res, tc.Text
}

// refOf returns the ref on the first snapshot line that contains every part.
func refOf(t *testing.T, snap string, parts ...string) string {
	t.Helper()
	re := regexp.MustCompile(`\[ref=((?:f\d+)?e\d+)\]`)
lines:
	for _, l := range strings.Split(snap, "\n") {
		for _, p := range parts {
			if !strings.Contains(l, p) {
				continue lines
			}
		}
		if m := re.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	t.Fatalf("no ref on a line with %q in:\n%s", parts, snap)
	return ""
}

// canon is v's JSON re-read as a generic value (so schemas from both sides compare by value).
func canon(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// tools/list over Streamable HTTP is Session.ToolDefs: the same tools (listed by the SDK in name order), each
// with the same description and input schema (by value); a session without evaluate lists no browser_evaluate.
func TestToolsListIsToolDefs(t *testing.T) {
	sess, _ := attemptSession(t, "stays")
	cs := httpClient(t, newServer(t, sess, Options{TaskID: "t", Goal: "g"}))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defs := sess.ToolDefs()
	if len(res.Tools) != len(defs) || len(defs) != len(browser.Tools()) {
		t.Fatalf("tools/list has %d tools, ToolDefs %d, the table %d", len(res.Tools), len(defs), len(browser.Tools()))
	}
	// The SDK lists tools sorted by name (its feature set is keyed by name), not in ToolDefs order.
	byName := map[string]*mcp.Tool{}
	for i, tool := range res.Tools {
		byName[tool.Name] = tool
		if i > 0 && res.Tools[i-1].Name >= tool.Name {
			t.Errorf("tools/list not sorted by name at %d: %s, %s", i, res.Tools[i-1].Name, tool.Name)
		}
	}
	for _, d := range defs {
		got := byName[d.Function.Name]
		if got == nil {
			t.Errorf("%s: not listed", d.Function.Name)
			continue
		}
		if got.Description != d.Function.Description {
			t.Errorf("%s: description %q, want %q", got.Name, got.Description, d.Function.Description)
		}
		g, w := canon(t, got.InputSchema), canon(t, d.Function.Parameters)
		if gb, wb := fmt.Sprint(g), fmt.Sprint(w); gb != wb {
			t.Errorf("%s: input schema\n got %s\nwant %s", d.Function.Name, gb, wb)
		}
		def, _ := browser.LookupTool(got.Name)
		if got.Annotations == nil || got.Annotations.ReadOnlyHint != def.ReadOnly {
			t.Errorf("%s: annotations %+v, want readOnlyHint %t", got.Name, got.Annotations, def.ReadOnly)
		}
	}

	// A tool that is not listed is the SDK's protocol error, never a call of the attempt.
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "browser_nope"}); err == nil ||
		!strings.Contains(err.Error(), "browser_nope") {
		t.Errorf("unknown tool: %v", err)
	}

	noEval, err := testBrowser.NewSession(browser.SessionOptions{DisableEvaluate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer noEval.Close()
	for _, tool := range Tools(noEval) {
		if tool.Name == string(browser.ToolEvaluate) {
			t.Fatal("a session with DisableEvaluate lists browser_evaluate")
		}
	}
	if n := len(Tools(noEval)); n != len(defs)-1 {
		t.Fatalf("without evaluate: %d tools, want %d", n, len(defs)-1)
	}
}

// Every tool once, over Streamable HTTP, on the Zoo's stays app: each result is a success whose text is the
// model-facing text the trajectory records, with the tool's real effect (the typed and selected values read
// back by evaluate, the search page the click opened, back, navigate, a PNG screenshot), and the trajectory
// holds one step per call in order.
func TestEveryToolOnce(t *testing.T) {
	sess, tn := attemptSession(t, "stays")
	s := newServer(t, sess, Options{TaskID: "stays-each-tool", Goal: "call every tool once",
		Deadline: time.Now().Add(3 * time.Minute)})
	cs := httpClient(t, s)

	var names []string
	do := func(name string, args any, want ...string) string {
		t.Helper()
		res, text := call(t, cs, name, args)
		names = append(names, name)
		if res.IsError {
			t.Fatalf("%s: tool error:\n%s", name, text)
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: result lacks %q:\n%.1500s", name, w, text)
			}
		}
		return text
	}
	snap := do("browser_snapshot", map[string]any{}, "### Page", "- Page URL: "+tn.URL("/"), "### Snapshot", "[ref=")
	dest := refOf(t, snap, "textbox", "Where are you going?")
	do("browser_type", map[string]any{"target": dest, "text": "Lisbon"}, "### Snapshot")
	snap = do("browser_select_option", map[string]any{"target": refOf(t, snap, "combobox", "Adults"), "values": []string{"3"}})
	do("browser_fill_form", map[string]any{"fields": []map[string]any{{"target": refOf(t, snap, "textbox", "Check-in date"),
		"name": "Check-in date", "type": "textbox", "value": "2026-12-10"}}})
	do("browser_hover", map[string]any{"target": dest})
	do("browser_evaluate", map[string]any{"function": "() => [document.querySelector('#ss').value, " +
		"document.querySelector('#group_adults').value, document.querySelector('#checkin').value].join('|')"},
		"### Result\n\"Lisbon|3|2026-12-10\"")
	do("browser_press_key", map[string]any{"key": "Tab"})
	do("browser_wait_for", map[string]any{"text": "Where are you going?"}, "### Result")
	res, _ := call(t, cs, "browser_take_screenshot", map[string]any{})
	names = append(names, "browser_take_screenshot")
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("screenshot: error %t, %d contents (want text + image)", res.IsError, len(res.Content))
	}
	if img, ok := res.Content[1].(*mcp.ImageContent); !ok || img.MIMEType != "image/png" ||
		!bytes.HasPrefix(img.Data, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot: second content %T is not a PNG image", res.Content[1])
	}
	do("browser_mouse_click_xy", map[string]any{"x": 5, "y": 5}, "### Page")
	snap = do("browser_snapshot", map[string]any{"boxes": true}, "[box=")
	do("browser_click", map[string]any{"target": refOf(t, snap, "button", "Search"), "element": "Search button"},
		"- Page URL: "+tn.URL("search?"), "ss=Lisbon")
	do("browser_navigate_back", map[string]any{}, "- Page URL: "+tn.URL("/"))
	do("browser_navigate", map[string]any{"url": tn.URL("search?ss=Porto")}, "- Page URL: "+tn.URL("search?ss=Porto"))

	seen := map[string]bool{}
	for _, n := range names {
		seen[n] = true
	}
	for _, tool := range browser.Tools() {
		if !seen[string(tool.Name)] {
			t.Errorf("tool %s not called", tool.Name)
		}
	}

	tr := s.Close()
	if tr.TaskID != "stays-each-tool" || tr.SchemaVersion != results.TrajectorySchemaVersion {
		t.Errorf("trajectory task %q schema %d", tr.TaskID, tr.SchemaVersion)
	}
	if len(tr.Steps) != len(names) {
		t.Fatalf("trajectory has %d steps, %d calls were made", len(tr.Steps), len(names))
	}
	for i, st := range tr.Steps {
		if st.Index != i || len(st.ToolCalls) != 1 || len(st.Results) != 1 || st.ToolCalls[0].Name != names[i] ||
			st.Results[0].Call.Name != names[i] {
			t.Fatalf("step %d: %+v, want the call %s", i, st, names[i])
		}
		r := st.Results[0]
		if r.Failed || r.RawText() == "" || r.RawText() != r.ShownText() {
			t.Errorf("step %d %s: failed %t, raw and text differ or are empty (no guard acts here)", i, names[i], r.Failed)
		}
	}
	// The click and the navigations are actions (the stall detector's Progress flag); the snapshot is not.
	if !tr.Steps[len(names)-1].Results[0].Action || tr.Steps[0].Results[0].Action {
		t.Errorf("action flags: navigate %t, snapshot %t", tr.Steps[len(names)-1].Results[0].Action, tr.Steps[0].Results[0].Action)
	}
	// After Close the server refuses calls; the trajectory does not change for a call that never reached it.
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "browser_snapshot"}); err == nil {
		t.Error("a call after Close reached the server")
	}
}

// checkTexts checks that the MCP result text of each call, in order, is the trajectory's model-facing text
// of the same step.
func checkTexts(t *testing.T, tr *results.Trajectory, texts []string) {
	t.Helper()
	if len(tr.Steps) != len(texts) {
		t.Fatalf("%d steps for %d calls", len(tr.Steps), len(texts))
	}
	for i, st := range tr.Steps {
		if got := st.Results[0].ShownText(); got != texts[i] {
			t.Errorf("step %d: trajectory text differs from the MCP result:\n%.400s\n---\n%.400s", i, got, texts[i])
		}
	}
}

// eventsOf returns the actions of guard g in the events of step st.
func eventsOf(st *results.Step, g string) []string {
	var out []string
	for _, e := range st.Events {
		if e.Guard == g {
			out = append(out, e.Action)
		}
	}
	return out
}

// intercept_hint as server middleware, over the SDK's in-memory transport: under the Zoo's consent mutation
// the dialog's dark filter covers the shop's home page, so a click on the "Yoga Mat" link is intercepted. On,
// the model-facing result is the short "Click not delivered" message naming the consent dialog while the raw
// call log stays in the trajectory, with the guard's "condensed" event on that step; off (the variant's
// guards say intercept_hint=off), the same call returns the raw call log itself and no event.
// stale_ref_refresh on the same servers: a click on a ref that is not in the snapshot is followed by a fresh
// snapshot on, not off.
func TestInterceptHintAndStaleRefAsMiddleware(t *testing.T) {
	type arm struct {
		texts []string
		tr    *results.Trajectory
	}
	run := func(t *testing.T, guards map[string]bool) arm {
		// The intercepted click fails when the action timeout ends; 2 s is ample for Playwright to record in
		// its call log the element that intercepts the click (browser's TestCoveredClickError asserts it at 1.5 s).
		sess, _ := attemptSessionWith(t, 2*time.Second, "shop", "consent")
		s := newServer(t, sess, Options{TaskID: "shop-consent", Goal: "open the yoga mat", Guards: guards,
			Deadline: time.Now().Add(2 * time.Minute)})
		cs := memClient(t, s)
		var a arm
		res, snap := call(t, cs, "browser_snapshot", map[string]any{})
		if res.IsError {
			t.Fatal(snap)
		}
		a.texts = append(a.texts, snap)
		res, text := call(t, cs, "browser_click", map[string]any{"target": refOf(t, snap, "link", "Yoga Mat"),
			"element": "Yoga Mat"})
		if !res.IsError {
			t.Fatalf("the click under the consent dialog succeeded:\n%.600s", text)
		}
		a.texts = append(a.texts, text)
		res, text = call(t, cs, "browser_click", map[string]any{"target": "e9999"})
		if !res.IsError || !strings.Contains(text, browser.StaleRefPhrase) {
			t.Fatalf("a click on an unknown ref: %.600s", text)
		}
		a.texts = append(a.texts, text)
		a.tr = s.Close()
		checkTexts(t, a.tr, a.texts)
		return a
	}
	on := run(t, nil)
	offGuards, err := guard.Parse("intercept_hint=off,stale_ref_refresh=off")
	if err != nil {
		t.Fatal(err)
	}
	off := run(t, offGuards)

	// The intercepted click.
	rOn, rOff := on.tr.Steps[1].Results[0], off.tr.Steps[1].Results[0]
	for _, r := range []*results.ToolRecord{rOn, rOff} {
		if !strings.Contains(r.RawText(), "intercepts pointer events") || !strings.Contains(r.RawText(), "onetrust") {
			t.Fatalf("raw result is not the intercepted click's call log:\n%.800s", r.RawText())
		}
	}
	if !strings.HasPrefix(on.texts[1], "### Error\nClick not delivered: ") || !strings.Contains(on.texts[1], "consent") ||
		len(on.texts[1]) >= len(rOn.RawText()) {
		t.Errorf("on: the intercepted click was not condensed (%d bytes raw):\n%s", len(rOn.RawText()), on.texts[1])
	}
	if got := eventsOf(on.tr.Steps[1], guard.NameInterceptHint); len(got) != 1 || got[0] != "condensed" {
		t.Errorf("on: intercept_hint events of the click step %v, want [condensed]", got)
	}
	if on.tr.GuardCounts[guard.NameInterceptHint] != 1 {
		t.Errorf("on: guard counts %v", on.tr.GuardCounts)
	}
	if off.texts[1] != rOff.RawText() || strings.Contains(off.texts[1], "Click not delivered") {
		t.Errorf("off: the model-facing result is not the raw result:\n%.600s", off.texts[1])
	}
	if len(off.tr.Events) != 0 || len(off.tr.GuardCounts) != 0 {
		t.Errorf("off: guard events %v", off.tr.Events)
	}

	// The stale ref.
	if !strings.Contains(on.texts[2], "### Snapshot\n```yaml") || !on.tr.Steps[2].Results[0].Refreshed ||
		on.tr.Steps[2].Results[0].RawText() == on.texts[2] {
		t.Errorf("on: no fresh snapshot after the stale ref:\n%.600s", on.texts[2])
	}
	if got := eventsOf(on.tr.Steps[2], guard.NameStaleRefRefresh); len(got) != 1 || got[0] != "refresh" {
		t.Errorf("on: stale_ref_refresh events %v", got)
	}
	if strings.Contains(off.texts[2], "### Snapshot") || off.texts[2] != off.tr.Steps[2].Results[0].RawText() {
		t.Errorf("off: the stale-ref error was changed:\n%.600s", off.texts[2])
	}
}

// evaluate_isolation and the deadline, over stdio (ServeStdio on pipes, the SDK's IOTransport as the client):
// a never-resolving evaluate is cut by the guard's budget (on) — the tab stays usable — while off it runs
// unbounded until the attempt's deadline ends the call; a call made after the deadline is not executed and
// returns a tool error saying so.
func TestEvaluateIsolationAndDeadline(t *testing.T) {
	hung := map[string]any{"function": "() => new Promise(() => {})"}
	stdio := func(t *testing.T, s *Server) *mcp.ClientSession {
		sr, cw := io.Pipe() // client → server
		cr, sw := io.Pipe() // server → client
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.ServeStdio(ctx, sr, sw) }()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "webbench-test", Version: "v0"}, nil).Connect(ctx,
			&mcp.IOTransport{Reader: cr, Writer: cw}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cs.Close()
			cancel()
			_ = sr.Close()
			<-done
		})
		return cs
	}

	t.Run("on", func(t *testing.T) {
		sess, _ := attemptSession(t, "stays")
		s := newServer(t, sess, Options{TaskID: "eval", Deadline: time.Now().Add(time.Minute)})
		cs := stdio(t, s)
		t0 := time.Now()
		res, text := call(t, cs, "browser_evaluate", hung)
		if !res.IsError || !strings.Contains(text, "evaluate timed out after 5000 ms; page script was terminated") {
			t.Fatalf("on: %.600s", text)
		}
		texts := []string{text}
		if el := time.Since(t0); el > 10*time.Second {
			t.Errorf("on: the bounded evaluate took %v", el)
		}
		res, text = call(t, cs, "browser_evaluate", map[string]any{"function": "() => document.title"})
		if res.IsError || !strings.Contains(text, "### Result\n") {
			t.Fatalf("on: the tab is not usable after the cut evaluate: %.600s", text)
		}
		tr := s.Close()
		checkTexts(t, tr, append(texts, text))
		if got := eventsOf(tr.Steps[0], guard.NameEvaluateIsolation); !slices.Contains(got, "timeout") ||
			!slices.Contains(got, "terminated") {
			t.Errorf("on: evaluate_isolation events %v, want timeout and terminated", got)
		}
	})
	t.Run("off", func(t *testing.T) {
		sess, _ := attemptSession(t, "stays")
		deadline := time.Now().Add(4 * time.Second)
		s := newServer(t, sess, Options{TaskID: "eval", Deadline: deadline,
			Guards: map[string]bool{guard.NameEvaluateIsolation: false}})
		cs := stdio(t, s)
		res, text := call(t, cs, "browser_evaluate", hung)
		if !res.IsError || text != "### Error\nattempt deadline reached while browser_evaluate was running" {
			t.Fatalf("off: %q", text)
		}
		if d := time.Since(deadline); d < 0 || d > 3*time.Second {
			t.Errorf("off: the unbounded evaluate returned %v after the deadline", d)
		}
		res, text = call(t, cs, "browser_snapshot", map[string]any{})
		if !res.IsError || !strings.Contains(text, "attempt deadline ("+deadline.UTC().Format(time.RFC3339)+
			") has passed: browser_snapshot was not run") {
			t.Fatalf("after the deadline: %q", text)
		}
		tr := s.Close()
		if len(tr.Steps) != 2 || !tr.Steps[1].Results[0].Failed || len(tr.Events) != 0 {
			t.Fatalf("off: trajectory %d steps, events %v", len(tr.Steps), tr.Events)
		}
	})
}

// An unknown guard name is refused, listing the valid names.
func TestUnknownGuard(t *testing.T) {
	if _, err := New(context.Background(), nil, Options{Guards: map[string]bool{"intercept_hnt": true}}); err == nil ||
		!strings.Contains(err.Error(), "intercept_hint") {
		t.Fatalf("err %v", err)
	}
}

// snapshot_ready as server middleware (the session's snapshot filter runs the AfterSnapshot hooks): under the
// Zoo's late_hydration mutation the chat ships an empty shell and renders its form 2–8 s after the page loads,
// so an agent's first browser_snapshot, right after the runner opened the start page, has no interactive ref.
// On, the guard re-captures until the form is there (events "recapture" … "ready" on that step); off, the
// agent gets the empty shell.
func TestSnapshotReadyAsMiddleware(t *testing.T) {
	run := func(t *testing.T, guards map[string]bool) (string, *results.Trajectory) {
		sess, _ := attemptSession(t, "chat", "late_hydration")
		s := newServer(t, sess, Options{TaskID: "chat-hydration", Guards: guards, Deadline: time.Now().Add(time.Minute)})
		cs := memClient(t, s)
		res, text := call(t, cs, "browser_snapshot", map[string]any{})
		if res.IsError {
			t.Fatalf("snapshot: %s", text)
		}
		tr := s.Close()
		checkTexts(t, tr, []string{text})
		return text, tr
	}
	snapOf := func(text string) string {
		r := browser.ParseResult(text)
		return r.Snapshot.YAML
	}
	onText, on := run(t, nil)
	if !browser.HasInteractiveRef(snapOf(onText)) {
		t.Errorf("on: the snapshot has no interactive ref:\n%s", onText)
	}
	if got := eventsOf(on.Steps[0], guard.NameSnapshotReady); len(got) < 2 || got[0] != "recapture" || got[len(got)-1] != "ready" {
		t.Errorf("on: snapshot_ready events %v, want recapture … ready", got)
	}
	offText, off := run(t, map[string]bool{guard.NameSnapshotReady: false})
	if browser.HasInteractiveRef(snapOf(offText)) {
		t.Errorf("off: the navigate's snapshot already had an interactive ref (the mutation did not bite):\n%s", offText)
	}
	if len(off.Events) != 0 {
		t.Errorf("off: events %v", off.Events)
	}
}
