package agent

import (
	"context"
	"encoding/json"
	"time"

	"webbench/browser"
	"webbench/results"
)

// The one code path of a tool call through the hooks, shared by the agent loop (loopRun.tool) and by attempts
// driven from outside the loop (ExternalAttempt, served over MCP by agent/mcpserver): install the
// snapshot-level and attempt-level hooks on the session (installHooks), then per call the WrapTool chain around
// Session.Call, the AfterToolCall hooks, the refreshed snapshot they ask for, the ProgressJudge hooks and the
// trajectory record (CallTool).

// ToolEnd says whether a tool call ended the attempt, and how (the loop turns it into its finish).
type ToolEnd int

const (
	// ToolContinue: the attempt goes on (the call may still have failed: ToolResult.Failed).
	ToolContinue ToolEnd = iota
	// ToolDeadline: the call failed with the attempt's context done (its deadline passed, or it was cancelled)
	// while it ran. The AfterToolCall hooks did not run: the model-facing result is the raw one. The loop ends
	// with finish reason timeout.
	ToolDeadline
	// ToolBrowserGone: the call failed because the browser, context or page is gone (BrowserGone), an
	// infrastructure fault. The AfterToolCall hooks ran, no snapshot was refreshed. The loop ends with finish
	// reason browser_closed.
	ToolBrowserGone
)

// ToolOutcome is one executed tool call: the result (raw and model-facing), its trajectory record and whether
// it ended the attempt.
type ToolOutcome struct {
	// Result holds the raw and the model-facing result (Result.Result.Format() is the text the model reads).
	Result *ToolResult
	// Record is the trajectory's record of the call (raw and model-facing text, failed, action, timings).
	Record *ToolRecord
	// End is ToolContinue unless the call ended the attempt.
	End ToolEnd
}

// installHooks wires the hooks that act outside a single tool call into attempt a: it sets the session's
// snapshot filter to the AfterSnapshot hooks (snapshot_ready) and runs the BeforeAttempt hooks. The returned
// function removes the filter (call it when the attempt ends).
func installHooks(a *Attempt, hooks []Hook) (uninstall func()) {
	a.Tools.SetSnapshotFilter(func(s string) string {
		for _, h := range hooks {
			if x, ok := h.(AfterSnapshotter); ok {
				s = x.AfterSnapshot(a, s)
			}
		}
		return s
	})
	for _, h := range hooks {
		if x, ok := h.(BeforeAttempter); ok {
			x.BeforeAttempt(a)
		}
	}
	return func() { a.Tools.SetSnapshotFilter(nil) }
}

// CallTool executes one tool call of attempt a on its tool backend (a.Tools) exactly as the agent loop
// does (DESIGN.md "Hooks"): the WrapTool chain of hooks (evaluate_isolation) around Tools.Call, bounded by
// ctx (a call still running when ctx ends returns "attempt deadline reached while <tool> was running"); the
// page probe's harness notes as ProbeGuard events; the AfterToolCall hooks, which edit the model-facing result
// (intercept_hint, repeat_guard) or ask for a fresh snapshot (stale_ref_refresh), which is then appended
// (Result.Refreshed); and, for a successful call, the ProgressJudge hooks over the tool's Progress flag
// (visual_progress). Guard events go to a's events (and its current step). hooks are in registry order.
// See ToolEnd for the two outcomes that end an attempt.
func CallTool(ctx context.Context, a *Attempt, hooks []Hook, call ToolCall) ToolOutcome {
	res := execTool(ctx, a, hooks, call)
	out := func(action bool, end ToolEnd) ToolOutcome {
		return ToolOutcome{Result: res, Record: toolRecord(call, res, action), End: end}
	}
	if ctx.Err() != nil && res.Failed() {
		return out(false, ToolDeadline)
	}
	for _, h := range hooks {
		if x, ok := h.(AfterToolCaller); ok {
			x.AfterToolCall(a, call, res)
		}
	}
	if res.Failed() && BrowserGone(res.Raw.Error) {
		return out(false, ToolBrowserGone)
	}
	if res.RefreshSnapshot {
		if snap, err := a.Tools.Observe(false); err == nil {
			res.Result.Refreshed = &browser.Snapshot{YAML: snap}
		}
	}
	if res.Failed() {
		return out(false, ToolContinue)
	}
	def, _ := browser.LookupTool(call.Name)
	action := def.Progress
	for _, h := range hooks {
		if x, ok := h.(ProgressJudge); ok {
			action = x.IsProgress(a, call, res, action)
		}
	}
	return out(action, ToolContinue)
}

// execTool runs one tool call through the WrapTool chain, bounded by ctx.
func execTool(ctx context.Context, a *Attempt, hooks []Hook, call ToolCall) *ToolResult {
	tools := a.Tools
	base := func(ctx context.Context, c ToolCall) browser.Result {
		return tools.Call(ctx, c.Name, json.RawMessage(c.Args))
	}
	fn := ToolFunc(base)
	for i := len(hooks) - 1; i >= 0; i-- {
		if x, ok := hooks[i].(ToolWrapper); ok {
			fn = x.WrapTool(a, call, fn)
		}
	}
	t0 := time.Now()
	done := make(chan browser.Result, 1)
	go func() { done <- fn(ctx, call) }()
	var raw browser.Result
	select {
	case raw = <-done:
	case <-ctx.Done():
		raw = browser.Result{Error: results.DeadlineCutOffPrefix + call.Name + " was running"}
	}
	for _, h := range raw.Harness {
		a.Event(browser.ProbeGuard, "skipped", h)
	}
	return &ToolResult{Raw: raw, Result: raw.Clone(), DurationMS: time.Since(t0).Milliseconds()}
}

// toolRecord is the trajectory's record of a result: its raw and model-facing results, typed.
func toolRecord(call ToolCall, res *ToolResult, action bool) *ToolRecord {
	r := results.NewToolRecord(call, res.Raw)
	r.SetShown(res.Result)
	r.Failed, r.Action, r.SnapshotBytes, r.DurationMS = res.Failed(), action, len(res.Raw.Snapshot.YAML), res.DurationMS
	r.Refreshed = res.Result.Refreshed != nil
	return r
}
