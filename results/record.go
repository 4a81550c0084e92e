// Package results owns the run directory (DESIGN.md "Records"): manifest.json, attempts.jsonl (appended and
// fsynced per attempt, never rewritten; the last line of an attempt_id is its record), trajectories/ and
// screenshots/. It reads run directories back (tolerating a torn last line) and renders reports.
package results

import (
	"webbench/judge"
)

// SchemaVersion is the schema_version of every record this package writes.
const SchemaVersion = 1

// Status values of an attempt.
const (
	StatusPass  = "pass"
	StatusFail  = "fail"
	StatusError = "error"
)

// Error classes of an attempt that did not pass.
const (
	ClassInfra   = "infra"
	ClassAgent   = "agent"
	ClassDataset = "dataset"
	ClassJudge   = "judge"
)

// Tokens counts model tokens.
type Tokens struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
}

// Attempt is one line of attempts.jsonl.
type Attempt struct {
	SchemaVersion int    `json:"schema_version"`
	AttemptID     string `json:"attempt_id"`
	PairID        string `json:"pair_id"`
	Variant       string `json:"variant"`
	TaskID        string `json:"task_id"`
	Suite         string `json:"suite"`
	Cluster       string `json:"cluster"`
	Rep           int    `json:"rep"`
	// Seed sent to the model; nil when the variant sends none.
	Seed *int `json:"seed"`
	// Model is "provider:name", e.g. "scripted:clean" or "openai:gpt-4o-mini".
	Model string `json:"model"`
	// Guards maps every guard name to on (true) / off (false).
	Guards map[string]bool `json:"guards"`
	// Status is pass, fail or error; ErrorClass says why for fail/error.
	Status     string `json:"status"`
	ErrorClass string `json:"error_class,omitempty"`
	// Error is the harness error text for status error (redacted).
	Error       string        `json:"error,omitempty"`
	FailureMode FailureMode   `json:"failure_mode,omitempty"`
	Verdict     judge.Verdict `json:"verdict"`
	// Verdicts holds re-scored verdicts by judge name (bench judge), beside the original Verdict.
	Verdicts map[string]judge.Verdict `json:"verdicts,omitempty"`
	// Final is the agent's final answer text; OK its own claim.
	Final         string       `json:"final"`
	OK            bool         `json:"ok"`
	FinishReason  FinishReason `json:"finish_reason"`
	RecoveredFrom string       `json:"recovered_from,omitempty"`
	// Steps is the number of model calls.
	Steps       int            `json:"steps"`
	Tokens      Tokens         `json:"tokens"`
	CostUSD     float64        `json:"cost_usd"`
	DurationMS  int64          `json:"duration_ms"`
	GuardEvents map[string]int `json:"guard_events"`
	// Retries is how many times this attempt was retried after infrastructure errors before this record.
	Retries int `json:"retries"`
	// Trajectory is the relative path of the trajectory file.
	Trajectory string `json:"trajectory,omitempty"`
	// Meta holds suite extras (e.g. WebVoyager's original text before a stale-date shift).
	Meta map[string]any `json:"meta,omitempty"`
	// StartedAt is the attempt's start, RFC 3339.
	StartedAt string `json:"started_at"`
}

// Done reports whether the record is final for resume purposes (pass or fail; errors are re-run).
func (a Attempt) Done() bool { return a.Status == StatusPass || a.Status == StatusFail }
