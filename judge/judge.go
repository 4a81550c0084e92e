// Package judge turns a finished attempt into a verdict: `state` (the Zoo app's state against the task's
// expected subset), `answer` (the final answer against a reference rule), `llm` (the WebVoyager protocol:
// a model sees the task, the answer and the last screenshots). Judges read trajectories and task references
// only.
package judge

import (
	"context"
	"encoding/json"

	"webbench/suites"
)

// Input is everything a judge may look at.
type Input struct {
	Task suites.Task
	// Final is the agent's final answer text ("" when it gave none); OK is its own claim.
	Final string
	OK    bool
	// State is the app's final state JSON (Zoo), nil elsewhere.
	State json.RawMessage
	// Screenshots are PNG bytes, oldest first (the LLM judge uses the last k).
	Screenshots [][]byte
}

// Verdict is a judge's decision. Error set means the judge could not decide (a judge error, never a pass).
type Verdict struct {
	Judge  string `json:"judge"`
	Pass   bool   `json:"pass"`
	Reason string `json:"reason"`
	Error  string `json:"error,omitempty"`
}

// Judge decides one attempt. An error return is an infrastructure problem of the judge (e.g. its model
// endpoint down); an undecidable answer is a Verdict with Error set.
type Judge interface {
	Name() string
	Judge(ctx context.Context, in Input) (Verdict, error)
}

// Preflighter is a Judge with an endpoint to check before judging anything (the llm judge): Preflight sends
// one small request of the judge's own shape and returns its error (an *llm.Error for an endpoint error).
type Preflighter interface {
	Preflight(ctx context.Context) error
}
