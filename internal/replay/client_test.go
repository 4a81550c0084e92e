package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"webbench/llm"
	"webbench/scripted"
)

// chatTools is the tool list every replayed request carries (the shapes' replies name their own tools; the
// client does not check replies against the list).
var chatTools = []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
	Name: "browser_click", Description: "Click an element",
	Parameters: json.RawMessage(`{"type":"object","properties":{"element":{"type":"string"},"ref":{"type":"string"}}}`)}}}

func chatRequest() llm.Request {
	return llm.Request{Tools: chatTools, Messages: []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "You are a web agent."},
		{Role: openai.ChatMessageRoleUser, Content: "Task: find the title.\n\n- heading \"Zoo Notes\" [ref=e1]"}}}
}

// Outcome is what llm.Client.Chat made of one shape, for the shapes table.
type outcome struct {
	class, detail string
}

// replayOne drives shape sh through a client pointed at s and returns the mismatches against sh.Expect.
func replayOne(t *testing.T, s *Server, sh *Shape) ([]string, outcome) {
	cfg := llm.Config{Model: sh.Name, BaseURL: s.URL(), Retries: 2, CallTimeout: 5 * time.Second, APIKeyEnv: "REPLAY_TEST_NO_KEY"}
	if sh.ServeAt == "root" {
		cfg.BaseURL = s.RootURL()
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Rate limits are retried with waits of Retry-After / estimated_time; a 4 s deadline ends those calls with
	// the class instead of waiting a day (the client gives up when the next wait passes the deadline).
	timeout := 4 * time.Second
	if sh.Expect.Class == ClassOK {
		timeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	resp, err := c.Chat(ctx, chatRequest())
	e := sh.Expect
	var bad []string
	fail := func(format string, a ...any) { bad = append(bad, fmt.Sprintf(format, a...)) }
	if e.Class == ClassOK {
		if err != nil {
			fail("error %v, want a response", err)
			var le *llm.Error
			if errors.As(err, &le) {
				return bad, outcome{string(le.Class), le.Error()}
			}
			return bad, outcome{"error", err.Error()}
		}
		m := resp.Message
		if e.FinishReason != "" && resp.FinishReason != e.FinishReason {
			fail("finish_reason %q, want %q", resp.FinishReason, e.FinishReason)
		}
		if e.Content != nil && strings.TrimSpace(m.Content) != *e.Content {
			fail("content %q, want %q", m.Content, *e.Content)
		}
		if strings.TrimSpace(resp.Reasoning) != e.Reasoning {
			fail("reasoning %q, want %q", resp.Reasoning, e.Reasoning)
		}
		if resp.ReasoningFrom != e.ReasoningFrom {
			fail("reasoning_from %q, want %q", resp.ReasoningFrom, e.ReasoningFrom)
		}
		if resp.Refusal != e.Refusal {
			fail("refusal %q, want %q", resp.Refusal, e.Refusal)
		}
		if len(m.ToolCalls) != len(e.ToolCalls) {
			fail("%d tool calls, want %d", len(m.ToolCalls), len(e.ToolCalls))
		} else {
			for i, w := range e.ToolCalls {
				g := m.ToolCalls[i]
				if w.ID == "generated" {
					if !strings.HasPrefix(g.ID, "call_wb_") {
						fail("tool call %d id %q, want a generated call_wb_…", i, g.ID)
					}
				} else if g.ID != w.ID {
					fail("tool call %d id %q, want %q", i, g.ID, w.ID)
				}
				if g.Function.Name != w.Name {
					fail("tool call %d name %q, want %q", i, g.Function.Name, w.Name)
				}
				if w.Arguments != "*" && !jsonEqual(g.Function.Arguments, w.Arguments) {
					fail("tool call %d arguments %q, want %q", i, g.Function.Arguments, w.Arguments)
				}
			}
		}
		if e.UsageEstimated {
			if !resp.Usage.Estimated || resp.Usage.Prompt <= 0 || resp.Usage.Completion <= 0 {
				fail("usage %+v, want an estimate (Estimated, both counts > 0)", resp.Usage)
			}
		} else if resp.Usage.Estimated {
			fail("usage marked estimated, the reply had usage")
		}
		if e.Usage != nil && (resp.Usage.Prompt != e.Usage.Prompt || resp.Usage.Completion != e.Usage.Completion) {
			fail("usage %d/%d, want %d/%d", resp.Usage.Prompt, resp.Usage.Completion, e.Usage.Prompt, e.Usage.Completion)
		}
		for _, x := range e.Extra {
			switch x {
			case "reasoning_content":
				if resp.Extra == nil || resp.Extra.ReasoningContent == nil {
					fail("no Extra.ReasoningContent (must be sent back)")
				} else if *resp.Extra.ReasoningContent != e.Reasoning {
					fail("Extra.ReasoningContent %q, want %q", *resp.Extra.ReasoningContent, e.Reasoning)
				}
			case "tool_call_fields":
				id := ""
				if len(m.ToolCalls) > 0 {
					id = m.ToolCalls[0].ID
				}
				if resp.Extra == nil || len(resp.Extra.ToolCallFields[id]["extra_content"]) == 0 {
					fail("no Extra.ToolCallFields[%q][extra_content]", id)
				}
			}
		}
		if e.Retries != nil && resp.Retries != *e.Retries {
			fail("retries %d, want %d", resp.Retries, *e.Retries)
		}
		detail := fmt.Sprintf("finish %s, %d calls", resp.FinishReason, len(m.ToolCalls))
		if resp.ReasoningFrom != "" {
			detail += ", reasoning from " + resp.ReasoningFrom
		}
		if resp.Usage.Estimated {
			detail += ", usage estimated"
		}
		if resp.Refusal != "" {
			detail += ", refusal"
		}
		return bad, outcome{"ok", detail}
	}
	if err == nil {
		fail("a response (finish %q), want a %s error", resp.FinishReason, e.Class)
		return bad, outcome{"ok", "no error"}
	}
	var le *llm.Error
	if !errors.As(err, &le) {
		fail("error %T %v, want *llm.Error", err, err)
		return bad, outcome{"?", err.Error()}
	}
	if string(le.Class) != e.Class {
		fail("class %s, want %s", le.Class, e.Class)
	}
	if le.StatusCode != e.Status {
		fail("status %d, want %d", le.StatusCode, e.Status)
	}
	if !strings.Contains(le.Message, e.Message) {
		fail("message %q, want it to contain %q", le.Message, e.Message)
	}
	if e.Type != "" && le.Type != e.Type {
		fail("type %q, want %q", le.Type, e.Type)
	}
	if e.Code != "" && le.Code != e.Code {
		fail("code %q, want %q", le.Code, e.Code)
	}
	if e.Hint != "" && !strings.Contains(le.Hint, e.Hint) {
		fail("hint %q, want it to contain %q", le.Hint, e.Hint)
	}
	if e.WaitMS != nil {
		h := http.Header{}
		for k, v := range sh.Headers {
			h.Set(k, v)
		}
		body := []byte(sh.Body)
		if len(body) == 0 && sh.BodyText != nil {
			body = []byte(*sh.BodyText)
		}
		if got := llm.RetryWait(sh.Status, h, body).Milliseconds(); got != *e.WaitMS {
			fail("wait %d ms, want %d", got, *e.WaitMS)
		}
	}
	if got := le.Class.ExitCode(); got != e.ExitCode {
		fail("exit code %d, want %d", got, e.ExitCode)
	}
	if strings.Contains(le.Error(), "sk-proj-abc") {
		fail("the key in the server's message is not redacted: %s", le.Error())
	}
	return bad, outcome{string(le.Class), le.Error()}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	return reflect.DeepEqual(x, y)
}

// TestClientOverShapes drives every recorded shape through llm.Client.Chat and checks
// class, status, message, type/code, hint, exit code, reasoning, refusal, tool calls, usage and extras. With
// REPLAY_TABLE=<file> it also writes the shape → outcome table.
func TestClientOverShapes(t *testing.T) {
	shapes := loadShapes(t)
	s := start(t, shapes, Options{})
	results := make([]outcome, len(shapes))
	mism := make([][]string, len(shapes))
	t.Run("shapes", func(t *testing.T) {
		for i := range shapes {
			sh := s.Shape(shapes[i].Name)
			t.Run(sh.Name, func(t *testing.T) {
				t.Parallel()
				bad, out := replayOne(t, s, sh)
				results[i], mism[i] = out, bad
				for _, b := range bad {
					t.Error(b)
				}
			})
		}
	})
	if path := os.Getenv("REPLAY_TABLE"); path != "" {
		var b strings.Builder
		for i, sh := range shapes {
			verdict := "as expected"
			if len(mism[i]) > 0 {
				verdict = "MISMATCH: " + strings.Join(mism[i], "; ")
			}
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", sh.Name, results[i].class, strings.ReplaceAll(results[i].detail, "\n", " "), verdict)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestClientEchoesExtras: through the proxy with the deepseek and gemini transforms, the second turn of a
// conversation sends back what the first reply requires (reasoning_content, thought_signature); the server
// answers the provider's 400 otherwise.
func TestClientEchoesExtras(t *testing.T) {
	shapes := loadShapes(t)
	up := start(t, shapes, Options{Routes: []Route{{Shape: "openai_tool_call"}}})
	for _, tr := range []string{"deepseek", "gemini", "deepseek+no_ids", "reasoning+ollama", "vllm+object_args"} {
		t.Run(tr, func(t *testing.T) {
			front := start(t, shapes, Options{Upstream: up.URL(), Transform: tr})
			c, err := llm.New(llm.Config{Model: "any", BaseURL: front.URL(), Retries: 1, CallTimeout: 5 * time.Second, APIKeyEnv: "REPLAY_TEST_NO_KEY"})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			req := chatRequest()
			r1, err := c.Chat(ctx, req)
			if err != nil {
				t.Fatalf("turn 1: %v", err)
			}
			if len(r1.Message.ToolCalls) != 1 {
				t.Fatalf("turn 1: %d tool calls", len(r1.Message.ToolCalls))
			}
			req.Messages = append(req.Messages, r1.Message, openai.ChatCompletionMessage{
				Role: openai.ChatMessageRoleTool, ToolCallID: r1.Message.ToolCalls[0].ID, Content: "clicked"})
			req.Extras = map[int]*llm.Extra{2: r1.Extra}
			if _, err := c.Chat(ctx, req); err != nil {
				t.Errorf("turn 2: %v", err)
			}
			if errs := front.EchoErrors(); len(errs) > 0 {
				t.Errorf("the server saw missing echoes: %v", errs)
			}
			// The second request must carry the tool call id of the first reply on both sides.
			reqs := front.Requests()
			last := string(reqs[len(reqs)-1].Body)
			if id := r1.Message.ToolCalls[0].ID; strings.Count(last, `"`+id+`"`) < 2 {
				t.Errorf("turn 2 body does not carry tool call id %q on the call and the result: %s", id, last)
			}
		})
	}
}

// TestProxyToScriptedPolicy: the replay server in front of the real scripted policy (as cmd/bench starts it)
// under each transform yields a reply the client parses.
func TestProxyToScriptedPolicy(t *testing.T) {
	prof, err := scripted.LoadProfile("clean")
	if err != nil {
		t.Fatal(err)
	}
	pol := scripted.New(nil, prof)
	url, err := pol.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pol.Close() })
	shapes := loadShapes(t)
	for _, tr := range TransformNames() {
		t.Run(tr, func(t *testing.T) {
			front := start(t, shapes, Options{Upstream: url, Transform: tr})
			c, err := llm.New(llm.Config{Model: scripted.ModelName, BaseURL: front.URL(), Retries: 1, CallTimeout: 5 * time.Second, APIKeyEnv: "REPLAY_TEST_NO_KEY"})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Chat(context.Background(), chatRequest())
			if err != nil {
				t.Fatalf("%v", err)
			}
			if front.Count() != 1 || resp.FinishReason == "" {
				t.Errorf("count %d finish %q", front.Count(), resp.FinishReason)
			}
		})
	}
	// Only the listed models are proxied: a mistyped name gets OpenAI's 404, a config error.
	front := start(t, shapes, Options{Upstream: url, UpstreamModels: []string{scripted.ModelName}})
	c, err := llm.New(llm.Config{Model: "scriptd", BaseURL: front.URL(), APIKeyEnv: "REPLAY_TEST_NO_KEY"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), chatRequest())
	var le *llm.Error
	if !errors.As(err, &le) || le.Class != llm.ErrorConfig || le.StatusCode != 404 || !strings.Contains(le.Message, "`scriptd` does not exist") {
		t.Errorf("mistyped model through the proxy: %v", err)
	}
}

// TestClientHonoursRetryAfterAndEstimatedTime: a 429 with Retry-After and a 503 "loading" with estimated_time
// are waited out and retried; the call then succeeds. The bodies are the recorded Azure and Hugging Face ones
// with the wait shortened to 1 s in the header and the body (the recorded shapes ask for 86400 s and 20 s).
func TestClientHonoursRetryAfterAndEstimatedTime(t *testing.T) {
	shapes := loadShapes(t)
	byName := map[string]Shape{}
	for _, s := range shapes {
		byName[s.Name] = s
	}
	azure := byName["azure_429_token_rate_limit"]
	azure.Name, azure.Headers, azure.Then = "azure_429_retry_after_1_then_ok", map[string]string{"Retry-After": "1"}, []string{"openai_tool_call"}
	azure.Body = json.RawMessage(strings.Replace(string(azure.Body), "retry after 86400 seconds", "retry after 1 seconds", 1))
	hf := byName["hf_503_model_loading"]
	loading := `{"error":"Model meta-llama/Llama-2-13b-chat is currently loading","estimated_time":1.0}`
	hf.Name, hf.BodyText, hf.Then = "hf_503_estimated_time_1_then_ok", &loading, []string{"openai_tool_call"}
	s := start(t, append(shapes, azure, hf), Options{})
	for _, name := range []string{azure.Name, hf.Name} {
		t.Run(name, func(t *testing.T) {
			c, err := llm.New(llm.Config{Model: name, BaseURL: s.URL(), Retries: 2, CallTimeout: 5 * time.Second, APIKeyEnv: "REPLAY_TEST_NO_KEY"})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			resp, err := c.Chat(context.Background(), chatRequest())
			if err != nil {
				t.Fatalf("%v", err)
			}
			if el := time.Since(start); el < 950*time.Millisecond || resp.Retries != 1 {
				t.Errorf("retries %d after %v, want 1 retry after waiting ≥ 1 s", resp.Retries, el)
			}
		})
	}
}

// TestClientSendsNormalisedToolCallsBack: a reply's tool call with arguments "" comes back as "{}", and one
// without id comes back with the generated id on the call and on the tool result.
func TestClientSendsNormalisedToolCallsBack(t *testing.T) {
	shapes := loadShapes(t)
	for _, tc := range []struct{ shape, want string }{
		{"empty_arguments", `"arguments":"{}"`},
		{"missing_tool_call_id", `"call_wb_`},
		{"llamacpp_object_arguments", `"arguments":"{\"format\":\"celsius\",\"location\":\"New York\"}"`},
		// Concatenated objects go back as the first one, cut arguments as {}: what every server parses.
		{"gemini_concatenated_tool_arguments", `"arguments":"{\"element\":\"Add to cart\",\"ref\":\"e12\"}"`},
		{"length_mid_tool_call", `"arguments":"{}"`},
	} {
		t.Run(tc.shape, func(t *testing.T) {
			s := start(t, shapes, Options{Routes: []Route{{Call: 1, Shape: tc.shape}, {Shape: "openai_refusal"}}})
			c, err := llm.New(llm.Config{Model: "m", BaseURL: s.URL(), Retries: 1, CallTimeout: 5 * time.Second, APIKeyEnv: "REPLAY_TEST_NO_KEY"})
			if err != nil {
				t.Fatal(err)
			}
			req := chatRequest()
			r1, err := c.Chat(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			req.Messages = append(req.Messages, r1.Message, openai.ChatCompletionMessage{
				Role: openai.ChatMessageRoleTool, ToolCallID: r1.Message.ToolCalls[0].ID, Content: "done"})
			req.Extras = map[int]*llm.Extra{2: r1.Extra}
			if _, err := c.Chat(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			reqs := s.Requests()
			body := string(reqs[len(reqs)-1].Body)
			if !strings.Contains(body, tc.want) {
				t.Errorf("turn 2 body lacks %s: %s", tc.want, body)
			}
			if id := r1.Message.ToolCalls[0].ID; id == "" || strings.Count(body, `"`+id+`"`) < 2 {
				t.Errorf("tool call id %q not on both the call and the result: %s", id, body)
			}
		})
	}
}

func TestEmbeddedShapesMatchTestdata(t *testing.T) {
	emb, err := Shapes()
	if err != nil {
		t.Fatal(err)
	}
	if dir := loadShapes(t); len(emb) != len(dir) {
		t.Errorf("%d embedded shapes, %d in testdata", len(emb), len(dir))
	}
}

// TestClientDropsRefusedEcho: LiteLLM in front of a Mistral model returns reasoning_content, and Mistral
// refuses it back with 422 extra_forbidden (transforms litellm_reasoning+strict_history). Under a model alias
// that does not say Mistral, the client retries that turn once without the field, succeeds, and sends it no
// more; under a Mistral model name it never sends it. A replayed call with arguments that are not JSON never
// reaches the server as such.
func TestClientDropsRefusedEcho(t *testing.T) {
	shapes := loadShapes(t)
	up := start(t, shapes, Options{Routes: []Route{{Shape: "openai_tool_call"}}})
	for _, tc := range []struct {
		model    string
		statuses []int
		off      string
	}{
		// Turn 1; turn 2 refused then retried without the field; turn 3 without it from the start.
		{"team-default-model", []int{200, 422, 200, 200}, "reasoning_content: the endpoint refused it (HTTP 422)"},
		{"mistral/mistral-medium-latest", []int{200, 200, 200}, "reasoning_content: Mistral refuses fields"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			front := start(t, shapes, Options{Upstream: up.URL(), Transform: "litellm_reasoning+strict_history"})
			c, err := llm.New(llm.Config{Model: tc.model, BaseURL: front.URL(), Retries: 1,
				CallTimeout: 5 * time.Second, APIKeyEnv: "REPLAY_TEST_NO_KEY"})
			if err != nil {
				t.Fatal(err)
			}
			req := chatRequest()
			for turn := 1; turn <= 3; turn++ {
				r, err := c.Chat(context.Background(), req)
				if err != nil {
					t.Fatalf("turn %d: %v", turn, err)
				}
				if r.Extra == nil || r.Extra.ReasoningContent == nil {
					t.Fatalf("turn %d: no reasoning_content in the reply", turn)
				}
				n := len(req.Messages)
				req.Messages = append(req.Messages, r.Message, openai.ChatCompletionMessage{
					Role: openai.ChatMessageRoleTool, ToolCallID: r.Message.ToolCalls[0].ID, Content: "clicked"})
				if req.Extras == nil {
					req.Extras = map[int]*llm.Extra{}
				}
				req.Extras[n] = r.Extra
			}
			var statuses []int
			for _, r := range front.Requests() {
				statuses = append(statuses, r.Status)
				if r.Status == 200 && strings.Contains(string(r.Body), `"reasoning_content"`) {
					t.Errorf("request %d answered 200 with reasoning_content sent", r.N)
				}
			}
			if !reflect.DeepEqual(statuses, tc.statuses) {
				t.Errorf("statuses %v, want %v", statuses, tc.statuses)
			}
			if off := c.EchoesOff(); len(off) != 1 || !strings.HasPrefix(off[0], tc.off) {
				t.Errorf("EchoesOff %q, want %q…", off, tc.off)
			}
		})
	}
	// A malformed call in the history is sanitised before it is sent.
	front := start(t, shapes, Options{Upstream: up.URL(), Transform: "strict_history"})
	c, _ := llm.New(llm.Config{Model: "m", BaseURL: front.URL(), Retries: 0, APIKeyEnv: "REPLAY_TEST_NO_KEY"})
	if _, err := c.Chat(context.Background(), chatRequest()); err != nil { // arms the strict checks
		t.Fatal(err)
	}
	bad := chatRequest()
	bad.Messages = append(bad.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant,
		ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "browser_click",
			Arguments: `{"ref":"e12"}{"ref":"e13"}`}}}},
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: "c1", Content: "not executed"})
	if _, err := c.Chat(context.Background(), bad); err != nil {
		t.Errorf("sanitised history refused: %v", err)
	}
}

