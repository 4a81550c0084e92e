package zoo

import (
	"bytes"
	"embed"
	"encoding/json"
	"html/template"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The `code` app: a GitHub-like code host ("Gitlane") with the Northwind organisation's repositories
// (code_catalog.go), browsed as the signed-in member alex-rivera. Pages (app-relative paths):
//
//	/                                         the organisation: its repositories, each with a Star button
//	/settings/notifications                   the viewer's account notification switches, "Save"
//	/northwind/{repo}                         Code tab: file tree, "N Commits", README, About, Releases, Languages,
//	                                          Contributors (loaded by the page's script from the API below)
//	/northwind/{repo}/tree/main/{dir}         a directory; /blob/main/{path} a file; /commits/main recent commits
//	/northwind/{repo}/issues                  Issues tab: open issues with labels and assignee; "New issue"
//	/northwind/{repo}/issues/new              form: Title, Description, Assignee, Labels; "Submit new issue"
//	/northwind/{repo}/issues/{n}              an issue: body, Assignees, Labels with "Edit labels" / "Apply labels"
//	/northwind/{repo}/pulls                   Pull requests tab; /releases Releases tab (newest first, "Latest")
//	/northwind/{repo}/settings                Settings → General: the Features switches, "Save changes";
//	/northwind/{repo}/settings/notifications  Settings → Notifications: the repository's switches, "Save"
//	POST …/star, …/subscription               toggle the star / the watch, back to the page they came from
//	/api/repos/northwind/{repo}/contributors  JSON: the repository's contributors
//
// Client-side navigation, as GitHub's Turbo: a link with data-pjax (the repository tabs, files, issues, the
// settings menu) is followed by static/code.js with fetch (header X-PJAX) and history.pushState; the server
// answers such a request with the tab's content alone (headers X-Page-Title and X-Tab) and the script swaps
// #repo-content. Forms post normally and are answered 303 to the page that shows the result.
//
// State (tenantState): the issues the viewer created, the label sets the viewer applied to seeded issues, the
// starred and watched repositories, and every settings switch's saved value. Mutations:
//   - consent: the shared OneTrust-like overlay.
//   - late_hydration: every full page load ships the app's markup inside a <template> and shows only the
//     loading mark (`img "Gitlane"`) until static/code.js mounts it lateHydration's delay after the load
//     event (hydration.go: hydrationDelay); client-side navigation renders at once.
//   - ref_churn: the organisation's repository list and the issue list re-render at the first mouse press after
//     every user action and after the load (the shop's static/churn.js): fresh nodes, secondary names alternate.
//   - hung_fetch: the contributors API never answers (the handler blocks until the request's context is done);
//     the Contributors box keeps saying "Loading…", everything else is in the page's HTML.
//   - busy_script: the Code tab's global window.computeLanguageBreakdown() blocks synchronously for codeBusyMS
//     (synchronous requests to api/busy-tick, BusyTick each); the page never calls it.
//   - nameless_switch: the settings switches are <button role="switch"> with no accessible name (their visible
//     caption is not associated with them), as GitHub's toggles were before they got labels.

//go:embed assets/code
var codeFS embed.FS

const (
	// codeBusyMS is how long window.computeLanguageBreakdown blocks under busy_script (ZOO.md: 30 s).
	codeBusyMS = 30000
)

var codeTpl = ParseTemplates(codeFS, "assets/code", template.FuncMap{
	"date":  codeDate,
	"pct":   codePct,
	"comma": commaInt,
	"label": codeLabelByName,
	"slug":  staysSlug,
	"has":   func(list []string, x string) bool { return slices.Contains(list, x) },
	"person": func(login string) codePerson {
		if p := codePersonByLogin(login); p != nil {
			return *p
		}
		return codePerson{Login: login, Name: login}
	},
})

type codeApp struct{}

func init() { RegisterApp(codeApp{}) }

// Name implements App.
func (codeApp) Name() string { return "code" }

// Mutations implements App.
func (codeApp) Mutations() []string {
	return []string{"busy_script", "consent", "hung_fetch", "late_hydration", "nameless_switch", "ref_churn"}
}

// codeCreated is an issue the viewer created: the state's record of it.
type codeCreated struct {
	Repo     string   `json:"repo"`
	Number   int      `json:"number"`
	Title    string   `json:"title"`
	Body     string   `json:"body"`
	Labels   []string `json:"labels"`
	Assignee string   `json:"assignee"`
}

// codeLabelEdit is the label set the viewer last applied to a seeded issue.
type codeLabelEdit struct {
	Repo   string   `json:"repo"`
	Number int      `json:"number"`
	Labels []string `json:"labels"`
}

// New implements App.
func (codeApp) New(env *AppEnv) (Instance, error) {
	s := &codeInstance{env: env, Created: []codeCreated{}, Edits: []codeLabelEdit{}, Stars: []string{},
		Watching: []string{}, Notify: map[string]map[string]bool{}, Features: map[string]map[string]bool{},
		Account: map[string]bool{}}
	for i := range codeRepos {
		s.Notify[codeRepos[i].Full()] = codeDefaults(codeNotifySwitches, i)
		s.Features[codeRepos[i].Full()] = codeDefaults(codeFeatureSwitches, i)
	}
	s.Account = codeDefaults(codeAccountSwitches, -1)
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", s.org)
	m.HandleFunc("GET /settings/notifications", s.account)
	m.HandleFunc("POST /settings/notifications", s.saveAccount)
	m.HandleFunc("GET /northwind/{repo}", s.repoPage(s.code))
	m.HandleFunc("GET /northwind/{repo}/tree/main/{path...}", s.repoPage(s.tree))
	m.HandleFunc("GET /northwind/{repo}/blob/main/{path...}", s.repoPage(s.blob))
	m.HandleFunc("GET /northwind/{repo}/commits/main", s.repoPage(s.commits))
	m.HandleFunc("GET /northwind/{repo}/issues", s.repoPage(s.issues))
	m.HandleFunc("GET /northwind/{repo}/issues/new", s.repoPage(s.newIssue))
	m.HandleFunc("POST /northwind/{repo}/issues", s.repoPage(s.createIssue))
	m.HandleFunc("GET /northwind/{repo}/issues/{n}", s.repoPage(s.issue))
	m.HandleFunc("POST /northwind/{repo}/issues/{n}/labels", s.repoPage(s.editLabels))
	m.HandleFunc("GET /northwind/{repo}/pulls", s.repoPage(s.pulls))
	m.HandleFunc("GET /northwind/{repo}/releases", s.repoPage(s.releases))
	m.HandleFunc("GET /northwind/{repo}/settings", s.repoPage(s.settings))
	m.HandleFunc("POST /northwind/{repo}/settings/features", s.repoPage(s.saveFeatures))
	m.HandleFunc("GET /northwind/{repo}/settings/notifications", s.repoPage(s.notifications))
	m.HandleFunc("POST /northwind/{repo}/settings/notifications", s.repoPage(s.saveNotifications))
	m.HandleFunc("POST /northwind/{repo}/star", s.repoPage(s.star))
	m.HandleFunc("POST /northwind/{repo}/subscription", s.repoPage(s.watch))
	m.HandleFunc("GET /api/repos/northwind/{repo}/contributors", s.contributors)
	m.HandleFunc("GET /api/busy-tick", serveBusyTick)
	// The ref_churn mechanism is the shop's script, served from the shop's assets (one copy).
	m.HandleFunc("GET /static/churn.js", func(w http.ResponseWriter, r *http.Request) {
		ServeStatic(w, r, shopFS, "assets/shop/static", "shop.js")
	})
	m.HandleFunc("GET /static/{file...}", func(w http.ResponseWriter, r *http.Request) {
		ServeStatic(w, r, codeFS, "assets/code/static", r.PathValue("file"))
	})
	m.HandleFunc("/", s.notFound)
	s.mux = m
	return s, nil
}

func codeDefaults(sws []codeSwitch, ri int) map[string]bool {
	out := map[string]bool{}
	for k, sw := range sws {
		out[sw.Key] = codeDefault(ri, k)
	}
	return out
}

type codeInstance struct {
	env *AppEnv
	mux *http.ServeMux

	mu       sync.Mutex
	Created  []codeCreated
	Edits    []codeLabelEdit
	Stars    []string
	Watching []string
	Notify   map[string]map[string]bool
	Features map[string]map[string]bool
	Account  map[string]bool
}

func (s *codeInstance) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// State implements Instance: {"issues": [{repo, number, title, body, labels, assignee}] (created, in order),
// "issue_labels": [{repo, number, labels}] (one per seeded issue whose labels were applied, the last set),
// "stars": [full name], "watching": [full name] (sorted), "notifications": {full name: {switch key: bool}},
// "features": {full name: {switch key: bool}}, "account": {switch key: bool}} — the switches' saved values,
// their defaults until saved. Repositories are named "northwind/<repo>"; labels sorted, assignee a login or "".
func (s *codeInstance) State() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"issues": s.Created, "issue_labels": s.Edits, "stars": s.Stars,
		"watching": s.Watching, "notifications": s.Notify, "features": s.Features, "account": s.Account})
	return b
}

