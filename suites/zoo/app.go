package zoo

// Adding an app (recipes, chat, planner, stays — ZOO.md) is one Go file plus one asset folder:
//
//  1. Create assets/<name>/ with the app's templates (*.html, Go html/template) and static/ files (CSS, JS,
//     images). Links in pages are relative: render {{.Base}} into <base href="…"> (AppEnv.Base, the tenant
//     prefix "/t/<id>/<name>/") so "recipe/42" and "static/app.css" resolve under the tenant, and use
//     Instance-relative paths in redirects via env.Path("recipe/42").
//  2. Create <name>.go with `//go:embed assets/<name>` into an embed.FS, a type implementing App, and
//     `func init() { RegisterApp(myApp{}) }`. App.New builds one tenant's Instance: its state (guarded by its
//     own mutex — requests of one tenant may run concurrently), and an http.Handler over app-relative paths
//     ("/", "/recipe/42", "/static/app.css"; the server strips the tenant prefix). Serve static files with
//     ServeStatic, parse templates with ParseTemplates.
//  3. List in App.Mutations the mutation names the app implements (mutations.go registers all eight); the
//     server refuses a tenant (and the loader a task) asking for a mutation its app does not list. Inside the
//     handler test env.Mutations.Has("late_hydration") etc. and change the page accordingly. The shared
//     overlays (consent, geo_redirect) need only `{{.Overlays}}` = env.Overlays.HTML(r) rendered just before
//     </body>; the server handles their dismissal endpoints (<base>_zoo/…) itself.
//  4. State returns a JSON object (the judge matches a task's check.state as a subset of it); the server adds a
//     "zoo" member. Make everything deterministic: numbers derived from env.Seq, no random jitter, no clocks
//     in the state.
//  5. Add tasks in tasks/<name>.yaml (schema in tasks.go) and a test that drives the app over HTTP.

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"
)

// App is one Zoo web app: a name, the mutations it implements, and a constructor of per-tenant instances.
// Implementations are stateless values; all state lives in the Instance.
type App interface {
	// Name is the registry name and the path segment: /t/<tenant>/<Name>/….
	Name() string
	// Mutations lists the mutation names (from the registry in mutations.go) the app implements.
	Mutations() []string
	// New builds a fresh instance for one tenant. env is owned by the tenant and stays valid for its life.
	New(env *AppEnv) (Instance, error)
}

// Instance is one tenant's copy of an app. It is an http.Handler over app-relative paths: the server strips
// "/t/<id>/<app>" so r.URL.Path starts with "/" ("/" is the app's home). Must be safe for concurrent use.
type Instance interface {
	http.Handler
	// State returns the instance's state as a JSON object (the judge's input).
	State() []byte
}

// AppEnv is what an instance knows about its tenant.
type AppEnv struct {
	// TenantID is the tenant's unguessable id.
	TenantID string
	// Seq is the tenant's 1-based creation order on its server; derive deterministic numbers (order numbers)
	// from it.
	Seq int
	// Base is the tenant's app prefix, "/t/<id>/<app>/": render it into <base href>, prefix redirects with it.
	Base string
	// Mutations are the mutations switched on for the tenant.
	Mutations MutationSet
	// Overlays renders the shared consent / geo_redirect overlays (empty when off or dismissed).
	Overlays *Overlays
}

// Path is the absolute path of app-relative p under the tenant ("cart" → "/t/<id>/<app>/cart").
func (e *AppEnv) Path(p string) string { return e.Base + strings.TrimPrefix(p, "/") }

var (
	appsMu sync.RWMutex
	apps   = map[string]App{}
)

// RegisterApp adds an app to the registry; apps call it from init. A duplicate name or a mutation name that is
// not registered panics (a programming error).
func RegisterApp(a App) {
	appsMu.Lock()
	defer appsMu.Unlock()
	if _, dup := apps[a.Name()]; dup {
		panic("zoo: duplicate app " + a.Name())
	}
	for _, m := range a.Mutations() {
		if _, ok := mutationByName[m]; !ok {
			panic(fmt.Sprintf("zoo: app %s lists unknown mutation %q", a.Name(), m))
		}
	}
	apps[a.Name()] = a
}

func lookupApp(name string) (App, bool) {
	appsMu.RLock()
	defer appsMu.RUnlock()
	a, ok := apps[name]
	return a, ok
}

// AppNames lists the registered apps, sorted.
func AppNames() []string {
	appsMu.RLock()
	defer appsMu.RUnlock()
	out := make([]string, 0, len(apps))
	for n := range apps {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// AppMutations lists the mutations app implements (nil for an unknown app).
func AppMutations(app string) []string {
	a, ok := lookupApp(app)
	if !ok {
		return nil
	}
	return append([]string(nil), a.Mutations()...)
}

// checkAppMutations validates names against the registry and the app, and returns them deduplicated and
// sorted.
func checkAppMutations(a App, names []string) ([]string, error) {
	if err := ValidateMutations(names); err != nil {
		return nil, err
	}
	has := map[string]bool{}
	for _, m := range a.Mutations() {
		has[m] = true
	}
	seen := map[string]bool{}
	out := []string{}
	for _, n := range names {
		if !has[n] {
			return nil, fmt.Errorf("app %s does not implement mutation %q (it implements: %s)", a.Name(), n,
				strings.Join(a.Mutations(), ", "))
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// ParseTemplates parses every *.html file directly in dir of fsys into one template set with funcs (plus the
// shared helpers "money" and "lower"). Panics on a parse error: templates are embedded, so that is a build bug
// caught by any test.
func ParseTemplates(fsys embed.FS, dir string, funcs template.FuncMap) *template.Template {
	fm := template.FuncMap{
		"money": func(cents int) string { return fmt.Sprintf("$%d.%02d", cents/100, cents%100) },
		"lower": strings.ToLower,
	}
	for k, v := range funcs {
		fm[k] = v
	}
	return template.Must(template.New(dir).Funcs(fm).ParseFS(fsys, dir+"/*.html"))
}

// RenderPage executes template name with data into w as text/html; a template error is a 500.
func RenderPage(w http.ResponseWriter, tpl *template.Template, name string, status int, data any) {
	var buf bytes.Buffer
	if err := tpl.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "template "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// ServeStatic serves file name (slash-separated, relative to dir) of fsys, with a type from its extension.
// Missing files are 404.
func ServeStatic(w http.ResponseWriter, r *http.Request, fsys fs.FS, dir, name string) {
	clean := path.Clean("/" + name)[1:]
	if clean == "" || strings.Contains(name, "..") {
		http.NotFound(w, r)
		return
	}
	b, err := fs.ReadFile(fsys, dir+"/"+clean)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	ct := mime.TypeByExtension(path.Ext(clean))
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(b)
}

// Redirect answers 303 See Other to the tenant-relative path p (so a POST is followed by a GET).
func (e *AppEnv) Redirect(w http.ResponseWriter, r *http.Request, p string) {
	http.Redirect(w, r, e.Path(p), http.StatusSeeOther)
}

// matchesAllWords is the apps' search rule: every query word (lower-case) appears in hay, a trailing plural "s"
// forgiven ("mats" finds "mat").
func matchesAllWords(hay string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(hay, w) && !strings.Contains(hay, strings.TrimSuffix(w, "s")) {
			return false
		}
	}
	return true
}
