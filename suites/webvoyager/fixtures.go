package webvoyager

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"webbench/srcerr"
	"webbench/suites"
)

// Offline fixtures: a small HTTP server on 127.0.0.1 with four sites that reproduce blockers reported on
// WebVoyager sites, and WebVoyager-format tasks over them (fixtures/tasks.jsonl, "{base}" in "web" is the
// server's root), their reference answers (fixtures/reference_answer.json, all golden so the answer judge
// decides them) and solutions for the scripted policy (fixtures/solutions.yaml, by task id).
//
//   - /recipes/  Fixture Recipes: a OneTrust-like consent dialog — div#onetrust-consent-sdk with a full-page
//     div.onetrust-pc-dark-filter and a banner with "Cookie settings", "Reject all", "Accept all" — covers
//     every page until answered (cookie OptanonAlertBoxClosed, path /recipes/).
//   - /store/    Fixture Store: a region-redirect modal ("Stay on this site" / "Go to the EU store") over a
//     full-page backdrop until answered (cookie fx_region); the EU store shows euro prices.
//   - /stays/    Fixture Stays: each room-type radio input is covered by its own icon (a sibling drawn over
//     it, so clicks on the input are intercepted); the label is clickable and selects the room.
//   - /news/     Fixture News: a search overlay (role dialog) that opens from the header and stays open over
//     the results page until "Close search".
//
// State lives only in cookies, so each attempt's fresh browser context starts clean and the server is shared.

//go:embed fixtures/tasks.jsonl fixtures/reference_answer.json fixtures/solutions.yaml fixtures/site/*.html
var fixtureFS embed.FS

const (
	fixtureTasksName     = "tasks.jsonl"
	fixtureAnswersName   = "reference_answer.json"
	fixtureSolutionsName = "solutions.yaml"
)

func mustRead(name string) []byte {
	b, err := fixtureFS.ReadFile("fixtures/" + name)
	if err != nil {
		panic(err)
	}
	return b
}

func fixtureTasksBytes() []byte   { return mustRead(fixtureTasksName) }
func fixtureAnswersBytes() []byte { return mustRead(fixtureAnswersName) }

// FixtureTasksBytes is the content of the shipped fixture task file.
func FixtureTasksBytes() []byte { return fixtureTasksBytes() }

var (
	fixtureFileOnce sync.Once
	fixtureFilePath string
)

// FixtureTasksFile returns the path of a copy of the shipped fixture task file (written once per process under
// the OS temp directory, named by its content hash). Passing it as the task file — `bench suites --suite
// webvoyager --tasks-file <path> --json` — switches fixture mode on, exactly like the option fixtures=builtin;
// so does the file in the source tree, suites/webvoyager/fixtures/tasks.jsonl, or any byte-identical copy. On a
// write error it returns the source-tree path relative to the repository root.
func FixtureTasksFile() string {
	fixtureFileOnce.Do(func() {
		b := fixtureTasksBytes()
		sum := sha256.Sum256(b)
		dir := filepath.Join(os.TempDir(), "webbench-webvoyager-fixtures")
		p := filepath.Join(dir, "tasks-"+hex.EncodeToString(sum[:6])+".jsonl")
		fixtureFilePath = "suites/webvoyager/fixtures/" + fixtureTasksName
		if old, err := os.ReadFile(p); err == nil && string(old) == string(b) {
			fixtureFilePath = p
			return
		}
		if os.MkdirAll(dir, 0o755) != nil {
			return
		}
		tmp := p + fmt.Sprintf(".%d.tmp", os.Getpid())
		if os.WriteFile(tmp, b, 0o644) == nil && os.Rename(tmp, p) == nil {
			fixtureFilePath = p
		}
	})
	return fixtureFilePath
}

// FixtureSolutions decodes the shipped solutions (fixtures/solutions.yaml) by task id.
func FixtureSolutions() (map[string][]suites.Step, error) {
	return DecodeSolutions(mustRead(fixtureSolutionsName), "fixtures/"+fixtureSolutionsName)
}

