package zoo

import (
	"embed"
	"encoding/json"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The `news` app: a BBC News / ESPN-like news site ("Meridian News") with a Sport desk. Read-only but for the
// reader's follow and alert settings. Pages (app-relative paths; every page's masthead has the section links,
// a "Search Meridian" button that opens the search panel over the page, and a "Following" link):
//
//	/                        home: top stories, the "Live scores" ticker (links named "Ashford Rovers 2,
//	                         Kingsbridge City 1, Full time"), "Most read" (ranked headline links), sections
//	/news/{section}          a section's stories (headline links, standfirst, dateline)
//	/article/{id}/{slug}     an article: headline (h1), byline paragraph ("By Priya Raman, Business reporter"),
//	                         dateline, plain-text paragraphs (the facts questions ask about), related topics;
//	                         the page's script loads the comment count from api/comments/{id}
//	/search?q=…              search results, client-rendered (static/app.js) from data embedded in the page:
//	                         the search panel's form submits here
//	/sport/scores            the scoreboard, client-rendered the same way: match links by competition and day
//	/sport/match/{id}        a match page: score, scorers, a "Match facts" table (rows named "Venue: Rivermead
//	                         Park"), a "Follow <team>" button per team (POST follow), and a "Match stats" panel
//	                         the page's script loads from api/live/{id}
//	/following               "Following": a switch pair per topic and team (Follow, Breaking news alerts), each
//	                         a <button role="switch"> named "Follow Climate" / "Alerts for Climate" in a
//	                         fieldset named after the topic; "Save preferences" posts the form
//	POST /follow             topic, on (1/0), back: follows or unfollows one topic or team, 303 to back
//	POST /following          saves every switch, 303 to following?saved=1
//	/api/live/{id}, /api/comments/{id}   JSON for the panels above
//
// Mutations:
//   - consent, geo_redirect: the shared overlays.
//   - late_hydration: the client-rendered pages (search results, scoreboard) show only the loading shell
//     (`generic > img`) for lateHydration's delay after the load event (hydration.go: hydrationDelay), then
//     render; without it they render at once, from the page's own data (no request).
//   - ref_churn: the home page's "Live scores" ticker and "Most read" list re-render (the shop's mechanism,
//     static/churn.js), alternating a secondary text ("Updated 1 min ago" ↔ "Updated just now").
//   - hung_fetch: api/live/{id} and api/comments/{id} never answer; the panels keep saying "Loading…", the
//     page's server-rendered text still has every fact.
//   - busy_script: the match page's global window.recalculateWinProbability() blocks synchronously for
//     newsBusyMS (a loop of synchronous requests to api/busy-tick); the page itself never calls it.
//   - nameless_switch: the Following page's switches have no accessible name (the visible "Follow" / "Alerts"
//     text beside each is not associated with it); their fieldset still names the topic.

//go:embed assets/news
var newsFS embed.FS

// newsBusyMS is how long window.recalculateWinProbability blocks under busy_script (ZOO.md: 30 s).
const newsBusyMS = 30000

var newsTpl = ParseTemplates(newsFS, "assets/news", template.FuncMap{
	"teamName":    newsTeamName,
	"sectionName": newsSectionName,
})

type newsApp struct{}

func init() { RegisterApp(newsApp{}) }

// Name implements App.
func (newsApp) Name() string { return "news" }

// Mutations implements App.
func (newsApp) Mutations() []string {
	return []string{"busy_script", "consent", "geo_redirect", "hung_fetch", "late_hydration", "nameless_switch",
		"ref_churn"}
}

// New implements App.
func (newsApp) New(env *AppEnv) (Instance, error) {
	s := &newsInstance{env: env, Searches: []string{}, Viewed: []int{}, Changes: []NewsChange{},
		settings: map[string]*newsSetting{}}
	for _, t := range newsTopics {
		s.settings[t.Slug] = &newsSetting{Follow: t.Follow, Alerts: t.Alerts}
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /{$}", s.home)
	s.mux.HandleFunc("GET /news/{section}", s.section)
	s.mux.HandleFunc("GET /article/{id}", s.articleRedirect)
	s.mux.HandleFunc("GET /article/{id}/{slug}", s.article)
	s.mux.HandleFunc("GET /search", s.search)
	s.mux.HandleFunc("GET /sport/scores", s.scores)
	s.mux.HandleFunc("GET /sport/match/{id}", s.match)
	s.mux.HandleFunc("POST /follow", s.follow)
	s.mux.HandleFunc("GET /following", s.following)
	s.mux.HandleFunc("POST /following", s.saveFollowing)
	s.mux.HandleFunc("GET /api/live/{id}", s.liveStats)
	s.mux.HandleFunc("GET /api/comments/{id}", s.comments)
	s.mux.HandleFunc("GET /api/busy-tick", serveBusyTick)
	s.mux.HandleFunc("GET /static/churn.js", func(w http.ResponseWriter, r *http.Request) {
		ServeStatic(w, r, shopFS, "assets/shop/static", "shop.js")
	})
	s.mux.HandleFunc("GET /static/{file...}", func(w http.ResponseWriter, r *http.Request) {
		ServeStatic(w, r, newsFS, "assets/news/static", r.PathValue("file"))
	})
	s.mux.HandleFunc("/", s.notFound)
	return s, nil
}

// newsSetting is one topic's settings on the Following page.
type newsSetting struct {
	Follow bool `json:"follow"`
	Alerts bool `json:"alerts"`
}

// NewsChange is one setting the reader changed, in the order saved: the topic's slug, the setting ("follow"
// or "alerts") and its new value. Saving the Following page records only the settings that differ from before.
type NewsChange struct {
	Topic   string `json:"topic"`
	Setting string `json:"setting"`
	On      bool   `json:"on"`
}

type newsInstance struct {
	env *AppEnv
	mux *http.ServeMux

	mu       sync.Mutex
	Searches []string
	Viewed   []int
	Changes  []NewsChange
	settings map[string]*newsSetting
}

func (s *newsInstance) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// State implements Instance: {"searches": [q, …], "viewed": [article ids], "following": {"climate":
// {"follow": false, "alerts": false}, …} (every topic and team), "changes": [{"topic", "setting", "on"}, …]}.
func (s *newsInstance) State() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"searches": s.Searches, "viewed": s.Viewed, "following": s.settings,
		"changes": s.Changes})
	return b
}

