package bench

import (
	"fmt"
	"net"
	"net/http"
	"strings"
)

// Pages is the benchmark's own page server on loopback: the two pages the per-step comparison runs on.
//
//	/checkout  a one-page checkout form with CheckoutControls interactive controls (text boxes, selects,
//	           checkboxes, radios, buttons, links), the size of a real store's single-page checkout.
//	/results   a search-results page with ResultCount results, each one link naming the property, its area,
//	           score and price, plus five filter checkboxes (≈2,020 refs) — the "stays" results page of ZOO.md
//	           in miniature.
//
// Both pages are static HTML with a little script (a checkbox toggles a class), so the measured time is the
// tools', not the server's.
type Pages struct {
	ln  net.Listener
	srv *http.Server
}

// Page sizes (interactive controls, results).
const (
	CheckoutControls = 40
	ResultCount      = 2000
)

// StartPages serves the pages on 127.0.0.1 (random port).
func StartPages() (*Pages, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	checkout, results := checkoutHTML(), resultsHTML(ResultCount)
	mux := http.NewServeMux()
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("GET /checkout", html(checkout))
	mux.HandleFunc("GET /results", html(results))
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	p := &Pages{ln: ln, srv: &http.Server{Handler: mux}}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// URL is the absolute URL of path ("/checkout").
func (p *Pages) URL(path string) string { return "http://" + p.ln.Addr().String() + path }

// Close stops the server.
func (p *Pages) Close() error { return p.srv.Close() }

// checkoutHTML is a single-page checkout with exactly CheckoutControls interactive controls.
func checkoutHTML() string {
	var b strings.Builder
	field := func(id, label, typ string) {
		fmt.Fprintf(&b, `<p><label for="%s">%s</label> <input id="%s" name="%s" type="%s"></p>`+"\n", id, label, id, id, typ)
	}
	sel := func(id, label string, opts ...string) {
		fmt.Fprintf(&b, `<p><label for="%s">%s</label> <select id="%s" name="%s">`, id, label, id, id)
		for _, o := range opts {
			fmt.Fprintf(&b, `<option>%s</option>`, o)
		}
		b.WriteString("</select></p>\n")
	}
	check := func(id, label string) {
		fmt.Fprintf(&b, `<p><input type="checkbox" id="%s" name="%s" onchange="this.parentNode.classList.toggle('on')"> <label for="%s">%s</label></p>`+"\n", id, id, id, label)
	}
	radio := func(group, id, label string, checked bool) {
		c := ""
		if checked {
			c = " checked"
		}
		fmt.Fprintf(&b, `<label><input type="radio" name="%s" id="%s" value="%s"%s> %s</label>`+"\n", group, id, id, c, label)
	}
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Checkout — Luma</title>
<style>body{font:14px sans-serif;max-width:900px;margin:auto} .on{background:#efe} fieldset{margin:8px 0}</style>
</head><body><header><a href="/results">Continue shopping</a> · <a href="/checkout#cart">Edit cart</a></header>
<main><h1>Checkout</h1><form onsubmit="event.preventDefault();document.title='Order placed'">` + "\n")
	b.WriteString("<fieldset><legend>Contact</legend>\n") // 3
	field("email", "Email address", "email")
	field("phone", "Phone number", "tel")
	check("newsletter", "Send me offers by email")
	b.WriteString("</fieldset><fieldset><legend>Shipping address</legend>\n") // 9
	field("first", "First name", "text")
	field("last", "Last name", "text")
	field("company", "Company", "text")
	field("street", "Street address", "text")
	field("street2", "Apartment, suite", "text")
	field("city", "City", "text")
	sel("state", "State / Province", "—", "California", "Illinois", "New York", "Oregon", "Texas")
	field("postcode", "Postal code", "text")
	sel("country", "Country", "United States", "Canada", "France", "United Kingdom")
	b.WriteString("</fieldset><fieldset><legend>Billing address</legend>\n") // 7
	check("same", "Billing address same as shipping")
	field("bfirst", "Billing first name", "text")
	field("blast", "Billing last name", "text")
	field("bstreet", "Billing street address", "text")
	field("bcity", "Billing city", "text")
	field("bpostcode", "Billing postal code", "text")
	sel("bcountry", "Billing country", "United States", "Canada", "France", "United Kingdom")
	b.WriteString("</fieldset><fieldset><legend>Shipping method</legend>\n") // 4
	radio("ship", "standard", "Standard (5–7 days) $5.00", true)
	radio("ship", "express", "Express (2 days) $15.00", false)
	radio("ship", "nextday", "Next day $25.00", false)
	radio("ship", "pickup", "Store pickup free", false)
	b.WriteString("</fieldset><fieldset><legend>Payment</legend>\n") // 8
	radio("pay", "card", "Credit card", true)
	radio("pay", "paypal", "PayPal", false)
	radio("pay", "checkmo", "Check / money order", false)
	field("cardname", "Name on card", "text")
	field("cardnumber", "Card number", "text")
	sel("expmonth", "Expiration month", "01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12")
	sel("expyear", "Expiration year", "2026", "2027", "2028", "2029", "2030")
	field("cvc", "Security code", "text")
	b.WriteString("</fieldset><fieldset><legend>Extras</legend>\n") // 6
	check("giftwrap", "Gift wrap this order")
	b.WriteString(`<p><label for="giftmsg">Gift message</label> <textarea id="giftmsg" name="giftmsg"></textarea></p>` + "\n")
	field("coupon", "Discount code", "text")
	b.WriteString(`<p><button type="button" onclick="this.textContent='Code applied'">Apply discount</button></p>` + "\n")
	b.WriteString(`<p><label for="notes">Order notes</label> <textarea id="notes" name="notes"></textarea></p>` + "\n")
	check("terms", "I agree to the terms and conditions")
	b.WriteString("</fieldset>\n<p><button type=\"submit\">Place order</button></p></form></main></body></html>\n") // 1
	return b.String()
}

// resultsHTML is a results page with n results and five filter checkboxes.
func resultsHTML(n int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stays in Lisbon — results</title>
<style>body{font:14px sans-serif;max-width:900px;margin:auto} .on{background:#efe}</style>
</head><body><main><h1>Lisbon: ` + fmt.Sprint(n) + ` properties found</h1><section aria-label="Filters">` + "\n")
	for _, f := range []string{"Free cancellation", "Breakfast included", "Pool", "Pets allowed", "Parking"} {
		id := strings.ToLower(strings.ReplaceAll(f, " ", "-"))
		fmt.Fprintf(&b, `<label><input type="checkbox" id="%s" onchange="this.parentNode.classList.toggle('on')"> %s</label>`+"\n", id, f)
	}
	b.WriteString("</section><section aria-label=\"Results\">\n")
	areas := []string{"Alfama", "Baixa", "Belém", "Chiado", "Graça", "Príncipe Real", "Santos", "Avenidas Novas"}
	kinds := []string{"Hotel", "Guesthouse", "Apartments", "Suites", "Hostel", "Residence"}
	for i := 1; i <= n; i++ {
		score := 6.0 + float64((i*37)%40)/10
		fmt.Fprintf(&b, `<a href="#stay-%d">Casa %s %s %d — %s · %.1f (%d reviews) · €%d per night</a><br>`+"\n",
			i, areas[i%len(areas)], kinds[i%len(kinds)], i, areas[(i*3)%len(areas)], score, 20+(i*53)%900, 40+(i*29)%360)
	}
	b.WriteString("</section></main></body></html>\n")
	return b.String()
}
