package results

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"

	"webbench/browser"
	"webbench/llm"
)

// TrajectoryExt is the file name extension of a trajectory as written: gzip-compressed JSON (RFC 1952).
// Run directories written before it hold plain JSON, <id>.json (PlainTrajectoryExt); ReadTrajectory reads both.
const TrajectoryExt = ".json.gz"

// PlainTrajectoryExt is the extension of an uncompressed trajectory, the layout of earlier run directories.
const PlainTrajectoryExt = ".json"

// TrajectoryPath is the path of attempt id's trajectory file relative to the run directory,
// trajectories/<id>.json.gz: where the runner writes it (WriteTrajectory) and what Attempt.Trajectory records.
func TrajectoryPath(id string) string { return filepath.Join(TrajectoriesDir, id+TrajectoryExt) }

// otherTrajectoryLayout is p's name in the other layout: <id>.json for <id>.json.gz and the reverse; "" when p
// has neither extension.
func otherTrajectoryLayout(p string) string {
	switch {
	case strings.HasSuffix(p, TrajectoryExt):
		return strings.TrimSuffix(p, ".gz")
	case strings.HasSuffix(p, PlainTrajectoryExt):
		return p + ".gz"
	}
	return ""
}

// Trajectory is the full record of one attempt, trajectories/<attempt_id>.json.gz: every step, with model request
// summaries, responses, raw and model-facing tool results, guard events and timings. The agent loop produces
// it (agent.Agent.Run); the runner adds what only it knows, the environment's final State and the kept
// Screenshots, before writing it. Read back with (*Run).Trajectory.
type Trajectory struct {
	// SchemaVersion is TrajectorySchemaVersion; (*Run).Trajectory refuses another.
	SchemaVersion int `json:"schema_version"`
	// TaskID is the suite's task id; Goal the task's goal text as sent to the model.
	TaskID string `json:"task_id"`
	Goal   string `json:"goal"`
	// SystemPromptSHA256 identifies the system prompt text (hex SHA-256).
	SystemPromptSHA256 string `json:"system_prompt_sha256"`
	// FirstObservation is the page observation sent with the goal (its URL, title and snapshot; the model saw
	// it formatted, FirstObservationText), nil when there was none (an external agent's trajectory).
	FirstObservation *browser.Result `json:"first_observation,omitempty"`
	// Steps are the model calls in order.
	Steps []*Step `json:"steps"`
	// Finish is how the loop ended (after OnFinish hooks).
	Finish FinishRecord `json:"finish"`
	// Events are all guard events, in order.
	Events []Event `json:"events"`
	// GuardCounts counts guard events by guard name.
	GuardCounts map[string]int `json:"guard_counts"`
	// Usage sums token usage over all model calls.
	Usage llm.Usage `json:"usage"`
	// DurationMS is the agent loop's wall time, ms.
	DurationMS int64 `json:"duration_ms"`
	// State is the app's final state (Zoo) for the state judge and re-scoring; set by the runner.
	State json.RawMessage `json:"state,omitempty"`
	// Screenshots are the kept screenshots' paths relative to the run directory, oldest first; set by the runner.
	Screenshots []string `json:"screenshots,omitempty"`
	// ScreenshotSteps[i] is the 0-based Step.Index that Screenshots[i] belongs to: the step it was captured after
	// (the capture after each step with --screenshots) or taken during (the agent's own browser_take_screenshot);
	// same length as Screenshots, several may share a step. Set by the runner; absent in trajectories written
	// before it and when a kept screenshot's step is not known (an agent's screenshot with no capture after it):
	// readers then show the screenshots without steps.
	ScreenshotSteps []int `json:"screenshot_steps,omitempty"`
	// Cassette is how the attempt used the run's cassette (--record, --replay); nil without one. Set by the
	// runner.
	Cassette *CassetteUse `json:"cassette,omitempty"`
}

// CassetteMode is how an attempt used a cassette: record or replay.
type CassetteMode string

// Cassette modes (docs/CASSETTES.md).
const (
	CassetteRecord CassetteMode = "record"
	CassetteReplay CassetteMode = "replay"
)

// CassetteUse is an attempt's use of the run's cassette.
type CassetteUse struct {
	// Mode is record or replay.
	Mode CassetteMode `json:"mode"`
	// Misses are the URLs of the requests a replay found no recorded response for (answered 404), in order,
	// secret query values redacted.
	Misses []string `json:"misses,omitempty"`
}

// FirstObservationText is the first observation as the model was shown it (browser.Result.Format), "" when
// there was none.
func (t *Trajectory) FirstObservationText() string {
	if t.FirstObservation == nil {
		return ""
	}
	return t.FirstObservation.Format()
}

