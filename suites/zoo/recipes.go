package zoo

import (
	"embed"
	"encoding/json"
	"html/template"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The `recipes` app: an Allrecipes-like recipe site ("Spoonful"). Read-only but for the nutrition log: the
// log is the only write; the state also records the searches made and the recipe pages viewed. Pages
// (app-relative paths; every page's header links "My nutrition log"):
//
//	/                               home: search box, category links, trending recipes
//	/search?q=…&sort=…              results: name link, "4.7 stars", "12,460 reviews", servings, total time
//	/recipe/{id}/{slug}             recipe page: details table (times, servings, yield), ingredients with a
//	                                ½x/1x/2x scaler, directions, cook's notes, a server-rendered "Nutrition Facts
//	                                (per serving)" table, and a "full nutrition label" panel that the page's script
//	                                loads from api/nutrition/{id}
//	/recipe/{id}                    redirects to the canonical path
//	/api/nutrition/{id}             JSON nutrition facts of one recipe (see recipeNutritionJSON)
//	/log                            "My nutrition log": a form (Recipe select of every catalogue recipe by
//	                                name, Nutrient select of the per-serving table's rows, Amount number
//	                                input, "Add to log") above a table of the entries, each row named
//	                                "<recipe> — <nutrient>: <amount><unit>" ("Best Ever Banana Bread —
//	                                Calories: 229"); POST /log appends an entry and redirects (303) to /log;
//	                                an unknown recipe or nutrient or an amount that is not a number ≥ 0 is a
//	                                400 page saying so, nothing appended
//
// Mutations:
//   - consent: the shared OneTrust-like overlay.
//   - hung_fetch: api/nutrition/{id} never answers — the handler blocks until the request's context is done
//     (the browser aborts it, e.g. on navigation or when the tab closes). The full-label panel keeps saying
//     "Loading…"; the per-serving table in the page's HTML still has every number.
//   - busy_script: the recipe page's global window.computeScaledServings(servings) blocks synchronously for
//     recipesBusyMS before it computes (a loop of synchronous requests to api/busy-tick, BusyTick each); the
//     page itself never calls it (the ½x/1x/2x buttons use their own code path).
//   - ref_churn: the search results' card list re-renders at the first mouse press after every user action and
//     after the load (the shop's mechanism, static/churn.js): fresh nodes, and the cards' review counts
//     alternate "12,460 reviews" ↔ "12,460 ratings". Recipe links keep their names.

//go:embed assets/recipes
var recipesFS embed.FS

// recipesBusyMS is how long window.computeScaledServings blocks under busy_script (ZOO.md: 30 s).
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

// Mutations implements App: consent, hung_fetch, busy_script and ref_churn.
func (recipesApp) Mutations() []string {
	return []string{"busy_script", "consent", "hung_fetch", "ref_churn"}
}

// New implements App.
func (recipesApp) New(env *AppEnv) (Instance, error) {
	s := &recipesInstance{env: env, Searches: []string{}, Viewed: []int{}, Log: []recipeLogEntry{}}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /{$}", s.home)
	s.mux.HandleFunc("GET /search", s.search)
	s.mux.HandleFunc("GET /recipe/{id}", s.recipeRedirect)
	s.mux.HandleFunc("GET /recipe/{id}/{slug}", s.recipe)
	s.mux.HandleFunc("GET /api/nutrition/{id}", s.nutrition)
	s.mux.HandleFunc("GET /api/busy-tick", serveBusyTick)
	s.mux.HandleFunc("GET /log", s.logPage)
	s.mux.HandleFunc("POST /log", s.logAdd)
	// The ref_churn mechanism is the shop's script, served from the shop's assets (one copy).
	s.mux.HandleFunc("GET /static/churn.js", func(w http.ResponseWriter, r *http.Request) {
		ServeStatic(w, r, shopFS, "assets/shop/static", "shop.js")
	})
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
	Log      []recipeLogEntry
}

// recipeLogEntry is one entry of "My nutrition log": a recipe id, a nutrient key (recipeNutrients) and the
// amount the user entered, exactly as entered (a number ≥ 0; not checked against the recipe's facts).
type recipeLogEntry struct {
	Recipe   int     `json:"recipe"`
	Nutrient string  `json:"nutrient"`
	Amount   float64 `json:"amount"`
}

func (s *recipesInstance) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// State implements Instance: {"searches": ["banana bread", …], "viewed": [20144, …], "log": [{"recipe": 20144,
// "nutrient": "calories", "amount": 229}, …]} — the queries searched (trimmed, in order), the ids of the recipe
// pages opened (in order, repeats kept) and the nutrition log's entries (in order; [] when none): the recipe's
// id, the nutrient's key (recipeNutrients) and the amount as the user entered it.
func (s *recipesInstance) State() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"searches": s.Searches, "viewed": s.Viewed, "log": s.Log})
	return b
}

