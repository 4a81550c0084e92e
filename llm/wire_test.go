package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// completion wraps a message object (JSON) and finish reason in a chat.completion body with usage 10/5.
func completion(message, finish string) string {
	return `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":` +
		message + `,"finish_reason":` + finish + `}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`
}

// Reasoning and refusals of each server's success shape are read, recorded apart from the content, and stripped
// from it.
func TestReasoningShapes(t *testing.T) {
	for _, tc := range []struct {
		name, source, message, finish string
		content, reasoning, from      string
		refusal, finishReason         string
	}{
		{"deepseek reasoning_content", "https://api-docs.deepseek.com/guides/thinking_mode",
			`{"role":"assistant","content":"9.8 is greater.","reasoning_content":"Compare 9.11 and 9.8: 9.8 = 9.80 > 9.11."}`, `"stop"`,
			"9.8 is greater.", "Compare 9.11 and 9.8: 9.8 = 9.80 > 9.11.", "reasoning_content", "", "stop"},
		{"ollama reasoning", "github.com/ollama/ollama@fb30760 openai/openai.go (Message.Reasoning from api.Message.Thinking)",
			`{"role":"assistant","content":"{\"answer\":\"4\"}","reasoning":"2 plus 2 is 4."}`, `"stop"`,
			`{"answer":"4"}`, "2 plus 2 is 4.", "reasoning", "", "stop"},
		{"mistral magistral content array", "https://github.com/spring-projects/spring-ai/issues/5019",
			`{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Reasoning traces..."}]},{"type":"text","text":"{\"answer\":\"Paris\"}"}]}`, `"stop"`,
			`{"answer":"Paris"}`, "Reasoning traces...", "content_array", "", "stop"},
		{"think tags in content", "llama.cpp server --reasoning-format none (tools/server/README.md) with a Qwen3 model: thoughts left in message.content",
			`{"role":"assistant","content":"<think>\nThe page shows the price.\n</think>\n\n{\"answer\":\"$12\"}"}`, `"stop"`,
			`{"answer":"$12"}`, "The page shows the price.", "think_tag", "", "stop"},
		{"closing think tag only", "DeepSeek-R1 distills: the chat template ends the prompt with \"<think>\\n\" (deepseek-ai/DeepSeek-R1 tokenizer_config.json), so the reply starts inside the thought",
			`{"role":"assistant","content":"The user wants the title.\n</think>\n\n{\"answer\":\"Home\"}"}`, `"stop"`,
			`{"answer":"Home"}`, "The user wants the title.", "think_tag", "", "stop"},
		{"reasoning_content and think tags", "llama.cpp server --reasoning-format deepseek-legacy (tools/server/README.md): <think> tags kept in message.content while message.reasoning_content is populated",
			`{"role":"assistant","content":"<think>The title is Home.</think>{\"answer\":\"Home\"}","reasoning_content":"The title is Home."}`, `"stop"`,
			`{"answer":"Home"}`, "The title is Home.", "reasoning_content", "", "stop"},
		{"openai refusal", "https://platform.openai.com/docs/guides/structured-outputs#refusals",
			`{"role":"assistant","content":null,"refusal":"I'm sorry, I cannot assist with that request."}`, `"stop"`,
			"", "", "", "I'm sorry, I cannot assist with that request.", "stop"},
		{"azure content_filter", "https://learn.microsoft.com/azure/ai-services/openai/concepts/content-filter (finish_reason content_filter)",
			`{"role":"assistant","content":null}`, `"content_filter"`, "", "", "", "", "content_filter"},
		{"length, null finish", "vLLM content null", `{"role":"assistant","content":null}`, `null`, "", "", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := replayServer(t, reply{200, "", completion(tc.message, tc.finish)})
			c := newClient(t, rs.URL, 0)
			resp, err := c.Chat(context.Background(), Request{Messages: msgs})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content != tc.content || resp.Reasoning != tc.reasoning || resp.ReasoningFrom != tc.from ||
				resp.Refusal != tc.refusal || resp.FinishReason != tc.finishReason {
				t.Errorf("content %q reasoning %q from %q refusal %q finish %q", resp.Message.Content, resp.Reasoning,
					resp.ReasoningFrom, resp.Refusal, resp.FinishReason)
			}
			if resp.Message.Role != "assistant" || resp.Usage != (Usage{Prompt: 10, Completion: 5}) {
				t.Errorf("role %q usage %+v", resp.Message.Role, resp.Usage)
			}
		})
	}
}