// FinishRecord is the serialisable form of how the loop ended (agent.Finish).
type FinishRecord struct {
	// Reason is how the loop ended.
	Reason FinishReason `json:"reason"`
	// Output is the last reply's text when it was not a valid final answer.
	Output string `json:"output,omitempty"`
	// Final is the parsed final answer (nil when there was none).
	Final *FinalAnswer `json:"final,omitempty"`
	// RecoveredFrom is the finish reason an OnFinish hook recovered from ("" = none).
	RecoveredFrom string `json:"recovered_from,omitempty"`
	// Error is a harness or model error that ended the attempt.
	Error string `json:"error,omitempty"`
	// ErrorClass classifies Error (llm.ErrorClass: infra, rate_limit, config, auth, quota, context_overflow,
	// agent).
	ErrorClass llm.ErrorClass `json:"error_class,omitempty"`
	// ExitCode is an external agent's exit code (-1: killed by a signal, at the deadline or when the run
	// stopped); nil for the built-in agent.
	ExitCode *int `json:"exit_code,omitempty"`
}

// FinalAnswer is the agent's closing JSON object (DESIGN.md "Final answer").
type FinalAnswer struct {
	// OK is the agent's own claim of success; Final its answer text; Page the page it ended on.
	OK    bool   `json:"ok"`
	Final string `json:"final"`
	Page  string `json:"page"`
	// Error is the agent's stated reason for failing (nil = none given).
	Error *string `json:"error"`
}

// ToolCall is one tool call of a model response. Args is the raw JSON arguments string as the model sent it.
type ToolCall struct {
	// ID is the model's tool-call id; Name the tool's name.
	ID   string `json:"id"`
	Name string `json:"name"`
	Args string `json:"args"`
}

// Event is a guard action, the mechanism evidence of an ablation. Step is the number of model calls the attempt
// had made when the guard acted (agent.Attempt.Step): a guard acting before call i (0-based) records i, one acting
// on call i's reply or tool calls records i + 1. AtMS is the time of the action, Unix ms.
type Event struct {
	// Guard names the guard; Action what it did; Detail the specifics.
	Guard  string `json:"guard"`
	Action string `json:"action"`
	Detail string `json:"detail,omitempty"`
	Step   int    `json:"step"`
	AtMS   int64  `json:"at_ms"`
}

