package zoo

import (
	"embed"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The `shop` app: a Magento-like store ("Northwind Outfitters"). Pages (app-relative paths):
//
//	/                          home: category links, featured products, search box
//	/category/{slug}           category listing (fitness, apparel, gear)
//	/search?q=…                search results
//	/product/{slug}            product page: colour/size radios, quantity, Add to cart (POST cart/add)
//	/cart                      cart with editable quantities (POST cart/update, cart/remove)
//	/checkout/email            guest checkout step 1 (POST)
//	/checkout/address          step 2: name + address (POST)
//	/checkout/shipping         step 3: shipping method select (POST)
//	/checkout/payment          step 4: payment method + review, Place order (POST)
//	/checkout/success?order=N  confirmation, heading "Order #N"
//
// Every form is a server-side POST (redirect after post), so the state is authoritative. Mutations: consent,
// geo_redirect (shared overlays), icon_over_input (product colour swatches), ref_churn (cart and search results),
// late_hydration (search results, hydration.go), hung_fetch and busy_script (the product page's stock check and
// delivery estimate), nameless_switch (the checkout's "Gift wrap this order" switch): shop_services.go.

//go:embed assets/shop
var shopFS embed.FS

var shopTpl = ParseTemplates(shopFS, "assets/shop", template.FuncMap{
	"categoryName": func(slug string) string {
		if c := categoryBySlug(slug); c != nil {
			return c.Name
		}
		return slug
	},
	"stars": func(r float64) string {
		full := int(r + 0.5)
		return strings.Repeat("★", full) + strings.Repeat("☆", 5-full)
	},
	"rating": func(r float64) string { return strconv.FormatFloat(r, 'f', 1, 64) },
	"items": func(n int) string {
		if n == 1 {
			return "1 item"
		}
		return strconv.Itoa(n) + " items"
	},
})

type shopApp struct{}

func init() { RegisterApp(shopApp{}) }

// Name implements App.
func (shopApp) Name() string { return "shop" }

// Mutations implements App: the shop implements every mutation of the registry.
func (shopApp) Mutations() []string {
	return []string{"busy_script", "consent", "geo_redirect", "hung_fetch", "icon_over_input", "late_hydration",
		"nameless_switch", "ref_churn"}
}

// New implements App.
func (shopApp) New(env *AppEnv) (Instance, error) {
	s := &shopInstance{env: env, Cart: []ShopLine{}, Orders: []ShopOrder{}}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /{$}", s.home)
	s.mux.HandleFunc("GET /category/{slug}", s.category)
	s.mux.HandleFunc("GET /search", s.search)
	s.mux.HandleFunc("GET /product/{slug}", s.product)
	s.mux.HandleFunc("POST /cart/add", s.cartAdd)
	s.mux.HandleFunc("GET /cart", s.cart)
	s.mux.HandleFunc("POST /cart/update", s.cartUpdate)
	s.mux.HandleFunc("POST /cart/remove", s.cartRemove)
	s.mux.HandleFunc("GET /checkout", func(w http.ResponseWriter, r *http.Request) {
		env.Redirect(w, r, "checkout/email")
	})
	s.mux.HandleFunc("/checkout/email", s.checkoutEmail)
	s.mux.HandleFunc("/checkout/address", s.checkoutAddress)
	s.mux.HandleFunc("/checkout/shipping", s.checkoutShipping)
	s.mux.HandleFunc("/checkout/payment", s.checkoutPayment)
	s.mux.HandleFunc("GET /checkout/success", s.success)
	s.routeServices()
	s.mux.HandleFunc("GET /static/{file...}", func(w http.ResponseWriter, r *http.Request) {
		ServeStatic(w, r, shopFS, "assets/shop/static", r.PathValue("file"))
	})
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { s.notFound(w, r) })
	return s, nil
}

// ShopLine is one cart or order line in the shop's state. Color is lowercased ("blue"); Size as shown ("M",
// "65 cm"); both omitted when the product has no such option. Price is the unit price in dollars.
type ShopLine struct {
	// SKU is the product's stock-keeping unit ("YM-01").
	SKU string `json:"sku"`
	// Name is the product name ("Yoga Mat").
	Name string `json:"name"`
	// Qty is the quantity, 1–99.
	Qty int `json:"qty"`
	// Color is the chosen colour, lowercased ("blue"); empty for products without colours.
	Color string `json:"color,omitempty"`
	// Size is the chosen size as shown ("M", "65 cm"); empty for products without sizes.
	Size string `json:"size,omitempty"`
	// Price is the unit price in dollars.
	Price float64 `json:"price"`
}

