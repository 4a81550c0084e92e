package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"webbench/llm"
	"webbench/scripted"
)

// The scripted policy (as bench run serves it, on loopback) answers the preflight with the preflight tool's
// call and reports usage: tools, seed and usage all confirmed, nothing to note.
func TestPreflightScripted(t *testing.T) {
	srv := scripted.New(nil, scripted.Profile{})
	url, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := llm.New(llm.Config{Model: "scripted", BaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	caps, err := c.Preflight(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !caps.Tools || !caps.Seed || !caps.Usage || caps.ReasoningField != "" || caps.MaxTokensField != "" ||
		caps.Model != "scripted" || len(caps.Notes) != 0 {
		t.Errorf("capabilities %+v", caps)
	}
}

// recorder is a loopback endpoint answering each request with the next of its replies (the last repeats) and
// keeping the request bodies.
type recorder struct {
	mu      sync.Mutex
	bodies  []map[string]any
	replies []reply
}

type reply struct {
	status int
	body   string
}

func (r *recorder) start(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		r.mu.Lock()
		r.bodies = append(r.bodies, m)
		rep := r.replies[min(len(r.bodies), len(r.replies))-1]
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		io.WriteString(w, rep.body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// Reply bodies, each from its source.
const (
	// DeepSeek thinking mode: reasoning_content beside the tool call, as in DeepSeek's docs
	// (https://api-docs.deepseek.com/guides/thinking_mode, "Tool Calls" example), here without usage, as some
	// compatibility layers answer.
	deepseekToolNoUsage = `{"id":"d1","object":"chat.completion","model":"deepseek-reasoner","choices":[{"index":0,"message":{"role":"assistant","content":"","reasoning_content":"The user wants the tool called with ok true.","tool_calls":[{"index":0,"id":"call_00_x","type":"function","function":{"name":"webbench_preflight","arguments":"{\"ok\":true}"}}]},"finish_reason":"tool_calls"}]}`
	// A model without tool support answering in prose (content only, finish_reason stop): the OpenAI
	// chat.completion object of https://platform.openai.com/docs/api-reference/chat/object.
	proseOnly = `{"id":"p1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{\"ok\": true}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":60,"completion_tokens":6,"total_tokens":66}}`
	okTool    = `{"id":"o1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"webbench_preflight","arguments":"{\"ok\":true}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":60,"completion_tokens":9,"total_tokens":69}}`
	// OpenAI's reasoning models refusing a temperature, as quoted in microsoft/vscode#253673 and
	// owndev/Open-WebUI-Functions#98.
	temperatureRejected = `{"error":{"message":"Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`
	// Azure AI Foundry (Mistral-Large) refusing a seed, as quoted in langchain-ai/langchain-azure#82.
	seedRejected = `{"detail":[{"type":"extra_forbidden","loc":["body","seed"],"msg":"Extra inputs are not permitted","input":123}]}`
	// OpenAI's 404 for a model name that does not exist, as quoted in openai/openai-agents-python#458.
	modelNotFound = `{"error":{"message":"The model ` + "`gpt-4o-mini-typo`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`
)

// A reasoning model's reply: tools confirmed, the reasoning field named, missing usage noted.
func TestPreflightReasoningWithoutUsage(t *testing.T) {
	r := &recorder{replies: []reply{{200, deepseekToolNoUsage}}}
	c, err := llm.New(llm.Config{Model: "deepseek-reasoner", BaseURL: r.start(t)})
	if err != nil {
		t.Fatal(err)
	}
	caps, err := c.Preflight(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !caps.Tools || caps.Usage || caps.ReasoningField != "reasoning_content" || len(caps.Notes) != 1 ||
		!strings.Contains(caps.Notes[0], "no usage") {
		t.Errorf("capabilities %+v", caps)
	}
	// The request: one tool, a seed, and no completion cap, as the run (no max_tokens configured) sends none.
	b := r.bodies[0]
	_, mt := b["max_tokens"]
	_, mct := b["max_completion_tokens"]
	if tools, _ := b["tools"].([]any); len(tools) != 1 || b["seed"] == nil || mt || mct || caps.MaxTokensField != "" {
		t.Errorf("request %v", b)
	}
}

// A prose reply: no tool call, said so.
func TestPreflightNoToolCall(t *testing.T) {
	r := &recorder{replies: []reply{{200, proseOnly}}}
	n := 2048
	c, _ := llm.New(llm.Config{Model: "m", BaseURL: r.start(t), MaxTokensField: "max_tokens", MaxTokens: &n})
	caps, err := c.Preflight(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if caps.Tools || !caps.Usage || caps.MaxTokensField != "max_tokens" || len(caps.Notes) != 1 ||
		!strings.Contains(caps.Notes[0], "no tool call") {
		t.Errorf("capabilities %+v", caps)
	}
}

// A reply cut by the server's own completion limit (finish_reason "length", no tool call, no cap sent: TGI's
// default max_new_tokens, llama.cpp -n, Ollama num_predict) is "not confirmed", with no cap to name; with a
// configured cap the note names it.
func TestPreflightCutBeforeAnyCall(t *testing.T) {
	cutReply := `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant",` +
		`"content":"","reasoning_content":"Let me think about which tool"},"finish_reason":"length"}],` +
		`"usage":{"prompt_tokens":90,"completion_tokens":16,"total_tokens":106}}`
	capped := 64
	for _, c := range []struct {
		cap  *int
		want string
	}{{nil, "cut by the server's own completion limit"}, {&capped, "cut at 64 tokens"}} {
		r := &recorder{replies: []reply{{200, cutReply}}}
		cl, _ := llm.New(llm.Config{Model: "m", BaseURL: r.start(t), MaxTokens: c.cap})
		caps, err := cl.Preflight(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if caps.Tools || caps.FinishReason != "length" || len(caps.Notes) != 1 || !strings.Contains(caps.Notes[0], c.want) {
			t.Errorf("cap %v: capabilities %+v; want a note with %q", c.cap, caps, c.want)
		}
	}
}

// A rejected temperature, then a rejected seed: each retried without, the rest learnt, both settings named
// in the notes and in the (config) error's hint.
func TestPreflightRejectedParameters(t *testing.T) {
	r := &recorder{replies: []reply{{400, temperatureRejected}, {422, seedRejected}, {200, okTool}}}
	temp := float32(0.2)
	c, _ := llm.New(llm.Config{Model: "o3-mini", BaseURL: r.start(t), Temperature: &temp})
	caps, err := c.Preflight(context.Background())
	var e *llm.Error
	if !errors.As(err, &e) || e.Class != llm.ErrorConfig || e.StatusCode != 400 ||
		e.Hint != "set omit: [temperature] (--omit temperature) and omit: [seed] (--omit seed) in the model block or on the command line" {
		t.Fatalf("error %#v", err)
	}
	t.Logf("error: %v", err)
	if caps == nil || !caps.Tools || caps.Seed || !caps.Usage || len(caps.Notes) != 2 ||
		!strings.Contains(caps.Notes[0], "omit: [temperature] (--omit temperature)") || !strings.Contains(caps.Notes[1], "omit: [seed] (--omit seed)") {
		t.Fatalf("capabilities %+v", caps)
	}
	if len(r.bodies) != 3 || r.bodies[0]["temperature"] == nil || r.bodies[1]["temperature"] != nil ||
		r.bodies[1]["seed"] == nil || r.bodies[2]["seed"] != nil {
		t.Errorf("requests %v", r.bodies)
	}
}

// A mistyped model: the config error itself, no capabilities.
func TestPreflightModelNotFound(t *testing.T) {
	r := &recorder{replies: []reply{{404, modelNotFound}}}
	c, _ := llm.New(llm.Config{Model: "gpt-4o-mini-typo", BaseURL: r.start(t)})
	caps, err := c.Preflight(context.Background())
	var e *llm.Error
	if caps != nil || !errors.As(err, &e) || e.Class != llm.ErrorConfig || e.StatusCode != 404 ||
		!strings.Contains(e.Message, "does not exist") || len(r.bodies) != 1 {
		t.Fatalf("caps %v, error %#v, %d requests", caps, err, len(r.bodies))
	}
}

// OpenAI's reasoning models refusing max_tokens, as quoted in microsoft/vscode-copilot-release#8065 and
// ITSpecialist111/ai_automation_suggester#38: retried with max_completion_tokens alone, and named. A
// 400 that mentions a field without refusing it (a value out of range) is returned as it is.
func TestPreflightMaxTokensField(t *testing.T) {
	const rejected = `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`
	r := &recorder{replies: []reply{{400, rejected}, {200, okTool}}}
	n := 4096
	c, _ := llm.New(llm.Config{Model: "o1", BaseURL: r.start(t), MaxTokens: &n, MaxTokensField: "max_tokens"})
	caps, err := c.Preflight(context.Background())
	var e *llm.Error
	if !errors.As(err, &e) || e.Hint != "set max_tokens_field: max_completion_tokens (--max-tokens-field max_completion_tokens) in the model block or on the command line" ||
		caps == nil || !caps.Tools || caps.MaxTokensField != "max_completion_tokens" {
		t.Fatalf("caps %+v, error %v", caps, err)
	}
	if _, ok := r.bodies[1]["max_tokens"]; ok || r.bodies[1]["max_completion_tokens"] != float64(512) {
		t.Errorf("retry %v", r.bodies[1])
	}
	// Synthetic: a range error naming max_tokens is no refusal of the field.
	const outOfRange = `{"error":{"message":"max_tokens must be at most 256","type":"invalid_request_error","param":"max_tokens","code":null}}`
	r = &recorder{replies: []reply{{400, outOfRange}, {200, okTool}}}
	c, _ = llm.New(llm.Config{Model: "small", BaseURL: r.start(t), MaxTokens: &n})
	caps, err = c.Preflight(context.Background())
	if caps != nil || !errors.As(err, &e) || e.Class != llm.ErrorConfig || len(r.bodies) != 1 {
		t.Errorf("out of range: caps %+v, error %v, %d requests", caps, err, len(r.bodies))
	}
}
