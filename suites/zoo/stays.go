package zoo

import (
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The `stays` app: a Booking-like accommodation site ("Staybook"). Pages (app-relative paths; query
// parameters follow Booking's: ss, checkin, checkout, group_adults, group_children, nflt, order):
//
//	/                               search form: "Where are you going?", "Check-in date", "Check-out date"
//	                                (YYYY-MM-DD), "Adults", "Children", Search
//	/search?ss=Lisbon&checkin=…     results: heading "Lisbon: 160 properties found", filter checkboxes (budget,
//	                                policy, meals, stars, review score, type, facilities, neighbourhood,
//	                                distance), "Sort by", and one card per property (name link, stars, location,
//	                                review score, quoted room, total price, "See availability", wishlist) —
//	                                about 2,000 refs in an AI snapshot for Lisbon
//	/hotel/{slug}?checkin=…         property page: facts, an "Availability" table with the stay's price per room
//	                                type, and the booking form (room radios, "Full name", "Email address",
//	                                "Reserve"); without dates, a date form instead
//	POST /book                      creates a booking, redirects to /booking/{confirmation}
//	/booking/{confirmation}         confirmation page (heading "Confirmation number: NNNN.NNN.NNN")
//	/api/price-check/{slug}?…       JSON live-price check the property page calls on load
//
// State: {"searches": [StaysSearch], "bookings": [StaysBooking]}. Mutations:
//   - consent: the shared overlay.
//   - ref_churn: the results list and the property page's availability block (table + booking form)
//     re-render at the first mouse press after every user action and after the load (the shop's
//     mechanism, static/churn.js): fresh nodes, and secondary names alternate (wishlist buttons, "See availability"
//     labels, score words, prices' text). Property name links, form labels and "Reserve" keep their names.
//   - hung_fetch: api/price-check/{slug} never answers (the handler blocks until the request's context is
//     done); the page keeps showing "Checking latest prices…" while the prices are in its HTML.
//   - busy_script: the property page's global window.recalculateStayPrice(room, nights, adults) blocks
//     synchronously for staysBusyMS first (a loop of synchronous requests to api/busy-tick, BusyTick each); the
//     page never calls it.
//   - late_hydration: the results page is delivered as a client-rendered shell (hydration.go).
//   - nameless_switch: the booking form's "I'm travelling for work" switch (<button role="switch">, named by
//     its <label for>) has no accessible name; its caption is plain text.

//go:embed assets/stays
var staysFS embed.FS

// staysBusyMS is how long window.recalculateStayPrice blocks under busy_script (ZOO.md: 30 s).
const staysBusyMS = 30000

// staysDateLayout is the date format of the forms and the state ("2026-05-12").
const staysDateLayout = "2006-01-02"

// staysMaxNights bounds a stay.
const staysMaxNights = 30

var staysTpl = ParseTemplates(staysFS, "assets/stays", template.FuncMap{
	"euro":  func(n int) string { return "€ " + commaInt(n) },
	"comma": commaInt,
	"starText": func(n int) string {
		if n == 1 {
			return "1 out of 5 stars"
		}
		return fmt.Sprintf("%d out of 5 stars", n)
	},
	"starGlyphs": func(n int) string { return strings.Repeat("★", n) },
	"plural": func(n int, one, many string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, one)
		}
		return fmt.Sprintf("%d %s", n, many)
	},
	"longDate": func(t time.Time) string { return t.Format("Mon 2 Jan 2006") },
	"seq": func(a, b int) []int {
		var s []int
		for i := a; i <= b; i++ {
			s = append(s, i)
		}
		return s
	},
})

type staysApp struct{}

func init() { RegisterApp(staysApp{}) }

// Name implements App.
func (staysApp) Name() string { return "stays" }

// Mutations implements App: consent, ref_churn, hung_fetch, busy_script, late_hydration and nameless_switch.
func (staysApp) Mutations() []string {
	return []string{"busy_script", "consent", "hung_fetch", "late_hydration", "nameless_switch", "ref_churn"}
}

