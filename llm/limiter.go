package llm

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// Limiter caps the concurrent requests to one model endpoint across every client and worker of the process,
// with an adaptive window (AIMD): an HTTP 429 halves the window (not below 1), and each window's worth of
// successful calls grows it by 1, up to the configured maximum. A request holds its slot from before it is
// sent until its response body is closed (or the transport fails), so the number of requests the endpoint is
// answering at once never exceeds the window. Waiting for a slot honours the request's context. The zero
// value is not usable; get one with SharedLimiter. A nil *Limiter is no limit.
type Limiter struct {
	key string

	mu        sync.Mutex
	max       int // configured cap (the smallest asked for this key)
	window    int // current cap, 1 ≤ window ≤ max
	inflight  int // slots held
	successes int // successful calls since the window last changed
	epoch     int // bumped at every decrease: 429s of requests sent before it are the same congestion event
	waiters   []*limitWaiter
}

// limitWaiter is one request queued for a slot (FIFO).
type limitWaiter struct {
	ch      chan struct{} // closed when granted
	granted bool
	epoch   int
}

// limitToken is a held slot: the epoch it was granted in.
type limitToken struct{ epoch int }

// outcome of a request, for the window.
type limitOutcome int

const (
	outcomeNeutral     limitOutcome = iota // transport error, 4xx/5xx other than 429: no signal
	outcomeSuccess                         // 2xx
	outcomeRateLimited                     // 429
)

var (
	limitersMu sync.Mutex
	limiters   = map[string]*Limiter{}

	limitLogMu sync.Mutex
	limitLog   io.Writer = os.Stderr
)

// EndpointKey is the key of an endpoint's limiter: the base URL (without user info or trailing slash) and the
// model, e.g. "https://api.openai.com/v1 (gpt-4o-mini)". It is also how the limiter names the endpoint in its
// log lines.
func EndpointKey(baseURL, model string) string {
	base := strings.TrimRight(baseURL, "/")
	if u, err := url.Parse(base); err == nil && u.User != nil {
		u.User = nil
		base = u.String()
	}
	return base + " (" + model + ")"
}

// SharedLimiter returns the process's limiter for key (EndpointKey of the base URL and model), creating it
// with a window of max the first time; every client of the same endpoint gets the same limiter, so the cap
// holds across all workers and variants. When the key is asked for again with a smaller max, the smaller cap
// wins. max ≤ 0 is no cap: the result is nil, whose Transport adds nothing.
func SharedLimiter(key string, max int) *Limiter {
	if max <= 0 {
		return nil
	}
	limitersMu.Lock()
	defer limitersMu.Unlock()
	l := limiters[key]
	if l == nil {
		l = &Limiter{key: key, max: max, window: max}
		limiters[key] = l
		return l
	}
	l.mu.Lock()
	if max < l.max {
		l.max = max
		if l.window > max {
			l.window = max
		}
	}
	l.mu.Unlock()
	return l
}

// SetLimiterLog sets where limiters write their window changes, one line each (the runner points it at the
// run log); nil discards them. The default is standard error.
func SetLimiterLog(w io.Writer) {
	limitLogMu.Lock()
	defer limitLogMu.Unlock()
	if w == nil {
		w = io.Discard
	}
	limitLog = w
}

// logf writes one log line. Called with l.mu held, so lines come out in the order of the changes.
func (l *Limiter) logf(format string, a ...any) {
	limitLogMu.Lock()
	defer limitLogMu.Unlock()
	fmt.Fprintf(limitLog, "model endpoint %s: "+format+"\n", append([]any{l.key}, a...)...)
}

// Max returns the limiter's configured cap (0 for a nil limiter).
func (l *Limiter) Max() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.max
}

// Window returns the current cap of concurrent requests (0 for a nil limiter).
func (l *Limiter) Window() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.window
}

// acquire waits for a slot (FIFO) or for ctx to end.
func (l *Limiter) acquire(ctx context.Context) (limitToken, error) {
	l.mu.Lock()
	if l.inflight < l.window && len(l.waiters) == 0 {
		l.inflight++
		tok := limitToken{l.epoch}
		l.mu.Unlock()
		return tok, nil
	}
	if err := ctx.Err(); err != nil {
		l.mu.Unlock()
		return limitToken{}, err
	}
	w := &limitWaiter{ch: make(chan struct{})}
	l.waiters = append(l.waiters, w)
	l.mu.Unlock()
	select {
	case <-w.ch:
		return limitToken{w.epoch}, nil
	case <-ctx.Done():
		l.mu.Lock()
		if w.granted {
			// Granted as the context ended: hand the slot on.
			l.inflight--
			l.grant()
		} else {
			for i, x := range l.waiters {
				if x == w {
					l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
					break
				}
			}
		}
		l.mu.Unlock()
		return limitToken{}, ctx.Err()
	}
}

