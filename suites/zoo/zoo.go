// Package zoo is webbench's own suite of small, realistic web apps (ZOO.md): one Go HTTP server on loopback
// serves every app under a per-attempt tenant prefix `/t/<tenant>/<app>/…`, with page "mutations" (consent
// dialogs, covered inputs, churning refs, …) switched on per tenant. A second listener on its own port is the
// control API (create tenant, read state, reset, delete) that the agent's browser never reaches.
//
// Layout of the package:
//   - zoo.go: Server, Options, Start, Tenant (the Go API).
//   - server.go: the HTTP routing of the app port and the control API.
//   - app.go: the App interface every app implements, the app registry, shared page helpers.
//   - mutations.go: the mutation registry (the eight names of ZOO.md) and the shared overlays (consent,
//     geo_redirect) any app can render.
//   - shop.go + assets/shop/: the `shop` app (a Magento-like store).
//   - tasks.go + tasks/*.yaml: the task loader and the embedded tasks.
//   - families.go, family_params.go, catalog_domains.go: task families (templates over the apps' catalogs,
//     instantiated by seed) and the catalog domains their parameters draw from.
//   - sample.go: a task's family and the per-family sample browser tests run.
//   - suite.go: the "zoo" suite registered with package suites.
package zoo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// DefaultMaxTenants bounds the number of live tenants of one server (a leak guard, not a capacity plan).
const DefaultMaxTenants = 10000

// Options configure a Zoo server. The zero value is usable: both listeners on 127.0.0.1 with random ports.
type Options struct {
	// Addr is the app listener's address (default "127.0.0.1:0", a random port on loopback).
	Addr string
	// ControlAddr is the control API's address (default "127.0.0.1:0"); always a different port than Addr.
	ControlAddr string
	// MaxTenants bounds live tenants (default DefaultMaxTenants); NewTenant fails beyond it.
	MaxTenants int
}

// Server is a running Zoo: the app listener and the control listener. Safe for concurrent use.
type Server struct {
	opts     Options
	appLn    net.Listener
	ctlLn    net.Listener
	appSrv   *http.Server
	ctlSrv   *http.Server
	origin   string // "http://127.0.0.1:PORT" of the app listener
	ctlURL   string // "http://127.0.0.1:PORT" of the control API
	mu       sync.RWMutex
	tenants  map[string]*Tenant
	seq      int // tenants created so far (1-based creation order of the next is seq+1)
	closeOne sync.Once
}

// Start listens on both addresses and serves until Close. Errors are listen errors.
func Start(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.ControlAddr == "" {
		opts.ControlAddr = "127.0.0.1:0"
	}
	if opts.MaxTenants <= 0 {
		opts.MaxTenants = DefaultMaxTenants
	}
	appLn, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("zoo: app listener: %w", err)
	}
	ctlLn, err := net.Listen("tcp", opts.ControlAddr)
	if err != nil {
		appLn.Close()
		return nil, fmt.Errorf("zoo: control listener: %w", err)
	}
	s := &Server{
		opts:    opts,
		appLn:   appLn,
		ctlLn:   ctlLn,
		origin:  "http://" + appLn.Addr().String(),
		ctlURL:  "http://" + ctlLn.Addr().String(),
		tenants: map[string]*Tenant{},
	}
	s.appSrv = &http.Server{Handler: http.HandlerFunc(s.serveApp), ReadHeaderTimeout: 10 * time.Second}
	s.ctlSrv = &http.Server{Handler: s.controlHandler(), ReadHeaderTimeout: 10 * time.Second}
	go s.appSrv.Serve(appLn)
	go s.ctlSrv.Serve(ctlLn)
	return s, nil
}

// Origin is the app listener's origin, "http://127.0.0.1:PORT" (no trailing slash).
func (s *Server) Origin() string { return s.origin }

// ControlURL is the control API's base URL, "http://127.0.0.1:PORT" (no trailing slash). Endpoints: see
// controlHandler in server.go (POST /tenants, GET /tenants/{id}/state, POST /tenants/{id}/reset,
// DELETE /tenants/{id}, GET /apps).
func (s *Server) ControlURL() string { return s.ctlURL }

// Close stops both listeners and drops every tenant. Safe to call twice.
func (s *Server) Close() error {
	s.closeOne.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		s.appSrv.Shutdown(ctx)
		s.ctlSrv.Shutdown(ctx)
		s.mu.Lock()
		s.tenants = map[string]*Tenant{}
		s.mu.Unlock()
	})
	return nil
}

