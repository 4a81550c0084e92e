package zoo

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The mutations added to shop, stays and recipes beyond their first set: late_hydration's shell (hydration.go),
// the shop's stock check and delivery helper (hung_fetch, busy_script), the checkout's and the booking form's
// switch (nameless_switch) with the state they set, and the recipes results' ref_churn.

// hydrationParts splits a late-hydrating page into the markup a snapshot sees at load (the body outside the
// template) and the template's content; it fails the test when the page is not a shell.
func hydrationParts(t *testing.T, body string) (shell, inner string) {
	t.Helper()
	open, end := strings.Index(body, `<template id="zoo-app">`), strings.Index(body, "</template>")
	if open < 0 || end < open {
		t.Fatalf("no hydration template in the page")
	}
	bodyOpen := strings.Index(body, "<body")
	return body[bodyOpen:open] + body[end:], body[open:end]
}

func TestLateHydrationShellHTTP(t *testing.T) {
	srv := startServer(t)
	cases := []struct{ app, path, alt, inside string }{
		{"shop", "search?q=yoga+mat", `alt="Northwind Outfitters"`, `<a class="product-item-link" href="product/yoga-mat">`},
		{"stays", "search?ss=Lisbon&checkin=2026-10-02&checkout=2026-10-05&group_adults=2", `alt="Staybook"`,
			"Lisbon: 160 properties found"},
	}
	for _, c := range cases {
		late := newTenant(t, srv, c.app, "late_hydration")
		_, body, _ := rsGet(t, late.URL(c.path))
		shell, inner := hydrationParts(t, body)
		// The render runs after the load event, not after the script's start: 4 × the load's time, 2–8 s.
		rsWant(t, shell, `<div class="zoo-loading"`, c.alt,
			"setTimeout(render, Math.min(8000, Math.max(2000, 4 * performance.now())))",
			`window.addEventListener("load", later, { once: true })`)
		// At load the page has no control at all: the only element with a role is the logo image.
		for _, tag := range []string{"<a ", "<button", "<input", "<select", "<form"} {
			if strings.Contains(shell, tag) {
				t.Errorf("%s: the shell has %s", c.app, tag)
			}
		}
		rsWant(t, inner, c.inside)
		plain := newTenant(t, srv, c.app)
		_, body, _ = rsGet(t, plain.URL(c.path))
		if strings.Contains(body, `id="zoo-app"`) || !strings.Contains(body, c.inside) {
			t.Errorf("%s without late_hydration: a shell, or the results missing", c.app)
		}
		// Only the results page is client-rendered.
		_, body, _ = rsGet(t, late.URL("/"))
		if strings.Contains(body, `id="zoo-app"`) {
			t.Errorf("%s: the home page is a shell too", c.app)
		}
	}
}

func TestShopServicesHTTP(t *testing.T) {
	srv := startServer(t)
	plain := newTenant(t, srv, "shop")
	_, body, _ := rsGet(t, plain.URL("api/stock/YM-01"))
	var st shopStock
	if err := json.Unmarshal([]byte(body), &st); err != nil || st.SKU != "YM-01" || st.Online != "in_stock" ||
		len(st.Stores) != len(shopStores) {
		t.Fatalf("api/stock/YM-01 = %s (%v)", body, err)
	}
	if code, _, _ := rsGet(t, plain.URL("api/stock/NOPE")); code != 404 {
		t.Errorf("api/stock of an unknown SKU: %d", code)
	}
	_, body, _ = rsGet(t, plain.URL("product/yoga-mat"))
	rsWant(t, body, `data-src="api/stock/YM-01"`, "Checking availability in stores…",
		`<script src="static/product.js"></script>`, `data-delivery="[{&#34;method&#34;:&#34;standard&#34;,&#34;delivery&#34;:&#34;5–7 business days&#34;}`)
	if strings.Contains(body, "data-busy-ms") {
		t.Error("data-busy-ms without busy_script")
	}

	hung := newTenant(t, srv, "shop", "hung_fetch")
	if !rsNeverAnswers(t, hung.URL("api/stock/YM-01"), 400*time.Millisecond) {
		t.Error("hung_fetch: api/stock answered")
	}
	_, body, _ = rsGet(t, hung.URL("product/yoga-mat"))
	rsWant(t, body, `<tr aria-label="Thickness: 6 mm">`, "Checking availability in stores…")

	busy := newTenant(t, srv, "shop", "busy_script")
	_, body, _ = rsGet(t, busy.URL("product/yoga-mat"))
	rsWant(t, body, `data-busy-ms="30000"`)
	if rsNeverAnswers(t, busy.URL("api/stock/YM-01"), 2*time.Second) {
		t.Error("busy_script alone must not hang the API")
	}
	if code, _, _ := rsGet(t, busy.URL("api/busy-tick")); code != 204 {
		t.Errorf("api/busy-tick: %d", code)
	}
	// static/switch.js is the planner's switch script, served from the planner's assets.
	_, served, _ := rsGet(t, plain.URL("static/switch.js"))
	planner, _ := plannerFS.ReadFile("assets/planner/static/planner.js")
	if served != string(planner) {
		t.Error("the shop's static/switch.js is not the planner's switch script")
	}
}

