package results

import "webbench/llm"

// FinishReason is how an attempt's agent loop ended (attempts.jsonl "finish_reason", the trajectory's
// finish.reason; DESIGN.md "The agent"). The agent produces it; the analysis only reads it.
type FinishReason string

// Finish reasons.
const (
	// FinishAnswered: the last reply was a valid final JSON object (or final_recovery recovered one).
	FinishAnswered FinishReason = "answered"
	// FinishEmptyOutput: the last reply had neither text nor tool calls.
	FinishEmptyOutput FinishReason = "empty_output"
	// FinishNonJSONOutput: the last reply was text that is not the final JSON object.
	FinishNonJSONOutput FinishReason = "non_json_output"
	// FinishMaxSteps: the model-call budget (Config.MaxSteps) was spent.
	FinishMaxSteps FinishReason = "max_steps"
	// FinishStalled: Config.StallLimit consecutive iterations had failed calls and no successful action.
	FinishStalled FinishReason = "stalled"
	// FinishErrorBudget: Config.ErrorBudget consecutive tool calls failed.
	FinishErrorBudget FinishReason = "error_budget"
	// FinishTimeout: the attempt's wall-clock budget ran out (or its context was cancelled).
	FinishTimeout FinishReason = "timeout"
	// FinishContextOverflow: the endpoint refused the request as longer than the model's context.
	FinishContextOverflow FinishReason = "context_overflow"
	// FinishForced: a hook force-finished the attempt (AfterModelCaller).
	FinishForced FinishReason = "forced"
	// FinishTruncated: the endpoint cut the last reply off at its token limit (finish_reason "length") and the
	// attempt ended without an answer; the cut-off tool calls of such replies are never executed.
	FinishTruncated FinishReason = "truncated"
	// FinishContentFilter: the endpoint's content filter stopped the reply (finish_reason "content_filter"; its
	// tool calls are not executed) or refused the request (a model-call error of class content_filter: Azure's
	// 400 content_filter, OpenAI's invalid_prompt, OpenRouter's 403 "flagged").
	FinishContentFilter FinishReason = "content_filter"
	// FinishRefusal: the model refused (the message's refusal field, or finish_reason "refusal"); the text is
	// the finish output and the step's refusal.
	FinishRefusal FinishReason = "refusal"
	// FinishModelError: any other model-call error (its class is in the trajectory's finish.error_class).
	FinishModelError FinishReason = "model_error"
	// FinishBrowserClosed: the browser, context or page is gone (infrastructure, not the agent).
	FinishBrowserClosed FinishReason = "browser_closed"
	// FinishAgentCrashed: an external agent's process exited without printing a final JSON answer on its
	// standard output (its exit code is in the trajectory's finish.exit_code).
	FinishAgentCrashed FinishReason = "agent_crashed"
)

// ClassOf maps the class of the model-call error that ended an attempt (the trajectory's finish.error_class)
// to the attempt record's class: infra, rate_limit, config, auth and quota are ClassInfra (not the agent's
// fault; the runner stops the run on the last three before recording anything, see runner.EndpointError),
// agent, context_overflow and content_filter (a moderation layer refused what the agent sent) are ClassAgent;
// "" (no model-call error) and any unknown class map to "".
func ClassOf(c llm.ErrorClass) ErrorClass {
	switch c {
	case llm.ErrorInfra, llm.ErrorRateLimit, llm.ErrorQuota, llm.ErrorAuth, llm.ErrorConfig:
		return ClassInfra
	case llm.ErrorAgent, llm.ErrorContextOverflow, llm.ErrorContentFilter:
		return ClassAgent
	}
	return ""
}

// FailureMode classifies an attempt that did not pass (attempts.jsonl "failure_mode"; DESIGN.md "Failure
// modes"). The empty string is a pass. ClassifyFailure computes it, the most specific mode winning in the
// order the constants are listed.
type FailureMode string

// Failure modes, most specific first.
const (
	// ModeInfra: ended by an infrastructure, rate-limit or endpoint error (config, auth, quota), or the browser
	// went away (not an agent failure).
	ModeInfra FailureMode = "infra"
	// ModeTruncated: ended without an answer after its last reply was cut off at the endpoint's token limit
	// (finish_reason "length"; the cut-off tool calls were not executed).
	ModeTruncated FailureMode = "truncated"
	// ModeContentFilter: the endpoint's content filter stopped the reply (finish_reason "content_filter") or
	// refused the request (error class content_filter); an agent failure, not retried, the run goes on.
	ModeContentFilter FailureMode = "content_filter"
	// ModeAgentCrashed: an external agent's process exited without a final JSON answer on its standard output
	// (finish reason agent_crashed; the error names its exit code and its kept stderr file). An agent failure.
	ModeAgentCrashed FailureMode = "agent_crashed"
	// ModeRefusal: the model refused; its text is the step's refusal and the finish output.
	ModeRefusal FailureMode = "refusal"
	// ModeStaleRefDeadlock: error budget or stall limit spent with ≥3 stale-ref errors among the last 5 results.
	ModeStaleRefDeadlock FailureMode = "stale_ref_deadlock"
	// ModeEmptySnapshot: final ok=false while the last snapshot seen had no interactive ref.
	ModeEmptySnapshot FailureMode = "empty_snapshot"
	// ModeIntercepted: the last failed call was an intercepted click and no action succeeded after it.
	ModeIntercepted FailureMode = "intercepted"
	// ModeHungEvaluate: ended while, or right after, a browser_evaluate that did not return.
	ModeHungEvaluate FailureMode = "hung_evaluate"
	// ModeLoop: ended inside a streak of ≥5 identical or no-op calls.
	ModeLoop FailureMode = "loop"
	// ModeStalled, ModeErrorBudget, ModeMaxSteps, ModeTimeout and ModeContextOverflow repeat the finish reason
	// that ended the attempt when nothing more specific applies.
	ModeStalled         FailureMode = "stalled"
	ModeErrorBudget     FailureMode = "error_budget"
	ModeMaxSteps        FailureMode = "max_steps"
	ModeTimeout         FailureMode = "timeout"
	ModeContextOverflow FailureMode = "context_overflow"
	// ModeModelError: any other model-call error.
	ModeModelError FailureMode = "model_error"
	// ModeNoJSON: empty or non-JSON output, or a forced finish without an answer.
	ModeNoJSON FailureMode = "no_json"
	// ModeGaveUp: the agent answered ok=false.
	ModeGaveUp FailureMode = "gave_up"
	// ModeWrongAnswer: the agent answered ok=true but the judge said no.
	ModeWrongAnswer FailureMode = "wrong_answer"
)
