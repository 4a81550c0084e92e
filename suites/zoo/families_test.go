package zoo

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"webbench/suites"
)

// The built-in families: the scale the Zoo promises (ZOO.md "Task families"), every instance an exact task of
// its family, the hand-written tasks mapped to families with their own mutations and guards, and the default
// selection unchanged.
func TestBuiltinFamilies(t *testing.T) {
	all, err := BuiltinInstances()
	if err != nil {
		t.Fatal(err)
	}
	def, err := BuiltinTasks()
	if err != nil {
		t.Fatal(err)
	}
	if len(def) != 40 {
		t.Errorf("default selection: %d tasks, want the 40 hand-written ones", len(def))
	}
	type famInfo struct {
		app       string
		mutations []string
		guards    []string
		n         int
	}
	fams := map[string]*famInfo{}
	apps := map[string]bool{}
	for _, tk := range all {
		f := Family(tk)
		apps[tk.App] = true
		fi := fams[f]
		if fi == nil {
			fi = &famInfo{tk.App, tk.Mutations, GuardTags(tk.Tags), 0}
			fams[f] = fi
		}
		fi.n++
		if fi.app != tk.App || !slices.Equal(fi.mutations, tk.Mutations) || !slices.Equal(fi.guards, GuardTags(tk.Tags)) {
			t.Errorf("%s: app %s mutations %v guards %v differ from its family %s's %s %v %v", tk.ID, tk.App,
				tk.Mutations, GuardTags(tk.Tags), f, fi.app, fi.mutations, fi.guards)
		}
		if fam, slug, ok := strings.Cut(tk.ID, "/"); ok && (fam != f || slug == "" || !idPattern.MatchString(slug)) {
			t.Errorf("instance %s: family %s", tk.ID, f)
		}
	}
	for _, tk := range def {
		if strings.Contains(tk.ID, "/") || Family(tk) == tk.ID {
			t.Errorf("hand-written task %s: family %q", tk.ID, Family(tk))
		}
	}
	clean, guardFams, guardApps := 0, map[string]int{}, map[string]map[string]bool{}
	for _, fi := range fams {
		if len(fi.mutations) == 0 {
			clean++
		}
		for _, m := range fi.mutations {
			mu, _ := LookupMutation(m)
			guardFams[mu.Guard]++
			if guardApps[mu.Guard] == nil {
				guardApps[mu.Guard] = map[string]bool{}
			}
			guardApps[mu.Guard][fi.app] = true
		}
	}
	t.Logf("%d tasks (%d hand-written), %d families (%d clean), %d apps; guard families %v", len(all), len(def),
		len(fams), clean, len(apps), guardFams)
	if len(all) < 240 || len(fams) < 40 || len(apps) < 5 || clean < 10 {
		t.Errorf("%d tasks in %d families (%d clean) on %d apps; want ≥ 240, ≥ 40, ≥ 10, ≥ 5", len(all), len(fams),
			clean, len(apps))
	}
	// Each guard's failure mode in several families on several apps: intercept_hint on the three apps with
	// overlays; the others' mutations spread over three apps each.
	for g, want := range map[string][2]int{"intercept_hint": {12, 3}, "stale_ref_refresh": {8, 3},
		"evaluate_isolation": {9, 3}, "snapshot_ready": {6, 3}, "visual_progress": {6, 3}} {
		if guardFams[g] < want[0] || len(guardApps[g]) < want[1] {
			t.Errorf("%s: %d families on %d apps, want ≥ %d on ≥ %d", g, guardFams[g], len(guardApps[g]), want[0], want[1])
		}
	}
	// The hand-written tasks form 22 families: the tests that sample one task per family of them play 22 tasks.
	if n := len(Sample(def, 1)); n != 22 {
		t.Errorf("the hand-written tasks sample to %d families, want 22", n)
	}
}

