package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rateLimitBody is OpenAI's 429 "Rate limit reached" body (type "tokens", code "rate_limit_exceeded") as
// recorded in Pythagora-io/gpt-pilot pull request #53 (https://github.com/Pythagora-io/gpt-pilot/pull/53);
// the error is documented at https://platform.openai.com/docs/guides/error-codes ("429 - Rate limit reached
// for requests").
const rateLimitBody = `{"error":{"message":"Rate limit reached for 10KTPM-200RPM in organization org-OASFC7k1Ff5IzueeLArhQtnT on tokens per min. Limit: 10000 / min. Please try again in 6ms. Contact us through our help center at help.openai.com if you continue to have issues.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`

// freshLimiter is SharedLimiter for a key no earlier test (or -count run) has used.
// runWorkers runs workers goroutines that share workers×calls calls to url through client (each takes the next
// call from a common count, as the runner's workers take attempts), and waits for them; a failed call is a test
// error and ends its worker. Sharing matters to the barrier tests: while calls remain, every worker has one to
// send, so the server can hold min(cap, calls left) requests at once whatever order the scheduler runs them in
// (with a fixed share per worker, workers that finished early left fewer senders than calls and the barrier waited
// forever).
func runWorkers(t *testing.T, client *http.Client, url string, workers, calls int) {
	t.Helper()
	var wg sync.WaitGroup
	var taken atomic.Int64
	total := int64(workers * calls)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for taken.Add(1) <= total {
				if _, err := call(t, client, url); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func freshLimiter(key string, max int) *Limiter {
	limitersMu.Lock()
	delete(limiters, key)
	limitersMu.Unlock()
	return SharedLimiter(key, max)
}

// countingServer is a loopback endpoint that counts the requests it is answering at once and answers 429 when
// more than threshold are (with burst, only the first time: afterwards it accepts everything). Until its first
// 429 it holds every accepted request, so that the client's first window is really filled whatever the
// machine's speed: no timing in the tests.
type countingServer struct {
	*httptest.Server
	threshold   int64
	burst       bool
	cur, peak   atomic.Int64
	ok, limited atomic.Int64
	opened      chan struct{} // closed at the first 429
	openOnce    sync.Once
}

func newCountingServer(t *testing.T, threshold int64, burst bool) *countingServer {
	s := &countingServer{threshold: threshold, burst: burst, opened: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		n := s.cur.Add(1)
		for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
		}
		if n > s.threshold && !(s.burst && isClosed(s.opened)) {
			// Counted down before the answer is written: the client cannot free its slot before that, so the
			// server's count never exceeds the client's.
			s.cur.Add(-1)
			s.limited.Add(1)
			s.openOnce.Do(func() { close(s.opened) })
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, rateLimitBody)
			return
		}
		select {
		case <-s.opened:
		case <-r.Context().Done():
		}
		s.cur.Add(-1)
		s.ok.Add(1)
		okBody(w)
	}))
	t.Cleanup(s.Close)
	return s
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// logBuffer is a goroutine-safe log sink.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(strings.TrimSpace(l.b.String()), "\n")
}

func captureLimiterLog(t *testing.T) *logBuffer {
	lb := &logBuffer{}
	SetLimiterLog(lb)
	t.Cleanup(func() { SetLimiterLog(nil) })
	return lb
}

