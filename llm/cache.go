package llm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"webbench/secret"
)

// CacheSchema is the schema_version of a model-cache entry file (CacheEntry).
const CacheSchema = 1

// Cache is a directory of model responses (`--model-cache DIR`), one file per request key:
// DIR/<key[0:2]>/<key>.json (CacheEntry). Only successful chat.completion bodies are stored — an error status,
// a 2xx carrying an error and a body the client cannot decode are never written — so a replay never repeats a
// failure. Writes are atomic (a temporary file linked into place) and the first writer wins, so parallel
// workers and processes sharing DIR read either nothing or a whole entry, and an entry once written is the one
// every later run replays. Identical requests in flight at once in one process are sent once (flight). Safe
// for concurrent use.
//
// The key follows Inspect AI's model cache, which keys a call by model name and base URL, message history,
// epoch, generate config and active tools (https://inspect.aisi.org.uk/caching.html); here it is the SHA-256
// of one canonical JSON object (CacheKey) holding:
//   - "endpoint": the base URL without credentials (CacheEndpoint: no user info, no query parameter whose name
//     looks like a secret), or the scripted policy's "scripted:PROFILE" — another server may answer otherwise;
//   - "request": the request body as sent, re-encoded canonically (object keys sorted): model, messages, tools,
//     temperature, top_p, max_tokens and the seed — everything the endpoint's answer can depend on;
//   - "rep": the repetition, so that reps stay distinct samples also when no seed is sent (Inspect's epoch);
//   - "seed": the attempt's seed (CacheScope.Seed), also when the request does not carry it (seed mode none,
//     an omitted seed), so that runs and arms with other seeds never replay each other's samples.
//
// The API key and every header are outside the key and the files: a key rotation does not invalidate the
// cache, and nothing secret is written. Strings that differ between runs of the same attempt (a loopback
// port, a tenant id: CacheScope.Volatile) are replaced by placeholders in the key and in the stored response,
// and put back on replay.
type Cache struct {
	dir string

	// mu guards flights: the requests of this process being sent, by key. A second identical request waits
	// for the first's reply instead of sending its own, so both replay one reply (the one stored) and a
	// re-run reproduces both; the arms of a pair run side by side and send identical requests until a guard
	// changes one.
	mu      sync.Mutex
	flights map[string]*flight
}

// flight is one request being sent: done closes when it ends, reply is then its stored response (with
// placeholders) or nil when it failed.
type flight struct {
	done  chan struct{}
	reply []byte
}

// OpenCache opens (creating it when missing) the cache directory dir. Errors: dir empty or not creatable.
func OpenCache(dir string) (*Cache, error) {
	if strings.TrimSpace(dir) == "" {
		return nil, errors.New("llm: model cache directory is empty")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("llm: model cache: %w", err)
	}
	return &Cache{dir: dir, flights: map[string]*flight{}}, nil
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// CacheScope is what one attempt adds to the key beside the request: its repetition and seed, the endpoint's name when
// the base URL does not identify it, and the strings of its environment that change from run to run.
type CacheScope struct {
	// Rep is the attempt's 0-based repetition.
	Rep int
	// Seed is the attempt's seed (nil: none), keyed whether or not the request sends it.
	Seed *int
	// Endpoint names the endpoint in the key instead of the base URL (CacheEndpoint of it when ""): the
	// scripted policy's loopback URL has a new port each run, so the runner names it "scripted:PROFILE".
	Endpoint string
	// Volatile are literal strings of the attempt's environment that differ between two runs of the same
	// attempt (the Zoo's loopback origin and tenant path: suites.VolatileEnv); each is replaced by a placeholder
	// in the key and in stored responses, and the placeholder by this run's string on replay.
	Volatile []string
}

// CacheSession is one attempt's use of a Cache: it replays the attempt's conversation from the cache while
// every request's key hits, and from the first miss on (the divergence) sends every request to the endpoint,
// storing each successful response for the next run. Safe for concurrent use.
type CacheSession struct {
	cache *Cache
	scope CacheScope
	// subs are Volatile's replacements, longest first (a string containing another is replaced whole).
	subs []string

	mu       sync.Mutex
	diverged bool
	replayed int
	sent     int
}

// Session starts an attempt's session on the cache.
func (c *Cache) Session(scope CacheScope) *CacheSession {
	vol := make([]string, 0, len(scope.Volatile))
	for _, v := range scope.Volatile {
		if v != "" {
			vol = append(vol, v)
		}
	}
	sort.SliceStable(vol, func(i, j int) bool { return len(vol[i]) > len(vol[j]) })
	scope.Volatile = vol
	return &CacheSession{cache: c, scope: scope}
}

// CacheStats counts a session's model calls.
type CacheStats struct {
	// Replayed is the calls answered from the cache (no request reached the endpoint).
	Replayed int
	// Sent is the calls sent to the endpoint: those from the first miss on.
	Sent int
	// Diverged reports whether a request missed the cache (every later call was sent).
	Diverged bool
}

// Stats returns the session's counts so far.
func (s *CacheSession) Stats() CacheStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return CacheStats{Replayed: s.replayed, Sent: s.sent, Diverged: s.diverged}
}

