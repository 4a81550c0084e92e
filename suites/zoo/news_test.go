package zoo

import (
	"encoding/json"
	"html"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Tests of the `news` app over HTTP (helpers rs* from recipes_test.go), plus its busy_script helper in real
// Chromium (skipped with -short).

// TestNewsCatalog: every fact a family asks about is a paragraph of its article exactly as the domain splits
// it, every search query the families type finds its article, and the scoreboard's link names are unique.
func TestNewsCatalog(t *testing.T) {
	srv := startServer(t)
	tn := newTenant(t, srv, "news")
	labels := map[string]bool{}
	for i := range newsMatches {
		m := &newsMatches[i]
		if labels[m.Label()] {
			t.Errorf("duplicate match label %q", m.Label())
		}
		labels[m.Label()] = true
		_, body, _ := rsGet(t, tn.URL(m.Path()))
		for _, f := range m.Facts() {
			rsWant(t, body, `<tr aria-label="`+html.EscapeString(f[0]+": "+f[1])+`">`)
		}
	}
	for _, r := range newsFactDomain() {
		a := newsArticleByID(r["id"].(int))
		_, body, _ := rsGet(t, tn.URL(a.Path()))
		rsWant(t, body, "<p>"+html.EscapeString(r["before"].(string)+r["value"].(string)+r["after"].(string))+"</p>",
			"<p class=\"byline-name\">"+html.EscapeString(a.Byline())+"</p>")
	}
	for _, r := range newsArticleDomain() {
		found := false
		for _, a := range searchNews(r["query"].(string)) {
			found = found || a.ID == r["id"]
		}
		if !found {
			t.Errorf("search %q does not find article %v", r["query"], r["id"])
		}
	}
	if got := len(newsFactDomain()); got != 3*len(newsArticles) {
		t.Errorf("%d facts, want 3 per article (%d)", got, 3*len(newsArticles))
	}
}

func TestNewsHTTP(t *testing.T) {
	srv := startServer(t)
	tn := newTenant(t, srv, "news")

	code, body, _ := rsGet(t, tn.URL("/"))
	if code != 200 {
		t.Fatalf("home: %d", code)
	}
	rsWant(t, body, `<base href="`+tn.Prefix()+`">`, `aria-label="Live scores" data-churn-region="ticker"`,
		`<a href="sport/match/4101" aria-label="Ashford Rovers 2, Kingsbridge City 1, Full time">`,
		`aria-label="Most read" data-churn-region="most-read"`, `aria-controls="search-panel">Search Meridian</button>`,
		`aria-label="Search news, topics and more"`, `<a class="following-link" href="following">Following</a>`)
	if strings.Contains(body, "data-churn>") || strings.Contains(body, "churn.js") {
		t.Error("home without ref_churn loads the churn script")
	}

	_, body, _ = rsGet(t, tn.URL("news/business"))
	rsWant(t, body, `<h1 class="section-title">Business</h1>`,
		`<a href="article/10231/northvale-plant-electric-vans">Northvale car plant to build electric vans from 2028</a>`)
	if code, _, _ := rsGet(t, tn.URL("news/gardening")); code != 404 {
		t.Errorf("unknown section: %d, want 404", code)
	}

	code, _, hdr := rsGet(t, tn.URL("article/10231/wrong-slug"))
	if code != 303 || hdr.Get("Location") != tn.Prefix()+"article/10231/northvale-plant-electric-vans" {
		t.Errorf("wrong slug: %d %q", code, hdr.Get("Location"))
	}
	_, body, _ = rsGet(t, tn.URL("article/10231/northvale-plant-electric-vans"))
	rsWant(t, body, `<h1 class="article-title">Northvale car plant to build electric vans from 2028</h1>`,
		"<p>The investment will create 2,400 new jobs at the site, the company said.</p>",
		`<p class="byline-name">By Priya Raman, Business reporter</p>`, `<time datetime="2026-12-03">3 December 2026</time>`,
		`data-comments="10231"`)

	_, body, _ = rsGet(t, tn.URL("search?q=northvale+car+plant"))
	rsWant(t, body, `data-view="search"`, `data-hydration-delay-ms="0"`, `<template id="app-chrome">`,
		`<div id="root"><div class="loading-screen">`)
	var app struct {
		Query   string       `json:"query"`
		Results []newsResult `json:"results"`
	}
	appData(t, body, &app)
	if app.Query != "northvale car plant" || len(app.Results) != 1 ||
		app.Results[0].Href != "article/10231/northvale-plant-electric-vans" {
		t.Errorf("search data: %+v", app)
	}

	_, body, _ = rsGet(t, tn.URL("sport/scores"))
	var sc struct {
		Days []newsScoreDay `json:"days"`
	}
	appData(t, body, &sc)
	if len(sc.Days) != 5 || sc.Days[0].Competition != "Premier Division" || sc.Days[0].Date != "Saturday 5 December 2026" ||
		len(sc.Days[0].Matches) != 2 || sc.Days[0].Matches[0].Label != "Calder Vale 1, Ashford Rovers 2, Full time" {
		t.Errorf("scoreboard data: %+v", sc.Days)
	}

	_, body, _ = rsGet(t, tn.URL("sport/match/4103"))
	rsWant(t, body, `<h1 id="match-h" class="match-title">Deepdale United 3-2 Stourton Albion</h1>`,
		`<tr aria-label="Attendance: 27,336">`, `<tr aria-label="First goal: Jonah Whitfield (Stourton Albion) 9&#39;">`,
		`aria-pressed="false">Follow Deepdale United</button>`, `data-live="4103">`)
	if strings.Contains(body, "data-busy-ms") {
		t.Error("match page without busy_script has data-busy-ms")
	}
	code, body, _ = rsGet(t, tn.URL("api/live/4103"))
	if code != 200 || !strings.Contains(body, `"possession"`) {
		t.Errorf("api/live: %d %s", code, body)
	}
	code, body, _ = rsGet(t, tn.URL("api/comments/10231"))
	if code != 200 || !strings.Contains(body, `"count"`) {
		t.Errorf("api/comments: %d %s", code, body)
	}
	st := rsState(t, tn)
	if toJSON(st["searches"]) != `["northvale car plant"]` || toJSON(st["viewed"]) != `[10231]` ||
		toJSON(st["changes"]) != `[]` {
		t.Errorf("state: %s", toJSON(st))
	}
}

// appData decodes a client-rendered page's embedded data (body[data-app]).
func appData(t *testing.T, body string, v any) {
	t.Helper()
	_, rest, ok := strings.Cut(body, `data-app="`)
	raw, _, ok2 := strings.Cut(rest, `"`)
	if !ok || !ok2 {
		t.Fatal("page has no data-app")
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(raw)), v); err != nil {
		t.Fatalf("data-app: %v", err)
	}
}

