package zoo

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// The `stays` app's fixed data. Every property is derived deterministically from its destination, a name stem
// and a name pattern through FNV-1a hashes (no randomness, no clock): the same build always shows the same
// 160 Lisbon, 132 Porto and 144 Seville properties with the same prices.

// staysDestination is a searchable destination.
type staysDestination struct {
	Slug, Name, Country string
	// Count is the number of properties (≤ len(Stems) × len(Patterns)).
	Count int
	// Stems are the name stems; Patterns are fmt patterns with one %s, each with a property type.
	Stems    []string
	Patterns []staysPattern
	// Hoods are the neighbourhoods (facet "Neighbourhood").
	Hoods []string
	// CityTax is the tourist tax in euros per adult per night, charged for at most 7 nights.
	CityTax int
	// Centre names the point distances are measured from.
	Centre string
	// Streets are the street names of generated addresses.
	Streets []string
}

// staysPattern is a name pattern and the property type it implies.
type staysPattern struct {
	Format string
	Kind   string // staysKind* constant
}

// Property kinds (facet "Property type").
const (
	staysKindHotel      = "hotel"
	staysKindApartment  = "apartment"
	staysKindGuestHouse = "guest_house"
	staysKindHostel     = "hostel"
	staysKindVilla      = "villa"
)

// staysKinds are the property types in facet order (code, label).
var staysKinds = []struct{ Code, Label string }{
	{staysKindHotel, "Hotels"}, {staysKindApartment, "Apartments"}, {staysKindGuestHouse, "Guest houses"},
	{staysKindHostel, "Hostels"}, {staysKindVilla, "Villas"},
}

// staysFacilities are the facilities (facet "Facilities"): code, label, and the share of properties (per
// cent) that have it.
var staysFacilities = []struct {
	Code, Label string
	Pct         uint32
}{
	{"wifi", "Free WiFi", 92}, {"parking", "Parking", 38}, {"pool", "Swimming pool", 18},
	{"fitness", "Fitness centre", 27}, {"shuttle", "Airport shuttle", 15}, {"spa", "Spa and wellness centre", 12},
	{"restaurant", "Restaurant", 41}, {"pets", "Pets allowed", 24}, {"ac", "Air conditioning", 71},
	{"frontdesk", "24-hour front desk", 55},
}

