package browser

import (
	"errors"
	"strings"

	playwright "github.com/mxschmitt/playwright-go"
)

// A page may replace the node a ref points to while an action on it runs (a list that re-renders, the Zoo's
// ref_churn). What Playwright does then (playwright-core 1.64.1, lib/coreBundle.js; the documented
// semantics are https://playwright.dev/docs/actionability: an action waits for its checks and fails with a
// TimeoutError when they do not pass in time):
//
//   - replaced before the input events: the action's element handle reports "error:notconnected". A locator
//     action then logs "element was detached from the DOM, retrying" and resolves the locator again; an aria-ref
//     locator only ever resolves to the node of the snapshot, so it would wait out its whole timeout, and a node
//     that comes back later (re-attached) would still be clicked by that abandoned call. A click therefore runs
//     on the element handle the click probe resolved: Playwright does not resolve a handle again and throws
//     "Element is not attached to the DOM" at once (_retryAction returns the "error:notconnected" result,
//     throwRetargetableDOMError throws it; also when the node left after the hit-target check, which logs its
//     copy as intercepting the press first). detachedError turns that into a stale ref. For other actions
//     detachedError turns the locator's timeout into a stale ref.
//   - replaced between the press and the release of a click: Playwright's hit-target check runs on the first
//     pointer event only ("check that we hit the right element at the first event, and assume all subsequent
//     events will be fine", setupHitTargetInterceptor), so the pointerdown passes it, the mouseup lands on the
//     fresh copy and the browser dispatches no click at all (a click goes to the nearest common ancestor of the
//     press and release targets, https://w3c.github.io/uievents/#click, and the pressed node, out of the page,
//     has none with the copy: w3c/pointerevents#75), while Playwright reports success. The click probe below
//     tells that lost click from a click the page acted on, and the lost one fails as a stale ref.
//
// Either way the model (and the stale_ref_refresh guard) meets a stale-ref error it knows how to handle.
//
// The probe decides from what the page saw, never from how long it took: it is bounded by the action timeout
// only so that a hung page cannot hang the tool, and when it cannot answer in that time the click falls back to
// "the ref no longer resolves and the URL is unchanged" (stale) and records ProbeSkipped in Result.Harness.

// Texts of StaleRefError.Why for nodes that went away during an action.
const (
	// WhyDetached: the node was replaced before the action's input events.
	WhyDetached = "The element was detached from the DOM during the action"
	// WhyClickLost: the node was replaced between the press and the release of a click; no click reached it.
	WhyClickLost = "The element was replaced during the click (between press and release); the click was not delivered"
)

// ProbeSkipped starts the Result.Harness note of a click whose probe did not answer within the action timeout
// (the loop records it as a trajectory event of guard ProbeGuard; the determinism test requires none).
const ProbeSkipped = "click probe skipped"

// ProbeGuard is the trajectory event guard name of harness notes from the browser tools (ProbeSkipped).
const ProbeGuard = "click_probe"

// playwrightDetached is Playwright's call-log line for an element handle that lost its node mid-action.
const playwrightDetached = "element was detached from the DOM"

// playwrightNotAttached is the error of an element-handle action whose node left the page: unlike a locator,
// a handle is not resolved again, so the action fails at once instead of waiting out its timeout.
const playwrightNotAttached = "Element is not attached to the DOM"