// codePage is the data every page template gets.
type codePage struct {
	Base, Title    string
	Overlays       template.HTML
	Hydrate        bool // late_hydration: the markup ships in a <template>
	Hydration      hydrationDelay
	Churn, Busy    bool
	BusyMS         int
	Nameless       bool
	Viewer         codePerson
	Repo           *codeRepo
	Tab            string // code, issues, pulls, releases, settings
	Starred, Watch bool
	Flash          string
	Content        template.HTML // a repository page's tab content
	Data           any
}

func (s *codeInstance) newPage(r *http.Request, title string) *codePage {
	p := &codePage{Base: s.env.Base, Title: title, Overlays: s.env.Overlays.HTML(r), Viewer: codeViewer,
		Churn: s.env.Mutations.Has("ref_churn"), Nameless: s.env.Mutations.Has("nameless_switch")}
	if s.env.Mutations.Has("late_hydration") {
		p.Hydrate, p.Hydration = true, lateHydration
	}
	if s.env.Mutations.Has("busy_script") {
		p.Busy, p.BusyMS = true, codeBusyMS
	}
	return p
}

func (s *codeInstance) notFound(w http.ResponseWriter, r *http.Request) {
	RenderPage(w, codeTpl, "notfound.html", http.StatusNotFound, s.newPage(r, "Page not found"))
}

