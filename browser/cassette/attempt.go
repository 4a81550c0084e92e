package cassette

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Attempt is one attempt's view of a cassette: it records the attempt's exchanges (a cassette from Create) or
// answers them (one from Open). Safe for concurrent use (a route handler runs per request).
type Attempt struct {
	c             *Cassette
	task, attempt string

	mu      sync.Mutex
	entries []Entry        // recorded, in order
	calls   map[string]int // replay: lookups so far per key and cookie names
	misses  []string       // replay: URLs not found, in order
	filled  int            // replay with fill: misses fetched live (their entries in entries)
	closed  bool
}

// Attempt starts task's attempt id (results.AttemptID; it prefers its own recorded entries on replay).
func (c *Cassette) Attempt(task, attempt string) *Attempt {
	return &Attempt{c: c, task: task, attempt: attempt, calls: map[string]int{}}
}

// Cassette is the cassette the attempt records into or replays from.
func (a *Attempt) Cassette() *Cassette { return a.c }

// Task is the attempt's task id.
func (a *Attempt) Task() string { return a.task }

// Exchange is one request and its response as the browser saw them, before secrets are stripped.
type Exchange struct {
	Method, URL, ResourceType string
	// RequestHeaders are the request's headers (names in any case; Cookie among them).
	RequestHeaders []Header
	RequestBody    []byte
	Status         int
	// ResponseHeaders are the response's headers in order (Set-Cookie once per cookie).
	ResponseHeaders []Header
	// Body is the decoded response body.
	Body []byte
}

