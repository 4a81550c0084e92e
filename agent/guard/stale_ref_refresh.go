package guard

import (
	"strings"

	"webbench/agent"
	"webbench/browser"
)

// StaleRefRefresh makes a stale-ref error be followed by a fresh snapshot (GUARDS.md §5, seed 002 fix 2): the
// observation the system prompt promises ("wait for the next page snapshot, it will arrive automatically").
// On a failed call whose error contains browser.StaleRefPhrase it sets res.RefreshSnapshot; the loop then
// appends a fresh snapshot to the model-facing result (Result.Refreshed). Other errors keep the old behaviour; the consecutive-error
// budget still bounds any loop. Event: "refresh".
type StaleRefRefresh struct{}

// NameStaleRefRefresh is the guard's name in specs, --guards and the records.
const NameStaleRefRefresh = "stale_ref_refresh"

func init() {
	register(NameStaleRefRefresh, 50, true, func() agent.Hook { return StaleRefRefresh{} })
}

// Name implements agent.Hook.
func (StaleRefRefresh) Name() string { return NameStaleRefRefresh }

// AfterToolCall implements agent.AfterToolCaller.
func (StaleRefRefresh) AfterToolCall(a *agent.Attempt, call agent.ToolCall, res *agent.ToolResult) {
	if !res.Failed() || !strings.Contains(res.Raw.Error, browser.StaleRefPhrase) {
		return
	}
	res.RefreshSnapshot = true
	a.Event(NameStaleRefRefresh, "refresh", "tool="+string(browser.BaseName(call.Name)))
}
