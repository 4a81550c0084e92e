package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"webbench/agent/browser"
	"webbench/results"
	"webbench/suites"
)

// The remote-browser test (issue 18): a Zoo run whose browsers all come from a real Playwright browser server —
// the project's own driver (playwright-core 1.64.1) running chromium.launchServer with Debian Chromium on
// loopback (browser.StartServer) — behind an authenticating gateway, as hosted pools put one (an Authorization
// header and a ?token= query, both required). References: BrowserType.launchServer and BrowserType.connect
// (headers, timeout) at https://playwright.dev/docs/api/class-browsertype; playwright-go's
// BrowserTypeConnectOptions{Headers, Timeout}.

// probeFn runs on each attempt's start page, on the Zoo origin every tenant shares: it reports what an earlier
// context could have left there (localStorage, a cookie), leaves both, and fetches a URL outside the tenant's
// allow-list (the test's own server, which counts what reaches it).
const probeFn = `async () => {
  const storage = localStorage.getItem('webbench_probe') ? 'set' : 'none';
  const cookie = document.cookie.includes('webbench_probe=') ? 'set' : 'none';
  localStorage.setItem('webbench_probe', '1');
  document.cookie = 'webbench_probe=1; path=/';
  const outside = await fetch('OUTSIDE').then(() => 'reached', () => 'blocked');
  return 'probe storage=' + storage + ' cookie=' + cookie + ' outside=' + outside;
}`

var probeRe = regexp.MustCompile(`probe storage=(\w+) cookie=(\w+) outside=(\w+)`)

// hookSuite wraps the Zoo: its tasks get the probe (twice: the second call must see what the first left, so
// the check could fail), and every request an attempt's browser makes passes through onRequest (the tenant
// allow-list's own hook, called by the route of each context) before the Zoo's own allow-list decides.
type hookSuite struct {
	suites.Suite
	tasks     []suites.Task
	onRequest func(attemptID, url string)
}

func (s *hookSuite) Tasks() []suites.Task { return s.tasks }

func (s *hookSuite) Open(ctx context.Context, t suites.Task, attemptID string) (suites.Env, error) {
	env, err := s.Suite.Open(ctx, t, attemptID)
	if err != nil {
		return nil, err
	}
	return &hookEnv{Env: env, id: attemptID, s: s}, nil
}

type hookEnv struct {
	suites.Env
	id string
	s  *hookSuite
}

func (e *hookEnv) Allowed(u string) bool {
	e.s.onRequest(e.id, u)
	return e.Env.Allowed(u)
}

// gateway is an authenticating WebSocket reverse proxy in front of a browser server: it forwards an upgrade
// only with the expected Authorization header and token query, counting both kinds.
type gateway struct {
	srv              *httptest.Server
	authorised, deny atomic.Int64
}

func newGateway(t *testing.T, backend, auth, token string) *gateway {
	t.Helper()
	target, err := url.Parse("http://" + backend)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ErrorLog = log.New(io.Discard, "", 0) // upstream refused while the server restarts: the 502 is the point
	g := &gateway{}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != auth || r.URL.Query().Get("token") != token {
			g.deny.Add(1)
			http.Error(w, "unauthorised", http.StatusUnauthorized)
			return
		}
		g.authorised.Add(1)
		r.URL.RawQuery = "" // the browser server knows no token
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(g.srv.Close)
	return g
}

// wsPath is the test servers' wsPath: a launchServer's only secret, redacted everywhere as a token is.
const wsPath = "/pw-s3cret-path-4d5e"

// startBrowserServer starts a browser server with the project's driver on port (0: a free one), at wsPath.
func startBrowserServer(t *testing.T, port int, out *lockedBuffer) *browser.Server {
	t.Helper()
	srv, err := browser.StartServer(browser.ServerOptions{Port: port, WSPath: wsPath, Output: out})
	if err != nil {
		t.Fatalf("browser server: %v\n%s", err, out.String())
	}
	return srv
}

