package browser

// SKELETON: the browser helper replaces the bodies; the signatures are the contract the agent, guards and
// runner compile against. Keep them (add, don't change).

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	playwright "github.com/mxschmitt/playwright-go"
	openai "github.com/sashabaranov/go-openai"
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
}

// Session is one attempt's browser context + page and its tools, named and shaped like Playwright MCP.
// Not safe for concurrent tool calls (tool calls of an attempt run in order).
type Session struct {
	ctx  playwright.BrowserContext
	page playwright.Page
	opts SessionOptions
	// filter post-processes every snapshot a tool captures (the agent's AfterSnapshot hooks).
	filter func(snapshot string) string
}

var errTodo = errors.New("browser: not implemented")

// ToolDefs returns the OpenAI tool definitions (JSON schema) of the session's tools, Playwright MCP names
// and arguments. browser_mouse_click_xy is always offered.
func (s *Session) ToolDefs() []openai.Tool { return nil }

// Call executes one tool by name with its JSON arguments and returns the structured result. Unknown tools and
// bad arguments are results with Error set, not Go errors. ctx cancellation returns at once with an error
// result (the underlying Playwright call may still be running; closing the session releases it).
func (s *Session) Call(ctx context.Context, name string, args json.RawMessage) Result {
	return Result{Error: errTodo.Error()}
}

// Navigate opens url in the page and waits for the load event (bounded by the navigation timeout).
func (s *Session) Navigate(url string) error { return errTodo }

// Snapshot captures an AI-mode aria snapshot (with [box=…] when boxes) and records its refs as the current
// ref set. It does not run the snapshot filter.
func (s *Session) Snapshot(boxes bool) (string, error) { return "", errTodo }

// Observe is what tools use: Snapshot followed by the filter set with SetSnapshotFilter.
func (s *Session) Observe(boxes bool) (string, error) { return "", errTodo }

// SetSnapshotFilter installs f to post-process every snapshot tools capture (nil removes it).
func (s *Session) SetSnapshotFilter(f func(snapshot string) string) { s.filter = f }

// Page and Context expose Playwright objects for guards that need them (evaluate_isolation's CDP session).
func (s *Session) Page() playwright.Page              { return s.page }
func (s *Session) Context() playwright.BrowserContext { return s.ctx }

// PageInfo returns the page's URL and title.
func (s *Session) PageInfo() (url, title string) { return "", "" }

// Screenshot captures a PNG of the viewport and keeps it among the last KeepScreenshots.
func (s *Session) Screenshot() ([]byte, error) { return nil, errTodo }

// Screenshots returns the kept screenshots, oldest first.
func (s *Session) Screenshots() [][]byte { return nil }

// Close closes the context (releasing any Playwright call stuck on it). Safe to call twice.
func (s *Session) Close() error { return nil }
