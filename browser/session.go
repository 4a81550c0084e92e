package browser

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"webbench/browser/cassette"
)

// Defaults of SessionOptions (DESIGN.md "Scale beyond one machine", Playwright MCP's action timeout).
const (
	DefaultViewportWidth     = 1280
	DefaultViewportHeight    = 720
	DefaultLocale            = "en-US"
	DefaultTimezoneID        = "UTC"
	DefaultActionTimeout     = 5 * time.Second
	DefaultNavigationTimeout = 15 * time.Second
	DefaultKeepScreenshots   = 15
)

// SessionOptions configure one attempt's browser context and tools.
type SessionOptions struct {
	// ViewportWidth/Height in CSS px (default 1280×720); Locale (default en-US); TimezoneID (default UTC).
	ViewportWidth, ViewportHeight int
	Locale, TimezoneID            string
	// ActionTimeout bounds each Playwright action (default 5 s, as Playwright MCP).
	ActionTimeout time.Duration
	// Allowed, when set, is asked for every request the context makes (whose URL AskOnly matches, when set);
	// false aborts it (Zoo tenant isolation).
	Allowed func(url string) bool
	// AskOnly, when set with Allowed, limits the requests Allowed is asked about to those whose URL it matches;
	// the others load without asking. Playwright matches it in the driver before it hands a request to a route
	// handler, a round trip to this process per request. The caller guarantees that Allowed is true for every URL
	// AskOnly does not match, and that the pattern means the same in Go and in JavaScript
	// (suites.PatternEnv.MustAsk).
	AskOnly *regexp.Regexp
	// KeepScreenshots is how many recent screenshots to keep for the judge (default 15).
	KeepScreenshots int
	// DisableEvaluate removes browser_evaluate from the tool list and refuses calls to it.
	DisableEvaluate bool
	// NavigationTimeout bounds browser_navigate, browser_navigate_back and Navigate (default 15 s).
	NavigationTimeout time.Duration
	// SetupTimeout bounds NewSession and Close, Playwright calls without a timeout of their own (default
	// DefaultSetupTimeout, 30 s); past it they return an ErrUnresponsive error.
	SetupTimeout time.Duration
	// Cassette, when set, records every request of the context into the attempt's tape or answers it from
	// the tape (cassette.Attempt.Install; docs/CASSETTES.md). The caller closes it after the session.
	Cassette *cassette.Attempt
	// Phases, when set, is told the wall time of each part of an action tool call as it ends (the Phase*
	// names; a settle of several rounds reports each round's parts), on the tool call's goroutine: the
	// benchmark's breakdown of a click. Nil costs nothing.
	Phases func(phase string, d time.Duration)
}

// Parts of an action tool call reported to SessionOptions.Phases.
const (
	// PhaseProbe: resolving a click's element and arming the click probe (two driver calls).
	PhaseProbe = "probe"
	// PhaseAction: the Playwright action itself (a click: scroll into view, actionability checks, input events).
	PhaseAction = "action"
	// PhaseSettleRequests: a settle round's wait for the requests the action started (and a navigation's commit).
	PhaseSettleRequests = "settle.requests"
	// PhaseSettleDOM: a settle round's DOM wait (settleDOMScript's Evaluate, round trip included).
	PhaseSettleDOM = "settle.dom"
	// PhaseSettleDOMPage: the part of PhaseSettleDOM the script spent in the page (quiet window and frames).
	PhaseSettleDOMPage = "settle.dom.page"
	// PhaseSettleQuietLeft: what was left of the quiet window when the DOM wait started (0 when the page had
	// been quiet for the whole window already).
	PhaseSettleQuietLeft = "settle.quiet_left"
	// PhaseCheck: the wait for a click probe's read after the settle ended (it runs beside the settle).
	PhaseCheck = "check"
	// PhaseSnapshot: the post-action snapshot (Observe, the title read beside it).
	PhaseSnapshot = "snapshot"
	// PhasePageInfo: the result's URL and title (finish).
	PhasePageInfo = "page_info"
)

