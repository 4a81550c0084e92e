package guard

import (
	"webbench/agent"
	"webbench/browser"
)

// VisualProgress makes a successful browser_mouse_click_xy count as a browser action for the stall detector
// (GUARDS.md §7, seed 004): the coordinate click is the tool the prompt prescribes for a control without an
// accessible name. Every other call keeps the default verdict. Event: "action".
type VisualProgress struct{}

// NameVisualProgress is the guard's name in specs, --guards and the records.
const NameVisualProgress = "visual_progress"

func init() {
	register(NameVisualProgress, 70, false, func() agent.Hook { return VisualProgress{} })
}

// Name implements agent.Hook.
func (VisualProgress) Name() string { return NameVisualProgress }

// IsProgress implements agent.ProgressJudge.
func (VisualProgress) IsProgress(a *agent.Attempt, call agent.ToolCall, res *agent.ToolResult, dflt bool) bool {
	if browser.BaseName(call.Name) != browser.ToolMouseClickXY || res.Failed() {
		return dflt
	}
	if !dflt {
		a.Event(NameVisualProgress, "action", "tool="+string(browser.ToolMouseClickXY))
	}
	return true
}
