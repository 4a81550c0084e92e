package agent

import (
	"context"
	"time"

	"webbench/browser"
	"webbench/llm"
	"webbench/results"

	openai "github.com/sashabaranov/go-openai"
)

// Hook is a guard: a named set of optional callbacks the loop calls in registry order (DESIGN.md "Hooks").
// A hook implements Name and any of the interfaces below. State lives in the Attempt (Attempt.State), never in
// the hook value, so one Hook may serve concurrent attempts.
type Hook interface {
	// Name is the guard's registry name ("repeat_guard").
	Name() string
}

// BeforeAttempter runs once before the first model call.
type BeforeAttempter interface {
	BeforeAttempt(a *Attempt)
}

// BeforeModelCaller may edit the request: withhold tools (req.Tools = nil) or add a system section.
type BeforeModelCaller interface {
	BeforeModelCall(a *Attempt, req *ModelRequest)
}

// AfterModelCaller sees the response; returning true force-finishes the attempt without executing its tool
// calls.
type AfterModelCaller interface {
	AfterModelCall(a *Attempt, resp *ModelResponse) (forceFinish bool)
}

// ToolWrapper is middleware around a tool's execution; it may replace it entirely (evaluate_isolation).
type ToolWrapper interface {
	WrapTool(a *Attempt, call ToolCall, next ToolFunc) ToolFunc
}

// AfterToolCaller may edit the model-facing result (res.Result: its Error, its Notes …) or set
// res.RefreshSnapshot so that a fresh snapshot follows the result (stale_ref_refresh). res.Raw is never changed.
type AfterToolCaller interface {
	AfterToolCall(a *Attempt, call ToolCall, res *ToolResult)
}

// AfterSnapshotter sees every snapshot a tool or the loop captures and may replace it, e.g. by re-capturing
// with a.Tools.Snapshot (snapshot_ready).
type AfterSnapshotter interface {
	AfterSnapshot(a *Attempt, snapshot string) string
}

// ProgressJudge is the stall detector's action predicate: given the default verdict for a successful call,
// it returns whether the call counts as a browser action (visual_progress).
type ProgressJudge interface {
	IsProgress(a *Attempt, call ToolCall, res *ToolResult, dflt bool) bool
}

// Finisher sees how the loop ended and may change the outcome, e.g. by one more model call through a.Chat
// (final_recovery).
type Finisher interface {
	OnFinish(a *Attempt, f *Finish)
}

// ToolFunc executes a tool call and returns the tool's structured result.
type ToolFunc func(ctx context.Context, call ToolCall) browser.Result

// ToolResult is one executed tool call: the result as the tool produced it and the model-facing result that
// hooks edit field by field. Its text is made once, at the model boundary (Result.Format()).
type ToolResult struct {
	// Raw is the result as the tool produced it; never edited (the trajectory's "raw" is Raw.Format()).
	Raw browser.Result
	// Result is the model-facing result; hooks edit its fields (intercept_hint the Error, repeat_guard adds a
	// Note). It starts as a copy of Raw.
	Result browser.Result
	// RefreshSnapshot asks the loop to append a fresh snapshot (Result.Refreshed) after the hooks ran.
	RefreshSnapshot bool
	// DurationMS is the tool's wall time in ms.
	DurationMS int64
}

// Failed reports whether the call failed (the tool returned an error).
func (r *ToolResult) Failed() bool { return r.Raw.IsError() }

// Message is one conversation message. An observation — the first user message, a tool result — holds the
// result as a value (Observation) and is rendered to text only at the model boundary, where snapshots older
// than Config.KeepSnapshots are elided; any other message is its text (Content).
type Message struct {
	openai.ChatCompletionMessage
	// Lead precedes the observation's text (TaskLead + "<goal>\n\n" in the first user message).
	Lead string
	// Observation is the page observation or tool result of the message; nil for a text message.
	Observation *browser.Result
	// Extra is what an assistant message must carry back to the endpoint on later turns (llm.Response.Extra:
	// DeepSeek's reasoning_content, Gemini's thought signatures); the loop sends it as llm.Request.Extras.
	Extra *llm.Extra
}

// TaskLead begins the first user message: "Task: " then the task's goal and a blank line, then the first
// observation (the scripted policy recognises the task by it).
const TaskLead = "Task: "

// TextMessage is a message with text content only.
func TextMessage(role, content string) Message {
	return Message{ChatCompletionMessage: openai.ChatCompletionMessage{Role: role, Content: content}}
}

// Text is the message's whole text: Content, or Lead + Observation.Format() (nothing elided).
func (m Message) Text() string {
	if m.Observation == nil {
		return m.Content
	}
	return m.Lead + m.Observation.Format()
}

// ModelRequest is what the loop is about to send.
type ModelRequest struct {
	Messages []Message
	// Tools offered; nil withholds tools.
	Tools []openai.Tool
	// SystemSections are appended to the conversation as extra system messages for this request only.
	SystemSections []string
}

