package browser

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	playwright "github.com/mxschmitt/playwright-go"
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
	// Allowed, when set, is asked for every request the context makes; false aborts it (Zoo tenant isolation).
	Allowed func(url string) bool
	// KeepScreenshots is how many recent screenshots to keep for the judge (default 15).
	KeepScreenshots int
	// DisableEvaluate removes browser_evaluate from the tool list and refuses calls to it.
	DisableEvaluate bool
	// NavigationTimeout bounds browser_navigate, browser_navigate_back and Navigate (default 15 s).
	NavigationTimeout time.Duration
	// SetupTimeout bounds NewSession and Close, Playwright calls without a timeout of their own (default
	// DefaultSetupTimeout, 30 s); past it they return an ErrUnresponsive error.
	SetupTimeout time.Duration
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

	closeOnce sync.Once
	closeErr  error
}

// netState tracks requests and main-frame navigations of the current page, to let an action settle.
type netState struct {
	seq       uint64                        // requests seen
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
// request through o.Allowed when it is set (aborting refused ones with net::ERR_BLOCKED_BY_CLIENT), and starts
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
	bctx, err := b.b.NewContext(playwright.BrowserNewContextOptions{
		Viewport:        &playwright.Size{Width: o.ViewportWidth, Height: o.ViewportHeight},
		Locale:          playwright.String(o.Locale),
		TimezoneId:      playwright.String(o.TimezoneID),
		AcceptDownloads: playwright.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("browser: new context: %w", err)
	}
	s := &Session{ctx: bctx, opts: o, net: netState{pending: map[playwright.Request]uint64{}}}
	bctx.SetDefaultTimeout(ms(o.ActionTimeout))
	bctx.SetDefaultNavigationTimeout(ms(o.NavigationTimeout))
	if o.Allowed != nil {
		allowed := o.Allowed
		err := bctx.Route("**/*", func(r playwright.Route) {
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
// The error is Playwright's, verbatim.
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
	if err := goto_(); err != nil {
		if strings.Contains(err.Error(), "net::ERR_") {
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

// snapshotTimeout bounds snapshots and screenshots: the action timeout, at least 5 s.
func (s *Session) snapshotTimeout() time.Duration {
	return max(s.opts.ActionTimeout, 5*time.Second)
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
	var t string
	if bounded(titleWait, func() { t, _ = p.Title() }) {
		title = t
	}
	return url, title
}

// Locator resolves a target (a ref such as "e12" or "f1e3", also accepted as "ref=e12" or "[ref=e12]") to a
// locator. A target that is not a ref, a ref not in the last snapshot, or a ref whose node is gone (count 0, or
// its frame gone) fails at once with a *StaleRefError (text StaleRefMessage). When the page does not answer
// the count within half the action timeout (at most 2 s; a busy page script), the locator is returned
// unchecked so that the action itself times out with Playwright's error.
func (s *Session) Locator(target string) (playwright.Locator, error) {
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
	loc := p.GetByRef(ref)
	var n int
	var err error
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

// netMark is the network state before an action.
type netMark struct{ seq, commits, pageOpens uint64 }

func (s *Session) mark() netMark {
	s.mu.Lock()
	defer s.mu.Unlock()
	return netMark{s.net.seq, s.net.commits, s.net.pageOpens}
}

// Settling bounds (after an action, before its snapshot). None is a fixed wait: each is the most settle waits
// for one thing; on a page that is already quiet settle returns after the quiet window and two frames.
const (
	settleRequests = 2 * time.Second        // at most, for requests started by the action (and further rounds)
	settleCommit   = 1 * time.Second        // at most, from a finished navigation request to its commit
	settleLoad     = 5 * time.Second        // at most, for the load event after a navigation
	settleTab      = 2 * time.Second        // at most, for the page event of a tab the page asked for
	settleQuiet    = 40 * time.Millisecond  // DOM quiet window (no mutation for this long) on an action without requests
	settleQuietNet = 100 * time.Millisecond // DOM quiet window when the action started requests (chained fetches)
	settleFrameCap = 200 * time.Millisecond // in-page fallback when animation frames do not run (a hidden page)
)

// settleInitScript is installed in every document of the context (BrowserContext.AddInitScript, which runs it
// before the page's own scripts). It keeps, in a non-enumerable window.__webbenchSettle read by settleDOMScript:
//   - last: the time (performance.now(), ms) of the last DOM mutation, from a MutationObserver on the whole
//     document (child lists, attributes, text);
//   - reqs: the start time of every fetch and XMLHttpRequest in flight (fetch until its promise settles, an XHR
//     until loadend or, read by settleDOMScript, readyState DONE: a synchronous XHR whose script was terminated
//     by Runtime.terminateExecution as it returned — the evaluate_isolation guard's cut — completes without
//     running its loadend listener; https://xhr.spec.whatwg.org/#dom-xmlhttprequest-readystate), and lastReq,
//     the time one last started or ended. The page's own view of its requests is needed because the Go side
//     hears of a request only after it went through the route handler (the Zoo's tenant allow-list): a request
//     the action started can reach Go after a quiet window that began before it;
//   - tab: whether the page asked for a tab: window.open, or a click on a link or a submit of a form whose target
//     is not the document's own frame
//     (https://html.spec.whatwg.org/multipage/document-sequences.html#valid-navigable-target-name-or-keyword);
//   - settledAt: when the last settle ended (requests older than it are not waited for: a hung fetch).
const settleInitScript = `(() => {
  if (window.__webbenchSettle) return;
  const now = () => performance.now();
  const st = { last: now(), lastReq: 0, reqs: new Map(), tab: false, settledAt: 0,
    raf: window.requestAnimationFrame.bind(window), timeout: window.setTimeout.bind(window) };
  Object.defineProperty(window, '__webbenchSettle', { value: st, enumerable: false });
  new MutationObserver(() => { st.last = now(); })
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  let seq = 0;
  const track = (x) => {
    const k = ++seq;
    st.reqs.set(k, { t: now(), x });
    st.lastReq = now();
    return () => { if (st.reqs.delete(k)) st.lastReq = now(); };
  };
  const fetch = window.fetch;
  if (fetch) window.fetch = function (...a) {
    const done = track();
    try { const p = fetch.apply(this, a); p.then(done, done); return p; } catch (e) { done(); throw e; }
  };
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...a) {
    const done = track(this);
    this.addEventListener('loadend', done);
    try { return send.apply(this, a); } catch (e) { done(); throw e; }
  };
  const own = (t) => !t || ['_self', '_parent', '_top'].includes(t.toLowerCase()) || t === window.name;
  const open = window.open;
  window.open = function (...a) { st.tab = true; return open.apply(this, a); };
  document.addEventListener('click', (e) => {
    const a = e.target && e.target.closest && e.target.closest('a[href][target], area[href][target]');
    if (a && !own(a.target)) st.tab = true;
  }, true);
  document.addEventListener('submit', (e) => {
    const f = e.target;
    if (f && !own((e.submitter && e.submitter.getAttribute('formtarget')) || f.target)) st.tab = true;
  }, true);
})()`

// settleDOMScript resolves once the document is quiet — no fetch or XHR started since the last settle still in
// flight, and no mutation nor request start or end for quiet ms (quietNet ms when one started since the last
// settle) — or cap ms after it starts, then after two animation frames (the page rendered what it mutated; at
// most frameCap ms each when frames do not run, a hidden page), to {tab: whether the page asked for a tab since
// the last call, init: whether the init script ran, reqs: whether a request started since the last settle}. A
// document without the init script (about:blank, a page opened before it was installed) waits the two frames.
const settleDOMScript = `([quiet, quietNet, cap, frameCap]) => new Promise((resolve) => {
  const st = window.__webbenchSettle;
  const raf = st ? st.raf : window.requestAnimationFrame.bind(window);
  const timeout = st ? st.timeout : window.setTimeout.bind(window);
  const frame = (f) => { let done = false; const once = () => { if (!done) { done = true; f(); } };
    raf(once); timeout(once, frameCap); };
  let reqs = false;
  const finish = () => frame(() => frame(() => {
    const tab = !!(st && st.tab);
    if (st) { st.tab = false; st.settledAt = performance.now(); }
    resolve({ tab, init: !!st, reqs });
  }));
  if (!st) { finish(); return; }
  const t0 = performance.now();
  const check = () => {
    const now = performance.now();
    let pending = false;
    for (const [k, r] of st.reqs) {
      if (r.x && r.x.readyState === 4) st.reqs.delete(k); // DONE, its loadend listener never ran (terminated)
      else if (r.t >= st.settledAt) pending = true;
    }
    reqs = reqs || pending || st.lastReq >= st.settledAt;
    const q = reqs ? quietNet : quiet, idle = now - Math.max(st.last, st.lastReq);
    if (now - t0 >= cap || !pending && idle >= q) finish(); else timeout(check, pending ? q : q - idle);
  };
  check();
})`

// settleDOM is the answer of settleDOMScript.
type settleDOM struct {
	Tab  bool `json:"tab"`
	Init bool `json:"init"`
	Reqs bool `json:"reqs"`
}

// netChanged returns a channel closed at the next change of s.net (a request started or ended, a main-frame
// commit, a page opened). The caller holds s.mu.
func (s *Session) netChanged() <-chan struct{} {
	if s.netCh == nil {
		s.netCh = make(chan struct{})
	}
	return s.netCh
}

// netSignal wakes the waiters of netChanged. The caller holds s.mu.
func (s *Session) netSignal() {
	if s.netCh != nil {
		close(s.netCh)
		s.netCh = nil
	}
}

// waitNet blocks until cond (called with s.mu held) is true or until the deadline; it reports cond's last
// value. It wakes on every change of s.net (netSignal), not on a poll.
func (s *Session) waitNet(deadline time.Time, cond func() bool) bool {
	for {
		s.mu.Lock()
		ok := cond()
		ch := s.netChanged()
		closed := s.closed
		s.mu.Unlock()
		if ok || closed {
			return ok
		}
		d := time.Until(deadline)
		if d <= 0 {
			return false
		}
		t := time.NewTimer(d)
		select {
		case <-ch:
		case <-t.C:
		}
		t.Stop()
	}
}

// settle waits for the page to settle after an action (as Playwright MCP's waitForCompletion, on events
// instead of fixed sleeps), in rounds within settleRequests (2 s) of its start:
//  1. the requests the action (or an earlier round) started finish; a main-frame navigation among them commits
//     (≤ the navigation timeout for its request, then ≤ settleCommit for the commit) and loads (≤ settleLoad);
//  2. the DOM is quiet: no mutation for settleQuiet (settleQuietNet when the action started requests), then two
//     animation frames (settleDOMScript, one Evaluate); when the page asked for a tab the new tab's page event
//     is awaited (≤ settleTab) and the tab becomes the current page (adoptNewPage);
//  3. when a request started during the round, another round.
//
// A round whose Evaluate meets a navigation (execution context destroyed) waits for the load event and goes
// on; an Evaluate that does not answer (a busy page script) ends settle at the 2 s cap. A page that chains
// requests (log in, then load the channels, then the posts: the Zoo's chat) starts the next one while the DOM
// window of the round runs, so the next round waits for it (the Zoo's determinism test needs this).
func (s *Session) settle(m netMark) {
	start := time.Now()
	capAt := start.Add(settleRequests)
	navEnd := start.Add(s.opts.NavigationTimeout) // one navigation budget for the whole settle, not per round
	seen := m.seq
	navigated, loaded := false, false
	for round := 0; ; round++ {
		s.waitRequests(m, capAt, navEnd)
		s.mu.Lock()
		seen = s.net.seq
		started := s.net.seq > m.seq
		navigated = navigated || s.net.navSeq > m.seq || s.net.commits > m.commits
		s.mu.Unlock()
		adopted := s.adoptNewPage(m)
		p := s.cur()
		if p == nil {
			return
		}
		if navigated && !loaded {
			loaded = true
			_ = p.WaitForLoadState(playwright.PageWaitForLoadStateOptions{
				State: playwright.LoadStateLoad, Timeout: playwright.Float(ms(settleLoad))})
		}
		quiet := settleQuiet
		if started {
			quiet = settleQuietNet
		}
		left := time.Until(capAt)
		if left < quiet {
			left = quiet
		}
		var dom settleDOM
		var err error
		answered := bounded(left+time.Second, func() {
			var v any
			v, err = p.Evaluate(settleDOMScript, []any{ms(quiet), ms(settleQuietNet), ms(left), ms(settleFrameCap)})
			if mv, ok := v.(map[string]any); ok {
				dom.Tab, _ = mv["tab"].(bool)
				dom.Init, _ = mv["init"].(bool)
				dom.Reqs, _ = mv["reqs"].(bool)
			}
		})
		if !answered {
			return
		}
		if err != nil {
			msg := err.Error()
			if !strings.Contains(msg, "Execution context was destroyed") && !strings.Contains(msg, "navigation") {
				return // a closed page or context: the snapshot reports it
			}
			_ = p.WaitForLoadState(playwright.PageWaitForLoadStateOptions{
				State: playwright.LoadStateLoad, Timeout: playwright.Float(ms(settleLoad))})
			navigated, loaded = true, true
		}
		if dom.Tab && !adopted {
			s.waitNet(time.Now().Add(settleTab), func() bool { return s.net.pageOpens > m.pageOpens })
			adopted = s.adoptNewPage(m)
		} else {
			adopted = false
		}
		s.mu.Lock()
		more := s.net.seq > seen
		s.mu.Unlock()
		if err == nil && !more && !adopted || time.Now().After(capAt) {
			return
		}
	}
}

// waitRequests waits, at most until capAt, for the requests started after m to finish and for a main-frame
// navigation started after m to commit: while its request is pending, at most until navEnd (the navigation
// timeout from the start of settle); after it finished, at most settleCommit more.
func (s *Session) waitRequests(m netMark, capAt, navEnd time.Time) {
	var navFinishedAt time.Time
	for {
		var pending, navPending, navStarted, committed bool
		var ch <-chan struct{}
		s.mu.Lock()
		for _, seq := range s.net.pending {
			if seq > m.seq {
				pending = true
				if seq == s.net.navSeq {
					navPending = true
				}
			}
		}
		navStarted = s.net.navSeq > m.seq
		committed = s.net.commits > m.commits
		closed := s.closed
		ch = s.netChanged()
		s.mu.Unlock()
		if closed {
			return
		}
		now := time.Now()
		var until time.Time
		switch {
		case navStarted && !committed && navPending && now.Before(navEnd):
			until = navEnd
		case navStarted && !committed:
			if navFinishedAt.IsZero() {
				navFinishedAt = now
			}
			until = navFinishedAt.Add(settleCommit)
			if !now.Before(until) {
				if !pending || !now.Before(capAt) {
					return
				}
				until = capAt
			}
		case pending && now.Before(capAt):
			until = capAt
		default:
			return
		}
		t := time.NewTimer(time.Until(until))
		select {
		case <-ch:
		case <-t.C:
		}
		t.Stop()
	}
}

// adoptNewPage makes the newest page opened since m the current page (a link with target=_blank, a popup),
// as there are no tab tools, and reports it in Events; false when there is none.
func (s *Session) adoptNewPage(m netMark) bool {
	s.mu.Lock()
	if s.net.pageOpens == m.pageOpens || len(s.newPages) == 0 {
		s.mu.Unlock()
		return false
	}
	p := s.newPages[len(s.newPages)-1]
	s.newPages = nil
	if p.IsClosed() {
		s.mu.Unlock()
		return false
	}
	s.page = p
	s.net.pending = map[playwright.Request]uint64{}
	s.mu.Unlock()
	p.SetDefaultTimeout(ms(s.opts.ActionTimeout))
	p.SetDefaultNavigationTimeout(ms(s.opts.NavigationTimeout))
	s.watch(p)
	_ = p.WaitForLoadState(playwright.PageWaitForLoadStateOptions{
		State: playwright.LoadStateLoad, Timeout: playwright.Float(ms(settleLoad))})
	s.addEvent("A new tab opened and is now the current page: " + p.URL())
	return true
}

// waitCommit waits at most d for a main-frame navigation to commit after m.
func (s *Session) waitCommit(m netMark, d time.Duration) {
	s.waitNet(time.Now().Add(d), func() bool { return s.net.commits > m.commits })
}