// codeView is what a repository page handler returns: the tab's content template and data, the tab, the title;
// or a redirect (Location set), or a status other than 200 for a refusal.
type codeView struct {
	Content, Tab, Title string
	Status              int
	Location            string
	Data                any
}

// repoPage adapts a repository handler: it resolves the repository (404 when unknown) and renders the view
// as a whole page, or — for a client-side navigation (header X-PJAX) — as the tab's content alone.
func (s *codeInstance) repoPage(h func(*http.Request, *codeRepo) codeView) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		repo, _ := codeRepoByName(r.PathValue("repo"))
		if repo == nil {
			s.notFound(w, r)
			return
		}
		v := h(r, repo)
		if v.Location != "" {
			s.env.Redirect(w, r, v.Location)
			return
		}
		if v.Content == "" {
			s.notFound(w, r)
			return
		}
		p := s.newPage(r, v.Title+" · "+repo.Full())
		p.Repo, p.Tab, p.Data, p.Flash = repo, v.Tab, v.Data, r.URL.Query().Get("notice")
		s.mu.Lock()
		p.Starred, p.Watch = slices.Contains(s.Stars, repo.Full()), slices.Contains(s.Watching, repo.Full())
		s.mu.Unlock()
		var buf bytes.Buffer
		if err := codeTpl.ExecuteTemplate(&buf, v.Content, p); err != nil {
			http.Error(w, "template "+v.Content+": "+err.Error(), http.StatusInternalServerError)
			return
		}
		status := v.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.Header().Set("Vary", "X-PJAX")
		if r.Header.Get("X-PJAX") != "" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("X-Page-Title", p.Title+" · Gitlane")
			w.Header().Set("X-Tab", v.Tab)
			w.WriteHeader(status)
			w.Write(buf.Bytes())
			return
		}
		p.Content = template.HTML(buf.String()) // our own template's output, escaped there
		RenderPage(w, codeTpl, "repo.html", status, p)
	}
}

