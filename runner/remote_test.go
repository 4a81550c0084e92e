package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"webbench/agent/guard"
	"webbench/browser"
	"webbench/results"
	"webbench/suites"
)

// The remote-browser test: a Zoo run whose browsers all come from a real Playwright browser server —
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
// allow-list's own hook, called by the route of each context) before the Zoo's own allow-list decides. The
// environment of the runner's check before the run (checkRemoteID) is not hooked. onOpen and onDone, when set,
// are told when an attempt's environment opens and when the attempt is done with its browser (its final state
// read, or its environment closed); start, when set, replaces every start page.
type hookSuite struct {
	suites.Suite
	tasks          []suites.Task
	onRequest      func(attemptID, url string)
	onOpen, onDone func(attemptID string)
	start          string
}

func (s *hookSuite) Tasks() []suites.Task { return s.tasks }

func (s *hookSuite) Open(ctx context.Context, t suites.Task, attemptID string) (suites.Env, error) {
	env, err := s.Suite.Open(ctx, t, attemptID)
	if err != nil {
		return nil, err
	}
	if attemptID != checkRemoteID && s.onOpen != nil {
		s.onOpen(attemptID)
	}
	return &hookEnv{Env: env, id: attemptID, s: s}, nil
}

type hookEnv struct {
	suites.Env
	id string
	s  *hookSuite
}

func (e *hookEnv) Allowed(u string) bool {
	if e.id != checkRemoteID && e.s.onRequest != nil {
		e.s.onRequest(e.id, u)
	}
	if e.s.start != "" && strings.HasPrefix(u, e.s.start) {
		return true // the replaced start page is the tenant's
	}
	return e.Env.Allowed(u)
}

func (e *hookEnv) StartURL() string {
	if e.s.start != "" {
		return e.s.start
	}
	return e.Env.StartURL()
}

// State is read once the attempt's agent finished and its browser was found still connected (runner.conclude).
func (e *hookEnv) State(ctx context.Context) (json.RawMessage, error) {
	e.done()
	return e.Env.State(ctx)
}

func (e *hookEnv) Close(ctx context.Context) error {
	e.done()
	return e.Env.Close(ctx)
}