// call posts once through c, retrying 429s at once (the client's own retry loop stands in for Chat's), and
// returns how many 429s it met.
func call(t *testing.T, c *http.Client, url string) (int, error) {
	for tries := 0; ; tries++ {
		resp, err := c.Post(url, "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
		if err != nil {
			return tries, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			return tries, nil
		case http.StatusTooManyRequests:
			if tries > 1000 {
				return tries, errors.New("still rate-limited after 1000 tries")
			}
		default:
			return tries, fmt.Errorf("HTTP %d", resp.StatusCode)
		}
	}
}

// 16 workers share one endpoint capped at 8 connections whose server answers 429 above 4 concurrent requests:
// the server never sees more than 8 at once, every call completes, the window halves on the first 429 (8 → 4)
// and grows back by one after 4 successes (4 → 5), and the log shows both.
func TestLimiterCapsAndAdapts(t *testing.T) {
	lb := captureLimiterLog(t)
	srv := newCountingServer(t, 4, false)
	const capN, workers, calls = 8, 16, 20
	key := EndpointKey(srv.URL+"/v1/", "m")
	l := freshLimiter(key, capN)
	client := &http.Client{Transport: l.Transport(http.DefaultTransport)}
	var wg sync.WaitGroup
	var done, retried atomic.Int64
	errs := make(chan error, workers*calls)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				n, err := call(t, client, srv.URL+"/v1/chat/completions")
				if err != nil {
					errs <- err
					return
				}
				retried.Add(int64(n))
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	lines := lb.lines()
	t.Logf("cap %d, server threshold %d: peak concurrency %d; %d calls done (%d answered 200, %d 429s retried); final window %d",
		capN, srv.threshold, srv.peak.Load(), done.Load(), srv.ok.Load(), srv.limited.Load(), l.Window())
	t.Logf("window trace:\n%s", strings.Join(lines, "\n"))
	if p := srv.peak.Load(); p > capN {
		t.Errorf("peak concurrency %d > cap %d", p, capN)
	}
	if done.Load() != workers*calls || srv.ok.Load() != workers*calls {
		t.Errorf("%d calls done, %d answered 200; want %d", done.Load(), srv.ok.Load(), workers*calls)
	}
	if srv.limited.Load() == 0 || retried.Load() != srv.limited.Load() {
		t.Errorf("429s: server sent %d, clients retried %d", srv.limited.Load(), retried.Load())
	}
	want := []string{
		"model endpoint " + srv.URL + "/v1 (m): concurrency 8 → 4 after HTTP 429",
		"model endpoint " + srv.URL + "/v1 (m): concurrency 4 → 5 after 4 successful calls",
	}
	if len(lines) < 2 || lines[0] != want[0] || lines[1] != want[1] {
		t.Errorf("log starts\n%q\nwant\n%q", lines, want)
	}
	for _, ln := range lines {
		if !strings.HasPrefix(ln, "model endpoint "+srv.URL+"/v1 (m): concurrency ") {
			t.Errorf("log line %q", ln)
		}
	}
	if w := l.Window(); w < 1 || w > capN {
		t.Errorf("window %d out of [1, %d]", w, capN)
	}
}

// After one burst of 429s the server stops refusing: the window goes back up one step per window's worth of
// successes to the cap and no further (8 → 4 → 5 → 6 → 7 → 8), and the peak stays at or below the cap.
func TestLimiterGrowsBackToMax(t *testing.T) {
	lb := captureLimiterLog(t)
	srv := newCountingServer(t, 4, true)
	const capN, workers, calls = 8, 12, 20
	l := freshLimiter(EndpointKey(srv.URL+"/v1", "m"), capN)
	runWorkers(t, &http.Client{Transport: l.Transport(nil)}, srv.URL+"/v1/chat/completions", workers, calls)
	lines := lb.lines()
	t.Logf("cap %d: peak concurrency %d, %d calls answered 200 after %d 429(s); window trace:\n%s",
		capN, srv.peak.Load(), srv.ok.Load(), srv.limited.Load(), strings.Join(lines, "\n"))
	var trace []string
	for _, ln := range lines {
		_, after, _ := strings.Cut(ln, "concurrency ")
		trace = append(trace, after)
	}
	want := []string{"8 → 4 after HTTP 429", "4 → 5 after 4 successful calls", "5 → 6 after 5 successful calls",
		"6 → 7 after 6 successful calls", "7 → 8 after 7 successful calls"}
	if strings.Join(trace, "|") != strings.Join(want, "|") {
		t.Errorf("trace %q, want %q", trace, want)
	}
	if l.Window() != capN || srv.ok.Load() != workers*calls {
		t.Errorf("window %d (want %d), %d calls answered (want %d)", l.Window(), capN, srv.ok.Load(), workers*calls)
	}
	if p := srv.peak.Load(); p > capN {
		t.Errorf("peak %d > cap %d", p, capN)
	}
}

// A request waiting for a slot gives up when its context ends, without taking or leaking a slot: with a window
// of 1 held by a request the server is holding, a second request waits; cancelled, it returns context.Canceled;
// a third gets the slot once the first is answered.
func TestLimiterWaitHonoursContext(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		okBody(w)
	}))
	defer srv.Close()
	l := freshLimiter(EndpointKey(srv.URL+"/v1", "ctx"), 1)
	client := &http.Client{Transport: l.Transport(nil)}
	first := make(chan error, 1)
	go func() {
		resp, err := client.Get(srv.URL)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		first <- err
	}()
	<-arrived // the first holds the only slot
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		_, err := client.Do(req)
		second <- err
	}()
	for l.waiting() == 0 { // the second is queued (it cannot be anywhere else: the slot is held)
		runtime.Gosched()
	}
	cancel()
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Fatalf("second: %v, want context.Canceled", err)
	}
	// An already-cancelled context does not wait either.
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	if _, err := client.Do(req); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled request: %v", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	resp, err := client.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if l.waiting() != 0 || l.inflightNow() != 0 {
		t.Errorf("after all: %d waiting, %d in flight", l.waiting(), l.inflightNow())
	}
}

