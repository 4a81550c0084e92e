package zoo

import (
	"encoding/json"
	"net/http"
)

// The shop's product-page services and their mutations (shop.go lists the pages):
//
//	/api/stock/{sku}           JSON in-store availability the product page fetches on load (status line
//	                           "Checking availability in stores…", then "Available in N of 3 stores near you")
//	/api/busy-tick             one tick of the busy_script helper (mutations.go BusyTick)
//	/static/switch.js          the switch script (the planner's static/planner.js)
//
//   - hung_fetch: api/stock/{sku} never answers — the handler blocks until the request's context is done; the
//     status line keeps saying "Checking…", while price, facts and the add-to-cart form are in the page's HTML.
//   - busy_script: the product page's global window.estimateDelivery(postcode) — a legacy helper the page never
//     calls — blocks synchronously for shopBusyMS first (a loop of synchronous requests to api/busy-tick).
//   - nameless_switch: the checkout's shipping step has a "Gift wrap this order" switch (<button role="switch">,
//     named by its <label for>); under the mutation the label is a plain caption and the switch has no name.

// shopBusyMS is how long window.estimateDelivery blocks under busy_script (ZOO.md: 30 s).
const shopBusyMS = 30000

// shopStores are the stores the stock check reports on.
var shopStores = []string{"Portland – Pearl District", "Seattle – Capitol Hill", "Denver – Union Station"}

// shopStock is the body of api/stock/{sku}: online availability and one row per store, deterministic per SKU.
type shopStock struct {
	SKU    string           `json:"sku"`
	Online string           `json:"online"`
	Stores []shopStoreStock `json:"stores"`
}

type shopStoreStock struct {
	Store     string `json:"store"`
	Available bool   `json:"available"`
}

func (s *shopInstance) routeServices() {
	s.mux.HandleFunc("GET /api/stock/{sku}", s.stock)
	s.mux.HandleFunc("GET /api/busy-tick", serveBusyTick)
	// The switch behaviour is Testmate's script, served from the planner's assets (one copy).
	s.mux.HandleFunc("GET /static/switch.js", serveSwitchJS)
}

// serveSwitchJS serves the planner's switch script (role="switch" buttons toggle aria-checked and mirror it as
// "true"/"false" into their .switch-field's hidden input) to the apps that reuse it.
func serveSwitchJS(w http.ResponseWriter, r *http.Request) {
	ServeStatic(w, r, plannerFS, "assets/planner/static", "planner.js")
}

// stock serves api/stock/{sku}. Under hung_fetch it never answers: it blocks until the request's context is
// done (client gone), then returns without writing.
func (s *shopInstance) stock(w http.ResponseWriter, r *http.Request) {
	if s.env.Mutations.Has("hung_fetch") {
		<-r.Context().Done()
		return
	}
	pr := productBySKU(r.PathValue("sku"))
	if pr == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such product"})
		return
	}
	out := shopStock{SKU: pr.SKU, Online: "in_stock"}
	for _, st := range shopStores {
		out.Stores = append(out.Stores, shopStoreStock{Store: st, Available: staysHash(pr.SKU, st)%3 != 0})
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, out)
}

// shopDeliveryJSON is the shipping methods' delivery times as window.estimateDelivery returns them:
// [{"method": "standard", "delivery": "5–7 business days"}, …].
func shopDeliveryJSON() string {
	type est struct {
		Method   string `json:"method"`
		Delivery string `json:"delivery"`
	}
	var out []est
	for _, m := range shippingMethods {
		out = append(out, est{m.Code, m.Days})
	}
	b, _ := json.Marshal(out)
	return string(b)
}
