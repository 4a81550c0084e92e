package guard

import (
	"context"
	"errors"
	"testing"
	"time"

	"webbench/agent"
	"webbench/browser"
	"webbench/results"

	openai "github.com/sashabaranov/go-openai"
)

// fakeChat records every request and answers with reply.
type fakeChat struct {
	reqs  []agent.ModelRequest
	reply openai.ChatCompletionMessage
	err   error
}

func (f *fakeChat) chat(_ context.Context, req agent.ModelRequest) (*agent.ModelResponse, error) {
	f.reqs = append(f.reqs, req)
	if f.err != nil {
		return nil, f.err
	}
	return &agent.ModelResponse{Message: f.reply, FinishReason: "stop"}, nil
}

func recoveryAttempt(fc *fakeChat) *agent.Attempt {
	a := agent.NewAttempt(context.Background(), "Allrecipes--0", "find a recipe", nil, time.Now().Add(time.Minute), fc.chat)
	a.Messages = []agent.Message{
		agent.TextMessage(openai.ChatMessageRoleSystem, "system prompt"),
		agent.TextMessage(openai.ChatMessageRoleUser, "Task: find a recipe"),
		{ChatCompletionMessage: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function",
			Function: openai.FunctionCall{Name: "browser_evaluate", Arguments: `{"function":"() => 'ok'"}`}}}}},
		{ChatCompletionMessage: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: "c1"},
			Observation: &browser.Result{Result: "\"ok\""}},
	}
	return a
}

const answerJSON = `{"ok": true, "final": "4.6 stars, 117 ratings, serves 6", "page": "https://www.allrecipes.com/r/1", "error": null}`

func TestFinalRecoveryEmptyOutput(t *testing.T) {
	fc := &fakeChat{reply: openai.ChatCompletionMessage{Role: "assistant", Content: answerJSON}}
	a := recoveryAttempt(fc)
	f := &agent.Finish{Reason: "empty_output", Output: ""}
	FinalRecovery{}.OnFinish(a, f)
	if len(fc.reqs) != 1 {
		t.Fatalf("%d model calls, want exactly 1", len(fc.reqs))
	}
	req := fc.reqs[0]
	if req.Tools != nil || len(req.SystemSections) != 0 {
		t.Fatalf("tools %v sections %v", req.Tools, req.SystemSections)
	}
	if len(req.Messages) != len(a.Messages)+1 {
		t.Fatalf("messages %d, want the conversation (%d) plus one", len(req.Messages), len(a.Messages))
	}
	for i := range a.Messages {
		if req.Messages[i].Text() != a.Messages[i].Text() || req.Messages[i].Role != a.Messages[i].Role {
			t.Fatalf("message %d differs", i)
		}
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != openai.ChatMessageRoleUser || last.Content != RecoveryPrompt {
		t.Fatalf("last message %+v", last)
	}
	if f.Reason != "answered" || f.RecoveredFrom != "empty_output" || f.Final == nil || !f.Final.OK ||
		f.Final.Final != "4.6 stars, 117 ratings, serves 6" || f.Output != answerJSON {
		t.Fatalf("finish %+v final %+v", f, f.Final)
	}
	if len(a.Messages) != 4 {
		t.Fatal("the attempt's conversation must not be modified")
	}
}

func TestFinalRecoveryMaxStepsToolCallNotExecuted(t *testing.T) {
	// The model still emits a tool call (and no text): nothing is executed, the outcome stays max_steps.
	fc := &fakeChat{reply: openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "c9",
		Type: "function", Function: openai.FunctionCall{Name: "browser_evaluate", Arguments: `{"function":"() => 'ok'"}`}}}}}
	a := recoveryAttempt(fc)
	f := &agent.Finish{Reason: "max_steps", Output: "last words"}
	FinalRecovery{}.OnFinish(a, f)
	if len(fc.reqs) != 1 {
		t.Fatalf("%d model calls", len(fc.reqs))
	}
	if got := fc.reqs[0].Messages[len(fc.reqs[0].Messages)-1].Content; got != RecoveryStepLimitPrefix+RecoveryPrompt {
		t.Fatalf("prompt %q", got)
	}
	if f.Reason != "max_steps" || f.Final != nil || f.RecoveredFrom != "" || f.Output != "last words" {
		t.Fatalf("finish %+v", f)
	}
	var actions []string
	for _, e := range a.Events() {
		actions = append(actions, e.Action)
	}
	if len(actions) != 3 || actions[0] != "recover" || actions[1] != "tool_call_ignored" || actions[2] != "no_json" {
		t.Fatalf("events %v", actions)
	}

	// A tool call next to a valid JSON answer: the answer is taken, the call is still not executed.
	fc = &fakeChat{reply: openai.ChatCompletionMessage{Role: "assistant", Content: "```json\n" + `{"ok": false, "final": "", "page": "u", "error": "not found"}` + "\n```",
		ToolCalls: []openai.ToolCall{{ID: "c9", Type: "function", Function: openai.FunctionCall{Name: "browser_click"}}}}}
	a = recoveryAttempt(fc)
	f = &agent.Finish{Reason: "max_steps"}
	FinalRecovery{}.OnFinish(a, f)
	if f.Reason != "answered" || f.RecoveredFrom != "max_iterations_reached" || f.Final == nil || f.Final.OK ||
		f.Final.Error == nil || *f.Final.Error != "not found" {
		t.Fatalf("finish %+v", f)
	}
}