var staysDestinations = []staysDestination{
	{Slug: "lisbon", Name: "Lisbon", Country: "Portugal", Count: 160, CityTax: 2, Centre: "Praça do Comércio",
		Streets: []string{"Rua Augusta", "Rua da Prata", "Rua do Alecrim", "Rua das Janelas Verdes", "Calçada do Combro",
			"Rua de São Paulo", "Rua dos Remédios", "Avenida da Liberdade"},
		Stems: []string{"Alfama", "Baixa", "Chiado", "Belém", "Tejo", "Rossio", "Graça", "Estrela", "Lapa",
			"Miradouro", "Bairro Alto", "Cais", "Castelo", "Avenida", "Oriente", "Marquês", "Saudade", "Fado",
			"Azulejo", "Alecrim", "Lusitano", "Pombalino", "Terreiro", "Santos", "Madragoa", "Janelas Verdes",
			"Sete Colinas", "Elétrico", "Atlântico", "Torre"},
		Patterns: []staysPattern{{"Hotel %s", staysKindHotel}, {"%s Suites", staysKindHotel},
			{"Casa %s", staysKindGuestHouse}, {"%s Boutique Hotel", staysKindHotel},
			{"%s Apartments", staysKindApartment}, {"%s Hostel", staysKindHostel},
			{"Palácio %s", staysKindHotel}, {"Villa %s", staysKindVilla}},
		Hoods: []string{"Alfama", "Baixa", "Chiado", "Belém", "Bairro Alto", "Graça", "Príncipe Real",
			"Cais do Sodré", "Avenida da Liberdade", "Parque das Nações"}},
	{Slug: "porto", Name: "Porto", Country: "Portugal", Count: 132, CityTax: 2, Centre: "Avenida dos Aliados",
		Streets: []string{"Rua de Santa Catarina", "Rua das Flores", "Rua de Cedofeita", "Rua do Almada",
			"Cais da Ribeira", "Rua de Miguel Bombarda", "Avenida da Boavista", "Rua de Sá da Bandeira"},
		Stems: []string{"Ribeira", "Douro", "Foz", "Boavista", "Aliados", "Bolhão", "Clérigos", "Miragaia",
			"Cedofeita", "Batalha", "Bonfim", "Massarelos", "Sé", "Vitória", "Infante", "Porto Antigo", "Rio Azul",
			"Granito", "Tripeiro", "Luz", "Serralves", "Matosinhos", "Leixões", "Invicta", "Ponte Luís",
			"Vinho Fino", "Cordoaria", "Trindade", "São Bento", "Lello"},
		Patterns: []staysPattern{{"Hotel %s", staysKindHotel}, {"%s Suites", staysKindHotel},
			{"Casa %s", staysKindGuestHouse}, {"%s Boutique Hotel", staysKindHotel},
			{"%s Apartments", staysKindApartment}, {"%s Hostel", staysKindHostel},
			{"Palácio %s", staysKindHotel}, {"Quinta %s", staysKindVilla}},
		Hoods: []string{"Ribeira", "Baixa", "Cedofeita", "Boavista", "Foz do Douro", "Miragaia", "Bonfim",
			"Massarelos", "Vila Nova de Gaia", "Campanhã"}},
	{Slug: "seville", Name: "Seville", Country: "Spain", Count: 144, CityTax: 0, Centre: "Plaza Nueva",
		Streets: []string{"Calle Sierpes", "Calle Betis", "Calle Feria", "Calle Mateos Gago", "Calle San Jacinto",
			"Avenida de la Constitución", "Calle Cuna", "Calle Placentines"},
		Stems: []string{"Giralda", "Triana", "Alcázar", "Guadalquivir", "Macarena", "Santa Cruz", "Alameda",
			"Arenal", "Maestranza", "Torre del Oro", "Azahar", "Patio Andaluz", "Alfalfa", "Feria", "Betis",
			"Nervión", "Encarnación", "Sierpes", "Murillo", "Albahaca", "Naranjo", "Jazmín", "Sol de Sevilla",
			"Andalucía", "Bécquer", "Corral", "Aljarafe", "San Lorenzo", "Puerta Real", "Mudéjar"},
		Patterns: []staysPattern{{"Hotel %s", staysKindHotel}, {"%s Suites", staysKindHotel},
			{"Casa %s", staysKindGuestHouse}, {"%s Boutique Hotel", staysKindHotel},
			{"Apartamentos %s", staysKindApartment}, {"Hostal %s", staysKindHostel},
			{"Palacio %s", staysKindHotel}, {"Villa %s", staysKindVilla}},
		Hoods: []string{"Santa Cruz", "Triana", "Arenal", "Alameda", "Macarena", "Nervión", "Los Remedios",
			"Museo", "San Bernardo", "Feria"}},
}

// staysRoom is a bookable room type of a property: its price is the property's base nightly rate × Mult/100.
type staysRoom struct {
	Code, Name, Beds string
	Mult, Sleeps     int
}

// staysRoomsByKind are the room types of each property kind.
var staysRoomsByKind = map[string][]staysRoom{
	staysKindHotel: {{"standard", "Standard Double Room", "1 double bed", 100, 2},
		{"deluxe", "Deluxe Double Room", "1 large double bed", 125, 2},
		{"suite", "Junior Suite", "1 extra-large double bed and 1 sofa bed", 160, 3}},
	staysKindGuestHouse: {{"double", "Double Room", "1 double bed", 100, 2},
		{"superior", "Superior Double Room", "1 large double bed", 120, 2},
		{"triple", "Triple Room", "3 single beds", 140, 3}},
	staysKindApartment: {{"studio", "Studio", "1 double bed", 100, 2},
		{"one-bedroom", "One-Bedroom Apartment", "1 double bed and 1 sofa bed", 130, 3},
		{"two-bedroom", "Two-Bedroom Apartment", "2 double beds and 1 sofa bed", 175, 5}},
	staysKindHostel: {{"private-double", "Private Double Room", "1 double bed", 100, 2},
		{"private-twin", "Private Twin Room", "2 single beds", 105, 2},
		{"family", "Family Room", "1 double bed and 2 bunk beds", 150, 4}},
	staysKindVilla: {{"three-bedroom", "Three-Bedroom Villa", "3 double beds", 100, 6},
		{"four-bedroom", "Four-Bedroom Villa", "4 double beds", 135, 8}},
}