// ShopAddress is a checkout address. Country is an ISO code ("US").
type ShopAddress struct {
	// FirstName and LastName are the recipient's names as typed (trimmed).
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	// Street, City and Postcode are as typed (trimmed); Postcode is a string ("97201", "LS1 4AP").
	Street   string `json:"street"`
	City     string `json:"city"`
	Postcode string `json:"postcode"`
	// Country is the ISO 3166-1 alpha-2 code of the chosen option: US, CA, GB, DE or FR.
	Country string `json:"country"`
	// Phone is optional.
	Phone string `json:"phone,omitempty"`
}

// ShopPayment is the payment of an order: Method "checkmo" (check / money order) or "card"; CardLast4 for
// cards.
type ShopPayment struct {
	// Method is "checkmo" or "card".
	Method string `json:"method"`
	// CardLast4 is the card number's last four digits (cards only).
	CardLast4 string `json:"card_last4,omitempty"`
}

// ShopOrder is a placed order. Number is the 5-digit order number shown as "Order #NNNNN"; Shipping is the
// method code (standard, express, next_day); amounts in dollars.
type ShopOrder struct {
	// Number is the 5-digit order number, a string ("27838").
	Number string `json:"number"`
	// Items are the cart lines at the time of the order.
	Items []ShopLine `json:"items"`
	// Email is the guest's email address.
	Email string `json:"email"`
	// Address is the shipping address.
	Address ShopAddress `json:"address"`
	// Shipping is the method code: standard, express or next_day.
	Shipping string `json:"shipping"`
	// Payment is the payment method.
	Payment ShopPayment `json:"payment"`
	// GiftWrap is the checkout's "Gift wrap this order" switch (free of charge).
	GiftWrap bool `json:"gift_wrap"`
	// Subtotal, ShippingCost and Total are in dollars (Standard $5, Express $12, Next day $25).
	Subtotal     float64 `json:"subtotal"`
	ShippingCost float64 `json:"shipping_cost"`
	Total        float64 `json:"total"`
}

// shopCheckout is the checkout in progress (one guest per tenant).
type shopCheckout struct {
	Email    string
	Address  ShopAddress
	Shipping string
	Payment  ShopPayment
	GiftWrap bool
}

type shopInstance struct {
	env *AppEnv
	mux *http.ServeMux

	mu       sync.Mutex
	Cart     []ShopLine
	Orders   []ShopOrder
	checkout shopCheckout
}

func (s *shopInstance) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// State implements Instance: {"cart": [ShopLine], "orders": [ShopOrder]}.
func (s *shopInstance) State() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"cart": s.Cart, "orders": s.Orders})
	return b
}

// orderNumber is deterministic per tenant: a 5-digit number derived from the tenant's creation order and the
// order's index within the tenant.
func (s *shopInstance) orderNumber(k int) string {
	return strconv.Itoa(10000 + (s.env.Seq*7919+k*131)%90000)
}

// page is the data every shop template gets.
type page struct {
	Base      string
	Title     string
	Overlays  template.HTML
	CartCount int
	Cats      []shopCategory
	Query     string
	Flash     string
	Error     string
	Churn     bool // ref_churn on
	Data      any
}

func (s *shopInstance) newPage(r *http.Request, title string) *page {
	s.mu.Lock()
	n := 0
	for _, l := range s.Cart {
		n += l.Qty
	}
	s.mu.Unlock()
	return &page{Base: s.env.Base, Title: title, Overlays: s.env.Overlays.HTML(r), CartCount: n,
		Cats: shopCategories}
}

func (s *shopInstance) render(w http.ResponseWriter, name string, status int, p *page) {
	RenderPage(w, shopTpl, name, status, p)
}

func (s *shopInstance) notFound(w http.ResponseWriter, r *http.Request) {
	s.render(w, "notfound.html", http.StatusNotFound, s.newPage(r, "Page not found"))
}

func (s *shopInstance) home(w http.ResponseWriter, r *http.Request) {
	var featured []*shopProduct
	for i := range shopProducts {
		if shopProducts[i].Featured {
			featured = append(featured, &shopProducts[i])
		}
	}
	p := s.newPage(r, "Home")
	p.Data = featured
	s.render(w, "home.html", http.StatusOK, p)
}

type listingData struct {
	Category *shopCategory
	Products []*shopProduct
	Sort     string
	Sorts    []struct{ Value, Label string }
}

