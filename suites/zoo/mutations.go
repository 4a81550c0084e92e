package zoo

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Mutation describes one page condition of ZOO.md that breaks real agents. Mutations are off by default; a
// task lists those it runs under; an app implements a subset (App.Mutations).
type Mutation struct {
	// Name is the registry name used in tasks and tenants ("consent").
	Name string `json:"name"`
	// Effect says what the page does.
	Effect string `json:"effect"`
	// Breaks says what goes wrong for an agent.
	Breaks string `json:"breaks"`
	// Guard is the guard (GUARDS.md) that addresses it.
	Guard string `json:"guard"`
}

// Mutations is the registry of the eight mutations of ZOO.md, in its order.
var Mutations = []Mutation{
	{"consent", "OneTrust-like consent dialog with a dark full-page filter until Reject all / Accept all / Close",
		"clicks are intercepted", "intercept_hint"},
	{"geo_redirect", "a modal offering to switch region, over the page with a full-page backdrop",
		"clicks are intercepted", "intercept_hint"},
	{"icon_over_input", "a styled icon drawn over its own radio input; its label is clickable",
		"clicks on the input are intercepted", "intercept_hint"},
	{"late_hydration", "the page ships an empty shell and renders its content after its load event, 4 × the " +
		"load's time later (2–8 s)",
		"first snapshot has no refs", "snapshot_ready"},
	{"ref_churn", "lists re-render with new nodes and changed names at the first mouse press after each user " +
		"action (and after the load): the click that press begins is lost and fails as a stale ref; no timer",
		"stale refs", "stale_ref_refresh"},
	{"hung_fetch", "an API endpoint the page uses never answers",
		"an evaluate that awaits it never returns", "evaluate_isolation"},
	{"busy_script", "a page function blocks the tab synchronously for 30 s",
		"an evaluate that calls it freezes the tab", "evaluate_isolation"},
	{"nameless_switch", "the switch is <button role=switch> with no accessible name",
		"no ref can be found by name; a visual click is needed", "visual_progress"},
}

var mutationByName = func() map[string]Mutation {
	m := map[string]Mutation{}
	for _, x := range Mutations {
		m[x.Name] = x
	}
	return m
}()

// MutationNames lists the registered mutation names, sorted.
func MutationNames() []string {
	out := make([]string, 0, len(Mutations))
	for _, m := range Mutations {
		out = append(out, m.Name)
	}
	sort.Strings(out)
	return out
}

// LookupMutation returns the registered mutation called name.
func LookupMutation(name string) (Mutation, bool) {
	m, ok := mutationByName[name]
	return m, ok
}

// ValidateMutations returns an error naming the first unknown mutation and listing the valid names.
func ValidateMutations(names []string) error {
	for _, n := range names {
		if _, ok := mutationByName[n]; !ok {
			return fmt.Errorf("unknown mutation %q (valid: %s)", n, strings.Join(MutationNames(), ", "))
		}
	}
	return nil
}

// MutationSet is a tenant's set of switched-on mutations.
type MutationSet map[string]bool

func newMutationSet(names []string) MutationSet {
	s := MutationSet{}
	for _, n := range names {
		s[n] = true
	}
	return s
}

// Has reports whether mutation name is on.
func (s MutationSet) Has(name string) bool { return s[name] }

//go:embed assets/common
var commonFS embed.FS

var overlayTpl = template.Must(template.New("overlays").ParseFS(commonFS, "assets/common/*.html"))

// Overlays is a tenant's shared page chrome for the consent and geo_redirect mutations: the markup apps render
// before </body>, and the dismissal choices recorded when the user closes them (server-side, plus a cookie
// scoped to the tenant prefix so the very next request already knows).
type Overlays struct {
	env     *AppEnv
	mu      sync.Mutex
	consent string // "", "accepted", "rejected", "custom", "closed"
	region  string // "", "us" (stayed), "eu" (switched)
}

// Cookie names set by the overlays' script (path = tenant prefix). OptanonAlertBoxClosed mirrors OneTrust's.
const (
	consentCookie = "OptanonAlertBoxClosed"
	regionCookie  = "zoo_region"
)

var consentChoices = map[string]string{"accept": "accepted", "reject": "rejected", "custom": "custom",
	"close": "closed"}
var regionChoices = map[string]string{"stay": "us", "eu": "eu"}

func (o *Overlays) choices() (consent, region string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.consent, o.region
}

func (o *Overlays) reset() {
	o.mu.Lock()
	o.consent, o.region = "", ""
	o.mu.Unlock()
}

// Consent is the recorded consent choice ("" while the dialog is still open).
func (o *Overlays) Consent() string { c, _ := o.choices(); return c }