// staysHotel is one property.
type staysHotel struct {
	Slug, Name string
	Dest       *staysDestination
	Kind       string
	Stars      int // 0 = unrated
	Score      int // review score in tenths (87 = 8.7)
	Reviews    int
	Hood       string
	DistanceM  int
	Base       int // euros per night, first room type, 2 adults
	FreeCancel bool
	Breakfast  bool
	Facilities []string // codes of staysFacilities
	Rooms      []staysRoom
	Rank       int // position in "Our top picks" (0-based, generation order)
}

// staysHash is FNV-1a (32-bit) of the parts joined by "/".
func staysHash(parts ...string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(strings.Join(parts, "/")))
	return h.Sum32()
}

// staysStarOptions are the possible star ratings per kind (one is picked by hash); 0 = unrated.
var staysStarOptions = map[string][]int{
	staysKindHotel: {3, 4, 4, 5}, staysKindGuestHouse: {0, 2, 3}, staysKindApartment: {0, 0, 3, 4},
	staysKindHostel: {1, 2}, staysKindVilla: {0, 4},
}

// staysBaseByKind is the base of the nightly rate per kind, in euros, before stars and the hash spread.
var staysBaseByKind = map[string]int{staysKindHotel: 70, staysKindGuestHouse: 55, staysKindApartment: 65,
	staysKindHostel: 35, staysKindVilla: 210}

var staysHotels, staysHotelBySlug = buildStaysHotels()

func buildStaysHotels() (map[string][]*staysHotel, map[string]*staysHotel) {
	byDest := map[string][]*staysHotel{}
	bySlug := map[string]*staysHotel{}
	for di := range staysDestinations {
		d := &staysDestinations[di]
		ns, np := len(d.Stems), len(d.Patterns)
		if d.Count > ns*(np-1) {
			panic("zoo/stays: too many properties for " + d.Name)
		}
		for k := 0; k < d.Count; k++ {
			si := k % ns
			pat := d.Patterns[(k/ns+3*si)%np]
			name := fmt.Sprintf(pat.Format, d.Stems[si])
			h := func(salt string) uint32 { return staysHash(d.Slug, name, salt) }
			stars := staysStarOptions[pat.Kind][h("stars")%uint32(len(staysStarOptions[pat.Kind]))]
			x := &staysHotel{Slug: staysSlug(name), Name: name, Dest: d, Kind: pat.Kind, Stars: stars,
				Score: 60 + int(h("score")%39), Reviews: 12 + int(h("reviews")%4800),
				Hood: d.Hoods[h("hood")%uint32(len(d.Hoods))], DistanceM: 150 + int(h("distance")%90)*100,
				Base:       staysBaseByKind[pat.Kind] + 18*stars + int(h("price")%70),
				FreeCancel: h("cancel")%3 != 0, Breakfast: h("breakfast")%4 == 0,
				Rooms: staysRoomsByKind[pat.Kind], Rank: k}
			for _, f := range staysFacilities {
				if h("fac:"+f.Code)%100 < f.Pct {
					x.Facilities = append(x.Facilities, f.Code)
				}
			}
			if _, dup := bySlug[x.Slug]; dup {
				panic("zoo/stays: duplicate property slug " + x.Slug)
			}
			bySlug[x.Slug] = x
			byDest[d.Slug] = append(byDest[d.Slug], x)
		}
	}
	return byDest, bySlug
}

// staysSlugFold folds the accents the catalog uses (built once: family instances' slugs call staysSlug often).
var staysSlugFold = strings.NewReplacer("á", "a", "à", "a", "ã", "a", "â", "a", "ç", "c", "é", "e", "ê", "e", "í", "i",
	"ó", "o", "ô", "o", "õ", "o", "ú", "u", "ñ", "n", "'", "")

