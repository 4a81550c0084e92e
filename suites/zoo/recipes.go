package zoo

import (
	"embed"
	"encoding/json"
	"html/template"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// The `recipes` app: an Allrecipes-like recipe site ("Spoonful"). Read-only: the state records only the
// searches made and the recipe pages viewed. Pages (app-relative paths):
//
//	/                               home: search box, category links, trending recipes
//	/search?q=…&sort=…              results: name link, "4.7 stars", "12,460 reviews", servings, total time
//	/recipe/{id}/{slug}             recipe page: details table (times, servings, yield), ingredients with a
//	                                ½x/1x/2x scaler, directions, cook's notes, a server-rendered "Nutrition Facts
//	                                (per serving)" table, and a "full nutrition label" panel that the page's script
//	                                loads from api/nutrition/{id}
//	/recipe/{id}                    redirects to the canonical path
//	/api/nutrition/{id}             JSON nutrition facts of one recipe (see recipeNutritionJSON)
//
// Mutations:
//   - consent: the shared OneTrust-like overlay.
//   - hung_fetch: api/nutrition/{id} never answers — the handler blocks until the request's context is done
//     (the browser aborts it, e.g. on navigation or when the tab closes). The full-label panel keeps saying
//     "Loading…"; the per-serving table in the page's HTML still has every number.
//   - busy_script: the recipe page's global window.computeScaledServings(servings) spins synchronously for
//     recipesBusyMS before it computes; the page itself never calls it (the ½x/1x/2x buttons use their own
//     code path).

//go:embed assets/recipes
var recipesFS embed.FS

// recipesBusyMS is how long window.computeScaledServings spins under busy_script (ZOO.md: 30 s).
const recipesBusyMS = 30000

var recipesTpl = ParseTemplates(recipesFS, "assets/recipes", template.FuncMap{
	"duration": recipeDuration,
	"comma":    commaInt,
	"stars": func(r float64) string {
		full := int(math.Round(r))
		return strings.Repeat("★", full) + strings.Repeat("☆", 5-full)
	},
	"rating":       func(r float64) string { return strconv.FormatFloat(r, 'f', 1, 64) },
	"categoryName": recipeCategoryName,
	"inc":          func(i int) int { return i + 1 },
	"qtyParts":     splitQuantity,
})

// commaInt formats n with thousands separators: 12460 → "12,460".
func commaInt(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// unicodeFractions are the vulgar fractions ingredient quantities use.
var unicodeFractions = map[rune]float64{'¼': 0.25, '½': 0.5, '¾': 0.75, '⅓': 1.0 / 3, '⅔': 2.0 / 3, '⅛': 0.125}

// ingredientQty is an ingredient line split into its leading quantity and the rest, for the scaler.
type ingredientQty struct {
	// Qty is the quantity as printed ("2 ⅓"); empty when the line has none ("pinch of salt").
	Qty string
	// Value is Qty as a number (2.333…); 0 when Qty is empty.
	Value float64
	// Rest is the remainder of the line, with its leading space.
	Rest string
}

// splitQuantity splits "2 ⅓ cups mashed bananas" into {"2 ⅓", 2.333, " cups mashed bananas"}: the leading
// run of whole numbers and vulgar fractions, separated by single spaces.
func splitQuantity(line string) ingredientQty {
	fields := strings.SplitAfter(line, " ")
	var q ingredientQty
	used := 0
	for _, f := range fields {
		tok := strings.TrimSpace(f)
		v, ok := 0.0, false
		if n, err := strconv.Atoi(tok); err == nil && n >= 0 {
			v, ok = float64(n), true
		} else if r := []rune(tok); len(r) == 1 {
			v, ok = unicodeFractions[r[0]]
		}
		if !ok {
			break
		}
		q.Value += v
		used += len(f)
	}
	if used == 0 {
		return ingredientQty{Rest: line}
	}
	q.Qty = strings.TrimSpace(line[:used])
	q.Rest = " " + line[used:]
	return q
}

type recipesApp struct{}

func init() { RegisterApp(recipesApp{}) }

// Name implements App.
func (recipesApp) Name() string { return "recipes" }

// Mutations implements App: consent, hung_fetch and busy_script.
func (recipesApp) Mutations() []string { return []string{"busy_script", "consent", "hung_fetch"} }

// New implements App.
func (recipesApp) New(env *AppEnv) (Instance, error) {
	s := &recipesInstance{env: env, Searches: []string{}, Viewed: []int{}}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /{$}", s.home)
	s.mux.HandleFunc("GET /search", s.search)
	s.mux.HandleFunc("GET /recipe/{id}", s.recipeRedirect)
	s.mux.HandleFunc("GET /recipe/{id}/{slug}", s.recipe)
	s.mux.HandleFunc("GET /api/nutrition/{id}", s.nutrition)
	s.mux.HandleFunc("GET /static/{file...}", func(w http.ResponseWriter, r *http.Request) {
		ServeStatic(w, r, recipesFS, "assets/recipes/static", r.PathValue("file"))
	})
	s.mux.HandleFunc("/", s.notFound)
	return s, nil
}

type recipesInstance struct {
	env *AppEnv
	mux *http.ServeMux

	mu       sync.Mutex
	Searches []string
	Viewed   []int
}

func (s *recipesInstance) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// State implements Instance: {"searches": ["banana bread", …], "viewed": [20144, …]} — the queries searched
// (trimmed, in order) and the ids of the recipe pages opened (in order, repeats kept).
func (s *recipesInstance) State() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"searches": s.Searches, "viewed": s.Viewed})
	return b
}