// CacheEntry is one stored response (a file of the cache).
type CacheEntry struct {
	// SchemaVersion is CacheSchema.
	SchemaVersion int `json:"schema_version"`
	// Key is the request key (hex SHA-256 of CacheKey's object); the file is named after it.
	Key string `json:"key"`
	// Endpoint, Model, Rep and Seed repeat parts of the key for people listing the directory.
	Endpoint string `json:"endpoint"`
	Model    string `json:"model"`
	Rep      int    `json:"rep"`
	Seed     *int   `json:"seed,omitempty"`
	// StoredAt is when the response was received, RFC 3339 UTC.
	StoredAt string `json:"stored_at"`
	// Response is the endpoint's 2xx chat.completion body byte for byte (a string, as JSON re-encoding would
	// change the whitespace of provider fields sent back verbatim), with the scope's volatile strings as
	// placeholders.
	Response string `json:"response"`
}

// CacheEndpoint is baseURL as the cache key names it: scheme and host lower-cased, no user info, no trailing
// slash, and only the query parameters whose names do not look like credentials (sorted), so a key in the URL
// never enters the key or the files. An unparsable URL is named by its redacted text.
func CacheEndpoint(baseURL string) string {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || u.Host == "" {
		return RedactString(strings.TrimRight(baseURL, "/"))
	}
	u.User = nil
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	q := u.Query()
	for k := range q {
		if secret.Param(k) {
			q.Del(k)
		}
	}
	u.RawQuery = q.Encode()
	u.Fragment = ""
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u.String()
}

// placeholder is the text standing for the i-th volatile string in keys and stored responses.
func placeholder(i int) string { return "@@webbench-volatile-" + strconv.Itoa(i) + "@@" }

// stable replaces the session's volatile strings in b by their placeholders.
func (s *CacheSession) stable(b []byte) []byte {
	for i, v := range s.scope.Volatile {
		b = bytes.ReplaceAll(b, []byte(v), []byte(placeholder(i)))
	}
	return b
}

// live puts the session's volatile strings back in place of their placeholders.
func (s *CacheSession) live(b []byte) []byte {
	for i, v := range s.scope.Volatile {
		b = bytes.ReplaceAll(b, []byte(placeholder(i)), []byte(v))
	}
	return b
}

