package zoo

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"webbench/suites"
)

// Real-Chromium tests of the shop: every built-in shop task's solution played by a small role+name policy
// (what the scripted policy does), and each shop mutation observed in the browser. Skipped with -short.

// shopPage is newPage with Playwright's own default timeout (30 s) instead of 5 s: the shop solutions run in
// parallel on loaded machines.
func shopPage(t *testing.T, b playwright.Browser, tn *Tenant) (playwright.Page, *[]string) {
	t.Helper()
	p, _, blocked := newPage(t, b, tn)
	p.SetDefaultTimeout(30000)
	return p, blocked
}

// sbPlay plays a task's solution: each step's target is found by role + name in a fresh AI snapshot and acted
// on by ref. An intercepted click is recovered as a policy that understood the blocker would: dismiss the
// dialog ("Reject all", "Close", "Stay on this site") or click the radio's visible label, then go on. It
// returns the final answer and how many clicks were intercepted.
func sbPlay(t *testing.T, p playwright.Page, tk suites.Task) (answer string, intercepted int) {
	t.Helper()
	timeout := playwright.Float(4000) // generous: CI machines are loaded (2 cores, parallel packages)
	stale := 0
	for i := 0; i < len(tk.Solution); i++ {
		st := tk.Solution[i]
		var snap string
		var nodes []snapNode
		var loc playwright.Locator
		if st.Target != nil && st.Kind != "answer" {
			var n *snapNode
			snap, nodes, n = awaitTarget(t, p, st.Target)
			if n == nil {
				t.Fatalf("step %d %s: no %s %q/%q in snapshot:\n%s", i, st.Kind, st.Target.Role, st.Target.Name,
					st.Target.NameRegex, snap)
			}
			loc = p.Locator("aria-ref=" + n.Ref)
		}
		if nodes == nil {
			snap = aiSnapshot(t, p, false)
			nodes = parseSnapshot(snap)
		}
		if st.Kind == "answer" {
			if st.Literal != "" {
				return st.Literal, intercepted
			}
			n := findNode(nodes, st.Target, false)
			if n == nil {
				t.Fatalf("answer: no %s matching %q in snapshot:\n%s", st.Target.Role, st.Target.NameRegex, snap)
			}
			m := regexp.MustCompile(st.Target.NameRegex).FindStringSubmatch(n.Label)
			if len(m) > 1 {
				return m[1], intercepted
			}
			return m[0], intercepted
		}
		before := p.URL()
		handled, err := doAction(p, loc, st, timeout)
		if !handled {
			t.Fatalf("step kind %s not supported here", st.Kind)
		}
		if err == nil {
			if st.Kind == "click" || st.Kind == "press" {
				time.Sleep(120 * time.Millisecond) // a navigation the action started begins
			}
			p.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateLoad})
			// A click ref_churn's re-render (at the first press after an action) made lost: the page did not
			// move and the clicked node is gone. Look again, as on a stale ref.
			if st.Kind == "click" && slices.Contains(tk.Mutations, "ref_churn") && p.URL() == before && stale < 5 {
				if n, cerr := loc.Count(); cerr == nil && n == 0 {
					stale++
					i--
				}
			}
			continue
		}
		if loc != nil && stale < 5 {
			if n, _ := loc.Count(); n == 0 { // the node was re-rendered away (ref_churn): look again
				stale++
				i--
				continue
			}
		}
		if !strings.Contains(err.Error(), "intercepts pointer events") || intercepted > 5 {
			t.Fatalf("step %d %s %+v: %v", i, st.Kind, st.Target, err)
		}
		intercepted++
		var fix *snapNode
		for _, name := range []string{"Reject all", "Close", "Stay on this site"} {
			if fix = findNode(nodes, &suites.Target{Role: "button", Name: name}, true); fix != nil {
				break
			}
		}
		if fix == nil && st.Target.Role == "radio" { // an icon over the input: click its visible label
			fix = findNode(nodes, &suites.Target{Role: "generic", Name: st.Target.Name}, true)
			i++ // the label click is the step
		}
		if fix == nil {
			t.Fatalf("step %d: intercepted and nothing to dismiss: %v\n%s", i, err, snap)
		}
		if err := p.Locator("aria-ref=" + fix.Ref).Click(playwright.LocatorClickOptions{Timeout: timeout}); err != nil {
			t.Fatalf("step %d: recovery click on %+v: %v", i, fix, err)
		}
		i-- // retry the step (or, after a label click, go on with the next one)
	}
	t.Fatal("solution has no answer step")
	return "", intercepted
}