// New implements App.
func (staysApp) New(env *AppEnv) (Instance, error) {
	s := &staysInstance{env: env, Searches: []StaysSearch{}, Bookings: []StaysBooking{}}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /{$}", s.home)
	s.mux.HandleFunc("GET /search", s.search)
	s.mux.HandleFunc("GET /hotel/{slug}", s.hotel)
	s.mux.HandleFunc("POST /book", s.book)
	s.mux.HandleFunc("GET /booking/{conf}", s.confirmation)
	s.mux.HandleFunc("GET /api/price-check/{slug}", s.priceCheck)
	s.mux.HandleFunc("GET /api/busy-tick", serveBusyTick)
	// The ref_churn mechanism is the shop's script, served from the shop's assets (one copy).
	s.mux.HandleFunc("GET /static/churn.js", func(w http.ResponseWriter, r *http.Request) {
		ServeStatic(w, r, shopFS, "assets/shop/static", "shop.js")
	})
	s.mux.HandleFunc("GET /static/switch.js", serveSwitchJS)
	s.mux.HandleFunc("GET /static/{file...}", func(w http.ResponseWriter, r *http.Request) {
		ServeStatic(w, r, staysFS, "assets/stays/static", r.PathValue("file"))
	})
	s.mux.HandleFunc("/", s.notFound)
	return s, nil
}

// StaysSearch is one search in the stays state: the destination as typed (trimmed), the dates as given
// (YYYY-MM-DD, may be empty), and the guests. Consecutive identical searches (filtering, sorting) are
// recorded once.
type StaysSearch struct {
	Destination string `json:"destination"`
	Checkin     string `json:"checkin"`
	Checkout    string `json:"checkout"`
	Adults      int    `json:"adults"`
	Children    int    `json:"children"`
}

// StaysBooking is a reservation. Hotel is the property slug, Room the room type's display name (RoomCode its
// code); Total and Taxes are whole euros (Total excludes Taxes); Confirmation is "NNNN.NNN.NNN".
type StaysBooking struct {
	Confirmation string `json:"confirmation"`
	Hotel        string `json:"hotel"`
	HotelName    string `json:"hotel_name"`
	Destination  string `json:"destination"`
	Room         string `json:"room"`
	RoomCode     string `json:"room_code"`
	Checkin      string `json:"checkin"`
	Checkout     string `json:"checkout"`
	Nights       int    `json:"nights"`
	Adults       int    `json:"adults"`
	Children     int    `json:"children"`
	Name         string `json:"name"`
	Email        string `json:"email"`
	Business     bool   `json:"business"` // the "I'm travelling for work" switch
	Total        int    `json:"total"`
	Taxes        int    `json:"taxes"`
}

type staysInstance struct {
	env *AppEnv
	mux *http.ServeMux

	mu       sync.Mutex
	Searches []StaysSearch
	Bookings []StaysBooking
}

func (s *staysInstance) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// State implements Instance: {"searches": [StaysSearch], "bookings": [StaysBooking]}.
func (s *staysInstance) State() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"searches": s.Searches, "bookings": s.Bookings})
	return b
}

// confirmationNumber is deterministic per tenant: ten digits from the tenant's creation order and the
// booking's index, shown as "NNNN.NNN.NNN".
func (s *staysInstance) confirmationNumber(k int) string {
	n := 1000000000 + (int64(s.env.Seq)*982451653+int64(k)*7919)%9000000000
	d := strconv.FormatInt(n, 10)
	return d[:4] + "." + d[4:7] + "." + d[7:]
}

// staysQuery is a parsed search: destination, dates, guests, filters and order.
type staysQuery struct {
	SS                string
	Dest              *staysDestination
	Checkin, Checkout string
	In, Out           time.Time
	Nights            int    // > 0 when the dates are valid
	DateError         string // why the dates are not usable ("" when valid or both empty)
	Adults, Children  int
	Filters           []string // nflt values, "fc=1", "class=4", …
	Order             string
}

