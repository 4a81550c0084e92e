// Package agent is the ReAct browser agent: a loop of model calls and tool calls with budgets (steps, time,
// consecutive tool errors, stalled iterations), the final-JSON contract, snapshot elision, and the hook
// interface through which the guards (agent/guard) attach. It produces one attempt's trajectory in the run
// log's shape (results.Trajectory, with its finish-reason vocabulary); it knows nothing of plans, scheduling,
// judging, suites or solutions.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"webbench/browser"
	"webbench/llm"
	"webbench/results"

	openai "github.com/sashabaranov/go-openai"
)

// Config holds the agent's budgets and knobs (DESIGN.md "The agent"). Zero values take the defaults noted.
type Config struct {
	// MaxSteps is the model-call budget (default 50).
	MaxSteps int
	// Timeout is the attempt's wall-clock budget (default 600 s).
	Timeout time.Duration
	// ErrorBudget is the number of consecutive failed model turns that ends the attempt (default 5): a turn
	// whose tool calls all failed (or were not executed, cut off at the token limit) counts once however many
	// parallel calls it made; a turn with a successful call resets the count.
	ErrorBudget int
	// StallLimit is the number of consecutive stalled iterations that ends the attempt (default 3).
	StallLimit int
	// KeepSnapshots is how many of the latest snapshots stay whole in requests (default 1); older ones are
	// replaced by a one-line placeholder.
	KeepSnapshots int
	// SystemPrompt is the system prompt text (default DefaultSystemPrompt()).
	SystemPrompt string
	// Hooks are the enabled guards, in registry order.
	Hooks []Hook
	// Seed is sent with every model request of the attempt (nil sends none).
	Seed *int
	// Screenshots keeps a screenshot after every step for the judge.
	Screenshots bool
	// Observation is what results of actions show of the page (default ObserveFull; observation.go).
	Observation Observation
	// Cache is the attempt's model-cache session (nil: no cache): model calls replay from it until the first
	// request it has not stored (llm.CacheSession); replayed steps are marked Step.Cached.
	Cache *llm.CacheSession
}

func (c Config) withDefaults() Config {
	if c.MaxSteps <= 0 {
		c.MaxSteps = 50
	}
	if c.Timeout <= 0 {
		c.Timeout = 600 * time.Second
	}
	if c.ErrorBudget <= 0 {
		c.ErrorBudget = 5
	}
	if c.StallLimit <= 0 {
		c.StallLimit = 3
	}
	if c.KeepSnapshots <= 0 {
		c.KeepSnapshots = 1
	}
	if c.SystemPrompt == "" {
		c.SystemPrompt = DefaultSystemPrompt()
	}
	if c.Observation == "" {
		c.Observation = ObserveFull
	}
	return c
}

// Agent runs attempts with one model client and configuration. Safe for concurrent Run calls.
type Agent struct {
	cfg    Config
	client *llm.Client
}

// New builds an agent.
func New(cfg Config, client *llm.Client) *Agent {
	return &Agent{cfg: cfg.withDefaults(), client: client}
}

// Task is what the agent is told: an id (for records) and the goal text.
type Task struct {
	ID, Goal string
}