var listingSorts = []struct{ Value, Label string }{
	{"position", "Position"}, {"name", "Product name"}, {"price", "Price"},
}

func sortProducts(ps []*shopProduct, by string) {
	less := func(a, b *shopProduct) bool { return false }
	switch by {
	case "name":
		less = func(a, b *shopProduct) bool { return a.Name < b.Name }
	case "price":
		less = func(a, b *shopProduct) bool { return a.Price < b.Price }
	}
	// insertion sort keeps it stable and tiny
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && less(ps[j], ps[j-1]); j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

func (s *shopInstance) category(w http.ResponseWriter, r *http.Request) {
	c := categoryBySlug(r.PathValue("slug"))
	if c == nil {
		s.notFound(w, r)
		return
	}
	d := &listingData{Category: c, Sort: r.URL.Query().Get("sort"), Sorts: listingSorts}
	for i := range shopProducts {
		if shopProducts[i].Category == c.Slug {
			d.Products = append(d.Products, &shopProducts[i])
		}
	}
	sortProducts(d.Products, d.Sort)
	p := s.newPage(r, c.Name)
	p.Data = d
	s.render(w, "category.html", http.StatusOK, p)
}

func (s *shopInstance) search(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	d := &listingData{Products: searchProducts(q), Sort: r.URL.Query().Get("sort"), Sorts: listingSorts}
	sortProducts(d.Products, d.Sort)
	p := s.newPage(r, "Search results for: '"+q+"'")
	p.Query = q
	p.Data = d
	if s.env.Mutations.Has("ref_churn") {
		p.Churn = true
	}
	if s.env.Mutations.Has("late_hydration") {
		renderHydrated(w, shopTpl, "search.html", http.StatusOK, p, "static/favicon.svg", "Northwind Outfitters")
		return
	}
	s.render(w, "search.html", http.StatusOK, p)
}

type productData struct {
	P          *shopProduct
	IconOver   bool
	Color      string
	Size       string
	Qty        string
	CategoryNm string
	StockAPI   string // the stock check the page's script fetches
	BusyMS     int    // busy_script block of window.estimateDelivery in ms; 0 = off
	Delivery   string // JSON [{method, delivery}] of the shipping methods, for window.estimateDelivery
}

func (s *shopInstance) product(w http.ResponseWriter, r *http.Request) {
	pr := productBySlug(r.PathValue("slug"))
	if pr == nil {
		s.notFound(w, r)
		return
	}
	p := s.newPage(r, pr.Name)
	q := r.URL.Query()
	switch q.Get("error") {
	case "options":
		p.Error = "You need to choose options for your item."
	case "color":
		p.Error = "Please select a colour."
	case "size":
		p.Error = "Please select a size."
	case "qty":
		p.Error = "Please enter a quantity between 1 and 99."
	}
	p.Data = &productData{P: pr, IconOver: s.env.Mutations.Has("icon_over_input"), Color: q.Get("color"),
		Size: q.Get("size"), Qty: "1", CategoryNm: categoryBySlug(pr.Category).Name, StockAPI: "api/stock/" + pr.SKU,
		Delivery: shopDeliveryJSON()}
	if s.env.Mutations.Has("busy_script") {
		p.Data.(*productData).BusyMS = shopBusyMS
	}
	s.render(w, "product.html", http.StatusOK, p)
}

func (s *shopInstance) cartAdd(w http.ResponseWriter, r *http.Request) {
	pr := productBySKU(r.FormValue("sku"))
	if pr == nil {
		http.Error(w, "unknown product", http.StatusBadRequest)
		return
	}
	back := func(code string) {
		v := url.Values{"error": {code}}
		if c := r.FormValue("color"); c != "" {
			v.Set("color", c)
		}
		if sz := r.FormValue("size"); sz != "" {
			v.Set("size", sz)
		}
		s.env.Redirect(w, r, "product/"+pr.Slug+"?"+v.Encode())
	}
	color, size := r.FormValue("color"), r.FormValue("size")
	if r.FormValue("from") == "listing" && ((len(pr.Colors) > 0 && color == "") || (len(pr.Sizes) > 0 && size == "")) {
		back("options")
		return
	}
	if len(pr.Colors) > 0 && !slices.Contains(pr.Colors, color) {
		back("color")
		return
	}
	if len(pr.Sizes) > 0 && !slices.Contains(pr.Sizes, size) {
		back("size")
		return
	}
	if len(pr.Colors) == 0 {
		color = ""
	}
	if len(pr.Sizes) == 0 {
		size = ""
	}
	qty := 1
	if v := strings.TrimSpace(r.FormValue("qty")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 99 {
			back("qty")
			return
		}
		qty = n
	}
	lc := strings.ToLower(color)
	s.mu.Lock()
	merged := false
	for i := range s.Cart {
		if s.Cart[i].SKU == pr.SKU && s.Cart[i].Color == lc && s.Cart[i].Size == size {
			s.Cart[i].Qty = min(99, s.Cart[i].Qty+qty)
			merged = true
		}
	}
	if !merged {
		s.Cart = append(s.Cart, ShopLine{SKU: pr.SKU, Name: pr.Name, Qty: qty, Color: lc, Size: size,
			Price: float64(pr.Price) / 100})
	}
	s.mu.Unlock()
	s.env.Redirect(w, r, "cart?added="+pr.SKU)
}

// cartRow is one cart line as the cart template shows it.
type cartRow struct {
	Index    int
	Line     ShopLine
	P        *shopProduct
	Options  string
	QtyLabel string
	Subtotal int
}

type cartData struct {
	Rows     []cartRow
	Subtotal int
}

func (s *shopInstance) cartRows() cartData {
	s.mu.Lock()
	defer s.mu.Unlock()
	var d cartData
	count := map[string]int{}
	for _, l := range s.Cart {
		count[l.SKU]++
	}
	for i, l := range s.Cart {
		pr := productBySKU(l.SKU)
		var opts []string
		if l.Color != "" {
			opts = append(opts, colorDisplay(pr, l.Color))
		}
		if l.Size != "" {
			opts = append(opts, l.Size)
		}
		label := "Quantity for " + pr.Name
		if count[l.SKU] > 1 && len(opts) > 0 {
			label += " (" + strings.Join(opts, ", ") + ")"
		}
		var optText string
		if l.Color != "" {
			optText = "Colour: " + colorDisplay(pr, l.Color)
		}
		if l.Size != "" {
			if optText != "" {
				optText += " · "
			}
			optText += "Size: " + l.Size
		}
		sub := pr.Price * l.Qty
		d.Rows = append(d.Rows, cartRow{Index: i, Line: l, P: pr, Options: optText, QtyLabel: label, Subtotal: sub})
		d.Subtotal += sub
	}
	return d
}

func colorDisplay(pr *shopProduct, lc string) string {
	for _, c := range pr.Colors {
		if strings.ToLower(c) == lc {
			return c
		}
	}
	return lc
}

func (s *shopInstance) cart(w http.ResponseWriter, r *http.Request) {
	p := s.newPage(r, "Shopping Cart")
	q := r.URL.Query()
	if sku := q.Get("added"); sku != "" {
		if pr := productBySKU(sku); pr != nil {
			p.Flash = "You added " + pr.Name + " to your shopping cart."
		}
	}
	if q.Get("updated") != "" {
		p.Flash = "Your shopping cart has been updated."
	}
	if q.Get("removed") != "" {
		p.Flash = "The item was removed from your shopping cart."
	}
	if q.Get("error") == "qty" {
		p.Error = "Please enter a quantity between 0 and 99."
	}
	if q.Get("error") == "empty" {
		p.Error = "Your shopping cart is empty."
	}
	p.Data = s.cartRows()
	if s.env.Mutations.Has("ref_churn") {
		p.Churn = true
	}
	s.render(w, "cart.html", http.StatusOK, p)
}

func (s *shopInstance) cartUpdate(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	s.mu.Lock()
	next := make([]ShopLine, 0, len(s.Cart))
	bad := false
	for i, l := range s.Cart {
		if v, ok := r.PostForm["qty-"+strconv.Itoa(i)]; ok && len(v) > 0 {
			n, err := strconv.Atoi(strings.TrimSpace(v[0]))
			if err != nil || n < 0 || n > 99 {
				bad = true
				next = append(next, l)
				continue
			}
			l.Qty = n
		}
		if l.Qty > 0 {
			next = append(next, l)
		}
	}
	s.Cart = next
	s.mu.Unlock()
	if bad {
		s.env.Redirect(w, r, "cart?error=qty")
		return
	}
	s.env.Redirect(w, r, "cart?updated=1")
}

func (s *shopInstance) cartRemove(w http.ResponseWriter, r *http.Request) {
	i, err := strconv.Atoi(r.FormValue("line"))
	s.mu.Lock()
	if err == nil && i >= 0 && i < len(s.Cart) {
		s.Cart = append(s.Cart[:i:i], s.Cart[i+1:]...)
	}
	s.mu.Unlock()
	s.env.Redirect(w, r, "cart?removed=1")
}

// checkoutData is what every checkout step template gets.
type checkoutData struct {
	Step      int
	Cart      cartData
	C         shopCheckout
	Methods   []shippingMethod
	Countries []struct{ Code, Name string }
	Method    *shippingMethod
	Country   string
	Total     int
	Nameless  bool // nameless_switch: the gift-wrap switch has no accessible name
}

func (s *shopInstance) checkoutPage(r *http.Request, step int, title string) (*page, *checkoutData) {
	p := s.newPage(r, title)
	d := &checkoutData{Step: step, Cart: s.cartRows(), Methods: shippingMethods, Countries: shopCountries,
		Nameless: s.env.Mutations.Has("nameless_switch")}
	s.mu.Lock()
	d.C = s.checkout
	s.mu.Unlock()
	if d.C.Address.Country == "" {
		d.C.Address.Country = "US"
	}
	d.Country = countryName(d.C.Address.Country)
	d.Method = shippingByCode(d.C.Shipping)
	d.Total = d.Cart.Subtotal
	if d.Method != nil {
		d.Total += d.Method.Cost
	}
	p.Data = d
	return p, d
}

// checkoutGate redirects to the first incomplete step before step (1 email, 2 address, 3 shipping) and
// reports whether it did.
func (s *shopInstance) checkoutGate(w http.ResponseWriter, r *http.Request, step int) bool {
	s.mu.Lock()
	empty := len(s.Cart) == 0
	c := s.checkout
	s.mu.Unlock()
	switch {
	case empty:
		s.env.Redirect(w, r, "cart?error=empty")
	case step > 1 && c.Email == "":
		s.env.Redirect(w, r, "checkout/email")
	case step > 2 && c.Address.Street == "":
		s.env.Redirect(w, r, "checkout/address")
	case step > 3 && c.Shipping == "":
		s.env.Redirect(w, r, "checkout/shipping")
	default:
		return false
	}
	return true
}

func (s *shopInstance) checkoutEmail(w http.ResponseWriter, r *http.Request) {
	if s.checkoutGate(w, r, 1) {
		return
	}
	if r.Method == http.MethodPost {
		email := strings.TrimSpace(r.FormValue("email"))
		if at := strings.Index(email, "@"); at > 0 && at < len(email)-1 && !strings.ContainsAny(email, " ,;") {
			s.mu.Lock()
			s.checkout.Email = email
			s.mu.Unlock()
			s.env.Redirect(w, r, "checkout/address")
			return
		}
		p, d := s.checkoutPage(r, 1, "Checkout")
		d.C.Email = email
		p.Error = "Please enter a valid email address (Ex: johndoe@domain.com)."
		s.render(w, "checkout_email.html", http.StatusUnprocessableEntity, p)
		return
	}
	p, _ := s.checkoutPage(r, 1, "Checkout")
	s.render(w, "checkout_email.html", http.StatusOK, p)
}

func (s *shopInstance) checkoutAddress(w http.ResponseWriter, r *http.Request) {
	if s.checkoutGate(w, r, 2) {
		return
	}
	if r.Method == http.MethodPost {
		f := func(k string) string { return strings.TrimSpace(r.FormValue(k)) }
		a := ShopAddress{FirstName: f("first_name"), LastName: f("last_name"), Street: f("street"), City: f("city"),
			Postcode: f("postcode"), Country: f("country"), Phone: f("phone")}
		if a.FirstName == "" || a.LastName == "" || a.Street == "" || a.City == "" || a.Postcode == "" ||
			countryName(a.Country) == "" {
			p, d := s.checkoutPage(r, 2, "Checkout")
			d.C.Address = a
			p.Error = "Please fill in every required field."
			s.render(w, "checkout_address.html", http.StatusUnprocessableEntity, p)
			return
		}
		s.mu.Lock()
		s.checkout.Address = a
		s.mu.Unlock()
		s.env.Redirect(w, r, "checkout/shipping")
		return
	}
	p, _ := s.checkoutPage(r, 2, "Checkout")
	s.render(w, "checkout_address.html", http.StatusOK, p)
}

func (s *shopInstance) checkoutShipping(w http.ResponseWriter, r *http.Request) {
	if s.checkoutGate(w, r, 3) {
		return
	}
	if r.Method == http.MethodPost {
		m := shippingByCode(r.FormValue("shipping"))
		if m == nil {
			p, _ := s.checkoutPage(r, 3, "Checkout")
			p.Error = "Please choose a shipping method."
			s.render(w, "checkout_shipping.html", http.StatusUnprocessableEntity, p)
			return
		}
		s.mu.Lock()
		s.checkout.Shipping = m.Code
		s.checkout.GiftWrap = r.FormValue("gift_wrap") == "true"
		s.mu.Unlock()
		s.env.Redirect(w, r, "checkout/payment")
		return
	}
	p, _ := s.checkoutPage(r, 3, "Checkout")
	s.render(w, "checkout_shipping.html", http.StatusOK, p)
}

func (s *shopInstance) checkoutPayment(w http.ResponseWriter, r *http.Request) {
	if s.checkoutGate(w, r, 4) {
		return
	}
	if r.Method != http.MethodPost {
		p, _ := s.checkoutPage(r, 4, "Checkout")
		s.render(w, "checkout_payment.html", http.StatusOK, p)
		return
	}
	pay := ShopPayment{Method: r.FormValue("payment")}
	fail := func(msg string) {
		p, d := s.checkoutPage(r, 4, "Checkout")
		d.C.Payment = pay
		p.Error = msg
		s.render(w, "checkout_payment.html", http.StatusUnprocessableEntity, p)
	}
	switch pay.Method {
	case "checkmo":
	case "card":
		digits := strings.Map(func(c rune) rune {
			if c >= '0' && c <= '9' {
				return c
			}
			if c == ' ' || c == '-' {
				return -1
			}
			return 'x'
		}, r.FormValue("card_number"))
		exp := strings.TrimSpace(r.FormValue("card_expiry"))
		cvv := strings.TrimSpace(r.FormValue("card_cvv"))
		if len(digits) < 13 || len(digits) > 19 || strings.Contains(digits, "x") || !luhn(digits) {
			fail("Please enter a valid credit card number.")
			return
		}
		if len(exp) != 5 || exp[2] != '/' || strings.TrimSpace(r.FormValue("card_name")) == "" ||
			len(cvv) < 3 || len(cvv) > 4 {
			fail("Please complete the card details (name, expiration date MM/YY, security code).")
			return
		}
		pay.CardLast4 = digits[len(digits)-4:]
	default:
		fail("Please select a payment method.")
		return
	}
	s.mu.Lock()
	if len(s.Cart) == 0 {
		s.mu.Unlock()
		s.env.Redirect(w, r, "cart?error=empty")
		return
	}
	m := shippingByCode(s.checkout.Shipping)
	sub := 0
	for _, l := range s.Cart {
		sub += int(l.Price*100+0.5) * l.Qty
	}
	o := ShopOrder{Number: s.orderNumber(len(s.Orders)), Items: s.Cart, Email: s.checkout.Email,
		Address: s.checkout.Address, Shipping: m.Code, Payment: pay, GiftWrap: s.checkout.GiftWrap,
		Subtotal:     float64(sub) / 100,
		ShippingCost: float64(m.Cost) / 100, Total: float64(sub+m.Cost) / 100}
	s.Orders = append(s.Orders, o)
	s.Cart = []ShopLine{}
	s.checkout = shopCheckout{}
	s.mu.Unlock()
	s.env.Redirect(w, r, "checkout/success?order="+o.Number)
}

// luhn reports whether a digit string passes the Luhn checksum (ISO/IEC 7812-1).
func luhn(d string) bool {
	sum := 0
	for i := 0; i < len(d); i++ {
		n := int(d[len(d)-1-i] - '0')
		if i%2 == 1 {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
	}
	return sum%10 == 0
}

func (s *shopInstance) success(w http.ResponseWriter, r *http.Request) {
	num := r.URL.Query().Get("order")
	s.mu.Lock()
	var o *ShopOrder
	for i := range s.Orders {
		if s.Orders[i].Number == num {
			o = &s.Orders[i]
		}
	}
	var oc ShopOrder
	if o != nil {
		oc = *o
	}
	s.mu.Unlock()
	if o == nil {
		s.notFound(w, r)
		return
	}
	p := s.newPage(r, "Order #"+oc.Number)
	p.Data = struct {
		O       ShopOrder
		Method  *shippingMethod
		Country string
	}{oc, shippingByCode(oc.Shipping), countryName(oc.Address.Country)}
	s.render(w, "success.html", http.StatusOK, p)
}