func (s *codeInstance) org(w http.ResponseWriter, r *http.Request) {
	p := s.newPage(r, "Northwind")
	s.mu.Lock()
	stars := slices.Clone(s.Stars)
	s.mu.Unlock()
	type row struct {
		R       *codeRepo
		Starred bool
	}
	var rows []row
	for i := range codeRepos {
		rows = append(rows, row{&codeRepos[i], slices.Contains(stars, codeRepos[i].Full())})
	}
	p.Data, p.Flash = rows, r.URL.Query().Get("notice")
	RenderPage(w, codeTpl, "org.html", http.StatusOK, p)
}

// codeSwitchRow is one switch of a settings form as a template shows it.
type codeSwitchRow struct {
	codeSwitch
	On bool
}

func codeSwitchRows(sws []codeSwitch, vals map[string]bool) []codeSwitchRow {
	out := make([]codeSwitchRow, len(sws))
	for i, sw := range sws {
		out[i] = codeSwitchRow{sw, vals[sw.Key]}
	}
	return out
}

// readSwitches reads a settings form's hidden inputs (one per switch, "true" or "false") into vals; a form
// without a switch's field leaves it unchanged.
func readSwitches(r *http.Request, sws []codeSwitch, vals map[string]bool) {
	for _, sw := range sws {
		if v := r.PostFormValue(sw.Key); v == "true" || v == "false" {
			vals[sw.Key] = v == "true"
		}
	}
}

func (s *codeInstance) account(w http.ResponseWriter, r *http.Request) {
	p := s.newPage(r, "Notification settings")
	s.mu.Lock()
	p.Data = &codeSettingsView{Switches: codeSwitchRows(codeAccountSwitches, s.Account), Nameless: p.Nameless}
	s.mu.Unlock()
	p.Flash = r.URL.Query().Get("notice")
	RenderPage(w, codeTpl, "account.html", http.StatusOK, p)
}

func (s *codeInstance) saveAccount(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	readSwitches(r, codeAccountSwitches, s.Account)
	s.mu.Unlock()
	s.env.Redirect(w, r, "settings/notifications?notice=Notification+settings+saved.")
}

// toggle adds full to list or removes it; the list stays sorted.
func toggle(list []string, full string) []string {
	if i := slices.Index(list, full); i >= 0 {
		return slices.Delete(list, i, i+1)
	}
	list = append(list, full)
	sort.Strings(list)
	return list
}

// back is where a toggle returns: the form's "back" field when it is an app path, else the repository.
func back(r *http.Request, repo *codeRepo) string {
	if b := r.PostFormValue("back"); b != "" && !strings.Contains(b, "//") && !strings.Contains(b, "..") {
		return strings.TrimPrefix(b, "/")
	}
	return "northwind/" + repo.Name
}

func (s *codeInstance) star(r *http.Request, repo *codeRepo) codeView {
	s.mu.Lock()
	s.Stars = toggle(s.Stars, repo.Full())
	s.mu.Unlock()
	return codeView{Location: back(r, repo)}
}

func (s *codeInstance) watch(r *http.Request, repo *codeRepo) codeView {
	s.mu.Lock()
	s.Watching = toggle(s.Watching, repo.Full())
	s.mu.Unlock()
	return codeView{Location: back(r, repo)}
}

// contributors serves the contributors API: the people who authored the repository's issues and pull
// requests, with a commit count each. Under hung_fetch it never answers: it blocks until the request's
// context is done (client gone), then returns without writing.
func (s *codeInstance) contributors(w http.ResponseWriter, r *http.Request) {
	if s.env.Mutations.Has("hung_fetch") {
		<-r.Context().Done()
		return
	}
	repo, _ := codeRepoByName(r.PathValue("repo"))
	if repo == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, codeContributors(repo))
}

// codeContributor is one row of the contributors API.
type codeContributor struct {
	Login   string `json:"login"`
	Name    string `json:"name"`
	Commits int    `json:"contributions"`
}

// codeContributors shares the repository's commits among the authors of its issues, in a fixed proportion.
func codeContributors(repo *codeRepo) []codeContributor {
	var out []codeContributor
	left := repo.Commits
	for i, is := range repo.Issues {
		if slices.ContainsFunc(out, func(c codeContributor) bool { return c.Login == is.Author }) {
			continue
		}
		n := left / 2
		if i == len(repo.Issues)-1 {
			n = left
		}
		left -= n
		p := codePersonByLogin(is.Author)
		out = append(out, codeContributor{p.Login, p.Name, n})
	}
	return out
}

func codeAtoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}
