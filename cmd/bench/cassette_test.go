package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"webbench/browser/cassette"
	"webbench/browser/drift"
	"webbench/suites/webvoyager"
)

// fixtureLasagna is the fixture page whose answer (181 reviews) a later version changes.
const fixtureLasagna = "/recipes/recipe/vegetarian-four-cheese-lasagna"

// serveFixture is h's response to GET path, with "181 reviews" made "182 reviews" when changed.
func serveFixture(t *testing.T, h http.Handler, path string, changed bool) cassette.Exchange {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	body := rec.Body.Bytes()
	if changed {
		body = bytes.ReplaceAll(body, []byte("181 reviews"), []byte("182 reviews"))
	}
	return cassette.Exchange{Method: "GET", Status: rec.Code, Body: body,
		ResponseHeaders: []cassette.Header{{Name: "Content-Type", Value: rec.Header().Get("Content-Type")}}}
}

// fixtureCassette records, without a browser, the fixture pages two tasks visit from origin, the lasagna page
// with its answer changed when changed.
func fixtureCassette(t *testing.T, dir, origin string, changed bool) {
	t.Helper()
	c, err := cassette.Create(dir, cassette.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := webvoyager.FixtureHandler()
	for task, paths := range map[string][]string{
		"FixtureRecipes--0": {"/recipes/", fixtureLasagna},
		"FixtureStore--0":   {"/store/", "/store/product/trail-running-shoe-x2"},
	} {
		a := c.Attempt(task, "a1")
		for _, p := range paths {
			x := serveFixture(t, h, p, changed && p == fixtureLasagna)
			x.URL = origin + p
			if err := a.Put(x); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCassetteCommands(t *testing.T) {
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	fixtureCassette(t, a, "http://127.0.0.1:4001", false)
	fixtureCassette(t, b, "http://127.0.0.1:4999", true) // another port: a loopback port is not part of the key

	out, _, code := bench(t, "cassette", "ls", a)
	if code != 0 || !strings.Contains(out, "2 tasks, first recorded") || !strings.Contains(out, "FixtureRecipes--0  2        1") {
		t.Errorf("ls: exit %d\n%s", code, out)
	}
	out, _, code = bench(t, "cassette", "stats", a)
	if code != 0 || !strings.Contains(out, "2 tasks, 4 entries") || !strings.Contains(out, "0 secrets stripped") ||
		!strings.Contains(out, "127.0.0.1:4001  text/html     4") {
		t.Errorf("stats: exit %d\n%s", code, out)
	}

	// Against the later recording, with the fixture suite's reference answers.
	refs := []string{"--suite", "webvoyager", "--tasks-file", "suites/webvoyager/fixtures/tasks.jsonl"}
	out, errs, code := bench(t, append([]string{"cassette", "diff", a, "--against", b, "--format", "json"}, refs...)...)
	if code != 0 {
		t.Fatalf("diff: exit %d: %s", code, errs)
	}
	var r drift.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("diff json: %v\n%s", err, out)
	}
	if d := r.WithStatus(drift.Drifted); len(d) != 1 || d[0] != "FixtureRecipes--0" || len(r.Reviews()) != 1 ||
		r.Counts[drift.Unchanged] != 1 || r.Pages != 4 {
		t.Errorf("diff: drifted %v, reviews %v, counts %v, pages %d", d, r.Reviews(), r.Counts, r.Pages)
	}
	out, _, _ = bench(t, append([]string{"cassette", "diff", a, "--against", b}, refs...)...)
	for _, want := range []string{"2 tasks, 4 pages: 1 drifted, 1 unchanged, 0 unknown (0 pages could not be read now)",
		"drifted   FixtureRecipes--0 (reference answer on the page: recorded yes, now yes; REVIEW its reference answer)",
		"    - Rated 4.6 out of 5 from 181 reviews", "    + Rated 4.6 out of 5 from 182 reviews",
		"unchanged FixtureStore--0 (reference answer on the page: recorded yes, now yes)"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff text lacks %q:\n%s", want, out)
		}
	}

	// Against the live site: the changed copy served where the recording was made.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := serveFixture(t, webvoyager.FixtureHandler(), r.URL.Path, r.URL.Path == fixtureLasagna)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(x.Status)
		_, _ = w.Write(x.Body)
	}))
	defer srv.Close()
	live := filepath.Join(tmp, "live")
	fixtureCassette(t, live, srv.URL, false)
	out, _, code = bench(t, "cassette", "diff", live, "--live", "--format", "md")
	if code != 0 || !strings.Contains(out, "1 drifted, 1 unchanged") || !strings.Contains(out, "| FixtureRecipes--0 | drifted | "+srv.URL+fixtureLasagna) {
		t.Errorf("diff --live --format md: exit %d\n%s", code, out)
	}

	// Against sites that cannot be reached now (the recording's port closed): every answer unknown with the
	// error, no task drifted, the unknowns counted apart.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(tmp, "gone")
	fixtureCassette(t, gone, "http://"+l.Addr().String(), false)
	l.Close()
	out, _, code = bench(t, append([]string{"cassette", "diff", gone, "--live"}, refs...)...)
	for _, want := range []string{"2 tasks, 4 pages: 0 drifted, 0 unchanged, 2 unknown (4 pages could not be read now)",
		"error     FixtureStore--0 (reference answer on the page: recorded yes, now unknown (not read: Get "} {
		if code != 0 || !strings.Contains(out, want) || strings.Contains(out, "now no") {
			t.Errorf("diff --live on unreachable pages: exit %d, lacks %q (or says \"now no\"):\n%s", code, want, out)
		}
	}
	// Without --suite no answer is checked, and --help says so (no default suite).
	out, _, _ = bench(t, "cassette", "diff", a, "--against", b)
	help, _, _ := bench(t, "cassette", "diff", "--help")
	if !strings.Contains(out, "(no reference answer to look for)") || strings.Contains(out, "recorded yes") ||
		!strings.Contains(help, "default: none, no answer is checked") || strings.Contains(help, `(default "zoo")`) {
		t.Errorf("diff without --suite:\n%s\nhelp:\n%s", out, help)
	}

	for _, bad := range [][]string{{"cassette", "diff", a}, {"cassette", "diff", a, "--live", "--against", b},
		{"cassette", "ls", tmp}, {"cassette", "import", "x.har"}} {
		if _, errs, code := bench(t, bad...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 with a message", bad, code, errs)
		}
	}
}