// Run performs one attempt on an already-opened page (the runner navigated to the start URL). It always
// returns a trajectory. The error is non-nil when the attempt could not start (e.g. the first snapshot
// failed), an infrastructure error, or when the model endpoint answered with a class that stops the whole run
// (llm.ErrorClass.Fatal: config, auth, quota): then the error is that *llm.Error, the attempt measured nothing
// about the agent and must not be recorded as its failure (the trajectory's finish holds the error too). A
// context overflow on the attempt's first model call, before any tool result, is such an error too: a config
// *llm.Error with ContextWindowHint, wrapping the overflow. Other
// model and tool failures end the attempt and are recorded in Trajectory.Finish only.
//
// sess is the attempt's tool backend: a *browser.Session, or a Playwright MCP client (browser/mcptools).
func (ag *Agent) Run(ctx context.Context, task Task, sess browser.Backend) (*Trajectory, error) {
	cfg := ag.cfg
	start := time.Now()
	deadline := start.Add(cfg.Timeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()

	tr := &Trajectory{SchemaVersion: results.TrajectorySchemaVersion, TaskID: task.ID, Goal: task.Goal,
		SystemPromptSHA256: PromptSHA256(cfg.SystemPrompt), GuardCounts: map[string]int{}}
	var cur *Step
	a := NewToolsAttempt(ctx, task.ID, task.Goal, sess, deadline, nil)
	a.counts = tr.GuardCounts
	a.step = func() *Step { return cur }
	run := &loopRun{ag: ag, cfg: cfg, a: a, tr: tr, sess: sess, obs: &observer{mode: cfg.Observation}}
	a.chat = func(ctx context.Context, req ModelRequest) (*ModelResponse, error) {
		st := &Step{Index: len(tr.Steps), Recovery: true}
		tr.Steps = append(tr.Steps, st)
		cur = st
		return run.call(ctx, st, req)
	}
	defer func() {
		tr.Events = *a.events
		tr.DurationMS = time.Since(start).Milliseconds()
	}()

	defer installHooks(a, cfg.Hooks)()

	snap, err := sess.Observe(false)
	if err != nil {
		return tr, fmt.Errorf("first snapshot: %w", err)
	}
	url, title := sess.PageInfo()
	first := browser.Result{URL: url, Title: title, Snapshot: browser.Snapshot{YAML: snap}}
	run.obs.first(&first)
	tr.FirstObservation = new(first.Clone())
	user := TextMessage(openai.ChatMessageRoleUser, "")
	user.Lead, user.Observation = TaskLead+task.Goal+"\n\n", &first
	a.Messages = []Message{TextMessage(openai.ChatMessageRoleSystem, cfg.SystemPrompt), user}

	fin := run.loop(ctx, &cur)
	if fin.Reason != results.FinishTimeout && ctx.Err() == nil {
		for _, h := range cfg.Hooks {
			if x, ok := h.(Finisher); ok {
				x.OnFinish(a, fin)
			}
		}
	}
	tr.Finish.Reason = fin.Reason
	tr.Finish.Output = fin.Output
	tr.Finish.Final = fin.Final
	tr.Finish.RecoveredFrom = fin.RecoveredFrom
	if run.fatal != nil {
		return tr, run.fatal
	}
	return tr, nil
}

type loopRun struct {
	ag   *Agent
	cfg  Config
	a    *Attempt
	tr   *Trajectory
	sess browser.Backend
	// consecErrors counts consecutive failed model turns (turns whose tool calls all failed).
	consecErrors int
	// fatal is the first model-call error of a class that stops the run (config, auth, quota).
	fatal *llm.Error
	// obs applies the observation mode to the results the model sees.
	obs *observer
}

// loop runs iterations until an end condition and returns the finish (before OnFinish hooks).
func (r *loopRun) loop(ctx context.Context, cur **Step) *Finish {
	a, cfg, tr := r.a, r.cfg, r.tr
	stalled := 0
	lastOutput := ""
	for a.Step < cfg.MaxSteps {
		if ctx.Err() != nil {
			return r.fail(results.FinishTimeout, lastOutput, ctx.Err(), llm.ErrorAgent)
		}
		req := ModelRequest{Messages: a.Messages, Tools: r.sess.ToolDefs()}
		for _, h := range cfg.Hooks {
			if x, ok := h.(BeforeModelCaller); ok {
				x.BeforeModelCall(a, &req)
			}
		}
		st := &Step{Index: len(tr.Steps)}
		tr.Steps = append(tr.Steps, st)
		*cur = st
		resp, err := r.call(ctx, st, req)
		a.Step++
		if err != nil {
			return r.modelFailure(ctx, err, lastOutput)
		}
		msg := resp.Message
		lastOutput = msg.Content
		forced := false
		for _, h := range cfg.Hooks {
			if x, ok := h.(AfterModelCaller); ok && x.AfterModelCall(a, resp) {
				forced = true
			}
		}
		if forced {
			return &Finish{Reason: results.FinishForced, Output: msg.Content}
		}
		msg, st.SanitizedArgs = sanitizeCalls(msg)
		a.Messages = append(a.Messages, Message{ChatCompletionMessage: msg, Extra: resp.Extra})
		switch {
		case resp.FinishReason == "content_filter":
			// The filter cut the reply: its tool calls (if any) are not executed.
			return &Finish{Reason: results.FinishContentFilter, Output: msg.Content}
		case len(msg.ToolCalls) == 0 && (resp.Refusal != "" || resp.FinishReason == "refusal"):
			out := resp.Refusal
			if out == "" {
				out = msg.Content
			}
			return &Finish{Reason: results.FinishRefusal, Output: out}
		case len(msg.ToolCalls) == 0:
			fin := finishFromText(msg.Content)
			if resp.FinishReason == "length" && fin.Final == nil {
				fin.Reason = results.FinishTruncated
			}
			return fin
		}
		anyFailed, anyProgress, allFailed, fin := r.calls(ctx, st, msg, resp.FinishReason, lastOutput)
		if fin != nil {
			return fin
		}
		if cfg.Screenshots {
			_ = r.sess.CaptureForJudge(st.Index)
		}
		// The error budget counts model turns, as the stall rule counts iterations: a turn of parallel calls
		// that all fail counts once.
		if allFailed {
			r.consecErrors++
		} else {
			r.consecErrors = 0
		}
		st.Progress = anyProgress
		if anyProgress {
			stalled = 0
		} else if anyFailed {
			stalled++
			st.Stalled = true
		}
		if r.consecErrors >= cfg.ErrorBudget {
			return &Finish{Reason: results.FinishErrorBudget, Output: lastOutput}
		}
		if stalled >= cfg.StallLimit {
			return &Finish{Reason: results.FinishStalled, Output: lastOutput}
		}
	}
	return &Finish{Reason: results.FinishMaxSteps, Output: lastOutput}
}

// calls runs the tool calls of reply msg (step st): none when the reply was cut at the token limit (each gets
// TruncatedCallError) or for a call whose arguments were sanitised (InvalidArgumentsError), the others through
// the hooks. fin is non-nil when a call ended the attempt.
func (r *loopRun) calls(ctx context.Context, st *Step, msg openai.ChatCompletionMessage, finishReason,
	lastOutput string) (anyFailed, anyProgress, allFailed bool, fin *Finish) {
	a := r.a
	allFailed = true
	notExecuted := func(id, why string) {
		obs := browser.Result{Error: why}
		a.Messages = append(a.Messages, Message{ChatCompletionMessage: openai.ChatCompletionMessage{
			Role: openai.ChatMessageRoleTool, ToolCallID: id}, Observation: &obs})
		anyFailed = true
	}
	if finishReason == "length" {
		// Cut off at the token limit: the calls' arguments may be incomplete. None is executed; each gets a
		// tool message saying so (the endpoint wants one per call id), and the turn counts as failed.
		st.Truncated = true
		for _, tc := range msg.ToolCalls {
			notExecuted(tc.ID, TruncatedCallError)
		}
		return anyFailed, false, true, nil
	}
	for _, tc := range msg.ToolCalls {
		if slices.Contains(st.SanitizedArgs, tc.ID) {
			notExecuted(tc.ID, InvalidArgumentsError)
			continue
		}
		failed, action, fin := r.tool(ctx, st, tc, lastOutput)
		if fin != nil {
			return anyFailed, anyProgress, allFailed, fin
		}
		anyFailed, anyProgress = anyFailed || failed, anyProgress || action
		allFailed = allFailed && failed
	}
	return anyFailed, anyProgress, allFailed, nil
}

// ContextWindowHint is the hint of the configuration error a context overflow on an attempt's first model call
// becomes (before any tool result exists: the system prompt, the tool schemas and the first observation do
// not fit). Overflow later in an attempt stays the agent's failure (failure_mode context_overflow).
const ContextWindowHint = "the model's context window is too small for the system prompt, tools and first page: " +
	"raise it (vLLM --max-model-len, llama.cpp -c, Ollama num_ctx) or use a larger model"

// hasToolResult reports whether msgs hold a tool message (the result of a tool call).
func hasToolResult(msgs []Message) bool {
	for _, m := range msgs {
		if m.Role == openai.ChatMessageRoleTool {
			return true
		}
	}
	return false
}

// TruncatedCallError is the tool message sent for each tool call of a reply cut off at the token limit
// (finish_reason "length"): the call is not executed.
const TruncatedCallError = "Not executed: your reply was cut off at the token limit (finish_reason \"length\") " +
	"before this call's arguments were complete. Make the call again, with shorter arguments if they were long."

// InvalidArgumentsError is the tool message sent for a tool call whose arguments were not one JSON object
// (llm.SanitizeArguments changed them): the call is not executed.
const InvalidArgumentsError = "Not executed: this call's arguments were not one JSON object (several objects " +
	"run together, or cut off). Make each call separately, with its arguments as one JSON object."

// sanitizeCalls is msg with each tool call's arguments as llm.SanitizeArguments makes them, and the ids of
// the calls it changed (nil when none). The calls are copied: the response's message is not modified.
func sanitizeCalls(msg openai.ChatCompletionMessage) (openai.ChatCompletionMessage, []string) {
	var ids []string
	for i, tc := range msg.ToolCalls {
		clean, changed := llm.SanitizeArguments(tc.Function.Arguments)
		if !changed {
			continue
		}
		if ids == nil {
			msg.ToolCalls = slices.Clone(msg.ToolCalls)
		}
		msg.ToolCalls[i].Function.Arguments = clean
		ids = append(ids, tc.ID)
	}
	return msg, ids
}

// modelFailure is the finish of a failed model call: timeout when the attempt's context is done, else
// context_overflow, content_filter (a moderation layer refused the request: finish reason and error class
// content_filter, as when a reply ends with finish_reason "content_filter"), or model_error with the
// endpoint's error class (agent for Groq's tool_use_failed: the model's malformed tool call).
func (r *loopRun) modelFailure(ctx context.Context, err error, lastOutput string) *Finish {
	if ctx.Err() != nil {
		return r.fail(results.FinishTimeout, lastOutput, ctx.Err(), llm.ErrorAgent)
	}
	var le *llm.Error
	if errors.As(err, &le) && le.Class == llm.ErrorContextOverflow {
		return r.fail(results.FinishContextOverflow, lastOutput, err, llm.ErrorAgent)
	}
	if le != nil && le.Class == llm.ErrorContentFilter {
		return r.fail(results.FinishContentFilter, lastOutput, err, llm.ErrorContentFilter)
	}
	class := llm.ErrorInfra
	if errors.As(err, &le) {
		class = le.Class
	}
	return r.fail(results.FinishModelError, lastOutput, err, class)
}

// tool executes one tool call of step st through the hooks (CallTool, the code path an ExternalAttempt shares)
// and records the result in st and the conversation. fin is non-nil when the call ends the attempt (deadline,
// browser gone).
func (r *loopRun) tool(ctx context.Context, st *Step, tc openai.ToolCall, lastOutput string) (failed, action bool,
	fin *Finish) {
	call := ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments}
	out := CallTool(ctx, r.a, r.cfg.Hooks, call)
	if r.cfg.Observation != ObserveFull {
		r.obs.result(call.Name, &out.Result.Result)
		out.Record.SetShown(out.Result.Result)
	}
	st.Results = append(st.Results, out.Record)
	r.a.Messages = append(r.a.Messages, toolMessage(tc.ID, out.Result))
	switch out.End {
	case ToolDeadline:
		return true, false, r.fail(results.FinishTimeout, lastOutput, ctx.Err(), llm.ErrorAgent)
	case ToolBrowserGone:
		return true, false, r.fail(results.FinishBrowserClosed, lastOutput,
			errors.New(firstLineOf(out.Result.Raw.Error)), llm.ErrorInfra)
	}
	return out.Record.Failed, out.Record.Action, nil
}