// Step is one model call and the tool calls it made.
type Step struct {
	// Index is the 0-based step index.
	Index int `json:"index"`
	// Request summarises what was sent: message count, tool names offered (none when withheld), system sections.
	Request RequestSummary `json:"request"`
	// Content is the assistant message text (reasoning removed); ToolCalls its tool calls.
	Content   string     `json:"content"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Reasoning is the reply's reasoning text (llm.Response.Reasoning); ReasoningFrom where it was read from:
	// "reasoning_content", "reasoning", "content_array" or "think_tag".
	Reasoning     string `json:"reasoning,omitempty"`
	ReasoningFrom string `json:"reasoning_from,omitempty"`
	// Refusal is the model's refusal text (the message's refusal field).
	Refusal string `json:"refusal,omitempty"`
	// FinishReason as the endpoint reported it ("stop", "tool_calls", "length", "content_filter", …).
	FinishReason string `json:"finish_reason,omitempty"`
	// Truncated marks a reply cut off at the token limit (finish_reason "length") whose tool calls were not
	// executed: the model was told so in one tool message per call.
	Truncated bool `json:"truncated,omitempty"`
	// SanitizedArgs are the ids of the reply's tool calls whose arguments were not one JSON object (cut at the
	// token limit, or concatenated objects): they went back to the endpoint as llm.SanitizeArguments made them
	// (servers refuse a conversation they cannot parse) and were not executed.
	SanitizedArgs []string `json:"sanitized_args,omitempty"`
	// Extra is what the assistant message carried back to the endpoint on later turns (DeepSeek's
	// reasoning_content, Gemini's thought signatures); nil when nothing.
	Extra *Extra `json:"extra,omitempty"`
	// Usage is the call's token usage.
	Usage llm.Usage `json:"usage"`
	// ModelMS is the model call's wall time, ms.
	ModelMS int64 `json:"model_ms"`
	// Cached marks a model call replayed from the model cache (--model-cache): no request reached the endpoint;
	// Usage is what the call cost when it was made, counted in the attempt's tokens but not paid.
	Cached bool `json:"cached,omitempty"`
	// Error is why the model call failed, redacted: an external agent's call the recording proxy saw fail
	// (runner/modelproxy Call.Error: the endpoint's error message, or the transport error); "" otherwise (the
	// built-in agent's failed call ends the attempt and is in Finish.Error).
	Error string `json:"error,omitempty"`
	// Results of the tool calls, in order (raw and model-facing).
	Results []*ToolRecord `json:"results,omitempty"`
	// Events are the guard events of this step.
	Events []Event `json:"events,omitempty"`
	// Stalled reports whether the iteration counted as stalled; Progress whether it had a successful action.
	Stalled  bool `json:"stalled"`
	Progress bool `json:"progress"`
	// Recovery marks the extra model call made by an OnFinish hook.
	Recovery bool `json:"recovery,omitempty"`
	// StartedMS is when the step began, ms since the attempt began (external agents' steps, whose model calls
	// and tool calls are recorded apart and merged in time order; 0 and absent for the built-in agent).
	StartedMS int64 `json:"started_ms,omitempty"`
}

// Extra is the trajectory's record of an llm.Extra: the provider fields an assistant message carried back to the
// endpoint on later turns, verbatim.
type Extra struct {
	// ReasoningContent is the "reasoning_content" sent back (DeepSeek thinking mode; also when empty).
	ReasoningContent *string `json:"reasoning_content,omitempty"`
	// Fields are other message-level provider fields ("extra_content", "reasoning_details").
	Fields map[string]json.RawMessage `json:"fields,omitempty"`
	// ToolCallFields are per tool-call-id provider fields (Gemini's extra_content.google.thought_signature).
	ToolCallFields map[string]map[string]json.RawMessage `json:"tool_call_fields,omitempty"`
}

// ExtraOf records e (nil for nil).
func ExtraOf(e *llm.Extra) *Extra {
	if e == nil {
		return nil
	}
	return &Extra{ReasoningContent: e.ReasoningContent, Fields: e.Fields, ToolCallFields: e.ToolCallFields}
}

// RequestSummary describes a model request without repeating the conversation.
type RequestSummary struct {
	// Messages is the number of messages sent; Tools the tool names offered.
	Messages int      `json:"messages"`
	Tools    []string `json:"tools"`
	// ToolsWithheld is true when a hook withheld the tools from this request.
	ToolsWithheld bool `json:"tools_withheld,omitempty"`
	// SystemSections names the system prompt sections hooks added.
	SystemSections []string `json:"system_sections,omitempty"`
	// Appended is the text of user messages added for this request (recovery turns).
	Appended []string `json:"appended,omitempty"`
}

// ToolRecord is one executed tool call in the trajectory. Its results are stored typed, one JSON field per
// section (browser.Result's JSON form): "raw" the tool's output as produced, "shown" what the model was shown
// when guards or the observation mode changed it (absent when the model saw the raw result). Their texts are
// made with browser.Result.Format (RawText, ShownText), as the model request made them. Trajectories of schema
// version 1 stored the two texts ("raw", "text"); ReadTrajectory converts them to these fields.
type ToolRecord struct {
	// Call is the tool call as the model made it.
	Call ToolCall `json:"call"`
	// Raw is the tool's output as produced, before any guard's rewrite.
	Raw browser.Result `json:"raw"`
	// Shown is what the model was shown (after guards' rewrites and the observation mode), nil when it is Raw;
	// SetShown sets it, ShownResult reads it.
	Shown *browser.Result `json:"shown,omitempty"`
	// Failed is true when the tool call failed.
	Failed bool `json:"failed"`
	// Action is whether it counted as a browser action for the stall detector.
	Action bool `json:"action"`
	// SnapshotBytes is the size of the snapshot in the result, bytes (0 when none).
	SnapshotBytes int `json:"snapshot_bytes"`
	// DurationMS is the tool call's wall time, ms.
	DurationMS int64 `json:"duration_ms"`
	// Refreshed is true when a fresh snapshot was appended (stale_ref_refresh).
	Refreshed bool `json:"refreshed,omitempty"`
	// StartedMS is when the call began, ms since the attempt began (external agents' tool calls; absent for the
	// built-in agent).
	StartedMS int64 `json:"started_ms,omitempty"`
}

// NewToolRecord is the record of call whose output was raw, shown to the model as is until SetShown records a
// rewrite. raw is copied.
func NewToolRecord(call ToolCall, raw browser.Result) *ToolRecord {
	return &ToolRecord{Call: call, Raw: stored(raw)}
}

// SetShown records shown as what the model was shown: nil (the raw result) when it equals Raw in every stored
// field, else a copy.
func (r *ToolRecord) SetShown(shown browser.Result) {
	s := stored(shown)
	if reflect.DeepEqual(s, r.Raw) {
		r.Shown = nil
		return
	}
	r.Shown = &s
}

// ShownResult is what the model was shown: Shown, else Raw.
func (r *ToolRecord) ShownResult() browser.Result {
	if r.Shown != nil {
		return *r.Shown
	}
	return r.Raw
}

// RawText is the raw result's text (browser.Result.Format).
func (r *ToolRecord) RawText() string { return r.Raw.Format() }

// ShownText is the text the model was shown for this call (browser.Result.Format of ShownResult), byte for
// byte the tool message's content in the request that followed the call (later requests may elide its
// snapshot).
func (r *ToolRecord) ShownText() string { return r.ShownResult().Format() }

// stored is a copy of res holding only what the trajectory stores (no Image, no Harness) and sharing no slice
// or pointer with it.
func stored(res browser.Result) browser.Result {
	c := res.Clone()
	c.Image, c.Harness = nil, nil
	return c
}
