package guard

import (
	"fmt"
	"strings"

	"webbench/agent"
	"webbench/results"

	openai "github.com/sashabaranov/go-openai"
)

// FinalRecovery recovers the answer when the attempt ends without valid JSON (GUARDS.md §3, seed 001 second
// change). On Finish.Reason "empty_output", "non_json_output" or "max_steps" it makes exactly one model call
// (Attempt.Chat) on the whole conversation plus a new user message, with no tools. Tool calls in the reply are
// never executed. A reply that agent.ParseFinal accepts becomes the answer (Reason "answered", Final set,
// RecoveredFrom "empty_output" | "non_json_output" | "max_iterations_reached"; ok is the model's own claim);
// otherwise the outcome is unchanged and Output holds the best text (the reply when it is non-empty, else the
// original output). Other reasons (valid JSON, timeouts, cancellation …) are untouched. Events: "recover"
// (before the call) and one of "answered", "no_json", "tool_call_ignored", "error".
type FinalRecovery struct{}

// NameFinalRecovery is the guard's name in specs, --guards and the records.
const NameFinalRecovery = "final_recovery"

func init() {
	register(NameFinalRecovery, 30, false, func() agent.Hook { return FinalRecovery{} })
}

// Name implements agent.Hook.
func (FinalRecovery) Name() string { return NameFinalRecovery }

// RecoveryPrompt is the user message of the recovery call; it starts with RecoveryPhrase (what the scripted
// policy recognises). RecoveryStepLimitPrefix precedes it after max_steps.
const (
	RecoveryPhrase = "Tools are disabled now"
	RecoveryPrompt = RecoveryPhrase + ". Using only what you have already seen in this conversation, reply " +
		`with the final JSON object {"ok": true|false, "final": "<answer>", "page": "<url>", "error": ` +
		`null|"<reason>"} and nothing else.`
	RecoveryStepLimitPrefix = "The step limit has been reached. "
)

// recoverable maps a finish reason to the recovered_from value.
var recoverable = map[results.FinishReason]string{
	results.FinishEmptyOutput:   "empty_output",
	results.FinishNonJSONOutput: "non_json_output",
	results.FinishMaxSteps:      "max_iterations_reached",
}

// OnFinish implements agent.Finisher.
func (FinalRecovery) OnFinish(a *agent.Attempt, f *agent.Finish) {
	from, ok := recoverable[f.Reason]
	if !ok || f.Final != nil {
		return
	}
	if a.Ctx != nil && a.Ctx.Err() != nil {
		return
	}
	prompt := RecoveryPrompt
	if f.Reason == results.FinishMaxSteps {
		prompt = RecoveryStepLimitPrefix + prompt
	}
	msgs := make([]agent.Message, 0, len(a.Messages)+1)
	msgs = append(msgs, a.Messages...)
	msgs = append(msgs, agent.TextMessage(openai.ChatMessageRoleUser, prompt))
	a.Event(NameFinalRecovery, "recover", "from="+from)
	resp, err := a.Chat(agent.ModelRequest{Messages: msgs, Tools: nil})
	if err != nil {
		a.Event(NameFinalRecovery, "error", err.Error())
		return
	}
	content := resp.Message.Content
	if n := len(resp.Message.ToolCalls); n > 0 {
		a.Event(NameFinalRecovery, "tool_call_ignored", fmt.Sprintf("calls=%d first=%s", n, resp.Message.ToolCalls[0].Function.Name))
	}
	fa, err := agent.ParseFinal(content)
	if err != nil {
		if strings.TrimSpace(content) != "" {
			f.Output = content
		}
		a.Event(NameFinalRecovery, "no_json", fmt.Sprintf("from=%s bytes=%d", from, len(content)))
		return
	}
	f.Final, f.RecoveredFrom, f.Reason, f.Output = fa, from, results.FinishAnswered, content
	a.Event(NameFinalRecovery, "answered", fmt.Sprintf("from=%s ok=%t", from, fa.OK))
}
