package webvoyager

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	playwright "github.com/mxschmitt/playwright-go"

	"webbench/judge"
	"webbench/suites"
)

var pwEnvMu sync.Mutex

// startBrowser starts the Playwright driver and Chromium the way the repository's `make setup` lays them out
// (.cache/driver at the repository root, or $WEBBENCH_DRIVER_DIR; Chromium at /usr/lib/chromium/chromium or
// $WEBBENCH_CHROMIUM). It skips the test when either is missing.
func startBrowser(t *testing.T) playwright.Browser {
	t.Helper()
	dir := os.Getenv("WEBBENCH_DRIVER_DIR")
	if dir == "" {
		dir = filepath.Join(repoRoot(), ".cache", "driver")
	}
	cli := filepath.Join(dir, "node_modules", "playwright-core", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		t.Skipf("Playwright driver not found at %s (run make setup, or set WEBBENCH_DRIVER_DIR)", cli)
	}
	chromium := os.Getenv("WEBBENCH_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/lib/chromium/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("Chromium not found at %s (set WEBBENCH_CHROMIUM)", chromium)
	}
	node := os.Getenv("PLAYWRIGHT_NODEJS_PATH")
	if node == "" {
		node = "/usr/bin/node"
	}
	pwEnvMu.Lock()
	t.Setenv("PLAYWRIGHT_CLI_PATH", cli)
	t.Setenv("PLAYWRIGHT_NODEJS_PATH", node)
	pw, err := playwright.Run(&playwright.RunOptions{SkipInstallBrowsers: true})
	pwEnvMu.Unlock()
	if err != nil {
		t.Fatalf("playwright: %v", err)
	}
	t.Cleanup(func() { _ = pw.Stop() })
	b, err := pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(chromium),
		Headless:       playwright.Bool(true),
		Args: []string{"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync"},
	})
	if err != nil {
		t.Fatalf("launch chromium: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func byRole(p playwright.Page, tg *suites.Target) playwright.Locator {
	opts := playwright.PageGetByRoleOptions{}
	if tg.Name != "" {
		opts.Name, opts.Exact = tg.Name, playwright.Bool(true)
	} else if tg.NameRegex != "" {
		opts.Name = regexp.MustCompile(tg.NameRegex)
	}
	return p.GetByRole(playwright.AriaRole(tg.Role), opts)
}

// In real Chromium, every fixture blocker blocks: a click on the content it covers fails with Playwright's
// "intercepts pointer events" call log (the text the intercept_hint guard reads), and the solution in
// solutions.yaml — dismiss the blocker (or click the label), then act — reaches the golden answer.
func TestFixturesInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	b := startBrowser(t)
	s, err := New(Config{Fixtures: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The click each task's blocker intercepts (before the blocker is dealt with).
	blocked := map[string]suites.Target{
		"FixtureRecipes--0": {Role: "link", Name: "Vegetarian Four Cheese Lasagna"},
		"FixtureRecipes--1": {Role: "button", Name: "Search"},
		"FixtureStore--0":   {Role: "link", Name: "Trail Running Shoe X2"},
		"FixtureStays--0":   {Role: "radio", Name: "Deluxe"},
		"FixtureNews--0":    {Role: "link", Name: "Grid-scale solar storage passes a milestone"},
	}
	for _, tk := range s.Tasks() {
		t.Run(tk.ID, func(t *testing.T) {
			ctx, err := b.NewContext(playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1280, Height: 720}})
			if err != nil {
				t.Fatal(err)
			}
			defer ctx.Close()
			p, err := ctx.NewPage()
			if err != nil {
				t.Fatal(err)
			}
			p.SetDefaultTimeout(20000) // must-succeed waits: generous, CI machines are loaded
			if _, err := p.Goto(tk.Start); err != nil {
				t.Fatal(err)
			}
			answer := ""
			for i, st := range tk.Solution {
				// Just before the step that deals with the blocker is done, the covered click must fail.
				if bl := blocked[tk.ID]; bl.Role != "" && p.URL() != "" && i == blockerStep(tk) {
					err := byRole(p, &bl).Click(playwright.LocatorClickOptions{Timeout: playwright.Float(1200)})
					if err == nil || !strings.Contains(err.Error(), "intercepts pointer events") {
						t.Fatalf("click on %s %q under the blocker: want an intercepted click, got %v", bl.Role, bl.Name, err)
					}
					snap, _ := p.AriaSnapshot(playwright.PageAriaSnapshotOptions{Mode: playwright.AriaSnapshotModeAi})
					t.Logf("blocked as expected; snapshot:\n%s", snap)
				}
				switch st.Kind {
				case "click":
					if st.Target.Role == "radio" {
						// Icon over its own input (the covered click was shown above): the label is the way in.
						err = p.Locator("label", playwright.PageLocatorOptions{HasText: st.Target.Name}).Click()
						if checked, cerr := byRole(p, st.Target).IsChecked(); err == nil && (cerr != nil || !checked) {
							t.Fatalf("clicking the label did not check the radio: %v", cerr)
						}
					} else {
						err = byRole(p, st.Target).Click()
					}
				case "fill":
					err = byRole(p, st.Target).Fill(st.Text)
				case "press":
					err = p.Keyboard().Press(st.Key)
				case "answer":
					var name string
					name, err = byRole(p, st.Target).First().TextContent()
					if m := regexp.MustCompile(st.Target.NameRegex).FindStringSubmatch(name); len(m) > 1 {
						answer = m[1]
					}
				default:
					t.Fatalf("step kind %s not replayed here", st.Kind)
				}
				if err != nil {
					t.Fatalf("step %d %+v (target %+v): %v", i, st, st.Target, err)
				}
				_ = p.WaitForLoadState()
			}
			v, _ := judge.Answer{}.Judge(t.Context(), judge.Input{Task: tk, Final: "The answer is " + answer + "."})
			if !v.Pass {
				t.Errorf("solution read %q: %+v", answer, v)
			}
		})
	}
}

// blockerStep is the index of the step just before which the blocked click is tried: the step that dismisses
// the blocker, or (icon over input) the radio click itself, or (search overlay) the "Close search" click.
func blockerStep(tk suites.Task) int {
	for i, st := range tk.Solution {
		if st.Target == nil {
			continue
		}
		switch {
		case st.Target.Name == "Reject all", st.Target.Name == "Stay on this site", st.Target.Name == "Close search",
			st.Target.Role == "radio":
			return i
		}
	}
	return -1
}
