package mcptools

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"webbench/agent"
	"webbench/agent/guard"
	"webbench/browser"
	"webbench/suites/zoo"
)

// These tests drive real Playwright MCP servers (@playwright/mcp 0.0.83 and 0.0.78, installed by `make setup`
// into .cache/mcp/VERSION; https://github.com/microsoft/playwright-mcp) with real Chromium on a real Zoo
// tenant. The result format they rely on is the server's own (### Ran Playwright code, ### Page, ### Snapshot
// with a `- [Snapshot](.playwright-mcp/page-….yml)` link after actions, ### Error with Playwright's call log),
// as printed by the servers themselves: each assertion compares against what the server sent.

var testZoo *zoo.Server

// versions are the pinned Playwright MCP releases compared (suites/zoo/ablations/mcp-versions.yaml).
var versions = []string{"0.0.83", "0.0.78"}

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
	code := m.Run()
	_ = testZoo.Close()
	os.Exit(code)
}

// startOn starts Playwright MCP VERSION (the pinned install, never the registry) restricted to a fresh tenant
// of app with the mutations, and opens the tenant's start page with browser_navigate.
func startOn(t *testing.T, version, app string, muts ...string) (*Client, *zoo.Tenant) {
	t.Helper()
	return startWith(t, Options{}, version, app, muts...)
}

// startWith is startOn with options o (Command and Allowed are set here).
func startWith(t *testing.T, o Options, version, app string, muts ...string) (*Client, *zoo.Tenant) {
	t.Helper()
	if testing.Short() {
		t.Skip("real Playwright MCP + Chromium test (-short)")
	}
	argv, v := Resolve([]string{"npx", "@playwright/mcp@" + version}, "")
	if v != version || len(argv) < 2 || !strings.HasSuffix(argv[1], filepath.Join(version, "node_modules", "@playwright", "mcp", "cli.js")) {
		t.Fatalf("@playwright/mcp@%s is not installed in .cache/mcp (run make setup): resolved %q", version, argv)
	}
	tn, err := testZoo.NewTenant(app, muts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tn.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o.Command, o.Allowed = []string{"npx", "@playwright/mcp@" + version}, tn.Allowed
	c, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	r := c.Call(ctx, "browser_navigate", json.RawMessage(fmt.Sprintf(`{"url":%q}`, tn.URL("/"))))
	if r.Error != "" {
		t.Fatalf("navigate: %s", r.Error)
	}
	return c, tn
}

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

func eventsOf(a *agent.Attempt, g string) []string {
	var out []string
	for _, e := range a.Events() {
		if e.Guard == g {
			out = append(out, e.Action)
		}
	}
	return out
}

// The server's action results link the snapshot to a file; the backend reads it, so the result the model gets
// has the snapshot inline (refs included), and the page section names the tenant URL. Snapshot() is a
// browser_snapshot call.
func TestActionSnapshotInline(t *testing.T) {
	// The server (and its Chromium) inherit these: without Start's contextOptions the page would report them.
	t.Setenv("TZ", "Asia/Tokyo")
	t.Setenv("LANG", "fr_FR.UTF-8")
	t.Setenv("LANGUAGE", "fr")
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c, tn := startOn(t, v, "shop")
			snap, err := c.Snapshot(false)
			if err != nil {
				t.Fatal(err)
			}
			if url, _ := c.PageInfo(); url != tn.URL("/") {
				t.Errorf("PageInfo URL %q, want %q", url, tn.URL("/"))
			}
			ref := refOf(t, snap, "link", "Yoga Mat")
			r := c.Call(context.Background(), "browser_click", json.RawMessage(`{"target":"`+ref+`","element":"Yoga Mat"}`))
			if r.Error != "" {
				t.Fatal(r.Error)
			}
			if !strings.Contains(r.URL, "/t/") || !strings.HasPrefix(r.URL, tn.URL("/")) || r.URL == tn.URL("/") {
				t.Errorf("click result URL %q: not a product page of the tenant", r.URL)
			}
			if len(browser.Refs(r.Snapshot.YAML)) == 0 || !strings.Contains(r.Snapshot.YAML, "Yoga Mat") {
				t.Errorf("click result has no inline snapshot with refs:\n%s", r.Format())
			}
			if !r.HasNote("Ran Playwright code") {
				t.Errorf("the server's code section is not kept as a note:\n%s", r.Format())
			}
			if strings.Contains(r.Format(), "[Snapshot](") {
				t.Errorf("the file link survived:\n%s", r.Format())
			}
			// The context is webbench's: viewport 1280×720, locale en-US, time zone UTC (the config file Start writes).
			ev := c.Call(context.Background(), "browser_evaluate", json.RawMessage(
				`{"function":"() => [innerWidth, innerHeight, navigator.language, Intl.DateTimeFormat().resolvedOptions().timeZone].join(' ')"}`))
			if ev.Result != `"1280 720 en-US UTC"` {
				t.Errorf("context: %s", ev.Format())
			}
			// The judge's screenshot is a browser_take_screenshot PNG (its 8-byte signature, RFC 2083 §3.1).
			if err := c.CaptureForJudge(3); err != nil {
				t.Fatal(err)
			}
			if shots := c.Screenshots(); len(shots) != 1 || !strings.HasPrefix(string(shots[0]), "\x89PNG\r\n\x1a\n") {
				t.Errorf("judge screenshots: %d, not a PNG", len(shots))
			}
			if steps := c.ScreenshotSteps(); !slices.Equal(steps, []int{3}) {
				t.Errorf("judge screenshot steps: %v, want [3]", steps)
			}
			// The tools offered are the server's tools/list, schemas without "$schema".
			var click map[string]any
			for _, d := range c.ToolDefs() {
				if d.Function.Name == "browser_click" {
					click, _ = d.Function.Parameters.(map[string]any)
				}
			}
			props, _ := click["properties"].(map[string]any)
			if _, ok := props["target"]; !ok || click["$schema"] != nil {
				t.Errorf("browser_click schema %v", click)
			}
		})
	}
}

