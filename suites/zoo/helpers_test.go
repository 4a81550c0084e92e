package zoo

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	playwright "github.com/mxschmitt/playwright-go"

	"webbench/browser"
	"webbench/suites"
)

// Helpers shared by the package's tests: a Zoo server and tenants, real Chromium (launch, a tenant-fenced
// page, AI snapshots), an AI-snapshot parser and the role + name node finder of the scripted policy, and the
// built-in tasks of one app. Browser helpers skip the test with -short.

// startServer starts a Zoo server for one test (closed at cleanup).
func startServer(t *testing.T) *Server {
	t.Helper()
	srv, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// newTenant creates a tenant of app with the given mutations on srv.
func newTenant(t *testing.T, srv *Server, app string, muts ...string) *Tenant {
	t.Helper()
	tn, err := srv.NewTenant(app, muts)
	if err != nil {
		t.Fatal(err)
	}
	return tn
}

// appTasks returns the built-in tasks of app.
func appTasks(t *testing.T, app string) []suites.Task {
	t.Helper()
	all, err := BuiltinTasks()
	if err != nil {
		t.Fatal(err)
	}
	var out []suites.Task
	for _, tk := range all {
		if tk.App == app {
			out = append(out, tk)
		}
	}
	return out
}

// launchChromium returns the package's headless Chromium (skipped with -short), launched with its Playwright
// driver by the first test that needs it and closed when the tests end (TestMain): a driver start and a
// launch cost seconds, more than most of the tests that use them. Tests share the browser, never a context:
// newPage opens a fresh one per page. The driver is $PLAYWRIGHT_CLI_PATH, else
// .cache/driver/node_modules/playwright-core/cli.js searched upward from the package; Node is
// $PLAYWRIGHT_NODEJS_PATH or `node` on PATH; Chromium is $WEBBENCH_CHROMIUM or /usr/lib/chromium/chromium.
func launchChromium(t *testing.T) playwright.Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("real-Chromium test (-short)")
	}
	chromiumOnce.Do(func() {
		// The harness's own discovery (browser): the project's .cache/driver, WEBBENCH_DRIVER_DIR,
		// WEBBENCH_CHROMIUM, /usr/lib/chromium/chromium; its errors say what to install.
		if chromiumDrv, chromiumErr = browser.StartDriver(browser.DriverOptions{}); chromiumErr != nil {
			return
		}
		chromium, chromiumErr = chromiumDrv.Launch(browser.LaunchOptions{Headless: true})
	})
	if chromiumErr != nil {
		t.Fatal(chromiumErr)
	}
	if !chromium.IsConnected() {
		t.Fatal("the package's Chromium is gone (crashed or killed by an earlier test)")
	}
	return chromium.Playwright()
}

// The package's Chromium and its driver (launchChromium), stopped by TestMain.
var (
	chromiumOnce sync.Once
	chromiumDrv  *browser.Driver
	chromium     *browser.Browser
	chromiumErr  error
)

// TestMain closes the package's Chromium and stops its driver once the tests end.
func TestMain(m *testing.M) {
	code := m.Run()
	if chromium != nil {
		_ = chromium.Close()
	}
	if chromiumDrv != nil {
		_ = chromiumDrv.Stop()
	}
	os.Exit(code)
}