// phase reports to SessionOptions.Phases that part name of a tool call took from t0 until now.
func (s *Session) phase(name string, t0 time.Time) {
	if s.opts.Phases != nil {
		s.opts.Phases(name, time.Since(t0))
	}
}

func (o SessionOptions) withDefaults() SessionOptions {
	if o.ViewportWidth <= 0 {
		o.ViewportWidth = DefaultViewportWidth
	}
	if o.ViewportHeight <= 0 {
		o.ViewportHeight = DefaultViewportHeight
	}
	if o.Locale == "" {
		o.Locale = DefaultLocale
	}
	if o.TimezoneID == "" {
		o.TimezoneID = DefaultTimezoneID
	}
	if o.ActionTimeout <= 0 {
		o.ActionTimeout = DefaultActionTimeout
	}
	if o.NavigationTimeout <= 0 {
		o.NavigationTimeout = DefaultNavigationTimeout
	}
	if o.KeepScreenshots <= 0 {
		o.KeepScreenshots = DefaultKeepScreenshots
	}
	if o.SetupTimeout <= 0 {
		o.SetupTimeout = DefaultSetupTimeout
	}
	return o
}

// Session is one attempt's browser context + page and its tools, named and shaped like Playwright MCP.
// Not safe for concurrent tool calls (tool calls of an attempt run in order); its accessors and Close are safe
// to call from any goroutine, also while a cancelled call is still running.
type Session struct {
	ctx  playwright.BrowserContext
	page playwright.Page
	opts SessionOptions
	// navFailed is whether the last Navigate failed with a network error (net::ERR_…), whose error page
	// Chromium commits after the failure (atomic: a cancelled call may still be running beside the next).
	navFailed atomic.Bool
	// filter post-processes every snapshot a tool captures (the agent's AfterSnapshot hooks).
	filter func(snapshot string) string

	mu     sync.Mutex
	refs   map[string]string // ref → role of the last snapshot
	events []string          // pending Events for the next result
	shots  [][]byte          // last KeepScreenshots screenshots
	// shotSteps[i] is the step shots[i] belongs to (ScreenshotSteps), -1 until a CaptureForJudge tags it.
	shotSteps []int
	closed    bool
	net       netState
	// netCh is closed and cleared at each change of net (netSignal); nil when nobody waits.
	netCh chan struct{}
	// newPages are pages (tabs, popups) opened in the context since the session started, not yet adopted.
	newPages []playwright.Page
	// title is the title read with the snapshot of the tool call under way (observeTitled), nil when none.
	title *titleRead

	closeOnce sync.Once
	closeErr  error
}

// netState tracks requests and main-frame navigations of the current page, to let an action settle.
type netState struct {
	seq       uint64                        // requests seen
	calls     uint64                        // requests seen that are no document's own load (pageLoad)
	pending   map[playwright.Request]uint64 // unfinished request → its seq
	navSeq    uint64                        // seq of the last main-frame navigation request
	commits   uint64                        // main-frame navigations committed
	pageOpens uint64                        // pages opened in the context
}

// StaleRefError is the error for a ref that is not in the last snapshot or whose node is gone; its text is
// StaleRefMessage(Ref), after Why when the node went away during the action.
type StaleRefError struct {
	Ref string
	// Why, when set, says how the node went away while the action ran (a sentence, without final period).
	Why string
}

// Error returns StaleRefMessage(e.Ref), Playwright MCP's wording, after e.Why when set.
func (e *StaleRefError) Error() string {
	if e.Why != "" {
		return e.Why + ". " + StaleRefMessage(e.Ref)
	}
	return StaleRefMessage(e.Ref)
}

// errClosed is returned by calls on a closed session.
var errClosed = errors.New("browser: session closed")