// newsPage is the data every news template gets.
type newsPage struct {
	Base     string
	Title    string
	Section  string // the current section's slug, for the navigation's aria-current
	Overlays template.HTML
	Churn    bool
	Sections []newsSection
	Data     any
}

func (s *newsInstance) newPage(r *http.Request, title, section string) *newsPage {
	return &newsPage{Base: s.env.Base, Title: title, Section: section, Overlays: s.env.Overlays.HTML(r),
		Sections: newsSections}
}

func (s *newsInstance) render(w http.ResponseWriter, name string, status int, p *newsPage) {
	RenderPage(w, newsTpl, name, status, p)
}

func (s *newsInstance) notFound(w http.ResponseWriter, r *http.Request) {
	s.render(w, "notfound.html", http.StatusNotFound, s.newPage(r, "Page not found", ""))
}

// newsHome is the home page's data.
type newsHome struct {
	Top      []*newsArticle
	MostRead []*newsArticle
	Scores   []*newsMatch
	Sections []newsSectionStories
}

// newsSectionStories is a section and its stories, newest first.
type newsSectionStories struct {
	Section newsSection
	Stories []*newsArticle
}

func sectionStories(slug string) []*newsArticle {
	var out []*newsArticle
	for i := range newsArticles {
		if newsArticles[i].Section == slug {
			out = append(out, &newsArticles[i])
		}
	}
	slices.SortStableFunc(out, func(a, b *newsArticle) int { return strings.Compare(b.Datetime, a.Datetime) })
	return out
}

func (s *newsInstance) home(w http.ResponseWriter, r *http.Request) {
	d := &newsHome{}
	for _, id := range []int{10231, 10240, 10260} {
		d.Top = append(d.Top, newsArticleByID(id))
	}
	for _, id := range newsMostRead {
		d.MostRead = append(d.MostRead, newsArticleByID(id))
	}
	for i := range newsMatches {
		d.Scores = append(d.Scores, &newsMatches[len(newsMatches)-1-i])
	}
	for _, sec := range newsSections {
		if st := sectionStories(sec.Slug); len(st) > 0 {
			d.Sections = append(d.Sections, newsSectionStories{sec, st})
		}
	}
	p := s.newPage(r, "Meridian News - Home", "")
	p.Churn = s.env.Mutations.Has("ref_churn")
	p.Data = d
	s.render(w, "home.html", http.StatusOK, p)
}

func (s *newsInstance) section(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("section")
	name := newsSectionName(slug)
	if name == "" {
		s.notFound(w, r)
		return
	}
	p := s.newPage(r, name, slug)
	p.Data = newsSectionStories{newsSection{slug, name}, sectionStories(slug)}
	s.render(w, "section.html", http.StatusOK, p)
}