// shopToShipping fills the cart and the first two checkout steps of a fresh tenant and returns its client.
func shopToShipping(t *testing.T, tn *Tenant) *shopClient {
	t.Helper()
	s := newShopClient(t, tn)
	s.post("/cart/add", url.Values{"sku": {"RB-04"}, "qty": {"1"}})
	s.post("/checkout/email", url.Values{"email": {"ana@example.test"}})
	s.post("/checkout/address", url.Values{"first_name": {"Ana"}, "last_name": {"Lima"}, "street": {"12 Harbor Street"},
		"city": {"Portland"}, "postcode": {"97201"}, "country": {"US"}})
	return s
}

func TestShopGiftWrapHTTP(t *testing.T) {
	srv := startServer(t)
	named := regexp.MustCompile(`<button type="button" id="gift-wrap" role="switch" aria-checked="false" class="group">`)
	nameless := regexp.MustCompile(`<button type="button" role="switch" aria-checked="false" class="group">`)
	for _, c := range []struct {
		muts      []string
		wrap      string
		want, not *regexp.Regexp
	}{{nil, "true", named, nameless}, {[]string{"nameless_switch"}, "true", nameless, named}, {nil, "false", named, nameless}} {
		tn := newTenant(t, srv, "shop", c.muts...)
		s := shopToShipping(t, tn)
		_, page := s.get("/checkout/shipping")
		if !c.want.MatchString(page) || c.not.MatchString(page) {
			t.Errorf("%v: shipping step's switch markup wrong", c.muts)
		}
		if named := strings.Contains(page, `<label class="switch-caption" for="gift-wrap">Gift wrap this order</label>`); named == (len(c.muts) > 0) {
			t.Errorf("%v: label for the switch present = %v", c.muts, named)
		}
		s.post("/checkout/shipping", url.Values{"shipping": {"standard"}, "gift_wrap": {c.wrap}})
		_, pay := s.get("/checkout/payment")
		if strings.Contains(pay, "Gift wrap: yes (free)") != (c.wrap == "true") {
			t.Errorf("%v gift_wrap=%s: the review says otherwise", c.muts, c.wrap)
		}
		s.post("/checkout/payment", url.Values{"payment": {"checkmo"}})
		orders := stateOf(t, tn)["orders"].([]any)
		if len(orders) != 1 || orders[0].(map[string]any)["gift_wrap"] != (c.wrap == "true") {
			t.Errorf("%v gift_wrap=%s: orders %v", c.muts, c.wrap, orders)
		}
	}
}

func TestStaysWorkTripHTTP(t *testing.T) {
	srv := startServer(t)
	stay := "checkin=2026-10-02&checkout=2026-10-05&group_adults=2&group_children=0"
	for _, c := range []struct {
		muts     []string
		business string
		label    bool
	}{{nil, "true", true}, {[]string{"nameless_switch"}, "true", false}, {nil, "false", true}} {
		tn := newTenant(t, srv, "stays", c.muts...)
		_, body, _ := rsGet(t, tn.URL("hotel/hotel-miradouro?"+stay))
		rsWant(t, body, `<input type="hidden" name="business" value="false">`, `role="switch" aria-checked="false"`,
			`<script src="static/switch.js"></script>`)
		if got := strings.Contains(body, `<label class="switch-caption" for="business-trip">I'm travelling for work</label>`); got != c.label {
			t.Errorf("%v: the switch's label present = %v", c.muts, got)
		}
		code, _, _ := rsPost(t, tn.URL("book"), url.Values{"hotel": {"hotel-miradouro"}, "checkin": {"2026-10-02"},
			"checkout": {"2026-10-05"}, "group_adults": {"2"}, "room": {"deluxe"}, "name": {"Ana Silva"},
			"email": {"ana.silva@example.test"}, "business": {c.business}})
		if code != 303 {
			t.Fatalf("book: %d, want a redirect to the confirmation", code)
		}
		b := rsState(t, tn)["bookings"].([]any)
		if len(b) != 1 || b[0].(map[string]any)["business"] != (c.business == "true") {
			t.Errorf("%v business=%s: bookings %v", c.muts, c.business, b)
		}
	}
}

func TestRecipesRefChurnHTTP(t *testing.T) {
	srv := startServer(t)
	churn := newTenant(t, srv, "recipes", "ref_churn")
	_, body, _ := rsGet(t, churn.URL("search?q=banana+bread"))
	rsWant(t, body, `<body data-churn>`, `<div class="card-list" data-churn-region="results">`,
		`data-alt-text="12,460 ratings"`, `<script src="static/churn.js"></script>`)
	_, body, _ = rsGet(t, churn.URL("recipe/20144/best-ever-banana-bread"))
	if strings.Contains(body, "data-churn") {
		t.Error("ref_churn on the recipe page: only the results re-render")
	}
	_, served, _ := rsGet(t, churn.URL("static/churn.js"))
	shops, _ := shopFS.ReadFile("assets/shop/static/shop.js")
	if served != string(shops) {
		t.Error("recipes' static/churn.js is not the shop's ref_churn script")
	}
	plain := newTenant(t, srv, "recipes")
	_, body, _ = rsGet(t, plain.URL("search?q=banana+bread"))
	if strings.Contains(body, "<body data-churn>") || strings.Contains(body, "static/churn.js") {
		t.Error("ref_churn markup without the mutation")
	}
}