// NewSession opens a fresh context (viewport, locale, timezone from o, downloads accepted) and one page, sets
// the default action timeout (o.ActionTimeout) and navigation timeout (o.NavigationTimeout), routes every
// request (every one o.AskOnly matches, when set) through o.Allowed when it is set (aborting refused ones with
// net::ERR_BLOCKED_BY_CLIENT) after o.Cassette when set (which records or replays them), and starts
// collecting console errors, page errors, dialogs (dismissed at once) and downloads for the next result's Events.
// When the context and page are not ready within o.SetupTimeout, it returns an error wrapping ErrUnresponsive
// (the browser is hung or gone; the caller should drop it) and closes the session if it arrives later.
func (b *Browser) NewSession(o SessionOptions) (*Session, error) {
	o = o.withDefaults()
	return within(o.SetupTimeout, "opening a browser context and page", func() (*Session, error) {
		return b.newSession(o)
	}, func(s *Session, err error) {
		if s != nil {
			_ = s.Close()
		}
	})
}

func (b *Browser) newSession(o SessionOptions) (*Session, error) {
	copts := playwright.BrowserNewContextOptions{
		Viewport:        &playwright.Size{Width: o.ViewportWidth, Height: o.ViewportHeight},
		Locale:          playwright.String(o.Locale),
		TimezoneId:      playwright.String(o.TimezoneID),
		AcceptDownloads: playwright.Bool(true),
	}
	if o.Cassette != nil {
		// A service worker's requests bypass the context's routes: recorded, they would be missing from the
		// tape; replayed, they would reach the network.
		copts.ServiceWorkers = playwright.ServiceWorkerPolicyBlock
	}
	bctx, err := b.b.NewContext(copts)
	if err != nil {
		return nil, fmt.Errorf("browser: new context: %w", err)
	}
	s := &Session{ctx: bctx, opts: o, net: netState{pending: map[playwright.Request]uint64{}}}
	bctx.SetDefaultTimeout(ms(o.ActionTimeout))
	bctx.SetDefaultNavigationTimeout(ms(o.NavigationTimeout))
	// The cassette's route goes first: Playwright tries the last registered route first, so the allow-list
	// below decides and falls back to the cassette for what it lets through.
	if o.Cassette != nil {
		if err := o.Cassette.Install(bctx); err != nil {
			_ = bctx.Close()
			return nil, fmt.Errorf("browser: cassette: %w", err)
		}
	}
	if o.Allowed != nil {
		allowed := o.Allowed
		var match any = "**/*"
		if o.AskOnly != nil {
			match = o.AskOnly
		}
		err := bctx.Route(match, func(r playwright.Route) {
			if allowed(r.Request().URL()) {
				_ = r.Fallback()
				return
			}
			_ = r.Abort("blockedbyclient")
		})
		if err != nil {
			_ = bctx.Close()
			return nil, fmt.Errorf("browser: route: %w", err)
		}
	}
	if err := bctx.AddInitScript(playwright.Script{Content: playwright.String(settleInitScript)}); err != nil {
		_ = bctx.Close()
		return nil, fmt.Errorf("browser: init script: %w", err)
	}
	// After the settle script, which keeps the page's own requestAnimationFrame and setTimeout: the clock's
	// script, run after it in every document, replaces them with Playwright's fake timers.
	if o.Cassette != nil {
		if err := o.Cassette.SetClock(bctx); err != nil {
			_ = bctx.Close()
			return nil, fmt.Errorf("browser: cassette: %w", err)
		}
	}
	bctx.OnPage(func(p playwright.Page) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.page == nil || p == s.page {
			return
		}
		s.newPages = append(s.newPages, p)
		s.net.pageOpens++
		s.netSignal()
	})
	page, err := bctx.NewPage()
	if err != nil {
		_ = bctx.Close()
		return nil, fmt.Errorf("browser: new page: %w", err)
	}
	page.SetDefaultTimeout(ms(o.ActionTimeout))
	page.SetDefaultNavigationTimeout(ms(o.NavigationTimeout))
	s.mu.Lock()
	s.page = page
	s.mu.Unlock()
	s.watch(page)
	return s, nil
}