// Every stays and recipes instance's check holds the value the app computes for its parameters, read here
// straight from the catalog (not through the template functions).
func TestFamilyChecksAreExact(t *testing.T) {
	all, err := BuiltinInstances()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tk := range all {
		params, _ := tk.Meta["params"].(map[string]any)
		if params == nil {
			continue
		}
		switch {
		case tk.App == "stays" && params["r"] != nil && params["d"] != nil:
			slug, code, _ := strings.Cut(fmt.Sprint(params["r"]), "/")
			in, out, _ := strings.Cut(fmt.Sprint(params["d"]), "/")
			h := staysHotelBySlug[slug]
			nights := int(mustDate(t, out).Sub(mustDate(t, in)).Hours() / 24)
			adults := 2
			if b, ok := tk.Check.State["bookings"].([]any); ok {
				adults = int(b[0].(map[string]any)["adults"].(float64))
			}
			want := float64(h.Total(h.Room(code), nights, adults))
			got := 0.0
			if tk.Check.Answer != nil {
				got = *tk.Check.Answer.Number
			} else {
				got = tk.Check.State["bookings"].([]any)[0].(map[string]any)["total"].(float64)
			}
			if got != want {
				t.Errorf("%s: check %v, the app's price %v", tk.ID, got, want)
			}
			checked++
		case tk.App == "recipes" && params["n"] != nil:
			idStr, key, _ := strings.Cut(fmt.Sprint(params["n"]), "/")
			var id int
			fmt.Sscan(idStr, &id)
			want := float64(recipeNutrientByKey(key).Of(recipeByID(id).Nutrition))
			if got := *tk.Check.Answer.Number; got != want {
				t.Errorf("%s: check %v, the recipe's %s %v", tk.ID, got, key, want)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Errorf("checked %d instances, want the stays and recipes ones (≥ 50)", checked)
	}
}

// The same files give the same instances; a larger count only adds instances after the smaller count's.
func TestFamilyInstancesDeterministic(t *testing.T) {
	load := func(count int) []string {
		t.Helper()
		body := strings.Replace(familyCart, "count: 3", fmt.Sprintf("count: %d", count), 1)
		tasks, err := loadFiles(map[string]string{"f.yaml": body})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, tk := range tasks {
			ids = append(ids, tk.ID)
		}
		return ids
	}
	a, b, c := load(3), load(3), load(6)
	if len(a) != 3 || !slices.Equal(a, b) || !slices.Equal(a, c[:3]) || len(c) != 6 {
		t.Fatalf("count 3: %v, again %v, count 6: %v", a, b, c)
	}
	for _, id := range c {
		if !strings.HasPrefix(id, "cart-fam/") {
			t.Errorf("instance id %s, want cart-fam/<slug>", id)
		}
	}
}

func loadFiles(files map[string]string) ([]suites.Task, error) {
	var fs []taskFile
	for name, body := range files {
		fs = append(fs, taskFile{"tasks/" + name, []byte(body)})
	}
	slices.SortFunc(fs, func(a, b taskFile) int { return strings.Compare(a.name, b.name) })
	return parseTaskFiles(fs, SelectAll)
}

const familyCart = `- family: cart-fam
  app: shop
  start: /
  tags: [cart]
  params:
    v: {domain: shop.variants, where: {has_size: true}}
    qty: {values: [1, 2, 3]}
  count: 3
  slug: '{{.v.slug}}-{{.v.color_lc}}-{{.v.size}}-x{{.qty}}'
  goal: Put {{.qty}} {{.v.color_lc}} {{.v.name}} in size {{.v.size}} in the cart.
  check:
    state: {cart: [{sku: '{{.v.sku}}', qty: !!int '{{.qty}}', color: '{{.v.color_lc}}', size: '{{.v.size}}'}]}
  solution:
    - click: {role: link, name: '{{.v.name}}'}
    - answer: {literal: done}
`

const familyStay = `- family: stay-fam
  app: stays
  start: /
  params:
    r: {domain: stays.rooms, where: {city: Lisbon}}
    d: {values: [{key: may, checkin: "2026-05-12", checkout: "2026-05-15"}, {key: jan, checkin: "2027-01-05", checkout: "2027-01-08"}]}
  instances:
    - {r: hotel-miradouro/deluxe, d: may}
    - {r: hotel-miradouro/deluxe, d: jan}
  slug: '{{.r.hotel_slug}}-{{.d.key}}'
  goal: Price of the {{.r.room}} at {{.r.hotel}} from {{.d.checkin}} to {{.d.checkout}}?
  check:
    answer:
      number: !!int '{{staysTotal .r.hotel_slug .r.room_code .d.checkin .d.checkout 2}}'
  solution:
    - answer: {literal: x}
`

func TestFamilyLoaderErrors(t *testing.T) {
	tasks, err := loadFiles(map[string]string{"f.yaml": familyCart})
	if err != nil || len(tasks) != 3 {
		t.Fatalf("good family: %d tasks, %v", len(tasks), err)
	}
	cart := tasks[0]
	if cart.Cluster != "cart-fam" || cart.Check.State == nil {
		t.Fatalf("instance %+v", cart)
	}
	qty := cart.Check.State["cart"].([]any)[0].(map[string]any)["qty"]
	if _, ok := qty.(float64); !ok {
		t.Errorf("!!int template: qty is %#v, want a number", qty)
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"date outside the calendar", map[string]string{"s.yaml": familyStay},
			[]string{"tasks/s.yaml:9:7: family stay-fam: instances[1]: check.answer.number: not served by the app: " +
				"stay 2027-01-05 to 2027-01-08 is outside the stays calendar"}},
		{"unknown record", map[string]string{"s.yaml": strings.Replace(familyStay, "{r: hotel-miradouro/deluxe, d: may}",
			"{r: hotel-miradouro/penthouse, d: may}", 1)},
			[]string{`tasks/s.yaml:8:11: family stay-fam: instances[0].r: not served by the app: no servable value "hotel-miradouro/penthouse"`}},
		{"record excluded by where", map[string]string{"s.yaml": strings.Replace(familyStay, "{r: hotel-miradouro/deluxe, d: may}",
			"{r: hotel-giralda/deluxe, d: may}", 1)},
			[]string{`instances[0].r: not served by the app: no servable value "hotel-giralda/deluxe"`}},
		{"unknown domain", map[string]string{"f.yaml": strings.Replace(familyCart, "shop.variants", "shop.colours", 1)},
			[]string{`tasks/f.yaml:6:17: family cart-fam: params.v.domain: unknown domain "shop.colours"`}},
		{"domain of another app", map[string]string{"f.yaml": strings.Replace(familyCart, "shop.variants", "chat.users", 1)},
			[]string{`params.v.domain: domain chat.users is not of app shop`}},
		{"unknown where field", map[string]string{"f.yaml": strings.Replace(familyCart, "has_size: true", "stock: 1", 1)},
			[]string{`tasks/f.yaml:6:40: family cart-fam: params.v.where: unknown key "stock"`}},
		{"missing key in a template", map[string]string{"f.yaml": strings.Replace(familyCart, "{{.v.name}} in size",
			"{{.v.colour}} in size", 1)},
			[]string{`tasks/f.yaml:10: family cart-fam: goal:`, `map has no entry for key "colour"`}},
		{"count a fraction", map[string]string{"f.yaml": strings.Replace(familyCart, "count: 3", "count: 2.5", 1)},
			[]string{`tasks/f.yaml:8:10: family cart-fam: count: want an integer ≥ 0, got "2.5"`}},
		{"seed a fraction", map[string]string{"f.yaml": strings.Replace(familyCart, "count: 3", "count: 3\n  seed: 1.5", 1)},
			[]string{`tasks/f.yaml:9:9: family cart-fam: seed: want an integer, got "1.5"`}},
		{"too few distinct instances", map[string]string{"f.yaml": strings.Replace(familyCart, "count: 3", "count: 500", 1)},
			[]string{`family cart-fam: count: only`, `want 500`}},
		{"goal without the params", map[string]string{"f.yaml": strings.Replace(familyCart,
			"Put {{.qty}} {{.v.color_lc}} {{.v.name}} in size {{.v.size}} in the cart.", "Fill the cart.", 1)},
			[]string{"task cart-fam/", "duplicate goal, same as task cart-fam/"}},
		{"task of an unknown family", map[string]string{"a.yaml": strings.Replace(goodTask, "  app: shop",
			"  family: nope\n  app: shop", 1)},
			[]string{`tasks/a.yaml:2:11: task t-ok: family: unknown family "nope"`}},
		{"task with other mutations than its family", map[string]string{"f.yaml": familyCart,
			"g.yaml": strings.Replace(goodTask, "  app: shop", "  family: cart-fam\n  app: shop\n  mutations: [consent]", 1)},
			[]string{`task t-ok: family: family cart-fam declares mutations [], the task has [consent]`}},
		{"duplicate family", map[string]string{"f.yaml": familyCart, "g.yaml": familyCart},
			[]string{"tasks/g.yaml:1: family cart-fam: duplicate family, first declared at tasks/f.yaml:1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadFiles(c.files)
			if err == nil {
				t.Fatalf("no error; want %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
}

func mustDate(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := time.Parse(staysDateLayout, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Every shop and recipes instance that begins with a search finds the product or recipe its next link names
// among the app's own search results (searchProducts, searchRecipes), so the solution's path exists.
func TestFamilySearchesFindTheirTarget(t *testing.T) {
	all, err := BuiltinInstances()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tk := range all {
		first := tk.Solution[0]
		if !strings.Contains(tk.ID, "/") || first.Kind != "fill" || first.Target == nil || first.Target.Role != "searchbox" ||
			(tk.App != "shop" && tk.App != "recipes") {
			continue
		}
		q, link := tk.Solution[0].Text, ""
		for _, st := range tk.Solution[1:] {
			if st.Kind == "click" && st.Target.Role == "link" {
				link = st.Target.Name
				break
			}
		}
		var names []string
		for _, p := range searchProducts(q) {
			names = append(names, p.Name)
		}
		for _, r := range searchRecipes(q) {
			names = append(names, r.Name)
		}
		if !slices.Contains(names, link) {
			t.Errorf("%s: searching %q finds %v, not %q", tk.ID, q, names, link)
		}
		n++
	}
	if n < 100 {
		t.Errorf("%d instances searched, want the shop's and recipes' (≥ 100)", n)
	}
}

// The "one" selection: exactly one task of every family, a hand-written one where the family has any (so the
// demo's families keep their tasks), and a fixed function of the files.
func TestOneTaskPerFamily(t *testing.T) {
	all, err := BuiltinInstances()
	if err != nil {
		t.Fatal(err)
	}
	def, err := BuiltinTasks()
	if err != nil {
		t.Fatal(err)
	}
	one, err := LoadTasks(taskFS, "tasks", SelectOne)
	if err != nil {
		t.Fatal(err)
	}
	fams := map[string]bool{}
	for _, tk := range all {
		fams[Family(tk)] = true
	}
	hand := map[string]string{} // family → its first hand-written task by id
	for _, tk := range Sample(def, 1) {
		hand[Family(tk)] = tk.ID
	}
	got := map[string]string{}
	for _, tk := range one {
		if prev, dup := got[Family(tk)]; dup {
			t.Errorf("family %s twice: %s and %s", Family(tk), prev, tk.ID)
		}
		got[Family(tk)] = tk.ID
		if want, ok := hand[Family(tk)]; ok && tk.ID != want {
			t.Errorf("family %s: %s, want its hand-written task %s", Family(tk), tk.ID, want)
		}
		if _, ok := hand[Family(tk)]; !ok && !strings.Contains(tk.ID, "/") {
			t.Errorf("family %s: %s is not an instance", Family(tk), tk.ID)
		}
	}
	if len(got) != len(fams) {
		t.Errorf("%d families selected, want all %d", len(got), len(fams))
	}
	again, _ := LoadTasks(taskFS, "tasks", SelectOne)
	if !slices.EqualFunc(one, again, func(a, b suites.Task) bool { return a.ID == b.ID }) {
		t.Error("two loads select different tasks")
	}
	if _, err := LoadTasks(taskFS, "tasks", "some"); err == nil || !strings.Contains(err.Error(), `unknown selection "some"`) {
		t.Errorf("unknown selection: %v", err)
	}
}
