package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"webbench/llm"
	"webbench/results"
)

// capProxy is a loopback proxy in front of the scripted policy that counts the chat requests it is answering
// at once (received, response not yet started) and, like a server with a concurrency limit, answers OpenAI's
// 429 rate-limit body (rateLimit429, Retry-After: 0) to every chat request that arrives while threshold
// others are in flight. A capped client's limiter must react to those (halve its window, log it) and grow
// back after successes. Every request, 429s included, is held 40 ms before its answer starts, so a refused
// request still occupies the server and the workers' calls pile up when nothing keeps them apart (without a
// cap, 4 workers reached a peak of 3 in a trial run: 44 calls, 5 answered 429): the hold makes a violation
// likely to show; the assertion (peak ≤ cap) does not depend on it.
//
// With overlap set, the first chat call of the run proper (the preflight's calls, which offer
// llm.PreflightTool and run alone, pass through uncounted) is also held until a second call arrives (at most
// overlapWait), so at least one call meets another in flight however slowly the workers start: on a loaded
// machine the 40 ms hold alone once left every call alone (peak 1, 0 of 39 answered 429).
type capProxy struct {
	url       string
	threshold int
	mu        sync.Mutex
	cur       int
	peak      int
	calls     int
	limited   int // requests answered 429
	overlap   bool
	held      bool          // the first call of the run proper has been seen
	second    chan struct{} // closed when a call arrives while the first is held
}

// overlapWait bounds the hold of the first call of the run proper (capProxy.overlap): long enough for a
// second worker to start on a loaded machine, short against the model client's timeout.
const overlapWait = 20 * time.Second

func newCapProxy(t *testing.T, threshold int, overlap bool) *capProxy {
	t.Helper()
	polURL := startScriptedPolicy(t)
	target, _ := url.Parse(strings.TrimSuffix(polURL, "/v1"))
	rp := httputil.NewSingleHostReverseProxy(target)
	p := &capProxy{threshold: threshold, overlap: overlap, second: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			rp.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(llm.PreflightTool)) {
			rp.ServeHTTP(w, r)
			return
		}
		p.mu.Lock()
		over := p.cur >= p.threshold
		p.cur++
		p.calls++
		p.peak = max(p.peak, p.cur)
		if over {
			p.limited++
		}
		first := p.overlap && !p.held
		if p.overlap && p.held && p.cur > 1 {
			select {
			case <-p.second:
			default:
				close(p.second)
			}
		}
		p.held = p.held || p.overlap
		p.mu.Unlock()
		if first {
			select {
			case <-p.second:
			case <-time.After(overlapWait):
			}
		}
		time.Sleep(40 * time.Millisecond)
		if over {
			p.mu.Lock()
			p.cur--
			p.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, rateLimit429)
			return
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

func (p *capProxy) stats() (peak, calls, limited int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.peak, p.calls, p.limited
}

// windowRE matches a limiter line's window change.
var windowRE = regexp.MustCompile(`concurrency (\d+) → (\d+) after (HTTP 429|\d+ successful calls)`)

// windowTrace is the limiter's window over the run, from its log lines: "2 → 1 (429) → 2 (+4 ok) → …".
func windowTrace(log string) (trace string, halvings, growths int) {
	var b strings.Builder
	for i, m := range windowRE.FindAllStringSubmatch(log, -1) {
		if i == 0 {
			b.WriteString(m[1])
		}
		why := "429"
		if m[3] != "HTTP 429" {
			why = "+" + strings.TrimSuffix(m[3], " successful calls") + " ok"
			growths++
		} else {
			halvings++
		}
		fmt.Fprintf(&b, " → %s (%s)", m[2], why)
	}
	return b.String(), halvings, growths
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

// bench run --max-connections 2 with 4 workers over an endpoint that answers 429 to any request arriving
// while another is being answered (a server that takes one call at a time): without the cap the 4 workers'
// calls would reach it 3-4 at once. The endpoint never sees more than 2 at once (the limiter's slots, 429s
// included), the limiter halves to 1 on the 429s and grows back to 2 after successes (both in the run log),
// the run completes with every attempt passing (429s retried), the manifest records the cap, and resuming
// with another cap is no plan mismatch.
func TestRunMaxConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	p := newCapProxy(t, 1, true)
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"run", "--suite", "zoo", "--tasks", twoShopTasks, "--reps", "2", "--workers", "4",
		"--model", "openai:scripted", "--base-url", p.url, "--max-connections", "2", "--out", out}
	_, stderr, code := bench(t, args...)
	peak, calls, limited := p.stats()
	trace, halvings, growths := windowTrace(stderr + logText(out))
	t.Logf("bench run --workers 4 --max-connections 2, 429 above 1 in flight: exit %d, %d chat calls, %d answered 429, "+
		"peak concurrency %d (cap 2); window %s", code, calls, limited, peak, trace)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !limiterLogged(stderr, out, "model endpoint "+p.url) || halvings == 0 || growths == 0 ||
		!strings.HasPrefix(trace, "2 → 1 (429)") {
		t.Errorf("limiter log: window %q (%d halvings, %d growths), want 2 → 1 after a 429 and growth back; stderr:\n%s",
			trace, halvings, growths, stderr)
	}
	if peak > 2 || limited == 0 || calls < 10 {
		t.Errorf("peak concurrency %d (cap 2), %d of %d calls answered 429; want peak ≤ 2 and some 429s", peak, limited, calls)
	}
	recs := finalRecords(t, out)
	if len(recs) != 4 {
		t.Errorf("%d attempts recorded, want 4", len(recs))
	}
	for id, r := range recs {
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
// them: two workers running both arms never have two calls at the endpoint at once, so the endpoint (429 to a
// second call in flight) never refuses one and no window change is logged (the spec's 3 would log 3 → 1), and
// the manifest records 1 for both arms.
func TestAblateMaxConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	p := newCapProxy(t, 1, false)
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
	peak, calls, limited := p.stats()
	t.Logf("bench ablate --workers 2 --max-connections 1 (spec: 3): exit %d, %d chat calls, %d answered 429, peak concurrency %d",
		code, calls, limited, peak)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr+logText(out), "concurrency 3 →") {
		t.Errorf("the spec's cap of 3 was used; stderr:\n%s", stderr)
	}
	if peak != 1 || limited != 0 || calls < 5 {
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