// recipesPage is the data every recipes template gets.
type recipesPage struct {
	Base     string
	Title    string
	Overlays template.HTML
	Query    string
	Cats     []struct{ Slug, Name string }
	Data     any
}

func (s *recipesInstance) newPage(r *http.Request, title string) *recipesPage {
	return &recipesPage{Base: s.env.Base, Title: title, Overlays: s.env.Overlays.HTML(r), Cats: recipeCategories}
}

func (s *recipesInstance) render(w http.ResponseWriter, name string, status int, p *recipesPage) {
	RenderPage(w, recipesTpl, name, status, p)
}

func (s *recipesInstance) notFound(w http.ResponseWriter, r *http.Request) {
	s.render(w, "notfound.html", http.StatusNotFound, s.newPage(r, "Page not found"))
}

func (s *recipesInstance) home(w http.ResponseWriter, r *http.Request) {
	var trending []*recipe
	for _, id := range []int{41330, 24074, 20144, 52210, 31045, 60318} {
		trending = append(trending, recipeByID(id))
	}
	p := s.newPage(r, "Spoonful: recipes, ratings and reviews")
	p.Data = trending
	s.render(w, "home.html", http.StatusOK, p)
}

// recipeSorts are the results page's sort options (value, label).
var recipeSorts = []struct{ Value, Label string }{
	{"relevance", "Best match"}, {"rating", "Highest rated"}, {"reviews", "Most reviewed"}, {"time", "Quickest"},
}

type recipeResults struct {
	Recipes []*recipe
	Sort    string
	Sorts   []struct{ Value, Label string }
}

func (s *recipesInstance) search(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	sortBy := r.URL.Query().Get("sort")
	res := searchRecipes(q)
	less := func(a, b *recipe) bool { return false }
	switch sortBy {
	case "rating":
		less = func(a, b *recipe) bool { return a.Rating > b.Rating }
	case "reviews":
		less = func(a, b *recipe) bool { return a.Reviews > b.Reviews }
	case "time":
		less = func(a, b *recipe) bool { return a.Total() < b.Total() }
	default:
		sortBy = "relevance"
	}
	for i := 1; i < len(res); i++ { // stable insertion sort
		for j := i; j > 0 && less(res[j], res[j-1]); j-- {
			res[j], res[j-1] = res[j-1], res[j]
		}
	}
	if q != "" {
		s.mu.Lock()
		s.Searches = append(s.Searches, q)
		s.mu.Unlock()
	}
	p := s.newPage(r, "Results for “"+q+"”")
	p.Query = q
	p.Data = &recipeResults{Recipes: res, Sort: sortBy, Sorts: recipeSorts}
	s.render(w, "search.html", http.StatusOK, p)
}

func (s *recipesInstance) lookup(r *http.Request) *recipe {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		return nil
	}
	return recipeByID(id)
}

func (s *recipesInstance) recipeRedirect(w http.ResponseWriter, r *http.Request) {
	rc := s.lookup(r)
	if rc == nil {
		s.notFound(w, r)
		return
	}
	s.env.Redirect(w, r, rc.Path())
}

