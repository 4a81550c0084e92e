package browser

import (
	"context"
	"encoding/json"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Backend is an attempt's tool backend: what the loop (agent.Agent.Run), CallTool and the guards need of the browser
// tools. Two implementations: *Session (webbench's own tools, named and shaped like Playwright MCP's)
// and browser/mcptools.Client (a real Playwright MCP server over stdio). Guards that need a CDP page
// (evaluate_isolation) use Attempt.Browser, which is set only when the backend is a *Session.
type Backend interface {
	// Call runs one tool call; a failure is Result.Error (never a Go error). Bounded by ctx.
	Call(ctx context.Context, name string, args json.RawMessage) Result
	// Snapshot captures a fresh snapshot of the current page (with [box=…] when boxes), unfiltered.
	Snapshot(boxes bool) (string, error)
	// Observe is Snapshot followed by the snapshot filter (SetSnapshotFilter): the first observation and the
	// refreshed snapshot stale_ref_refresh asks for.
	Observe(boxes bool) (string, error)
	// SetSnapshotFilter installs f to post-process every snapshot the tools return (nil removes it).
	SetSnapshotFilter(f func(snapshot string) string)
	// ToolDefs are the tools offered to the model (OpenAI function tools).
	ToolDefs() []openai.Tool
	// PageInfo is the current page's URL and title.
	PageInfo() (url, title string)
	// CaptureForJudge takes one viewport screenshot after step (the 0-based results.Step.Index) and keeps it for
	// the judge, remembering the step (the backends' ScreenshotSteps, which the runner records as
	// results.Trajectory.ScreenshotSteps).
	CaptureForJudge(step int) error
}

var _ Backend = (*Session)(nil)

// InteractiveWaiter is a Backend that can wait, without polling from Go, for the page to show what makes a
// snapshot actionable: *Session (WaitInteractive). snapshot_ready waits on it instead of a fixed timer; a Playwright
// MCP backend (browser/mcptools.Client) has no such tool and is not one.
type InteractiveWaiter interface {
	// WaitInteractive waits at most timeout for the current page to show a visible element with one of
	// InteractiveRoles; it reports whether one appeared (false: timeout). Errors are Playwright's (a closed page).
	WaitInteractive(timeout time.Duration) (bool, error)
}

var _ InteractiveWaiter = (*Session)(nil)