func parseStaysQuery(v url.Values) staysQuery {
	q := staysQuery{SS: strings.TrimSpace(v.Get("ss")), Checkin: strings.TrimSpace(v.Get("checkin")),
		Checkout: strings.TrimSpace(v.Get("checkout")), Adults: 2, Order: v.Get("order")}
	q.Dest = staysDestinationFor(q.SS)
	if n, err := strconv.Atoi(v.Get("group_adults")); err == nil && n >= 1 && n <= 8 {
		q.Adults = n
	}
	if n, err := strconv.Atoi(v.Get("group_children")); err == nil && n >= 0 && n <= 4 {
		q.Children = n
	}
	for _, f := range v["nflt"] {
		if f = strings.TrimSpace(f); f != "" && !slices.Contains(q.Filters, f) {
			q.Filters = append(q.Filters, f)
		}
	}
	switch {
	case q.Checkin == "" && q.Checkout == "":
	case q.Checkin == "" || q.Checkout == "":
		q.DateError = "Enter both a check-in and a check-out date."
	default:
		in, err1 := time.Parse(staysDateLayout, q.Checkin)
		out, err2 := time.Parse(staysDateLayout, q.Checkout)
		switch {
		case err1 != nil || err2 != nil:
			q.DateError = "Enter dates as YYYY-MM-DD, for example 2026-05-12."
		case !out.After(in):
			q.DateError = "Your check-out date must be after your check-in date."
		case out.Sub(in) > staysMaxNights*24*time.Hour:
			q.DateError = fmt.Sprintf("Reservations longer than %d nights are not possible.", staysMaxNights)
		default:
			q.In, q.Out, q.Nights = in, out, int(out.Sub(in).Hours()/24+0.5)
		}
	}
	return q
}

// StayParams is the query string that carries the stay (dates and guests) to another page (a template.URL,
// so templates keep its "&" and "=").
func (q staysQuery) StayParams() template.URL {
	v := url.Values{}
	if q.Checkin != "" {
		v.Set("checkin", q.Checkin)
	}
	if q.Checkout != "" {
		v.Set("checkout", q.Checkout)
	}
	v.Set("group_adults", strconv.Itoa(q.Adults))
	v.Set("group_children", strconv.Itoa(q.Children))
	return template.URL(v.Encode())
}

// SearchParams is the results page's query for this search without filters and order.
func (q staysQuery) SearchParams() template.URL {
	v, _ := url.ParseQuery(string(q.StayParams()))
	name := q.SS
	if q.Dest != nil {
		name = q.Dest.Name
	}
	v.Set("ss", name)
	return template.URL(v.Encode())
}

// HasFilter reports whether filter f is applied.
func (q staysQuery) HasFilter(f string) bool { return slices.Contains(q.Filters, f) }

// staysPage is the data every stays template gets.
type staysPage struct {
	Base     string
	Title    string
	Overlays template.HTML
	Churn    bool // ref_churn on
	Q        staysQuery
	Error    string
	Data     any
}

func (s *staysInstance) newPage(r *http.Request, title string, q staysQuery) *staysPage {
	p := &staysPage{Base: s.env.Base, Title: title, Overlays: s.env.Overlays.HTML(r), Q: q}
	if s.env.Mutations.Has("ref_churn") {
		p.Churn = true
	}
	return p
}

func (s *staysInstance) render(w http.ResponseWriter, name string, status int, p *staysPage) {
	RenderPage(w, staysTpl, name, status, p)
}

func (s *staysInstance) notFound(w http.ResponseWriter, r *http.Request) {
	s.render(w, "notfound.html", http.StatusNotFound, s.newPage(r, "Page not found", parseStaysQuery(nil)))
}