func (r *loopRun) fail(reason results.FinishReason, output string, err error, class llm.ErrorClass) *Finish {
	r.tr.Finish.Error = llm.RedactString(err.Error())
	r.tr.Finish.ErrorClass = class
	return &Finish{Reason: reason, Output: output}
}

// toolMessage is the tool message of a result: its model-facing result, rendered at the model boundary.
func toolMessage(id string, res *ToolResult) Message {
	obs := res.Result
	return Message{ChatCompletionMessage: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool,
		ToolCallID: id}, Observation: &obs}
}

// call sends one model request (eliding old snapshots and appending system sections) and records it in st.
func (r *loopRun) call(ctx context.Context, st *Step, req ModelRequest) (*ModelResponse, error) {
	msgs := Render(req.Messages, r.cfg.KeepSnapshots)
	for _, s := range req.SystemSections {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: s})
	}
	st.Request = RequestSummary{Messages: len(msgs), ToolsWithheld: req.Tools == nil,
		SystemSections: req.SystemSections}
	for _, t := range req.Tools {
		if t.Function != nil {
			st.Request.Tools = append(st.Request.Tools, t.Function.Name)
		}
	}
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == openai.ChatMessageRoleUser && st.Recovery {
		st.Request.Appended = append(st.Request.Appended, req.Messages[n-1].Text())
	}
	// Render is 1:1 with the messages (system sections follow them): an assistant message's Extra goes back
	// under its own index.
	var extras map[int]*llm.Extra
	for i, m := range req.Messages {
		if m.Extra != nil {
			if extras == nil {
				extras = map[int]*llm.Extra{}
			}
			extras[i] = m.Extra
		}
	}
	resp, err := r.ag.client.Chat(ctx, llm.Request{Messages: msgs, Extras: extras, Tools: req.Tools, Seed: r.cfg.Seed,
		Cache: r.cfg.Cache})
	if err != nil {
		var le *llm.Error
		switch {
		case !errors.As(err, &le) || r.fatal != nil:
		case le.Class.Fatal():
			r.fatal = le
		case le.Class == llm.ErrorContextOverflow && st.Index == 0 && !hasToolResult(req.Messages):
			// The context cannot hold the system prompt, the tools and the first page: no agent could run on
			// this model as configured, so the run stops as on any configuration error.
			r.fatal = &llm.Error{Class: llm.ErrorConfig, StatusCode: le.StatusCode, Type: le.Type, Code: le.Code,
				Message: le.Message, Hint: ContextWindowHint, Err: le}
		}
		return nil, err
	}
	st.Content = resp.Message.Content
	st.Reasoning, st.ReasoningFrom, st.Refusal = resp.Reasoning, resp.ReasoningFrom, resp.Refusal
	st.FinishReason = resp.FinishReason
	st.Extra = results.ExtraOf(resp.Extra)
	st.Usage = resp.Usage
	st.ModelMS = resp.DurationMS
	st.Cached = resp.Cached
	for _, tc := range resp.Message.ToolCalls {
		st.ToolCalls = append(st.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
	}
	r.tr.Usage = r.tr.Usage.Add(resp.Usage)
	return &ModelResponse{Message: resp.Message, Reasoning: resp.Reasoning, Refusal: resp.Refusal,
		FinishReason: resp.FinishReason, Extra: resp.Extra, Usage: resp.Usage}, nil
}