// TestStrictServerRefusesWhatItShould: the strict_history server answers the recorded refusals to raw
// requests, so the client tests above cannot pass by a server that accepts everything.
func TestStrictServerRefusesWhatItShould(t *testing.T) {
	shapes := loadShapes(t)
	up := start(t, shapes, Options{Routes: []Route{{Shape: "openai_tool_call"}}})
	front := start(t, shapes, Options{Upstream: up.URL(), Transform: "strict_history"})
	post(t, front.URL(), "m", []map[string]any{{"role": "user", "content": "hi"}}) // arms the strict checks
	for _, tc := range []struct {
		msg    map[string]any
		status int
		want   string
	}{
		{map[string]any{"role": "assistant", "content": "x", "reasoning_content": "r"}, 422, "extra_forbidden"},
		{map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "c", "type": "function",
			"function": map[string]any{"name": "f", "arguments": `{"a":1}{"a":2}`}}}}, 400, "Extra data: line 1 column 8 (char 7)"},
		{map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "c", "type": "function",
			"function": map[string]any{"name": "f", "arguments": `{"a":1}`}}}}, 200, ""},
	} {
		st, _, body := post(t, front.URL(), "m", []map[string]any{{"role": "user", "content": "hi"}, tc.msg})
		if st != tc.status || !strings.Contains(string(body), tc.want) {
			t.Errorf("%v: %d %s, want %d with %q", tc.msg, st, body, tc.status, tc.want)
		}
	}
}