// ms converts a duration to Playwright's float milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// watch attaches the event and network listeners to p.
func (s *Session) watch(p playwright.Page) {
	p.OnConsole(func(m playwright.ConsoleMessage) {
		if m.Type() != "error" {
			return
		}
		e := "[ERROR] " + m.Text()
		if l := m.Location(); l != nil && l.URL != "" {
			e += fmt.Sprintf(" @ %s:%d", l.URL, l.Line)
		}
		s.addEvent(e)
	})
	p.OnPageError(func(err error) { s.addEvent("[ERROR] " + err.Error()) })
	p.OnDialog(func(d playwright.Dialog) {
		s.addEvent(fmt.Sprintf("Dialog (%s) %q was dismissed", d.Type(), d.Message()))
		go func() { _ = d.Dismiss() }()
	})
	p.OnDownload(func(d playwright.Download) {
		s.addEvent(fmt.Sprintf("Downloaded file %q from %s", d.SuggestedFilename(), d.URL()))
	})
	p.OnCrash(func(playwright.Page) { s.addEvent("Page crashed") })
	p.OnRequest(func(r playwright.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.page != p {
			return
		}
		s.net.seq++
		s.net.pending[r] = s.net.seq
		if !pageLoad[r.ResourceType()] {
			s.net.calls++
		}
		if r.IsNavigationRequest() && r.Frame() == p.MainFrame() {
			s.net.navSeq = s.net.seq
		}
		s.netSignal()
	})
	done := func(r playwright.Request) {
		s.mu.Lock()
		if _, ok := s.net.pending[r]; ok {
			delete(s.net.pending, r)
			s.netSignal()
		}
		s.mu.Unlock()
	}
	p.OnRequestFinished(done)
	p.OnRequestFailed(done)
	p.OnFrameNavigated(func(f playwright.Frame) {
		if f != p.MainFrame() {
			return
		}
		s.mu.Lock()
		if s.page == p {
			s.net.commits++
			s.netSignal()
		}
		s.mu.Unlock()
	})
}

// pageLoad are the resource types (Playwright's Request.ResourceType, Chromium's Network.ResourceType in lower
// case) of a document and the subresources its markup loads. A request of any other type (fetch, xhr,
// eventsource, websocket, ping, other, …) is one a script makes, which may chain into the next one: settle waits
// the longer quiet window after those only.
var pageLoad = map[string]bool{"document": true, "stylesheet": true, "script": true, "image": true, "font": true,
	"media": true, "texttrack": true, "manifest": true}

func (s *Session) addEvent(e string) {
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
}

// drainEvents returns and clears the pending events.
func (s *Session) drainEvents() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ev := s.events
	s.events = nil
	return ev
}

// cur is the current page.
func (s *Session) cur() playwright.Page {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.page
}

// Options returns the session's options with defaults filled in.
func (s *Session) Options() SessionOptions { return s.opts }

// Navigate opens url in the page and waits for the load event (bounded by the navigation timeout): it waits
// for DOMContentLoaded within the navigation timeout, then for load at most 5 s more, as Playwright MCP does.
// The error is Playwright's, verbatim; a navigation interrupted by the error page of the previous one, which
// failed, is made once more.
func (s *Session) Navigate(url string) error {
	p := s.cur()
	if p == nil {
		return errClosed
	}
	goto_ := func() error {
		_, err := p.Goto(url, playwright.PageGotoOptions{
			WaitUntil: playwright.WaitUntilStateDomcontentloaded,
			Timeout:   playwright.Float(ms(s.opts.NavigationTimeout)),
		})
		return err
	}
	m := s.mark()
	err := goto_()
	if err != nil && s.navFailed.Load() && strings.Contains(err.Error(), `interrupted by another navigation to "chrome-error://`) {
		// The error page of the previous, failed navigation committed later than the wait below allowed (a
		// loaded machine); this navigation was not refused, so it is made again, once. A page whose own script
		// moved to an unreachable address reads the same, which is why only after a failed navigation.
		m = s.mark()
		err = goto_()
	}
	failed := err != nil && strings.Contains(err.Error(), "net::ERR_")
	s.navFailed.Store(failed)
	if err != nil {
		if failed {
			// Chromium commits its error page a few ms after the failure; wait for it so that the next
			// navigation is not "interrupted by another navigation to chrome-error://chromewebdata/".
			s.waitCommit(m, time.Second)
		}
		return err
	}
	_ = p.WaitForLoadState(playwright.PageWaitForLoadStateOptions{
		State: playwright.LoadStateLoad, Timeout: playwright.Float(5000)})
	return nil
}

