package zoo

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"webbench/srcerr"
)

// A family's params (families.go): each names a catalog domain, optionally filtered, or literal values.
//
//	params:
//	  v: {domain: shop.variants, where: {has_size: true, category: [apparel]}}   # where: field → value(s)
//	  qty: {values: [2, 3, 4]}
//
// A domain is a list of records (maps) drawn from an app's catalog; every record has a "key" that fixed
// instances name it by and that the attempt's params record. Domains and their fields: catalogDomains.

// paramValue is one value of a parameter: its key and what the templates see (a record or a literal).
type paramValue struct {
	key  string
	data any
}

// param is a parameter and its values, in catalog (or listed) order.
type param struct {
	name   string
	values []paramValue
}

// fixedInstance is one entry of a family's instances list.
type fixedInstance struct {
	node *yaml.Node
	vals map[string]paramValue
}

var paramNameRe = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// params reads a family's params for app; domains must be the app's own.
func (p *taskParser) params(n *yaml.Node, app string) []param {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		p.mismatch(n, "params", "a mapping of parameter names")
		return nil
	}
	var out []param
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		field := "params." + k.Value
		if !paramNameRe.MatchString(k.Value) {
			p.errf(k, field, "a parameter name must match %s", paramNameRe)
			continue
		}
		f, _ := p.fields(v, field, []string{"domain", "where", "values"})
		var vals []paramValue
		switch dn, lit := f["domain"], f["values"]; {
		case dn != nil && lit != nil:
			p.errf(v, field, "give domain or values, not both")
		case dn != nil:
			vals = p.domain(dn, f["where"], app, field)
		case lit != nil:
			vals = p.literals(lit, field)
		default:
			p.errf(v, field, "want domain: <app>.<name> or values: [...]")
		}
		if len(vals) == 0 && len(p.errs) == 0 {
			p.errf(v, field, "no values")
		}
		out = append(out, param{k.Value, vals})
	}
	return out
}

// domain returns the records of a catalog domain that pass where.
func (p *taskParser) domain(dn, where *yaml.Node, app, field string) []paramValue {
	name := p.str(dn, field+".domain")
	mk, ok := catalogDomains[name]
	if !ok {
		p.errf(dn, field+".domain", "%v", srcerr.OneOf("domain", name, DomainNames()))
		return nil
	}
	if a, _, _ := strings.Cut(name, "."); a != app {
		p.errf(dn, field+".domain", "domain %s is not of app %s", name, app)
		return nil
	}
	recs := domainRecords(name, mk)
	if where != nil {
		recs = p.filter(recs, where, name, field+".where")
	}
	out := make([]paramValue, 0, len(recs))
	for _, r := range recs {
		out = append(out, paramValue{fmt.Sprint(r["key"]), r})
	}
	return out
}

// filter keeps the records whose fields equal where's value (or one of its listed values).
func (p *taskParser) filter(recs []map[string]any, where *yaml.Node, domain, field string) []map[string]any {
	f, _ := p.fields(where, field, recordFields(recs))
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []map[string]any
	for _, r := range recs {
		keep := true
		for _, k := range keys {
			want := p.strs(f[k], field+"."+k)
			keep = keep && slices.Contains(want, fmt.Sprint(r[k]))
		}
		if keep {
			out = append(out, r)
		}
	}
	if len(out) == 0 && len(p.errs) == 0 {
		p.errf(where, field, "no record of %s passes", domain)
	}
	return out
}

