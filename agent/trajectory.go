package agent

import (
	"webbench/agent/llm"
)

// Trajectory is the full record of one attempt: every step, with model request summaries, responses, raw and
// model-facing tool results, guard events and timings. Written to trajectories/<attempt_id>.json.
type Trajectory struct {
	SchemaVersion int    `json:"schema_version"`
	TaskID        string `json:"task_id"`
	Goal          string `json:"goal"`
	// SystemPromptSHA256 identifies the system prompt text.
	SystemPromptSHA256 string `json:"system_prompt_sha256"`
	// FirstObservation is the formatted page observation sent with the goal.
	FirstObservation string  `json:"first_observation"`
	Steps            []*Step `json:"steps"`
	// Finish is how the loop ended (after OnFinish hooks).
	Finish FinishRecord `json:"finish"`
	// Events are all guard events, in order.
	Events []Event `json:"events"`
	// GuardCounts counts guard events by guard name.
	GuardCounts map[string]int `json:"guard_counts"`
	// Usage sums token usage over all model calls.
	Usage llm.Usage `json:"usage"`
	// DurationMS is the attempt's wall time, ms.
	DurationMS int64 `json:"duration_ms"`
	// State is the app's final state (Zoo) for the state judge and re-scoring.
	State rawJSON `json:"state,omitempty"`
	// Screenshots are relative paths of kept screenshots, oldest first.
	Screenshots []string `json:"screenshots,omitempty"`
}

// FinishRecord is the serialisable form of Finish.
type FinishRecord struct {
	Reason        string       `json:"reason"`
	Output        string       `json:"output,omitempty"`
	Final         *FinalAnswer `json:"final,omitempty"`
	RecoveredFrom string       `json:"recovered_from,omitempty"`
	// Error is a harness or model error that ended the attempt.
	Error string `json:"error,omitempty"`
	// ErrorClass classifies Error: "infra", "agent", "quota", "context_overflow".
	ErrorClass string `json:"error_class,omitempty"`
}

// Step is one model call and the tool calls it made.
type Step struct {
	Index int `json:"index"`
	// Request summarises what was sent: message count, tool names offered (none when withheld), system sections.
	Request RequestSummary `json:"request"`
	// Response is the assistant message text and its tool calls.
	Content   string     `json:"content"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// FinishReason as the endpoint reported it.
	FinishReason string    `json:"finish_reason,omitempty"`
	Usage        llm.Usage `json:"usage"`
	ModelMS      int64     `json:"model_ms"`
	// Results of the tool calls, in order (raw and model-facing).
	Results []*ToolRecord `json:"results,omitempty"`
	// Events are the guard events of this step.
	Events []Event `json:"events,omitempty"`
	// Stalled reports whether the iteration counted as stalled; Progress whether it had a successful action.
	Stalled  bool `json:"stalled"`
	Progress bool `json:"progress"`
	// Recovery marks the extra model call made by an OnFinish hook.
	Recovery bool `json:"recovery,omitempty"`
}

// RequestSummary describes a model request without repeating the conversation.
type RequestSummary struct {
	Messages       int      `json:"messages"`
	Tools          []string `json:"tools"`
	ToolsWithheld  bool     `json:"tools_withheld,omitempty"`
	SystemSections []string `json:"system_sections,omitempty"`
	// Appended is the text of user messages added for this request (recovery turns).
	Appended []string `json:"appended,omitempty"`
}

// ToolRecord is one executed tool call in the trajectory.
type ToolRecord struct {
	Call   ToolCall `json:"call"`
	Raw    string   `json:"raw"`
	Text   string   `json:"text"`
	Failed bool     `json:"failed"`
	// Action is whether it counted as a browser action for the stall detector.
	Action bool `json:"action"`
	// SnapshotBytes is the size of the snapshot in the result, bytes (0 when none).
	SnapshotBytes int   `json:"snapshot_bytes"`
	DurationMS    int64 `json:"duration_ms"`
	// Refreshed is true when a fresh snapshot was appended (stale_ref_refresh).
	Refreshed bool `json:"refreshed,omitempty"`
}