// clickProbeArm records, in the element's window, what happens to a click aimed at el:
//   - clicked: a trusted click, auxclick, contextmenu or dblclick event was dispatched in the window to a node
//     that was not one of el's ancestors when the probe was armed (the session's only input is this click, so
//     it is this click's: on el, inside el, or on a fresh copy that got the second press of a double click). A
//     click on an ancestor is not counted: it is what a press and a release on two different nodes give (the
//     nearest common ancestor, https://w3c.github.io/uievents/#click), and Chromium may come to send the click
//     of a removed press target to its nearest attached ancestor (w3c/pointerevents#576), which would make the
//     Zoo's lost click look delivered;
//   - acted: a trusted press or release (pointerdown, mousedown, pointerup, mouseup) reached el while it was in
//     the page and el had left the page when that event's dispatch ended (the window's bubble phase; or, when
//     the page stopped its propagation, the next press or release, or the read): a handler of el or of the
//     page acted on this press (an autocomplete option picked on mousedown, a select2 option on mouseup, a tab
//     strip re-rendered on pointerdown). A node that left during the capture phase above el (a page-wide
//     re-render that runs before the event reaches its target, the Zoo's ref_churn) or between events did
//     not act on the press: that is the lost click.
//
// The window listeners are installed once per document (capture ones run before the page's listeners
// registered later); the listeners on el (capture, so at the target they run before el's own handlers) are
// removed by clickProbeRead.
const clickProbeArm = `(el) => {
  const w = el.ownerDocument.defaultView;
  const k = Symbol.for("webbench.clickProbe");
  let p = w[k];
  const settle = () => { if (p.pending && p.el && !p.el.isConnected) p.acted = true; p.pending = null; };
  if (!p) {
    // Stored only once every window listener is installed: a page whose addEventListener throws part-way gets
    // the error (and the fallback) at every arm, never a half-installed probe.
    const q = { el: null, anc: null, clicked: false, acted: false, pending: null, disarm: null };
    for (const type of ["click", "auxclick", "contextmenu", "dblclick"]) {
      w.addEventListener(type, (e) => { if (e.isTrusted && q.el && !q.anc.has(e.target)) q.clicked = true; }, true);
    }
    for (const type of ["pointerdown", "mousedown", "pointerup", "mouseup"]) {
      w.addEventListener(type, (e) => { if (e.isTrusted && q.el) settle(); }, true);
      w.addEventListener(type, (e) => { if (e.isTrusted && q.el && q.pending === e) settle(); }, false);
    }
    p = w[k] = q;
  }
  if (p.disarm) p.disarm();
  p.el = el; p.clicked = false; p.acted = false; p.pending = null; p.anc = new Set();
  for (let n = el.parentNode; n; n = n.parentNode) p.anc.add(n);
  const types = ["pointerdown", "mousedown", "pointerup", "mouseup"];
  const atTarget = (e) => { if (e.isTrusted && el.isConnected) p.pending = e; };
  for (const t of types) el.addEventListener(t, atTarget, true);
  p.disarm = () => { for (const t of types) el.removeEventListener(t, atTarget, true); p.disarm = null; };
}`

// clickProbeRead reports what the probe saw (see clickProbeArm): "hit" (a click event was dispatched),
// "acted" (the page acted on a press or release of el and removed it), "lost" (neither, and el is no longer
// in its document), else "connected" (neither, and el is still there: the page may have stopped the event
// before the probe saw it, so nothing is concluded). It disarms the probe.
const clickProbeRead = `(el) => {
  const p = el.ownerDocument.defaultView[Symbol.for("webbench.clickProbe")];
  if (!p || p.el !== el) return "unknown";
  if (p.pending && !el.isConnected) p.acted = true;
  if (p.disarm) p.disarm();
  p.el = null; p.pending = null;
  return p.clicked ? "hit" : p.acted ? "acted" : el.isConnected ? "connected" : "lost";
}`

// clickPreview describes an element as Playwright's "locator resolved to" call-log line does (InjectedScript
// previewNode, playwright-core 1.64.1 lib/coreBundle.js: attributes but style, sorted by length, cut at 500
// characters; text children up to 50 characters), for the call log of an element-handle click, which has no
// such line (intercept_hint reads the target from it).
const clickPreview = `(el) => {
  const cut = (s, n) => s.length > n ? s.substring(0, n - 1) + "\u2026" : s;
  const one = (s) => s.replace(/\n/g, "\u21B5").replace(/\t/g, "\u21C6");
  const tag = el.nodeName.toLowerCase();
  const attrs = [];
  for (const { name, value } of el.attributes) {
    if (name === "style") continue;
    attrs.push(!value && ["checked", "selected", "disabled", "readonly", "multiple"].includes(name) ? " " + name : " " + name + '="' + value + '"');
  }
  attrs.sort((a, b) => a.length - b.length);
  const at = cut(attrs.join(""), 500);
  if (["AREA", "BASE", "BR", "COL", "COMMAND", "EMBED", "HR", "IMG", "INPUT", "KEYGEN", "LINK", "MENUITEM", "META", "PARAM", "SOURCE", "TRACK", "WBR"].includes(el.nodeName)) return one("<" + tag + at + "/>");
  const kids = el.childNodes;
  const onlyText = kids.length <= 5 && [...kids].every((c) => c.nodeType === Node.TEXT_NODE);
  const text = onlyText ? el.textContent || "" : kids.length ? "\u2026" : "";
  return one("<" + tag + at + ">" + cut(text, 50) + "</" + tag + ">");
}`

// probeOutcome is what a click probe concluded.
type probeOutcome int

const (
	probeDelivered probeOutcome = iota // nothing can be concluded (the node is still there), or the click navigated
	probeActed                         // a click event was dispatched, or the page acted on the press: delivered
	probeLost                          // no click, the page did not act, the node is gone
	probeSkipped                       // the probe did not answer within the action timeout
)