func TestFinalRecoveryNonJSONReplyLeavesOutcome(t *testing.T) {
	fc := &fakeChat{reply: openai.ChatCompletionMessage{Role: "assistant", Content: "The recipe has **4.6 stars**."}}
	a := recoveryAttempt(fc)
	f := &agent.Finish{Reason: "non_json_output", Output: "Here is what I found: 4.6 stars"}
	FinalRecovery{}.OnFinish(a, f)
	if len(fc.reqs) != 1 || f.Reason != "non_json_output" || f.Final != nil || f.RecoveredFrom != "" {
		t.Fatalf("finish %+v", f)
	}
	if f.Output != "The recipe has **4.6 stars**." {
		t.Fatalf("best text %q", f.Output)
	}
	// An empty reply keeps the original text.
	fc = &fakeChat{reply: openai.ChatCompletionMessage{Role: "assistant", Content: "  "}}
	a = recoveryAttempt(fc)
	f = &agent.Finish{Reason: "non_json_output", Output: "prose"}
	FinalRecovery{}.OnFinish(a, f)
	if f.Output != "prose" || f.Reason != "non_json_output" {
		t.Fatalf("finish %+v", f)
	}
	// A failing model call leaves everything as it was.
	fc = &fakeChat{err: errors.New("boom")}
	a = recoveryAttempt(fc)
	f = &agent.Finish{Reason: "empty_output"}
	FinalRecovery{}.OnFinish(a, f)
	if len(fc.reqs) != 1 || f.Reason != "empty_output" || f.Final != nil {
		t.Fatalf("finish %+v", f)
	}
}

func TestFinalRecoveryOtherReasonsUntouched(t *testing.T) {
	for _, reason := range []results.FinishReason{"answered", "timeout", "stalled", "error_budget", "context_overflow", "forced", "model_error"} {
		fc := &fakeChat{reply: openai.ChatCompletionMessage{Content: answerJSON}}
		a := recoveryAttempt(fc)
		f := &agent.Finish{Reason: reason, Output: "x"}
		FinalRecovery{}.OnFinish(a, f)
		if len(fc.reqs) != 0 || f.Reason != reason || f.Output != "x" || f.Final != nil {
			t.Errorf("%s: calls %d finish %+v", reason, len(fc.reqs), f)
		}
	}
	// A cancelled attempt makes no call.
	fc := &fakeChat{reply: openai.ChatCompletionMessage{Content: answerJSON}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := agent.NewAttempt(ctx, "t", "g", nil, time.Now().Add(time.Minute), fc.chat)
	f := &agent.Finish{Reason: "empty_output"}
	FinalRecovery{}.OnFinish(a, f)
	if len(fc.reqs) != 0 || f.Reason != "empty_output" {
		t.Fatalf("cancelled: calls %d finish %+v", len(fc.reqs), f)
	}
}
