package browser

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"webbench/browser/cassette"
	"webbench/browser/cassette/cassettetest"
)

// The secrets a cassette must not store unless asked: a cookie the server sets (and the page sends back), an
// Authorization header and an access token in a query string. The page builds the token from two halves so the
// page's own body does not hold it (a cassette stores bodies as served).
const (
	secretCookie = "COOKIE-SECRET-1"
	secretToken  = "TOKEN-SECRET-2"
	secretAuth   = "AUTH-SECRET-3"
)

const cassettePage = `<!doctype html><html><head><title>Cassette</title></head><body>
<h1>Cassette fixture</h1>
<p id="today"></p><p id="data">loading</p>
<a href="/go">Go</a>
<script>
document.getElementById('today').textContent = 'today ' + new Date().toISOString().slice(0, 10);
const tok = 'TOKEN-' + 'SECRET-2';
fetch('/api/data?access_token=' + tok + '&_=' + Date.now(), {headers: {Authorization: 'Bearer AUTH-' + 'SECRET-3'}})
  .then(r => r.text()).then(t => { document.getElementById('data').textContent = t; });
</script></body></html>`

// cassetteServer serves cassettePage at /, setting the secret cookie; /api/data answers "data for <cookie
// names>" (so a request without the cookie would show it), /go redirects to /final.
func cassetteServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: secretCookie, Path: "/"})
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, cassettePage)
		case "/api/data":
			c, _ := r.Cookie("sid")
			ok := c != nil && r.URL.Query().Get("access_token") == secretToken &&
				r.Header.Get("Authorization") == "Bearer "+secretAuth
			fmt.Fprintf(w, "data ok=%v", ok)
		case "/go":
			http.Redirect(w, r, "/final", http.StatusFound)
		case "/final":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><title>Final</title><h1>Final page</h1>`)
		default:
			http.NotFound(w, r)
		}
	}))
}

// recordCassette plays the fixture's attempt (home page, its fetch, the redirect) into a new cassette at dir.
func recordCassette(t *testing.T, dir, base string, secrets bool, at time.Time) {
	t.Helper()
	c, err := cassette.Create(dir, cassette.Options{Secrets: secrets, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	att := c.Attempt("fixture-1", "attempt-1")
	s, err := testBrowser.NewSession(SessionOptions{Cassette: att})
	if err != nil {
		t.Fatal(err)
	}
	playCassetteAttempt(t, s, base, "data ok=true", time.Now().UTC().Format("2006-01-02"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := att.Close(); err != nil {
		t.Fatal(err)
	}
}

// playCassetteAttempt loads the home page, waits for its fetch, checks the page's date, follows the redirect.
func playCassetteAttempt(t *testing.T, s *Session, base, wantData, wantDay string) {
	t.Helper()
	if err := s.Navigate(base + "/"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Page().WaitForFunction(`() => document.getElementById('data').textContent !== 'loading'`, nil); err != nil {
		t.Fatal(err)
	}
	if got := eval(t, s, `() => document.getElementById('data').textContent`); got != strconv.Quote(wantData) {
		t.Errorf("data = %q, want %q", got, wantData)
	}
	if got := eval(t, s, `() => document.getElementById('today').textContent`); got != strconv.Quote("today "+wantDay) {
		t.Errorf("page date = %q, want today %s", got, wantDay)
	}
	if err := s.Navigate(base + "/go"); err != nil {
		t.Fatal(err)
	}
	if u, title := s.PageInfo(); u != base+"/final" || title != "Final" {
		t.Errorf("after the redirect: %s %q, want %s/final \"Final\"", u, title, base)
	}
}

// TestCassetteSecrets records the fixture's attempt twice: without --record-secrets the cassette's bytes
// (tapes, manifest, decompressed bodies) hold none of the cookie, the Authorization header and the URL token;
// with it they hold all three.
func TestCassetteSecrets(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test (needs Chromium)")
	}
	srv := cassetteServer()
	defer srv.Close()
	for _, keep := range []bool{false, true} {
		dir := t.TempDir()
		recordCassette(t, dir, srv.URL, keep, time.Now())
		all := cassettetest.Bytes(t, dir)
		for _, s := range []string{secretCookie, secretToken, secretAuth} {
			if got := bytes.Contains(all, []byte(s)); got != keep {
				t.Errorf("recorded with secrets=%v: the cassette holds %s: %v", keep, s, got)
			}
		}
		if !bytes.Contains(all, []byte("/final")) {
			t.Errorf("secrets=%v: the redirect's Location is not in the cassette", keep)
		}
	}
}

// TestCassetteReplayOffline records the fixture's attempt, stops the fixture server, and replays it in a
// Chromium whose every connection, loopback included, goes to a counting listener
// (cassettetest.CountConnections).
// The replay shows the recorded data and the record date, follows the recorded redirect, answers an unrecorded
// page with a 404 counted as a miss, closes a WebSocket the page opens (a miss too), and opens no connection.
func TestCassetteReplayOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test (needs Chromium)")
	}
	srv := cassetteServer()
	base := srv.URL
	dir := t.TempDir()
	at := time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC)
	recordCassette(t, dir, base, false, at)
	srv.Close()

	proxy, conns := cassettetest.CountConnections(t)
	b, err := testDriver.Launch(LaunchOptions{Headless: true, Args: proxy})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	c, err := cassette.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	att := c.Attempt("fixture-1", "attempt-2")
	s, err := b.NewSession(SessionOptions{Cassette: att})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The recorded /api/data saw the cookie, token and header: its answer is replayed although none was stored.
	playCassetteAttempt(t, s, base, "data ok=true", "2025-03-01")
	if err := s.Navigate(base + "/never-recorded?sid=abc"); err != nil {
		t.Fatal(err)
	}
	if got := eval(t, s, `() => document.body.innerText`); !strings.Contains(got, "no recorded response") {
		t.Errorf("unrecorded page shows %q, want the cassette's 404", got)
	}
	// A WebSocket the page opens is closed by the cassette without a connection, and counted as a miss.
	wsURL := "ws" + strings.TrimPrefix(base, "http") + "/ws"
	closed := eval(t, s, `() => new Promise(done => {
		const ws = new WebSocket(`+strconv.Quote(wsURL)+`);
		ws.onopen = () => done('open');
		ws.onclose = () => done('closed');
	})`)
	if closed != strconv.Quote("closed") {
		t.Errorf("the page's WebSocket: %s, want closed", closed)
	}
	if m := att.Misses(); len(m) != 2 || m[0] != base+"/never-recorded?sid=REDACTED" || m[1] != wsURL {
		t.Errorf("misses = %q, want the unrecorded page and the WebSocket %s", m, wsURL)
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("replay opened %d connections, want 0", n)
	}
}
