package zoo

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestTenantIDsAndPorts(t *testing.T) {
	srv := startServer(t)
	a, err := srv.NewTenant("shop", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := srv.NewTenant("shop", []string{"consent", "consent"})
	if err != nil {
		t.Fatal(err)
	}
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	if !hex32.MatchString(a.ID) || !hex32.MatchString(b.ID) || a.ID == b.ID {
		t.Fatalf("tenant ids %q %q: want distinct 128-bit hex", a.ID, b.ID)
	}
	if a.Seq != 1 || b.Seq != 2 {
		t.Fatalf("seq = %d, %d; want 1, 2", a.Seq, b.Seq)
	}
	if strings.Join(b.Mutations, ",") != "consent" {
		t.Fatalf("mutations not deduplicated: %v", b.Mutations)
	}
	au, _ := url.Parse(srv.Origin())
	cu, _ := url.Parse(srv.ControlURL())
	if au.Hostname() != "127.0.0.1" || cu.Hostname() != "127.0.0.1" || au.Port() == cu.Port() {
		t.Fatalf("app %s and control %s must be distinct loopback ports", srv.Origin(), srv.ControlURL())
	}
	if got, want := a.URL("/cart"), srv.Origin()+"/t/"+a.ID+"/shop/cart"; got != want {
		t.Fatalf("URL = %s, want %s", got, want)
	}
	if _, err := srv.NewTenant("nope", nil); err == nil || !strings.Contains(err.Error(), `unknown app "nope"`) {
		t.Fatalf("unknown app: err = %v", err)
	}
	if _, err := srv.NewTenant("shop", []string{"bogus"}); err == nil ||
		!strings.Contains(err.Error(), `unknown mutation "bogus"`) {
		t.Fatalf("unknown mutation: err = %v", err)
	}
	if _, err := srv.NewTenant("planner", []string{"late_hydration"}); err == nil ||
		!strings.Contains(err.Error(), "does not implement mutation \"late_hydration\"") {
		t.Fatalf("unimplemented mutation: err = %v", err)
	}
}

func TestTenantIsolation(t *testing.T) {
	srv := startServer(t)
	a, _ := srv.NewTenant("shop", nil)
	b, _ := srv.NewTenant("shop", nil)
	allowed := []string{
		a.URL("/"), a.URL("/product/yoga-mat"), a.URL("/static/shop.css"), a.URL("/search?q=mat"),
		srv.Origin() + "/t/" + a.ID + "/shop",
	}
	for _, u := range allowed {
		if !a.Allowed(u) {
			t.Errorf("a.Allowed(%s) = false, want true", u)
		}
	}
	blocked := []string{
		b.URL("/"), b.URL("/cart"),
		srv.Origin() + "/t/" + a.ID + "x/shop/",
		srv.Origin() + "/t/" + a.ID + "/recipes/",
		srv.Origin() + "/t/" + a.ID + "/shopx/",
		srv.Origin() + "/t/" + a.ID + "/shop/../../" + b.ID + "/shop/",
		srv.Origin() + "/t/" + a.ID + "/shop/%2e%2e/%2e%2e/" + b.ID + "/shop/",
		srv.Origin() + "/t/" + a.ID + "/shop/..%2f..%2f" + b.ID + "/shop/",
		srv.Origin() + "/", srv.Origin() + "/favicon.ico",
		srv.ControlURL() + "/tenants", srv.ControlURL() + "/tenants/" + a.ID + "/state",
		strings.Replace(a.URL("/"), "127.0.0.1", "localhost", 1),
		strings.Replace(a.URL("/"), "http://", "https://", 1),
		strings.Replace(a.URL("/"), "http://", "ws://", 1),
		"http://example.com/t/" + a.ID + "/shop/", "data:text/html,hi", "about:blank", "",
		"http://user@" + strings.TrimPrefix(a.URL("/"), "http://"),
	}
	for _, u := range blocked {
		if a.Allowed(u) {
			t.Errorf("a.Allowed(%s) = true, want false", u)
		}
	}

	// Each tenant's state is its own: a cart add on a does not show in b.
	c := &http.Client{}
	resp, err := c.PostForm(a.URL("/cart/add"), url.Values{"sku": {"YB-02"}, "qty": {"2"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var sa, sb struct{ Cart []ShopLine }
	json.Unmarshal(a.State(), &sa)
	json.Unmarshal(b.State(), &sb)
	if len(sa.Cart) != 1 || sa.Cart[0].Qty != 2 || len(sb.Cart) != 0 {
		t.Fatalf("carts a=%+v b=%+v; want a one line qty 2, b empty", sa.Cart, sb.Cart)
	}

	// The app port serves only live tenants; the control API is not on the app port.
	if code, _ := get(t, c, srv.Origin()+"/t/"+strings.Repeat("0", 32)+"/shop/"); code != 404 {
		t.Errorf("unknown tenant: status %d, want 404", code)
	}
	if code, _ := get(t, c, srv.Origin()+"/t/"+a.ID+"/recipes/"); code != 404 {
		t.Errorf("wrong app: status %d, want 404", code)
	}
	if code, _ := get(t, c, srv.Origin()+"/tenants"); code != 404 {
		t.Errorf("control path on app port: status %d, want 404", code)
	}
	if code, _ := get(t, c, srv.ControlURL()+"/t/"+a.ID+"/shop/"); code != 404 {
		t.Errorf("app path on control port: status %d, want 404", code)
	}
	if code, body := get(t, c, b.URL("/")); code != 200 || !strings.Contains(body, `<base href="/t/`+b.ID+`/shop/">`) {
		t.Errorf("b home: status %d, base href missing", code)
	}
	a.Close()
	if code, _ := get(t, c, a.URL("/")); code != 404 {
		t.Errorf("deleted tenant: status %d, want 404", code)
	}
	if srv.TenantCount() != 1 {
		t.Errorf("TenantCount = %d, want 1", srv.TenantCount())
	}
}

func TestControlAPI(t *testing.T) {
	srv := startServer(t)
	c := &http.Client{}
	post := func(body string) (int, map[string]any) {
		resp, err := c.Post(srv.ControlURL()+"/tenants", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	code, info := post(`{"app": "shop", "mutations": ["consent", "ref_churn"]}`)
	if code != 201 {
		t.Fatalf("create: %d %v", code, info)
	}
	id, _ := info["id"].(string)
	wantURL := srv.Origin() + "/t/" + id + "/shop/"
	if info["url"] != wantURL || info["app"] != "shop" {
		t.Fatalf("create info %v; want url %s", info, wantURL)
	}
	if code, m := post(`{"app": "shop", "mutations": ["nope"]}`); code != 400 ||
		!strings.Contains(m["error"].(string), `unknown mutation "nope"`) {
		t.Fatalf("bad mutation: %d %v", code, m)
	}
	if code, m := post(`{"app": "shop", "mutatoins": []}`); code != 400 || !strings.Contains(m["error"].(string), "mutatoins") {
		t.Fatalf("unknown field: %d %v", code, m)
	}
	// Put something in the cart through the app port, read it through the control port.
	resp, err := c.PostForm(wantURL+"cart/add", url.Values{"sku": {"YM-01"}, "color": {"Purple"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	code, body := get(t, c, srv.ControlURL()+"/tenants/"+id+"/state")
	var st struct {
		Cart []ShopLine
		Zoo  struct{ Mutations []string }
	}
	if err := json.Unmarshal([]byte(body), &st); code != 200 || err != nil {
		t.Fatalf("state: %d %v %s", code, err, body)
	}
	if len(st.Cart) != 1 || st.Cart[0].SKU != "YM-01" || st.Cart[0].Color != "purple" ||
		strings.Join(st.Zoo.Mutations, ",") != "consent,ref_churn" {
		t.Fatalf("state = %s", body)
	}
	// reset empties the cart, delete removes the tenant.
	resp, _ = c.Post(srv.ControlURL()+"/tenants/"+id+"/reset", "", nil)
	resp.Body.Close()
	if _, body := get(t, c, srv.ControlURL()+"/tenants/"+id+"/state"); !strings.Contains(body, `"cart":[]`) {
		t.Fatalf("after reset: %s", body)
	}
	req, _ := http.NewRequest(http.MethodDelete, srv.ControlURL()+"/tenants/"+id, nil)
	resp, err = c.Do(req)
	if err != nil || resp.StatusCode != 204 {
		t.Fatalf("delete: %v %v", resp.StatusCode, err)
	}
	resp.Body.Close()
	if code, _ := get(t, c, srv.ControlURL()+"/tenants/"+id+"/state"); code != 404 {
		t.Fatalf("state after delete: %d", code)
	}
	if code, _ := get(t, c, wantURL); code != 404 {
		t.Fatalf("app after delete: %d", code)
	}
	if code, body := get(t, c, srv.ControlURL()+"/apps"); code != 200 || !strings.Contains(body, `"icon_over_input"`) {
		t.Fatalf("apps: %d %s", code, body)
	}
}

// TestConsentOverlayHTTP checks the overlay markup and that dismissing it (by the no-script form post, and by
// the cookie the script sets) keeps it closed for the tenant.
func TestConsentOverlayHTTP(t *testing.T) {
	srv := startServer(t)
	tn, _ := srv.NewTenant("shop", []string{"consent", "geo_redirect"})
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	_, body := get(t, c, tn.URL("/"))
	for _, want := range []string{`<div id="onetrust-consent-sdk"`, `class="onetrust-pc-dark-filter`, `>Reject all<`,
		`>Accept all<`, `>Cookie settings<`, `aria-label="Close"`, `>Confirm my choices<`,
		`You are visiting our US store`, `>Stay on this site<`, `>Go to EU store<`} {
		if !strings.Contains(body, want) {
			t.Errorf("home page lacks %q", want)
		}
	}
	resp, err := c.PostForm(tn.URL("/_zoo/consent"), url.Values{"choice": {"reject"},
		"back": {tn.Prefix() + "product/yoga-mat"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Request.URL.Path != tn.Prefix()+"product/yoga-mat" {
		t.Errorf("after consent post landed on %s", resp.Request.URL.Path)
	}
	if bytes.Contains(b, []byte(`id="onetrust-consent-sdk"`)) || !bytes.Contains(b, []byte(`id="zoo-geo-redirect"`)) {
		t.Errorf("after reject: consent must be gone, geo still shown")
	}
	// A fresh client (no cookies) still sees it closed: the choice is the tenant's.
	_, body = get(t, &http.Client{}, tn.URL("/cart"))
	if strings.Contains(body, `id="onetrust-consent-sdk"`) {
		t.Errorf("consent shown again to a cookie-less client")
	}
	// The region choice arrives as a cookie only (the script's path) and is recorded on the next request.
	u, _ := url.Parse(tn.URL("/"))
	jar.SetCookies(u, []*http.Cookie{{Name: regionCookie, Value: "stay", Path: tn.Prefix()}})
	_, body = get(t, c, tn.URL("/"))
	if strings.Contains(body, `id="zoo-geo-redirect"`) {
		t.Errorf("geo modal shown after the region cookie was set")
	}
	var st struct {
		Zoo struct{ Consent, Region string }
	}
	json.Unmarshal(tn.State(), &st)
	if st.Zoo.Consent != "rejected" || st.Zoo.Region != "us" {
		t.Errorf("zoo state = %+v; want consent rejected, region us", st.Zoo)
	}
	// Another tenant with consent still gets the dialog.
	other, _ := srv.NewTenant("shop", []string{"consent"})
	if _, body := get(t, c, other.URL("/")); !strings.Contains(body, `id="onetrust-consent-sdk"`) {
		t.Errorf("consent choice leaked to another tenant")
	}
	// Mutations off: no overlay markup at all.
	plain, _ := srv.NewTenant("shop", nil)
	if _, body := get(t, c, plain.URL("/")); strings.Contains(body, "onetrust") || strings.Contains(body, "zoo-geo") {
		t.Errorf("overlay markup without the mutation")
	}
}

func TestMutationRegistry(t *testing.T) {
	want := []string{"busy_script", "consent", "geo_redirect", "hung_fetch", "icon_over_input", "late_hydration",
		"nameless_switch", "ref_churn"}
	if got := strings.Join(MutationNames(), ","); got != strings.Join(want, ",") {
		t.Fatalf("MutationNames = %s", got)
	}
	if err := ValidateMutations([]string{"consent", "nameless_switch"}); err != nil {
		t.Fatal(err)
	}
	err := ValidateMutations([]string{"consent", "popup"})
	if err == nil || !strings.Contains(err.Error(), `unknown mutation "popup"`) ||
		!strings.Contains(err.Error(), "busy_script") {
		t.Fatalf("ValidateMutations(popup) = %v", err)
	}
	if m, ok := LookupMutation("ref_churn"); !ok || m.Guard != "stale_ref_refresh" {
		t.Fatalf("LookupMutation(ref_churn) = %+v %v", m, ok)
	}
	if got := strings.Join(AppMutations("shop"), ","); got != strings.Join(MutationNames(), ",") {
		t.Fatalf("shop mutations = %s", got)
	}
}

// TestMustAskCoversAllowed checks the tenant's MustAsk pattern against its Allowed: every URL Allowed refuses is
// matched (the browser asks about it), on the isolation test's URLs and on 20,000 URLs made of the prefix's
// beginnings and path pieces (escapes, dot segments, empty segments, queries, fragments, non-ASCII, control
// characters); the plain URLs under the prefix are not matched (they load without a round trip to Go).
func TestMustAskCoversAllowed(t *testing.T) {
	srv := startServer(t)
	a, _ := srv.NewTenant("shop", nil)
	b, _ := srv.NewTenant("shop", nil)
	m := a.MustAsk()
	for _, u := range []string{a.URL("/"), a.URL("/product/yoga-mat"), a.URL("/static/shop.css"),
		a.URL("/search?q=yoga+mat&x=%20"), a.URL("/checkout/address"), a.URL("/a.b/c~d_e-f")} {
		if m.MatchString(u) {
			t.Errorf("MustAsk matches %s, a plain URL under the prefix", u)
		}
		if !a.Allowed(u) {
			t.Errorf("a.Allowed(%s) = false", u)
		}
	}
	q := srv.Origin() + "/t/" + a.ID + "/shop"
	starts := []string{a.URL("/"), q, q + "/", srv.Origin() + "/t/" + a.ID, srv.Origin() + "/", b.URL("/"),
		"http://127.0.0.1", "", "http://user@" + strings.TrimPrefix(a.URL("/"), "http://"),
		strings.Replace(a.URL("/"), "http://", "https://", 1)}
	pieces := []string{"a", "b1", "x.css", ".", "..", "/", "//", "%2f", "%2F", "%2e", "%", "%zz", "\\", "?", "#",
		"q=1", "é", " ", "\x01", "\x7f", "~", "-", "_", "A", "/.", "/..", "./", ":", ";", "@"}
	r := rand.New(rand.NewPCG(36, 1))
	fast := 0
	for range 20000 {
		u := a.URL("/") // half the URLs start with the prefix
		if r.IntN(2) == 0 {
			u = starts[r.IntN(len(starts))]
		}
		for range r.IntN(7) {
			u += pieces[r.IntN(len(pieces))]
		}
		if m.MatchString(u) {
			continue
		}
		fast++
		if !a.Allowed(u) {
			t.Errorf("MustAsk does not match %q, which Allowed refuses", u)
		}
	}
	if fast < 1000 {
		t.Errorf("only %d of 20000 URLs load without asking: the corpus hardly exercises the pattern", fast)
	}
	blocked := []string{b.URL("/"), srv.Origin() + "/t/" + a.ID + "/shop/../../" + b.ID + "/shop/",
		srv.Origin() + "/t/" + a.ID + "/shop/%2e%2e/" + b.ID + "/shop/", srv.Origin() + "/t/" + a.ID + "/shopx/",
		srv.ControlURL() + "/tenants", "data:text/html,hi", "about:blank", ""}
	for _, u := range blocked {
		if a.Allowed(u) || !m.MatchString(u) {
			t.Errorf("%q: Allowed %t, MustAsk matches %t; want false, true", u, a.Allowed(u), m.MatchString(u))
		}
	}
}