// CacheKey is the key of a request body sent to endpoint (a name from CacheEndpoint or a CacheScope.Endpoint)
// in repetition rep by an attempt with seed (nil: none): the hex SHA-256 of the canonical JSON object
// {"endpoint", "rep", "request", "seed"} whose request is body decoded and encoded again (object keys sorted,
// numbers as written). Errors: body is not JSON.
func CacheKey(endpoint string, rep int, seed *int, body []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var req any
	if err := dec.Decode(&req); err != nil {
		return "", fmt.Errorf("llm: cache key: %w", err)
	}
	canon, err := json.Marshal(map[string]any{"endpoint": endpoint, "rep": rep, "request": req, "seed": seed})
	if err != nil {
		return "", fmt.Errorf("llm: cache key: %w", err)
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// cacheCall is one request's place in a session: its key and how its tool calls without ids are named.
type cacheCall struct {
	s        *CacheSession
	key      string
	endpoint string
	n        int
	// lead is the flight this call leads (it sends the request), reply the response store kept for it.
	lead  *flight
	reply []byte
}

// call keys body under the session (endpoint: the client's, when the scope names none). A body that cannot be
// keyed is treated as a miss.
func (s *CacheSession) call(clientEndpoint string, body []byte) *cacheCall {
	ep := s.scope.Endpoint
	if ep == "" {
		ep = clientEndpoint
	}
	key, err := CacheKey(ep, s.scope.Rep, s.scope.Seed, s.stable(body))
	if err != nil {
		return &cacheCall{s: s, endpoint: ep}
	}
	return &cacheCall{s: s, key: key, endpoint: ep}
}

// newID names the n-th tool call without an id in this request's response "call_wb_<key prefix>_<n>": the same
// name on the run that stores the response and on every replay of it, so the next request (which carries the
// id back) keys the same.
func (cc *cacheCall) newID() string {
	cc.n++
	k := cc.key
	if len(k) > 12 {
		k = k[:12]
	}
	return "call_wb_" + k + "_" + strconv.Itoa(cc.n)
}

func (c *Cache) path(key string) string { return filepath.Join(c.dir, key[:2], key+".json") }

// stored is the call's stored response (with placeholders), or nil: a miss, or a session already diverged.
func (cc *cacheCall) stored() []byte {
	s := cc.s
	s.mu.Lock()
	diverged := s.diverged
	s.mu.Unlock()
	if diverged {
		return nil
	}
	b, err := os.ReadFile(s.cache.path(cc.key))
	if err != nil {
		return nil
	}
	var e CacheEntry
	if json.Unmarshal(b, &e) != nil || e.SchemaVersion != CacheSchema || e.Key != cc.key || len(e.Response) == 0 {
		return nil
	}
	return []byte(e.Response)
}

// lookup returns the call's response with this run's volatile strings: the stored one while the session has
// not diverged, else the reply to an identical request this process is already sending (waited for). Nil means
// the caller sends the request: the session is then diverged, the call counted as sent, and the caller must
// call done when the request has ended, which hands its reply to the calls waiting for it.
func (cc *cacheCall) lookup(ctx context.Context) []byte {
	s := cc.s
	if cc.key == "" {
		s.count(false)
		return nil
	}
	for {
		if raw := cc.stored(); raw != nil {
			s.count(true)
			return s.live(raw)
		}
		f, lead := s.cache.join(cc.key)
		if lead {
			// The identical request may have been stored between the read above and join.
			if raw := cc.stored(); raw != nil {
				s.cache.land(cc.key, f, raw)
				s.count(true)
				return s.live(raw)
			}
			cc.lead = f
			s.count(false)
			return nil
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			s.count(false)
			return nil
		}
		if f.reply != nil {
			s.count(true)
			return s.live(f.reply)
		}
		// The request waited for failed: this call is sent (or waits for another one that is).
	}
}

// count records a call answered without a request (hit) or sent, which diverges the session.
func (s *CacheSession) count(hit bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hit {
		s.replayed++
		return
	}
	s.diverged = true
	s.sent++
}

// join returns the flight of key, and whether the caller leads it (no identical request was being sent).
func (c *Cache) join(key string) (*flight, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.flights[key]; ok {
		return f, false
	}
	f := &flight{done: make(chan struct{})}
	c.flights[key] = f
	return f, true
}

// land ends key's flight f with reply (nil: failed), waking the calls waiting for it.
func (c *Cache) land(key string, f *flight, reply []byte) {
	c.mu.Lock()
	delete(c.flights, key)
	c.mu.Unlock()
	f.reply = reply
	close(f.done)
}

// done ends the flight the call leads, if any, with the reply store kept; a nil call does nothing.
func (cc *cacheCall) done() {
	if cc == nil || cc.lead == nil {
		return
	}
	cc.s.cache.land(cc.key, cc.lead, cc.reply)
	cc.lead = nil
}

// unreplayable undoes a hit whose stored body did not decode: the call goes to the endpoint, as a miss.
func (cc *cacheCall) unreplayable() {
	s := cc.s
	s.mu.Lock()
	s.replayed--
	s.sent++
	s.diverged = true
	s.mu.Unlock()
	cc.n = 0
}

// store writes raw, a decoded 2xx response to the call's request, atomically, unless the key is stored already
// (publish), and keeps it for the calls waiting on this one (done). Errors are the file system's.
func (cc *cacheCall) store(model string, seed *int, raw []byte) error {
	if cc.key == "" {
		return nil
	}
	s := cc.s
	if s.scope.Seed != nil {
		seed = s.scope.Seed
	}
	resp := s.stable(raw)
	if !json.Valid(resp) {
		return errors.New("llm: model cache: response is not JSON")
	}
	cc.reply = resp
	e := CacheEntry{SchemaVersion: CacheSchema, Key: cc.key, Endpoint: cc.endpoint, Model: model, Rep: s.scope.Rep,
		Seed: seed, StoredAt: time.Now().UTC().Format(time.RFC3339), Response: string(resp)}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	p := s.cache.path(cc.key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(append(b, '\n'))
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = publish(f.Name(), p)
	}
	_ = os.Remove(f.Name())
	return werr
}

// publish puts the whole file tmp at p unless p exists: the first writer wins, so an entry some call has
// replayed, or another process has stored, is never replaced by another sample of the same request (a re-run
// replays what the first run's attempts received). os.Link fails on an existing p; a file system without hard
// links falls back to a rename while p is still missing.
func publish(tmp, p string) error {
	err := os.Link(tmp, p)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return nil
	}
	if _, serr := os.Stat(p); serr == nil {
		return nil
	}
	return os.Rename(tmp, p)
}