// DecodeSolutions decodes a YAML map from task id to a list of solution steps, each a one-key map as in the
// Zoo (ZOO.md): `- click: {role: button, name: Reject all}`, `- fill: {role: textbox, name: Email, text: x}`,
// `- select: {role: combobox, name: Shipping, values: [Express]}`, `- press: Enter` (or {key: Enter}),
// `- navigate: /path` (or {url: …}), `- hover: {…}`, `- visual_click: {…}`, `- evaluate: "() => …"` (or
// {function: …}), `- answer: {from: {role: heading, name_regex: '…'}}` or `- answer: literal text` (or
// {literal: …}). Target keys: role, name, name_regex, nth, within (a target). Errors are srcerr's file:line:col.
func DecodeSolutions(b []byte, name string) (map[string][]suites.Step, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, srcerr.FromYAML(name, b, err, nil)
	}
	out := map[string][]suites.Step{}
	if len(doc.Content) == 0 {
		return out, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, srcerr.AtNode(name, root, "", "want a map from task id to steps")
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		id, list := root.Content[i], root.Content[i+1]
		if _, dup := out[id.Value]; dup {
			return nil, srcerr.AtNode(name, id, "", "duplicate task id %q", id.Value)
		}
		if list.Kind != yaml.SequenceNode {
			return nil, srcerr.AtNode(name, list, id.Value, "want a list of steps")
		}
		var steps []suites.Step
		for _, n := range list.Content {
			st, err := DecodeStep(n)
			if err != nil {
				return nil, srcerr.AtNode(name, n, id.Value, "%v", err)
			}
			steps = append(steps, st)
		}
		out[id.Value] = steps
	}
	return out, nil
}

var stepKinds = []string{"navigate", "click", "fill", "select", "press", "hover", "visual_click", "evaluate", "answer"}

// DecodeStep decodes one solution step node (a one-key map; see DecodeSolutions).
func DecodeStep(n *yaml.Node) (suites.Step, error) {
	var st suites.Step
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		return st, errors.New("a step is a one-key map like {click: {role: button, name: OK}}")
	}
	kind, arg := n.Content[0].Value, n.Content[1]
	if err := srcerr.OneOf("step", kind, stepKinds); err != nil {
		return st, err
	}
	st.Kind = kind
	if arg.Kind == yaml.ScalarNode {
		switch kind {
		case "navigate":
			st.URL = arg.Value
		case "press":
			st.Key = arg.Value
		case "evaluate":
			st.Function = arg.Value
		case "answer":
			st.Literal = arg.Value
		default:
			return st, fmt.Errorf("%s needs a map with a target (role, name …)", kind)
		}
		return st, nil
	}
	if arg.Kind != yaml.MappingNode {
		return st, fmt.Errorf("%s: want a map or a scalar", kind)
	}
	var t suites.Target
	hasTarget := false
	for i := 0; i+1 < len(arg.Content); i += 2 {
		k, v := arg.Content[i].Value, arg.Content[i+1]
		var err error
		switch k {
		case "role", "name", "name_regex", "nth", "within":
			err = setTargetField(&t, k, v)
			hasTarget = true
		case "text":
			err = v.Decode(&st.Text)
		case "url":
			err = v.Decode(&st.URL)
		case "key":
			err = v.Decode(&st.Key)
		case "values":
			err = v.Decode(&st.Values)
		case "function":
			err = v.Decode(&st.Function)
		case "literal":
			err = v.Decode(&st.Literal)
		case "from":
			var from suites.Target
			if err = decodeTarget(v, &from); err == nil {
				st.Target = &from
			}
		default:
			err = fmt.Errorf("unknown key %q", k)
		}
		if err != nil {
			return st, fmt.Errorf("%s: line %d: %v", kind, arg.Content[i].Line, err)
		}
	}
	if hasTarget {
		if st.Target != nil {
			return st, fmt.Errorf("%s: give either from or role/name, not both", kind)
		}
		st.Target = &t
	}
	switch kind {
	case "click", "fill", "select", "hover", "visual_click":
		if st.Target == nil || (st.Target.Role == "" && st.Target.Name == "" && st.Target.NameRegex == "") {
			return st, fmt.Errorf("%s needs a target (role, name or name_regex)", kind)
		}
	case "navigate":
		if st.URL == "" {
			return st, errors.New("navigate needs a url")
		}
	case "press":
		if st.Key == "" {
			return st, errors.New("press needs a key")
		}
	case "answer":
		if st.Target == nil && st.Literal == "" {
			return st, errors.New("answer needs from: {target} or a literal")
		}
	}
	return st, nil
}