// staysSlug lowercases s, folds the accents the catalog uses and joins words with "-".
func staysSlug(s string) string {
	s = staysSlugFold.Replace(strings.ToLower(s))
	var b strings.Builder
	dash := false
	for _, c := range s {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// staysDestinationFor finds a destination by name, slug or "Name, Country" (case-insensitive).
func staysDestinationFor(q string) *staysDestination {
	q = strings.ToLower(strings.TrimSpace(q))
	if i := strings.IndexByte(q, ','); i >= 0 {
		q = strings.TrimSpace(q[:i])
	}
	for i := range staysDestinations {
		d := &staysDestinations[i]
		if q == strings.ToLower(d.Name) || q == d.Slug || staysSlug(q) == d.Slug {
			return d
		}
	}
	return nil
}

// ScoreText is the review score with one decimal ("8.7").
func (h *staysHotel) ScoreText() string { return fmt.Sprintf("%d.%d", h.Score/10, h.Score%10) }

// ScoreWord is Booking's word for the score.
func (h *staysHotel) ScoreWord() string {
	switch {
	case h.Score >= 95:
		return "Exceptional"
	case h.Score >= 90:
		return "Wonderful"
	case h.Score >= 86:
		return "Fabulous"
	case h.Score >= 80:
		return "Very good"
	case h.Score >= 70:
		return "Good"
	}
	return "Pleasant"
}

// DistanceText is the distance from the centre: "350 m" or "2.4 km".
func (h *staysHotel) DistanceText() string {
	if h.DistanceM < 1000 {
		return fmt.Sprintf("%d m", h.DistanceM)
	}
	return fmt.Sprintf("%d.%d km", h.DistanceM/1000, h.DistanceM%1000/100)
}

// KindLabel is the property type in the singular ("Hotel", "Guest house").
func (h *staysHotel) KindLabel() string {
	switch h.Kind {
	case staysKindApartment:
		return "Apartment"
	case staysKindGuestHouse:
		return "Guest house"
	case staysKindHostel:
		return "Hostel"
	case staysKindVilla:
		return "Villa"
	}
	return "Hotel"
}

// Has reports whether the property has facility code.
func (h *staysHotel) Has(code string) bool {
	for _, f := range h.Facilities {
		if f == code {
			return true
		}
	}
	return false
}

// FacilityLabels are the display names of the property's facilities.
func (h *staysHotel) FacilityLabels() []string {
	var out []string
	for _, f := range staysFacilities {
		if h.Has(f.Code) {
			out = append(out, f.Label)
		}
	}
	return out
}

// Room returns the room type with code, or nil.
func (h *staysHotel) Room(code string) *staysRoom {
	for i := range h.Rooms {
		if h.Rooms[i].Code == code {
			return &h.Rooms[i]
		}
	}
	return nil
}

// RoomFor is the room the results page quotes for adults guests: the first that sleeps them, else the
// largest.
func (h *staysHotel) RoomFor(adults int) *staysRoom {
	for i := range h.Rooms {
		if h.Rooms[i].Sleeps >= adults {
			return &h.Rooms[i]
		}
	}
	return &h.Rooms[len(h.Rooms)-1]
}

// Total is the price in whole euros of room for nights nights and adults adults: base × Mult/100 × nights,
// plus 15% per adult beyond two, rounded half up. Taxes are separate (Taxes).
func (h *staysHotel) Total(room *staysRoom, nights, adults int) int {
	extra := max(0, adults-2)
	x := h.Base * room.Mult * nights * (100 + 15*extra) // euros × 10⁴
	return (x + 5000) / 10000
}

// Taxes is the city tax in euros for the stay: CityTax × adults × min(nights, 7).
func (h *staysHotel) Taxes(nights, adults int) int {
	return h.Dest.CityTax * adults * min(nights, 7)
}

// Description is a short generated blurb.
func (h *staysHotel) Description() string {
	return fmt.Sprintf("%s is a %s in %s, %s, %s from %s. Guests can enjoy %s. The property is rated %s "+
		"(%s) by %d verified guests.", h.Name, strings.ToLower(h.KindLabel()), h.Hood, h.Dest.Name,
		h.DistanceText(), h.Dest.Centre, strings.ToLower(strings.Join(append([]string{"a shared lounge"},
			h.FacilityLabels()...), ", ")), h.ScoreText(), h.ScoreWord(), h.Reviews)
}
