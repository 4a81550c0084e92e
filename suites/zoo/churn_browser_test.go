package zoo

import (
	"testing"

	playwright "github.com/mxschmitt/playwright-go"
)

// ref_churn is deterministic: nothing re-renders until the first mouse press after a user action
// (or the load), and that press re-renders the regions inside its mousedown, so the click it begins is lost
// whatever the machine's speed — the press went to the old node, the release to its fresh copy, and the
// browser dispatches no click. The next press, on the fresh node, is an ordinary click. No timer, no sleep.
func TestChurnFirstPressIsLost(t *testing.T) {
	b := launchChromium(t)
	srv, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	tn := newTenant(t, srv, "stays", "ref_churn")
	p, _, _ := newPage(t, b, tn)
	if _, err := p.Goto(tn.URL("search?ss=Porto&checkin=2026-06-20&checkout=2026-06-23&group_adults=2")); err != nil {
		t.Fatal(err)
	}
	gen := func() any {
		t.Helper()
		v, err := p.Evaluate("() => document.body.getAttribute('data-churn-gen')")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if g := gen(); g != nil {
		t.Fatalf("re-rendered before any press (generation %v)", g)
	}
	if _, err := p.Evaluate("() => { window.__clicks = 0; addEventListener('click', () => window.__clicks++, true); }"); err != nil {
		t.Fatal(err)
	}
	link := p.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Palácio Douro", Exact: playwright.Bool(true)})
	if err := link.ScrollIntoViewIfNeeded(); err != nil {
		t.Fatal(err)
	}
	box, err := link.BoundingBox()
	if err != nil || box == nil {
		t.Fatalf("link box: %v", err)
	}
	m := p.Mouse()
	x, y := box.X+box.Width/2, box.Y+box.Height/2
	press := func() {
		t.Helper()
		if err := m.Move(x, y); err != nil {
			t.Fatal(err)
		}
		if err := m.Down(); err != nil {
			t.Fatal(err)
		}
		if err := m.Up(); err != nil {
			t.Fatal(err)
		}
	}
	press()
	if g := gen(); g != "1" {
		t.Fatalf("after the first press: generation %v, want 1", g)
	}
	if n, err := p.Evaluate("() => window.__clicks"); err != nil || n != 0 {
		t.Fatalf("the first press was delivered as a click (%v clicks, %v)", n, err)
	}
	press()
	if err := p.WaitForURL("**/hotel/palacio-douro**", playwright.PageWaitForURLOptions{Timeout: playwright.Float(20000)}); err != nil {
		t.Fatalf("the second press was not delivered: %v (at %s)", err, p.URL())
	}
}