func decodeTarget(n *yaml.Node, t *suites.Target) error {
	if n.Kind != yaml.MappingNode {
		return errors.New("a target is a map (role, name, name_regex, nth, within)")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if err := setTargetField(t, n.Content[i].Value, n.Content[i+1]); err != nil {
			return err
		}
	}
	return nil
}

func setTargetField(t *suites.Target, k string, v *yaml.Node) error {
	switch k {
	case "role":
		return v.Decode(&t.Role)
	case "name":
		return v.Decode(&t.Name)
	case "name_regex":
		return v.Decode(&t.NameRegex)
	case "nth":
		return v.Decode(&t.Nth)
	case "within":
		var w suites.Target
		if err := decodeTarget(v, &w); err != nil {
			return fmt.Errorf("within: %v", err)
		}
		t.Within = &w
		return nil
	}
	return fmt.Errorf("unknown target key %q", k)
}

// FixtureServer serves the fixture sites on 127.0.0.1.
type FixtureServer struct {
	srv  *http.Server
	ln   net.Listener
	once sync.Once
	err  error
}

// StartFixtureServer listens on 127.0.0.1 (a free port) and serves the fixture sites until Close.
func StartFixtureServer() (*FixtureServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("webvoyager fixtures: %w", err)
	}
	fs := &FixtureServer{ln: ln, srv: &http.Server{Handler: FixtureHandler(), ReadHeaderTimeout: 10 * time.Second}}
	go func() { _ = fs.srv.Serve(ln) }()
	return fs, nil
}

// URL is the server root, "http://127.0.0.1:PORT" (no trailing slash), what "{base}" becomes.
func (f *FixtureServer) URL() string { return "http://" + f.ln.Addr().String() }

// Close stops the server. Safe to call twice.
func (f *FixtureServer) Close() error {
	f.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		f.err = f.srv.Shutdown(ctx)
	})
	return f.err
}

type fxRecipe struct {
	Slug, Name, Prep string
	Rating           float64
	Reviews          int
	Servings         int
	Ingredients      []string
}

type fxProduct struct{ Slug, Name, Blurb, USD, EUR string }

type fxRoom struct {
	Slug, Name string
	Price      int
}

type fxHotel struct {
	Slug, Name, City, Blurb string
	Rooms                   []fxRoom
}

type fxArticle struct{ Slug, Title, Author, Date, Summary, Body string }