// snapshotTimeout bounds snapshots and screenshots: the navigation timeout (at least the action timeout and
// 5 s). A capture is the page's own work, which grows with the page's size and the machine's load as a load
// does, not a wait for an element's state as the action timeout is: bounded by the 5 s action timeout, the
// snapshot after a delivered click on a 132-property results list timed out under CPU load, and the model was
// told that the click had failed on a loaded machine only. The bound is for a page whose script holds its
// main thread.
func (s *Session) snapshotTimeout() time.Duration {
	return max(s.opts.ActionTimeout, s.opts.NavigationTimeout, 5*time.Second)
}

// Snapshot captures an AI-mode aria snapshot (with [box=…] when boxes) and records its refs as the current
// ref set. It does not run the snapshot filter. A snapshot that races a navigation ("Execution context was
// destroyed") is retried twice after waiting for the load event; other errors are Playwright's, verbatim.
func (s *Session) Snapshot(boxes bool) (string, error) {
	var snap string
	var err error
	for try := 0; try < 3; try++ {
		p := s.cur()
		if p == nil {
			return "", errClosed
		}
		opt := playwright.PageAriaSnapshotOptions{
			Mode:    playwright.AriaSnapshotModeAi,
			Timeout: playwright.Float(ms(s.snapshotTimeout())),
		}
		if boxes {
			opt.Boxes = playwright.Bool(true)
		}
		snap, err = p.AriaSnapshot(opt)
		if err == nil {
			break
		}
		msg := err.Error()
		if !strings.Contains(msg, "Execution context was destroyed") && !strings.Contains(msg, "navigation") {
			return "", err
		}
		_ = p.WaitForLoadState(playwright.PageWaitForLoadStateOptions{
			State: playwright.LoadStateLoad, Timeout: playwright.Float(5000)})
	}
	if err != nil {
		return "", err
	}
	refs := snapshotRoles(snap)
	s.mu.Lock()
	s.refs = refs
	s.mu.Unlock()
	return snap, nil
}

// WaitInteractive implements InteractiveWaiter with Playwright's role selector (getByRole, one per
// InteractiveRoles, joined by Locator.or), the role computation the AI snapshot makes, over the elements the AI
// snapshot lists: the visible ones, an aria-hidden subtree's too (includeHidden, and the visible filter:
// https://playwright.dev/docs/api/class-page#page-get-by-role; TestWaitInteractive holds the two to agreeing).
// Playwright re-checks the locator as the page changes and across a navigation; the wait ends on the first match.
func (s *Session) WaitInteractive(timeout time.Duration) (bool, error) {
	p := s.cur()
	if p == nil {
		return false, errClosed
	}
	var loc playwright.Locator
	for _, r := range InteractiveRoles {
		l := p.GetByRole(playwright.AriaRole(r), playwright.PageGetByRoleOptions{IncludeHidden: playwright.Bool(true)})
		if loc == nil {
			loc = l
		} else {
			loc = loc.Or(l)
		}
	}
	err := loc.Filter(playwright.LocatorFilterOptions{Visible: playwright.Bool(true)}).First().
		WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateAttached,
			Timeout: playwright.Float(ms(timeout))})
	if errors.Is(err, playwright.ErrTimeout) {
		return false, nil
	}
	return err == nil, err
}

// snapshotRoles maps every ref of a snapshot to its node's role ("" when the line has no leading role).
func snapshotRoles(snap string) map[string]string {
	out := map[string]string{}
	for _, n := range (Snapshot{YAML: snap}).Nodes() {
		out[n.Ref] = n.Role
	}
	return out
}

