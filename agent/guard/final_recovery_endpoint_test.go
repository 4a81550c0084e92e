package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"webbench/agent"
	"webbench/browser"
	"webbench/internal/replay"
	"webbench/judge"
	"webbench/llm"
	"webbench/results"

	openai "github.com/sashabaranov/go-openai"
)

// pageBackend is a one-page tool backend: the model endpoint is the part under test here, the page is not.
type pageBackend struct{ calls int }

func (p *pageBackend) Call(context.Context, string, json.RawMessage) browser.Result {
	p.calls++
	return browser.Result{Result: "done"}
}
func (p *pageBackend) Snapshot(bool) (string, error)         { return `- heading "Zoo Notes" [ref=e1]`, nil }
func (p *pageBackend) Observe(b bool) (string, error)        { return p.Snapshot(b) }
func (p *pageBackend) SetSnapshotFilter(func(string) string) {}
func (p *pageBackend) PageInfo() (string, string)            { return "http://zoo.test/notes", "Zoo Notes" }
func (p *pageBackend) CaptureForJudge(int) error             { return nil }
func (p *pageBackend) ToolDefs() []openai.Tool {
	return []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "browser_click",
		Parameters: json.RawMessage(`{"type":"object","properties":{"ref":{"type":"string"}}}`)}}}
}

// finalAnswerShape is a reply carrying the final answer as content (what a model sends when it is done).
func finalAnswerShape() replay.Shape {
	body := `{"id":"chatcmpl-f","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,` +
		`"message":{"role":"assistant","content":"{\"ok\": true, \"final\": \"Zoo Notes\", \"page\": \"http://zoo.test/notes\", \"error\": null}"},` +
		`"finish_reason":"stop"}],"usage":{"prompt_tokens":50,"completion_tokens":20,"total_tokens":70}}`
	return replay.Shape{Name: "final_answer", Provider: "test", Source: "test: a model's final answer",
		Body: json.RawMessage(body), Expect: replay.Expect{Class: replay.ClassOK}}
}

// An ablation of final_recovery on an endpoint whose first reply of each attempt is a provider failure inside
// a 200 (the recorded DeepSeek insufficient_system_resource, OpenRouter finish_reason "error" with
// choices[].error, a gateway's MAX_TOKENS cut) shows no guard effect: the failure is retried as infra (or, for a
// cut answer, ends the attempt as truncated), both arms reach the same outcome, and the guard never fires. The
// endpoint is the replay server on loopback; the page is a stub.
func TestFinalRecoveryAblationOnProviderFailures(t *testing.T) {
	shapes, err := replay.Shapes()
	if err != nil {
		t.Fatal(err)
	}
	shapes = append(shapes, finalAnswerShape())
	for _, tc := range []struct {
		shape  string
		status results.Status
		finish results.FinishReason
	}{
		{"deepseek_200_insufficient_system_resource", results.StatusPass, results.FinishAnswered},
		{"openrouter_200_finish_error", results.StatusPass, results.FinishAnswered},
		{"gateway_200_finish_max_tokens", results.StatusFail, results.FinishTruncated},
	} {
		t.Run(tc.shape, func(t *testing.T) {
			var outcomes []string
			for _, arm := range []struct {
				name  string
				hooks []agent.Hook
			}{{"guard on", []agent.Hook{FinalRecovery{}}}, {"guard off", nil}} {
				srv, err := replay.Start(shapes, replay.Options{Routes: []replay.Route{
					{Model: "m", Call: 1, Shape: tc.shape}, {Model: "m", Shape: "final_answer"}}})
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				client, err := llm.New(llm.Config{Model: "m", BaseURL: srv.URL(), Retries: 2, CallTimeout: 5 * time.Second,
					APIKeyEnv: "REPLAY_TEST_NO_KEY"})
				if err != nil {
					t.Fatal(err)
				}
				ag := agent.New(agent.Config{Hooks: arm.hooks, MaxSteps: 5, Timeout: time.Minute}, client)
				tr, err := ag.Run(context.Background(), agent.Task{ID: "t", Goal: "Give the page's heading."}, &pageBackend{})
				if err != nil {
					t.Fatalf("%s: %v", arm.name, err)
				}
				rec := results.Conclude(results.Attempt{AttemptID: "t-" + strings.ReplaceAll(arm.name, " ", "")}, tr,
					func(a results.Attempt) judge.Verdict { return judge.Verdict{Pass: a.Final == "Zoo Notes"} })
				if rec.Status != tc.status || rec.FinishReason != tc.finish || tr.GuardCounts[NameFinalRecovery] != 0 {
					t.Errorf("%s: status %s finish %s guard events %v (error %q), want %s %s and no guard event", arm.name,
						rec.Status, rec.FinishReason, tr.GuardCounts, rec.Error, tc.status, tc.finish)
				}
				outcomes = append(outcomes, fmt.Sprintf("%s/%s/%s", rec.Status, rec.FinishReason, rec.RecoveredFrom))
			}
			if outcomes[0] != outcomes[1] {
				t.Errorf("guard effect on a provider failure: on %s, off %s", outcomes[0], outcomes[1])
			}
		})
	}
}

