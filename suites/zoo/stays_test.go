package zoo

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"webbench/suites"
)

// Tests of the `stays` app over HTTP and in real Chromium (helpers rs* in recipes_test.go). Browser tests are
// skipped with -short.

func TestStaysCatalog(t *testing.T) {
	for slug, want := range map[string]int{"lisbon": 160, "porto": 132, "seville": 144} {
		if got := len(staysHotels[slug]); got != want {
			t.Errorf("%s: %d properties, want %d", slug, got, want)
		}
	}
	if len(staysHotelBySlug) != 160+132+144 {
		t.Errorf("%d slugs, want unique slugs for all 436 properties", len(staysHotelBySlug))
	}
	h := staysHotelBySlug["hotel-miradouro"]
	if h == nil || h.Name != "Hotel Miradouro" || h.Dest.Slug != "lisbon" || h.Kind != staysKindHotel {
		t.Fatalf("hotel-miradouro = %+v", h)
	}
	// Total = base × mult/100 × nights × (1 + 15% per adult beyond two), rounded half up.
	if h.Base != 207 {
		t.Fatalf("Hotel Miradouro base = %d (the task references depend on it)", h.Base)
	}
	if got := h.Total(h.Room("deluxe"), 3, 2); got != 776 { // 207 × 1.25 × 3 = 776.25
		t.Errorf("deluxe 3 nights 2 adults = %d, want 776", got)
	}
	if got := h.Total(h.Room("standard"), 3, 4); got != 807 { // 207 × 3 × 1.30 = 807.3
		t.Errorf("standard 3 nights 4 adults = %d, want 807", got)
	}
	if got := h.Taxes(10, 3); got != 2*3*7 {
		t.Errorf("taxes 10 nights 3 adults = %d, want 42 (7-night cap)", got)
	}
	if got := staysHotelBySlug["santa-cruz-suites"].Taxes(4, 3); got != 0 {
		t.Errorf("Seville taxes = %d, want 0", got)
	}
	if staysSlug("Palácio Sete Colinas") != "palacio-sete-colinas" || staysSlug("Hostal Betis") != "hostal-betis" {
		t.Error("staysSlug folds accents and joins words with dashes")
	}
	for _, q := range []string{"Lisbon", "lisbon", " Lisbon, Portugal ", "LISBON"} {
		if d := staysDestinationFor(q); d == nil || d.Slug != "lisbon" {
			t.Errorf("destination %q not found", q)
		}
	}
	if staysDestinationFor("Madrid") != nil {
		t.Error("Madrid is not a destination")
	}
	// Deterministic: a second build gives the same data.
	again, _ := buildStaysHotels()
	for d, hs := range staysHotels {
		for i, x := range hs {
			y := again[d][i]
			if x.Name != y.Name || x.Base != y.Base || x.Score != y.Score || strings.Join(x.Facilities, ",") !=
				strings.Join(y.Facilities, ",") {
				t.Fatalf("%s #%d differs between builds", d, i)
			}
		}
	}
}

var staysArticleRe = regexp.MustCompile(`<article class="property-card" aria-label="([^"]+)"`)