// readAttempts decodes a run directory's attempts.jsonl.
func readAttempts(t *testing.T, dir string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "attempts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// bench run --replay --record-missing, while the fixture server runs (the suite starts it), fetches the entry
// removed from the tape live and appends it: the attempt passes with that one miss, and the next replay has
// none.
func TestRecordMissingRefillsAReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Chromium")
	}
	tmp := t.TempDir()
	cas := filepath.Join(tmp, "cas")
	suite := []string{"run", "--suite", "webvoyager", "--tasks-file", "suites/webvoyager/fixtures/tasks.jsonl",
		"--tasks", "FixtureRecipes--0"}
	_, errs, code := bench(t, append(suite, "--record", cas, "--out", filepath.Join(tmp, "rec"))...)
	if code != 0 {
		t.Fatalf("record: exit %d: %s", code, errs)
	}
	c, err := cassette.Open(cas)
	if err != nil {
		t.Fatal(err)
	}
	tape, err := c.Tape("FixtureRecipes--0")
	if err != nil {
		t.Fatal(err)
	}
	n := len(tape.Entries)
	// The run ends with one line saying what it recorded and how to replay it.
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	if want := fmt.Sprintf("recorded into cassette %s: 1 task, %d entries (requests), ", cas, n); !strings.HasPrefix(lines[len(lines)-1], want) ||
		!strings.Contains(lines[len(lines)-1], "; secrets stripped (") || !strings.HasSuffix(lines[len(lines)-1], "; replay with --replay "+cas) {
		t.Errorf("the recording's last line %q; want it to start %q and name the secrets and --replay", lines[len(lines)-1], want)
	}
	tape.Entries = slices.DeleteFunc(tape.Entries, func(e cassette.Entry) bool { return strings.HasSuffix(e.Request.URL, fixtureLasagna) })
	if len(tape.Entries) != n-1 {
		t.Fatalf("the recording has %d entries, %d of them the lasagna page; want one", n, n-len(tape.Entries))
	}
	b, err := json.Marshal(tape)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.TapePath("FixtureRecipes--0"), b, 0o644); err != nil {
		t.Fatal(err)
	}

	for i, want := range []float64{1, 0} {
		args := append(suite, "--replay", cas, "--out", filepath.Join(tmp, fmt.Sprint("replay", i)))
		if i == 0 {
			args = append(args, "--record-missing")
		}
		_, errs, code := bench(t, args...)
		recs := readAttempts(t, filepath.Join(tmp, fmt.Sprint("replay", i)))
		if code != 0 || len(recs) != 1 || recs[0]["status"] != "pass" || recs[0]["cassette_misses"] != want {
			t.Fatalf("replay %d: exit %d, records %v; want a pass with %v misses\n%s", i, code, recs, want, errs)
		}
		// The filled page's body is still among the blobs (only its entry was taken out): no new body.
		filled := "filled cassette " + cas + ": 1 missed request fetched live and appended to 1 task's tape, 0 bodies new (0 B stored)"
		if strings.Contains(errs, filled) != (i == 0) || strings.Contains(errs, "recorded into cassette") {
			t.Errorf("replay %d: stderr says %q: %v; want it only with --record-missing:\n%s", i, filled, strings.Contains(errs, filled), errs)
		}
	}
	if again, _ := c.Tape("FixtureRecipes--0"); len(again.Entries) != n {
		t.Errorf("the tape after the filling replay has %d entries, want %d", len(again.Entries), n)
	}
}