func recordFields(recs []map[string]any) []string {
	var out []string
	if len(recs) > 0 {
		for k := range recs[0] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// literals reads listed values: scalars (keyed by their text) or mappings (keyed by their key field, else
// their position).
func (p *taskParser) literals(n *yaml.Node, field string) []paramValue {
	if n.Kind != yaml.SequenceNode {
		p.mismatch(n, field+".values", "a list")
		return nil
	}
	var out []paramValue
	for i, c := range n.Content {
		var v any
		if err := c.Decode(&v); err != nil {
			p.errf(c, field+".values", "%v", err)
			continue
		}
		key := fmt.Sprint(v)
		if m, ok := v.(map[string]any); ok {
			key = fmt.Sprint(i)
			if k, ok := m["key"]; ok {
				key = fmt.Sprint(k)
			}
		}
		out = append(out, paramValue{key, v})
	}
	return out
}

// fixedInstances reads a family's instances list: each entry names every parameter's value by key. A key the
// app's catalog lacks, or one the where filter excludes, is refused.
func (p *taskParser) fixedInstances(n *yaml.Node, params []param) []fixedInstance {
	if n.Kind != yaml.SequenceNode {
		p.mismatch(n, "instances", "a list of parameter mappings")
		return nil
	}
	names := make([]string, len(params))
	for i, pr := range params {
		names[i] = pr.name
	}
	var out []fixedInstance
	for i, c := range n.Content {
		field := fmt.Sprintf("instances[%d]", i)
		f, _ := p.fields(c, field, names)
		fx := fixedInstance{node: c, vals: map[string]paramValue{}}
		ok := true
		for _, pr := range params {
			v, has := f[pr.name]
			if !has {
				p.errf(c, field, "missing parameter %q", pr.name)
				ok = false
				continue
			}
			key := p.str(v, field+"."+pr.name)
			j := slices.IndexFunc(pr.values, func(x paramValue) bool { return x.key == key })
			if j < 0 {
				p.errf(v, field+"."+pr.name, "%s: no servable value %q (the catalog lacks it or the family's where "+
					"excludes it; e.g. %q)", errRefused, key, pr.values[0].key)
				ok = false
				continue
			}
			fx.vals[pr.name] = pr.values[j]
		}
		if ok {
			out = append(out, fx)
		}
	}
	return out
}

// domainCache holds each domain's records once built: the catalogs are fixed, and the records are only read.
var (
	domainMu    sync.Mutex
	domainCache = map[string][]map[string]any{}
)

func domainRecords(name string, mk func() []map[string]any) []map[string]any {
	domainMu.Lock()
	defer domainMu.Unlock()
	recs, ok := domainCache[name]
	if !ok {
		recs = mk()
		domainCache[name] = recs
	}
	return recs
}

// DomainNames lists the catalog domains families may draw from, sorted.
func DomainNames() []string {
	out := make([]string, 0, len(catalogDomains))
	for k := range catalogDomains {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The stays season families draw dates from: check-ins from staysSeasonFirst, check-outs until
// staysSeasonLast, stays of 1 to staysSeasonMaxNights nights (the app prices any dates; tasks keep to one
// season so that the goal's dates read naturally and no instance asks for a week-long stay at a villa).
const (
	staysSeasonFirst     = "2026-04-01"
	staysSeasonLast      = "2026-11-30"
	staysSeasonMaxNights = 7
)

// staysStay checks a stay's dates against the season and returns its nights; a date outside is refused.
func staysStay(checkin, checkout string) (int, error) {
	in, err1 := time.Parse(staysDateLayout, checkin)
	out, err2 := time.Parse(staysDateLayout, checkout)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("dates %q, %q: want YYYY-MM-DD", checkin, checkout)
	}
	if checkin < staysSeasonFirst || checkout > staysSeasonLast {
		return 0, refuse("stay %s to %s is outside the stays calendar %s to %s", checkin, checkout,
			staysSeasonFirst, staysSeasonLast)
	}
	n := int(out.Sub(in).Hours()/24 + 0.5)
	if n < 1 || n > staysSeasonMaxNights {
		return 0, refuse("stay %s to %s is %d nights, want 1 to %d", checkin, checkout, n, staysSeasonMaxNights)
	}
	return n, nil
}

// staysTotalFunc is the template function staysTotal: the price in euros the property page and the booking
// show for a room (staysHotel.Total), refused for an unknown room or a room too small for the adults.
func staysTotalFunc(hotel, room, checkin, checkout string, adults int) (int, error) {
	h := staysHotelBySlug[hotel]
	if h == nil {
		return 0, refuse("no property %q", hotel)
	}
	r := h.Room(room)
	if r == nil {
		return 0, refuse("%s has no room %q", h.Name, room)
	}
	if adults < 1 || adults > r.Sleeps {
		return 0, refuse("%s at %s sleeps %d, not %d adults", r.Name, h.Name, r.Sleeps, adults)
	}
	n, err := staysStay(checkin, checkout)
	if err != nil {
		return 0, err
	}
	return h.Total(r, n, adults), nil
}

// staysResultsTotalFunc is the template function staysResultsTotal: the price a results card shows for a
// property (the room it quotes for the adults, staysHotel.RoomFor).
func staysResultsTotalFunc(hotel, checkin, checkout string, adults int) (int, error) {
	h := staysHotelBySlug[hotel]
	if h == nil {
		return 0, refuse("no property %q", hotel)
	}
	n, err := staysStay(checkin, checkout)
	if err != nil {
		return 0, err
	}
	return h.Total(h.RoomFor(adults), n, adults), nil
}

// staysNightsFunc is the template function nights: the nights of a stay in the season.
func staysNightsFunc(checkin, checkout string) (int, error) { return staysStay(checkin, checkout) }