func TestStaysHTTP(t *testing.T) {
	srv := startServer(t)
	tn := newTenant(t, srv, "stays")
	stay := "checkin=2026-05-12&checkout=2026-05-15&group_adults=2&group_children=0"

	code, body, _ := rsGet(t, tn.URL("/"))
	if code != 200 {
		t.Fatalf("home: %d", code)
	}
	rsWant(t, body, `<label for="ss">Where are you going?</label>`, `<label for="checkin">Check-in date</label>`,
		`<label for="checkout">Check-out date</label>`, `<label for="group_adults">Adults</label>`,
		`<button type="submit" class="sb-submit">Search</button>`, "Trending destinations")

	code, body, _ = rsGet(t, tn.URL("search?ss=Lisbon&"+stay))
	if code != 200 {
		t.Fatalf("search: %d", code)
	}
	cards := staysArticleRe.FindAllStringSubmatch(body, -1)
	if len(cards) != 160 || cards[0][1] != "Hotel Alfama" || cards[159][1] != "Hotel Miradouro" {
		t.Fatalf("Lisbon results: %d cards", len(cards))
	}
	rsWant(t, body, "<h1 id=\"results-title\">Lisbon: 160 properties found</h1>", "See availability",
		`href="hotel/hotel-miradouro?checkin=2026-05-12&amp;checkout=2026-05-15&amp;group_adults=2&amp;group_children=0"`,
		"<p class=\"price\" data-testid=\"price-and-discounted-price\" data-alt-text=\"€621\">€ 621</p>",
		"3 nights, 2 adults · +€ 12 taxes and charges", `value="class=5"`, "Free cancellation", "Sort by")
	if strings.Contains(body, "<body data-churn") {
		t.Error("ref_churn off but the body has data-churn")
	}
	// Filters: OR within a group, AND across groups; the facet counts are the unfiltered matches.
	_, body, _ = rsGet(t, tn.URL("search?ss=Lisbon&"+stay+"&nflt=class%3D5"))
	five := staysArticleRe.FindAllStringSubmatch(body, -1)
	n5 := 0
	for _, h := range staysHotels["lisbon"] {
		if h.Stars == 5 {
			n5++
		}
	}
	if len(five) != n5 || n5 == 0 || !strings.Contains(body, "Lisbon: "+strconv.Itoa(n5)+" properties found") {
		t.Errorf("class=5: %d cards, want %d", len(five), n5)
	}
	_, body, _ = rsGet(t, tn.URL("search?ss=Lisbon&"+stay+"&nflt=class%3D5&nflt=class%3D4&nflt=fc%3D1"))
	n := 0
	for _, h := range staysHotels["lisbon"] {
		if (h.Stars == 5 || h.Stars == 4) && h.FreeCancel {
			n++
		}
	}
	if got := len(staysArticleRe.FindAllStringSubmatch(body, -1)); got != n {
		t.Errorf("(4 or 5 stars) and free cancellation: %d cards, want %d", got, n)
	}
	_, body, _ = rsGet(t, tn.URL("search?ss=Lisbon&"+stay+"&order=price"))
	prices := regexp.MustCompile(`data-alt-text="€([\d,]+)"`).FindAllStringSubmatch(body, -1)
	for i := 1; i < len(prices); i++ {
		a, _ := strconv.Atoi(strings.ReplaceAll(prices[i-1][1], ",", ""))
		b, _ := strconv.Atoi(strings.ReplaceAll(prices[i][1], ",", ""))
		if a/3 > b/3 {
			t.Fatalf("order=price: %d before %d", a, b)
		}
	}
	_, body, _ = rsGet(t, tn.URL("search?ss=Madrid&"+stay))
	rsWant(t, body, "Madrid: no properties found", "We couldn't find “Madrid”")
	_, body, _ = rsGet(t, tn.URL("search?ss=Porto&checkin=2026-05-15&checkout=2026-05-12"))
	rsWant(t, body, `role="alert">Your check-out date must be after your check-in date.`, "Show prices",
		"Enter your dates to see prices")
	_, body, _ = rsGet(t, tn.URL("search?ss=&checkin="))
	rsWant(t, body, "Enter a destination to start searching.")

	code, body, _ = rsGet(t, tn.URL("hotel/hotel-miradouro?"+stay))
	if code != 200 {
		t.Fatalf("hotel: %d", code)
	}
	rsWant(t, body, `<h1 class="hotel-name">Hotel Miradouro</h1>`, `aria-label="Availability"`,
		"<th scope=\"row\">Deluxe Double Room</th><td>2 guests</td><td>€ 776</td><td>+€ 12</td>",
		`<label for="room-deluxe">Deluxe Double Room</label>`, `<label for="guest-name">Full name</label>`,
		`<label for="guest-email">Email address</label>`, `<button type="submit" class="reserve-button">Reserve</button>`,
		`data-src="api/price-check/hotel-miradouro?checkin=2026-05-12&amp;checkout=2026-05-15&amp;group_adults=2&amp;group_children=0"`)
	_, body, _ = rsGet(t, tn.URL("hotel/hotel-miradouro"))
	rsWant(t, body, "Select dates to see this property's availability and prices.", "Check availability")
	if strings.Contains(body, "Reserve") {
		t.Error("hotel page without dates shows the booking form")
	}
	if code, _, _ := rsGet(t, tn.URL("hotel/no-such-hotel")); code != 404 {
		t.Errorf("unknown hotel: %d", code)
	}

	code, body, _ = rsGet(t, tn.URL("api/price-check/hotel-miradouro?"+stay))
	var pc staysPriceCheck
	if code != 200 || json.Unmarshal([]byte(body), &pc) != nil || len(pc.Rooms) != 3 || pc.Rooms[1].Total != 776 ||
		pc.Nights != 3 {
		t.Errorf("price-check: %d %s", code, body)
	}

	form := url.Values{"hotel": {"hotel-miradouro"}, "checkin": {"2026-05-12"}, "checkout": {"2026-05-15"},
		"group_adults": {"2"}, "group_children": {"0"}, "room": {"deluxe"}, "name": {""},
		"email": {"ana.silva@example.test"}}
	code, body, _ = rsPost(t, tn.URL("book"), form)
	if code != 422 || !strings.Contains(body, "Enter your full name.") ||
		!strings.Contains(body, `value="ana.silva@example.test"`) {
		t.Errorf("booking without a name: %d", code)
	}
	form.Set("name", "Ana Silva")
	form.Set("email", "not-an-email")
	if code, body, _ = rsPost(t, tn.URL("book"), form); code != 422 || !strings.Contains(body, "valid email") {
		t.Errorf("booking with a bad email: %d", code)
	}
	form.Set("email", "ana.silva@example.test")
	code, _, h := rsPost(t, tn.URL("book"), form)
	loc := h.Get("Location")
	if code != 303 || !strings.HasPrefix(loc, tn.Prefix()+"booking/") {
		t.Fatalf("booking: %d → %q", code, loc)
	}
	conf := strings.TrimPrefix(loc, tn.Prefix()+"booking/")
	if !regexp.MustCompile(`^\d{4}\.\d{3}\.\d{3}$`).MatchString(conf) {
		t.Errorf("confirmation %q is not NNNN.NNN.NNN", conf)
	}
	_, body, _ = rsGet(t, tn.URL("booking/"+conf))
	rsWant(t, body, "Your booking at Hotel Miradouro is confirmed", "Confirmation number: "+conf,
		"Tue 12 May 2026", "€ 776 + € 12 taxes and charges")

	st := rsState(t, tn)
	bookings := st["bookings"].([]any)
	if len(bookings) != 1 {
		t.Fatalf("bookings = %v", bookings)
	}
	want := map[string]any{"confirmation": conf, "hotel": "hotel-miradouro", "hotel_name": "Hotel Miradouro",
		"destination": "Lisbon", "room": "Deluxe Double Room", "room_code": "deluxe", "checkin": "2026-05-12",
		"checkout": "2026-05-15", "nights": 3.0, "adults": 2.0, "children": 0.0, "name": "Ana Silva",
		"email": "ana.silva@example.test", "business": false, "total": 776.0, "taxes": 12.0}
	if got := toJSON(bookings[0]); got != toJSON(want) {
		t.Errorf("booking = %s\nwant      %s", got, toJSON(want))
	}
	searches := st["searches"].([]any)
	first := searches[0].(map[string]any)
	if first["destination"] != "Lisbon" || first["checkin"] != "2026-05-12" || first["adults"] != 2.0 {
		t.Errorf("first search = %v", first)
	}
	// Filtering and sorting the same search are not new searches.
	if len(searches) != 3 { // Lisbon (+filters, order), Madrid, Porto; an empty destination is not recorded
		t.Errorf("searches = %v", searches)
	}

	// Confirmation numbers are deterministic per tenant creation order and booking index.
	other := newTenant(t, srv, "stays")
	if other.Seq == tn.Seq {
		t.Fatal("two tenants with one Seq")
	}
	s1 := &staysInstance{env: &AppEnv{Seq: tn.Seq}}
	if s1.confirmationNumber(0) != conf {
		t.Errorf("confirmationNumber(0) = %s, want %s", s1.confirmationNumber(0), conf)
	}
	s2 := &staysInstance{env: &AppEnv{Seq: other.Seq}}
	if s2.confirmationNumber(0) == conf || s1.confirmationNumber(1) == conf {
		t.Error("confirmation numbers repeat")
	}
	if code, _, _ := rsGet(t, tn.URL("booking/0000.000.000")); code != 404 {
		t.Errorf("unknown confirmation: %d", code)
	}
}