// ModelResponse is what came back.
type ModelResponse struct {
	// Message is the assistant message: content with the reasoning removed, tool calls normalised.
	Message openai.ChatCompletionMessage
	// Reasoning is the reply's reasoning text (never part of Message.Content); Refusal the model's refusal.
	Reasoning, Refusal string
	// FinishReason is as the endpoint sent it ("stop", "tool_calls", "length", "content_filter", …).
	FinishReason string
	// Extra is what the assistant message must carry back on later turns (nil when nothing).
	Extra *llm.Extra
	// Usage is the call's token usage (Usage.Estimated when the endpoint sent none).
	Usage llm.Usage
}

// Finish describes how the loop ended, before OnFinish hooks run.
type Finish struct {
	// Reason is one of the results.Finish… constants.
	Reason results.FinishReason
	// Output is the last assistant text.
	Output string
	// Final is the parsed final answer when Reason is "answered" (or a hook recovered one).
	Final *FinalAnswer
	// RecoveredFrom is set by final_recovery: the reason the answer was recovered from.
	RecoveredFrom string
}

// Attempt is the handle hooks get: the browser session, the model, the conversation, the budget, and a
// per-attempt state map for guard state.
type Attempt struct {
	// Task is the goal text and id.
	TaskID, Goal string
	// Tools is the attempt's tool backend (the browser session, or a Playwright MCP client); CallTool and the
	// loop use it.
	Tools browser.Backend
	// Browser is the attempt's browser session when Tools is one (*browser.Session), for guards that need its
	// Playwright page (evaluate_isolation's CDP session); nil on another backend (browser/mcptools).
	Browser *browser.Session
	// Messages is the conversation so far (system, user, assistant, tool).
	Messages []Message
	// Deadline is the attempt's wall-clock deadline.
	Deadline time.Time
	// Step is the number of model calls made so far.
	Step int
	// Ctx is the attempt's context.
	Ctx context.Context

	state  map[string]any
	events *[]Event
	counts map[string]int
	chat   func(ctx context.Context, req ModelRequest) (*ModelResponse, error)
	step   func() *Step
}

// Remaining is the time left before Deadline (never negative).
func (a *Attempt) Remaining() time.Duration {
	d := time.Until(a.Deadline)
	if d < 0 {
		return 0
	}
	return d
}

// State returns the guard's per-attempt state, creating it with mk on first use.
func State[T any](a *Attempt, guard string, mk func() *T) *T {
	if v, ok := a.state[guard]; ok {
		return v.(*T)
	}
	v := mk()
	a.state[guard] = v
	return v
}

// Event records a guard action as a step event {guard, action, detail} and counts it under guard.
func (a *Attempt) Event(guard, action, detail string) {
	e := Event{Guard: guard, Action: action, Detail: detail, Step: a.Step, AtMS: time.Now().UnixMilli()}
	*a.events = append(*a.events, e)
	if st := a.step(); st != nil {
		st.Events = append(st.Events, e)
	}
	a.counts[guard]++
}

// Chat makes one model call on behalf of a hook (final_recovery); it is recorded as a step.
func (a *Attempt) Chat(req ModelRequest) (*ModelResponse, error) { return a.chat(a.Ctx, req) }

// NewAttempt builds an Attempt outside the loop, for guard unit tests and tools: chat may be nil (Chat then
// fails), b may be nil for hooks that do not touch the browser. Its tool backend (Tools) is b.
func NewAttempt(ctx context.Context, taskID, goal string, b *browser.Session, deadline time.Time,
	chat func(ctx context.Context, req ModelRequest) (*ModelResponse, error)) *Attempt {
	var t browser.Backend
	if b != nil {
		t = b
	}
	return NewToolsAttempt(ctx, taskID, goal, t, deadline, chat)
}

// NewToolsAttempt is NewAttempt on any tool backend t (nil for hooks that do not touch the browser);
// Attempt.Browser is t when t is a *browser.Session, else nil.
func NewToolsAttempt(ctx context.Context, taskID, goal string, t browser.Backend, deadline time.Time,
	chat func(ctx context.Context, req ModelRequest) (*ModelResponse, error)) *Attempt {
	evs := []Event{}
	a := &Attempt{TaskID: taskID, Goal: goal, Tools: t, Browser: sessionOf(t), Deadline: deadline, Ctx: ctx,
		state: map[string]any{}, events: &evs, counts: map[string]int{}, chat: chat}
	a.step = func() *Step { return nil }
	if a.chat == nil {
		a.chat = func(context.Context, ModelRequest) (*ModelResponse, error) {
			return nil, errNoChat
		}
	}
	return a
}

// Events returns the guard events recorded so far.
func (a *Attempt) Events() []Event { return *a.events }
