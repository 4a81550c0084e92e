package cassette_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"webbench/browser"
	"webbench/browser/cassette"
	"webbench/browser/drift"
	"webbench/judge"
	"webbench/suites/webvoyager"
)

// TestCassetteInChromium shares one driver and one Chromium between the cassette's browser tests: a public
// real-site HAR imported and replayed, misses filled live (--record-missing), and drift of a fixture site whose
// page changed after recording.
func TestCassetteInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	d, err := browser.StartDriver(browser.DriverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = d.Stop() }()
	b, err := d.Launch(browser.LaunchOptions{Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	t.Run("HARImportReplays", func(t *testing.T) { testHARImportReplays(t, b) })
	t.Run("RecordMissingFillsTheTape", func(t *testing.T) { testRecordMissing(t, b) })
	t.Run("DriftOfAChangedFixturePage", func(t *testing.T) { testFixtureDrift(t, b) })
}

// visit opens a fresh context with the attempt's routes installed, loads each URL in turn (waiting for the load
// event and the network to go idle), closes the attempt and returns the last page's title.
func visit(t *testing.T, b *browser.Browser, a *cassette.Attempt, urls ...string) string {
	t.Helper()
	bctx, err := b.Playwright().NewContext()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = bctx.Close() }()
	if err := a.Install(bctx); err != nil {
		t.Fatal(err)
	}
	page, err := bctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	title := ""
	for _, u := range urls {
		if _, err := page.Goto(u, playwright.PageGotoOptions{WaitUntil: playwright.WaitUntilStateNetworkidle}); err != nil {
			t.Fatalf("goto %s: %v", u, err)
		}
		if title, err = page.Title(); err != nil {
			t.Fatal(err)
		}
	}
	if err := bctx.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	return title
}

const harPost = "http://www.softwareishard.com/blog/firebug/firebug-16-beta-1-released/"