func TestStaysMutationsHTTP(t *testing.T) {
	srv := startServer(t)
	stay := "checkin=2026-10-02&checkout=2026-10-05&group_adults=2&group_children=0"

	hung := newTenant(t, srv, "stays", "hung_fetch")
	if !rsNeverAnswers(t, hung.URL("api/price-check/miragaia-suites?"+stay), 400*time.Millisecond) {
		t.Error("hung_fetch: api/price-check answered")
	}
	_, body, _ := rsGet(t, hung.URL("hotel/miragaia-suites?"+stay))
	rsWant(t, body, "<th scope=\"row\">Standard Double Room</th><td>2 guests</td><td>€ 468</td>",
		"Checking latest prices…")

	busy := newTenant(t, srv, "stays", "busy_script")
	_, body, _ = rsGet(t, busy.URL("hotel/palacio-triana?checkin=2026-09-10&checkout=2026-09-12&group_adults=2"))
	rsWant(t, body, `data-busy-ms="30000"`, "<td>€ 420</td>")

	churn := newTenant(t, srv, "stays", "ref_churn")
	_, body, _ = rsGet(t, churn.URL("search?ss=Lisbon&"+stay))
	rsWant(t, body, `<body data-churn>`, `data-churn-region="results"`,
		`data-alt-label="See availability at Hotel Miradouro"`, `<script src="static/churn.js"></script>`)
	_, body, _ = rsGet(t, churn.URL("hotel/hotel-miradouro?"+stay))
	rsWant(t, body, `data-churn-region="availability"`)
	// static/churn.js is the shop's ref_churn mechanism, served from the shop's assets.
	_, served, _ := rsGet(t, churn.URL("static/churn.js"))
	shops, _ := shopFS.ReadFile("assets/shop/static/shop.js")
	if served != string(shops) {
		t.Error("stays' static/churn.js is not the shop's ref_churn script")
	}

	consent := newTenant(t, srv, "stays", "consent")
	_, body, _ = rsGet(t, consent.URL("/"))
	rsWant(t, body, `id="onetrust-consent-sdk"`)
	if _, err := srv.NewTenant("stays", []string{"icon_over_input"}); err == nil {
		t.Error("stays accepted icon_over_input, which it does not implement")
	}
}

