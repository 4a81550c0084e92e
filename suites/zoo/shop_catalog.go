package zoo

import "strings"

// shopCategory is one of the shop's three categories.
type shopCategory struct {
	Slug, Name, Blurb string
}

// shopFact is one row of a product's "More information" table.
type shopFact struct{ Label, Value string }

// shopProduct is a catalog entry. Prices are in cents. Colors and Sizes are display names; the state records
// colours lowercased and sizes as shown.
type shopProduct struct {
	SKU, Slug, Name, Category string
	Price                     int
	Rating                    float64
	Reviews                   int
	Colors                    []string
	Sizes                     []string
	Summary                   string
	Description               string
	Facts                     []shopFact
	Featured                  bool
}

var shopCategories = []shopCategory{
	{"fitness", "Fitness Equipment", "Mats, blocks, balls and bands for home workouts and the studio."},
	{"apparel", "Apparel", "Tees, tanks, hoodies and jackets made to move."},
	{"gear", "Bags & Gear", "Backpacks, duffles, bottles and watches for every day."},
}

// shopProducts is the catalog: 12 products, 4 per category, in display order.
var shopProducts = []shopProduct{
	{SKU: "YM-01", Slug: "yoga-mat", Name: "Yoga Mat", Category: "fitness", Price: 2900, Rating: 4.6, Reviews: 212,
		Colors: []string{"Blue", "Purple", "Black"}, Featured: true,
		Summary: "A grippy natural-rubber mat that stays put in downward dog.",
		Description: "Our best-selling studio mat is cut from natural tree rubber with a laser-etched alignment guide. " +
			"The open-cell top layer absorbs sweat, and the closed-cell base keeps it from sliding on wooden floors.",
		Facts: []shopFact{{"SKU", "YM-01"}, {"Material", "Natural rubber"}, {"Thickness", "6 mm"},
			{"Dimensions", "183 × 61 cm"}, {"Weight", "1.1 kg"}, {"Care", "Wipe clean with a damp cloth"}}},
	{SKU: "YB-02", Slug: "cork-yoga-block", Name: "Cork Yoga Block", Category: "fitness", Price: 1450, Rating: 4.4,
		Reviews: 87,
		Summary: "A firm, sustainable block for support and alignment.",
		Description: "Made from harvested cork bark, this block is dense enough to support your weight and soft " +
			"enough to be comfortable. Rounded edges make it easy to hold.",
		Facts: []shopFact{{"SKU", "YB-02"}, {"Material", "Natural cork"}, {"Dimensions", "23 × 15 × 7.5 cm"},
			{"Weight", "0.4 kg"}}},
	{SKU: "SB-03", Slug: "sprite-stasis-ball", Name: "Sprite Stasis Ball", Category: "fitness", Price: 2700,
		Rating: 4.2, Reviews: 64, Colors: []string{"Blue", "Green", "Orange"}, Sizes: []string{"55 cm", "65 cm", "75 cm"},
		Summary: "An anti-burst exercise ball for core work and stretching.",
		Description: "The Sprite Stasis Ball is made of thick anti-burst PVC with a slightly textured surface. A hand " +
			"pump is included. Choose 55 cm if you are under 165 cm tall, 65 cm up to 185 cm, 75 cm above.",
		Facts: []shopFact{{"SKU", "SB-03"}, {"Material", "Anti-burst PVC"}, {"Maximum load", "300 kg"},
			{"Pump included", "Yes"}}},
	{SKU: "RB-04", Slug: "resistance-band-set", Name: "Resistance Band Set", Category: "fitness", Price: 2499,
		Rating: 4.5, Reviews: 143,
		Summary: "Five colour-coded loop bands from extra light to extra heavy.",
		Description: "Five latex loop bands with a carry pouch and an illustrated exercise guide. Stack bands to " +
			"combine resistance.",
		Facts: []shopFact{{"SKU", "RB-04"}, {"Bands", "5"}, {"Resistance range", "2–18 kg"},
			{"Material", "Natural latex"}, {"Length", "120 cm"}}},
	{SKU: "WS-05", Slug: "radiant-tee", Name: "Radiant Tee", Category: "apparel", Price: 2200, Rating: 4.3,
		Reviews: 58, Colors: []string{"Blue", "Orange", "Purple"}, Sizes: []string{"XS", "S", "M", "L", "XL"},
		Featured: true,
		Summary:  "A soft organic-cotton tee for training and everything after.",
		Description: "So light it feels like a second skin. The Radiant Tee has flatlock seams to prevent chafing " +
			"and a relaxed crew neck.",
		Facts: []shopFact{{"SKU", "WS-05"}, {"Material", "100% organic cotton"}, {"Fit", "Regular"},
			{"Care", "Machine wash cold"}}},
	{SKU: "WT-06", Slug: "breathe-easy-tank", Name: "Breathe-Easy Tank", Category: "apparel", Price: 3400,
		Rating: 4.1, Reviews: 41, Colors: []string{"White", "Pink", "Yellow"}, Sizes: []string{"XS", "S", "M", "L"},
		Summary: "A breezy racerback tank with mesh panels.",
		Description: "Moisture-wicking fabric and mesh back panels keep you cool on hot runs. Reflective logo for " +
			"low light.",
		Facts: []shopFact{{"SKU", "WT-06"}, {"Material", "87% polyester, 13% elastane"}, {"Fit", "Slim"},
			{"Care", "Machine wash cold, hang dry"}}},
	{SKU: "MH-07", Slug: "hero-hoodie", Name: "Hero Hoodie", Category: "apparel", Price: 5400, Rating: 4.7,
		Reviews: 176, Colors: []string{"Black", "Gray", "Green"}, Sizes: []string{"S", "M", "L", "XL"}, Featured: true,
		Summary: "A heavyweight fleece hoodie with a kangaroo pocket.",
		Description: "Brushed-back fleece, a lined hood with flat drawcords and ribbed cuffs. Warm enough for " +
			"early-morning warm-ups.",
		Facts: []shopFact{{"SKU", "MH-07"}, {"Material", "80% cotton, 20% polyester fleece"}, {"Fit", "Relaxed"},
			{"Pockets", "Kangaroo pocket"}}},
	{SKU: "WJ-08", Slug: "juno-jacket", Name: "Juno Jacket", Category: "apparel", Price: 7700, Rating: 4.5,
		Reviews: 93, Colors: []string{"Blue", "Green", "Purple"}, Sizes: []string{"XS", "S", "M", "L"},
		Summary: "A packable rain shell for runs and hikes.",
		Description: "The Juno Jacket packs into its own chest pocket. Taped seams and a durable water-repellent " +
			"finish keep showers out; underarm vents let heat escape.",
		Facts: []shopFact{{"SKU", "WJ-08"}, {"Shell", "Recycled nylon ripstop"}, {"Lining", "Polyester mesh"},
			{"Water resistance", "5,000 mm"}, {"Weight", "380 g"}}},
	{SKU: "BG-09", Slug: "driven-backpack", Name: "Driven Backpack", Category: "gear", Price: 3600, Rating: 4.4,
		Reviews: 120, Colors: []string{"Black", "Gray"},
		Summary: "A commuter backpack with a padded laptop sleeve.",
		Description: "Padded shoulder straps, a breathable back panel and a sleeve for laptops up to 15 inches. " +
			"The front organiser pocket keeps keys and cables in order.",
		Facts: []shopFact{{"SKU", "BG-09"}, {"Capacity", "22 litres"}, {"Laptop sleeve", "Up to 15 inch"},
			{"Material", "600D polyester"}, {"Weight", "0.8 kg"}}},
	{SKU: "BG-10", Slug: "overnight-duffle", Name: "Overnight Duffle", Category: "gear", Price: 4500, Rating: 4.6,
		Reviews: 77, Colors: []string{"Black", "Navy"}, Featured: true,
		Summary: "A waxed-canvas weekender with a shoe compartment.",
		Description: "Big enough for a weekend away, small enough for the overhead bin. The end compartment keeps " +
			"shoes away from clean clothes.",
		Facts: []shopFact{{"SKU", "BG-10"}, {"Capacity", "40 litres"}, {"Dimensions", "56 × 30 × 28 cm"},
			{"Material", "Waxed canvas"}, {"Strap", "Detachable shoulder strap"}}},
	{SKU: "WB-11", Slug: "affirm-water-bottle", Name: "Affirm Water Bottle", Category: "gear", Price: 700,
		Rating: 4.2, Reviews: 39, Colors: []string{"Blue", "Green", "Orange"},
		Summary:     "A leak-proof bottle with a flip-top straw.",
		Description: "Made from BPA-free Tritan, with a flip-top straw lid that locks closed in your bag.",
		Facts: []shopFact{{"SKU", "WB-11"}, {"Capacity", "750 ml"}, {"Material", "BPA-free Tritan"},
			{"Dishwasher safe", "Top rack"}}},
	{SKU: "WA-12", Slug: "aim-analog-watch", Name: "Aim Analog Watch", Category: "gear", Price: 4500, Rating: 4.0,
		Reviews: 28, Colors: []string{"Black", "Silver"},
		Summary:     "A minimalist watch with a leather strap.",
		Description: "A quartz movement in a brushed stainless-steel case with a sapphire-coated crystal.",
		Facts: []shopFact{{"SKU", "WA-12"}, {"Case diameter", "40 mm"}, {"Water resistance", "50 m"},
			{"Strap", "Leather"}, {"Warranty", "2 years"}}},
}