// Tenant is one attempt's isolated instance of one app: its own state and mutation set, served under
// /t/<ID>/<app>/ on the server's origin.
type Tenant struct {
	// ID is 128 random bits, hex (32 characters); unguessable.
	ID string
	// App is the app's registry name.
	App string
	// Mutations are the mutation names switched on, as given (validated, deduplicated, sorted).
	Mutations []string
	// Seq is the tenant's 1-based creation order on its server (apps derive deterministic numbers from it).
	Seq     int
	srv     *Server
	env     *AppEnv
	mu      sync.Mutex
	inst    Instance
	created time.Time
}

// NewTenant creates a tenant of app with the given mutations. Errors: unknown app, unknown mutation, a
// mutation the app does not implement, too many tenants.
func (s *Server) NewTenant(app string, mutations []string) (*Tenant, error) {
	a, ok := lookupApp(app)
	if !ok {
		return nil, fmt.Errorf("zoo: unknown app %q (valid: %s)", app, strings.Join(AppNames(), ", "))
	}
	muts, err := checkAppMutations(a, mutations)
	if err != nil {
		return nil, fmt.Errorf("zoo: %w", err)
	}
	id, err := newTenantID()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.tenants) >= s.opts.MaxTenants {
		s.mu.Unlock()
		return nil, fmt.Errorf("zoo: too many live tenants (%d); delete finished ones", s.opts.MaxTenants)
	}
	s.seq++
	seq := s.seq
	t := &Tenant{ID: id, App: a.Name(), Mutations: muts, Seq: seq, srv: s, created: time.Now()}
	s.tenants[id] = t
	s.mu.Unlock()
	t.env = &AppEnv{
		TenantID:  id,
		Seq:       seq,
		Base:      "/t/" + id + "/" + a.Name() + "/",
		Mutations: newMutationSet(muts),
		Overlays:  &Overlays{},
	}
	t.env.Overlays.env = t.env
	inst, err := a.New(t.env)
	if err != nil {
		s.mu.Lock()
		delete(s.tenants, id)
		s.mu.Unlock()
		return nil, fmt.Errorf("zoo: app %s: %w", a.Name(), err)
	}
	t.inst = inst
	return t, nil
}

// Tenant returns the live tenant with id, or nil.
func (s *Server) Tenant(id string) *Tenant {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tenants[id]
}

// DeleteTenant removes the tenant with id; its pages answer 404 afterwards. It reports whether it existed.
func (s *Server) DeleteTenant(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.tenants[id]
	delete(s.tenants, id)
	return ok
}

// TenantCount is the number of live tenants.
func (s *Server) TenantCount() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.tenants)
}

func newTenantID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("zoo: tenant id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// Prefix is the tenant's path prefix, "/t/<id>/<app>/".
func (t *Tenant) Prefix() string { return t.env.Base }

// URL is the absolute URL of p inside the tenant's app: p is relative to the app root ("/", "/cart",
// "product/yoga-mat?x=1"); an empty p is the root. An absolute http(s) URL is returned unchanged.
func (t *Tenant) URL(p string) string {
	if strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://") {
		return p
	}
	return t.srv.origin + t.env.Base + strings.TrimPrefix(p, "/")
}

// State is the app's state as a JSON object; the shop's is {"cart": […], "orders": […], "zoo": {…}}. The "zoo"
// member records the tenant's mutations and overlay choices (consent, region).
func (t *Tenant) State() json.RawMessage {
	t.mu.Lock()
	inst := t.inst
	t.mu.Unlock()
	raw := inst.State()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return raw
	}
	consent, region := t.env.Overlays.choices()
	z := map[string]any{"mutations": t.Mutations, "tenant_seq": t.Seq}
	if consent != "" {
		z["consent"] = consent
	}
	if region != "" {
		z["region"] = region
	}
	m["zoo"] = z
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}

// Reset replaces the tenant's state with a fresh instance (same id, app and mutations; overlays shown again).
func (t *Tenant) Reset() error {
	a, ok := lookupApp(t.App)
	if !ok {
		return fmt.Errorf("zoo: unknown app %q", t.App)
	}
	t.env.Overlays.reset()
	inst, err := a.New(t.env)
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.inst = inst
	t.mu.Unlock()
	return nil
}