// The window never goes below 1, a 429 of a request sent before the last decrease does not halve again, and
// growth stops at the cap; a transport error or a 500 leaves the window alone. Driven through acquire/release.
func TestLimiterWindowRules(t *testing.T) {
	lb := captureLimiterLog(t)
	l := freshLimiter("rules (m)", 4)
	ctx := context.Background()
	get := func() limitToken {
		tok, err := l.acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	a, b := get(), get()
	l.release(a, outcomeRateLimited) // 4 → 2
	l.release(b, outcomeRateLimited) // same overload: stays 2
	c := get()
	l.release(c, outcomeRateLimited) // 2 → 1
	d := get()
	l.release(d, outcomeRateLimited) // stays 1, no line
	l.release(get(), outcomeNeutral)
	for range 1 + 2 + 3 + 5 {
		l.release(get(), outcomeSuccess) // 1 → 2 → 3 → 4, then at the cap
	}
	got := strings.Join(lb.lines(), "\n")
	want := strings.Join([]string{
		"model endpoint rules (m): concurrency 4 → 2 after HTTP 429",
		"model endpoint rules (m): concurrency 2 → 1 after HTTP 429",
		"model endpoint rules (m): concurrency 1 → 2 after 1 successful calls",
		"model endpoint rules (m): concurrency 2 → 3 after 2 successful calls",
		"model endpoint rules (m): concurrency 3 → 4 after 3 successful calls",
	}, "\n")
	if got != want {
		t.Errorf("log\n%s\nwant\n%s", got, want)
	}
	if l.Window() != 4 {
		t.Errorf("window %d", l.Window())
	}
}

// SharedLimiter gives one limiter per key; a smaller cap asked later wins; 0 is no limiter, and a nil limiter's
// Transport is the next transport itself. EndpointKey drops user info and the trailing slash.
func TestSharedLimiter(t *testing.T) {
	a := freshLimiter("shared (m)", 8)
	if b := SharedLimiter("shared (m)", 8); a != b {
		t.Error("same key, two limiters")
	}
	if c := SharedLimiter("shared (other)", 8); c == a {
		t.Error("other key, same limiter")
	}
	SharedLimiter("shared (m)", 3)
	SharedLimiter("shared (m)", 6)
	if a.Max() != 3 || a.Window() != 3 {
		t.Errorf("max %d window %d, want 3 3", a.Max(), a.Window())
	}
	if l := SharedLimiter("shared (m)", 0); l != nil {
		t.Error("max 0 gave a limiter")
	}
	var nl *Limiter
	if nl.Transport(http.DefaultTransport) != http.DefaultTransport || nl.Window() != 0 {
		t.Error("nil limiter is not transparent")
	}
	if k := EndpointKey("https://user:pw@example.com/v1/", "gpt"); k != "https://example.com/v1 (gpt)" {
		t.Errorf("key %q", k)
	}
}

// barrierServer holds each request until as many as capN are being answered at once (or all the calls still
// to come are): a client that respects the cap fills it exactly, and one that does not shows more. No timing.
type barrierServer struct {
	*httptest.Server
	mu              sync.Mutex
	capN, remaining int
	cur, peak       int
	gate            chan struct{}
}

func newBarrierServer(t *testing.T, capN, total int) *barrierServer {
	s := &barrierServer{capN: capN, remaining: total, gate: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.cur++
		s.peak = max(s.peak, s.cur)
		gate := s.gate
		s.trip()
		s.mu.Unlock()
		select {
		case <-gate:
		case <-r.Context().Done():
		}
		s.mu.Lock()
		s.cur--
		s.remaining--
		s.mu.Unlock()
		okBody(w)
	}))
	t.Cleanup(s.Close)
	return s
}