var (
	fxRecipes = []fxRecipe{
		{"vegetarian-four-cheese-lasagna", "Vegetarian Four Cheese Lasagna", "30 mins", 4.6, 181, 8,
			[]string{"12 lasagna noodles", "2 cups ricotta", "2 cups mozzarella", "1 cup parmesan", "1 cup fontina", "3 cups marinara"}},
		{"classic-banana-bread", "Classic Banana Bread", "15 mins", 4.7, 12034, 10,
			[]string{"3 ripe bananas", "1/3 cup melted butter", "3/4 cup sugar", "1 egg", "1 1/2 cups flour", "1 tsp baking soda"}},
		{"spinach-lasagna", "Spinach Lasagna", "20 mins", 4.7, 501, 6,
			[]string{"9 lasagna noodles", "10 oz spinach", "2 cups ricotta", "2 cups mozzarella", "3 cups tomato sauce"}},
		{"chocolate-banana-bread", "Chocolate Banana Bread", "20 mins", 4.4, 210, 8,
			[]string{"3 bananas", "1/2 cup cocoa", "1/2 cup butter", "2 eggs", "1 1/2 cups flour"}},
		{"easy-vegetable-lasagna", "Easy Vegetable Lasagna", "25 mins", 4.3, 96, 8,
			[]string{"lasagna noodles", "zucchini", "bell pepper", "ricotta", "mozzarella", "marinara"}},
		{"banana-oat-muffins", "Banana Oat Muffins", "10 mins", 4.5, 640, 12,
			[]string{"2 bananas", "1 1/2 cups oats", "1 cup flour", "1/2 cup honey", "1 egg"}},
	}
	fxProducts = []fxProduct{
		{"trail-running-shoe-x2", "Trail Running Shoe X2", "Grippy, light trail shoe with a rock plate.", "$89.99", "€84.95"},
		{"merino-wool-beanie", "Merino Wool Beanie", "Soft, warm, itch-free merino.", "$28.00", "€26.50"},
		{"packable-rain-jacket", "Packable Rain Jacket", "Packs into its own pocket.", "$119.00", "€112.00"},
	}
	fxHotels = []fxHotel{
		{"harbor-view", "Harbor View Hotel", "Portside", "Rooms over the old harbour, 5 min from the ferry.",
			[]fxRoom{{"standard", "Standard", 180}, {"deluxe", "Deluxe", 245}, {"suite", "Suite", 410}}},
		{"old-town-inn", "Old Town Inn", "Portside", "A quiet inn in the old town.",
			[]fxRoom{{"single", "Single", 95}, {"double", "Double", 130}}},
	}
	fxArticles = []fxArticle{
		{"grid-scale-solar-storage-milestone", "Grid-scale solar storage passes a milestone", "Priya Raman", "March 3, 2024",
			"Batteries paired with solar farms delivered more evening power than gas peakers for the first time.",
			"Operators say solar storage covered the evening peak on twelve days last month."},
		{"home-batteries-solar-storage-costs", "Home batteries: what solar storage really costs", "Tomás Ortega", "February 21, 2024",
			"A look at the price of adding solar storage to a house, incentives included.",
			"Installers quote between eight and fourteen thousand dollars for a typical system."},
		{"offshore-wind-auction-record-bids", "Offshore wind auction draws record bids", "Hannah Lee", "February 12, 2024",
			"Six consortia bid for three lease areas.", "The auction closed after four rounds."},
	}
	fxTemplates = template.Must(template.New("fx").ParseFS(fixtureFS, "fixtures/site/*.html"))
)

type fxPage struct {
	Title       string
	Query       string
	Consent     bool
	Recipes     []fxRecipe
	Recipe      *fxRecipe
	Region      string
	AskRegion   bool
	Products    []fxProduct
	Product     *fxProduct
	Price       string
	Hotels      []fxHotel
	Hotel       *fxHotel
	OverlayOpen bool
	Articles    []fxArticle
	Article     *fxArticle
}

func matchAll(q string, texts ...string) bool {
	words := strings.Fields(strings.ToLower(q))
	if len(words) == 0 {
		return false
	}
	all := strings.ToLower(strings.Join(texts, " "))
	for _, w := range words {
		if !strings.Contains(all, w) {
			return false
		}
	}
	return true
}

// FixtureHandler is the fixture sites' handler (what StartFixtureServer serves).
func FixtureHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fxRender(w, "index", &fxPage{Title: "WebVoyager fixtures"})
	})
	fxRecipesRoutes(mux)
	fxStoreRoutes(mux)
	fxStaysNewsRoutes(mux)
	// HEAD for the reachability probe comes for free: ServeMux routes HEAD to GET patterns.
	return mux
}

// fxRender executes the fixture template name with p as an uncached HTML page.
func fxRender(w http.ResponseWriter, name string, p *fxPage) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := fxTemplates.ExecuteTemplate(w, name, p); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// fxCookie is the value of the request's cookie name, "" when absent.
func fxCookie(r *http.Request, name string) string {
	c, err := r.Cookie(name)
	if err != nil {
		return ""
	}
	return c.Value
}