func pathID(r *http.Request) int {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		return -1
	}
	return id
}

func (s *newsInstance) articleRedirect(w http.ResponseWriter, r *http.Request) {
	a := newsArticleByID(pathID(r))
	if a == nil {
		s.notFound(w, r)
		return
	}
	s.env.Redirect(w, r, a.Path())
}

func (s *newsInstance) article(w http.ResponseWriter, r *http.Request) {
	a := newsArticleByID(pathID(r))
	if a == nil {
		s.notFound(w, r)
		return
	}
	if r.PathValue("slug") != a.Slug {
		s.env.Redirect(w, r, a.Path())
		return
	}
	s.mu.Lock()
	s.Viewed = append(s.Viewed, a.ID)
	s.mu.Unlock()
	p := s.newPage(r, a.Headline, a.Section)
	p.Data = a
	s.render(w, "article.html", http.StatusOK, p)
}

// newsAppView is the data of a client-rendered page (app.html): which view the script renders, the render delay
// and the view's data, embedded in the page as JSON so that the first render needs no request.
type newsAppView struct {
	View      string // "search" or "scores"
	Hydration hydrationDelay
	JSON      string
}

// newsResult is one search result as the client renders it.
type newsResult struct {
	Headline   string `json:"headline"`
	Standfirst string `json:"standfirst"`
	Section    string `json:"section"`
	Date       string `json:"date"`
	Datetime   string `json:"datetime"`
	Href       string `json:"href"`
}

// newsScoreDay is one day of one competition on the scoreboard, as the client renders it.
type newsScoreDay struct {
	Competition string           `json:"competition"`
	Date        string           `json:"date"`
	Matches     []newsScoreEntry `json:"matches"`
}

// newsScoreEntry is one match on the scoreboard.
type newsScoreEntry struct {
	Label     string `json:"label"`
	Home      string `json:"home"`
	Away      string `json:"away"`
	HomeGoals int    `json:"home_goals"`
	AwayGoals int    `json:"away_goals"`
	Href      string `json:"href"`
}

func (s *newsInstance) renderApp(w http.ResponseWriter, r *http.Request, title, section, view string, data any) {
	b, _ := json.Marshal(data)
	v := &newsAppView{View: view, JSON: string(b)}
	if s.env.Mutations.Has("late_hydration") {
		v.Hydration = lateHydration
	}
	p := s.newPage(r, title, section)
	p.Data = v
	s.render(w, "app.html", http.StatusOK, p)
}

func (s *newsInstance) search(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if q != "" {
		s.mu.Lock()
		s.Searches = append(s.Searches, q)
		s.mu.Unlock()
	}
	res := []newsResult{}
	for _, a := range searchNews(q) {
		res = append(res, newsResult{a.Headline, a.Standfirst, newsSectionName(a.Section), a.Date, a.Datetime,
			a.Path()})
	}
	s.renderApp(w, r, "Search results for "+q, "", "search", map[string]any{"query": q, "results": res})
}

func (s *newsInstance) scores(w http.ResponseWriter, r *http.Request) {
	var days []newsScoreDay
	for i := len(newsMatches) - 1; i >= 0; i-- {
		m := &newsMatches[i]
		if n := len(days); n == 0 || days[n-1].Competition != m.Competition || days[n-1].Date != m.Date {
			days = append(days, newsScoreDay{Competition: m.Competition, Date: m.Date})
		}
		d := &days[len(days)-1]
		d.Matches = append(d.Matches, newsScoreEntry{m.Label(), newsTeamName(m.Home), newsTeamName(m.Away),
			m.HomeGoals, m.AwayGoals, m.Path()})
	}
	s.renderApp(w, r, "Football scores and fixtures", "sport", "scores", map[string]any{"days": days})
}

// newsMatchView is the match page's data.
type newsMatchView struct {
	M     *newsMatch
	Facts [][2]string
	Teams []newsMatchTeam
	Busy  int
}

// newsMatchTeam is one side of a match page: the team, its goals and whether the reader follows it.
type newsMatchTeam struct {
	Slug, Name string
	Goals      []newsGoal
	Following  bool
}