// awaitTarget snapshots the page until target (role + exact name) is in it, for at most 10 s: the previous step's
// navigation (a search submitted by Enter, a link) may still be under way when that step returns, by however
// long a loaded machine makes it, so the step waits on its target's arrival rather than on a fixed delay. n is
// nil when the target never came; snap and nodes are the last snapshot.
func awaitTarget(t *testing.T, p playwright.Page, target *suites.Target) (snap string, nodes []snapNode, n *snapNode) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		snap = aiSnapshot(t, p, false)
		nodes = parseSnapshot(snap)
		if n = findNode(nodes, target, true); n != nil || time.Now().After(deadline) {
			return snap, nodes, n
		}
		p.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateLoad})
		p.WaitForTimeout(100)
	}
}

func TestShopBrowserSolutions(t *testing.T) {
	b := launchChromium(t)
	tasks, err := BuiltinTasks()
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t)
	for _, tk := range tasks {
		if tk.App != "shop" {
			continue
		}
		t.Run(tk.ID, func(t *testing.T) {
			t.Parallel()
			tn, err := srv.NewTenant("shop", tk.Mutations)
			if err != nil {
				t.Fatal(err)
			}
			p, blocked := shopPage(t, b, tn)
			if _, err := p.Goto(tn.URL(tk.Start)); err != nil {
				t.Fatal(err)
			}
			answer, intercepted := sbPlay(t, p, tk)
			var st map[string]any
			json.Unmarshal(tn.State(), &st)
			if tk.Check.State != nil && !subsetMatch(map[string]any(tk.Check.State), st) {
				b, _ := json.Marshal(st)
				t.Errorf("check.state fails; state %s", b)
			}
			if r := tk.Check.Answer; r != nil {
				if r.Exact != "" && !strings.EqualFold(strings.TrimSpace(answer), r.Exact) {
					t.Errorf("answer %q, want exactly %q", answer, r.Exact)
				}
				for _, w := range r.MustInclude {
					if !strings.Contains(strings.ToLower(answer), strings.ToLower(w)) {
						t.Errorf("answer %q lacks %q", answer, w)
					}
				}
				if r.Number != nil {
					found := false
					for _, f := range regexp.MustCompile(`-?\d+(?:\.\d+)?`).FindAllString(answer, -1) {
						var x float64
						json.Unmarshal([]byte(f), &x)
						found = found || (x >= *r.Number-r.Tolerance-1e-9 && x <= *r.Number+r.Tolerance+1e-9)
					}
					if !found {
						t.Errorf("answer %q, want the number %v ± %v", answer, *r.Number, r.Tolerance)
					}
				}
			}
			if tk.HasTag("checkout") {
				orders := st["orders"].([]any)
				if len(orders) != 1 || orders[0].(map[string]any)["number"] != answer {
					t.Errorf("answer %q is not the order number of %v", answer, orders)
				}
			}
			blockers := map[string]bool{"consent": true, "geo_redirect": true, "icon_over_input": true}
			wantIntercept := false
			for _, m := range tk.Mutations {
				wantIntercept = wantIntercept || blockers[m]
			}
			if wantIntercept != (intercepted > 0) {
				t.Errorf("mutations %v but %d intercepted clicks", tk.Mutations, intercepted)
			}
			if len(*blocked) > 0 {
				t.Errorf("the page requested URLs outside its tenant: %v", *blocked)
			}
		})
	}
}