// Observe is what tools use: Snapshot followed by the filter set with SetSnapshotFilter.
func (s *Session) Observe(boxes bool) (string, error) {
	snap, err := s.Snapshot(boxes)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	f := s.filter
	s.mu.Unlock()
	if f != nil {
		snap = f(snap)
	}
	return snap, nil
}

// SetSnapshotFilter installs f to post-process every snapshot tools capture (nil removes it).
func (s *Session) SetSnapshotFilter(f func(snapshot string) string) {
	s.mu.Lock()
	s.filter = f
	s.mu.Unlock()
}

// Page exposes the current Playwright page for guards that need it (evaluate_isolation's CDP session): a tab
// opened by an action becomes the current page (see Call).
func (s *Session) Page() playwright.Page { return s.cur() }

// Context exposes the session's Playwright browser context (one per session) for guards that need it.
func (s *Session) Context() playwright.BrowserContext { return s.ctx }

// bounded runs f and waits at most d for it; false when it did not finish in time (f keeps running).
func bounded(d time.Duration, f func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// titleWait bounds PageInfo's title read (document.title blocks while page script runs).
const titleWait = 2 * time.Second

// PageInfo returns the page's URL and title. The title is "" when the page does not answer within 2 s (a busy
// page script).
func (s *Session) PageInfo() (url, title string) {
	p := s.cur()
	if p == nil {
		return "", ""
	}
	url = p.URL()
	title, _ = s.readTitle(p)()
	return url, title
}

// titleRead is a title read started early (readTitle) for the result of the tool call under way: page and
// url are the page and its URL when it started, get waits for it.
type titleRead struct {
	page playwright.Page
	url  string
	get  func() (string, bool)
}

// readTitle starts reading p's title and returns a function that waits for it, at most titleWait from now;
// ok is false when the page did not answer in time or the read failed (a navigation destroyed the document).
func (s *Session) readTitle(p playwright.Page) func() (title string, ok bool) {
	type answer struct {
		t  string
		ok bool
	}
	ch := make(chan answer, 1)
	go func() {
		t, err := p.Title()
		ch <- answer{t, err == nil}
	}()
	t := time.NewTimer(titleWait)
	return func() (string, bool) {
		defer t.Stop()
		select {
		case a := <-ch:
			return a.t, a.ok
		case <-t.C:
			return "", false
		}
	}
}

// observeTitled is Observe with the page's title read at the same time (two driver calls in flight instead of
// one after the other); the result's PageInfo (finish) uses that title when the page and its URL are still
// those it was read from.
func (s *Session) observeTitled(boxes bool) (string, error) {
	if p := s.cur(); p != nil {
		tr := &titleRead{page: p, url: p.URL(), get: s.readTitle(p)}
		s.mu.Lock()
		s.title = tr
		s.mu.Unlock()
	}
	return s.Observe(boxes)
}

// resultPageInfo is PageInfo for the result of a tool call: the title observeTitled read when it still holds.
func (s *Session) resultPageInfo() (url, title string) {
	s.mu.Lock()
	tr := s.title
	s.title = nil
	s.mu.Unlock()
	p := s.cur()
	if tr == nil || p == nil || tr.page != p || p.URL() != tr.url {
		return s.PageInfo()
	}
	if t, ok := tr.get(); ok {
		return tr.url, t
	}
	return s.PageInfo()
}

// Locator resolves a target (a ref such as "e12" or "f1e3", also accepted as "ref=e12" or "[ref=e12]") to a
// locator. A target that is not a ref, a ref not in the last snapshot, or a ref whose node is gone (count 0, or
// its frame gone) fails at once with a *StaleRefError (text StaleRefMessage). When the page does not answer
// the count within half the action timeout (at most 2 s; a busy page script), the locator is returned
// unchecked so that the action itself times out with Playwright's error.
func (s *Session) Locator(target string) (playwright.Locator, error) {
	loc, err := s.refLocator(target)
	if err != nil {
		return nil, err
	}
	ref, _ := ParseRef(target)
	var n int
	if !bounded(min(s.opts.ActionTimeout/2, 2*time.Second), func() { n, err = loc.Count() }) {
		return loc, nil
	}
	if err != nil {
		if strings.Contains(err.Error(), "aria-ref") {
			return nil, &StaleRefError{Ref: ref}
		}
		return nil, err
	}
	if n == 0 {
		return nil, &StaleRefError{Ref: ref}
	}
	return loc, nil
}

// refLocator is Locator without the count: the target must be a ref of the last snapshot, and the locator is
// not asked whether its node is still there (a click asks that as it resolves its element, clickProbe).
func (s *Session) refLocator(target string) (playwright.Locator, error) {
	ref, ok := ParseRef(target)
	if !ok {
		return nil, &StaleRefError{Ref: strings.TrimSpace(target)}
	}
	s.mu.Lock()
	_, known := s.refs[ref]
	p := s.page
	closed := s.closed
	s.mu.Unlock()
	if closed || p == nil {
		return nil, errClosed
	}
	if !known {
		return nil, &StaleRefError{Ref: ref}
	}
	return p.GetByRef(ref), nil
}

// Screenshot captures a PNG of the viewport and keeps it among the last KeepScreenshots (the
// browser_take_screenshot tool calls it). The kept screenshot belongs to no step until the next
// CaptureForJudge, which tags it with that step (ScreenshotSteps).
func (s *Session) Screenshot() ([]byte, error) { return s.screenshot(-1) }

// screenshot is Screenshot, the kept screenshot tagged with step (-1: not yet known).
func (s *Session) screenshot(step int) ([]byte, error) {
	p := s.cur()
	if p == nil {
		return nil, errClosed
	}
	img, err := p.Screenshot(playwright.PageScreenshotOptions{
		Type:    playwright.ScreenshotTypePng,
		Timeout: playwright.Float(ms(s.snapshotTimeout())),
	})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.shots = append(s.shots, img)
	s.shotSteps = append(s.shotSteps, step)
	if over := len(s.shots) - s.opts.KeepScreenshots; over > 0 {
		s.shots = append([][]byte(nil), s.shots[over:]...)
		s.shotSteps = append([]int(nil), s.shotSteps[over:]...)
	}
	s.mu.Unlock()
	return img, nil
}

// CaptureForJudge takes one viewport screenshot after step (the 0-based results.Step.Index; the agent loop calls
// it after each step with --screenshots) and keeps it. It also tags with step the screenshots the agent's own
// browser_take_screenshot calls kept since the previous capture: they were taken during that step. The step is
// tagged even when the capture fails.
func (s *Session) CaptureForJudge(step int) error {
	s.mu.Lock()
	tagPending(s.shotSteps, step)
	s.mu.Unlock()
	_, err := s.screenshot(step)
	return err
}

// tagPending sets to step the trailing -1 entries of tags (the screenshots not yet given a step).
func tagPending(tags []int, step int) {
	for i := len(tags) - 1; i >= 0 && tags[i] < 0; i-- {
		tags[i] = step
	}
}

// Screenshots returns the kept screenshots, oldest first.
func (s *Session) Screenshots() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.shots...)
}

// ScreenshotSteps returns, for each of Screenshots (same order and length), the 0-based step index it belongs
// to: the step it was captured after (CaptureForJudge) or taken during (the agent's browser_take_screenshot,
// tagged by the next capture); -1 for one no capture followed. Several screenshots can share a step.
func (s *Session) ScreenshotSteps() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.shotSteps...)
}

// Close closes the context (releasing any Playwright call stuck on it). Safe to call twice.
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.netSignal()
		s.mu.Unlock()
		_, err := within(s.opts.SetupTimeout, "closing the browser context", func() (struct{}, error) {
			return struct{}{}, s.ctx.Close()
		}, nil)
		if err != nil && errors.Is(err, playwright.ErrTargetClosed) {
			err = nil
		}
		s.closeErr = err
	})
	return s.closeErr
}
