package llm

import (
	"context"
	"sync"
)

// Limiter is adaptive per-endpoint concurrency (AIMD, as TCP congestion control): at most Limit() calls in
// flight; a 429 halves the limit (not below 1), and every `grow` successful calls in a row raise it by one, up to
// the maximum it started at. Safe for concurrent use.
type Limiter struct {
	mu       sync.Mutex
	cond     *sync.Cond
	max      int
	limit    int
	inFlight int
	streak   int
	grow     int
}

// NewLimiter starts at max concurrent calls (max ≥ 1).
func NewLimiter(max int) *Limiter {
	if max < 1 {
		max = 1
	}
	l := &Limiter{max: max, limit: max, grow: 10}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// Acquire waits for a slot or for ctx to end (then it returns ctx.Err()).
func (l *Limiter) Acquire(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		l.mu.Lock()
		l.cond.Broadcast()
		l.mu.Unlock()
	})
	defer stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.inFlight >= l.limit {
		if err := ctx.Err(); err != nil {
			return err
		}
		l.cond.Wait()
	}
	l.inFlight++
	return nil
}

// Release frees a slot; throttled reports whether the call was answered with 429.
func (l *Limiter) Release(throttled bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight--
	if throttled {
		l.limit = max(1, l.limit/2)
		l.streak = 0
	} else if l.streak++; l.streak >= l.grow && l.limit < l.max {
		l.limit++
		l.streak = 0
	}
	l.cond.Broadcast()
}

// Limit is the current concurrency limit.
func (l *Limiter) Limit() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limit
}

var (
	limitersMu sync.Mutex
	limiters   = map[string]*Limiter{}
)

// EndpointLimiter returns the shared limiter of a base URL, created at max on first use.
func EndpointLimiter(baseURL string, max int) *Limiter {
	limitersMu.Lock()
	defer limitersMu.Unlock()
	if l, ok := limiters[baseURL]; ok {
		return l
	}
	l := NewLimiter(max)
	limiters[baseURL] = l
	return l
}
