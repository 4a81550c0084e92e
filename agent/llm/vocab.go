package llm

// ErrorClass classifies the error that ended an attempt (the trajectory's finish.error_class): who is at fault.
type ErrorClass string

// Error classes (Error.Class; the trajectory's finish.error_class).
const (
	// ErrorInfra: the harness, the network or the endpoint failed (connection refused, 5xx after retries, a
	// malformed response, the browser gone); not the agent's fault, the attempt is retried.
	ErrorInfra ErrorClass = "infra"
	// ErrorAgent: the agent's own failure (a request the endpoint refused as invalid, the attempt's deadline).
	ErrorAgent ErrorClass = "agent"
	// ErrorQuota: the endpoint refused for quota or billing reasons (infrastructure for the record).
	ErrorQuota ErrorClass = "quota"
	// ErrorContextOverflow: the request was longer than the model's context window.
	ErrorContextOverflow ErrorClass = "context_overflow"
)
