package main

// Issue 13, the run side: full `bench run`s over Zoo tasks against a real HTTP server on loopback that answers
// as real model servers do (their documented error bodies, DeepSeek's reasoning_content) or proxies to the
// scripted policy. The bodies and their sources:
//
//   - OpenAI 404 model_not_found (a mistyped model name): the body quoted in
//     https://github.com/rd-1-2022/ai-openai-helloworld/issues/9 (also the Groq text in
//     https://github.com/continuedev/continue/issues/10832).
//   - vLLM 401 with a string error, {"error": "Unauthorized"}: vllm/entrypoints/openai/api_server.py's API-key
//     middleware (JSONResponse(content={"error": "Unauthorized"}, status_code=401)).
//   - OpenAI 429 insufficient_quota: https://github.com/ChatGPTNextWeb/NextChat/issues/3123.
//   - OpenAI 400 context_length_exceeded: https://github.com/crewAIInc/crewAI-examples/issues/121.
//   - DeepSeek thinking mode: reasoning_content beside content, and the 400 when an assistant message comes back
//     without it: https://github.com/hotovo/aider-desk/issues/529 (the full body), documented at
//     https://api-docs.deepseek.com/guides/thinking_mode#tool-calls.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"webbench/agent/llm/scripted"
	"webbench/results"
	"webbench/suites"
)

// The endpoint's canned bodies (sources above).
const (
	bodyModelNotFound = `{
    "error": {
        "message": "The model ` + "`gpt-4o-mni`" + ` does not exist or you do not have access to it.",
        "type": "invalid_request_error",
        "param": null,
        "code": "model_not_found"
    }
}`
	bodyVLLMUnauthorized  = `{"error":"Unauthorized"}`
	bodyInsufficientQuota = `{
  "error": {
    "message": "You exceeded your current quota, please check your plan and billing details.",
    "type": "insufficient_quota",
    "param": null,
    "code": "insufficient_quota"
  }
}`
	bodyContextExceeded = `{"error": {"message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens. Please reduce the length of the messages.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}`
	bodyDeepSeekMissing = `{"error":{"message":"Missing ` + "`reasoning_content`" + ` field in the assistant message at message index %d. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`
)

// endpoint is a model server on loopback, chosen by the request's model name:
//
//	gpt-4o-mni        404 model_not_found (a mistyped gpt-4o-mini)
//	vllm-key          401 {"error":"Unauthorized"}
//	broke             429 insufficient_quota
//	broke-later       the scripted policy for 3 calls, then 429 insufficient_quota
//	scripted          the scripted policy, unchanged
//	deepseek-reasoner the scripted policy in DeepSeek's thinking-mode shape: reasoning_content on every reply,
//	                  required back on every assistant message (else DeepSeek's 400)
//	small-context     the scripted policy until the conversation has 4 messages, then 400 context_length_exceeded
type endpoint struct {
	upstream string
	url      string
	calls    sync.Map // model → *atomic.Int64
	// echoed counts assistant messages that came back with the reasoning_content sent for them; missing those
	// that came back without it (answered 400).
	echoed, missing atomic.Int64
	// sent maps a reply's key (replyKey) to the reasoning_content sent with it.
	sent sync.Map
}

// replyKey identifies an assistant message: its first tool call's id, else its content.
func replyKey(msg map[string]json.RawMessage) string {
	var m struct {
		Content   *string `json:"content"`
		ToolCalls []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	}
	b, _ := json.Marshal(msg)
	_ = json.Unmarshal(b, &m)
	if len(m.ToolCalls) > 0 {
		return "call:" + m.ToolCalls[0].ID
	}
	if m.Content != nil {
		return "text:" + *m.Content
	}
	return ""
}