// recipeView is the recipe page's data.
type recipeView struct {
	R           *recipe
	Ingredients []ingredientQty
	Busy        bool
	BusyMS      int
	Nutrition   []recipeNutrientRow
}

// recipeNutrientRow is one row of the per-serving table: label, amount as shown ("12g"), and whether it is a
// sub-row (indented, e.g. Saturated Fat under Total Fat).
type recipeNutrientRow struct {
	Label, Amount string
	Sub           bool
}

func nutrientRows(n recipeNutrition) []recipeNutrientRow {
	g := func(v int) string { return strconv.Itoa(v) + "g" }
	mg := func(v int) string { return strconv.Itoa(v) + "mg" }
	return []recipeNutrientRow{
		{"Calories", strconv.Itoa(n.Calories), false},
		{"Total Fat", g(n.FatG), false},
		{"Saturated Fat", g(n.SatFatG), true},
		{"Cholesterol", mg(n.CholMg), false},
		{"Sodium", mg(n.SodiumMg), false},
		{"Total Carbohydrate", g(n.CarbsG), false},
		{"Dietary Fiber", g(n.FiberG), true},
		{"Total Sugars", g(n.SugarG), true},
		{"Protein", g(n.ProteinG), false},
	}
}

func (s *recipesInstance) recipe(w http.ResponseWriter, r *http.Request) {
	rc := s.lookup(r)
	if rc == nil {
		s.notFound(w, r)
		return
	}
	if r.PathValue("slug") != rc.Slug {
		s.env.Redirect(w, r, rc.Path())
		return
	}
	s.mu.Lock()
	s.Viewed = append(s.Viewed, rc.ID)
	s.mu.Unlock()
	v := &recipeView{R: rc, Nutrition: nutrientRows(rc.Nutrition)}
	for _, line := range rc.Ingredients {
		v.Ingredients = append(v.Ingredients, splitQuantity(line))
	}
	if s.env.Mutations.Has("busy_script") {
		v.Busy, v.BusyMS = true, recipesBusyMS
	}
	p := s.newPage(r, rc.Name)
	p.Data = v
	s.render(w, "recipe.html", http.StatusOK, p)
}

// recipeNutritionJSON is the body of api/nutrition/{id}: per-serving amounts and percent daily values (FDA
// reference daily values for a 2,000-calorie diet: fat 78 g, saturated fat 20 g, cholesterol 300 mg, sodium
// 2,300 mg, carbohydrate 275 g, fiber 28 g, protein 50 g, vitamin C 90 mg, calcium 1,300 mg, iron 18 mg,
// potassium 4,700 mg).
type recipeNutritionJSON struct {
	ID         int             `json:"id"`
	Name       string          `json:"name"`
	Servings   int             `json:"servings"`
	PerServing recipeNutrition `json:"per_serving"`
	DailyValue map[string]int  `json:"daily_value_percent"`
}

func dailyValues(n recipeNutrition) map[string]int {
	pct := func(v, ref float64) int { return int(math.Round(100 * v / ref)) }
	return map[string]int{
		"total_fat": pct(float64(n.FatG), 78), "saturated_fat": pct(float64(n.SatFatG), 20),
		"cholesterol": pct(float64(n.CholMg), 300), "sodium": pct(float64(n.SodiumMg), 2300),
		"total_carbohydrate": pct(float64(n.CarbsG), 275), "dietary_fiber": pct(float64(n.FiberG), 28),
		"protein": pct(float64(n.ProteinG), 50), "vitamin_c": pct(float64(n.VitaminCMg), 90),
		"calcium": pct(float64(n.CalciumMg), 1300), "iron": pct(float64(n.IronMg), 18),
		"potassium": pct(float64(n.PotassiumMg), 4700),
	}
}

// nutrition serves api/nutrition/{id}. Under hung_fetch it never answers: it blocks until the request's
// context is done (client gone), then returns without writing.
func (s *recipesInstance) nutrition(w http.ResponseWriter, r *http.Request) {
	if s.env.Mutations.Has("hung_fetch") {
		<-r.Context().Done()
		return
	}
	rc := s.lookup(r)
	if rc == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such recipe"})
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, recipeNutritionJSON{ID: rc.ID, Name: rc.Name, Servings: rc.Servings,
		PerServing: rc.Nutrition, DailyValue: dailyValues(rc.Nutrition)})
}