func TestNewsFollowHTTP(t *testing.T) {
	srv := startServer(t)
	tn := newTenant(t, srv, "news")
	code, _, hdr := rsPost(t, tn.URL("follow"), url.Values{"topic": {"deepdale-united"}, "on": {"1"},
		"back": {"sport/match/4103"}})
	if code != 303 || hdr.Get("Location") != tn.Prefix()+"sport/match/4103" {
		t.Errorf("follow: %d %q", code, hdr.Get("Location"))
	}
	_, body, _ := rsGet(t, tn.URL("sport/match/4103"))
	rsWant(t, body, `aria-pressed="true">Following Deepdale United</button>`, `name="on" value="0"`)
	rsPost(t, tn.URL("follow"), url.Values{"topic": {"deepdale-united"}, "on": {"1"}}) // already followed: no change
	if code, _, _ := rsPost(t, tn.URL("follow"), url.Values{"topic": {"atlantis"}, "on": {"1"}}); code != 400 {
		t.Errorf("unknown topic: %d, want 400", code)
	}

	_, body, _ = rsGet(t, tn.URL("following"))
	rsWant(t, body, `<legend>Climate</legend>`, `aria-checked="false" aria-label="Follow Climate" data-field="follow.climate"`,
		`aria-checked="true" aria-label="Alerts for Technology"`, `<input type="hidden" name="follow.technology" value="on">`,
		`aria-checked="true" aria-label="Follow Deepdale United"`, "Save preferences")
	// The form posts every switch; only the ones that changed are recorded.
	form := url.Values{}
	for _, tp := range newsTopics {
		form.Set("follow."+tp.Slug, map[bool]string{true: "on", false: "off"}[tp.Follow || tp.Slug == "deepdale-united"])
		form.Set("alerts."+tp.Slug, map[bool]string{true: "on", false: "off"}[tp.Alerts])
	}
	form.Set("follow.climate", "on")
	form.Set("alerts.technology", "off")
	code, _, hdr = rsPost(t, tn.URL("following"), form)
	if code != 303 || hdr.Get("Location") != tn.Prefix()+"following?saved=1" {
		t.Errorf("save: %d %q", code, hdr.Get("Location"))
	}
	_, body, _ = rsGet(t, tn.URL("following?saved=1"))
	rsWant(t, body, `<p class="saved" role="status">Your preferences have been saved.</p>`)
	st := rsState(t, tn)
	want := `[{"on":true,"setting":"follow","topic":"deepdale-united"},{"on":true,"setting":"follow","topic":"climate"},` +
		`{"on":false,"setting":"alerts","topic":"technology"}]`
	if got := toJSON(st["changes"]); got != want {
		t.Errorf("changes %s, want %s", got, want)
	}
	fol := asMap(st["following"])
	if toJSON(fol["climate"]) != `{"alerts":false,"follow":true}` || toJSON(fol["technology"]) != `{"alerts":false,"follow":true}` ||
		len(fol) != len(newsTopics) {
		t.Errorf("following: %s", toJSON(fol))
	}
}