func (s *staysInstance) home(w http.ResponseWriter, r *http.Request) {
	q := parseStaysQuery(r.URL.Query())
	p := s.newPage(r, "Hotels, apartments and holiday homes", q)
	p.Data = staysDestinations
	s.render(w, "home.html", http.StatusOK, p)
}

// staysFacet is one filter checkbox: its nflt value, label and the number of properties it matches
// (ignoring other filters).
type staysFacet struct {
	Value, Label string
	Count        int
	ID           string
}

// staysFacetGroup is a titled group of facets; within a group filters are OR-ed, across groups AND-ed.
type staysFacetGroup struct {
	Title  string
	Facets []staysFacet
}

// staysCard is one property as the results page shows it.
type staysCard struct {
	H              *staysHotel
	Room           *staysRoom
	Total, Taxes   int // euros; 0 without dates
	Nights, Adults int
	Params         template.URL // the stay's query string for links
}

type staysResults struct {
	Total   int // properties in the destination
	Cards   []staysCard
	Groups  []staysFacetGroup
	Sorts   []struct{ Value, Label string }
	Nights  int
	Adults  int
	Unknown bool
}

var staysSorts = []struct{ Value, Label string }{
	{"popularity", "Our top picks"}, {"price", "Price (lowest first)"}, {"review_score", "Best reviewed first"},
	{"class", "Property rating (high to low)"}, {"distance", "Distance from city centre"},
}

// staysFilterKey splits "class=4" into ("class", "4").
func staysFilterKey(f string) (string, string) {
	k, v, _ := strings.Cut(f, "=")
	return k, v
}

// staysMatch reports whether h (quoted at perNight euros) matches one filter value ("class=4", "fac=pool", …).
func staysMatch(h *staysHotel, f string, perNight int) bool {
	k, v := staysFilterKey(f)
	n, _ := strconv.Atoi(v)
	switch k {
	case "price":
		lo, hi, _ := strings.Cut(v, "-")
		l, _ := strconv.Atoi(lo)
		hv, err := strconv.Atoi(hi)
		return perNight >= l && (err != nil || perNight < hv)
	case "fc":
		return h.FreeCancel
	case "mealplan":
		return h.Breakfast
	case "class":
		return h.Stars == n
	case "review_score":
		return h.Score >= n
	case "ht":
		return h.Kind == v
	case "fac":
		return h.Has(v)
	case "di":
		return staysSlug(h.Hood) == v
	case "distance":
		return h.DistanceM < n
	}
	return true
}

// staysFilter keeps the hotels matching every group of filters (OR within a key, AND across keys).
func staysFilter(hs []*staysHotel, filters []string, perNight func(*staysHotel) int) []*staysHotel {
	byKey := map[string][]string{}
	for _, f := range filters {
		k, _ := staysFilterKey(f)
		byKey[k] = append(byKey[k], f)
	}
	var out []*staysHotel
	for _, h := range hs {
		ok := true
		for _, fs := range byKey {
			any := false
			for _, f := range fs {
				any = any || staysMatch(h, f, perNight(h))
			}
			ok = ok && any
		}
		if ok {
			out = append(out, h)
		}
	}
	return out
}