// trip opens the gate when the held requests reach the cap or all that remain. Called with s.mu held.
func (s *barrierServer) trip() {
	if s.cur >= min(s.capN, s.remaining) {
		close(s.gate)
		s.gate = make(chan struct{})
	}
}

// With no 429s, 16 workers through a cap of 1 and of 4: the server is answering exactly the cap at its peak,
// never more (4 concurrent calls with a cap of 1 were once seen), and every call completes.
func TestLimiterCapBinds(t *testing.T) {
	for _, capN := range []int{1, 4} {
		t.Run(fmt.Sprint("cap", capN), func(t *testing.T) {
			const workers, calls = 16, 5
			srv := newBarrierServer(t, capN, workers*calls)
			l := freshLimiter(EndpointKey(srv.URL+"/v1", "bind"), capN)
			runWorkers(t, &http.Client{Transport: l.Transport(nil)}, srv.URL+"/v1/chat/completions", workers, calls)
			t.Logf("cap %d, %d workers: peak concurrency %d, %d calls left unanswered", capN, workers, srv.peak, srv.remaining)
			if srv.peak != capN || srv.remaining != 0 {
				t.Errorf("peak %d (want exactly %d), %d calls unanswered", srv.peak, capN, srv.remaining)
			}
		})
	}
}

// Below the limiter, TimeoutTransport starts the call's clock when the slot is granted: a request queued for
// longer than its timeout behind a held slot still succeeds once it is sent; a call whose server does not answer
// within the timeout fails with context.DeadlineExceeded.
func TestTimeoutTransportExcludesQueueing(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hang" {
			select { // answers only when the client gives up
			case <-r.Context().Done():
			case <-hang:
			}
			return
		}
		okBody(w)
	}))
	defer srv.Close()
	const d = 300 * time.Millisecond
	l := freshLimiter(EndpointKey(srv.URL+"/v1", "timeout"), 1)
	client := &http.Client{Transport: l.Transport(TimeoutTransport(d, nil))}
	tok, err := l.acquire(context.Background()) // another worker's call holds the only slot
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		resp, err := client.Get(srv.URL + "/ok")
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		done <- err
	}()
	for l.waiting() == 0 {
		runtime.Gosched()
	}
	<-time.After(3 * d) // queued three timeouts long (the property tested is this wait, not a synchronisation)
	l.release(tok, outcomeSuccess)
	if err := <-done; err != nil {
		t.Fatalf("queued request: %v", err)
	}
	_, err = client.Get(srv.URL + "/hang")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hanging call: %v, want context.DeadlineExceeded", err)
	}
	if l.inflightNow() != 0 {
		t.Errorf("%d slots held after all", l.inflightNow())
	}
}

