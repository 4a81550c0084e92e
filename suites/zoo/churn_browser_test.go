package zoo

import (
	"testing"
	"time"

	playwright "github.com/mxschmitt/playwright-go"
)

// ref_churn never splits a click (issue 17): a re-render that falls due while a pointer button is down waits
// for the click, so the press and the release land on the same node and the link is followed. Before, the
// region was replaced under the pressed link: the mouseup went to the fresh copy, no click was dispatched, and
// Playwright reported a successful click that did nothing. Here the press lasts longer than the churn delay, so
// the re-render is due mid-press on every run (no race to win).
func TestChurnWaitsForTheClick(t *testing.T) {
	b := launchChromium(t)
	const delay = 300 * time.Millisecond
	srv, err := Start(Options{ChurnDelay: delay})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	tn := newTenant(t, srv, "stays", "ref_churn")
	p, _, _ := newPage(t, b, tn)
	if _, err := p.Goto(tn.URL("search?ss=Porto&checkin=2026-06-20&checkout=2026-06-23&group_adults=2")); err != nil {
		t.Fatal(err)
	}
	// The re-render after the load has run; now nothing is pending.
	if _, err := p.WaitForFunction("() => document.body.getAttribute('data-churn-gen') === '1'", nil); err != nil {
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
	// A key press (a user action) makes a re-render due `delay` later; the press spans it.
	if err := p.Keyboard().Press("Shift"); err != nil {
		t.Fatal(err)
	}
	m := p.Mouse()
	x, y := box.X+box.Width/2, box.Y+box.Height/2
	if err := m.Move(x, y); err != nil {
		t.Fatal(err)
	}
	if err := m.Down(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * delay)
	gen, err := p.Evaluate("() => document.body.getAttribute('data-churn-gen')")
	if err != nil {
		t.Fatal(err)
	}
	if gen != "1" {
		t.Fatalf("re-rendered (generation %v) while the button was down", gen)
	}
	if err := m.Up(); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitForURL("**/hotel/palacio-douro**", playwright.PageWaitForURLOptions{Timeout: playwright.Float(5000)}); err != nil {
		t.Fatalf("the click on the link was not delivered: %v (at %s)", err, p.URL())
	}
}