// finishFromText classifies an assistant reply without tool calls from its content only (the llm client
// removed the reasoning — reasoning_content, <think> blocks — from it).
func finishFromText(content string) *Finish {
	if strings.TrimSpace(content) == "" {
		return &Finish{Reason: results.FinishEmptyOutput, Output: content}
	}
	f, err := ParseFinal(content)
	if err != nil {
		return &Finish{Reason: results.FinishNonJSONOutput, Output: content}
	}
	return &Finish{Reason: results.FinishAnswered, Output: content, Final: f}
}

var fenceRe = regexp.MustCompile("(?s)^```(?:json|JSON)?\\s*\n(.*?)\n?```$")

// ParseFinal parses the final answer: exactly one JSON object, bare or inside a single ```json fence, with at
// least the "ok" and "final" fields (DESIGN.md "Final answer"). Anything else is an error (non_json_output).
func ParseFinal(text string) (*FinalAnswer, error) {
	s := strings.TrimSpace(text)
	if m := fenceRe.FindStringSubmatch(s); m != nil {
		s = strings.TrimSpace(m[1])
	}
	if !strings.HasPrefix(s, "{") {
		return nil, errors.New("final answer is not a JSON object")
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("final answer: %w", err)
	}
	if dec.More() {
		return nil, errors.New("final answer: more than one JSON value")
	}
	if _, ok := raw["ok"]; !ok {
		return nil, errors.New(`final answer: missing "ok"`)
	}
	var f FinalAnswer
	if err := json.Unmarshal([]byte(s), &f); err != nil {
		return nil, fmt.Errorf("final answer: %w", err)
	}
	return &f, nil
}