// DeepSeek thinking mode: reasoning_content is sent back on the assistant message that carried it — also when
// it was empty — and the tool result refers to the call's id.
func TestDeepSeekReasoningContentEchoed(t *testing.T) {
	for _, rc := range []string{"", "Need the weather: call get_weather."} {
		rcJSON, _ := json.Marshal(rc)
		msg := `{"role":"assistant","content":"","reasoning_content":` + string(rcJSON) +
			`,"tool_calls":[{"index":0,"id":"call_00_v8b7","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Hangzhou\"}"}}]}`
		rs := replayServer(t, reply{200, "", completion(msg, `"tool_calls"`)}, reply{200, "", okJSON})
		c := newClient(t, rs.URL, 0)
		r1, err := c.Chat(context.Background(), Request{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		if r1.Extra == nil || r1.Extra.ReasoningContent == nil || *r1.Extra.ReasoningContent != rc {
			t.Fatalf("extra %+v", r1.Extra)
		}
		conv := append(append([]openai.ChatCompletionMessage{}, msgs...), r1.Message,
			openai.ChatCompletionMessage{Role: "tool", ToolCallID: r1.Message.ToolCalls[0].ID, Content: "sunny"})
		if _, err := c.Chat(context.Background(), Request{Messages: conv, Extras: map[int]*Extra{1: r1.Extra}}); err != nil {
			t.Fatal(err)
		}
		sent := rs.request(t, 1)["messages"].([]any)
		asst := sent[1].(map[string]any)
		got, ok := asst["reasoning_content"]
		if !ok || got != rc {
			t.Errorf("reasoning_content %q sent back as %v (present %v)", rc, got, ok)
		}
		if tool := sent[2].(map[string]any); tool["tool_call_id"] != "call_00_v8b7" || tool["content"] != "sunny" {
			t.Errorf("tool message %v", tool)
		}
	}
}

// A response without reasoning_content sends none back (the old deepseek-reasoner answered 400 to one).
func TestNoReasoningContentWhenAbsent(t *testing.T) {
	rs := replayServer(t, reply{200, "", okJSON}, reply{200, "", okJSON})
	c := newClient(t, rs.URL, 0)
	r1, err := c.Chat(context.Background(), Request{Messages: msgs})
	if err != nil || r1.Extra != nil {
		t.Fatalf("resp %+v err %v", r1, err)
	}
	conv := append(append([]openai.ChatCompletionMessage{}, msgs...), r1.Message)
	if _, err := c.Chat(context.Background(), Request{Messages: conv, Extras: map[int]*Extra{1: r1.Extra}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := rs.request(t, 1)["messages"].([]any)[1].(map[string]any)["reasoning_content"]; ok {
		t.Errorf("reasoning_content sent: %s", rs.rawRequest(1))
	}
}

// Gemini 3: each tool call's extra_content (google.thought_signature) goes back byte-for-byte on that call.
func TestGeminiThoughtSignatureRoundTrip(t *testing.T) {
	// The shape of https://ai.google.dev/gemini-api/docs/openai#thinking (two parallel calls, the signature on the
	// first as Gemini sends it).
	sig := `{"google":{"thought_signature":"CqQBAdHtim9eGkO0A2vJ4w=="}}`
	msg := `{"role":"assistant","content":null,"tool_calls":[` +
		`{"extra_content":` + sig + `,"function":{"arguments":"{\"location\":\"Paris\"}","name":"get_current_temperature"},"id":"function-call-f3b9ecb3-d55f-4076-98c8-b13e9d1c0e01","type":"function"},` +
		`{"function":{"arguments":"{\"location\":\"London\"}","name":"get_current_temperature"},"id":"function-call-7a1c","type":"function"}]}`
	rs := replayServer(t, reply{200, "", completion(msg, `"tool_calls"`)}, reply{200, "", okJSON})
	c := newClient(t, rs.URL, 0)
	r1, err := c.Chat(context.Background(), Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if r1.Extra == nil || len(r1.Extra.ToolCallFields) != 1 || r1.Extra.ReasoningContent != nil {
		t.Fatalf("extra %+v", r1.Extra)
	}
	conv := append(append([]openai.ChatCompletionMessage{}, msgs...), r1.Message,
		openai.ChatCompletionMessage{Role: "tool", ToolCallID: r1.Message.ToolCalls[0].ID, Content: "20C"},
		openai.ChatCompletionMessage{Role: "tool", ToolCallID: r1.Message.ToolCalls[1].ID, Content: "15C"})
	if _, err := c.Chat(context.Background(), Request{Messages: conv, Extras: map[int]*Extra{1: r1.Extra}}); err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Messages []struct {
			ToolCalls []map[string]json.RawMessage `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(rs.rawRequest(1), &sent); err != nil {
		t.Fatal(err)
	}
	calls := sent.Messages[1].ToolCalls
	if len(calls) != 2 || !bytes.Equal(calls[0]["extra_content"], []byte(sig)) {
		t.Fatalf("tool calls sent back: %s", rs.rawRequest(1))
	}
	if _, ok := calls[1]["extra_content"]; ok {
		t.Errorf("extra_content invented on the second call: %s", rs.rawRequest(1))
	}
	if string(calls[0]["id"]) != `"function-call-f3b9ecb3-d55f-4076-98c8-b13e9d1c0e01"` {
		t.Errorf("id %s", calls[0]["id"])
	}
}

// Tool-call shapes: object arguments (llama.cpp builds that serve them as objects) become a JSON string; ""
// and missing arguments become "{}" and are sent back as "{}"; a missing id is generated and used on both
// sides; a missing type becomes "function".
func TestToolCallNormalisation(t *testing.T) {
	msg := `{"role":"assistant","content":null,"tool_calls":[` +
		`{"id":"call_a","type":"function","function":{"name":"click","arguments":{"selector": "#submit", "n": 1}}},` +
		`{"type":"function","function":{"name":"snapshot","arguments":""}},` +
		`{"function":{"name":"back"}}]}`
	rs := replayServer(t, reply{200, "", completion(msg, `"tool_calls"`)}, reply{200, "", okJSON})
	c := newClient(t, rs.URL, 0)
	r1, err := c.Chat(context.Background(), Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	tcs := r1.Message.ToolCalls
	if len(tcs) != 3 {
		t.Fatalf("tool calls %+v", tcs)
	}
	want := []openai.ToolCall{
		{ID: "call_a", Type: "function", Function: openai.FunctionCall{Name: "click", Arguments: `{"selector":"#submit","n":1}`}},
		{ID: "call_wb_1", Type: "function", Function: openai.FunctionCall{Name: "snapshot", Arguments: "{}"}},
		{ID: "call_wb_2", Type: "function", Function: openai.FunctionCall{Name: "back", Arguments: "{}"}},
	}
	for i := range want {
		if tcs[i].ID != want[i].ID || tcs[i].Type != want[i].Type || tcs[i].Function != want[i].Function || tcs[i].Index != nil {
			t.Errorf("call %d: %+v, want %+v", i, tcs[i], want[i])
		}
	}
	conv := append(append([]openai.ChatCompletionMessage{}, msgs...), r1.Message)
	for _, tc := range tcs {
		conv = append(conv, openai.ChatCompletionMessage{Role: "tool", ToolCallID: tc.ID, Content: "ok"})
	}
	// The caller may also hand back a call whose arguments it left empty: still sent as "{}".
	conv[1].ToolCalls[2].Function.Arguments = ""
	if _, err := c.Chat(context.Background(), Request{Messages: conv}); err != nil {
		t.Fatal(err)
	}
	sent := rs.request(t, 1)["messages"].([]any)
	for i, raw := range sent[1].(map[string]any)["tool_calls"].([]any) {
		call := raw.(map[string]any)
		fn := call["function"].(map[string]any)
		if args, ok := fn["arguments"]; !ok || args != want[i].Function.Arguments || call["id"] != want[i].ID || call["type"] != "function" {
			t.Errorf("sent call %d: %v", i, call)
		}
	}
	for i, id := range []string{"call_a", "call_wb_1", "call_wb_2"} {
		if got := sent[2+i].(map[string]any)["tool_call_id"]; got != id {
			t.Errorf("tool message %d tool_call_id %v, want %s", i, got, id)
		}
	}
	if _, ok := sent[1].(map[string]any)["content"]; ok {
		t.Errorf("empty content sent with tool calls: %v", sent[1])
	}
}

// No usage: tokens estimated from bytes (request body / 4, reply text + reasoning + tool calls / 4) and marked;
// a usage object with zeros is real.
func TestUsageEstimated(t *testing.T) {
	noUsage := `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"0123456789abcdef","reasoning":"thinking","tool_calls":[{"id":"c1","type":"function","function":{"name":"click","arguments":"{\"s\":1}"}}]},"finish_reason":"tool_calls"}]}`
	zero := `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`
	rs := replayServer(t, reply{200, "", noUsage}, reply{200, "", zero})
	c := newClient(t, rs.URL, 0)
	r1, err := c.Chat(context.Background(), Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	wantPrompt := (len(rs.rawRequest(0)) + 3) / 4
	wantCompletion := (len("0123456789abcdef") + len("thinking") + len("click") + len(`{"s":1}`) + 3) / 4
	if r1.Usage != (Usage{Prompt: wantPrompt, Completion: wantCompletion, Estimated: true}) {
		t.Errorf("usage %+v, want %d/%d estimated", r1.Usage, wantPrompt, wantCompletion)
	}
	r2, err := c.Chat(context.Background(), Request{Messages: msgs})
	if err != nil || r2.Usage != (Usage{}) {
		t.Errorf("zero usage: %+v %v", r2.Usage, err)
	}
	if sum := r2.Usage.Add(r1.Usage); !sum.Estimated || sum.Prompt != wantPrompt {
		t.Errorf("sum %+v", sum)
	}
	b, _ := json.Marshal(Usage{Prompt: 1})
	if string(b) != `{"prompt":1,"completion":0}` {
		t.Errorf("usage JSON %s", b)
	}
}

// max_tokens goes in the configured field (by default the host's: max_tokens on loopback; both only when asked for); Config.Omit drops temperature, top_p, seed and
// max_tokens; temperature 0 is sent as 0; a request's temperature overrides the config's.
func TestRequestFields(t *testing.T) {
	f := func(v float32) *float32 { return &v }
	n := 256
	seed := 7
	for _, tc := range []struct {
		name    string
		cfg     Config
		req     Request
		present map[string]any // key → value (numbers as float64)
		absent  []string
	}{
		{"default on a non-OpenAI host: max_tokens alone", Config{MaxTokens: &n}, Request{},
			map[string]any{"max_tokens": 256.0}, []string{"max_completion_tokens", "temperature", "top_p", "seed"}},
		{"both only when asked for", Config{MaxTokens: &n, MaxTokensField: "both"}, Request{},
			map[string]any{"max_tokens": 256.0, "max_completion_tokens": 256.0}, nil},
		{"max_tokens only (Ollama)", Config{MaxTokens: &n, MaxTokensField: "max_tokens"}, Request{},
			map[string]any{"max_tokens": 256.0}, []string{"max_completion_tokens"}},
		{"max_completion_tokens only (OpenAI o-series)", Config{MaxTokens: &n, MaxTokensField: "max_completion_tokens"}, Request{},
			map[string]any{"max_completion_tokens": 256.0}, []string{"max_tokens"}},
		{"zero temperature sent", Config{Temperature: f(0), TopP: f(0.5)}, Request{Seed: &seed},
			map[string]any{"temperature": 0.0, "top_p": 0.5, "seed": 7.0}, nil},
		{"request temperature overrides", Config{Temperature: f(0.7)}, Request{Temperature: f(0)},
			map[string]any{"temperature": 0.0}, nil},
		{"omit all", Config{Temperature: f(0), TopP: f(0.5), MaxTokens: &n, Omit: []string{"temperature", "top_p", "seed", "max_tokens"}},
			Request{Seed: &seed, Temperature: f(0.2)}, map[string]any{"model": "m"},
			[]string{"temperature", "top_p", "seed", "max_tokens", "max_completion_tokens"}},
		{"no_seed", Config{NoSeed: true}, Request{Seed: &seed}, nil, []string{"seed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := replayServer(t, reply{200, "", okJSON})
			cfg := tc.cfg
			cfg.Model, cfg.BaseURL = "m", rs.URL+"/v1"
			c, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			req := tc.req
			req.Messages = msgs
			if _, err := c.Chat(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			body := rs.request(t, 0)
			for k, v := range tc.present {
				if body[k] != v {
					t.Errorf("%s = %v, want %v (body %s)", k, body[k], v, rs.rawRequest(0))
				}
			}
			for _, k := range tc.absent {
				if _, ok := body[k]; ok {
					t.Errorf("%s sent: %s", k, rs.rawRequest(0))
				}
			}
		})
	}
}

// Config.Validate refuses unknown omit fields and max_tokens_field values; New calls it.
func TestConfigValidate(t *testing.T) {
	for _, cfg := range []Config{{Omit: []string{"temp"}}, {MaxTokensField: "max_new_tokens"}, {MaxConnections: -1}} {
		cfg.Model, cfg.BaseURL = "m", "http://127.0.0.1:1/v1"
		if _, err := New(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	ok := Config{Model: "m", BaseURL: "http://127.0.0.1:1/v1", Omit: OmitFields, MaxTokensField: "both", MaxConnections: 2}
	if _, err := New(ok); err != nil {
		t.Errorf("valid config refused: %v", err)
	}
}

// A 2xx body that is not a chat.completion is infra and retried, with its text as the message; an "error"
// object in a 200 body is classified by its code.
func TestMalformedSuccessBodies(t *testing.T) {
	html := `<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>`
	rs := replayServer(t, reply{200, "", html}, reply{200, "", okJSON})
	c := newClient(t, rs.URL, 2)
	c.backoff = 1
	resp, err := c.Chat(context.Background(), Request{Messages: msgs})
	if err != nil || resp.Retries != 1 || resp.Message.Content != "hi" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	for _, tc := range []struct {
		body  string
		class ErrorClass
		msg   string
	}{
		{html, ErrorInfra, "Just a moment...: Checking your browser"},
		{`{"id":"x","object":"chat.completion","choices":[]}`, ErrorInfra, `{"id":"x","object":"chat.completion","choices":[]}`},
		{`{"choices":[{"message":{"role":"assistant","content":42}}]}`, ErrorInfra, `{"choices":[{"message":{"role":"assistant","content":42}}]}`},
		{`{"error":{"message":"Rate limit exceeded: free-models-per-min.","code":429}}`, ErrorRateLimit, "Rate limit exceeded: free-models-per-min."},
		{`{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error"}}`, ErrorContextOverflow, "This model's maximum context length is 8192 tokens."},
		{`{"error":{"message":"upstream failed"}}`, ErrorInfra, "upstream failed"},
	} {
		rs := replayServer(t, reply{200, "", tc.body})
		c := newClient(t, rs.URL, 0)
		c.cfg.Retries = 0
		_, err := c.Chat(context.Background(), Request{Messages: msgs})
		var le *Error
		if !errors.As(err, &le) || le.Class != tc.class || le.Message != tc.msg {
			t.Errorf("body %.40s: error %v", tc.body, err)
		}
	}
}

// Outgoing messages keep go-openai's shapes: multi-part content as an array, names, and a system message with
// empty content still carries "content".
func TestEncodeMessages(t *testing.T) {
	rs := replayServer(t, reply{200, "", okJSON})
	c := newClient(t, rs.URL, 0)
	conv := []openai.ChatCompletionMessage{
		{Role: "system", Content: ""},
		{Role: "user", MultiContent: []openai.ChatMessagePart{{Type: "text", Text: "look"},
			{Type: "image_url", ImageURL: &openai.ChatMessageImageURL{URL: "data:image/png;base64,AA=="}}}},
		{Role: "assistant", Content: "ok", Name: "agent"},
	}
	if _, err := c.Chat(context.Background(), Request{Messages: conv, Tools: []openai.Tool{{Type: "function",
		Function: &openai.FunctionDefinition{Name: "click", Parameters: json.RawMessage(`{"type":"object"}`)}}}}); err != nil {
		t.Fatal(err)
	}
	raw := string(rs.rawRequest(0))
	for _, want := range []string{`{"content":"","role":"system"}`, `"content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]`,
		`{"content":"ok","name":"agent","role":"assistant"}`, `"tools":[{"function":{"name":"click","parameters":{"type":"object"}},"type":"function"}]`} {
		if !strings.Contains(raw, want) {
			t.Errorf("request lacks %s: %s", want, raw)
		}
	}
	both := openai.ChatCompletionMessage{Role: "user", Content: "x", MultiContent: []openai.ChatMessagePart{{Type: "text", Text: "y"}}}
	_, err := c.Chat(context.Background(), Request{Messages: []openai.ChatCompletionMessage{both}})
	var le *Error
	if !errors.As(err, &le) || le.Class != ErrorConfig {
		t.Errorf("Content and MultiContent: %v", err)
	}
}

// The success shapes that already parsed still parse: ids, names and arguments as sent, nothing
// invented to send back (reasoning_content null, annotations and index are not round-tripped).
func TestSuccessShapes(t *testing.T) {
	for _, tc := range []struct {
		name, source, body string
		content            string
		calls              [][3]string // id, name, arguments
	}{
		{"vllm content null, chatcmpl-tool id, reasoning_content null",
			"vLLM ChatCompletionResponse (vllm/entrypoints/openai/protocol.py; tool parsers' random_tool_call_id)",
			`{"id":"chatcmpl-3f2a","object":"chat.completion","created":1,"model":"Qwen/Qwen2.5-7B-Instruct","choices":[{"index":0,"message":{"role":"assistant","reasoning_content":null,"content":null,"tool_calls":[{"id":"chatcmpl-tool-4a5bd1e0","type":"function","function":{"name":"click","arguments":"{\"ref\": \"e12\"}"}}]},"logprobs":null,"finish_reason":"tool_calls","stop_reason":null}],"usage":{"prompt_tokens":500,"total_tokens":520,"completion_tokens":20,"prompt_tokens_details":null},"prompt_logprobs":null}`,
			"", [][3]string{{"chatcmpl-tool-4a5bd1e0", "click", `{"ref": "e12"}`}}},
		{"ollama content empty, index on calls", "github.com/ollama/ollama@fb30760 openai/openai.go (ToolCall with Index, ToChatCompletion)",
			`{"id":"chatcmpl-123","object":"chat.completion","created":1,"model":"qwen3","system_fingerprint":"fp_ollama","choices":[{"index":0,"message":{"role":"assistant","content":"","tool_calls":[{"id":"call_abc123","index":0,"type":"function","function":{"name":"click","arguments":"{\"ref\":\"e12\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":500,"completion_tokens":20,"total_tokens":520}}`,
			"", [][3]string{{"call_abc123", "click", `{"ref":"e12"}`}}},
		{"lm studio without content", "https://lmstudio.ai/docs/app/api/tools (non-streaming tool call response)",
			`{"id":"chatcmpl-gb1t1uqzefudice8ntxd9i","object":"chat.completion","created":1,"model":"qwen2.5-7b-instruct","choices":[{"index":0,"logprobs":null,"finish_reason":"tool_calls","message":{"role":"assistant","tool_calls":[{"id":"365174485","type":"function","function":{"name":"click","arguments":"{\"ref\":\"e12\"}"}}]}}],"usage":{"prompt_tokens":500,"completion_tokens":20,"total_tokens":520}}`,
			"", [][3]string{{"365174485", "click", `{"ref":"e12"}`}}},
		{"anthropic compatibility toolu id, MCP-prefixed name", "https://docs.anthropic.com/en/api/openai-sdk",
			`{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","choices":[{"finish_reason":"tool_calls","index":0,"message":{"content":"I'll click it.","role":"assistant","tool_calls":[{"id":"toolu_01A09q90qw90lq917835lq9","type":"function","function":{"name":"mcp__browser__click","arguments":"{\"ref\":\"e12\"}"}}]}}],"created":1,"model":"claude-sonnet-4-5","object":"chat.completion","usage":{"completion_tokens":20,"prompt_tokens":500,"total_tokens":520}}`,
			"I'll click it.", [][3]string{{"toolu_01A09q90qw90lq917835lq9", "mcp__browser__click", `{"ref":"e12"}`}}},
		{"openai parallel calls, refusal null, annotations", "https://platform.openai.com/docs/guides/function-calling (parallel function calling)",
			`{"id":"chatcmpl-9","object":"chat.completion","created":1,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":null,"annotations":[],"tool_calls":[{"id":"call_12345xyz","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris, France\"}"}},{"id":"call_67890abc","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Bogotá, Colombia\"}"}}]},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":80,"completion_tokens":40,"total_tokens":120},"system_fingerprint":"fp_1"}`,
			"", [][3]string{{"call_12345xyz", "get_weather", `{"location":"Paris, France"}`}, {"call_67890abc", "get_weather", `{"location":"Bogotá, Colombia"}`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := replayServer(t, reply{200, "", tc.body})
			c := newClient(t, rs.URL, 0)
			resp, err := c.Chat(context.Background(), Request{Messages: msgs})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content != tc.content || resp.Extra != nil || resp.FinishReason != "tool_calls" || resp.Usage.Estimated {
				t.Errorf("content %q extra %+v finish %q usage %+v", resp.Message.Content, resp.Extra, resp.FinishReason, resp.Usage)
			}
			if len(resp.Message.ToolCalls) != len(tc.calls) {
				t.Fatalf("tool calls %+v", resp.Message.ToolCalls)
			}
			for i, want := range tc.calls {
				got := resp.Message.ToolCalls[i]
				if got.ID != want[0] || got.Function.Name != want[1] || got.Function.Arguments != want[2] || got.Type != "function" {
					t.Errorf("call %d: %+v, want %v", i, got, want)
				}
			}
		})
	}
}

// The default max tokens field follows the base URL's host: OpenAI and Azure OpenAI read
// max_completion_tokens (their newer models refuse max_tokens), everything else max_tokens (Ollama's
// compatibility docs, https://docs.ollama.com/api/openai-compatibility, list max_tokens and not
// max_completion_tokens; vLLM, llama.cpp, OpenRouter and Groq read max_tokens). An explicit setting wins.
func TestMaxTokensFieldFor(t *testing.T) {
	for _, tc := range []struct{ base, field, want string }{
		{"https://api.openai.com/v1", "", "max_completion_tokens"},
		{"https://myres.openai.azure.com/openai/deployments/gpt4o", "", "max_completion_tokens"},
		{"https://myres.openai.azure.com/openai/v1", "", "max_completion_tokens"},
		{"https://myres.cognitiveservices.azure.com/openai/deployments/gpt4o", "", "max_completion_tokens"},
		{"https://myres.services.ai.azure.com/models", "", "max_tokens"}, // Azure AI model inference, not OpenAI
		{"http://localhost:11434/v1", "", "max_tokens"},
		{"http://127.0.0.1:8000/v1", "", "max_tokens"},
		{"https://openrouter.ai/api/v1", "", "max_tokens"},
		{"https://api.groq.com/openai/v1", "", "max_tokens"},
		{"https://api.openai.com.evil.example/v1", "", "max_tokens"},
		{"https://api.openai.com/v1", "max_tokens", "max_tokens"},
		{"http://localhost:11434/v1", "both", "both"},
	} {
		if got := (Config{BaseURL: tc.base, MaxTokensField: tc.field}).MaxTokensFieldFor(); got != tc.want {
			t.Errorf("%s (field %q): %q, want %q", tc.base, tc.field, got, tc.want)
		}
	}
}

// OpenAI refuses a request carrying both max tokens fields. A loopback server answering exactly that (when
// both are present) with OpenAI's body as quoted in langchain-ai/langgraph#5943 and
// yaroslavyaroslav/OpenAI-sublime-text#65: the default configuration sends one field and succeeds;
// "both", set explicitly, gets the 400 as a config error naming the setting to change.
func TestMaxTokensBothRefused(t *testing.T) {
	const refused = `{"error":{"message":"Setting 'max_tokens' and 'max_completion_tokens' at the same time is not supported.","type":"invalid_request_error","param":"max_tokens","code":"invalid_parameter_combination"}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]json.RawMessage
		_ = json.NewDecoder(r.Body).Decode(&m)
		_, a := m["max_tokens"]
		_, b := m["max_completion_tokens"]
		w.Header().Set("Content-Type", "application/json")
		if a && b {
			w.WriteHeader(400)
			io.WriteString(w, refused)
			return
		}
		io.WriteString(w, okJSON)
	}))
	defer srv.Close()
	n := 300
	for _, field := range []string{"", "max_tokens", "max_completion_tokens"} {
		c, err := New(Config{Model: "gpt-4.1", BaseURL: srv.URL + "/v1", MaxTokens: &n, MaxTokensField: field})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Chat(context.Background(), Request{Messages: msgs}); err != nil {
			t.Errorf("field %q: %v", field, err)
		}
	}
	c, _ := New(Config{Model: "gpt-4.1", BaseURL: srv.URL + "/v1", MaxTokens: &n, MaxTokensField: "both"})
	c.cfg.Retries = 0
	_, err := c.Chat(context.Background(), Request{Messages: msgs})
	var le *Error
	if !errors.As(err, &le) || le.Class != ErrorConfig || le.Code != "invalid_parameter_combination" ||
		!strings.Contains(le.Hint, "max_tokens_field: max_completion_tokens") {
		t.Errorf("both: %v", err)
	}
}
