package scripted

import (
	"strings"

	"webbench/agent/guard"
	"webbench/browser"
	"webbench/results"
	"webbench/suites"
)

// onBlocked reacts to a click intercepted by an overlay (raw call log or intercept_hint's message).
func (c *conv) onBlocked(last *turn, st *suites.Step) (reply, bool) {
	var failed *call
	hint := false
	for _, cl := range last.calls {
		if !cl.failed() {
			continue
		}
		if strings.Contains(cl.result.Error, guard.InterceptHintPrefix) {
			failed, hint = cl, true
			break
		}
		if strings.Contains(cl.result.Error, results.InterceptPhrase) {
			failed = cl
			break
		}
	}
	if failed == nil {
		return reply{}, false
	}
	p, purpose := c.prof.BlockedClickRawUnderstood, "blocked_click_raw_understood"
	if hint {
		p, purpose = c.prof.BlockedClickHintUnderstood, "blocked_click_hint_understood"
	}
	if c.coin(p, purpose, false) {
		if r, ok := c.dismiss(failed, st); ok {
			return r, true
		}
		if hint {
			return c.calls(toolCall{browser.ToolSnapshot, map[string]any{}}), true
		}
	}
	if c.coin(0.5, "blocked_click_fallback", false) {
		return c.repeat(failed), true
	}
	return c.calls(toolCall{browser.ToolSnapshot, map[string]any{}}), true
}

var dialogWords = []string{"onetrust", "cookie", "consent", "cmp", "didomi", "cookiebot", "usercentrics", "modal",
	"dialog", "overlay", "backdrop", "popup", "banner", "geo", "region", "redirect", "filter", "locale"}

// dismiss is the understood reaction to a blocker: close the dialog (Reject all / Close …), or, when an icon
// covers the step's radio/checkbox, click the option's visible label instead.
func (c *conv) dismiss(failed *call, st *suites.Step) (reply, bool) {
	if c.snapshot == nil {
		return reply{}, false
	}
	blocker := strings.ToLower(blockerText(failed.result.Error))
	dialogish := false
	for _, w := range dialogWords {
		dialogish = dialogish || strings.Contains(blocker, w)
	}
	var target *node
	if st.Target != nil && st.Kind == kindClick {
		switch strings.ToLower(st.Target.Role) {
		case "radio", "checkbox", "switch":
			target = c.snapshot.find(st.Target, true)
		}
	}
	label := func() (reply, bool) {
		if target == nil {
			return reply{}, false
		}
		l := c.snapshot.findLabel(target)
		if l == nil {
			return reply{}, false
		}
		return c.calls(toolCall{browser.ToolClick, map[string]any{"target": l.ref, "element": "label of " + target.desc()}}), true
	}
	closeIt := func() (reply, bool) {
		b := c.snapshot.findDismiss()
		if b == nil {
			return reply{}, false
		}
		return c.calls(toolCall{browser.ToolClick, map[string]any{"target": b.ref, "element": b.desc()}}), true
	}
	if target != nil && !dialogish {
		if r, ok := label(); ok {
			return r, true
		}
		return closeIt()
	}
	if r, ok := closeIt(); ok {
		return r, true
	}
	return label()
}

// blockerText is the part of an intercepted-click error that names the blocker: intercept_hint's "covered by
// …" clause, else the last "intercepts pointer events" line of the raw call log.
func blockerText(errText string) string {
	if i := strings.Index(errText, strings.TrimSpace(guard.InterceptCoveredBy)); i >= 0 {
		rest := errText[i:]
		if j := strings.IndexByte(rest, '\n'); j >= 0 {
			rest = rest[:j]
		}
		return rest
	}
	lines := strings.Split(errText, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], results.InterceptPhrase) {
			return lines[i]
		}
	}
	return ""
}

// onStale reacts to a stale-ref error: with a fresh snapshot after it, nothing special (the step is retried on
// the new view); without one, act on the old view with probability stale_ref_without_refresh (repeat the
// call with its old ref), else ask for a snapshot.
func (c *conv) onStale(last *turn) (reply, bool) {
	for _, cl := range last.calls {
		if !cl.failed() {
			continue
		}
		if !strings.Contains(cl.result.Error, browser.StaleRefPhrase) {
			continue
		}
		if c.snapshotAfter(cl.msg) {
			return reply{}, false
		}
		if c.coin(c.prof.StaleRefWithoutRefresh, "stale_ref_without_refresh", false) {
			return c.repeat(cl), true
		}
		return c.calls(toolCall{browser.ToolSnapshot, map[string]any{}}), true
	}
	return reply{}, false
}

// repeat re-sends a call exactly (same tool, same arguments).
func (c *conv) repeat(cl *call) reply {
	args := cl.args
	if args == nil {
		args = map[string]any{}
	}
	return c.calls(toolCall{cl.base, args})
}