// A real site's capture shipped as test data by the HAR Viewer project (testdata/README.md) imports into a
// cassette and replays in Chromium with nothing reaching the network: the post renders with its title, and the
// requests the HAR has no body for are the misses.
func testHARImportReplays(t *testing.T, b *browser.Browser) {
	f, err := os.Open("testdata/softwareishard.com.har.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	st, err := cassette.ImportHAR(dir, "softwareishard", f, cassette.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 40 entries: the first load's 20 (9 text bodies — the post, 3 stylesheets, 5 scripts — and 11 images that
	// Firebug stored no body for) and the reload's 20 (the post again, 8 text 304s holding the cached copy, 10
	// image 304s and the analytics beacon without a body).
	if want := (cassette.ImportStats{Entries: 40, Imported: 18, NoBody: 22, Revalidated: 8}); st != want {
		t.Fatalf("import: %+v, want %+v", st, want)
	}
	c, err := cassette.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.RecordedAt().Format(time.RFC3339); got != "2010-10-05T08:53:20Z" {
		t.Errorf("record time %s, want the HAR's first page start 2010-10-05T08:53:20Z", got)
	}
	a := c.Attempt("softwareishard", "replay-1")
	title := visit(t, b, a, harPost)
	if title != "Software is hard | Firebug 1.6 beta 1 Released" {
		t.Errorf("title %q", title)
	}
	// The misses are exactly the page's 11 images: the 8 of the page and its stylesheet, the 2 that lightbox.js
	// preloads, and Google Analytics' beacon (its utmn= is random, so only its path is compared). Every text
	// resource was answered from the tape, and nothing else was requested (headless Chromium asks for no
	// favicon).
	var got []string
	for _, m := range a.Misses() {
		got = append(got, strings.SplitN(m, "?", 2)[0])
	}
	sort.Strings(got)
	want := []string{
		"http://www.google-analytics.com/__utm.gif",
		"http://www.softwareishard.com/blog/wp-content/plugins/wp-lightbox2/images/closelabel.gif",
		"http://www.softwareishard.com/blog/wp-content/plugins/wp-lightbox2/images/loading.gif",
		"http://www.softwareishard.com/blog/wp-content/themes/miniBits/miniBits/img/comment-from.gif",
		"http://www.softwareishard.com/blog/wp-content/themes/miniBits/miniBits/img/creativebits.gif",
		"http://www.softwareishard.com/blog/wp-content/themes/miniBits/miniBits/img/rss.gif",
		"http://www.softwareishard.com/blog/wp-content/themes/miniBits/miniBits/img/sidebar_bottom.gif",
		"http://www.softwareishard.com/blog/wp-content/themes/miniBits/miniBits/img/sidebar_top.gif",
		"http://www.softwareishard.com/blog/wp-content/themes/miniBits/miniBits/img/wordpress.gif",
		"http://www.softwareishard.com/blog/wp-includes/images/smilies/icon_smile.gif",
		"http://www.softwareishard.com/images/x.png",
	}
	if !slices.Equal(got, want) {
		t.Errorf("misses (%d):\n%s\nwant (%d):\n%s", len(got), strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
	}
}

// A replay with --record-missing fetches the entry removed from the tape live, appends it, and the next replay,
// with the server stopped, has no miss.
func testRecordMissing(t *testing.T, b *browser.Browser) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><title>Fill</title><link rel="stylesheet" href="/style.css"><h1>Fill</h1>`))
	})
	mux.HandleFunc("/style.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		_, _ = w.Write([]byte("h1 { color: teal }"))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	home := "http://" + ln.Addr().String() + "/"

	dir := t.TempDir()
	rec, err := cassette.Create(dir, cassette.Options{})
	if err != nil {
		t.Fatal(err)
	}
	visit(t, b, rec.Attempt("fill", "rec"), home)
	// Remove the stylesheet's entry from the tape.
	tape, err := rec.Tape("fill")
	if err != nil {
		t.Fatal(err)
	}
	before := len(tape.Entries)
	tape.Entries = slices.DeleteFunc(tape.Entries, func(e cassette.Entry) bool { return strings.HasSuffix(e.Request.URL, "/style.css") })
	if len(tape.Entries) != before-1 {
		t.Fatalf("tape had %d entries, %d without the stylesheet", before, len(tape.Entries))
	}
	writeTape(t, rec.TapePath("fill"), tape)

	fill, err := cassette.OpenFill(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := fill.Attempt("fill", "fill-1")
	visit(t, b, a, home)
	if m := a.Misses(); len(m) != 1 || !strings.HasSuffix(m[0], "/style.css") || a.Filled() != 1 {
		t.Fatalf("filling replay: misses %v, filled %d; want the stylesheet, 1", m, a.Filled())
	}
	after, err := fill.Tape("fill")
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Entries) != before {
		t.Errorf("tape after the filling replay: %d entries, want %d", len(after.Entries), before)
	}

	_ = srv.Close()
	again, err := cassette.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	a2 := again.Attempt("fill", "replay-2")
	if title := visit(t, b, a2, home); title != "Fill" || len(a2.Misses()) != 0 {
		t.Errorf("second replay (server stopped): title %q, misses %v; want Fill, none", title, a2.Misses())
	}
}

func writeTape(t *testing.T, path string, tape *cassette.Tape) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(tape); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lasagna is the fixture page whose answer (181 reviews) the modified copy changes.
const lasagna = "/recipes/recipe/vegetarian-four-cheese-lasagna"

// The WebVoyager fixture sites recorded, then served again with one page's answer changed (181 reviews become
// 182): `bench cassette diff --live` flags that task, its recipe page and its reference answer for review, and
// no other task.
func testFixtureDrift(t *testing.T, b *browser.Browser) {
	// The suite in fixture mode serves the sites itself; its tasks start there.
	s, err := webvoyager.New(webvoyager.Config{TasksFile: webvoyager.FixtureTasksFile(), Fixtures: true})
	if err != nil {
		t.Fatal(err)
	}
	tasks := s.Tasks()
	u, err := url.Parse(tasks[0].Start)
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + u.Host
	// The pages each task's attempt visits (its start page; the recipes tasks' answer pages too).
	visits := map[string][]string{"FixtureRecipes--0": {lasagna}, "FixtureRecipes--1": {"/recipes/search?q=banana+bread"}}
	dir := t.TempDir()
	rec, err := cassette.Create(dir, cassette.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		urls := []string{task.Start}
		for _, p := range visits[task.ID] {
			urls = append(urls, base+p)
		}
		visit(t, b, rec.Attempt(task.ID, "rec"), urls...)
	}
	_ = s.Close()

	// The modified copy, on the same address (the recorded URLs name its port).
	ln, err := net.Listen("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: changeAnswer(webvoyager.FixtureHandler())}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	c, err := cassette.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var in []drift.TaskInput
	for _, task := range tasks {
		pages, err := c.Pages(task.ID)
		if err != nil {
			t.Fatal(err)
		}
		ti := drift.TaskInput{ID: task.ID, Pages: pages}
		if f, ok := judge.OnPage(task.Check.Answer); ok {
			ti.Answer = f
		}
		in = append(in, ti)
	}
	r := drift.Compare(context.Background(), "live", in, drift.Live(http.DefaultClient))
	if got := r.WithStatus(drift.Drifted); !slices.Equal(got, []string{"FixtureRecipes--0"}) {
		t.Errorf("drifted tasks %v, want [FixtureRecipes--0]", got)
	}
	if got := r.Reviews(); !slices.Equal(got, []string{"FixtureRecipes--0"}) {
		t.Errorf("answers to review %v, want [FixtureRecipes--0]", got)
	}
	if r.Counts[drift.Unchanged] != len(tasks)-1 {
		t.Errorf("unchanged %d of %d tasks: %v", r.Counts[drift.Unchanged], len(tasks), r.Counts)
	}
	for _, td := range r.Tasks {
		if td.Task != "FixtureRecipes--0" {
			continue
		}
		for _, p := range td.Pages {
			changed := strings.HasSuffix(p.URL, lasagna)
			if changed != (p.Status == drift.Drifted) {
				t.Errorf("page %s: %s", p.URL, p.Status)
			}
			if changed && (!slices.Equal(p.Removed, []string{"Rated 4.6 out of 5 from 181 reviews"}) ||
				!slices.Equal(p.Added, []string{"Rated 4.6 out of 5 from 182 reviews"}) || p.AnswerBefore != drift.Present || p.AnswerAfter != drift.Absent) {
				t.Errorf("the changed page: %+v", p)
			}
		}
	}
}

// changeAnswer serves h with the lasagna page's review count changed from 181 to 182.
func changeAnswer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != lasagna {
			h.ServeHTTP(w, r)
			return
		}
		rec := &bufferedResponse{header: http.Header{}}
		h.ServeHTTP(rec, r)
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.status)
		_, _ = w.Write(bytes.ReplaceAll(rec.body.Bytes(), []byte("181 reviews"), []byte("182 reviews")))
	})
}

type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }
func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}
func (b *bufferedResponse) WriteHeader(s int) { b.status = s }
