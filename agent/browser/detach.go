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
//   - replaced before the input events: the action's element handle reports "error:notconnected". A locator
//     action then logs "element was detached from the DOM, retrying" and resolves the locator again; an aria-ref
//     locator only ever resolves to the node of the snapshot (its query returns nothing once that node is not
//     connected), so the action would wait out its whole timeout (the action timeout, 5 s by default). A click
//     therefore runs on the element handle the click probe resolved: Playwright does not resolve a handle again
//     and throws "Element is not attached to the DOM" at once (also when the node went away after the
//     hit-target check, which logs its fresh copy as intercepting the press first). detachedError turns either
//     into a stale ref.
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

// playwrightNotAttached is the error of an element-handle action whose node left the page: unlike a locator,
// a handle is not resolved again, so the action fails at once instead of waiting out its timeout.
const playwrightNotAttached = "Element is not attached to the DOM"

// probeWait bounds each click-probe call: the probe is skipped (the click reported as Playwright reports it)
// when the page does not answer in time (a busy page script).
const probeWait = time.Second

// clickProbeArm records, in the element's window, which element a click is aimed at and whether a trusted
// click, auxclick, contextmenu or dblclick event passed through it (capture listeners on the window, installed
// once per document; the page's own window-capture listeners registered earlier run first).
const clickProbeArm = `(el) => {
  const w = el.ownerDocument.defaultView;
  const k = Symbol.for("webbench.clickProbe");
  let p = w[k];
  if (!p) {
    p = w[k] = { el: null, hit: false };
    for (const type of ["click", "auxclick", "contextmenu", "dblclick"]) {
      w.addEventListener(type, (e) => {
        if (e.isTrusted && p.el && e.composedPath().includes(p.el)) p.hit = true;
      }, true);
    }
  }
  p.el = el;
  p.hit = false;
  return el;
}`

// clickProbeRead reports what the probe saw: "hit" (a click reached the element), "lost" (none did and the
// element is no longer in its document), else "connected" (none did and it is still there: the page may
// have stopped the event before the probe saw it, so nothing is concluded).
const clickProbeRead = `(el) => {
  const p = el.ownerDocument.defaultView[Symbol.for("webbench.clickProbe")];
  if (!p || p.el !== el) return "unknown";
  p.el = null;
  return p.hit ? "hit" : el.isConnected ? "connected" : "lost";
}`

// clickProbe arms the probe on loc's element and returns that element (nil without a probe) and a function
// that reads the probe after the click: true when the click was lost (no click event reached the element and
// the element is gone). Without a probe (the page did not answer in time, a navigation destroyed the context)
// the read reports false: the click's own result stands. gone reports that the element could not be resolved
// to arm the probe because its node has left the page since the ref was checked.
func (s *Session) clickProbe(loc playwright.Locator) (el playwright.ElementHandle, lost func() bool, gone bool) {
	var h playwright.JSHandle
	var err error
	none := func() bool { return false }
	if !bounded(probeWait, func() {
		h, err = loc.EvaluateHandle(clickProbeArm, nil,
			playwright.LocatorEvaluateHandleOptions{Timeout: playwright.Float(ms(probeWait))})
	}) {
		return nil, none, false
	}
	if err != nil || h == nil {
		return nil, none, s.nodeGone(loc)
	}
	return h.AsElement(), func() bool {
		var v any
		var rerr error
		ok := bounded(probeWait, func() { v, rerr = h.Evaluate(clickProbeRead) })
		go func() { _ = h.Dispose() }()
		return ok && rerr == nil && v == "lost"
	}, false
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
// an element-handle action says its element is not attached (whatever it logged before: a node replaced
// between the hit-target check and the press logs its copy as intercepting the pointer events), its call log
// says the element was detached, or it is a timeout with no covering element logged.
func lostNodeLog(msg string) bool {
	if strings.Contains(msg, playwrightNotAttached) || strings.Contains(msg, playwrightDetached) {
		return true
	}
	timedOut := strings.Contains(msg, "Timeout") && strings.Contains(msg, "exceeded")
	return timedOut && !strings.Contains(msg, interceptedLine)
}