// The server's browser is fenced to the attempt's tenant by the proxy: another tenant's URL on the same Zoo
// origin fails and is listed in Blocked; the tenant's own pages load.
func TestAllowList(t *testing.T) {
	c, tn := startOn(t, versions[0], "shop")
	other, err := testZoo.NewTenant("shop", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	r := c.Call(context.Background(), "browser_navigate", json.RawMessage(fmt.Sprintf(`{"url":%q}`, other.URL("/"))))
	b := c.Blocked()
	if !slices.Contains(b, other.URL("/")) {
		t.Fatalf("another tenant's page was not blocked: blocked %q, result:\n%.800s", b, r.Format())
	}
	if strings.Contains(r.Snapshot.YAML, "Yoga Mat") {
		t.Errorf("the other tenant's shop rendered:\n%s", r.Snapshot.YAML)
	}
	r = c.Call(context.Background(), "browser_navigate", json.RawMessage(fmt.Sprintf(`{"url":%q}`, tn.URL("/cart"))))
	if r.Error != "" || r.URL != tn.URL("/cart") {
		t.Errorf("own cart: %s", r.Format())
	}
}

// intercept_hint, stale_ref_refresh and evaluate_isolation wrap the MCP calls through agent.CallTool, the code
// path of the built-in loop. Under the Zoo's consent mutation the click on the "Yoga Mat" link is intercepted:
// Playwright MCP's raw result is Playwright's call log naming the element that "intercepts pointer events"
// (the OneTrust dialog); on, the model gets the condensed "Click not delivered" text with one condensed event;
// off, the raw log. A click on an unknown ref (Playwright MCP: "Ref e9999 not found in the current page
// snapshot") gets a fresh browser_snapshot appended on, nothing off. An evaluate passes through with the
// "passthrough" event (no CDP page on this backend) on, no event off.
func TestToolLevelGuardsOnMCP(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			for _, on := range []bool{true, false} {
				settings := map[string]bool{}
				if !on {
					settings = map[string]bool{guard.NameInterceptHint: false, guard.NameStaleRefRefresh: false,
						guard.NameEvaluateIsolation: false}
				}
				hooks, err := guard.BuildToolLevel(settings)
				if err != nil {
					t.Fatal(err)
				}
				// The intercepted click fails when the action timeout ends; 2 s is ample for Playwright to
				// record the element that intercepts it (browser.TestCoveredClickError asserts it at 1.5 s).
				c, _ := startWith(t, Options{ActionTimeout: 2 * time.Second}, v, "shop", "consent")
				a := agent.NewToolsAttempt(context.Background(), "shop-consent", "open the yoga mat", c,
					time.Now().Add(2*time.Minute), nil)
				if a.Browser != nil {
					t.Fatal("an MCP attempt has a browser session")
				}
				snap, err := c.Observe(false)
				if err != nil {
					t.Fatal(err)
				}
				call := func(name, args string) agent.ToolOutcome {
					a.Step++
					return agent.CallTool(context.Background(), a, hooks, agent.ToolCall{ID: fmt.Sprint("call_", a.Step), Name: name, Args: args})
				}
				out := call("browser_click", `{"target":"`+refOf(t, snap, "link", "Yoga Mat")+`","element":"Yoga Mat"}`)
				raw := out.Record.RawText()
				if !out.Record.Failed || !strings.Contains(raw, "intercepts pointer events") || !strings.Contains(raw, "onetrust") {
					t.Fatalf("on=%v: the click's raw result is not Playwright's intercepted call log:\n%.1500s", on, raw)
				}
				if strings.Contains(raw, "\x1b[") {
					t.Errorf("ANSI escapes in the raw result")
				}
				if on {
					if !strings.HasPrefix(out.Record.ShownText(), "### Error\nClick not delivered: ") || !strings.Contains(out.Record.ShownText(), "consent") ||
						len(out.Record.ShownText()) >= len(raw) {
						t.Errorf("on: not condensed:\n%s", out.Record.ShownText())
					}
					if got := eventsOf(a, guard.NameInterceptHint); len(got) != 1 || got[0] != "condensed" {
						t.Errorf("on: intercept_hint events %v", got)
					}
				} else if out.Record.ShownText() != raw || len(a.Events()) != 0 {
					t.Errorf("off: the model got another text than the raw one, or events %v:\n%s", a.Events(), out.Record.ShownText())
				}

				out = call("browser_click", `{"target":"e9999","element":"gone"}`)
				if !out.Record.Failed || !strings.Contains(out.Record.RawText(), "Ref e9999 not found in the current page snapshot") {
					t.Fatalf("stale ref: %s", out.Record.RawText())
				}
				if on != out.Record.Refreshed || on != (len(eventsOf(a, guard.NameStaleRefRefresh)) == 1) {
					t.Errorf("on=%v: refreshed=%v events %v", on, out.Record.Refreshed, eventsOf(a, guard.NameStaleRefRefresh))
				}
				if on && (out.Result.Result.Refreshed == nil || len(browser.Refs(out.Result.Result.Refreshed.YAML)) == 0) {
					t.Errorf("on: no fresh snapshot with refs after the stale ref:\n%s", out.Record.ShownText())
				}

				out = call("browser_evaluate", `{"function":"() => document.title.length > 0"}`)
				if out.Record.Failed || out.Result.Raw.Result != "true" {
					t.Errorf("evaluate: %s", out.Record.RawText())
				}
				if got := eventsOf(a, guard.NameEvaluateIsolation); on != (len(got) == 1 && got[0] == "passthrough") || (!on && len(got) != 0) {
					t.Errorf("on=%v: evaluate_isolation events %v", on, got)
				}
			}
		})
	}
}