// The same through Client.Chat, as the runner's workers call it: Config.MaxConnections reaches the shared
// limiter (two clients of one endpoint share it), Chat's own retries carry every call past the 429s, the
// server never sees more than the cap, and the log shows the halving.
func TestChatThroughLimiter(t *testing.T) {
	lb := captureLimiterLog(t)
	srv := newCountingServer(t, 2, false)
	const capN, workers, calls = 4, 8, 5
	cfg := Config{Model: "limited", BaseURL: srv.URL + "/v1", MaxConnections: capN, Retries: 50}
	var clients [2]*Client
	for i := range clients {
		c, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = c
	}
	var wg sync.WaitGroup
	var failed atomic.Int64
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				if _, err := clients[w%2].Chat(context.Background(), Request{Messages: msgs}); err != nil {
					t.Error(err)
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	lines := lb.lines()
	t.Logf("Chat, cap %d, server threshold %d, %d workers: peak concurrency %d, %d answered 200, %d 429s; log:\n%s",
		capN, srv.threshold, workers, srv.peak.Load(), srv.ok.Load(), srv.limited.Load(), strings.Join(lines, "\n"))
	if p := srv.peak.Load(); p > capN {
		t.Errorf("peak %d > cap %d", p, capN)
	}
	if srv.ok.Load() != workers*calls || failed.Load() != 0 {
		t.Errorf("%d answered, %d failed; want %d answered", srv.ok.Load(), failed.Load(), workers*calls)
	}
	if len(lines) == 0 || !strings.HasSuffix(lines[0], ": concurrency 4 → 2 after HTTP 429") {
		t.Errorf("log %q", lines)
	}
}

// The call timeout counts from when a request is sent, not from when it was queued for a slot. Through
// New(Config{MaxConnections: 1, CallTimeout: d}), the test holds the endpoint's only slot itself, queues four
// Chat calls behind it, confirms they are all waiting, keeps them waiting for 2d, then frees the slot: the
// server answers at once, and every call succeeds although each waited longer than d. No wall-clock race
// decides the outcome: the queue is observed through the limiter, and a slow machine only makes the wait
// longer, never shorter (each call's own round trip to loopback has d = 1 s).
func TestCallTimeoutExcludesQueueing(t *testing.T) {
	const d = time.Second
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, okJSON)
	}))
	defer srv.Close()
	base := srv.URL + "/v1"
	l := freshLimiter(EndpointKey(base, "m"), 1)
	c, err := New(Config{Model: "m", BaseURL: base, MaxConnections: 1, CallTimeout: d})
	if err != nil {
		t.Fatal(err)
	}
	c.cfg.Retries = 0
	tok, err := l.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const n = 4
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := c.Chat(context.Background(), Request{Messages: msgs})
			errs <- err
		}()
	}
	for l.waiting() < n {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(2 * d)
	l.release(tok, outcomeNeutral)
	for range n {
		if err := <-errs; err != nil {
			t.Errorf("a call queued for %v (> CallTimeout %v) failed: %v", 2*d, d, err)
		}
	}
}

// A call that hangs once sent times out after CallTimeout: infra, with the timeout hint. The server holds the
// request until the client gives up (its request context ends) or the test ends.
func TestCallTimeoutCutsAHangingCall(t *testing.T) {
	const d = 200 * time.Millisecond
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	defer srv.Close()
	defer close(done)
	base := srv.URL + "/v1"
	freshLimiter(EndpointKey(base, "m"), 1)
	c, err := New(Config{Model: "m", BaseURL: base, MaxConnections: 1, CallTimeout: d})
	if err != nil {
		t.Fatal(err)
	}
	c.cfg.Retries = 0
	_, err = c.Chat(context.Background(), Request{Messages: msgs})
	var le *Error
	if !errors.As(err, &le) || le.Class != ErrorInfra || !strings.Contains(le.Hint, "longer than its timeout") {
		t.Fatalf("hanging call: %v", err)
	}
}
