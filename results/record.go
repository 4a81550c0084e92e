// Package results owns the run directory (DESIGN.md "Records"): manifest.json (Manifest, the plan as expanded),
// attempts.jsonl (Attempt; appended and fsynced per attempt, never rewritten; the last line of an attempt_id is
// its record), trajectories/ (Trajectory), screenshots/ and verdicts-<judge>.jsonl (VerdictRecord). Writer writes
// them; Open reads a run directory back as a Run (tolerating a torn last line, converting schema version 1).
// Table is the format-neutral table the reports build.
package results

import (
	"webbench/judge"
)

// SchemaVersion is the schema_version of manifest.json, attempts.jsonl records, verdicts-<judge>.jsonl records
// and WebVoyager-folder verdict files (FolderVerdict); trajectories have their own, TrajectorySchemaVersion.
// Version 2 made the manifest typed (Manifest) and folded ablation.json into it; attempt records kept their
// shape, so version 1 run directories are read (ReadManifest converts their manifest).
const SchemaVersion = 2

// TrajectorySchemaVersion is the schema_version of trajectory files (Trajectory): the agent loop stamps it,
// ReadTrajectory reads it and version 1 (tool results and the first observation stored as their model-facing
// text, converted on read to the typed fields: trajectory_v1.go) and refuses any other.
const TrajectorySchemaVersion = 2

// Status is the outcome of an attempt: pass, fail or error.
type Status string

// Status values of an attempt.
const (
	StatusPass  Status = "pass"
	StatusFail  Status = "fail"
	StatusError Status = "error"
)

// Valid reports whether s is one of the Status values.
func (s Status) Valid() bool { return s == StatusPass || s == StatusFail || s == StatusError }

// ErrorClass says why an attempt did not pass: infra (harness, browser or endpoint; retried), agent (the agent
// failed the task), dataset (the task itself is broken), judge (the judge could not decide) or uncertain (the
// answer judge's rule matched but the answer is ambiguous: judge.Verdict.Uncertain).
type ErrorClass string

// Error classes of an attempt that did not pass.
const (
	ClassInfra   ErrorClass = "infra"
	ClassAgent   ErrorClass = "agent"
	ClassDataset ErrorClass = "dataset"
	ClassJudge   ErrorClass = "judge"
	// ClassUncertain: the judge's verdict is uncertain (status error: never a pass, out of the pass-rate
	// denominators like judge errors, counted apart in the reports; not re-run on resume or retried — bench
	// judge re-scores it, with --judge-model deciding it by the llm judge).
	ClassUncertain ErrorClass = "uncertain"
)

// Tokens counts model tokens.
type Tokens struct {
	// Prompt and Completion are the prompt and completion token counts the endpoint reported (estimates from
	// bytes when Estimated).
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
	// Estimated is true when the endpoint sent no usage for some call of the attempt and its tokens were
	// estimated from bytes (llm.Usage.Estimated); CostUSD then counts the estimate too.
	Estimated bool `json:"estimated,omitempty"`
}