// endpointsDoc is the generated table of what webbench makes of every recorded shape (docs/ENDPOINTS.md).
const endpointsDoc = "../../docs/ENDPOINTS.md"

// runConsequence is what a bench run does with a reply of class c (finish for ok replies).
func runConsequence(class, finish string) string {
	switch class {
	case ClassOK:
		switch finish {
		case "length":
			return "the agent reads it; a reply cut at the token limit is not executed (truncated when no answer follows)"
		case "content_filter":
			return "the attempt ends with failure_mode content_filter; the run goes on"
		}
		return "the agent reads the reply"
	case "config":
		return "the run stops before recording an agent failure; fix the model settings and re-run to resume"
	case "auth", "quota":
		return "the run stops; fix the key or the account and re-run to resume"
	case "rate_limit", "infra":
		return "retried (waits honoured); still failing, the attempt is an infrastructure error, not the agent's"
	case "context_overflow":
		return "the attempt fails (context_overflow); on an attempt's first call the run stops as a config error"
	case "agent":
		return "the attempt fails (model_error); the run goes on"
	case "content_filter":
		return "the attempt fails (content_filter); the run goes on"
	}
	return ""
}

// TestEndpointsTable drives every recorded shape through the client one at a time and checks that
// docs/ENDPOINTS.md is the table they make: server, shape, status, class, what the user sees, what the run
// does, exit code. WEBBENCH_UPDATE_DOCS=1 rewrites the file instead (go generate ./internal/replay).
func TestEndpointsTable(t *testing.T) {
	shapes := loadShapes(t)
	s := start(t, shapes, Options{})
	sort.SliceStable(shapes, func(i, j int) bool {
		if shapes[i].Provider != shapes[j].Provider {
			return shapes[i].Provider < shapes[j].Provider
		}
		return shapes[i].Name < shapes[j].Name
	})
	var b strings.Builder
	b.WriteString("# What webbench makes of real endpoints' replies\n\n" +
		"Generated from the recorded shapes in `internal/replay/testdata/shapes` (each with its source) by\n" +
		"`TestEndpointsTable`; do not edit: `go generate ./internal/replay` rewrites it, and the test fails when it\n" +
		"drifts. \"What the user sees\" is the client's error line (`<base>` is the configured base URL) or what it\n" +
		"read of a successful reply; the exit code is the one a run stopped by that reply ends with.\n\n" +
		"| Server / gateway | Shape | HTTP | Class | What the user sees | What the run does | Exit |\n" +
		"|---|---|---|---|---|---|---|\n")
	cell := func(x string) string {
		x = strings.NewReplacer(s.URL(), "<base>", s.RootURL(), "<base>", "|", "\\|", "\n", " ").Replace(x)
		if r := []rune(x); len(r) > 300 {
			x = string(r[:300]) + "…"
		}
		return x
	}
	for i := range shapes {
		sh := s.Shape(shapes[i].Name)
		bad, out := replayOne(t, s, sh)
		for _, m := range bad {
			t.Errorf("%s: %s", sh.Name, m)
		}
		status := sh.Status
		if status == 0 {
			status = 200
		}
		exit := 0
		if out.class != ClassOK {
			exit = llm.ErrorClass(out.class).ExitCode()
		}
		fmt.Fprintf(&b, "| %s | `%s` | %d | %s | %s | %s | %d |\n", sh.Provider, sh.Name, status, out.class,
			cell(out.detail), runConsequence(out.class, sh.Expect.FinishReason), exit)
	}
	if os.Getenv("WEBBENCH_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(endpointsDoc, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(endpointsDoc)
	if err != nil {
		t.Fatalf("%v (go generate ./internal/replay writes it)", err)
	}
	if string(got) != b.String() {
		t.Errorf("%s is not the table the recorded shapes make: go generate ./internal/replay", endpointsDoc)
	}
}
