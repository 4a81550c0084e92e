package browser

import (
	"strings"
	"time"

	playwright "github.com/mxschmitt/playwright-go"
)

// A page may replace the node a ref points to while an action on it runs (a list that re-renders, the Zoo's
// ref_churn; issue 17). What Playwright does then (playwright-core 1.64.1, lib/coreBundle.js; the documented
// semantics are https://playwright.dev/docs/actionability: an action waits for its checks and fails with a
// TimeoutError when they do not pass in time):
//
//   - replaced before the input events: the action's element handle reports "error:notconnected", Playwright logs
//     "element was detached from the DOM, retrying" and resolves the locator again; an aria-ref locator only ever
//     resolves to the node of the snapshot (its query returns nothing once that node is not connected), so the
//     action would wait out its whole timeout (the action timeout, 5 s by default). For a click the probe below
//     also watches the node (a MutationObserver, no polling): once it has left the page before any press reached
//     it, the click can only wait for a node that cannot come back, and it fails as a stale ref at once (the
//     abandoned Playwright call ends on its own timeout without an input event). For other actions
//     detachedError turns the timeout into a stale ref.
//   - replaced between the press and the release of a click: Playwright's hit-target check runs on the first
//     pointer event only ("check that we hit the right element at the first event, and assume all subsequent
//     events will be fine", setupHitTargetInterceptor), so the pointerdown passes it, the mouseup lands on the
//     fresh copy and the browser dispatches no click at all (a click goes to the common ancestor of the press and
//     release targets, and the pressed node has none left: w3c/pointerevents#75), while Playwright reports
//     success. The click probe below sees that no click reached the node and that the node is gone, and the
//     click fails as a stale ref instead of succeeding with no effect.
//
// Either way the model (and the stale_ref_refresh guard) meets a stale-ref error it knows how to handle.

// Texts of StaleRefError.Why for nodes that went away during an action.
const (
	// WhyDetached: the node was replaced before the action's input events.
	WhyDetached = "The element was detached from the DOM during the action"
	// WhyClickLost: the node was replaced between the press and the release of a click; no click reached it.
	WhyClickLost = "The element was replaced during the click (between press and release); the click was not delivered"
)

// playwrightDetached is Playwright's call-log line for an element handle that lost its node mid-action.
const playwrightDetached = "element was detached from the DOM"

// probeWait bounds each click-probe call: the probe is skipped (the click reported as Playwright reports it)
// when the page does not answer in time (a busy page script).
const probeWait = time.Second

// clickProbeArm records, in the element's window, which element a click is aimed at, whether a trusted press
// (pointerdown, mousedown) reached it and whether a trusted click, auxclick, contextmenu or dblclick event
// passed through it (capture listeners on the window, installed once per document; the page's own
// window-capture listeners registered earlier run first).
const clickProbeArm = `(el) => {
  const w = el.ownerDocument.defaultView;
  const k = Symbol.for("webbench.clickProbe");
  let p = w[k];
  if (!p) {
    p = w[k] = { el: null, hit: false, pressed: false, stop: null };
    for (const type of ["click", "auxclick", "contextmenu", "dblclick"]) {
      w.addEventListener(type, (e) => {
        if (e.isTrusted && p.el && e.composedPath().includes(p.el)) p.hit = true;
      }, true);
    }
    for (const type of ["pointerdown", "mousedown"]) {
      w.addEventListener(type, (e) => {
        if (e.isTrusted && p.el && e.composedPath().includes(p.el)) p.pressed = true;
      }, true);
    }
  }
  if (p.stop) p.stop();
  p.el = el;
  p.hit = false;
  p.pressed = false;
  return el;
}`

