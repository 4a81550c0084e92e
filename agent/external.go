package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"webbench/browser"
	"webbench/results"
)

// ExternalAttempt is an attempt whose model calls happen outside webbench: an external agent drives the
// attempt's browser tools (over MCP, agent/mcpserver) and webbench executes each tool call through the same
// code path as the agent loop (CallTool: the WrapTool, AfterToolCall, refreshed-snapshot and ProgressJudge
// hooks; the session's snapshot filter runs the AfterSnapshot hooks), bounded by the attempt's deadline, and
// records it as a trajectory step. Calls are executed one at a time, in arrival order. Safe for concurrent use.
//
// Its trajectory (Trajectory) has one step per tool call: Step.ToolCalls holds the call, Step.Results its
// record (raw and model-facing text) and Step.Events the guard events it caused; Step.StartedMS and the
// record's StartedMS are when the call began, ms since NewExternalAttempt (Start); the model-call fields
// (Request, Content, Usage …) are empty, FirstObservation and SystemPromptSHA256 too (the external agent's
// prompt and first look are its own), and Finish is left for the caller (the external agent's answer).
type ExternalAttempt struct {
	mu        sync.Mutex
	a         *Attempt
	hooks     []Hook
	tr        *Trajectory
	cur       *Step
	start     time.Time
	cancel    context.CancelFunc
	uninstall func()
	ended     bool
	gone      string
}

// NewExternalAttempt binds an attempt to sess (the attempt's fresh browser context, already on the start page,
// with its tenant allow-list) until deadline (zero: none; the parent ctx's deadline also bounds it), with the
// given hooks in registry order (guard.Build or guard.BuildToolLevel). It installs the hooks on the session
// (snapshot filter, BeforeAttempt); End removes them.
func NewExternalAttempt(ctx context.Context, task Task, sess *browser.Session, deadline time.Time,
	hooks []Hook) *ExternalAttempt {
	if dl, ok := ctx.Deadline(); ok && (deadline.IsZero() || dl.Before(deadline)) {
		deadline = dl
	}
	var cancel context.CancelFunc
	if deadline.IsZero() {
		ctx, cancel = context.WithCancel(ctx)
		deadline = time.Now().Add(100 * 365 * 24 * time.Hour) // Attempt.Remaining needs a deadline
	} else {
		ctx, cancel = context.WithDeadline(ctx, deadline)
	}
	x := &ExternalAttempt{hooks: hooks, start: time.Now(), cancel: cancel,
		tr: &Trajectory{SchemaVersion: results.TrajectorySchemaVersion, TaskID: task.ID, Goal: task.Goal,
			GuardCounts: map[string]int{}}}
	x.a = NewAttempt(ctx, task.ID, task.Goal, sess, deadline, nil)
	x.a.counts = x.tr.GuardCounts
	x.a.step = func() *Step { return x.cur }
	x.uninstall = installHooks(x.a, hooks)
	return x
}

// Start is when the attempt began (NewExternalAttempt): the origin of its steps' StartedMS.
func (x *ExternalAttempt) Start() time.Time { return x.start }

// Deadline is the attempt's deadline.
func (x *ExternalAttempt) Deadline() time.Time { return x.a.Deadline }

// DeadlineError is the error text of a tool call made once the attempt's deadline has passed (or the attempt
// ended): the call is not executed.
func DeadlineError(tool string, deadline time.Time) string {
	return fmt.Sprintf("attempt deadline (%s) has passed: %s was not run. The attempt is over; "+
		"reply with your final answer.", deadline.UTC().Format(time.RFC3339), tool)
}

// Call executes one tool call (name as the agent sent it, its JSON arguments; empty means {}) and records it
// as the next step. ctx is the request's context; the call is also bounded by the attempt's deadline. A call
// made once the deadline has passed, or after End, is not executed: its result is the error DeadlineError
// (recorded too, End ToolDeadline). Unknown tools and bad arguments are failed results, as in the loop.
func (x *ExternalAttempt) Call(ctx context.Context, name string, args json.RawMessage) ToolOutcome {
	x.mu.Lock()
	defer x.mu.Unlock()
	call := ToolCall{ID: fmt.Sprintf("call_%d", len(x.tr.Steps)+1), Name: name, Args: string(args)}
	st := &Step{Index: len(x.tr.Steps), ToolCalls: []ToolCall{call}, StartedMS: time.Since(x.start).Milliseconds()}
	x.tr.Steps = append(x.tr.Steps, st)
	x.cur = st
	x.a.Step++
	defer func() {
		st.Progress = len(st.Results) > 0 && st.Results[0].Action
		for _, r := range st.Results {
			r.StartedMS = st.StartedMS
		}
	}()
	if x.ended || x.a.Ctx.Err() != nil || !time.Now().Before(x.a.Deadline) {
		raw := browser.Result{Error: DeadlineError(name, x.a.Deadline)}
		res := &ToolResult{Raw: raw, Result: raw.Clone()}
		st.Results = append(st.Results, toolRecord(call, res, false))
		return ToolOutcome{Result: res, Record: st.Results[0], End: ToolDeadline}
	}
	ctx, cancel := context.WithDeadline(ctx, x.a.Deadline)
	defer cancel()
	stop := context.AfterFunc(x.a.Ctx, cancel)
	defer stop()
	out := CallTool(ctx, x.a, x.hooks, call)
	st.Results = append(st.Results, out.Record)
	if out.End == ToolBrowserGone && x.gone == "" {
		x.gone = out.Result.Raw.Error
	}
	return out
}

// BrowserGone is the error of the first tool call that found the browser, context or page gone (a crash, a
// kill, a closed page: ToolBrowserGone), "" when none did. The runner records such an attempt as an
// infrastructure error, as the built-in loop's browser_closed, never as the agent's failure.
func (x *ExternalAttempt) BrowserGone() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.gone
}

// Trajectory returns a copy of the trajectory so far (safe to read while calls go on): its steps, guard events
// and counts, and the wall time since the attempt began (or until End).
func (x *ExternalAttempt) Trajectory() *Trajectory {
	x.mu.Lock()
	defer x.mu.Unlock()
	tr := *x.tr
	tr.Events = append([]Event(nil), *x.a.events...)
	tr.GuardCounts = make(map[string]int, len(x.tr.GuardCounts))
	for k, v := range x.tr.GuardCounts {
		tr.GuardCounts[k] = v
	}
	tr.Steps = make([]*Step, len(x.tr.Steps))
	for i, st := range x.tr.Steps {
		c := *st
		c.ToolCalls = append([]ToolCall(nil), st.ToolCalls...)
		c.Events = append([]Event(nil), st.Events...)
		c.Results = make([]*ToolRecord, len(st.Results))
		for j, r := range st.Results {
			rc := *r
			c.Results[j] = &rc
		}
		tr.Steps[i] = &c
	}
	if !x.ended {
		tr.DurationMS = time.Since(x.start).Milliseconds()
	}
	return &tr
}

// End ends the attempt: later calls are refused (DeadlineError), the hooks are removed from the session (its
// snapshot filter) and the trajectory's duration is fixed. It returns the final trajectory (a copy). Calling End
// again returns the trajectory again.
func (x *ExternalAttempt) End() *Trajectory {
	x.cancel() // a call still running returns at once (its context ends)
	x.mu.Lock()
	if !x.ended {
		x.ended = true
		x.uninstall()
		x.tr.DurationMS = time.Since(x.start).Milliseconds()
	}
	x.mu.Unlock()
	return x.Trajectory()
}