func TestResolveAndCheck(t *testing.T) {
	dir := t.TempDir()
	cli := filepath.Join(dir, "9.9.9", "node_modules", "@playwright", "mcp", "cli.js")
	if err := os.MkdirAll(filepath.Dir(cli), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cli, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	argv, v := Resolve([]string{"npx", "-y", "@playwright/mcp@9.9.9", "--caps", "vision"}, dir)
	if v != "9.9.9" || len(argv) != 4 || filepath.Base(argv[0]) != "node" || argv[1] != cli || argv[2] != "--caps" {
		t.Errorf("installed: %q %q", argv, v)
	}
	argv, v = Resolve([]string{"npx", "@playwright/mcp@1.2.3"}, dir)
	if v != "1.2.3" || strings.Join(argv, " ") != "npx @playwright/mcp@1.2.3" {
		t.Errorf("not installed: %q %q", argv, v)
	}
	argv, v = Resolve([]string{"/opt/mcp/server", "--x"}, dir)
	if v != "" || strings.Join(argv, " ") != "/opt/mcp/server --x" {
		t.Errorf("plain: %q %q", argv, v)
	}
	if err := CheckCommand([]string{"npx", "@playwright/mcp@0.0.83", "--proxy-server=http://x"}); err == nil ||
		!strings.Contains(err.Error(), "--proxy-server") {
		t.Errorf("owned flag: %v", err)
	}
	if err := CheckCommand(nil); err == nil {
		t.Error("empty command accepted")
	}
}

// Under the Zoo's ref_churn mutation the search results re-render at the first mouse press after a user action,
// so that press's click is lost. webbench's own browser_click reports it as a stale ref; Playwright MCP's
// browser_click (both releases) returns success with the page unchanged — no error for stale_ref_refresh to act
// on. This pins the behaviour the mcp-versions spec's first run found (its three ref_churn tasks fail on both
// arms).
func TestRefChurnLostClick(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c, tn := startOn(t, v, "shop", "ref_churn")
			snap, err := c.Snapshot(false)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if r := c.Call(ctx, "browser_type", json.RawMessage(`{"target":"`+refOf(t, snap, "searchbox")+`","text":"radiant tee"}`)); r.Error != "" {
				t.Fatal(r.Error)
			}
			r := c.Call(ctx, "browser_press_key", json.RawMessage(`{"key":"Enter"}`))
			if r.Error != "" || r.URL != tn.URL("/search?q=radiant+tee") {
				t.Fatalf("search: %s", r.Format())
			}
			r = c.Call(ctx, "browser_click", json.RawMessage(`{"target":"`+refOf(t, r.Snapshot.YAML, "link", "Radiant Tee")+`","element":"Radiant Tee"}`))
			if r.Error != "" || r.URL != tn.URL("/search?q=radiant+tee") {
				t.Errorf("the lost click: error %q, URL %q; want success on the unchanged search page", r.Error, r.URL)
			}
		})
	}
}

