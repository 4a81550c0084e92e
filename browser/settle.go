package browser

import (
	"strings"
	"time"

	playwright "github.com/mxschmitt/playwright-go"
)

// netMark is the network state before an action.
type netMark struct{ seq, calls, commits, pageOpens uint64 }

func (s *Session) mark() netMark {
	s.mu.Lock()
	defer s.mu.Unlock()
	return netMark{s.net.seq, s.net.calls, s.net.commits, s.net.pageOpens}
}

// Settling bounds (after an action, before its snapshot). None is a fixed wait: each is the most settle waits
// for one thing; on a page that is already quiet settle returns after two animation frames, on one the action
// mutated once the quiet window has passed since the mutation (the frames run within it).
const (
	settleRequests = 2 * time.Second        // at most, for requests started by the action (and further rounds)
	settleCommit   = 1 * time.Second        // at most, from a finished navigation request to its commit
	settleLoad     = 5 * time.Second        // at most, for the load event after a navigation
	settleTab      = 2 * time.Second        // at most, for the page event of a tab the page asked for
	settleQuiet    = 40 * time.Millisecond  // DOM quiet window (no mutation for this long) after an action
	settleQuietNet = 100 * time.Millisecond // DOM quiet window when a script made requests (chained fetches)
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
//     the time one last started or ended (-1 before the first). The page's own view of its requests is needed because the Go side
//     hears of a request only after it went through the route handler (the Zoo's tenant allow-list): a request
//     the action started can reach Go after a quiet window that began before it;
//   - tab: whether the page asked for a tab: window.open, or a click on a link or a submit of a form whose target
//     is not the document's own frame
//     (https://html.spec.whatwg.org/multipage/document-sequences.html#valid-navigable-target-name-or-keyword);
//   - settledAt: when the last settle ended (requests older than it are not waited for: a hung fetch).
const settleInitScript = `(() => {
  if (window.__webbenchSettle) return;
  const now = () => performance.now();
  const st = { last: now(), lastReq: -1, reqs: new Map(), tab: false, settledAt: 0,
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
// flight, no mutation nor request start or end for quiet ms (quietNet ms when one started since the last
// settle), and two animation frames run since the last of those changes (the page rendered what it mutated; at
// most frameCap ms each when frames do not run, a hidden page) — or cap ms after it starts, to {tab: whether the
// page asked for a tab since the last call, init: whether the init script ran, reqs: whether a request started
// since the last settle, ms: its time in the page, quietLeft: what was left of the quiet window at its start, ms}.
// The frames are counted while the quiet window runs, not after it: a frame callback
// that mutates the DOM restarts both. A document without the init script (about:blank, a page opened before it
// was installed) waits two frames.
const settleDOMScript = `([quiet, quietNet, cap, frameCap]) => new Promise((resolve) => {
  const st = window.__webbenchSettle;
  const raf = st ? st.raf : window.requestAnimationFrame.bind(window);
  const timeout = st ? st.timeout : window.setTimeout.bind(window);
  const t0 = performance.now();
  const changed = () => st ? Math.max(st.last, st.lastReq) : t0;
  // frames: animation frames run since the later of the start and the last change (mark).
  let done = false, reqs = false, frames = 0, mark = changed(), armed = false;
  const quietLeft = Math.max(0, quiet - (t0 - mark));
  const end = () => {
    done = true;
    const tab = !!(st && st.tab);
    if (st) { st.tab = false; st.settledAt = performance.now(); }
    resolve({ tab, init: !!st, reqs, ms: performance.now() - t0, quietLeft });
  };
  const check = () => {
    if (done) return;
    if (!st) { if (frames >= 2) end(); return; }
    const now = performance.now();
    let pending = false;
    for (const [k, r] of st.reqs) {
      if (r.x && r.x.readyState === 4) st.reqs.delete(k); // DONE, its loadend listener never ran (terminated)
      else if (r.t >= st.settledAt) pending = true;
    }
    reqs = reqs || pending || st.lastReq >= st.settledAt;
    const q = reqs ? quietNet : quiet, idle = now - changed();
    if (now - t0 >= cap || !pending && idle >= q && frames >= 2) { end(); return; }
    if (!armed && (pending || idle < q)) {
      armed = true;
      timeout(() => { armed = false; check(); }, pending ? q : q - idle);
    }
  };
  const frame = () => {
    let fired = false;
    const once = () => {
      if (fired || done) return;
      fired = true;
      const c = changed();
      if (c !== mark) { mark = c; frames = 1; } else frames++;
      frame();
      check();
    };
    raf(once); timeout(once, frameCap);
  };
  frame();
  check();
})`

// settleDOM is the answer of settleDOMScript.
type settleDOM struct {
	Tab  bool `json:"tab"`
	Init bool `json:"init"`
	Reqs bool `json:"reqs"`
	// PageMS is the script's time in the page, ms; QuietLeftMS what was left of the quiet window when it
	// started, ms.
	PageMS      float64 `json:"ms"`
	QuietLeftMS float64 `json:"quietLeft"`
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
//  2. the DOM is quiet: no mutation for settleQuiet (settleQuietNet when a script started requests: a fetch, an
//     XHR, any request but a document and the subresources of its markup, pageLoad), and two animation frames
//     since the last mutation (settleDOMScript, one Evaluate); when the page asked for a tab the new tab's page
//     event is awaited (≤ settleTab) and the tab becomes the current page (adoptNewPage);
//  3. when a request started during the round, another round.
//
// After a navigation the snapshot's first query in the new document is started before the DOM wait
// (primeSnapshot), so that its set-up runs while the wait idles.
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
	navigated, loaded, primed := false, false, false
	for round := 0; ; round++ {
		t0 := time.Now()
		s.waitRequests(m, capAt, navEnd)
		s.phase(PhaseSettleRequests, t0)
		s.mu.Lock()
		seen = s.net.seq
		called := s.net.calls > m.calls
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
		if navigated && !primed {
			primed = true
			primeSnapshot(p)
		}
		quiet := settleQuiet
		if called {
			quiet = settleQuietNet
		}
		left := time.Until(capAt)
		if left < quiet {
			left = quiet
		}
		var dom settleDOM
		var err error
		t0 = time.Now()
		answered := bounded(left+time.Second, func() {
			var v any
			v, err = p.Evaluate(settleDOMScript, []any{ms(quiet), ms(settleQuietNet), ms(left), ms(settleFrameCap)})
			if mv, ok := v.(map[string]any); ok {
				dom.Tab, _ = mv["tab"].(bool)
				dom.Init, _ = mv["init"].(bool)
				dom.Reqs, _ = mv["reqs"].(bool)
				dom.PageMS, _ = mv["ms"].(float64)
				dom.QuietLeftMS, _ = mv["quietLeft"].(float64)
			}
		})
		s.phase(PhaseSettleDOM, t0)
		if answered && err == nil && s.opts.Phases != nil {
			s.opts.Phases(PhaseSettleDOMPage, time.Duration(dom.PageMS*float64(time.Millisecond)))
			s.opts.Phases(PhaseSettleQuietLeft, time.Duration(dom.QuietLeftMS*float64(time.Millisecond)))
		}
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

// primeSnapshot starts, without waiting for it, a selector query in p's document: the first one in a document
// makes Playwright build its injected script there (the script the snapshot's query runs in, in the main world;
// about 20 ms of the page's main thread, the better part of the snapshot after a navigation), and started before
// the DOM wait it runs while that wait idles on timers and frames instead of after it. The query mutates no DOM
// node, so the settle's observer sees nothing; the injected script's own window listeners and document observer
// go in during the settle rather than at the snapshot, a moment later. A count does not wait for the node (unlike
// a waitFor, whose injected script may be another world's): on a page whose script holds the main thread it
// answers when the thread is free, or fails when the page closes at the attempt's end.
func primeSnapshot(p playwright.Page) {
	go func() { _, _ = p.Locator("body").Count() }()
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