// Region is the recorded region choice: "" (not asked or undecided), "us" (stayed), "eu" (switched).
func (o *Overlays) Region() string { _, r := o.choices(); return r }

// sync records choices carried by cookies (set by the overlay script before the server saw its POST).
func (o *Overlays) syncCookies(r *http.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if c, err := r.Cookie(consentCookie); err == nil && o.consent == "" {
		if v, ok := consentChoices[c.Value]; ok {
			o.consent = v
		}
	}
	if c, err := r.Cookie(regionCookie); err == nil && o.region == "" {
		if v, ok := regionChoices[c.Value]; ok {
			o.region = v
		}
	}
}

type overlayData struct {
	Base    string
	Consent bool
	Geo     bool
}

// HTML is the overlay markup for the page being rendered for r: the OneTrust-like consent SDK (when
// `consent` is on and not yet dismissed) and the region modal (when `geo_redirect` is on and undecided), with
// their inline style and script. Empty when neither shows.
func (o *Overlays) HTML(r *http.Request) template.HTML {
	if o == nil || o.env == nil {
		return ""
	}
	o.syncCookies(r)
	consent, region := o.choices()
	d := overlayData{Base: o.env.Base,
		Consent: o.env.Mutations.Has("consent") && consent == "",
		Geo:     o.env.Mutations.Has("geo_redirect") && region == ""}
	if !d.Consent && !d.Geo {
		return ""
	}
	var b bytes.Buffer
	if err := overlayTpl.ExecuteTemplate(&b, "overlays.html", d); err != nil {
		return template.HTML("<!-- overlays: " + template.HTMLEscapeString(err.Error()) + " -->")
	}
	return template.HTML(b.String())
}

// serveZoo handles the overlays' endpoints under <base>_zoo/: POST consent (choice=accept|reject|custom|close)
// and POST region (choice=stay|eu). A fetch gets 204; a plain form post (no script) is redirected back to the
// page it came from (or the app home).
func (o *Overlays) serveZoo(w http.ResponseWriter, r *http.Request, rest string) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	choice := r.FormValue("choice")
	o.mu.Lock()
	var ok bool
	switch rest {
	case "consent":
		var v string
		if v, ok = consentChoices[choice]; ok {
			o.consent = v
			http.SetCookie(w, &http.Cookie{Name: consentCookie, Value: choice, Path: o.env.Base})
		}
	case "region":
		var v string
		if v, ok = regionChoices[choice]; ok {
			o.region = v
			http.SetCookie(w, &http.Cookie{Name: regionCookie, Value: choice, Path: o.env.Base})
		}
	default:
		o.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	o.mu.Unlock()
	if !ok {
		http.Error(w, "bad choice", http.StatusBadRequest)
		return
	}
	if r.Header.Get("X-Zoo-Fetch") != "" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	back := r.FormValue("back")
	if !strings.HasPrefix(back, o.env.Base) {
		back = o.env.Base
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// BusyTick is how long one GET api/busy-tick takes to answer (204, no body): the synchronous request the busy_script
// helpers (recipes' computeScaledServings, stays' recalculateStayPrice) make in a loop until their 30 s are up. The
// page's main thread waits inside each request without running, so an evaluate that calls the helper freezes the tab
// for the whole 30 s as a CPU-bound spin does, and V8 terminates the loop within one tick of an evaluate's timeout
// (Runtime.terminateExecution takes effect when JavaScript runs again). A spin, as the helpers had before, kept a
// renderer runnable for its whole time, competing for the cores with every other worker's page: 88 s of spinning in
// the demo's 188 attempts on two cores (2026-12-03), 31 s in six guard-on evaluates (5 s each until
// evaluate_isolation terminates them) and 56 s in no_evaluate_isolation's two (until the attempt's 30 s budget).
// 100 ms keeps the termination within evaluate_isolation's 150 ms headroom at about ten routed requests a second; the
// helpers (recipe.js, hotel.js) wait out the rest of 100 ms on the clock (a spin: the core is free only while ticks
// are answered) after a request that failed or was answered early, so the rate stays at most ten a second then too.
// The termination depends on the tick answering: a synchronous request that never did (its connection slots taken by
// hung requests) would hold the tab until the request's own timeout, out of reach of Runtime.terminateExecution; no
// task combines busy_script with hung_fetch.
const BusyTick = 100 * time.Millisecond

// serveBusyTick answers GET api/busy-tick after BusyTick, or returns without writing when the client is gone
// first (the page closed).
func serveBusyTick(w http.ResponseWriter, r *http.Request) {
	t := time.NewTimer(BusyTick)
	defer t.Stop()
	select {
	case <-t.C:
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNoContent)
	case <-r.Context().Done():
	}
}
