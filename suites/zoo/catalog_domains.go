package zoo

import (
	"fmt"
	"strings"
)

// catalogDomains are the parameter domains families draw from (family_params.go), by "<app>.<name>": each
// returns its records in catalog order, built from the apps' own catalogs, so a template reads the same names,
// codes and prices the pages show. Every record has a "key". An app may add its own from an init in its own file
// (code_catalog.go does), so that apps added side by side do not edit the same lines.
var catalogDomains = map[string]func() []map[string]any{
	"shop.variants":     shopVariantDomain,
	"shop.facts":        shopFactDomain,
	"shop.shipping":     shopShippingDomain,
	"shop.customers":    shopCustomerDomain,
	"stays.rooms":       staysRoomDomain,
	"stays.hotels":      staysHotelDomain,
	"stays.dates":       staysDateDomain,
	"recipes.nutrients": recipeNutrientDomain,
	"recipes.notes":     recipeNoteDomain,
	"recipes.recipes":   recipeDomain,
	"chat.users":        chatUserDomain,
	"chat.channels":     chatChannelDomain,
	"planner.projects":  plannerProjectDomain,
	"planner.types":     func() []map[string]any { return plannerOptionDomain(plannerTypes) },
	"planner.envs":      func() []map[string]any { return plannerOptionDomain(plannerEnvs[1:]) },
	"planner.assignees": func() []map[string]any { return plannerOptionDomain(plannerAssignees[1:]) },
}

// shopCustomer is a guest of the checkout families: a name, an email and a shipping address in one of the
// countries the checkout offers (shopCountries). The shop takes any address; these are the ones tasks use.
type shopCustomer struct {
	First, Last, Email, Street, City, Postcode, Country string
}

var shopCustomers = []shopCustomer{
	{"Ana", "Lima", "ana@example.test", "12 Harbor Street", "Portland", "97201", "US"},
	{"Ben", "Okafor", "ben@example.test", "48 Elm Road", "Leeds", "LS1 4AP", "GB"},
	{"Chloe", "Martin", "chloe@example.test", "5 Rue des Lilas", "Lyon", "69003", "FR"},
	{"Dev", "Patel", "dev@example.test", "300 King Street West", "Toronto", "M5V 1J5", "CA"},
	{"Eva", "Novak", "eva@example.test", "77 Lake Avenue", "Chicago", "60601", "US"},
	{"Farah", "Haddad", "farah@example.test", "9 Orchard Lane", "Bristol", "BS1 5TR", "GB"},
	{"Greta", "Vogel", "greta@example.test", "Lindenstraße 21", "Berlin", "10969", "DE"},
	{"Hugo", "Bernard", "hugo@example.test", "14 Quai Saint-Michel", "Paris", "75005", "FR"},
	{"Isla", "Brown", "isla@example.test", "220 Pine Crescent", "Vancouver", "V6B 2W9", "CA"},
	{"Jonas", "Weber", "jonas@example.test", "Hafenweg 3", "Hamburg", "20457", "DE"},
	{"Kai", "Nakamura", "kai@example.test", "1450 Mission Street", "San Francisco", "94103", "US"},
	{"Lena", "Fischer", "lena@example.test", "Marienplatz 8", "Munich", "80331", "DE"},
}

func keyOf(parts ...string) string {
	var ps []string
	for _, p := range parts {
		if p != "" {
			ps = append(ps, staysSlug(p))
		}
	}
	return strings.Join(ps, "/")
}

func shopProductRecord(p *shopProduct) map[string]any {
	return map[string]any{"key": p.Slug, "sku": p.SKU, "slug": p.Slug, "name": p.Name, "category": p.Category,
		"category_name": categoryBySlug(p.Category).Name, "price": float64(p.Price) / 100,
		"rating": p.Rating, "has_color": len(p.Colors) > 0, "has_size": len(p.Sizes) > 0}
}

// shopVariantDomain: one record per buyable variant (product × colour × size): the product's fields plus
// color (as the radio shows it), color_lc (as the state records it) and size.
func shopVariantDomain() []map[string]any {
	var out []map[string]any
	for i := range shopProducts {
		p := &shopProducts[i]
		colors, sizes := p.Colors, p.Sizes
		if len(colors) == 0 {
			colors = []string{""}
		}
		if len(sizes) == 0 {
			sizes = []string{""}
		}
		for _, c := range colors {
			for _, s := range sizes {
				r := shopProductRecord(p)
				r["key"], r["color"], r["color_lc"], r["size"] = keyOf(p.Slug, c, s), c, strings.ToLower(c), s
				out = append(out, r)
			}
		}
	}
	return out
}

// shopFactDomain: one record per row of a product's "More information" table: the product's fields plus
// label and value ("Thickness", "6 mm").
func shopFactDomain() []map[string]any {
	var out []map[string]any
	for i := range shopProducts {
		p := &shopProducts[i]
		for _, f := range p.Facts {
			r := shopProductRecord(p)
			r["key"], r["label"], r["value"] = keyOf(p.Slug, f.Label), f.Label, f.Value
			out = append(out, r)
		}
	}
	return out
}

func shopShippingDomain() []map[string]any {
	var out []map[string]any
	for _, m := range shippingMethods {
		out = append(out, map[string]any{"key": m.Code, "code": m.Code, "label": m.Label})
	}
	return out
}