// recipesPage is the data every recipes template gets.
type recipesPage struct {
	Base     string
	Title    string
	Overlays template.HTML
	Query    string
	Cats     []struct{ Slug, Name string }
	Churn    bool // ref_churn on (the results page)
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
	p.Churn = s.env.Mutations.Has("ref_churn")
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

// recipeNutrient is one nutrient of the per-serving table: its key (the log's and the API's daily-value key),
// its label, its unit ("" for calories), whether it is a sub-row, and its amount in a recipe's facts.
type recipeNutrient struct {
	Key, Label, Unit string
	Sub              bool
	Of               func(recipeNutrition) int
}

// Option is the nutrient's name in the log's Nutrient select: "Protein (g)", "Sodium (mg)", "Calories".
func (n recipeNutrient) Option() string {
	if n.Unit == "" {
		return n.Label
	}
	return n.Label + " (" + n.Unit + ")"
}

// recipeNutrients are the per-serving table's rows, in order.
var recipeNutrients = []recipeNutrient{
	{"calories", "Calories", "", false, func(n recipeNutrition) int { return n.Calories }},
	{"total_fat", "Total Fat", "g", false, func(n recipeNutrition) int { return n.FatG }},
	{"saturated_fat", "Saturated Fat", "g", true, func(n recipeNutrition) int { return n.SatFatG }},
	{"cholesterol", "Cholesterol", "mg", false, func(n recipeNutrition) int { return n.CholMg }},
	{"sodium", "Sodium", "mg", false, func(n recipeNutrition) int { return n.SodiumMg }},
	{"total_carbohydrate", "Total Carbohydrate", "g", false, func(n recipeNutrition) int { return n.CarbsG }},
	{"dietary_fiber", "Dietary Fiber", "g", true, func(n recipeNutrition) int { return n.FiberG }},
	{"total_sugars", "Total Sugars", "g", true, func(n recipeNutrition) int { return n.SugarG }},
	{"protein", "Protein", "g", false, func(n recipeNutrition) int { return n.ProteinG }},
}

func recipeNutrientByKey(key string) *recipeNutrient {
	for i := range recipeNutrients {
		if recipeNutrients[i].Key == key {
			return &recipeNutrients[i]
		}
	}
	return nil
}

func nutrientRows(n recipeNutrition) []recipeNutrientRow {
	rows := make([]recipeNutrientRow, 0, len(recipeNutrients))
	for _, nu := range recipeNutrients {
		rows = append(rows, recipeNutrientRow{nu.Label, strconv.Itoa(nu.Of(n)) + nu.Unit, nu.Sub})
	}
	return rows
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

// recipeLogView is the log page's data: the form's choices (recipes by name, nutrients), the entries, and —
// on a refused entry (400) — the errors and the values submitted.
type recipeLogView struct {
	Recipes   []*recipe
	Nutrients []recipeNutrient
	Entries   []recipeLogRow
	Errors    []string
	Recipe    string // submitted recipe id (selected again on a 400)
	Nutrient  string // submitted nutrient key
	Amount    string // submitted amount, as typed
}

// recipeLogRow is one entry as the log's table shows it.
type recipeLogRow struct {
	Recipe, Nutrient, Amount string
}

// recipesByName is the catalogue sorted by name (the log's Recipe select).
var recipesByName = func() []*recipe {
	out := make([]*recipe, 0, len(recipeCatalog))
	for i := range recipeCatalog {
		out = append(out, &recipeCatalog[i])
	}
	slices.SortFunc(out, func(a, b *recipe) int { return strings.Compare(a.Name, b.Name) })
	return out
}()

func (s *recipesInstance) logView() *recipeLogView {
	v := &recipeLogView{Recipes: recipesByName, Nutrients: recipeNutrients}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.Log {
		rc, nu := recipeByID(e.Recipe), recipeNutrientByKey(e.Nutrient)
		v.Entries = append(v.Entries, recipeLogRow{rc.Name, nu.Label,
			strconv.FormatFloat(e.Amount, 'f', -1, 64) + nu.Unit})
	}
	return v
}

func (s *recipesInstance) logPage(w http.ResponseWriter, r *http.Request) {
	p := s.newPage(r, "My nutrition log")
	p.Data = s.logView()
	s.render(w, "log.html", http.StatusOK, p)
}

// logAdd appends the posted entry and redirects to the log; a refused entry is a 400 page naming every
// problem, with nothing appended.
func (s *recipesInstance) logAdd(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	recipeVal := strings.TrimSpace(r.PostForm.Get("recipe"))
	nutrientVal := strings.TrimSpace(r.PostForm.Get("nutrient"))
	amountVal := strings.TrimSpace(r.PostForm.Get("amount"))
	var errs []string
	var e recipeLogEntry
	if id, err := strconv.Atoi(recipeVal); err != nil || recipeByID(id) == nil {
		if recipeVal == "" {
			errs = append(errs, "Choose a recipe.")
		} else {
			errs = append(errs, "There is no recipe “"+recipeVal+"”: choose one from the list.")
		}
	} else {
		e.Recipe = id
	}
	if recipeNutrientByKey(nutrientVal) == nil {
		if nutrientVal == "" {
			errs = append(errs, "Choose a nutrient.")
		} else {
			errs = append(errs, "There is no nutrient “"+nutrientVal+"”: choose one from the list.")
		}
	} else {
		e.Nutrient = nutrientVal
	}
	if x, err := strconv.ParseFloat(amountVal, 64); err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		if amountVal == "" {
			errs = append(errs, "Enter an amount.")
		} else {
			errs = append(errs, "The amount must be a number, like 229 or 12.5 (got “"+amountVal+"”).")
		}
	} else if x < 0 {
		errs = append(errs, "The amount cannot be negative (got “"+amountVal+"”).")
	} else {
		e.Amount = x
	}
	if len(errs) > 0 {
		v := s.logView()
		v.Errors, v.Recipe, v.Nutrient, v.Amount = errs, recipeVal, nutrientVal, amountVal
		p := s.newPage(r, "My nutrition log")
		p.Data = v
		s.render(w, "log.html", http.StatusBadRequest, p)
		return
	}
	s.mu.Lock()
	s.Log = append(s.Log, e)
	s.mu.Unlock()
	s.env.Redirect(w, r, "log")
}