func TestStaysBrowser(t *testing.T) {
	b := launchChromium(t)
	srv := startServer(t)
	t.Run("tasks", func(t *testing.T) { rsBrowserTasks(t, b, srv, "stays", 6, nil) })

	t.Run("results_page_refs", func(t *testing.T) {
		tn := newTenant(t, srv, "stays")
		p, _, _ := newPage(t, b, tn)
		p.Goto(tn.URL("search?ss=Lisbon&checkin=2026-06-03&checkout=2026-06-06&group_adults=2"))
		snap := aiSnapshot(t, p, false)
		refs := len(refRe.FindAllString(snap, -1))
		if refs < 1500 || refs > 3000 {
			t.Errorf("Lisbon results: %d refs, want about 2,000 (≥ 1,500)", refs)
		}
		nodes := parseSnapshot(snap)
		n := findNode(nodes, &suites.Target{Role: "paragraph", NameRegex: `^€ ([\d,]+)$`,
			Within: &suites.Target{Role: "article", Name: "Villa Graça"}}, false)
		if n == nil || n.Label != "€ 834" {
			t.Errorf("Villa Graça price node = %+v", n)
		}
		t.Logf("Lisbon results: %d refs, %d bytes", refs, len(snap))
	})

	t.Run("ref_churn_replaces_nodes", func(t *testing.T) {
		tn := newTenant(t, srv, "stays", "ref_churn")
		p, _, _ := newPage(t, b, tn)
		p.Goto(tn.URL("search?ss=Porto&checkin=2026-06-20&checkout=2026-06-23&group_adults=2"))
		link := &suites.Target{Role: "link", Name: "Palácio Douro"}
		before := parseSnapshot(aiSnapshot(t, p, false))
		old := findNode(before, link, true)
		if old == nil || findNode(before, &suites.Target{Role: "button", Name: "Save Palácio Douro"}, true) == nil {
			t.Fatal("before any press the page's own labels should show")
		}
		// The first press after the load re-renders the list inside its mousedown: the click on the old ref is
		// lost (Playwright reports it done), and the old ref then points nowhere.
		if err := p.Locator("aria-ref=" + old.Ref).Click(); err != nil {
			t.Fatal(err)
		}
		if n, _ := p.Locator("aria-ref=" + old.Ref).Count(); n != 0 {
			t.Fatal("the old ref still resolves after the press")
		}
		after := parseSnapshot(aiSnapshot(t, p, false))
		fresh := findNode(after, link, true)
		if fresh == nil || fresh.Ref == old.Ref {
			t.Fatalf("fresh link %+v, old ref %s", fresh, old.Ref)
		}
		if findNode(after, &suites.Target{Role: "link", Name: "See availability at Palácio Douro"}, true) == nil {
			t.Error("secondary names did not alternate")
		}
		if err := p.Locator("aria-ref=" + fresh.Ref).Click(); err != nil {
			t.Fatal(err)
		}
		p.WaitForURL("**/hotel/palacio-douro?**")
	})

	t.Run("hung_fetch_never_answers", func(t *testing.T) {
		tn := newTenant(t, srv, "stays", "hung_fetch")
		p, ctx, _ := newPage(t, b, tn)
		p.Goto(tn.URL("hotel/miragaia-suites?checkin=2026-10-02&checkout=2026-10-05&group_adults=2"))
		v, term, _ := rsEval(t, ctx, p, "async () => (await fetch('api/price-check/miragaia-suites?checkin=2026-10-02&checkout=2026-10-05&group_adults=2')).json()", rsHung)
		if term || v != "__pending__" {
			t.Errorf("hung price check settled: %v (terminated %v)", v, term)
		}
		if txt, _ := p.Locator(".price-check").TextContent(); txt != "Checking latest prices…" {
			t.Errorf("price check status = %q", txt)
		}
	})

	t.Run("price_check_without_mutation", func(t *testing.T) {
		tn := newTenant(t, srv, "stays")
		p, ctx, _ := newPage(t, b, tn)
		p.Goto(tn.URL("hotel/miragaia-suites?checkin=2026-10-02&checkout=2026-10-05&group_adults=2"))
		if err := p.GetByText("Prices confirmed: from € 468 for 3 nights").WaitFor(); err != nil {
			t.Errorf("price check did not confirm: %v", err)
		}
		v, term, took := rsEval(t, ctx, p, "() => window.recalculateStayPrice('deluxe', 3, 2)", rsSettle)
		if term || asMap(v)["total"] != 585.0 {
			t.Errorf("recalculateStayPrice without busy_script = %v (terminated %v, %v)", v, term, took)
		}
	})

	for _, abort := range []bool{false, true} {
		t.Run(busyCase(abort), func(t *testing.T) {
			checkBusyScript(t, b, srv, "stays", "hotel/palacio-triana?checkin=2026-09-10&checkout=2026-09-12&group_adults=2",
				"window.recalculateStayPrice('deluxe', 2, 2)", "Palacio Triana", abort)
		})
	}
}