// shopCustomerDomain: the checkout's guests; country is the ISO code the state records, country_name the
// option label, us is true for the checkout's default country (no country to select).
func shopCustomerDomain() []map[string]any {
	var out []map[string]any
	for _, c := range shopCustomers {
		out = append(out, map[string]any{"key": keyOf(c.First, c.Last), "first": c.First, "last": c.Last,
			"email": c.Email, "street": c.Street, "city": c.City, "postcode": c.Postcode, "country": c.Country,
			"country_name": countryName(c.Country), "us": c.Country == "US"})
	}
	return out
}

// staysRoomDomain: one record per room type of every property: hotel (name), hotel_slug, city, kind, room
// (name), room_code, sleeps.
func staysRoomDomain() []map[string]any {
	var out []map[string]any
	for _, d := range staysDestinations {
		for _, h := range staysHotels[d.Slug] {
			for _, r := range h.Rooms {
				out = append(out, map[string]any{"key": h.Slug + "/" + r.Code, "hotel": h.Name, "hotel_slug": h.Slug,
					"city": d.Name, "kind": h.Kind, "room": r.Name, "room_code": r.Code, "sleeps": r.Sleeps})
			}
		}
	}
	return out
}

// staysHotelDomain: one record per property: hotel, hotel_slug, city, kind.
func staysHotelDomain() []map[string]any {
	var out []map[string]any
	for _, d := range staysDestinations {
		for _, h := range staysHotels[d.Slug] {
			out = append(out, map[string]any{"key": h.Slug, "hotel": h.Name, "hotel_slug": h.Slug, "city": d.Name,
				"kind": h.Kind})
		}
	}
	return out
}

// staysDateDomain: stays in the season (staysSeasonFirst…Last): check-ins on the 2nd, 9th, 16th and 23rd of
// April to October, of 2, 3 or 4 nights.
func staysDateDomain() []map[string]any {
	var out []map[string]any
	for m := 4; m <= 10; m++ {
		for _, d := range []int{2, 9, 16, 23} {
			for _, n := range []int{2, 3, 4} {
				in := fmt.Sprintf("2026-%02d-%02d", m, d)
				o := fmt.Sprintf("2026-%02d-%02d", m, d+n)
				out = append(out, map[string]any{"key": in + "/" + o, "checkin": in, "checkout": o, "nights": n})
			}
		}
	}
	return out
}

func recipeRecord(r *recipe) map[string]any {
	return map[string]any{"key": fmt.Sprint(r.ID), "id": r.ID, "recipe": r.Name, "slug": r.Slug,
		"category": r.Category, "yield": r.Yield, "servings": r.Servings}
}

// recipeDomain: one record per recipe: id, recipe (name), slug, category, yield, servings.
func recipeDomain() []map[string]any {
	var out []map[string]any
	for i := range recipeCatalog {
		out = append(out, recipeRecord(&recipeCatalog[i]))
	}
	return out
}

// recipeNutrientDomain: one record per recipe × nutrient row: the recipe's fields plus nutrient (the log's
// key), label ("Sodium"), unit ("mg"), value (per serving), option (the log's option text) and sub (an
// indented row, absent from the log's options).
func recipeNutrientDomain() []map[string]any {
	var out []map[string]any
	for i := range recipeCatalog {
		rc := &recipeCatalog[i]
		for _, n := range recipeNutrients {
			r := recipeRecord(rc)
			r["key"] = fmt.Sprintf("%d/%s", rc.ID, n.Key)
			r["nutrient"], r["label"], r["unit"], r["value"], r["option"], r["sub"] = n.Key, n.Label, n.Unit,
				n.Of(rc.Nutrition), n.Option(), n.Sub
			out = append(out, r)
		}
	}
	return out
}

// recipeNoteDomain: one record per row of a recipe's "Cook's notes" table: label and value.
func recipeNoteDomain() []map[string]any {
	var out []map[string]any
	for i := range recipeCatalog {
		rc := &recipeCatalog[i]
		for _, f := range rc.Notes {
			r := recipeRecord(rc)
			r["key"], r["label"], r["value"] = fmt.Sprintf("%d/%s", rc.ID, staysSlug(f.Label)), f.Label, f.Value
			out = append(out, r)
		}
	}
	return out
}

// chatUserDomain: the chat's accounts: username, email, password, first, last.
func chatUserDomain() []map[string]any {
	var out []map[string]any
	for _, u := range chatUsers {
		out = append(out, map[string]any{"key": u.Username, "username": u.Username, "email": u.Email,
			"password": u.password, "first": u.First, "last": u.Last})
	}
	return out
}

// chatChannelDomain: the public channels: name (the state's), display (the link's and the composer's).
func chatChannelDomain() []map[string]any {
	var out []map[string]any
	for _, c := range chatChannels {
		out = append(out, map[string]any{"key": c.Name, "name": c.Name, "display": c.DisplayName,
			"home": c.Name == "town-square"})
	}
	return out
}

// plannerProjectDomain: slug, name, and run_as_manual (the switch's default on the project's form).
func plannerProjectDomain() []map[string]any {
	var out []map[string]any
	for _, p := range plannerProjects {
		out = append(out, map[string]any{"key": p.Slug, "slug": p.Slug, "name": p.Name, "run_as_manual": p.RunAsManual})
	}
	return out
}

func plannerOptionDomain(opts []plannerOption) []map[string]any {
	var out []map[string]any
	for _, o := range opts {
		out = append(out, map[string]any{"key": o.Value, "value": o.Value, "label": o.Label})
	}
	return out
}
