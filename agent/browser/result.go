package browser

import (
	"regexp"
	"strings"
)

// Result is the outcome of one browser tool call, in the sections Playwright MCP (≤0.0.68, inline snapshot)
// prints. Format renders the model-facing text.
type Result struct {
	// Error is the raw error message (with Playwright's call log when there is one); empty on success.
	Error string `json:"error,omitempty"`
	// Result is the tool's value (evaluate's JSON, wait_for's message …).
	Result string `json:"result,omitempty"`
	// URL and Title of the page after the call.
	URL   string `json:"url,omitempty"`
	Title string `json:"title,omitempty"`
	// Snapshot is the AI-mode aria snapshot YAML taken after the call, when the call changes the page or is
	// browser_snapshot; empty otherwise.
	Snapshot string `json:"snapshot,omitempty"`
	// Events are console errors, dialogs and downloads seen during the call, one per line.
	Events []string `json:"events,omitempty"`
	// Image is a PNG screenshot (browser_take_screenshot), bytes; not part of the text.
	Image []byte `json:"-"`
}

// IsError reports whether the call failed.
func (r Result) IsError() bool { return r.Error != "" }

// Format renders the model-facing text: "### Error", "### Result", "### Page", "### Snapshot" (a ```yaml
// fence) and "### Events" sections, each only when it has content, in that order (DESIGN.md).
func (r Result) Format() string {
	var b strings.Builder
	if r.Error != "" {
		b.WriteString("### Error\n")
		b.WriteString(r.Error)
		b.WriteString("\n")
	}
	if r.Result != "" {
		b.WriteString("### Result\n")
		b.WriteString(r.Result)
		b.WriteString("\n")
	}
	if r.URL != "" || r.Title != "" {
		b.WriteString("### Page\n- Page URL: ")
		b.WriteString(r.URL)
		b.WriteString("\n- Page Title: ")
		b.WriteString(r.Title)
		b.WriteString("\n")
	}
	if r.Snapshot != "" {
		b.WriteString("### Snapshot\n```yaml\n")
		b.WriteString(strings.TrimRight(r.Snapshot, "\n"))
		b.WriteString("\n```\n")
	}
	if len(r.Events) > 0 {
		b.WriteString("### Events\n")
		for _, e := range r.Events {
			b.WriteString("- ")
			b.WriteString(e)
			b.WriteString("\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// RefPattern matches a ref inside an AI snapshot line, e.g. "[ref=e12]" or "[ref=f3e2]" (frame-prefixed after
// navigation, as Playwright 1.64 emits). Group 1 is the ref.
var RefPattern = regexp.MustCompile(`\[ref=((?:f\d+)?e\d+)\]`)

// Refs returns the refs of a snapshot in document order.
func Refs(snapshot string) []string {
	var out []string
	for _, m := range RefPattern.FindAllStringSubmatch(snapshot, -1) {
		out = append(out, m[1])
	}
	return out
}

// StaleRefMessage is the error for a ref that is not in the last snapshot or whose node is gone, in Playwright
// MCP's words. The system prompt and the stale_ref_refresh guard key on the phrase StaleRefPhrase.
func StaleRefMessage(ref string) string {
	return "Ref " + ref + " not found in the current page snapshot. Try capturing new snapshot."
}

// StaleRefPhrase is the part of StaleRefMessage that identifies a stale-ref error.
const StaleRefPhrase = "not found in the current page snapshot"

// ActionTools are the tools that change the page (DESIGN.md "Iteration and stall"). browser_mouse_click_xy is
// deliberately absent: it counts only through the visual_progress guard.
var ActionTools = map[string]bool{
	"browser_navigate": true, "browser_navigate_back": true, "browser_click": true, "browser_type": true,
	"browser_hover": true, "browser_select_option": true, "browser_fill_form": true, "browser_press_key": true,
	"browser_drag": true,
}

// ToolName strips an MCP-style prefix ("mcp__playwright__browser_click" → "browser_click").
func ToolName(name string) string {
	if i := strings.LastIndex(name, "__"); i >= 0 {
		return name[i+2:]
	}
	return name
}