// TestRecipesStaysTasks checks the recipes and stays task files statically: coverage the Zoo needs from them,
// tags that match the mutations, evaluate steps exactly under hung_fetch / busy_script (before the answer),
// bounds, and goals unique across the whole Zoo.
func TestRecipesStaysTasks(t *testing.T) {
	all, err := BuiltinTasks()
	if err != nil {
		t.Fatal(err)
	}
	goals := map[string]string{}
	for _, tk := range all {
		g := strings.ToLower(strings.Join(strings.Fields(tk.Goal), " "))
		if prev, dup := goals[g]; dup {
			t.Errorf("%s: same goal as %s", tk.ID, prev)
		}
		goals[g] = tk.ID
	}
	guardOf := map[string]string{"consent": "intercept_hint", "ref_churn": "stale_ref_refresh",
		"hung_fetch": "evaluate_isolation", "busy_script": "evaluate_isolation"}
	covered := map[string]int{}
	n := 0
	for _, tk := range all {
		if tk.App != "recipes" && tk.App != "stays" {
			continue
		}
		n++
		if !strings.HasPrefix(tk.ID, tk.App+"-") || !regexp.MustCompile(`^tasks/`+tk.App+`\.yaml:\d+$`).MatchString(tk.Source) {
			t.Errorf("%s: id or source %q", tk.ID, tk.Source)
		}
		if tk.Timeout < 30*time.Second || tk.Timeout > 90*time.Second || tk.MaxSteps <= 0 || tk.MaxSteps > 50 {
			t.Errorf("%s: timeout %v, max_steps %d", tk.ID, tk.Timeout, tk.MaxSteps)
		}
		for _, m := range tk.Mutations {
			if !tk.HasTag(guardOf[m]) {
				t.Errorf("%s: mutation %s without tag %s", tk.ID, m, guardOf[m])
			}
		}
		hungOrBusy := slices.Contains(tk.Mutations, "hung_fetch") || slices.Contains(tk.Mutations, "busy_script")
		evals := 0
		for i, st := range tk.Solution {
			if st.Kind == "evaluate" {
				evals++
				if i+1 >= len(tk.Solution) || tk.Solution[i+1].Kind != "answer" {
					t.Errorf("%s: the evaluate step must be followed by the read-the-page answer", tk.ID)
				}
				if slices.Contains(tk.Mutations, "hung_fetch") && !strings.Contains(st.Function, "fetch('api/") {
					t.Errorf("%s: hung_fetch evaluate does not fetch the API: %s", tk.ID, st.Function)
				}
				if slices.Contains(tk.Mutations, "busy_script") && !strings.Contains(st.Function, "window.") {
					t.Errorf("%s: busy_script evaluate does not call the page function: %s", tk.ID, st.Function)
				}
			}
		}
		if hungOrBusy != (evals == 1) {
			t.Errorf("%s: mutations %v with %d evaluate steps", tk.ID, tk.Mutations, evals)
		}
		if tk.Check.Answer != nil && (!tk.HasTag("repeat_guard") || !tk.HasTag("final_recovery") || !tk.HasTag("qa")) {
			t.Errorf("%s: a Q&A task is tagged qa, repeat_guard, final_recovery", tk.ID)
		}
		if tk.HasTag("booking") {
			b, _ := tk.Check.State["bookings"].([]any)
			if len(b) != 1 {
				t.Errorf("%s: check.state.bookings = %v", tk.ID, tk.Check.State["bookings"])
			}
		}
		key := tk.App
		if tk.Check.Answer != nil {
			key += "/qa"
		} else {
			key += "/state"
		}
		if len(tk.Mutations) == 0 {
			key += "/plain"
		}
		for _, m := range tk.Mutations {
			covered[key+"/"+m]++
		}
		if len(tk.Mutations) == 0 {
			covered[key]++
		}
		if tk.HasTag("large_page") {
			covered[tk.App+"/large_page"]++
		}
	}
	if n < 8 {
		t.Errorf("%d recipes+stays tasks, want ≥ 8", n)
	}
	for _, k := range []string{"recipes/qa/consent", "recipes/qa/plain", "recipes/qa/hung_fetch",
		"recipes/qa/busy_script", "stays/state/ref_churn", "stays/qa/hung_fetch", "stays/qa/busy_script",
		"stays/large_page"} {
		if covered[k] == 0 {
			t.Errorf("no task covers %s (have %v)", k, covered)
		}
	}
}