func TestNewsMutationsHTTP(t *testing.T) {
	srv := startServer(t)
	late := newTenant(t, srv, "news", "late_hydration")
	for _, p := range []string{"sport/scores", "search?q=comet"} {
		_, body, _ := rsGet(t, late.URL(p))
		rsWant(t, body, `data-hydration-delay-ms="2000" data-hydration-load-factor="4" data-hydration-max-ms="8000"`, `<img class="loading-logo" src="static/logo.svg" alt="Meridian News"`)
	}
	_, body, _ := rsGet(t, late.URL("sport/match/4101"))
	rsWant(t, body, `<tr aria-label="Venue: Rivermead Park">`) // server-rendered pages are unaffected

	churn := newTenant(t, srv, "news", "ref_churn")
	_, body, _ = rsGet(t, churn.URL("/"))
	rsWant(t, body, "<body data-churn>", `<script src="static/churn.js"></script>`, `data-alt-text="Updated just now"`)
	if code, js, _ := rsGet(t, churn.URL("static/churn.js")); code != 200 || !strings.Contains(js, "data-churn-region") {
		t.Errorf("churn.js: %d", code)
	}

	hung := newTenant(t, srv, "news", "hung_fetch")
	for _, p := range []string{"api/live/4101", "api/comments/10231"} {
		if !rsNeverAnswers(t, hung.URL(p), 400*time.Millisecond) {
			t.Errorf("hung_fetch: %s answered", p)
		}
	}
	_, body, _ = rsGet(t, hung.URL("sport/match/4101"))
	rsWant(t, body, `<tr aria-label="Attendance: 31,482">`, "Loading stats…")

	busy := newTenant(t, srv, "news", "busy_script")
	_, body, _ = rsGet(t, busy.URL("sport/match/4101"))
	rsWant(t, body, `data-live="4101" data-busy-ms="30000">`)
	if rsNeverAnswers(t, busy.URL("api/live/4101"), 2*time.Second) {
		t.Error("busy_script alone must not hang the API")
	}

	nameless := newTenant(t, srv, "news", "nameless_switch")
	_, body, _ = rsGet(t, nameless.URL("following"))
	rsWant(t, body, `<legend>Climate</legend>`, `role="switch" aria-checked="false" data-field="follow.climate">`)
	if strings.Contains(body, `aria-label="Follow `) || strings.Contains(body, `aria-label="Alerts for `) {
		t.Error("nameless_switch: a switch has a name")
	}

	for _, m := range []struct{ mut, marker string }{{"consent", `id="onetrust-consent-sdk"`}, {"geo_redirect", `id="zoo-geo-redirect"`}} {
		tn := newTenant(t, srv, "news", m.mut)
		_, body, _ = rsGet(t, tn.URL("following"))
		rsWant(t, body, m.marker)
		_, body, _ = rsGet(t, tn.URL("sport/scores"))
		rsWant(t, body, m.marker)
	}
	if _, err := srv.NewTenant("news", []string{"icon_over_input"}); err == nil {
		t.Error("news accepted icon_over_input, which it does not implement")
	}
}

// TestNewsBusyScriptBrowser: under busy_script the match page's window.recalculateWinProbability blocks the
// tab until an evaluate's timeout terminates it (checkBusyScript); without it the helper answers at once.
func TestNewsBusyScriptBrowser(t *testing.T) {
	b := launchChromium(t)
	srv := startServer(t)
	checkBusyScript(t, b, srv, "news", "sport/match/4101", "window.recalculateWinProbability()", "Meridian News", false)

	tn := newTenant(t, srv, "news")
	p, ctx, _ := newPage(t, b, tn)
	if _, err := p.Goto(tn.URL("sport/match/4101")); err != nil {
		t.Fatal(err)
	}
	v, terminated, _ := rsEval(t, ctx, p, "() => window.recalculateWinProbability()", 2*time.Second)
	if terminated || toJSON(v) != `{"away":0,"home":100}` {
		t.Errorf("without busy_script: %s (terminated %v)", toJSON(v), terminated)
	}
}