// newPage opens a 1280×720 page (default timeout 5 s) in a fresh context, closed at cleanup. With a tenant,
// the context may load only the tenant's URLs: others are aborted and collected in blocked (nil without one).
func newPage(t *testing.T, b playwright.Browser, tn *Tenant) (playwright.Page, playwright.BrowserContext, *[]string) {
	t.Helper()
	ctx, err := b.NewContext(playwright.BrowserNewContextOptions{
		Viewport: &playwright.Size{Width: 1280, Height: 720}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Close() })
	var blocked *[]string
	if tn != nil {
		var mu sync.Mutex
		blocked = &[]string{}
		if err := ctx.Route("**/*", func(r playwright.Route) {
			if tn.Allowed(r.Request().URL()) {
				r.Continue()
				return
			}
			mu.Lock()
			*blocked = append(*blocked, r.Request().URL())
			mu.Unlock()
			r.Abort()
		}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := ctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	p.SetDefaultTimeout(20000) // must-succeed waits: generous, CI machines run 4 browser packages on 2 cores
	return p, ctx, blocked
}

// aiSnapshot is the page's AI-mode aria snapshot, with [box=x,y,w,h] attributes when boxes is set.
func aiSnapshot(t *testing.T, p playwright.Page, boxes bool) string {
	t.Helper()
	o := playwright.PageAriaSnapshotOptions{Mode: playwright.AriaSnapshotModeAi}
	if boxes {
		o.Boxes = playwright.Bool(true)
	}
	s, err := p.AriaSnapshot(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// snapNode is one node line of an AI snapshot.
type snapNode struct {
	Role    string
	Label   string    // the quoted accessible name (whitespace-collapsed), else the inline text after ": "
	HasName bool      // the line has a quoted name (possibly "")
	Ref     string    // e.g. e12 or f1e3; "" when the node has none
	Box     []float64 // x, y, w, h in viewport px; nil without [box=…]
	Parent  int       // index of the parent line's node (from the indentation), -1 at top level
}

var (
	snapKeyRe = regexp.MustCompile(`^([A-Za-z]+)(?: "((?:[^"\\]|\\.)*)")?`)
	refRe     = regexp.MustCompile(`\[ref=((?:f\d+)?e\d+)\]`)
	boxRe     = regexp.MustCompile(`\[box=(-?[\d.]+),(-?[\d.]+),(-?[\d.]+),(-?[\d.]+)\]`)
)

// parseSnapshot reads an AI snapshot (`- role "name" [attr]…: text`, the key single-quoted when YAML needs
// it, names in double quotes with backslash escapes). Lines that are not nodes (`- /url: …`) are skipped.
func parseSnapshot(snap string) []snapNode {
	var out []snapNode
	type open struct{ indent, idx int }
	var stack []open
	for _, line := range strings.Split(snap, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		if !strings.HasPrefix(trimmed, "- ") {
			continue
		}
		item := strings.TrimSpace(trimmed[2:])
		if strings.HasPrefix(item, "'") { // YAML single-quoted key: '…'[: value], '' inside for '
			var key strings.Builder
			i := 1
			for ; i < len(item); i++ {
				if item[i] == '\'' {
					if i+1 < len(item) && item[i+1] == '\'' {
						key.WriteByte('\'')
						i++
						continue
					}
					break
				}
				key.WriteByte(item[i])
			}
			if i >= len(item) {
				continue
			}
			item = key.String() + item[i+1:]
		}
		m := snapKeyRe.FindStringSubmatch(item)
		if m == nil {
			continue
		}
		n := snapNode{Role: m[1]}
		if m[2] != "" || strings.HasPrefix(item[len(m[1]):], ` ""`) {
			u, err := strconv.Unquote(`"` + m[2] + `"`)
			if err != nil {
				u = m[2]
			}
			n.Label, n.HasName = strings.Join(strings.Fields(u), " "), true
		} else if i := strings.Index(item, ": "); i >= 0 {
			v := strings.TrimSpace(item[i+2:])
			if u, err := strconv.Unquote(v); err == nil {
				v = u
			}
			n.Label = v
		}
		if r := refRe.FindStringSubmatch(item); r != nil {
			n.Ref = r[1]
		}
		if b := boxRe.FindStringSubmatch(item); b != nil {
			for _, f := range b[1:] {
				x, _ := strconv.ParseFloat(f, 64)
				n.Box = append(n.Box, x)
			}
		}
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		n.Parent = -1
		if len(stack) > 0 {
			n.Parent = stack[len(stack)-1].idx
		}
		out = append(out, n)
		stack = append(stack, open{indent, len(out) - 1})
	}
	return out
}

// matchNode reports whether n has tg's role (any case) and its name (any case, whitespace-collapsed) or a
// label matching its name_regex (a target has at most one of the two).
func matchNode(n snapNode, tg *suites.Target) bool {
	if !strings.EqualFold(n.Role, tg.Role) {
		return false
	}
	switch {
	case tg.Name != "":
		return strings.EqualFold(n.Label, strings.Join(strings.Fields(tg.Name), " "))
	case tg.NameRegex != "":
		return regexp.MustCompile(tg.NameRegex).MatchString(n.Label)
	}
	return true
}

// findNode returns the tg.Nth node (document order) matching role, name and within (an ancestor matching
// tg.Within), restricted to nodes with a ref when needRef — the scripted policy's rule; nil when none does.
func findNode(nodes []snapNode, tg *suites.Target, needRef bool) *snapNode {
	within := func(i int, w *suites.Target) bool {
		for p := nodes[i].Parent; p >= 0; p = nodes[p].Parent {
			if matchNode(nodes[p], w) {
				return true
			}
		}
		return false
	}
	k := 0
	for i := range nodes {
		if (needRef && nodes[i].Ref == "") || !matchNode(nodes[i], tg) || (tg.Within != nil && !within(i, tg.Within)) {
			continue
		}
		if k == tg.Nth {
			return &nodes[i]
		}
		k++
	}
	return nil
}

// doAction performs a click, fill, select, press or navigate step: on loc (the step's target, by ref) with the
// given action timeout in ms, or on the page. handled is false, and nothing is done, for any other kind.
func doAction(p playwright.Page, loc playwright.Locator, st suites.Step, timeout *float64) (handled bool, err error) {
	switch st.Kind {
	case "click":
		err = loc.Click(playwright.LocatorClickOptions{Timeout: timeout})
	case "fill":
		err = loc.Fill(st.Text, playwright.LocatorFillOptions{Timeout: timeout})
	case "select":
		_, err = loc.SelectOption(playwright.SelectOptionValues{ValuesOrLabels: &st.Values},
			playwright.LocatorSelectOptionOptions{Timeout: timeout})
	case "press":
		err = p.Keyboard().Press(st.Key)
	case "navigate":
		_, err = p.Goto(st.URL)
	default:
		return false, nil
	}
	return true, err
}