// clickProbe arms the probe on loc's element within the action timeout and returns the element (nil when the
// probe could not be armed in time: skipped is then true) and read, which reads the probe after the click
// within the action timeout. gone reports that loc resolves to no node: the node has left the page since its
// snapshot.
func (s *Session) clickProbe(loc playwright.Locator) (el playwright.ElementHandle, read func() probeOutcome, gone, skipped bool) {
	var h playwright.ElementHandle
	var err error
	none := false
	wait := s.opts.ActionTimeout
	// Two driver calls: the element handles, which Playwright returns at once (Frame.querySelectorAll does not
	// wait for a node to appear: none is the gone node, with no separate count), then the arming on the handle.
	// (Locator.EvaluateHandle would take three, as it resolves a handle of its own, evaluates on it and waits
	// for its disposal.) The bound only guards a page or driver that does not answer.
	if !bounded(wait, func() {
		var hs []playwright.ElementHandle
		hs, err = loc.ElementHandles()
		for i, x := range hs {
			if i == 0 {
				h = x
			} else {
				go func(x playwright.ElementHandle) { _ = x.Dispose() }(x)
			}
		}
		// An aria-ref whose frame is gone fails to resolve, as Locator's count does.
		none = err == nil && h == nil || err != nil && strings.Contains(err.Error(), "aria-ref")
		if h != nil {
			if _, err = h.Evaluate(clickProbeArm); err != nil {
				go func(h playwright.ElementHandle) { _ = h.Dispose() }(h)
			}
		}
	}) {
		return nil, nil, false, true // the page does not answer: asking it whether the node is gone would not either
	}
	if none {
		return nil, nil, true, false
	}
	if err != nil {
		if s.nodeGone(loc) {
			return nil, nil, true, false
		}
		return nil, nil, false, true
	}
	return h, func() probeOutcome {
		var v any
		var rerr error
		ok := bounded(wait, func() { v, rerr = h.Evaluate(clickProbeRead) })
		go func() { _ = h.Dispose() }()
		switch {
		case !ok:
			return probeSkipped
		case rerr != nil:
			// The click navigated (the element's context is gone) or closed the page: the page acted.
			return probeDelivered
		case v == "lost":
			return probeLost
		case v == "hit" || v == "acted":
			return probeActed
		}
		return probeDelivered
	}, false, false
}

// previewLine is the "locator resolved to <…>" call-log line for el (clickPreview), within the action timeout;
// "" when the page does not answer.
func (s *Session) previewLine(el playwright.ElementHandle) string {
	var v any
	var err error
	if !bounded(s.opts.ActionTimeout, func() { v, err = el.Evaluate(clickPreview) }) || err != nil {
		return ""
	}
	p, _ := v.(string)
	if p == "" {
		return ""
	}
	return "  - locator resolved to " + p
}

// withPreview inserts el's "locator resolved to" line after the first line of an intercepted click's error
// (an element-handle call log names only the blocker); other errors are returned unchanged.
func (s *Session) withPreview(el playwright.ElementHandle, err error) error {
	if err == nil || !strings.Contains(err.Error(), interceptedLine) || strings.Contains(err.Error(), "locator resolved to <") {
		return err
	}
	line := s.previewLine(el)
	if line == "" {
		return err
	}
	msg := err.Error()
	if i := strings.Index(msg, "\n"); i >= 0 {
		return errors.New(msg[:i+1] + line + msg[i:])
	}
	return errors.New(msg + "\n" + line)
}

// nodeGone reports whether loc (an aria-ref locator) resolves to no node, within the action timeout.
func (s *Session) nodeGone(loc playwright.Locator) bool {
	n := -1
	return bounded(s.opts.ActionTimeout, func() { n, _ = loc.Count() }) && n == 0
}

// clickDoneWaitingNavigation reports whether err is a click (or double click) that Playwright performed and
// then timed out waiting for the navigation it started: after its input events Playwright waits, within the
// same action timeout, for navigations the click scheduled to commit (FrameManager.waitForSignalsCreatedBy,
// playwright-core 1.64.1 lib/coreBundle.js), and its call log then ends in "click action done" and "waiting for
// scheduled navigations to finish" with no "navigations have finished". The click was delivered and the page
// is loading what it asked for (a slow server, a loaded machine): that is for the settle to wait on, not an
// error for the model — reported as one, the same step would succeed on a quick machine and fail on a slow one.
func clickDoneWaitingNavigation(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "Timeout") && strings.Contains(msg, "waiting for scheduled navigations to finish") &&
		!strings.Contains(msg, "navigations have finished") && strings.Contains(msg, "click action done") // or dblclick
}

// interceptedLine is the call-log phrase of a covered element (results.InterceptPhrase).
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
// an element-handle action says its element is not attached (whatever it logged before), its call log says the
// element was detached, or it is a timeout with no covering element logged.
func lostNodeLog(msg string) bool {
	if strings.Contains(msg, playwrightNotAttached) || strings.Contains(msg, playwrightDetached) {
		return true
	}
	timedOut := strings.Contains(msg, "Timeout") && strings.Contains(msg, "exceeded")
	return timedOut && !strings.Contains(msg, interceptedLine)
}