// A recording of the whole fixture suite by the scripted policy (consent answered, cookies set), then the fixture
// sites served again on the recorded address with one answer changed (the lasagna recipe's 181 reviews become
// 182): `bench cassette diff --live` flags that task and its reference answer, and no other task — the pages the
// policy saw behind the consent dialog compare equal to the live pages that show it.
func TestFixtureDriftAfterARecordedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Chromium")
	}
	tmp := t.TempDir()
	cas := filepath.Join(tmp, "cas")
	suite := []string{"--suite", "webvoyager", "--tasks-file", "suites/webvoyager/fixtures/tasks.jsonl"}
	if _, errs, code := bench(t, append([]string{"run", "--record", cas, "--out", filepath.Join(tmp, "rec")}, suite...)...); code != 0 {
		t.Fatalf("record: exit %d: %s", code, errs)
	}
	c, err := cassette.Open(cas)
	if err != nil {
		t.Fatal(err)
	}
	pages, err := c.Pages("FixtureRecipes--0")
	if err != nil || len(pages) == 0 {
		t.Fatalf("pages of FixtureRecipes--0: %d, %v", len(pages), err)
	}
	u, err := url.Parse(pages[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	// The run's fixture server is gone; its address is free for the changed copy.
	ln, err := net.Listen("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != fixtureLasagna {
			webvoyager.FixtureHandler().ServeHTTP(w, r)
			return
		}
		x := serveFixture(t, webvoyager.FixtureHandler(), r.URL.RequestURI(), true)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(x.Status)
		_, _ = w.Write(x.Body)
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	out, errs, code := bench(t, append([]string{"cassette", "diff", cas, "--live", "--format", "json"}, suite...)...)
	if code != 0 {
		t.Fatalf("diff: exit %d: %s", code, errs)
	}
	var r drift.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if d := r.WithStatus(drift.Drifted); !slices.Equal(d, []string{"FixtureRecipes--0"}) || !slices.Equal(r.Reviews(), d) ||
		r.Counts[drift.Unchanged] != len(r.Tasks)-1 || len(r.Tasks) != 5 {
		t.Errorf("drifted %v, reviews %v, counts %v of %d tasks\n%s", d, r.Reviews(), r.Counts, len(r.Tasks), out)
	}
}
