package zoo

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"webbench/suites"
)

// shopClient drives the shop's forms over HTTP (redirects followed, cookies kept).
type shopClient struct {
	t  *testing.T
	tn *Tenant
	c  *http.Client
}

func newShopClient(t *testing.T, tn *Tenant) *shopClient {
	jar, _ := cookiejar.New(nil)
	return &shopClient{t: t, tn: tn, c: &http.Client{Jar: jar}}
}

// post submits form values to app-relative path p and returns the final page's path (after redirects) and
// body.
func (s *shopClient) post(p string, v url.Values) (string, string) {
	s.t.Helper()
	resp, err := s.c.PostForm(s.tn.URL(p), v)
	if err != nil {
		s.t.Fatalf("POST %s: %v", p, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return strings.TrimPrefix(resp.Request.URL.RequestURI(), s.tn.Prefix()), string(b)
}

func (s *shopClient) get(p string) (int, string) {
	s.t.Helper()
	return get(s.t, s.c, s.tn.URL(p))
}

// subsetMatch is the judge's state rule (suites.Check.State): maps match as subsets; lists have the same
// length and each expected item matches a distinct actual item; scalars are equal as JSON values.
func subsetMatch(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			if !subsetMatch(wv, g[k]) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		used := make([]bool, len(g))
		for _, wv := range w {
			found := false
			for i, gv := range g {
				if !used[i] && subsetMatch(wv, gv) {
					used[i], found = true, true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(want, got)
	}
}

func stateOf(t *testing.T, tn *Tenant) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(tn.State(), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestShopCheckoutHTTP(t *testing.T) {
	srv := startServer(t)
	srv.NewTenant("shop", nil) // seq 1: shifts the order number of the next tenant
	tn, _ := srv.NewTenant("shop", nil)
	s := newShopClient(t, tn)

	// Pages render with the expected controls.
	for p, wants := range map[string][]string{
		"/":                           {`<label for="search" class="sr-only">Search</label>`, `href="category/apparel">Apparel</a>`, `href="product/yoga-mat"`},
		"/category/apparel":           {`>Radiant Tee</a>`, `aria-label="Add Hero Hoodie to cart"`, `<label for="sorter">Sort by</label>`},
		"/search?q=bottle":            {`Search results for: &#39;bottle&#39;`, `>Affirm Water Bottle</a>`, `1 item<`},
		"/product/sprite-stasis-ball": {`<legend>Colour</legend>`, `<legend>Size</legend>`, `value="65 cm"`, `aria-label="Rated 4.2 out of 5"`, `aria-label="Maximum load: 300 kg"`},
	} {
		code, body := s.get(p)
		if code != 200 {
			t.Errorf("GET %s: %d", p, code)
		}
		for _, w := range wants {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s lacks %s", p, w)
			}
		}
	}
	if code, _ := s.get("/product/nope"); code != 404 {
		t.Errorf("unknown product: %d", code)
	}

	// Add to cart without a colour: back to the product page with an error.
	where, body := s.post("/cart/add", url.Values{"sku": {"YM-01"}, "qty": {"1"}})
	if !strings.HasPrefix(where, "product/yoga-mat?") || !strings.Contains(body, "Please select a colour.") {
		t.Fatalf("add without colour landed on %s", where)
	}
	where, body = s.post("/cart/add", url.Values{"sku": {"YM-01"}, "color": {"Blue"}, "qty": {"1"}})
	if where != "cart?added=YM-01" || !strings.Contains(body, "You added Yoga Mat to your shopping cart.") ||
		!strings.Contains(body, `<label for="cart-0-qty" class="sr-only">Quantity for Yoga Mat</label>`) {
		t.Fatalf("add landed on %s", where)
	}
	s.post("/cart/add", url.Values{"sku": {"RB-04"}, "qty": {"1"}})
	// Update cart: yoga mat 1 → 2, bands 1 → 0 (removed).
	where, _ = s.post("/cart/update", url.Values{"qty-0": {"2"}, "qty-1": {"0"}})
	if where != "cart?updated=1" {
		t.Fatalf("update landed on %s", where)
	}
	// Checkout steps out of order redirect back to the first missing one.
	if where, _ := s.post("/checkout/payment", url.Values{"payment": {"checkmo"}}); where != "checkout/email" {
		t.Fatalf("payment before email → %s", where)
	}
	if where, body := s.post("/checkout/email", url.Values{"email": {"not-an-email"}}); where != "checkout/email" ||
		!strings.Contains(body, "Please enter a valid email address") {
		t.Fatalf("bad email → %s", where)
	}
	steps := []struct {
		path string
		form url.Values
		next string
	}{
		{"/checkout/email", url.Values{"email": {"ana@example.test"}}, "checkout/address"},
		{"/checkout/address", url.Values{"first_name": {"Ana"}, "last_name": {"Lima"}, "street": {"12 Harbor Street"},
			"city": {"Portland"}, "postcode": {"97201"}, "country": {"US"}}, "checkout/shipping"},
		{"/checkout/shipping", url.Values{"shipping": {"express"}}, "checkout/payment"},
	}
	for _, st := range steps {
		if where, _ := s.post(st.path, st.form); where != st.next {
			t.Fatalf("POST %s → %s, want %s", st.path, where, st.next)
		}
	}
	_, pay := s.get("/checkout/payment")
	for _, w := range []string{"Order total $70.00", "Shipping method: Express (2–3 business days), $12.00",
		`<label for="card-number">Card number</label>`, ">Place order</button>"} {
		if !strings.Contains(pay, w) {
			t.Errorf("payment page lacks %q", w)
		}
	}
	if where, body := s.post("/checkout/payment", url.Values{"payment": {"card"}, "card_number": {"4111 1111 1111 1112"},
		"card_name": {"Ana Lima"}, "card_expiry": {"08/29"}, "card_cvv": {"123"}}); where != "checkout/payment" ||
		!strings.Contains(body, "Please enter a valid credit card number.") {
		t.Fatalf("bad card → %s", where)
	}
	where, body = s.post("/checkout/payment", url.Values{"payment": {"card"}, "card_number": {"4111 1111 1111 1111"},
		"card_name": {"Ana Lima"}, "card_expiry": {"08/29"}, "card_cvv": {"123"}})
	wantNum := fmt.Sprint(10000 + (2*7919)%90000)
	if where != "checkout/success?order="+wantNum {
		t.Fatalf("place order → %s, want order %s", where, wantNum)
	}
	h := regexp.MustCompile(`<h2 class="order-number">Order #(\d+)</h2>`).FindStringSubmatch(body)
	if h == nil || h[1] != wantNum {
		t.Fatalf("confirmation heading %v, want Order #%s", h, wantNum)
	}

	// The state is the order, exactly.
	want := map[string]any{}
	json.Unmarshal([]byte(`{"cart": [], "orders": [{"number": "`+wantNum+`",
		"items": [{"sku": "YM-01", "name": "Yoga Mat", "qty": 2, "color": "blue", "price": 29}],
		"email": "ana@example.test",
		"address": {"first_name": "Ana", "last_name": "Lima", "street": "12 Harbor Street", "city": "Portland",
			"postcode": "97201", "country": "US"},
		"shipping": "express", "payment": {"method": "card", "card_last4": "1111"}, "gift_wrap": false,
		"subtotal": 58, "shipping_cost": 12, "total": 70}]}`), &want)
	got := stateOf(t, tn)
	delete(got, "zoo")
	if !reflect.DeepEqual(got, want) {
		gb, _ := json.Marshal(got)
		t.Fatalf("state\n%s\nwant\n%v", gb, want)
	}
	// The yoga-mat task's check holds for this order except the quantity (it asks for one).
	tasks, _ := BuiltinTasks()
	for _, tk := range tasks {
		if tk.ID == "shop-checkout-yoga-mat-express" && subsetMatch(map[string]any(tk.Check.State), got) {
			t.Fatal("check.state matched an order of 2 yoga mats; want qty 1 to be required")
		}
	}
	// A second order in the same tenant gets another number; the cart starts empty again.
	s.post("/cart/add", url.Values{"sku": {"YB-02"}, "qty": {"1"}})
	s.post("/checkout/email", url.Values{"email": {"b@example.test"}})
	s.post("/checkout/address", url.Values{"first_name": {"B"}, "last_name": {"C"}, "street": {"1 A St"},
		"city": {"X"}, "postcode": {"1"}, "country": {"CA"}})
	s.post("/checkout/shipping", url.Values{"shipping": {"standard"}})
	where, _ = s.post("/checkout/payment", url.Values{"payment": {"checkmo"}})
	if where == "checkout/success?order="+wantNum || !strings.HasPrefix(where, "checkout/success?order=") {
		t.Fatalf("second order → %s", where)
	}
}

// TestShopTaskChecks plays every built-in shop checkout/cart task's intent over HTTP (the values its check
// names) and asserts the check holds for the resulting state — and fails for a wrong shipping method.
func TestShopTaskChecks(t *testing.T) {
	tasks, err := BuiltinTasks()
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t)
	n := 0
	for _, tk := range tasks {
		if tk.App != "shop" || tk.Check.State == nil {
			continue
		}
		n++
		for _, wrong := range []bool{false, true} {
			tn, _ := srv.NewTenant("shop", tk.Mutations)
			s := newShopClient(t, tn)
			playIntent(t, s, tk, wrong)
			got := stateOf(t, tn)
			if ok := subsetMatch(map[string]any(tk.Check.State), got); ok == wrong {
				b, _ := json.Marshal(got)
				t.Errorf("%s (wrong=%v): check match = %v\nstate %s", tk.ID, wrong, ok, b)
			}
		}
	}
	if n < 4 {
		t.Fatalf("only %d state tasks", n)
	}
}

// playIntent reads the task's expected state and performs it through the shop's forms; with wrong it picks
// another shipping method (orders) or one fewer item (cart).
func playIntent(t *testing.T, s *shopClient, tk suites.Task, wrong bool) {
	t.Helper()
	str := func(m map[string]any, k string) string { v, _ := m[k].(string); return v }
	add := func(it map[string]any, qtyDelta int) {
		pr := productBySKU(str(it, "sku"))
		v := url.Values{"sku": {pr.SKU}, "qty": {fmt.Sprint(int(it["qty"].(float64)) + qtyDelta)}}
		if c := str(it, "color"); c != "" {
			v.Set("color", colorDisplay(pr, c))
		}
		if sz := str(it, "size"); sz != "" {
			v.Set("size", sz)
		}
		s.post("/cart/add", v)
	}
	if orders, ok := tk.Check.State["orders"].([]any); ok && len(orders) > 0 {
		o := orders[0].(map[string]any)
		for _, it := range o["items"].([]any) {
			add(it.(map[string]any), 0)
		}
		a, _ := o["address"].(map[string]any)
		s.post("/checkout/email", url.Values{"email": {str(o, "email")}})
		s.post("/checkout/address", url.Values{"first_name": {str(a, "first_name")}, "last_name": {str(a, "last_name")},
			"street": {str(a, "street")}, "city": {str(a, "city")}, "postcode": {str(a, "postcode")},
			"country": {str(a, "country")}})
		ship := str(o, "shipping")
		if wrong {
			ship = map[string]string{"standard": "express", "express": "next_day", "next_day": "standard"}[ship]
		}
		s.post("/checkout/shipping", url.Values{"shipping": {ship}})
		pay := url.Values{"payment": {"checkmo"}}
		if p, _ := o["payment"].(map[string]any); str(p, "method") == "card" {
			pay = url.Values{"payment": {"card"}, "card_number": {"4111111111111111"}, "card_name": {"X Y"},
				"card_expiry": {"01/30"}, "card_cvv": {"999"}}
		}
		if where, _ := s.post("/checkout/payment", pay); !strings.HasPrefix(where, "checkout/success") {
			t.Fatalf("%s: place order → %s", tk.ID, where)
		}
		return
	}
	for _, it := range tk.Check.State["cart"].([]any) {
		d := 0
		if wrong {
			d = -1
		}
		add(it.(map[string]any), d)
	}
}