// Close deletes the tenant from its server. Safe to call twice.
func (t *Tenant) Close() { t.srv.DeleteTenant(t.ID) }

// Allowed reports whether the tenant's browser may load rawURL: true only for http URLs on the Zoo's origin
// whose path lies under the tenant's prefix (/t/<id>/<app>/ or the prefix without its slash). Every other URL —
// other tenants, other apps of the same tenant id, the control port, other hosts, data:/blob:/ws: schemes — is
// false. Paths with dot segments or encoded slashes/backslashes are refused rather than normalised.
func (t *Tenant) Allowed(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "http" || u.User != nil || u.Opaque != "" {
		return false
	}
	if "http://"+u.Host != t.srv.origin {
		return false
	}
	esc := u.EscapedPath()
	low := strings.ToLower(esc)
	if strings.Contains(low, "%2f") || strings.Contains(low, "%5c") || strings.Contains(esc, "\\") {
		return false
	}
	p := u.Path
	if p != path.Clean(p) && p != path.Clean(p)+"/" {
		return false
	}
	base := t.env.Base
	return p == strings.TrimSuffix(base, "/") || strings.HasPrefix(p, base)
}

// MustAsk matches every URL Allowed may refuse, and none of the plain URLs under the tenant's prefix, which it
// allows (suites.PatternEnv): the browser asks Allowed about the matched ones only. It matches a URL that does
// not start with the prefix URL (the Zoo's origin and /t/<id>/<app>/), one with a character outside printable
// ASCII or a '#', and one whose path has, under the prefix, a character outside [A-Za-z0-9._~/-] (an escape, a
// backslash), an empty segment or a dot segment. The pattern is one JavaScript reads alike (no lookahead, no
// '.'): the driver matches it.
func (t *Tenant) MustAsk() *regexp.Regexp {
	p := t.srv.origin + t.env.Base
	q := regexp.QuoteMeta(strings.TrimSuffix(p, "/"))
	return regexp.MustCompile(notPrefix(p) + `|^` + q + `[^?]*(?:[^A-Za-z0-9._~/?-]|//|/\.\.?(?:[/?]|$))|[^!-~]|#`)
}

// notPrefix is a pattern of the strings that do not start with p (a proper prefix of p, or p's first i bytes
// and then another byte than p's next), written without lookahead: ^(?:$|[^a]|a(?:$|[^b]|b(?:…))) for p = "ab…".
func notPrefix(p string) string {
	var b strings.Builder
	b.WriteString("^")
	for i := range len(p) {
		c := regexp.QuoteMeta(p[i : i+1])
		b.WriteString("(?:$|[^" + c + "]")
		if i < len(p)-1 {
			b.WriteString("|" + c)
		}
	}
	b.WriteString(strings.Repeat(")", len(p)))
	return b.String()
}

// TenantInfo is the control API's description of a tenant.
type TenantInfo struct {
	// ID is the tenant id (32 hex characters).
	ID string `json:"id"`
	// App is the app's registry name.
	App string `json:"app"`
	// Mutations are the switched-on mutations, sorted.
	Mutations []string `json:"mutations"`
	// Seq is the 1-based creation order on the server.
	Seq int `json:"seq"`
	// URL is the absolute URL of the app's home under the tenant ("http://127.0.0.1:P/t/<id>/<app>/").
	URL string `json:"url"`
	// Prefix is the tenant's path prefix ("/t/<id>/<app>/").
	Prefix string `json:"prefix"`
	// Created is the creation time (wall clock; informational only, never part of the state).
	Created time.Time `json:"created"`
}

// Info describes the tenant (the control API's create response).
func (t *Tenant) Info() TenantInfo {
	return TenantInfo{ID: t.ID, App: t.App, Mutations: t.Mutations, Seq: t.Seq, URL: t.URL("/"),
		Prefix: t.env.Base, Created: t.created}
}

// Tenants lists live tenants, oldest first.
func (s *Server) Tenants() []*Tenant {
	s.mu.RLock()
	out := make([]*Tenant, 0, len(s.tenants))
	for _, t := range s.tenants {
		out = append(out, t)
	}
	s.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// errNoTenant is the control API's error for an unknown tenant id.
var errNoTenant = errors.New("no such tenant")