func (e *hookEnv) done() {
	if e.id != checkRemoteID && e.s.onDone != nil {
		e.s.onDone(e.id)
	}
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
// Chromium, SIGKILL) during the third attempt's agent loop (its probe's fetch), restarting one on the same port. It checks
// that every attempt ran in the remote browser (local Chromium is made impossible to launch) and passed — so the
// Zoo on loopback was reachable from it —, that each attempt's context started empty (no localStorage or
// cookie from earlier attempts on the same origin and browser), that the tenant allow-list still blocked a
// request outside it (nothing reached the outside server), that the attempts cut by the dead server were
// recorded as infrastructure errors and retried after reconnecting — every attempt in flight at the kill has an
// infra record, then a passing one; every planned attempt ending with one
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
	// The attempts park inside an evaluate (the probe's fetch, below) until the kill: evaluate_isolation would
	// cut one parked longer than its 5 s cap — on a loaded machine, one waiting while the other attempt is slow
	// to reach its probe — and the test would depend on that timer. Its plain, unbounded evaluate has none.
	v.Guards = maps.Clone(v.Guards)
	v.Guards[guard.NameEvaluateIsolation] = false

	// Kill the server during the agent loop: when the third attempt's probe (an evaluate step) fetches the
	// outside URL — held in the route handler, which the bench runs on a goroutine of its own — and every other
	// attempt in flight is held at such a fetch too (or is done with its browser), so that which attempts the
	// kill cuts is known, not a race. Then start another server on the same port.
	leak := outside.URL + "/leak"
	var (
		order    []string
		open     = map[string]bool{} // environment open, browser not yet done with
		parked   = map[string]bool{} // held at the probe's fetch
		trigger  string
		killed   bool
		inflight []string // the attempts whose run overlapped the kill
	)
	cond := sync.NewCond(&mu)
	restarted := make(chan struct{})
	hs := &hookSuite{Suite: zs, tasks: tasks,
		onOpen: func(id string) {
			mu.Lock()
			defer mu.Unlock()
			if !slices.Contains(order, id) {
				order = append(order, id)
				if len(order) == 3 {
					trigger = id
				}
			}
			open[id] = true
		},
		onDone: func(id string) {
			mu.Lock()
			defer mu.Unlock()
			delete(open, id)
			cond.Broadcast()
		},
		onRequest: func(id, u string) {
			mu.Lock()
			defer mu.Unlock()
			if killed || trigger == "" || !strings.HasPrefix(u, leak) {
				return
			}
			parked[id] = true
			defer delete(parked, id)
			cond.Broadcast()
			for !killed {
				all := true
				for o := range open {
					all = all && parked[o]
				}
				if id == trigger && all {
					for o := range open {
						inflight = append(inflight, o)
					}
					killed = true
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
					cond.Broadcast()
					break
				}
				cond.Wait()
			}
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
				if x := probeRe.FindStringSubmatch(res.RawText()); x != nil {
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
	// Every attempt whose run overlapped the kill (the third among them) was an infrastructure error, then
	// passed on a retry after reconnecting.
	if !slices.Contains(inflight, trigger) {
		t.Errorf("the kill's attempt %s is not among those in flight %v", trigger, inflight)
	}
	for _, id := range inflight {
		recs := perID[id]
		if len(recs) < 2 || recs[0].Status != results.StatusError || recs[0].ErrorClass != results.ClassInfra ||
			recs[len(recs)-1].Status != results.StatusPass {
			t.Errorf("attempt %s (in flight at the kill): records %+v, want an infra error then a passing retry", id, recs)
		} else {
			t.Logf("in flight at the kill: %s: %s", id, recs[0].Error)
		}
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

// triesRe reads the count of failed connects from the error that stops a run (remoteDown.gaveUp).
var triesRe = regexp.MustCompile(`(\d+) connects? by the workers failed`)

// TestWorkerReconnectWindow: a worker whose remote browser server is not there keeps connecting for
// Options.BrowserReconnect (3 s; 0.25 s, then doubling, between tries), then sets the BrowserError that stops
// the run, counting the tries; the window is shared — a second worker on the same state, once it expired, gives
// up without a try —; a negative window stops at the first failed connect.
func TestWorkerReconnectWindow(t *testing.T) {
	drv := testDriver(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "ws://" + l.Addr().String() + wsPath
	l.Close()
	opts := Options{BrowserEndpoint: closed, BrowserReconnect: 3 * time.Second, BrowserConnectTimeout: 2 * time.Second}
	tries := func(wk *worker, err error) int {
		t.Helper()
		var be *BrowserError
		if !errors.As(err, &be) || !be.Running || wk.stop != be {
			t.Fatalf("error %v (stop %v), want the worker's BrowserError that stops the run", err, wk.stop)
		}
		m := triesRe.FindStringSubmatch(err.Error())
		if m == nil {
			t.Fatalf("error %q names no count of tries", err)
		}
		n, _ := strconv.Atoi(m[1])
		if strings.Contains(err.Error(), "s3cret-path") {
			t.Errorf("error holds the endpoint's path: %v", err)
		}
		return n
	}
	down := &remoteDown{}
	wk := &worker{drv: drv, opts: opts, down: down}
	_, err = wk.browser(context.Background())
	n := tries(wk, err)
	// Tries at 0, 0.25, 0.75 and 1.75 s; the next wait ends with the window: 4 tries (fewer on a machine slow
	// enough to take long over each).
	if n < 2 || n > 4 || !strings.Contains(err.Error(), "3s (--browser-reconnect)") {
		t.Errorf("3 s window: %v, want 2–4 connects", err)
	}
	wk2 := &worker{drv: drv, opts: opts, down: down}
	_, err = wk2.browser(context.Background())
	if n2 := tries(wk2, err); n2 != n {
		t.Errorf("second worker after the window expired: %d tries in all, want %d (no new try)", n2, n)
	}
	// A negative window (--browser-reconnect 0): one try, and the error says so in those words, not as a
	// window of -1ns.
	opts.BrowserReconnect = -1
	wk3 := &worker{drv: drv, opts: opts}
	_, err = wk3.browser(context.Background())
	var be *BrowserError
	if !errors.As(err, &be) || !be.Running || wk3.stop != be {
		t.Fatalf("negative window: %v (stop %v), want the worker's BrowserError that stops the run", err, wk3.stop)
	}
	if msg := err.Error(); !strings.Contains(msg, "the first failed connect stops the run (--browser-reconnect 0)") ||
		strings.Contains(msg, "-1ns") || strings.Contains(msg, "window") || strings.Contains(msg, "s3cret-path") {
		t.Errorf("negative window: error %q, want it worded as --browser-reconnect 0", msg)
	}
	if wk3.down.tries != 1 {
		t.Errorf("negative window: %d tries, want 1", wk3.down.tries)
	}
}

// TestRemoteDownWindowStart: the reconnect window starts when the first failed connect was tried, not when it
// failed — a black-holed server's connect timeout is part of the window, not added to it — and later failures
// do not move it.
func TestRemoteDownWindowStart(t *testing.T) {
	r := &remoteDown{}
	tried := time.Now().Add(-2 * time.Second) // a connect that took 2 s to time out
	if left := r.failed(errors.New("timeout"), tried, 3*time.Second); left > time.Second {
		t.Errorf("3 s window, first connect tried 2 s ago: %s left, want at most 1 s", left)
	}
	if left := r.failed(errors.New("timeout"), time.Now(), 3*time.Second); left > time.Second {
		t.Errorf("a second failure moved the window: %s left, want at most 1 s", left)
	}
	if !r.since.Equal(tried) || r.tries != 2 {
		t.Errorf("window since %s, %d tries; want %s, 2", r.since, r.tries, tried)
	}
	if msg := r.gaveUp(3 * time.Second).Error(); !strings.Contains(msg, "3s (--browser-reconnect), 2 connects") {
		t.Errorf("gave up: %q", msg)
	}
}

// TestRemoteServerGone: a browser server killed during a run (two workers, retries 2, a 3 s reconnect window)
// and not restarted stops the run — one window for all workers, not one per attempt and try — with a running
// BrowserError, after a handful of connects (not (retries+1) windows per attempt); the records before it are
// kept, every record is judged or the infra error of an attempt the kill cut (at most one per worker), the
// attempts left are not recorded; after the server is back on its port, the same run resumes and completes,
// the first invocation's records unchanged.
func TestRemoteServerGone(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	serverOut := &lockedBuffer{}
	srv := startBrowserServer(t, 0, serverOut)
	port := srv.Port()
	endpoint := srv.Endpoint()
	zs, tasks := zooShop(t, "shop-qa-yoga-mat-thickness,shop-qa-hero-hoodie-sku,shop-qa-stasis-ball-rating,"+
		"recipes-qa-lasagna-protein,recipes-qa-cookies-oven-temperature,chat-post-town-square-mei")
	if len(tasks) != 6 {
		t.Fatalf("want 6 tasks, got %d", len(tasks))
	}
	var mu sync.Mutex
	var order []string
	hs := &hookSuite{Suite: zs, tasks: tasks, onOpen: func(id string) {
		mu.Lock()
		defer mu.Unlock()
		if slices.Contains(order, id) {
			return
		}
		order = append(order, id)
		if len(order) == 3 {
			srv.Kill()
		}
	}}
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: []Variant{cleanVariant()}, BaseSeed: 5}
	dir := t.TempDir()
	logBuf := &lockedBuffer{}
	opts := Options{OutDir: dir, Workers: 2, Retries: 2, Log: logBuf, Chromium: "/nonexistent/chromium",
		BrowserEndpoint: endpoint, BrowserReconnect: 3 * time.Second, BrowserConnectTimeout: 2 * time.Second}
	_, err := Run(context.Background(), plan, hs, opts)
	var be *BrowserError
	if !errors.As(err, &be) || !be.Running || errors.Is(err, browser.ErrVersionMismatch) {
		t.Fatalf("run with the server gone: %v, want a running BrowserError\nlog:\n%s", err, logBuf.String())
	}
	t.Logf("stopped: %v", err)
	m := triesRe.FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("error names no count of tries: %v", err)
	}
	// Two workers, each waiting 0.25, 0.5, 1 s… within one 3 s window: at most 4 tries each (10 leaves slack).
	// A window per attempt and try would go on past 3 × 4 tries per worker, and the run would not stop.
	if n, _ := strconv.Atoi(m[1]); n < 1 || n > 10 {
		t.Errorf("%d failed connects before the run stopped, want 1–10 (one 3 s window for the run)", n)
	}
	for _, s := range []string{"s3cret-path"} {
		if strings.Contains(err.Error(), s) || strings.Contains(logBuf.String(), s) {
			t.Errorf("the error or the log holds the endpoint's path")
		}
	}
	run1, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	// judged: a pass, or an agent's failure the judges decided (what the scripted policy does on a loaded
	// machine is not this test's question; that no attempt is lost or misclassified is).
	judged := func(r results.Attempt) bool {
		if r.Status == results.StatusFail && r.Verdict.Judge != "" {
			t.Logf("attempt %s (%s) failed as the agent's: %s %s", r.AttemptID, r.TaskID, r.FailureMode, r.Final)
		}
		return r.Status == results.StatusPass || (r.Status == results.StatusFail && r.Verdict.Judge != "")
	}
	infra := 0
	for _, r := range run1.Records {
		switch {
		case judged(r):
		case r.Status == results.StatusError && r.ErrorClass == results.ClassInfra:
			infra++
		default:
			t.Errorf("attempt %s: %s/%s %s", r.AttemptID, r.Status, r.ErrorClass, r.Error)
		}
	}
	done := len(run1.Records) - infra
	if infra > 2 || done >= len(tasks) || done < 1 {
		t.Errorf("first invocation: %d records (%d infra, %d judged); want ≤ 2 infra (one per worker), the first "+
			"attempt (done before the kill) judged, not all %d", len(run1.Records), infra, done, len(tasks))
	}
	if run1.Manifest.Summary == nil || run1.Manifest.Summary.Stopped == "" {
		t.Errorf("manifest summary %+v: want the stop recorded", run1.Manifest.Summary)
	}

	// The server is back: the same command resumes.
	srv2, err := browser.StartServer(browser.ServerOptions{Port: port, WSPath: wsPath, Output: serverOut})
	if err != nil {
		t.Fatal(err)
	}
	defer srv2.Close()
	hs.onOpen = nil
	if _, err := Run(context.Background(), plan, hs, opts); err != nil {
		t.Fatalf("resume: %v\nlog:\n%s", err, logBuf.String())
	}
	run2, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run2.Final()) != len(tasks) {
		t.Errorf("after resume: %d final records, want %d", len(run2.Final()), len(tasks))
	}
	for _, r := range run2.Final() {
		if !judged(r) {
			t.Errorf("after resume: %s %s/%s %s", r.AttemptID, r.Status, r.ErrorClass, r.Error)
		}
	}
	if len(run2.Records) < len(run1.Records) {
		t.Fatalf("resume lost records: %d then %d", len(run1.Records), len(run2.Records))
	}
	for i, r := range run1.Records {
		if g := run2.Records[i]; g.AttemptID != r.AttemptID || g.Status != r.Status || g.Retries != r.Retries {
			t.Errorf("record %d changed on resume: %s %s → %s %s", i, r.AttemptID, r.Status, g.AttemptID, g.Status)
		}
	}
}

// remoteCheckSetup starts a browser server and a driver (both stopped when t ends) and opens the Zoo shop with
// one task, for the tests of checkRemote.
func remoteCheckSetup(t *testing.T) (*browser.Server, *browser.Driver, suites.Suite, []suites.Task) {
	t.Helper()
	srv := startBrowserServer(t, 0, &lockedBuffer{})
	t.Cleanup(func() { srv.Close() })
	drv := testDriver(t)
	zs, tasks := zooShop(t, "shop-qa-hero-hoodie-sku")
	return srv, drv, zs, tasks
}

// TestRemoteCheckReach: the check before a remote run loads the suite's start page in the remote browser: the
// Zoo's passes; a start page the browser cannot load (a loopback port with nothing listening, as this
// machine's loopback is to a browser server on another machine) is refused with ErrBrowserUnreachable, naming
// the likely causes — no --browser-expose-network, or, when it was given, a launch-server server ignoring it —
// and Run writes nothing.
func TestRemoteCheckReach(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	srv, drv, zs, tasks := remoteCheckSetup(t)
	opts := Options{BrowserEndpoint: srv.Endpoint(), BrowserConnectTimeout: 10 * time.Second}
	if err := checkRemote(context.Background(), drv, opts, zs, &tasks[0]); err != nil {
		t.Fatalf("the Zoo's start page through the remote browser: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/"
	l.Close()
	hs := &hookSuite{Suite: zs, tasks: tasks, start: closed}
	for _, c := range []struct {
		expose string
		want   []string
	}{
		{"", []string{"--browser-expose-network '<loopback>'", "run-server", closed, "ERR_CONNECTION_REFUSED",
			"host 127.0.0.1"}},
		{"<loopback>", []string{"launch-server) ignores exposeNetwork", "run-server",
			"a rule must match the start page's host as written (127.0.0.1"}},
	} {
		o := opts
		o.BrowserExposeNetwork = c.expose
		err := checkRemote(context.Background(), drv, o, hs, &tasks[0])
		var be *BrowserError
		if !errors.Is(err, ErrBrowserUnreachable) || !errors.As(err, &be) || be.Running {
			t.Fatalf("unreachable start page (expose %q): %v, want ErrBrowserUnreachable", c.expose, err)
		}
		for _, s := range c.want {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("expose %q: error lacks %q:\n%v", c.expose, s, err)
			}
		}
		if strings.Contains(err.Error(), "s3cret-path") {
			t.Errorf("error holds the endpoint's path: %v", err)
		}
	}
	// localhost is loopback too: refused the same way.
	lh := &hookSuite{Suite: zs, tasks: tasks, start: strings.Replace(closed, "127.0.0.1", "localhost", 1)}
	if err := checkRemote(context.Background(), drv, opts, lh, &tasks[0]); !errors.Is(err, ErrBrowserUnreachable) ||
		!strings.Contains(err.Error(), "host localhost") {
		t.Errorf("unreachable start page on localhost: %v, want ErrBrowserUnreachable naming the host", err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: []Variant{cleanVariant()}, BaseSeed: 1}
	_, err = Run(context.Background(), plan, hs, Options{OutDir: dir, Workers: 1, Log: io.Discard,
		BrowserEndpoint: srv.Endpoint(), Chromium: "/nonexistent/chromium"})
	if !errors.Is(err, ErrBrowserUnreachable) || !strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("run: %v, want ErrBrowserUnreachable and nothing written", err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("%s was created by a run refused before it started", dir)
	}
}

// openFails is a suite whose environments never open (a WebVoyager live site whose probe fails).
type openFails struct{ suites.Suite }

func (openFails) Open(context.Context, suites.Task, string) (suites.Env, error) {
	return nil, errors.New("webvoyager: probe: site unreachable")
}

// TestRemoteCheckLiveSite: the check before a remote run refuses only a start page on loopback the remote
// browser cannot load; a start page elsewhere — a live site, here http://192.0.2.1/ (TEST-NET-1, RFC 5737:
// unroutable, so loading it would hang until the navigation timeout, then refuse the run) — is not loaded,
// whether the task's start URL says so or only its environment's does, nor is a run refused because the
// environment did not open (a live site's probe): each is an attempt's infrastructure error, as in a local
// run. The connect itself is still checked.
func TestRemoteCheckLiveSite(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	srv, drv, zs, tasks := remoteCheckSetup(t)
	const live = "http://192.0.2.1/"
	var logBuf bytes.Buffer
	opts := Options{BrowserEndpoint: srv.Endpoint(), BrowserConnectTimeout: 10 * time.Second, Log: &logBuf}

	// The task's own start URL is off loopback: no environment is opened (this suite's would fail).
	lt := tasks[0]
	lt.ID, lt.Start = "Site--0", live
	began := time.Now()
	if err := checkRemote(context.Background(), drv, opts, openFails{zs}, &lt); err != nil {
		t.Errorf("live start URL %s: %v, want no refusal", live, err)
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Logf("live start URL: the check took %s (was the page loaded?)", d)
	}
	if !strings.Contains(logBuf.String(), "Site--0's start page "+live+" is not on loopback") {
		t.Errorf("log %q does not say the live start page is not checked", logBuf.String())
	}

	// The environment's start page is off loopback (the task's is relative): not loaded either.
	logBuf.Reset()
	if err := checkRemote(context.Background(), drv, opts, &hookSuite{Suite: zs, tasks: tasks, start: live},
		&tasks[0]); err != nil {
		t.Errorf("environment start page %s: %v, want no refusal", live, err)
	}
	if !strings.Contains(logBuf.String(), "is not on loopback") {
		t.Errorf("log %q does not say the live start page is not checked", logBuf.String())
	}

	// The environment does not open: the connect was checked, the run is not refused.
	logBuf.Reset()
	if err := checkRemote(context.Background(), drv, opts, openFails{zs}, &tasks[0]); err != nil {
		t.Errorf("environment that does not open: %v, want no refusal", err)
	}
	if !strings.Contains(logBuf.String(), "did not open (webvoyager: probe: site unreachable)") {
		t.Errorf("log %q does not say the environment did not open", logBuf.String())
	}

	// The connect is still checked: a server not there refuses the run, saying nothing was written.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "ws://" + l.Addr().String() + wsPath
	l.Close()
	o := opts
	o.BrowserEndpoint = gone
	err = checkRemote(context.Background(), drv, o, openFails{zs}, &lt)
	var be *BrowserError
	if !errors.As(err, &be) || be.Running || !strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("no server, live start URL: %v, want a BrowserError before the run", err)
	}
}

// TestLoopbackHost: the hosts the check before a remote run loads the start page of.
func TestLoopbackHost(t *testing.T) {
	for h, want := range map[string]bool{"localhost": true, "LOCALHOST": true, "app.localhost": true,
		"127.0.0.1": true, "127.3.2.1": true, "::1": true, "localhost.": true,
		"192.0.2.1": false, "example.com": false, "localhost.example.com": false, "10.0.0.1": false, "": false,
		"::": false, "128.0.0.1": false} {
		if got := loopbackHost(h); got != want {
			t.Errorf("loopbackHost(%q) = %v, want %v", h, got, want)
		}
	}
}