// clickProbeWatch resolves once the probed element has left its document: "unpressed" when no press and no
// click reached it before, else "pressed"; "stopped" when the probe is read first (clickProbeRead stops it).
const clickProbeWatch = `(el) => new Promise((resolve) => {
  const p = el.ownerDocument.defaultView[Symbol.for("webbench.clickProbe")];
  if (!p || p.el !== el) return resolve("stopped");
  let mo = null;
  const end = (v) => { if (mo) mo.disconnect(); if (p.stop === stop) p.stop = null; resolve(v); };
  const stop = () => end("stopped");
  const check = () => { if (!el.isConnected) end(p.pressed || p.hit ? "pressed" : "unpressed"); };
  p.stop = stop;
  mo = new MutationObserver(check);
  mo.observe(el.ownerDocument, { childList: true, subtree: true });
  check();
})`

// clickProbeRead reports what the probe saw: "hit" (a click reached the element), "lost" (none did and the
// element is no longer in its document), else "connected" (none did and it is still there: the page may
// have stopped the event before the probe saw it, so nothing is concluded). It stops the watch.
const clickProbeRead = `(el) => {
  const p = el.ownerDocument.defaultView[Symbol.for("webbench.clickProbe")];
  if (!p || p.el !== el) return "unknown";
  if (p.stop) p.stop();
  p.el = null;
  return p.hit ? "hit" : el.isConnected ? "connected" : "lost";
}`

// clickProbe arms the probe on loc's element. lost reads it after the click: true when the click was lost (no
// click event reached the element and the element is gone). unpressed is closed once the element has left the
// page before any press or click reached it (nil without a probe: never). Without a probe (the page did not
// answer in time, a navigation destroyed the context) lost reports false: the click's own result stands. gone
// reports that the element could not be resolved to arm the probe because its node has left the page since the
// ref was checked: the click would only wait out its timeout.
func (s *Session) clickProbe(loc playwright.Locator) (lost func() bool, unpressed <-chan struct{}, gone bool) {
	var h playwright.JSHandle
	var err error
	none := func() bool { return false }
	if !bounded(probeWait, func() {
		h, err = loc.EvaluateHandle(clickProbeArm, nil,
			playwright.LocatorEvaluateHandleOptions{Timeout: playwright.Float(ms(probeWait))})
	}) {
		return none, nil, false
	}
	if err != nil || h == nil {
		return none, nil, s.nodeGone(loc)
	}
	left := make(chan struct{})
	go func() {
		// Ends when the node leaves, when the probe is read (stopped), or with the page (an error).
		if v, err := h.Evaluate(clickProbeWatch); err == nil && v == "unpressed" {
			close(left)
		}
	}()
	return func() bool {
		var v any
		var rerr error
		ok := bounded(probeWait, func() { v, rerr = h.Evaluate(clickProbeRead) })
		go func() { _ = h.Dispose() }()
		return ok && rerr == nil && v == "lost"
	}, left, false
}

// nodeGone reports whether loc (an aria-ref locator) resolves to no node, within probeWait.
func (s *Session) nodeGone(loc playwright.Locator) bool {
	n := -1
	return bounded(probeWait, func() { n, _ = loc.Count() }) && n == 0
}

// interceptedLine is the call-log phrase of a covered element (agent.InterceptPhrase).
const interceptedLine = "intercepts pointer events"

// detachedError turns the error of an action on ref whose node went away while Playwright waited for it into a
// *StaleRefError: the ref's node is no longer in the page, and the call log says the element was detached
// (Playwright's "element was detached from the DOM"), or the action timed out waiting for the locator with no
// covering element logged (the node left between the ref check and the action's first look). Other errors —
// an intercepted click stays an intercepted click — are returned unchanged.
func (s *Session) detachedError(ref string, loc playwright.Locator, err error) error {
	if err == nil {
		return nil
	}
	if !lostNodeLog(err.Error()) || !s.nodeGone(loc) {
		return err
	}
	return &StaleRefError{Ref: ref, Why: WhyDetached}
}

// lostNodeLog reports whether a Playwright action error may come from a node that left the page mid-action:
// its call log says the element was detached, or it is a timeout with no covering element logged.
func lostNodeLog(msg string) bool {
	if strings.Contains(msg, playwrightDetached) {
		return true
	}
	timedOut := strings.Contains(msg, "Timeout") && strings.Contains(msg, "exceeded")
	return timedOut && !strings.Contains(msg, interceptedLine)
}