// Put records one exchange: its body is stored (PutBlob), its secrets stripped unless the cassette keeps them,
// and its entry kept for Close.
func (a *Attempt) Put(x Exchange) error {
	sum, err := a.c.PutBlob(x.Body)
	if err != nil {
		return err
	}
	req := a.request(x.Method, x.URL, x.ResourceType, x.RequestHeaders, x.RequestBody)
	resp := Response{Status: x.Status, Body: sum, Size: int64(len(x.Body))}
	for _, h := range x.ResponseHeaders {
		n := strings.ToLower(h.Name)
		if n == "content-encoding" || n == "content-length" || n == "transfer-encoding" {
			continue
		}
		if !a.c.man.Secrets {
			if SecretHeader(n) {
				continue
			}
			if n == "location" || n == "content-location" {
				h.Value = StripURL(h.Value)
			}
		}
		resp.Headers = append(resp.Headers, h)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.entries = append(a.entries, Entry{Attempt: a.attempt, Seq: len(a.entries), Time: a.c.now().UTC(),
		Request: req, Response: resp, Stripped: a.c.stripped(x)})
	return nil
}

// stripped counts the secrets Put leaves out of x (0 when the cassette keeps secrets): secret header lines of
// the request and the response, and secret query and fragment values of the request URL.
func (c *Cassette) stripped(x Exchange) int {
	if c.man.Secrets {
		return 0
	}
	n := 0
	for _, hs := range [][]Header{x.RequestHeaders, x.ResponseHeaders} {
		for _, h := range hs {
			if SecretHeader(h.Name) {
				n++
			}
		}
	}
	if u, err := url.Parse(x.URL); err == nil {
		for _, p := range parseQuery(u.RawQuery) {
			if SecretParam(p[0]) {
				n++
			}
		}
		_, f := redactPairs(u.EscapedFragment())
		n += f
	}
	return n
}

// request is the stored form of a request: its key, its kept headers and cookie names, its URL stripped.
func (a *Attempt) request(method, rawURL, rtype string, headers []Header, body []byte) Request {
	ct := headerValue(headers, "content-type")
	key, bodySum := Key(method, rawURL, ct, body, a.c.now())
	r := Request{Method: strings.ToUpper(method), URL: rawURL, Key: key, ResourceType: rtype, BodySHA256: bodySum,
		CookieNames: cookieNames(headerValue(headers, "cookie"))}
	secrets := a.c.man.Secrets
	if !secrets {
		r.URL = StripURL(rawURL)
	}
	for _, h := range headers {
		n := strings.ToLower(h.Name)
		switch {
		case secrets:
		case SecretHeader(n) || !keptRequestHeader(n):
			continue
		case n == "referer" || n == "origin":
			h.Value = StripURL(h.Value)
		}
		r.Headers = append(r.Headers, Header{Name: n, Value: h.Value})
	}
	return r
}

func keptRequestHeader(n string) bool {
	for _, k := range KeptRequestHeaders {
		if k == n {
			return true
		}
	}
	return false
}

func headerValue(hs []Header, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// cookieNames are the sorted distinct names in a Cookie header value.
func cookieNames(cookie string) []string {
	seen := map[string]bool{}
	var out []string
	for part := range strings.SplitSeq(cookie, ";") {
		n, _, _ := strings.Cut(strings.TrimSpace(part), "=")
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Lookup finds the recorded entry for a request (Key) and reads its body. Among the entries of the request's
// key it prefers those recorded for the same URL (secrets redacted, no fragment: the rules may merge URLs a
// site answers differently), then those this attempt id recorded, then those sent with the same cookie names,
// and answers the n-th lookup of a key with the n-th of them (the last once they run out), so a page fetched
// twice with state changed in between gets both recorded answers. A request without an entry is a miss
// (Misses); ok is false.
func (a *Attempt) Lookup(method, rawURL string, headers []Header, body []byte) (e Entry, respBody []byte, ok bool,
	err error) {
	ix, err := a.c.tapeIndex(a.task)
	if err != nil {
		return Entry{}, nil, false, err
	}
	// Timestamps are told from content by their distance to the time the page saw: on replay its clock shows
	// the task's record time (SetClock), whatever today is.
	key, _ := Key(method, rawURL, headerValue(headers, "content-type"), body, a.c.tapeTime(ix))
	cands := ix.byKey[key]
	if len(cands) == 0 {
		a.miss(rawURL)
		return Entry{}, nil, false, nil
	}
	calls := key
	u := exactURL(rawURL)
	if exact := filterEntries(cands, func(e *Entry) bool { return exactURL(e.Request.URL) == u }); len(exact) > 0 {
		cands, calls = exact, key+"\x00"+u
	}
	if own := filterEntries(cands, func(e *Entry) bool { return e.Attempt == a.attempt }); len(own) > 0 {
		cands = own
	}
	names := strings.Join(cookieNames(headerValue(headers, "cookie")), ";")
	if same := filterEntries(cands, func(e *Entry) bool { return strings.Join(e.Request.CookieNames, ";") == names }); len(same) > 0 {
		cands = same
	}
	a.mu.Lock()
	calls += "\x00" + names
	n := a.calls[calls]
	a.calls[calls] = n + 1
	a.mu.Unlock()
	e = *cands[min(n, len(cands)-1)]
	respBody, err = a.c.Blob(e.Response.Body)
	if err != nil {
		return Entry{}, nil, false, err
	}
	return e, respBody, true, nil
}

// exactURL is rawURL as Lookup compares it with a recorded entry's: secret values redacted (the stored URL has
// them redacted unless the cassette keeps secrets) and the fragment dropped (never sent to the server).
func exactURL(rawURL string) string {
	u, _, _ := strings.Cut(StripURL(rawURL), "#")
	return u
}

func filterEntries(es []*Entry, keep func(*Entry) bool) []*Entry {
	var out []*Entry
	for _, e := range es {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

func (a *Attempt) miss(u string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.misses = append(a.misses, u)
}

// Misses are the URLs of the requests Lookup found no entry for, in order (secret query values redacted).
func (a *Attempt) Misses() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]string, len(a.misses))
	for i, m := range a.misses {
		out[i] = StripURL(m)
	}
	return out
}

// Entries are the exchanges recorded so far, in order.
func (a *Attempt) Entries() []Entry {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Entry(nil), a.entries...)
}

// Close ends the attempt: a recording one appends its entries to its task's tape (rewriting the tape file).
// Calls after the first do nothing.
func (a *Attempt) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	entries := a.entries
	a.mu.Unlock()
	if a.c.mode != Record {
		if a.c.fill && len(entries) > 0 {
			return a.c.appendFilled(a.task, entries)
		}
		return nil
	}
	if err := a.c.appendTape(a.task, entries); err != nil {
		return fmt.Errorf("cassette: task %s: %w", a.task, err)
	}
	return nil
}

// tapeIndex is a tape read for replay, its entries by key.
type tapeIndex struct {
	tape  *Tape
	byKey map[string][]*Entry
}

// tapeIndex reads task's tape once (an empty index when it has none: every request misses).
func (c *Cassette) tapeIndex(task string) (*tapeIndex, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ix := c.index[task]; ix != nil {
		return ix, nil
	}
	ix := &tapeIndex{byKey: map[string][]*Entry{}}
	t, err := c.Tape(task)
	switch {
	case err == nil:
		ix.tape = t
		for i := range t.Entries {
			e := &t.Entries[i]
			ix.byKey[e.Request.Key] = append(ix.byKey[e.Request.Key], e)
		}
	case !isNotExist(err):
		return nil, err
	}
	c.index[task] = ix
	return ix, nil
}