// TestRemoteBrowserServer runs six Zoo tasks (reps 1, scripted policy, 2 workers) against a browser server
// started with the project's driver, behind an authenticating gateway, and kills the server (Node.js and its
// Chromium, SIGKILL) when the third attempt makes its first request, restarting one on the same port. It checks
// that every attempt ran in the remote browser (local Chromium is made impossible to launch) and passed — so the
// Zoo on loopback was reachable from it —, that each attempt's context started empty (no localStorage or
// cookie from earlier attempts on the same origin and browser), that the tenant allow-list still blocked a
// request outside it (nothing reached the outside server), that the attempts cut by the dead server were
// recorded as infrastructure errors and retried after reconnecting — every planned attempt ending with one
// judged record, none lost — and that the manifest's browser section says remote with the endpoint redacted,
// while neither the header's value nor the token appears in the run directory or the log.
func TestRemoteBrowserServer(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	const authValue = "Bearer s3cret-header-value-0a1b2c"
	const token = "s3cret-query-token-9z8y7x"
	serverOut := &lockedBuffer{}
	srv := startBrowserServer(t, 0, serverOut)
	port := srv.Port()
	var mu sync.Mutex
	cur := srv
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		cur.Close()
	})
	gw := newGateway(t, fmt.Sprintf("127.0.0.1:%d", port), authValue, token)
	endpoint := "ws" + strings.TrimPrefix(gw.srv.URL, "http") + wsPath + "?token=" + token

	var outsideHits atomic.Int64
	outside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		outsideHits.Add(1)
	}))
	defer outside.Close()

	zs, tasks := zooShop(t, "shop-qa-yoga-mat-thickness,shop-qa-hero-hoodie-sku,shop-qa-stasis-ball-rating,"+
		"recipes-qa-lasagna-protein,recipes-qa-cookies-oven-temperature,chat-post-town-square-mei")
	if len(tasks) != 6 {
		t.Fatalf("want 6 tasks, got %d", len(tasks))
	}
	probe := suites.Step{Kind: "evaluate", Function: strings.Replace(probeFn, "OUTSIDE", outside.URL+"/leak", 1)}
	for i := range tasks {
		tasks[i].Solution = append([]suites.Step{probe, probe}, tasks[i].Solution...)
	}
	// The clean profile with its evaluate steps played (clean skips them).
	prof := filepath.Join(t.TempDir(), "clean-evaluate.yaml")
	if err := os.WriteFile(prof, []byte("base: clean\nevaluate_on_hung_pages: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v := cleanVariant()
	v.Model.Profile = prof

	// Kill the server when the third attempt's browser makes its first request (it is in flight in the remote
	// browser then), and start another on the same port.
	var started []string
	var killed string
	restarted := make(chan struct{})
	hs := &hookSuite{Suite: zs, tasks: tasks, onRequest: func(id, u string) {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range started {
			if s == id {
				return
			}
		}
		started = append(started, id)
		if len(started) != 3 {
			return
		}
		killed = id
		cur.Kill()
		go func() {
			defer close(restarted)
			s, err := browser.StartServer(browser.ServerOptions{Port: port, WSPath: wsPath, Output: serverOut})
			if err != nil {
				t.Errorf("restart the browser server on port %d: %v", port, err)
				return
			}
			mu.Lock()
			cur = s
			mu.Unlock()
		}()
	}}

	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: []Variant{v}, BaseSeed: 3}
	dir := t.TempDir()
	logBuf := &lockedBuffer{}
	// A local launch would fail (no such Chromium): every browser must come from the server.
	sum, err := Run(context.Background(), plan, hs, Options{OutDir: dir, Workers: 2, Retries: 2, Log: logBuf,
		Chromium: "/nonexistent/chromium", BrowserEndpoint: endpoint,
		BrowserHeaders: map[string]string{"Authorization": authValue}})
	if err != nil {
		t.Fatalf("run: %v\nlog:\n%s\nserver:\n%s", err, logBuf.String(), serverOut.String())
	}
	<-restarted

	run, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	final := run.Final()
	if len(final) != len(tasks) || sum.Passed != len(tasks) {
		t.Errorf("%d final records, %d passed; want %d each (summary %+v)", len(final), sum.Passed, len(tasks), sum)
	}
	perID := map[string][]results.Attempt{}
	for _, r := range run.Records {
		perID[r.AttemptID] = append(perID[r.AttemptID], r)
	}
	for _, r := range final {
		if r.Status != results.StatusPass || r.Verdict.Judge == "" {
			t.Errorf("attempt %s (%s): %s %s %s, verdict %+v", r.AttemptID, r.TaskID, r.Status, r.FailureMode, r.Error, r.Verdict)
		}
		// Every try before the last was the dead server's infrastructure error.
		recs := perID[r.AttemptID]
		for _, e := range recs[:len(recs)-1] {
			if e.Status != results.StatusError || e.ErrorClass != results.ClassInfra {
				t.Errorf("attempt %s: an earlier try is %s/%s, want error/infra: %s", r.AttemptID, e.Status, e.ErrorClass, e.Error)
			}
		}
		if r.Retries != len(recs)-1 {
			t.Errorf("attempt %s: retries %d, records %d", r.AttemptID, r.Retries, len(recs))
		}
		// Isolation and the allow-list, from the probe's two results in the trajectory.
		tr, err := run.Trajectory(r.AttemptID)
		if err != nil {
			t.Fatal(err)
		}
		var m [][]string
		for _, st := range tr.Steps {
			for _, res := range st.Results {
				if x := probeRe.FindStringSubmatch(res.Raw); x != nil {
					m = append(m, x)
				}
			}
		}
		if len(m) != 2 {
			t.Errorf("attempt %s (%s): %d probe results in the trajectory, want 2", r.AttemptID, r.TaskID, len(m))
			continue
		}
		if m[0][1] != "none" || m[0][2] != "none" {
			t.Errorf("attempt %s (%s): its fresh context saw an earlier attempt's state: %s", r.AttemptID, r.TaskID, m[0][0])
		}
		if m[1][1] != "set" || m[1][2] != "set" {
			t.Errorf("attempt %s (%s): the probe's own state was not visible to its second call: %s", r.AttemptID, r.TaskID, m[1][0])
		}
		for _, x := range m {
			if x[3] != "blocked" {
				t.Errorf("attempt %s: a request outside the tenant's allow-list was not blocked: %s", r.AttemptID, x[0])
			}
		}
	}
	if n := outsideHits.Load(); n != 0 {
		t.Errorf("the outside server was reached %d time(s) through the remote browser", n)
	}
	// The attempt in flight when the server died was an infrastructure error, retried after reconnecting.
	if recs := perID[killed]; len(recs) < 2 || recs[0].Status != results.StatusError || recs[0].ErrorClass != results.ClassInfra {
		t.Errorf("attempt %s (in flight at the kill): records %+v, want an infra error then a retry", killed, recs)
	} else {
		t.Logf("in flight at the kill: %s", recs[0].Error)
	}

	bi := run.Manifest.Browser
	if bi == nil {
		t.Fatal("manifest has no browser section")
	}
	t.Logf("%d records for %d attempts; manifest browser %+v", len(run.Records), len(final), *bi)
	wantEndpoint := "ws" + strings.TrimPrefix(gw.srv.URL, "http") + "/REDACTED?token=REDACTED"
	if !bi.Remote || bi.Endpoint != wantEndpoint || len(bi.Headers) != 1 || bi.Headers[0] != "Authorization" ||
		len(bi.Versions) != 1 || !strings.HasPrefix(bi.Versions[0], "1") || bi.Launches < 3 {
		t.Errorf("manifest browser = %+v; want remote, endpoint %s, headers [Authorization], one version, ≥3 "+
			"connects (2 workers, then reconnects)", bi, wantEndpoint)
	}
	if run.Manifest.Chromium != "" {
		t.Errorf("manifest chromium_version %q: no local Chromium ran", run.Manifest.Chromium)
	}
	// Every connect went through the gateway with the header and the token; none was refused.
	if a, d := gw.authorised.Load(), gw.deny.Load(); a < int64(bi.Launches) || d != 0 {
		t.Errorf("gateway: %d authorised upgrades, %d refused; %d connects recorded", a, d, bi.Launches)
	}
	// The secrets are nowhere in the run directory or the log.
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, s := range []string{authValue, "s3cret-header", token, "s3cret-path"} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds the secret %q", p, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"s3cret-header", token, "s3cret-path"} {
		if strings.Contains(logBuf.String(), s) {
			t.Errorf("the run log holds the secret %q", s)
		}
	}
}

// TestWorkerReconnectWindow: a worker whose remote browser server is not there keeps connecting for
// Options.BrowserReconnect (0.25 s, then doubling, between tries), then returns the connect error with the
// count of tries; a negative window is one try.
func TestWorkerReconnectWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test (needs the driver)")
	}
	drv, err := browser.StartDriver(browser.DriverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Stop()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "ws://" + l.Addr().String() + "/pw"
	l.Close()
	wk := &worker{drv: drv, opts: Options{BrowserEndpoint: closed, BrowserReconnect: 3 * time.Second,
		BrowserConnectTimeout: 2 * time.Second}}
	_, err = wk.browser(context.Background())
	var n int
	if err == nil {
		t.Fatal("connected to a closed port")
	}
	if _, serr := fmt.Sscanf(err.Error(), "%d connects in 3s", &n); serr != nil || n < 2 {
		t.Errorf("3 s window: %v, want ≥ 2 connects", err)
	}
	wk.opts.BrowserReconnect = -1
	if _, err = wk.browser(context.Background()); err == nil || strings.Contains(err.Error(), "connects in") {
		t.Errorf("one try: %v", err)
	}
}
