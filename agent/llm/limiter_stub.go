package llm

// STUB until helper C's limiter.go is merged: delete this file then (limiter.go defines the same names).

import "net/http"

// Limiter caps concurrent requests to one endpoint (stub: no cap; the real one is in limiter.go).
type Limiter struct{ max int }

// SharedLimiter returns the process-wide limiter of endpoint key with cap max (stub: a fresh no-op limiter).
func SharedLimiter(key string, max int) *Limiter { return &Limiter{max: max} }

// Transport wraps next so that each request holds a slot of l (stub: returns next unchanged).
func (l *Limiter) Transport(next http.RoundTripper) http.RoundTripper { return next }