// Replies whose tool-call arguments are not one JSON object (Gemini's concatenated parallel calls, a call cut
// at the token limit) are not executed, go back to the endpoint sanitised (the first object, or {}), and are
// marked on their step; the attempt goes on to its answer.
func TestLoopSanitizesArgumentsSentBack(t *testing.T) {
	shapes, err := replay.Shapes()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := replay.Start(append(shapes, finalAnswerShape()), replay.Options{Routes: []replay.Route{
		{Model: "m", Call: 1, Shape: "gemini_concatenated_tool_arguments"}, {Model: "m", Call: 2, Shape: "length_mid_tool_call"},
		{Model: "m", Shape: "final_answer"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client, err := llm.New(llm.Config{Model: "m", BaseURL: srv.URL(), Retries: 0, APIKeyEnv: "REPLAY_TEST_NO_KEY"})
	if err != nil {
		t.Fatal(err)
	}
	page := &pageBackend{}
	tr, err := agent.New(agent.Config{MaxSteps: 5, Timeout: time.Minute}, client).Run(context.Background(),
		agent.Task{ID: "t", Goal: "Give the page's heading."}, page)
	if err != nil {
		t.Fatal(err)
	}
	if page.calls != 0 || len(tr.Steps) != 3 || tr.Finish.Reason != results.FinishAnswered {
		t.Fatalf("%d tool calls executed, %d steps, finish %s", page.calls, len(tr.Steps), tr.Finish.Reason)
	}
	if got := tr.Steps[0].SanitizedArgs; len(got) != 1 || got[0] != "function-call-1" {
		t.Errorf("step 0 sanitized %v", got)
	}
	if got := tr.Steps[1].SanitizedArgs; len(got) != 1 || !tr.Steps[1].Truncated {
		t.Errorf("step 1 sanitized %v truncated %t", got, tr.Steps[1].Truncated)
	}
	if raw := tr.Steps[0].ToolCalls[0].Args; !strings.Contains(raw, "}{") {
		t.Errorf("the trajectory lost the raw arguments: %s", raw)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, want := range map[int]string{1: `"arguments":"{\"element\":\"Add to cart\",\"ref\":\"e12\"}"`, 2: `"arguments":"{}"`} {
		if body := string(reqs[i].Body); !strings.Contains(body, want) || strings.Contains(body, "}{") {
			t.Errorf("request %d lacks %s or carries the raw arguments: %s", i+1, want, body)
		}
	}
	if body := string(reqs[1].Body); !strings.Contains(body, "Not executed: this call's arguments were not one JSON object") {
		t.Errorf("request 2 does not tell the model why the call was not executed: %s", body)
	}
}