// Render makes the messages sent to the model: each message's text (observations formatted here, at the model
// boundary) with only the last keep snapshots of the conversation whole, and the diffs after the oldest of them
// (observation mode diff); older ones become browser.SnapshotPlaceholder (DESIGN.md "Context"). msgs itself is
// not modified.
func Render(msgs []Message, keep int) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, len(msgs))
	seen := 0
	// elide counts a whole snapshot, newest first, and replaces it once keep newer ones were seen. A diff
	// (observation mode diff, browser.IsSnapshotDiff) stays whole while its base, the newest whole snapshot
	// before it, does, and does not count: the model needs the base and every diff after it to know the page.
	elide := func(s *browser.Snapshot) {
		diff := browser.IsSnapshotDiff(s.YAML)
		if seen >= keep {
			*s = browser.Snapshot{Elided: true}
		}
		if !diff {
			seen++
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		out[i] = m.ChatCompletionMessage
		if m.Observation == nil {
			continue
		}
		obs := m.Observation.Clone()
		if obs.Refreshed != nil && !obs.Refreshed.Elided {
			elide(obs.Refreshed)
		}
		if obs.Snapshot.YAML != "" {
			elide(&obs.Snapshot)
		}
		out[i].Content = m.Lead + obs.Format()
	}
	return out
}

// browserGonePhrases are Playwright's errors when the page, context or browser process is gone (a crash or a
// kill): an infrastructure fault, never the agent's.
var browserGonePhrases = []string{"Target page, context or browser has been closed", "Target closed",
	"Browser has been closed", "browser has disconnected", "Browser closed", "Connection closed",
	"websocket: close", "Target crashed", "Page crashed"}

// BrowserGone reports whether a tool error says the browser, context or page is gone.
func BrowserGone(errText string) bool {
	for _, p := range browserGonePhrases {
		if strings.Contains(errText, p) {
			return true
		}
	}
	return false
}

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