func startEndpoint(t *testing.T) *endpoint {
	t.Helper()
	s, err := suites.Open("zoo", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	prof, err := scripted.LoadProfile("clean")
	if err != nil {
		t.Fatal(err)
	}
	pol := scripted.New(s.Tasks(), prof)
	up, err := pol.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pol.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &endpoint{upstream: up, url: "http://" + ln.Addr().String() + "/v1"}
	srv := &http.Server{Handler: e}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return e
}

// Calls is the number of chat requests the endpoint got for model.
func (e *endpoint) Calls(model string) int64 {
	if v, ok := e.calls.Load(model); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
}

// reasoningFor is the reasoning text the DeepSeek shape sends with the reply to a conversation of n messages.
func reasoningFor(n int) string {
	return fmt.Sprintf("The user wants the task done; %d messages so far, so I look at the latest snapshot first.", n)
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model    string                       `json:"model"`
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		raw(w, 400, `{"error":{"message":"bad json","type":"invalid_request_error"}}`)
		return
	}
	v, _ := e.calls.LoadOrStore(req.Model, new(atomic.Int64))
	k := v.(*atomic.Int64).Add(1)
	switch req.Model {
	case "gpt-4o-mni":
		raw(w, 404, bodyModelNotFound)
		return
	case "vllm-key":
		raw(w, 401, bodyVLLMUnauthorized)
		return
	case "broke":
		raw(w, 429, bodyInsufficientQuota)
		return
	case "broke-later":
		if k > 3 {
			raw(w, 429, bodyInsufficientQuota)
			return
		}
	case "small-context":
		if len(req.Messages) >= 4 {
			raw(w, 400, bodyContextExceeded)
			return
		}
	case "deepseek-reasoner":
		for i, m := range req.Messages {
			var role string
			_ = json.Unmarshal(m["role"], &role)
			if role != "assistant" {
				continue
			}
			rc, ok := m["reasoning_content"]
			var got string
			want, known := e.sent.Load(replyKey(m))
			if !ok || json.Unmarshal(rc, &got) != nil || !known || got != want.(string) {
				e.missing.Add(1)
				raw(w, 400, fmt.Sprintf(bodyDeepSeekMissing, i))
				return
			}
			e.echoed.Add(1)
		}
	}
	resp, err := http.Post(e.upstream+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		raw(w, 502, `{"error":{"message":"upstream down"}}`)
		return
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if req.Model == "deepseek-reasoner" && resp.StatusCode == 200 {
		var m map[string]any
		if json.Unmarshal(out, &m) == nil {
			if ch, ok := m["choices"].([]any); ok && len(ch) > 0 {
				msg := ch[0].(map[string]any)["message"].(map[string]any)
				msg["reasoning_content"] = reasoningFor(len(req.Messages))
				if _, ok := msg["content"]; !ok {
					msg["content"] = "" // DeepSeek sends "" beside tool calls
				}
				out, _ = json.Marshal(m)
				b, _ := json.Marshal(msg)
				var back map[string]json.RawMessage
				_ = json.Unmarshal(b, &back)
				e.sent.Store(replyKey(back), reasoningFor(len(req.Messages)))
			}
		}
	}
	raw(w, resp.StatusCode, string(out))
}

func raw(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// endpointTasks are the Zoo tasks of these runs: two shop questions, a checkout, a booking (the scripted
// policy's clean profile passes all four).
const endpointTasks = "shop-qa-yoga-mat-thickness,shop-qa-hero-hoodie-sku,shop-checkout-cork-blocks-standard,stays-book-santa-cruz-suites-seville"

func endpointRun(e *endpoint, out, model string, extra ...string) []string {
	return append([]string{"run", "--suite", "zoo", "--tasks", endpointTasks, "--reps", "1", "--workers", "2",
		"--model", "openai:" + model, "--base-url", e.url, "--out", out}, extra...)
}

// readRecords reads attempts.jsonl of dir (none when it does not exist).
func readRecords(t *testing.T, dir string) []results.Attempt {
	t.Helper()
	rr, err := results.ReadAttempts(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		t.Fatal(err)
	}
	return rr.Records
}

// (a) A mistyped model name stops the run at the preflight: exit 2 with the server's message and the hint,
// nothing recorded (no agent failure), one call made; the same directory then runs fine with the right name.
func TestMistypedModelExitsTwoAndResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	e := startEndpoint(t)
	out := filepath.Join(t.TempDir(), "run")
	_, stderr, code := bench(t, endpointRun(e, out, "gpt-4o-mni")...)
	if code != 2 || !strings.Contains(stderr, "The model `gpt-4o-mni` does not exist") ||
		!strings.Contains(stderr, "config") || !strings.Contains(stderr, "re-run the same command") {
		t.Fatalf("mistyped model: exit %d, stderr:\n%s\nwant exit 2 with the server's message", code, stderr)
	}
	t.Logf("stderr of the stopped run:\n%s", stderr)
	for _, r := range readRecords(t, out) {
		if r.Status == results.StatusFail {
			t.Errorf("config error recorded as an agent failure: %+v", r)
		}
	}
	if n := len(readRecords(t, out)); n != 0 {
		t.Errorf("%d records written by a run stopped at the preflight", n)
	}
	if n := e.Calls("gpt-4o-mni"); n != 1 {
		t.Errorf("the endpoint got %d calls for the mistyped model, want 1 (the preflight)", n)
	}
	// Fixed: the same directory, the right model name.
	_, stderr, code = bench(t, endpointRun(e, out, "scripted")...)
	if code != 0 {
		t.Fatalf("resumed run with the right model: exit %d\n%s", code, stderr)
	}
	recs := finalRecords(t, out)
	if len(recs) != 4 {
		t.Fatalf("resumed run holds %d attempts, want 4", len(recs))
	}
	for _, r := range recs {
		if r.Status != "pass" {
			t.Errorf("%s: %s after the fix", r.TaskID, r.Status)
		}
	}
	run, err := results.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if eps := run.Manifest.Endpoints; len(eps) != 1 || eps[0].Model != "scripted" || eps[0].BaseURL != e.url ||
		eps[0].Capabilities == nil || eps[0].Error != "" {
		t.Errorf("manifest endpoints %+v, want the scripted endpoint's capabilities", eps)
	} else {
		t.Logf("manifest endpoint capabilities: %+v", *eps[0].Capabilities)
	}
}

// (b) A bad key (vLLM's string-error 401) and an out-of-credit account (OpenAI's 429 insufficient_quota) stop
// the run with exit 3 after the preflight's one call; credit running out mid-run stops it after the first
// calls, with nothing recorded as an agent failure.
func TestAuthAndQuotaExitThreeAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	e := startEndpoint(t)
	for _, c := range []struct{ model, want string }{{"vllm-key", "Unauthorized"}, {"broke", "You exceeded your current quota"}} {
		out := filepath.Join(t.TempDir(), c.model)
		_, stderr, code := bench(t, endpointRun(e, out, c.model)...)
		if code != 3 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 3 with %q", c.model, code, stderr, c.want)
		}
		if n := e.Calls(c.model); n != 1 {
			t.Errorf("%s: %d calls, want 1 (the preflight; no retries)", c.model, n)
		}
		if n := len(readRecords(t, out)); n != 0 {
			t.Errorf("%s: %d records", c.model, n)
		}
		t.Logf("%s: exit %d after %d call(s); stderr: %s", c.model, code, e.Calls(c.model), strings.TrimSpace(stderr))
	}
	out := filepath.Join(t.TempDir(), "later")
	_, stderr, code := bench(t, endpointRun(e, out, "broke-later")...)
	if code != 3 || !strings.Contains(stderr, "You exceeded your current quota") {
		t.Fatalf("credit out mid-run: exit %d, stderr:\n%s", code, stderr)
	}
	for _, r := range readRecords(t, out) {
		if r.Status == results.StatusFail || strings.Contains(r.Error, "quota") {
			t.Errorf("record of the stopped run: %+v", r)
		}
	}
	// 3 answered calls, then at most one refused call per worker (2) before the run stopped.
	if n := e.Calls("broke-later"); n > 5 {
		t.Errorf("credit out mid-run: %d calls, want at most 5", n)
	}
	t.Logf("credit out mid-run: exit %d after %d calls, %d records", code, e.Calls("broke-later"), len(readRecords(t, out)))
	run, err := results.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if s := run.Manifest.Summary; s == nil || !strings.Contains(s.Stopped, "quota") {
		t.Errorf("manifest summary %+v does not say the run stopped on quota", s)
	}
}