func (s *newsInstance) match(w http.ResponseWriter, r *http.Request) {
	m := newsMatchByID(pathID(r))
	if m == nil {
		s.notFound(w, r)
		return
	}
	v := &newsMatchView{M: m, Facts: m.Facts()}
	s.mu.Lock()
	for _, t := range []string{m.Home, m.Away} {
		mt := newsMatchTeam{Slug: t, Name: newsTeamName(t), Following: s.settings[t].Follow}
		for _, g := range m.Goals {
			if g.Team == t {
				mt.Goals = append(mt.Goals, g)
			}
		}
		v.Teams = append(v.Teams, mt)
	}
	s.mu.Unlock()
	if s.env.Mutations.Has("busy_script") {
		v.Busy = newsBusyMS
	}
	p := s.newPage(r, newsTeamName(m.Home)+" v "+newsTeamName(m.Away), "sport")
	p.Data = v
	s.render(w, "match.html", http.StatusOK, p)
}

// setLocked changes one setting and records the change when the value differs; s.mu must be held.
func (s *newsInstance) setLocked(topic, setting string, on bool) {
	st := s.settings[topic]
	cur := &st.Follow
	if setting == "alerts" {
		cur = &st.Alerts
	}
	if *cur != on {
		*cur = on
		s.Changes = append(s.Changes, NewsChange{topic, setting, on})
	}
}

// follow serves POST follow (topic, on = 1 or 0, back = an app-relative path to return to).
func (s *newsInstance) follow(w http.ResponseWriter, r *http.Request) {
	topic := r.FormValue("topic")
	if newsTopicBySlug(topic) == nil {
		http.Error(w, "unknown topic", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.setLocked(topic, "follow", r.FormValue("on") == "1")
	s.mu.Unlock()
	back := strings.TrimPrefix(r.FormValue("back"), "/")
	if back == "" || strings.Contains(back, "//") || strings.Contains(back, ":") {
		back = "following"
	}
	s.env.Redirect(w, r, back)
}

// newsFollowRow is one topic's row on the Following page.
type newsFollowRow struct {
	T        newsTopic
	Follow   bool
	Alerts   bool
	Nameless bool // nameless_switch: the switches get no accessible name
}

// newsFollowingView is the Following page's data.
type newsFollowingView struct {
	Topics, Teams []newsFollowRow
	Saved         bool
	Nameless      bool
}

func (s *newsInstance) following(w http.ResponseWriter, r *http.Request) {
	v := &newsFollowingView{Saved: r.URL.Query().Get("saved") == "1",
		Nameless: s.env.Mutations.Has("nameless_switch")}
	s.mu.Lock()
	for _, t := range newsTopics {
		row := newsFollowRow{t, s.settings[t.Slug].Follow, s.settings[t.Slug].Alerts, v.Nameless}
		if t.Kind == "team" {
			v.Teams = append(v.Teams, row)
		} else {
			v.Topics = append(v.Topics, row)
		}
	}
	s.mu.Unlock()
	p := s.newPage(r, "Following", "")
	p.Data = v
	s.render(w, "following.html", http.StatusOK, p)
}

// saveFollowing serves POST following: fields follow.<slug> and alerts.<slug> ("on" or "off") for every
// topic; a topic whose fields are missing keeps its settings.
func (s *newsInstance) saveFollowing(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	for _, t := range newsTopics {
		for _, setting := range []string{"follow", "alerts"} {
			switch r.PostForm.Get(setting + "." + t.Slug) {
			case "on":
				s.setLocked(t.Slug, setting, true)
			case "off":
				s.setLocked(t.Slug, setting, false)
			}
		}
	}
	s.mu.Unlock()
	s.env.Redirect(w, r, "following?saved=1")
}

// liveStats serves api/live/{id}: the match's stats panel (possession, shots, corners), fixed per match.
// Under hung_fetch it never answers (blocks until the client is gone).
func (s *newsInstance) liveStats(w http.ResponseWriter, r *http.Request) {
	if s.env.Mutations.Has("hung_fetch") {
		<-r.Context().Done()
		return
	}
	m := newsMatchByID(pathID(r))
	if m == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such match"})
		return
	}
	poss := 40 + m.ID%21
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{"id": m.ID, "status": "Full time",
		"possession": []int{poss, 100 - poss}, "shots": []int{6 + m.ID%9, 4 + m.ID%7},
		"corners": []int{2 + m.ID%5, 1 + m.ID%6}})
}

// comments serves api/comments/{id}: the article's comment count, fixed per article. Under hung_fetch it
// never answers.
func (s *newsInstance) comments(w http.ResponseWriter, r *http.Request) {
	if s.env.Mutations.Has("hung_fetch") {
		<-r.Context().Done()
		return
	}
	a := newsArticleByID(pathID(r))
	if a == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such article"})
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{"id": a.ID, "count": 40 + a.ID%337, "open": true})
}