// grant hands free slots to the waiters in order. Called with l.mu held.
func (l *Limiter) grant() {
	for l.inflight < l.window && len(l.waiters) > 0 {
		w := l.waiters[0]
		l.waiters = l.waiters[1:]
		l.inflight++
		w.granted, w.epoch = true, l.epoch
		close(w.ch)
	}
}

// release frees tok's slot and adapts the window to the request's outcome.
func (l *Limiter) release(tok limitToken, out limitOutcome) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inflight--
	switch out {
	case outcomeRateLimited:
		// Only the first 429 of the requests sent under the current window halves it: the others answer the
		// same overload.
		if tok.epoch == l.epoch {
			l.epoch++
			l.successes = 0
			if nw := max(1, l.window/2); nw != l.window {
				l.logf("concurrency %d → %d after HTTP 429", l.window, nw)
				l.window = nw
			}
		}
	case outcomeSuccess:
		if l.window < l.max {
			l.successes++
			if l.successes >= l.window {
				l.logf("concurrency %d → %d after %d successful calls", l.window, l.window+1, l.successes)
				l.window++
				l.successes = 0
			}
		}
	}
	l.grant()
}

// waiting is the number of queued requests (tests).
func (l *Limiter) waiting() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.waiters)
}

// Transport returns next behind the limiter: RoundTrip waits for a slot (or the request's context to end),
// sends, and frees the slot when the response body is closed or read to its end, or at once when the
// transport fails. A nil limiter returns next unchanged.
func (l *Limiter) Transport(next http.RoundTripper) http.RoundTripper {
	if l == nil {
		return next
	}
	if next == nil {
		next = http.DefaultTransport
	}
	return &limitTransport{l: l, next: next}
}

type limitTransport struct {
	l    *Limiter
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *limitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	tok, err := t.l.acquire(r.Context())
	if err != nil {
		if r.Body != nil {
			r.Body.Close() // a RoundTripper closes the body, also on errors
		}
		return nil, fmt.Errorf("waiting for a connection slot to %s: %w", t.l.key, err)
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil || resp == nil {
		t.l.release(tok, outcomeNeutral)
		return resp, err
	}
	out := outcomeNeutral
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		out = outcomeRateLimited
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		out = outcomeSuccess
	}
	rb := &releaseBody{ReadCloser: resp.Body, release: func() { t.l.release(tok, out) }}
	if resp.Body == nil || resp.Body == http.NoBody {
		rb.done()
		return resp, nil
	}
	resp.Body = rb
	return resp, nil
}

// releaseBody frees a slot once: at Close, or when a read ends the body (EOF or error).
type releaseBody struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

func (b *releaseBody) done() { b.once.Do(b.release) }

// Read implements io.Reader.
func (b *releaseBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.done()
	}
	return n, err
}

// Close implements io.Closer.
func (b *releaseBody) Close() error {
	err := b.ReadCloser.Close()
	b.done()
	return err
}

// inflightNow is the number of held slots (tests).
func (l *Limiter) inflightNow() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inflight
}

// TimeoutTransport bounds each request through next to d from when it is sent — after any wait for a limiter
// slot when it is placed below Limiter.Transport — until its response body is closed or read to its end; a
// request over time fails with context.DeadlineExceeded. http.Client.Timeout would also count the time spent
// queued for a slot, so a capped endpoint with more workers than slots would time out calls that never
// started. d ≤ 0 returns next.
func TimeoutTransport(d time.Duration, next http.RoundTripper) http.RoundTripper {
	if d <= 0 {
		return next
	}
	if next == nil {
		next = http.DefaultTransport
	}
	return &timeoutTransport{d: d, next: next}
}

type timeoutTransport struct {
	d    time.Duration
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *timeoutTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(r.Context(), t.d)
	resp, err := t.next.RoundTrip(r.WithContext(ctx))
	if err != nil || resp == nil {
		cancel()
		return resp, err
	}
	if resp.Body == nil || resp.Body == http.NoBody {
		cancel()
		return resp, nil
	}
	resp.Body = &releaseBody{ReadCloser: resp.Body, release: cancel}
	return resp, nil
}