// Attempt is one line of attempts.jsonl.
type Attempt struct {
	// SchemaVersion is the record's schema version (SchemaVersion when written; 1 is read too).
	SchemaVersion int `json:"schema_version"`
	// AttemptID identifies the attempt (deterministic from variant, task and rep; runner.Plan.Expand); retries
	// of an attempt share it and the last record wins.
	AttemptID string `json:"attempt_id"`
	// PairID identifies the (task, rep) pair the arms share; the paired analysis matches arms on it.
	PairID string `json:"pair_id"`
	// Variant is the arm's name (Plan.Variants).
	Variant string `json:"variant"`
	// TaskID is the suite's task id; Suite the suite's name.
	TaskID string `json:"task_id"`
	Suite  string `json:"suite"`
	// Cluster is the task's cluster (the unit of analysis groups by it; "" = the task itself).
	Cluster string `json:"cluster"`
	// Rep is the 0-based repetition index.
	Rep int `json:"rep"`
	// Seed sent to the model; nil when the variant sends none.
	Seed *int `json:"seed"`
	// Model is "provider:name", e.g. "scripted:clean" or "openai:gpt-4o-mini".
	Model string `json:"model"`
	// Agent is the external agent that played the attempt (AgentCmd.String, e.g. "command: node
	// node/dist/agent.js"); "" for the built-in agent.
	Agent string `json:"agent,omitempty"`
	// Guards maps every guard name to on (true) / off (false).
	Guards map[string]bool `json:"guards"`
	// Status is pass, fail or error; ErrorClass says why for fail/error.
	Status     Status     `json:"status"`
	ErrorClass ErrorClass `json:"error_class,omitempty"`
	// Error is the text (redacted) of the error that ended the attempt: the harness or endpoint error of a
	// status error, and the model-call error (context overflow, invalid request) of an agent failure.
	Error string `json:"error,omitempty"`
	// FailureMode classifies a fail (and infra errors): the trajectory's failure mode (ClassifyFailure).
	FailureMode FailureMode `json:"failure_mode,omitempty"`
	// Verdict is the verdict of the run's own judge(s); absent (the zero Verdict) when no judge ran, as on an
	// infrastructure error, so no counter of "verdict.pass" reads such a record as a failure.
	Verdict judge.Verdict `json:"verdict,omitzero"`
	// Verdicts holds re-scored verdicts by judge name (verdicts-<judge>.jsonl, written by bench judge), beside
	// the original Verdict. Filled by Open on load; never written to attempts.jsonl (Writer.Append drops it).
	Verdicts map[string]judge.Verdict `json:"verdicts,omitempty"`
	// Final is the agent's final answer text; OK its own claim.
	Final string `json:"final"`
	OK    bool   `json:"ok"`
	// FinishReason is how the agent loop ended (the trajectory's finish.reason).
	FinishReason FinishReason `json:"finish_reason"`
	// RecoveredFrom is the finish reason an OnFinish hook recovered from ("" = none).
	RecoveredFrom string `json:"recovered_from,omitempty"`
	// Steps is the number of model calls.
	Steps int `json:"steps"`
	// Tokens sums the model calls' token usage.
	Tokens Tokens `json:"tokens"`
	// CostUSD is the attempt's model spend, USD, from the model's prices (0 when unknown): what its model calls
	// cost, also those replayed from the model cache (ModelCache.SavedUSD of it was not paid this time).
	CostUSD float64 `json:"cost_usd"`
	// ModelCache is the attempt's use of the model cache (--model-cache); nil when the run had none.
	ModelCache *ModelCache `json:"model_cache,omitempty"`
	// DurationMS is the attempt's wall time, ms.
	DurationMS int64 `json:"duration_ms"`
	// RepeatedCalls counts the tool calls that repeat an earlier call of the attempt with the same result
	// (RepeatedCalls); ToolBytes the bytes of tool results sent to the model (ToolResultBytes). Both from the
	// trajectory when the record is concluded (Conclude); nil (absent) in records written before them, which the
	// cost comparisons leave out of these outcomes (CostOutcome.Recorded).
	RepeatedCalls *int   `json:"repeated_calls,omitempty"`
	ToolBytes     *int64 `json:"tool_bytes,omitempty"`
	// CassetteMisses is the number of the attempt's requests a replay found no recorded response for (the
	// URLs are in the trajectory's cassette.misses); nil (absent) when the attempt was not replayed.
	CassetteMisses *int `json:"cassette_misses,omitempty"`
	// GuardEvents counts guard events by guard name.
	GuardEvents map[string]int `json:"guard_events"`
	// Retries is how many times this attempt was retried after infrastructure errors before this record.
	Retries int `json:"retries"`
	// Trajectory is the trajectory file's path relative to the run directory (TrajectoryPath).
	Trajectory string `json:"trajectory,omitempty"`
	// Meta holds suite extras (e.g. WebVoyager's original text before a stale-date shift).
	Meta map[string]any `json:"meta,omitempty"`
	// StartedAt is the attempt's start, RFC 3339.
	StartedAt string `json:"started_at"`
}

// ModelCache is what an attempt replayed from the model cache: its steps marked cached (Step.Cached). Tokens
// and CostUSD of the record count every call, as the attempt would have cost without the cache; these are the
// part not paid.
type ModelCache struct {
	// Replayed is the model calls answered from the cache; the record's other Steps reached the endpoint.
	Replayed int `json:"replayed"`
	// Tokens are the replayed calls' tokens.
	Tokens Tokens `json:"tokens"`
	// SavedUSD is the replayed calls' cost at the model's prices.
	SavedUSD float64 `json:"saved_usd"`
}

// ModelCacheOf is tr's use of the model cache, its replayed steps' count and usage (SavedUSD is the caller's:
// it knows the prices).
func ModelCacheOf(tr *Trajectory) *ModelCache {
	mc := &ModelCache{}
	for _, st := range tr.Steps {
		if st.Cached {
			mc.Replayed++
			mc.Tokens.Prompt += st.Usage.Prompt
			mc.Tokens.Completion += st.Usage.Completion
			mc.Tokens.Estimated = mc.Tokens.Estimated || st.Usage.Estimated
		}
	}
	return mc
}

// PaidUSD is the attempt's model spend this run: CostUSD less what the model cache replayed.
func (a Attempt) PaidUSD() float64 {
	if a.ModelCache == nil {
		return a.CostUSD
	}
	return a.CostUSD - a.ModelCache.SavedUSD
}

// Done reports whether the record is judged pass or fail (the records the pass rates count).
func (a Attempt) Done() bool { return a.Status == StatusPass || a.Status == StatusFail }

// Judged reports whether the agent's attempt is over and a judge decided it or was uncertain (Done, or an error
// of class uncertain): such a record is final for resume and retries, and bench judge re-scores it. Other
// errors are re-run.
func (a Attempt) Judged() bool {
	return a.Done() || a.Status == StatusError && a.ErrorClass == ClassUncertain
}
