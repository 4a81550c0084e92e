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

// Verdict is a judge's decision: pass (Pass), fail, uncertain (Uncertain: the answer judge matched its rule
// but the answer also states other candidates or negates the expected item; Pass is false, Reason says why) or
// a judge error (Error: the judge could not decide). Neither an uncertain verdict nor an error is ever a pass;
// reports count both apart from the failures (Outcome).
type Verdict struct {
	Judge     string `json:"judge"`
	Pass      bool   `json:"pass"`
	Uncertain bool   `json:"uncertain,omitempty"`
	Reason    string `json:"reason"`
	Error     string `json:"error,omitempty"`
	// Parts are the verdicts of each judge when several judged together (judge.Compose on a task with a state
	// check and an answer rule: [state, answer], in that order), each without parts of its own; nil for one
	// judge. bench report reads them as the state and answer judges' verdicts on Zoo Q&A tasks.
	Parts []Verdict `json:"parts,omitempty"`
}

// MarshalJSON writes a decided verdict with its "pass"; an uncertain verdict or a judge error has no "pass" key
// at all, so no counter of "pass": false reads it as a failure. Decoding is the default:
// a missing "pass" is false.
func (v Verdict) MarshalJSON() ([]byte, error) {
	type plain Verdict
	if v.Error == "" && !v.Uncertain {
		return json.Marshal(plain(v))
	}
	return json.Marshal(struct {
		Judge     string    `json:"judge"`
		Uncertain bool      `json:"uncertain,omitempty"`
		Reason    string    `json:"reason"`
		Error     string    `json:"error,omitempty"`
		Parts     []Verdict `json:"parts,omitempty"`
	}{v.Judge, v.Uncertain && v.Error == "", v.Reason, v.Error, v.Parts})
}

// Outcome is the verdict as one word: "error" when Error is set, else "uncertain", "pass" or "fail".
func (v Verdict) Outcome() string {
	switch {
	case v.Error != "":
		return "error"
	case v.Uncertain:
		return "uncertain"
	case v.Pass:
		return "pass"
	}
	return "fail"
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