func staysFacetGroups(hs []*staysHotel, d *staysDestination, perNight func(*staysHotel) int, priced bool) []staysFacetGroup {
	count := func(f string) int {
		n := 0
		for _, h := range hs {
			if staysMatch(h, f, perNight(h)) {
				n++
			}
		}
		return n
	}
	mk := func(title string, pairs ...string) staysFacetGroup {
		g := staysFacetGroup{Title: title}
		for i := 0; i+1 < len(pairs); i += 2 {
			g.Facets = append(g.Facets, staysFacet{Value: pairs[i], Label: pairs[i+1], Count: count(pairs[i]),
				ID: "f-" + staysSlug(pairs[i])})
		}
		return g
	}
	var groups []staysFacetGroup
	if priced {
		groups = append(groups, mk("Your budget (per night)", "price=0-100", "€ 0 – € 100", "price=100-200",
			"€ 100 – € 200", "price=200-300", "€ 200 – € 300", "price=300-", "€ 300 +"))
	}
	groups = append(groups, mk("Reservation policy", "fc=1", "Free cancellation"),
		mk("Meals", "mealplan=1", "Breakfast included"),
		mk("Property rating", "class=1", "1 star", "class=2", "2 stars", "class=3", "3 stars", "class=4", "4 stars",
			"class=5", "5 stars", "class=0", "Unrated"),
		mk("Review score", "review_score=90", "Wonderful: 9+", "review_score=80", "Very good: 8+",
			"review_score=70", "Good: 7+", "review_score=60", "Pleasant: 6+"))
	var kinds []string
	for _, k := range staysKinds {
		kinds = append(kinds, "ht="+k.Code, k.Label)
	}
	groups = append(groups, mk("Property type", kinds...))
	var facs []string
	for _, f := range staysFacilities {
		facs = append(facs, "fac="+f.Code, f.Label)
	}
	groups = append(groups, mk("Facilities", facs...))
	var hoods []string
	for _, h := range d.Hoods {
		hoods = append(hoods, "di="+staysSlug(h), h)
	}
	groups = append(groups, mk("Neighbourhood", hoods...),
		mk("Distance from centre of "+d.Name, "distance=1000", "Less than 1 km", "distance=3000", "Less than 3 km",
			"distance=5000", "Less than 5 km"))
	return groups
}

// recordSearch appends a search to the state unless it equals the last one.
func (s *staysInstance) recordSearch(q staysQuery) {
	x := StaysSearch{Destination: q.SS, Checkin: q.Checkin, Checkout: q.Checkout, Adults: q.Adults,
		Children: q.Children}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.Searches); n > 0 && s.Searches[n-1] == x {
		return
	}
	s.Searches = append(s.Searches, x)
}

func (s *staysInstance) search(w http.ResponseWriter, r *http.Request) {
	q := parseStaysQuery(r.URL.Query())
	if q.SS == "" {
		p := s.newPage(r, "Hotels, apartments and holiday homes", q)
		p.Error = "Enter a destination to start searching."
		p.Data = staysDestinations
		s.render(w, "home.html", http.StatusOK, p)
		return
	}
	s.recordSearch(q)
	res := &staysResults{Sorts: staysSorts, Nights: q.Nights, Adults: q.Adults}
	title := q.SS + ": no properties found"
	if q.Dest != nil {
		all := staysHotels[q.Dest.Slug]
		res.Total = len(all)
		perNight := func(h *staysHotel) int {
			if q.Nights == 0 {
				return 0
			}
			return h.Total(h.RoomFor(q.Adults), q.Nights, q.Adults) / q.Nights
		}
		res.Groups = staysFacetGroups(all, q.Dest, perNight, q.Nights > 0)
		hs := staysFilter(all, q.Filters, perNight)
		hs = append([]*staysHotel(nil), hs...)
		var less func(a, b *staysHotel) bool
		switch q.Order {
		case "price":
			less = func(a, b *staysHotel) bool { return perNight(a) < perNight(b) }
		case "review_score":
			less = func(a, b *staysHotel) bool { return a.Score > b.Score }
		case "class":
			less = func(a, b *staysHotel) bool { return a.Stars > b.Stars }
		case "distance":
			less = func(a, b *staysHotel) bool { return a.DistanceM < b.DistanceM }
		default:
			q.Order = "popularity"
		}
		if less != nil {
			sort.SliceStable(hs, func(i, j int) bool { return less(hs[i], hs[j]) })
		}
		params := q.StayParams()
		for _, h := range hs {
			c := staysCard{H: h, Room: h.RoomFor(q.Adults), Params: params, Nights: q.Nights, Adults: q.Adults}
			if q.Nights > 0 {
				c.Total = h.Total(c.Room, q.Nights, q.Adults)
				c.Taxes = h.Taxes(q.Nights, q.Adults)
			}
			res.Cards = append(res.Cards, c)
		}
		title = fmt.Sprintf("%s: %s found", q.Dest.Name, staysPlural(len(hs), "property", "properties"))
	} else {
		res.Unknown = true
	}
	p := s.newPage(r, title, q)
	p.Error = q.DateError
	p.Data = res
	if s.env.Mutations.Has("late_hydration") {
		renderHydrated(w, staysTpl, "search.html", http.StatusOK, p, "static/favicon.svg", "Staybook")
		return
	}
	s.render(w, "search.html", http.StatusOK, p)
}

func staysPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return commaInt(n) + " " + many
}

// staysRoomRow is one row of a property page's availability table.
type staysRoomRow struct {
	R     *staysRoom
	Total int
	Taxes int
}

// staysHotelView is the property page's data.
type staysHotelView struct {
	H        *staysHotel
	Rows     []staysRoomRow
	Address  string
	Busy     int  // busy_script block in ms; 0 = off
	Nameless bool // nameless_switch: the work-trip switch has no accessible name
	PriceAPI string
	Form     StaysBooking // values to show again after a failed booking
}

// staysAddress is a deterministic street address for h: "Rua da Prata 57, Baixa, Lisbon, Portugal".
func staysAddress(h *staysHotel) string {
	st := h.Dest.Streets[staysHash(h.Dest.Slug, h.Name, "street")%uint32(len(h.Dest.Streets))]
	return fmt.Sprintf("%s %d, %s, %s, %s", st, 1+staysHash(h.Dest.Slug, h.Name, "no")%180, h.Hood, h.Dest.Name,
		h.Dest.Country)
}

func (s *staysInstance) hotelView(h *staysHotel, q staysQuery) *staysHotelView {
	v := &staysHotelView{H: h, Address: staysAddress(h)}
	if q.Nights > 0 {
		for i := range h.Rooms {
			v.Rows = append(v.Rows, staysRoomRow{R: &h.Rooms[i], Total: h.Total(&h.Rooms[i], q.Nights, q.Adults),
				Taxes: h.Taxes(q.Nights, q.Adults)})
		}
		v.PriceAPI = "api/price-check/" + h.Slug + "?" + string(q.StayParams())
	}
	if s.env.Mutations.Has("busy_script") {
		v.Busy = staysBusyMS
	}
	v.Nameless = s.env.Mutations.Has("nameless_switch")
	return v
}

func (s *staysInstance) hotel(w http.ResponseWriter, r *http.Request) {
	h := staysHotelBySlug[r.PathValue("slug")]
	if h == nil {
		s.notFound(w, r)
		return
	}
	q := parseStaysQuery(r.URL.Query())
	p := s.newPage(r, h.Name, q)
	p.Error = q.DateError
	p.Data = s.hotelView(h, q)
	s.render(w, "hotel.html", http.StatusOK, p)
}