// fxRecipesRoutes serves /recipes/ (the Allrecipes-like site behind a OneTrust-style consent dialog).
func fxRecipesRoutes(mux *http.ServeMux) {
	recipePage := func(r *http.Request, title string) *fxPage {
		return &fxPage{Title: title, Consent: fxCookie(r, "OptanonAlertBoxClosed") == ""}
	}
	mux.HandleFunc("GET /recipes/{$}", func(w http.ResponseWriter, r *http.Request) {
		p := recipePage(r, "Fixture Recipes")
		p.Recipes = fxRecipes
		fxRender(w, "recipes_home", p)
	})
	mux.HandleFunc("GET /recipes/search", func(w http.ResponseWriter, r *http.Request) {
		p := recipePage(r, "Search results - Fixture Recipes")
		p.Query = strings.TrimSpace(r.URL.Query().Get("q"))
		for _, x := range fxRecipes {
			if matchAll(p.Query, x.Name) {
				p.Recipes = append(p.Recipes, x)
			}
		}
		sort.SliceStable(p.Recipes, func(i, j int) bool { return p.Recipes[i].Reviews > p.Recipes[j].Reviews })
		fxRender(w, "recipes_search", p)
	})
	mux.HandleFunc("GET /recipes/recipe/{slug}", func(w http.ResponseWriter, r *http.Request) {
		for i := range fxRecipes {
			if fxRecipes[i].Slug == r.PathValue("slug") {
				p := recipePage(r, fxRecipes[i].Name+" - Fixture Recipes")
				p.Recipe = &fxRecipes[i]
				fxRender(w, "recipes_recipe", p)
				return
			}
		}
		http.NotFound(w, r)
	})
}

// fxStoreRoutes serves /store/ (the Amazon-like store with a region modal and prices per region).
func fxStoreRoutes(mux *http.ServeMux) {
	storePage := func(r *http.Request, title string) *fxPage {
		reg := fxCookie(r, "fx_region")
		p := &fxPage{Title: title, Region: "us", AskRegion: reg == ""}
		if reg == "eu" {
			p.Region = "eu"
		}
		return p
	}
	mux.HandleFunc("GET /store/{$}", func(w http.ResponseWriter, r *http.Request) {
		p := storePage(r, "Fixture Store")
		p.Products = fxProducts
		fxRender(w, "store_home", p)
	})
	mux.HandleFunc("GET /store/product/{slug}", func(w http.ResponseWriter, r *http.Request) {
		for i := range fxProducts {
			if fxProducts[i].Slug == r.PathValue("slug") {
				p := storePage(r, fxProducts[i].Name+" - Fixture Store")
				p.Product = &fxProducts[i]
				p.Price = p.Product.USD
				if p.Region == "eu" {
					p.Price = p.Product.EUR
				}
				fxRender(w, "store_product", p)
				return
			}
		}
		http.NotFound(w, r)
	})
}

// fxStaysNewsRoutes serves /stays/ and /news/ (the search overlay).
func fxStaysNewsRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /stays/{$}", func(w http.ResponseWriter, r *http.Request) {
		fxRender(w, "stays_home", &fxPage{Title: "Fixture Stays", Hotels: fxHotels})
	})
	mux.HandleFunc("GET /stays/hotel/{slug}", func(w http.ResponseWriter, r *http.Request) {
		for i := range fxHotels {
			if fxHotels[i].Slug == r.PathValue("slug") {
				fxRender(w, "stays_hotel", &fxPage{Title: fxHotels[i].Name + " - Fixture Stays", Hotel: &fxHotels[i]})
				return
			}
		}
		http.NotFound(w, r)
	})

	mux.HandleFunc("GET /news/{$}", func(w http.ResponseWriter, r *http.Request) {
		fxRender(w, "news_home", &fxPage{Title: "Fixture News", Articles: fxArticles})
	})
	mux.HandleFunc("GET /news/search", func(w http.ResponseWriter, r *http.Request) {
		p := &fxPage{Title: "Search - Fixture News", Query: strings.TrimSpace(r.URL.Query().Get("q")), OverlayOpen: true}
		for _, a := range fxArticles {
			if matchAll(p.Query, a.Title, a.Summary) {
				p.Articles = append(p.Articles, a)
			}
		}
		fxRender(w, "news_search", p)
	})
	mux.HandleFunc("GET /news/article/{slug}", func(w http.ResponseWriter, r *http.Request) {
		for i := range fxArticles {
			if fxArticles[i].Slug == r.PathValue("slug") {
				fxRender(w, "news_article", &fxPage{Title: fxArticles[i].Title + " - Fixture News", Article: &fxArticles[i]})
				return
			}
		}
		http.NotFound(w, r)
	})
}