// snapshot_ready on the MCP backend: the snapshot filter (as agent.Run installs it: the AfterSnapshot hooks)
// runs on the server's browser_snapshot result, and the guard re-captures with browser_snapshot calls
// (Client.Snapshot) until the Zoo chat's late-hydrating login form is there (events recapture … ready); off,
// the empty shell the server returned.
func TestSnapshotReadyOnMCP(t *testing.T) {
	run := func(t *testing.T, settings map[string]bool) (agent.ToolOutcome, *agent.Attempt) {
		hooks, err := guard.BuildToolLevel(settings)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := startOn(t, versions[0], "chat", "late_hydration")
		a := agent.NewToolsAttempt(context.Background(), "chat-hydration", "log in", c, time.Now().Add(time.Minute), nil)
		c.SetSnapshotFilter(func(s string) string {
			for _, h := range hooks {
				if x, ok := h.(agent.AfterSnapshotter); ok {
					s = x.AfterSnapshot(a, s)
				}
			}
			return s
		})
		a.Step++
		return agent.CallTool(context.Background(), a, hooks, agent.ToolCall{ID: "call_1", Name: "browser_snapshot", Args: "{}"}), a
	}
	on, a := run(t, nil)
	if !browser.HasInteractiveRef(on.Result.Result.Snapshot.YAML) {
		t.Errorf("on: the snapshot has no interactive ref:\n%s", on.Record.ShownText())
	}
	if got := eventsOf(a, guard.NameSnapshotReady); len(got) < 2 || got[0] != "recapture" || got[len(got)-1] != "ready" {
		t.Errorf("on: snapshot_ready events %v, want recapture … ready", got)
	}
	off, a := run(t, map[string]bool{guard.NameSnapshotReady: false})
	if browser.HasInteractiveRef(off.Result.Result.Snapshot.YAML) {
		t.Errorf("off: the server's snapshot already had an interactive ref (the mutation did not bite):\n%s", off.Record.ShownText())
	}
	if len(a.Events()) != 0 {
		t.Errorf("off: events %v", a.Events())
	}
}

// A server that dies mid-attempt: the next call's error says the browser is gone (agent.BrowserGone), so the
// loop ends the attempt as browser_closed (an infrastructure fault) rather than blaming the agent.
func TestServerGone(t *testing.T) {
	c, _ := startOn(t, versions[0], "shop")
	c.kill()
	r := c.Call(context.Background(), "browser_snapshot", json.RawMessage(`{}`))
	if !agent.BrowserGone(r.Error) {
		t.Errorf("after the server died: %q is not a browser-gone error", r.Error)
	}
}

// Options.ActionTimeout reaches the server as --timeout-action: a click under the consent dialog fails after
// Playwright's "Timeout 1500ms exceeded" instead of the default 5000 ms.
func TestActionTimeout(t *testing.T) {
	c, _ := startWith(t, Options{ActionTimeout: 1500 * time.Millisecond}, versions[0], "shop", "consent")
	snap, err := c.Snapshot(false)
	if err != nil {
		t.Fatal(err)
	}
	r := c.Call(context.Background(), "browser_click", json.RawMessage(`{"target":"`+refOf(t, snap, "link", "Yoga Mat")+`","element":"Yoga Mat"}`))
	if !strings.Contains(r.Error, "Timeout 1500ms exceeded") {
		t.Errorf("click under the dialog: %.600s", r.Error)
	}
}