func TestShopBrowserMutations(t *testing.T) {
	b := launchChromium(t)
	srv := startServer(t)
	timeout := playwright.Float(4000) // generous: CI machines are loaded (2 cores, parallel packages)
	// A click that must be intercepted fails only when its timeout ends; 2 s is ample for Playwright's call log
	// to name the intercepting element (browser's TestCoveredClickError asserts it at 1.5 s).
	intercepted := playwright.Float(2000)

	t.Run("consent", func(t *testing.T) {
		tn, _ := srv.NewTenant("shop", []string{"consent"})
		p, _ := shopPage(t, b, tn)
		p.Goto(tn.URL("/"))
		box, err := p.Locator("#onetrust-consent-sdk > div.onetrust-pc-dark-filter").BoundingBox()
		if err != nil || box == nil || box.X != 0 || box.Y != 0 || box.Width != 1280 || box.Height != 720 {
			t.Fatalf("dark filter box %+v (%v); want the whole 1280×720 viewport", box, err)
		}
		err = p.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Yoga Mat", Exact: playwright.Bool(true)}).
			Click(playwright.LocatorClickOptions{Timeout: intercepted})
		if err == nil || !strings.Contains(err.Error(), `<div class="onetrust-pc-dark-filter ot-fade-in"></div> from <div id="onetrust-consent-sdk" data-zoo-overlay="consent">…</div> subtree intercepts pointer events`) {
			t.Fatalf("click under the consent filter: %v", err)
		}
		// Cookie settings opens the preference centre; Confirm my choices closes everything.
		if err := p.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Cookie settings"}).Click(); err != nil {
			t.Fatal(err)
		}
		snap := aiSnapshot(t, p, false)
		if !strings.Contains(snap, `dialog "Privacy Preference Center"`) || !strings.Contains(snap, `button "Confirm my choices"`) ||
			strings.Contains(snap, `button "Reject all"`) {
			t.Fatalf("settings panel snapshot:\n%s", snap)
		}
		if err := p.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Confirm my choices"}).Click(); err != nil {
			t.Fatal(err)
		}
		if n, _ := p.Locator("#onetrust-consent-sdk").Count(); n != 0 {
			t.Fatal("consent SDK still in the page after Confirm my choices")
		}
		if err := p.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Yoga Mat", Exact: playwright.Bool(true)}).
			Click(playwright.LocatorClickOptions{Timeout: timeout}); err != nil {
			t.Fatalf("click after dismissal: %v", err)
		}
		p.WaitForURL("**/product/yoga-mat")
		if n, _ := p.Locator("#onetrust-consent-sdk").Count(); n != 0 {
			t.Fatal("consent shown again on the next page")
		}
		var st struct{ Zoo struct{ Consent string } }
		json.Unmarshal(tn.State(), &st)
		if st.Zoo.Consent != "custom" {
			t.Fatalf("zoo.consent = %q, want custom", st.Zoo.Consent)
		}
	})

	t.Run("geo_redirect", func(t *testing.T) {
		tn, _ := srv.NewTenant("shop", []string{"geo_redirect"})
		p, _ := shopPage(t, b, tn)
		p.Goto(tn.URL("/category/gear"))
		err := p.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Driven Backpack"}).
			Click(playwright.LocatorClickOptions{Timeout: intercepted})
		if err == nil || !strings.Contains(err.Error(), `zoo-geo-backdrop`) || !strings.Contains(err.Error(), "intercepts pointer events") {
			t.Fatalf("click under the geo modal: %v", err)
		}
		snap := aiSnapshot(t, p, false)
		if !strings.Contains(snap, `heading "You are visiting our US store"`) || !strings.Contains(snap, `button "Go to EU store"`) {
			t.Fatalf("geo modal snapshot:\n%s", snap)
		}
		if err := p.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Stay on this site"}).Click(); err != nil {
			t.Fatal(err)
		}
		if err := p.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Driven Backpack"}).
			Click(playwright.LocatorClickOptions{Timeout: timeout}); err != nil {
			t.Fatalf("click after Stay on this site: %v", err)
		}
		time.Sleep(100 * time.Millisecond) // the keepalive POST of the choice
		var st struct{ Zoo struct{ Region string } }
		json.Unmarshal(tn.State(), &st)
		if st.Zoo.Region != "us" {
			t.Fatalf("zoo.region = %q, want us", st.Zoo.Region)
		}
	})

	t.Run("icon_over_input", func(t *testing.T) {
		tn, _ := srv.NewTenant("shop", []string{"icon_over_input"})
		p, _ := shopPage(t, b, tn)
		p.Goto(tn.URL("/product/hero-hoodie"))
		green := p.GetByRole("radio", playwright.PageGetByRoleOptions{Name: "Green"})
		err := green.Click(playwright.LocatorClickOptions{Timeout: intercepted})
		if err == nil || !strings.Contains(err.Error(), `<span class="swatch-icon swatch-green"></span> intercepts pointer events`) {
			t.Fatalf("click on the covered radio: %v", err)
		}
		// Sizes are not covered; the colour's label is clickable.
		if err := p.GetByRole("radio", playwright.PageGetByRoleOptions{Name: "L", Exact: playwright.Bool(true)}).
			Click(playwright.LocatorClickOptions{Timeout: timeout}); err != nil {
			t.Fatalf("size radio: %v", err)
		}
		if err := p.Locator("label.swatch-label[for=color-green]").Click(); err != nil {
			t.Fatal(err)
		}
		if ok, _ := green.IsChecked(); !ok {
			t.Fatal("label click did not check the radio")
		}
		// Without the mutation the same radio takes the click.
		plain, _ := srv.NewTenant("shop", nil)
		p2, _ := shopPage(t, b, plain)
		p2.Goto(plain.URL("/product/hero-hoodie"))
		if err := p2.GetByRole("radio", playwright.PageGetByRoleOptions{Name: "Green"}).
			Click(playwright.LocatorClickOptions{Timeout: timeout}); err != nil {
			t.Fatalf("uncovered radio: %v", err)
		}
	})

	t.Run("ref_churn", func(t *testing.T) {
		srv, err := Start(Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		tn, _ := srv.NewTenant("shop", []string{"ref_churn"})
		p, _ := shopPage(t, b, tn)
		p.Goto(tn.URL("/product/affirm-water-bottle"))
		p.GetByRole("radio", playwright.PageGetByRoleOptions{Name: "Blue"}).Click()
		p.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Add to cart"}).Click()
		p.WaitForURL("**/cart?added=WB-11")
		refOf := func(snap, role, name string) string {
			n := findNode(parseSnapshot(snap), &suites.Target{Role: role, Name: name}, true)
			if n == nil {
				t.Fatalf("no %s %q in\n%s", role, name, snap)
			}
			return n.Ref
		}
		s1 := aiSnapshot(t, p, false)
		qty1 := refOf(s1, "spinbutton", "Quantity for Affirm Water Bottle")
		upd1 := refOf(s1, "button", "Update cart")
		if err := p.Locator("aria-ref="+qty1).Fill("2", playwright.LocatorFillOptions{Timeout: timeout}); err != nil {
			t.Fatal(err)
		}
		s2 := aiSnapshot(t, p, false) // after the fill: nothing re-renders before a press
		if refOf(s2, "button", "Update cart") != upd1 || refOf(s2, "spinbutton", "Quantity for Affirm Water Bottle") != qty1 {
			t.Fatalf("re-rendered without a press:\n%s", s2)
		}
		// The first press re-renders the cart inside its mousedown: Playwright reports the click done (its
		// hit-target check passed on the pointerdown), but no click reached a node and the form was not sent.
		if err := p.Locator("aria-ref=" + upd1).Click(playwright.LocatorClickOptions{Timeout: timeout}); err != nil {
			t.Fatal(err)
		}
		if n, _ := p.Locator("aria-ref=" + upd1).Count(); n != 0 {
			t.Fatalf("old Update cart ref %s still resolves after the press", upd1)
		}
		var st struct{ Cart []ShopLine }
		json.Unmarshal(tn.State(), &st)
		if len(st.Cart) != 1 || st.Cart[0].Qty != 1 {
			t.Fatalf("cart after the lost click: %+v, want qty 1 (not updated)", st.Cart)
		}
		s3 := aiSnapshot(t, p, false)
		upd3 := refOf(s3, "button", "Update cart")
		// Secondary names alternate per re-render: none before the press, one with it.
		if upd3 == upd1 || !strings.Contains(s2, `button "Remove Affirm Water Bottle"`) ||
			!strings.Contains(s2, `heading "Summary"`) || !strings.Contains(s3, `button "Remove item Affirm Water Bottle"`) ||
			!strings.Contains(s3, `heading "Order summary"`) {
			t.Fatalf("after churn (old ref %s):\n%s\nbefore:\n%s", upd1, s3, s2)
		}
		if v, _ := p.GetByRole("spinbutton", playwright.PageGetByRoleOptions{Name: "Quantity for Affirm Water Bottle"}).
			InputValue(); v != "2" {
			t.Fatalf("typed quantity lost in the re-render: %q", v)
		}
		if err := p.Locator("aria-ref=" + upd3).Click(playwright.LocatorClickOptions{Timeout: timeout}); err != nil {
			t.Fatal(err)
		}
		if err := p.WaitForURL("**/cart?updated=1"); err != nil {
			t.Fatalf("the press on the fresh Update cart was not delivered: %v", err)
		}
		json.Unmarshal(tn.State(), &st)
		if len(st.Cart) != 1 || st.Cart[0].Qty != 2 {
			t.Fatalf("cart after update: %+v", st.Cart)
		}
		// Search results churn too, at the first press (here on the page's heading, outside the list); without
		// the mutation nothing changes.
		p.Goto(tn.URL("/search?q=bottle"))
		r1 := refOf(aiSnapshot(t, p, false), "link", "Affirm Water Bottle")
		if err := p.Locator("h1").Click(playwright.LocatorClickOptions{Timeout: timeout}); err != nil {
			t.Fatal(err)
		}
		if s := aiSnapshot(t, p, false); refOf(s, "link", "Affirm Water Bottle") == r1 || !strings.Contains(s, "Showing 1 of 1 item") {
			t.Fatalf("search results did not churn:\n%s", s)
		}
		plain, _ := srv.NewTenant("shop", nil)
		p2, _ := shopPage(t, b, plain)
		p2.Goto(plain.URL("/search?q=bottle"))
		r1 = refOf(aiSnapshot(t, p2, false), "link", "Affirm Water Bottle")
		if err := p2.Locator("h1").Click(playwright.LocatorClickOptions{Timeout: timeout}); err != nil {
			t.Fatal(err)
		}
		if refOf(aiSnapshot(t, p2, false), "link", "Affirm Water Bottle") != r1 {
			t.Fatal("results re-rendered without ref_churn")
		}
	})
}
