package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"webbench/results"
)

// capProxy is a loopback proxy in front of the scripted policy that counts the chat requests it is answering
// at once (received, response not yet started), and answers the first chat request with OpenAI's 429
// rate-limit body (rateLimit429, Retry-After: 0), which a capped client's limiter must react to (and log). It
// holds each request up to 50 ms, cut short when another arrives, so that two workers' calls would overlap if
// nothing kept them apart: the hold only makes a violation likelier to show; the assertion (peak ≤ cap) does
// not depend on it.
type capProxy struct {
	url   string
	mu    sync.Mutex
	cur   int
	peak  int
	calls int
	next  chan struct{} // closed by the next request to arrive
}

func newCapProxy(t *testing.T) *capProxy {
	t.Helper()
	polURL := startScriptedPolicy(t)
	target, _ := url.Parse(strings.TrimSuffix(polURL, "/v1"))
	rp := httputil.NewSingleHostReverseProxy(target)
	p := &capProxy{next: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			rp.ServeHTTP(w, r)
			return
		}
		p.mu.Lock()
		p.cur++
		p.calls++
		p.peak = max(p.peak, p.cur)
		close(p.next) // wakes a held request: this one overlaps it
		mine := make(chan struct{})
		p.next = mine
		first := p.calls == 1
		p.mu.Unlock()
		if first {
			p.mu.Lock()
			p.cur--
			p.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, rateLimit429)
			return
		}
		select {
		case <-mine:
		case <-time.After(50 * time.Millisecond):
		}
		rp.ServeHTTP(&countDown{ResponseWriter: w, p: p}, r)
	}))
	t.Cleanup(srv.Close)
	p.url = srv.URL + "/v1"
	return p
}

// countDown ends a request's count when its response starts: the client cannot free its slot before that.
type countDown struct {
	http.ResponseWriter
	p    *capProxy
	done bool
}

func (c *countDown) WriteHeader(code int) {
	if !c.done {
		c.done = true
		c.p.mu.Lock()
		c.p.cur--
		c.p.mu.Unlock()
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *countDown) Write(b []byte) (int, error) {
	if !c.done {
		c.WriteHeader(http.StatusOK)
	}
	return c.ResponseWriter.Write(b)
}

func (p *capProxy) stats() (peak, calls int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.peak, p.calls
}

// rateLimit429 is OpenAI's 429 "Rate limit reached" body as recorded in Pythagora-io/gpt-pilot pull request #53
// (https://github.com/Pythagora-io/gpt-pilot/pull/53); documented at
// https://platform.openai.com/docs/guides/error-codes ("429 - Rate limit reached for requests").
const rateLimit429 = `{"error":{"message":"Rate limit reached for 10KTPM-200RPM in organization org-OASFC7k1Ff5IzueeLArhQtnT on tokens per min. Limit: 10000 / min. Please try again in 6ms. Contact us through our help center at help.openai.com if you continue to have issues.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`

// limiterLogged reports whether the limiter line was written to the run's standard error or a log file in its
// run directory.
func limiterLogged(stderr, dir, line string) bool {
	if strings.Contains(stderr, line) {
		return true
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, f := range logs {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), line) {
			return true
		}
	}
	return false
}

// manifestCaps returns each variant's recorded max_connections.
func manifestCaps(t *testing.T, dir string) map[string]int {
	t.Helper()
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, v := range m.Plan.Variants {
		out[v.Name] = v.Model.MaxConnections
	}
	return out
}

// bench run --max-connections 2 with 2 workers over a real endpoint whose first answer is a 429: the client's
// limiter for the endpoint has the cap (it logs 2 → 1 after the 429, then grows back), the endpoint never
// answers more than 2 calls at once, the run completes (the 429 retried), the manifest records the cap, and
// resuming with another cap is no plan mismatch.
func TestRunMaxConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	p := newCapProxy(t)
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"run", "--suite", "zoo", "--tasks", twoShopTasks, "--reps", "2", "--workers", "2",
		"--model", "openai:scripted", "--base-url", p.url, "--max-connections", "2", "--out", out}
	_, stderr, code := bench(t, args...)
	peak, calls := p.stats()
	t.Logf("bench run --workers 2 --max-connections 2: exit %d, %d chat calls (the first answered 429), peak concurrency %d", code, calls, peak)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"model endpoint " + p.url, ": concurrency 2 → 1 after HTTP 429",
		": concurrency 1 → 2 after 1 successful calls"} {
		if !limiterLogged(stderr, out, want) {
			t.Errorf("limiter log lacks %q; stderr:\n%s", want, stderr)
		}
	}
	if peak > 2 || calls < 5 {
		t.Errorf("peak concurrency %d over %d calls, want at most 2", peak, calls)
	}
	for id, r := range finalRecords(t, out) {
		if r.Status != "pass" {
			t.Errorf("%s: %s", id, r.Status)
		}
	}
	if got := manifestCaps(t, out); got["default"] != 2 {
		t.Errorf("manifest max_connections %v", got)
	}
	_, stderr, code = bench(t, append(args[:len(args)-4:len(args)-4], "--max-connections", "1", "--out", out)...)
	if code != 0 {
		t.Errorf("resume with --max-connections 1: exit %d: %s", code, stderr)
	}
}

// logText is the run directory's log files, joined.
func logText(dir string) string {
	var b strings.Builder
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, f := range logs {
		if x, err := os.ReadFile(f); err == nil {
			b.Write(x)
		}
	}
	return b.String()
}

// bench ablate: the spec's max_connections (3) reaches every arm and --max-connections 1 replaces it on all of
// them: after the endpoint's 429 the limiter has nothing to halve (a window of 3 would log 3 → 1), two workers
// running both arms never have two calls answered at once, and the manifest records 1 for both arms.
func TestAblateMaxConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	p := newCapProxy(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "caps.yaml")
	src := fmt.Sprintf(`name: caps
suite: zoo
tasks: %q
reps: 1
baseline:
  model: {kind: openai, name: scripted, base_url: %q, max_connections: 3}
variants:
  - name: no_repeat_guard
    guards: {repeat_guard: false}
`, twoShopTasks, p.url)
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	_, stderr, code := bench(t, "ablate", spec, "--workers", "2", "--max-connections", "1", "--out", out)
	peak, calls := p.stats()
	t.Logf("bench ablate --workers 2 --max-connections 1 (spec: 3): exit %d, %d chat calls, peak concurrency %d", code, calls, peak)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr+logText(out), "concurrency 3 →") {
		t.Errorf("the spec's cap of 3 was used; stderr:\n%s", stderr)
	}
	if peak != 1 || calls < 5 {
		t.Errorf("peak concurrency %d over %d calls, want 1", peak, calls)
	}
	if got := manifestCaps(t, out); got["baseline"] != 1 || got["no_repeat_guard"] != 1 {
		t.Errorf("manifest max_connections %v, want 1 for both arms", got)
	}
}

// A negative cap is refused before anything runs.
func TestMaxConnectionsNegative(t *testing.T) {
	for _, args := range [][]string{{"run", "--max-connections", "-1", "--dry-run"},
		{"ablate", "suites/zoo/ablations/demo.yaml", "--max-connections", "-2", "--dry-run"}} {
		_, stderr, code := bench(t, args...)
		if code != 2 || !strings.Contains(stderr, "--max-connections -") {
			t.Errorf("bench %v: exit %d, %s", args, code, stderr)
		}
	}
}
