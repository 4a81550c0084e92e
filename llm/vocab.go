package llm

import "errors"

// ErrorClass classifies the error that ended a model call or an attempt (the trajectory's finish.error_class):
// who is at fault and what the run does about it.
type ErrorClass string

// Error classes (Error.Class; the trajectory's finish.error_class). The client assigns the endpoint classes from the
// HTTP status and the error body (see classify.go for the rules and the servers they were taken from).
const (
	// ErrorConfig: the run is misconfigured for this endpoint — model not found (404 "model does not exist",
	// Ollama's "not found, try pulling it first"), a route not found (a base URL without /v1), a 400/422 invalid
	// request that is not a context overflow, an unsupported parameter. Not retried; the run stops (exit 2).
	ErrorConfig ErrorClass = "config"
	// ErrorAuth: the endpoint refused the credentials (401, 403; a 4xx naming a bad key: Gemini's 400
	// API_KEY_INVALID, xAI's 400 "Incorrect API key provided"). Not retried; the run stops (exit 3).
	ErrorAuth ErrorClass = "auth"
	// ErrorQuota: the account is out of quota, credit or budget (402; a quota code or type, or a phrase of the
	// sourced tables in phrases.go), has hit a daily limit (Groq's TPD, OpenRouter's free-models-per-day,
	// Cloudflare's daily free allocation, a 429 asking to wait longer than the client ever waits), or sent a
	// request larger than its tokens-per-minute limit ("Request too large … on tokens per min", which no wait
	// fixes); also a 429 whose words are about the account and not a rate. Not retried; the run stops (exit 3).
	ErrorQuota ErrorClass = "quota"
	// ErrorRateLimit: the endpoint asked to slow down or is not ready (429 otherwise, 503 "model is loading",
	// 529 overloaded). Retried honouring Retry-After and a body's estimated_time; when the retries are used up
	// the call fails with this class and the attempt counts as an infrastructure error.
	ErrorRateLimit ErrorClass = "rate_limit"
	// ErrorContextOverflow: the request was longer than the model's context window (every server's wording,
	// see overflowMarkers). Not retried; an agent failure (failure_mode context_overflow).
	ErrorContextOverflow ErrorClass = "context_overflow"
	// ErrorInfra: the harness, the network or the endpoint failed (connection refused, timeouts, 5xx, a
	// malformed success body, a provider failure reported inside a 200 — DeepSeek's finish_reason
	// insufficient_system_resource, OpenRouter's finish_reason "error" —, the browser gone); not the agent's
	// fault. Retried.
	ErrorInfra ErrorClass = "infra"
	// ErrorAgent: the agent's own failure (the attempt's deadline; failure_mode model_error when the model's
	// output was unusable). The client assigns it to Groq's 400 tool_use_failed ("Failed to call a function.
	// Please adjust your prompt."): the model emitted a malformed tool call; and to a server refusing a replayed
	// tool call's unparseable arguments (llama.cpp's 500, vLLM's 400 "Extra data"). Not retried, not fatal.
	ErrorAgent ErrorClass = "agent"
	// ErrorContentFilter: a moderation layer or guardrail refused the request's content — the prompt or the page
	// text the agent read — in any status (Azure OpenAI 400 code content_filter / ResponsibleAIPolicyViolation,
	// OpenAI 400 invalid_prompt, OpenRouter 403 "input was flagged", LiteLLM's "Violated guardrail policy"). Neither the
	// configuration's fault nor retried: the attempt ends with failure_mode content_filter and the run goes on
	// (Fatal false, ExitCode 0).
	ErrorContentFilter ErrorClass = "content_filter"
)

// Fatal reports whether an error of class c must stop the whole run at once: config, auth and quota errors
// fail every later call the same way.
func (c ErrorClass) Fatal() bool {
	switch c {
	case ErrorConfig, ErrorAuth, ErrorQuota:
		return true
	}
	return false
}

// ExitCode is the process exit code of a run stopped by an error of class c: 2 for config, 3 for auth and
// quota, 0 for the classes that do not stop a run.
func (c ErrorClass) ExitCode() int {
	switch c {
	case ErrorConfig:
		return 2
	case ErrorAuth, ErrorQuota:
		return 3
	}
	return 0
}

// Retryable reports whether Chat retries a call that failed with class c (rate_limit and infra).
func (c ErrorClass) Retryable() bool { return c == ErrorRateLimit || c == ErrorInfra }

// FatalError is err's *Error when its class stops runs (ErrorClass.Fatal), else nil.
func FatalError(err error) *Error {
	var le *Error
	if errors.As(err, &le) && le.Class.Fatal() {
		return le
	}
	return nil
}