// shippingMethod is a checkout option; Label is the <option> text (and the select value agents pass).
type shippingMethod struct {
	Code, Label, Days string
	Cost              int
}

var shippingMethods = []shippingMethod{
	{"standard", "Standard", "5–7 business days", 500},
	{"express", "Express", "2–3 business days", 1200},
	{"next_day", "Next day", "next business day", 2500},
}

var shopCountries = []struct{ Code, Name string }{
	{"US", "United States"}, {"CA", "Canada"}, {"GB", "United Kingdom"}, {"DE", "Germany"}, {"FR", "France"},
}

func productBySlug(slug string) *shopProduct {
	for i := range shopProducts {
		if shopProducts[i].Slug == slug {
			return &shopProducts[i]
		}
	}
	return nil
}

func productBySKU(sku string) *shopProduct {
	for i := range shopProducts {
		if shopProducts[i].SKU == sku {
			return &shopProducts[i]
		}
	}
	return nil
}

func categoryBySlug(slug string) *shopCategory {
	for i := range shopCategories {
		if shopCategories[i].Slug == slug {
			return &shopCategories[i]
		}
	}
	return nil
}

func shippingByCode(code string) *shippingMethod {
	for i := range shippingMethods {
		if shippingMethods[i].Code == code {
			return &shippingMethods[i]
		}
	}
	return nil
}

func countryName(code string) string {
	for _, c := range shopCountries {
		if c.Code == code {
			return c.Name
		}
	}
	return ""
}

// searchProducts returns the products whose name, category name, summary or description contain every word of
// q (case-insensitive), in catalog order. An empty query matches nothing.
func searchProducts(q string) []*shopProduct {
	words := strings.Fields(strings.ToLower(q))
	if len(words) == 0 {
		return nil
	}
	var out []*shopProduct
	for i := range shopProducts {
		p := &shopProducts[i]
		cat := categoryBySlug(p.Category)
		hay := strings.ToLower(p.Name + " " + p.SKU + " " + cat.Name + " " + p.Summary + " " + p.Description)
		if matchesAllWords(hay, words) {
			out = append(out, p)
		}
	}
	return out
}
