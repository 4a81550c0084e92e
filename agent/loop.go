// Package agent is the ReAct browser agent: a loop of model calls and tool calls with budgets (steps, time,
// consecutive tool errors, stalled iterations), the final-JSON contract, snapshot elision, and the hook
// interface through which the guards (agent/guard) attach. It knows nothing of runs, suites or solutions.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"webbench/agent/browser"
	"webbench/agent/llm"

	openai "github.com/sashabaranov/go-openai"
)

// TrajectorySchemaVersion is the schema_version of trajectory files.
const TrajectorySchemaVersion = 1

// Config holds the agent's budgets and knobs (DESIGN.md "The agent"). Zero values take the defaults noted.
type Config struct {
	// MaxSteps is the model-call budget (default 50).
	MaxSteps int
	// Timeout is the attempt's wall-clock budget (default 600 s).
	Timeout time.Duration
	// ErrorBudget is the number of consecutive failed tool calls that ends the attempt (default 5).
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
// returns a trajectory; the error is non-nil only when the attempt could not start (e.g. the first snapshot
// failed), which is an infrastructure error. Model and tool failures end the attempt and are recorded in
// Trajectory.Finish.
func (ag *Agent) Run(ctx context.Context, task Task, sess *browser.Session) (*Trajectory, error) {
	cfg := ag.cfg
	start := time.Now()
	deadline := start.Add(cfg.Timeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()

	tr := &Trajectory{SchemaVersion: TrajectorySchemaVersion, TaskID: task.ID, Goal: task.Goal,
		SystemPromptSHA256: PromptSHA256(cfg.SystemPrompt), GuardCounts: map[string]int{}}
	var cur *Step
	a := NewAttempt(ctx, task.ID, task.Goal, sess, deadline, nil)
	a.counts = tr.GuardCounts
	a.step = func() *Step { return cur }
	run := &loopRun{ag: ag, cfg: cfg, a: a, tr: tr, sess: sess}
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

	sess.SetSnapshotFilter(func(s string) string {
		for _, h := range cfg.Hooks {
			if x, ok := h.(AfterSnapshotter); ok {
				s = x.AfterSnapshot(a, s)
			}
		}
		return s
	})
	defer sess.SetSnapshotFilter(nil)
	for _, h := range cfg.Hooks {
		if x, ok := h.(BeforeAttempter); ok {
			x.BeforeAttempt(a)
		}
	}

	snap, err := sess.Observe(false)
	if err != nil {
		return tr, fmt.Errorf("first snapshot: %w", err)
	}
	url, title := sess.PageInfo()
	obs := browser.Result{URL: url, Title: title, Snapshot: snap}.Format()
	tr.FirstObservation = obs
	a.Messages = []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: cfg.SystemPrompt},
		{Role: openai.ChatMessageRoleUser, Content: "Task: " + task.Goal + "\n\n" + obs},
	}

	fin := run.loop(ctx, &cur)
	if fin.Reason != "timeout" && ctx.Err() == nil {
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
	return tr, nil
}

type loopRun struct {
	ag   *Agent
	cfg  Config
	a    *Attempt
	tr   *Trajectory
	sess *browser.Session
}

// loop runs iterations until an end condition and returns the finish (before OnFinish hooks).
func (r *loopRun) loop(ctx context.Context, cur **Step) *Finish {
	a, cfg, tr := r.a, r.cfg, r.tr
	consecErrors, stalled := 0, 0
	lastOutput := ""
	for a.Step < cfg.MaxSteps {
		if ctx.Err() != nil {
			return r.fail("timeout", lastOutput, ctx.Err(), "agent")
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
			if ctx.Err() != nil {
				return r.fail("timeout", lastOutput, ctx.Err(), "agent")
			}
			var le *llm.Error
			if errors.As(err, &le) && le.Class == "context_overflow" {
				return r.fail("context_overflow", lastOutput, err, "agent")
			}
			class := "infra"
			if errors.As(err, &le) {
				class = le.Class
			}
			return r.fail("model_error", lastOutput, err, class)
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
			return &Finish{Reason: "forced", Output: msg.Content}
		}
		a.Messages = append(a.Messages, msg)
		if len(msg.ToolCalls) == 0 {
			return finishFromText(msg.Content)
		}
		anyFailed, anyProgress := false, false
		for _, tc := range msg.ToolCalls {
			call := ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments}
			res := r.exec(ctx, call)
			if ctx.Err() != nil && res.Failed {
				st.Results = append(st.Results, toolRecord(call, res, false))
				a.Messages = append(a.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool,
					ToolCallID: tc.ID, Content: res.Text})
				return r.fail("timeout", lastOutput, ctx.Err(), "agent")
			}
			for _, h := range cfg.Hooks {
				if x, ok := h.(AfterToolCaller); ok {
					x.AfterToolCall(a, call, res)
				}
			}
			if res.Failed && BrowserGone(res.Browser.Error) {
				st.Results = append(st.Results, toolRecord(call, res, false))
				a.Messages = append(a.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool,
					ToolCallID: tc.ID, Content: res.Text})
				return r.fail("browser_closed", lastOutput, errors.New(firstLineOf(res.Browser.Error)), "infra")
			}
			refreshed := false
			if res.RefreshSnapshot {
				if snap, err := r.sess.Observe(false); err == nil {
					res.Text = strings.TrimRight(res.Text, "\n") + "\n### Snapshot\n```yaml\n" +
						strings.TrimRight(snap, "\n") + "\n```"
					refreshed = true
				}
			}
			action := false
			if res.Failed {
				anyFailed = true
				consecErrors++
			} else {
				consecErrors = 0
				action = browser.ActionTools[browser.ToolName(call.Name)]
				for _, h := range cfg.Hooks {
					if x, ok := h.(ProgressJudge); ok {
						action = x.IsProgress(a, call, res, action)
					}
				}
				if action {
					anyProgress = true
				}
			}
			rec := toolRecord(call, res, action)
			rec.Refreshed = refreshed
			st.Results = append(st.Results, rec)
			a.Messages = append(a.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool,
				ToolCallID: tc.ID, Content: res.Text})
		}
		if cfg.Screenshots {
			_ = r.sess.CaptureForJudge()
		}
		st.Progress = anyProgress
		if anyProgress {
			stalled = 0
		} else if anyFailed {
			stalled++
			st.Stalled = true
		}
		if consecErrors >= cfg.ErrorBudget {
			return &Finish{Reason: "error_budget", Output: lastOutput}
		}
		if stalled >= cfg.StallLimit {
			return &Finish{Reason: "stalled", Output: lastOutput}
		}
	}
	return &Finish{Reason: "max_steps", Output: lastOutput}
}