func (s *staysInstance) book(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	h := staysHotelBySlug[r.PostForm.Get("hotel")]
	if h == nil {
		http.Error(w, "unknown property", http.StatusBadRequest)
		return
	}
	q := parseStaysQuery(r.PostForm)
	f := StaysBooking{Name: strings.TrimSpace(r.PostForm.Get("name")),
		Email: strings.TrimSpace(r.PostForm.Get("email")), RoomCode: r.PostForm.Get("room"),
		Business: r.PostForm.Get("business") == "true"}
	fail := func(msg string) {
		p := s.newPage(r, h.Name, q)
		p.Error = msg
		v := s.hotelView(h, q)
		v.Form = f
		p.Data = v
		s.render(w, "hotel.html", http.StatusUnprocessableEntity, p)
	}
	room := h.Room(f.RoomCode)
	at := strings.Index(f.Email, "@")
	switch {
	case q.Nights == 0:
		fail("Choose your check-in and check-out dates to reserve.")
		return
	case room == nil:
		fail("Choose a room type to reserve.")
		return
	case f.Name == "":
		fail("Enter your full name.")
		return
	case at <= 0 || at >= len(f.Email)-1 || strings.ContainsAny(f.Email, " ,;"):
		fail("Enter a valid email address.")
		return
	}
	s.mu.Lock()
	b := StaysBooking{Confirmation: s.confirmationNumber(len(s.Bookings)), Hotel: h.Slug, HotelName: h.Name,
		Destination: h.Dest.Name, Room: room.Name, RoomCode: room.Code, Checkin: q.Checkin, Checkout: q.Checkout,
		Nights: q.Nights, Adults: q.Adults, Children: q.Children, Name: f.Name, Email: f.Email, Business: f.Business,
		Total: h.Total(room, q.Nights, q.Adults), Taxes: h.Taxes(q.Nights, q.Adults)}
	s.Bookings = append(s.Bookings, b)
	s.mu.Unlock()
	s.env.Redirect(w, r, "booking/"+b.Confirmation)
}

func (s *staysInstance) confirmation(w http.ResponseWriter, r *http.Request) {
	conf := r.PathValue("conf")
	s.mu.Lock()
	var b *StaysBooking
	for i := range s.Bookings {
		if s.Bookings[i].Confirmation == conf {
			c := s.Bookings[i]
			b = &c
		}
	}
	s.mu.Unlock()
	if b == nil {
		s.notFound(w, r)
		return
	}
	q := parseStaysQuery(url.Values{"checkin": {b.Checkin}, "checkout": {b.Checkout}})
	p := s.newPage(r, "Booking confirmed", parseStaysQuery(nil))
	p.Data = struct {
		B       *StaysBooking
		H       *staysHotel
		In, Out time.Time
	}{b, staysHotelBySlug[b.Hotel], q.In, q.Out}
	s.render(w, "confirmation.html", http.StatusOK, p)
}

// staysPriceCheck is the body of api/price-check/{slug}.
type staysPriceCheck struct {
	Hotel    string                `json:"hotel"`
	Checkin  string                `json:"checkin"`
	Checkout string                `json:"checkout"`
	Nights   int                   `json:"nights"`
	Adults   int                   `json:"adults"`
	Currency string                `json:"currency"`
	Rooms    []staysPriceCheckRoom `json:"rooms"`
}

type staysPriceCheckRoom struct {
	Room      string `json:"room"`
	Code      string `json:"code"`
	Total     int    `json:"total"`
	Taxes     int    `json:"taxes"`
	Available bool   `json:"available"`
}

// priceCheck serves api/price-check/{slug}. Under hung_fetch it never answers: it blocks until the request's
// context is done (client gone), then returns without writing.
func (s *staysInstance) priceCheck(w http.ResponseWriter, r *http.Request) {
	if s.env.Mutations.Has("hung_fetch") {
		<-r.Context().Done()
		return
	}
	h := staysHotelBySlug[r.PathValue("slug")]
	if h == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such property"})
		return
	}
	q := parseStaysQuery(r.URL.Query())
	if q.Nights == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "checkin and checkout are required"})
		return
	}
	out := staysPriceCheck{Hotel: h.Slug, Checkin: q.Checkin, Checkout: q.Checkout, Nights: q.Nights,
		Adults: q.Adults, Currency: "EUR", Rooms: []staysPriceCheckRoom{}}
	for i := range h.Rooms {
		out.Rooms = append(out.Rooms, staysPriceCheckRoom{Room: h.Rooms[i].Name, Code: h.Rooms[i].Code,
			Total: h.Total(&h.Rooms[i], q.Nights, q.Adults), Taxes: h.Taxes(q.Nights, q.Adults), Available: true})
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, out)
}