// (c) The scripted policy in DeepSeek's thinking-mode shape passes the same tasks as the plain policy; the
// reasoning is in the trajectories (and the HTML attempt pages) and reasoning_content went back on every
// assistant message.
func TestReasoningShapePassesLikePlain(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	e := startEndpoint(t)
	tmp := t.TempDir()
	plain, think := filepath.Join(tmp, "plain"), filepath.Join(tmp, "think")
	if _, stderr, code := bench(t, "run", "--suite", "zoo", "--tasks", endpointTasks, "--reps", "1", "--workers", "2",
		"--model", "scripted", "--out", plain); code != 0 {
		t.Fatalf("plain run: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := bench(t, endpointRun(e, think, "deepseek-reasoner")...); code != 0 {
		t.Fatalf("reasoning run: exit %d\n%s", code, stderr)
	}
	a, b := finalRecords(t, plain), finalRecords(t, think)
	byTask := map[string]string{}
	for _, r := range a {
		byTask[r.TaskID] = r.Status
	}
	if len(b) != 4 {
		t.Fatalf("reasoning run holds %d attempts", len(b))
	}
	for _, r := range b {
		if r.Status != byTask[r.TaskID] || r.Status != "pass" {
			t.Errorf("%s: %s with reasoning, %s plain", r.TaskID, r.Status, byTask[r.TaskID])
		}
	}
	if e.missing.Load() != 0 || e.echoed.Load() == 0 {
		t.Errorf("reasoning_content echoed on %d assistant messages, missing on %d", e.echoed.Load(), e.missing.Load())
	}
	run, err := results.Open(think)
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	for _, r := range run.Final() {
		tr, err := run.Trajectory(r.AttemptID)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range tr.Steps {
			if st.Recovery {
				continue
			}
			steps++
			if st.Reasoning != reasoningFor(st.Request.Messages) || st.ReasoningFrom != "reasoning_content" {
				t.Errorf("%s step %d: reasoning %q from %q", r.TaskID, st.Index, st.Reasoning, st.ReasoningFrom)
			}
			if strings.Contains(st.Content, "The user wants the task done") {
				t.Errorf("%s step %d: reasoning left in the content", r.TaskID, st.Index)
			}
		}
	}
	t.Logf("reasoning run: %d steps with reasoning recorded, reasoning_content echoed on %d assistant messages", steps,
		e.echoed.Load())
	if eps := run.Manifest.Endpoints; len(eps) != 1 || eps[0].Capabilities == nil {
		t.Errorf("manifest endpoints %+v", eps)
	}
	// The HTML attempt pages show it, collapsed.
	if _, stderr, code := bench(t, "report", think, "--format", "html"); code != 0 {
		t.Fatalf("report --format html: exit %d\n%s", code, stderr)
	}
	pages, _ := filepath.Glob(filepath.Join(think, "attempts", "*.html"))
	if len(pages) != 4 {
		t.Fatalf("%d attempt pages", len(pages))
	}
	page, _ := os.ReadFile(pages[0])
	if !strings.Contains(string(page), `<details class="reasoning"><summary>Reasoning (reasoning_content)`) {
		t.Errorf("attempt page %s shows no reasoning", pages[0])
	}
}

// (d) A context-length error mid-attempt is the agent's failure: status fail, failure_mode context_overflow,
// the server's message in the record; the run is not stopped.
func TestContextOverflowIsAgentFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	e := startEndpoint(t)
	out := filepath.Join(t.TempDir(), "run")
	_, stderr, code := bench(t, endpointRun(e, out, "small-context")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	recs := readRecords(t, out)
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	for _, r := range recs {
		if r.Status != results.StatusFail || r.ErrorClass != results.ClassAgent ||
			r.FailureMode != results.ModeContextOverflow || r.FinishReason != results.FinishContextOverflow ||
			!strings.Contains(r.Error, "maximum context length is 8192 tokens") {
			t.Errorf("%s: status %s, class %s, mode %s, finish %s, error %q", r.TaskID, r.Status, r.ErrorClass,
				r.FailureMode, r.FinishReason, r.Error)
		}
	}
}