func (r *loopRun) fail(reason, output string, err error, class string) *Finish {
	r.tr.Finish.Error = llm.RedactString(err.Error())
	r.tr.Finish.ErrorClass = class
	return &Finish{Reason: reason, Output: output}
}

// exec runs one tool call through the WrapTool chain, bounded by ctx.
func (r *loopRun) exec(ctx context.Context, call ToolCall) *ToolResult {
	base := func(ctx context.Context, c ToolCall) *ToolResult {
		br := r.sess.Call(ctx, c.Name, json.RawMessage(c.Args))
		return &ToolResult{Browser: br}
	}
	fn := ToolFunc(base)
	hooks := r.cfg.Hooks
	for i := len(hooks) - 1; i >= 0; i-- {
		if x, ok := hooks[i].(ToolWrapper); ok {
			fn = x.WrapTool(r.a, call, fn)
		}
	}
	t0 := time.Now()
	done := make(chan *ToolResult, 1)
	go func() { done <- fn(ctx, call) }()
	var res *ToolResult
	select {
	case res = <-done:
	case <-ctx.Done():
		res = &ToolResult{Browser: browser.Result{Error: "attempt deadline reached while " + call.Name + " was running"}}
	}
	if res.Raw == "" {
		res.Raw = res.Browser.Format()
	}
	if res.Text == "" {
		res.Text = res.Raw
	}
	if res.Browser.Error != "" {
		res.Failed = true
	}
	res.DurationMS = time.Since(t0).Milliseconds()
	return res
}

func toolRecord(call ToolCall, res *ToolResult, action bool) *ToolRecord {
	return &ToolRecord{Call: call, Raw: res.Raw, Text: res.Text, Failed: res.Failed, Action: action,
		SnapshotBytes: len(res.Browser.Snapshot), DurationMS: res.DurationMS}
}

// call sends one model request (eliding old snapshots and appending system sections) and records it in st.
func (r *loopRun) call(ctx context.Context, st *Step, req ModelRequest) (*ModelResponse, error) {
	msgs := ElideSnapshots(req.Messages, r.cfg.KeepSnapshots)
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
		st.Request.Appended = append(st.Request.Appended, req.Messages[n-1].Content)
	}
	resp, err := r.ag.client.Chat(ctx, llm.Request{Messages: msgs, Tools: req.Tools, Seed: r.cfg.Seed})
	if err != nil {
		return nil, err
	}
	st.Content = resp.Message.Content
	st.FinishReason = resp.FinishReason
	st.Usage = resp.Usage
	st.ModelMS = resp.DurationMS
	for _, tc := range resp.Message.ToolCalls {
		st.ToolCalls = append(st.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
	}
	r.tr.Usage = r.tr.Usage.Add(resp.Usage)
	return &ModelResponse{Message: resp.Message, FinishReason: resp.FinishReason, Usage: resp.Usage}, nil
}

// finishFromText classifies an assistant reply without tool calls.
func finishFromText(content string) *Finish {
	if strings.TrimSpace(content) == "" {
		return &Finish{Reason: "empty_output", Output: content}
	}
	f, err := ParseFinal(content)
	if err != nil {
		return &Finish{Reason: "non_json_output", Output: content}
	}
	return &Finish{Reason: "answered", Output: content, Final: f}
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

var snapBlock = regexp.MustCompile("(?s)### Snapshot\n```yaml\n.*?\n```")

// SnapshotPlaceholder replaces elided snapshots in requests.
const SnapshotPlaceholder = "### Snapshot\n[older snapshot elided; the latest snapshot is further below]"

// ElideSnapshots returns a copy of msgs in which only the last keep snapshot blocks stay whole; older ones are
// replaced by SnapshotPlaceholder (DESIGN.md "Context"). msgs itself is not modified.
func ElideSnapshots(msgs []openai.ChatCompletionMessage, keep int) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, len(msgs))
	copy(out, msgs)
	seen := 0
	for i := len(out) - 1; i >= 0; i-- {
		c := out[i].Content
		locs := snapBlock.FindAllStringIndex(c, -1)
		if len(locs) == 0 {
			continue
		}
		var b strings.Builder
		last := len(c)
		parts := make([]string, 0, 2*len(locs)+1)
		for j := len(locs) - 1; j >= 0; j-- {
			parts = append(parts, c[locs[j][1]:last])
			if seen < keep {
				parts = append(parts, c[locs[j][0]:locs[j][1]])
			} else {
				parts = append(parts, SnapshotPlaceholder)
			}
			seen++
			last = locs[j][0]
		}
		parts = append(parts, c[:last])
		for j := len(parts) - 1; j >= 0; j-- {
			b.WriteString(parts[j])
		}
		out[i].Content = b.String()
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
