package modelproxy

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"webbench/browser"
	"webbench/llm"
	"webbench/results"
	"webbench/scripted"
	"webbench/suites"
	"webbench/suites/zoo"

	openai "github.com/sashabaranov/go-openai"
)

// capture wraps an upstream handler and keeps the bytes and headers it wrote, per request, so a test can
// compare them with what the agent got through the proxy.
type capture struct {
	h http.Handler

	mu     sync.Mutex
	bodies [][]byte
	heads  []http.Header
	auth   []string
}

func (c *capture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, r)
	c.mu.Lock()
	c.bodies = append(c.bodies, rec.Body.Bytes())
	c.heads = append(c.heads, rec.Header().Clone())
	c.auth = append(c.auth, r.Header.Get("Authorization"))
	c.mu.Unlock()
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

func startProxy(t *testing.T, upstream string, opts Options) *Proxy {
	t.Helper()
	p, err := Start(upstream, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// post sends body to url with the given headers and returns the response and its whole body.
func post(t *testing.T, url string, body []byte, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// shopHome is the shop's home page as Playwright MCP's aria snapshot shows it (the shape of
// scripted's test snapshots): the first solution step of the zoo task
// shop-checkout-yoga-mat-express clicks the link "Yoga Mat".
const shopHome = `- generic [ref=e1]:
  - banner [ref=e2]:
    - link "Home" [ref=e3] [cursor=pointer]:
      - /url: /
  - main [ref=e4]:
    - heading "Featured" [level=2] [ref=e5]
    - link "Yoga Mat" [ref=e6] [cursor=pointer]:
      - /url: /product/ym-01
    - link "Foam Roller" [ref=e7] [cursor=pointer]:
      - /url: /product/fr-02`

// firstRequest is a chat request shaped like the built-in agent's first one (agent/hooks.go TaskLead): the
// system prompt, then "Task: <goal>", a blank line and the first observation, with the browser tools offered.
func firstRequest(t *testing.T, goal string) ([]byte, []string) {
	t.Helper()
	var tools []openai.Tool
	var names []string
	for _, tl := range browser.Tools() {
		tools = append(tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: string(tl.Name), Description: tl.Description, Parameters: tl.Schema}})
		names = append(names, string(tl.Name))
	}
	obs := browser.Result{URL: "http://127.0.0.1:9999/t/abc123/shop/", Title: "Shop",
		Snapshot: browser.Snapshot{YAML: shopHome}}.Format()
	seed := 7
	body, err := json.Marshal(openai.ChatCompletionRequest{Model: "scripted", Seed: &seed, Tools: tools,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: "You are a browser agent. End with the final JSON."},
			{Role: openai.ChatMessageRoleUser, Content: "Task: " + goal + "\n\n" + obs}}})
	if err != nil {
		t.Fatal(err)
	}
	return body, names
}

// TestScriptedPolicy puts the proxy in front of the real scripted policy serving the zoo's tasks and sends the
// built-in agent's first request: the agent gets upstream's bytes unchanged and the Call holds the policy's
// tool call and the response's usage.
func TestScriptedPolicy(t *testing.T) {
	tasks, err := zoo.BuiltinTasks()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tasks, func(x suites.Task) bool { return x.ID == "shop-checkout-yoga-mat-express" })
	if i < 0 {
		t.Fatal("zoo task shop-checkout-yoga-mat-express not found")
	}
	up := &capture{h: scripted.New(tasks, scripted.Clean())}
	srv := httptest.NewServer(up)
	defer srv.Close()
	p := startProxy(t, srv.URL+"/v1", Options{})
	if !strings.HasSuffix(p.URL(), "/v1") || !strings.HasPrefix(p.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL %q: want http://127.0.0.1:PORT/v1", p.URL())
	}
	body, names := firstRequest(t, tasks[i].Goal)
	resp, got := post(t, p.URL()+"/chat/completions", body, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, got)
	}
	if len(up.bodies) != 1 || !bytes.Equal(got, up.bodies[0]) {
		t.Fatalf("agent got %q\nupstream sent %q", got, up.bodies)
	}
	if ct := resp.Header.Get("Content-Type"); ct != up.heads[0].Get("Content-Type") {
		t.Fatalf("Content-Type %q, upstream %q", ct, up.heads[0].Get("Content-Type"))
	}
	// The outside reference: go-openai's decoding of the bytes the agent got.
	var ref openai.ChatCompletionResponse
	if err := json.Unmarshal(got, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Choices) != 1 || len(ref.Choices[0].Message.ToolCalls) != 1 {
		t.Fatalf("policy reply %s", got)
	}
	rtc := ref.Choices[0].Message.ToolCalls[0]
	var args map[string]any
	if err := json.Unmarshal([]byte(rtc.Function.Arguments), &args); err != nil {
		t.Fatal(err)
	}
	if rtc.Function.Name != "browser_click" || args["target"] != "e6" || args["element"] != `link "Yoga Mat"` {
		t.Fatalf("policy's first call %s %s: want browser_click of target e6, element link \"Yoga Mat\"", rtc.Function.Name,
			rtc.Function.Arguments)
	}
	calls := p.Calls()
	if len(calls) != 1 {
		t.Fatalf("%d calls, want 1", len(calls))
	}
	c := calls[0]
	if !c.Done || c.Status != 200 || c.Error != "" || c.Start.IsZero() || c.DurationMS < 0 {
		t.Fatalf("call %+v", c)
	}
	want := []results.ToolCall{{ID: rtc.ID, Name: rtc.Function.Name, Args: rtc.Function.Arguments}}
	if !slices.Equal(c.Step.ToolCalls, want) {
		t.Fatalf("tool calls %+v, want %+v", c.Step.ToolCalls, want)
	}
	if c.Step.Usage != (llm.Usage{Prompt: ref.Usage.PromptTokens, Completion: ref.Usage.CompletionTokens}) ||
		ref.Usage.PromptTokens == 0 {
		t.Fatalf("usage %+v, response's %+v", c.Step.Usage, ref.Usage)
	}
	if c.Step.FinishReason != string(ref.Choices[0].FinishReason) || c.Step.FinishReason != "tool_calls" {
		t.Fatalf("finish %q, response's %q", c.Step.FinishReason, ref.Choices[0].FinishReason)
	}
	wantReq := results.RequestSummary{Messages: 2, Tools: names}
	if r := c.Step.Request; r.Messages != wantReq.Messages || !slices.Equal(r.Tools, wantReq.Tools) || r.ToolsWithheld {
		t.Fatalf("request summary %+v, want %+v", r, wantReq)
	}
	if c.Step.ModelMS != c.DurationMS || c.Step.Index != 0 {
		t.Fatalf("model_ms %d duration %d index %d", c.Step.ModelMS, c.DurationMS, c.Step.Index)
	}
}

// sseServer serves an event stream file, flushing after every event as a streaming endpoint does.
func sseServer(t *testing.T, file string) (*httptest.Server, []byte) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		for _, ev := range bytes.SplitAfter(data, []byte("\n\n")) {
			_, _ = w.Write(ev)
			http.NewResponseController(w).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv, data
}

// TestStream replays OpenAI's documented streaming transcripts (testdata/*.sse name their sources) through
// the proxy: the agent gets the stream byte for byte, the Call holds the assembled content or tool call and
// the usage of the include_usage chunk.
func TestStream(t *testing.T) {
	req := []byte(`{"model":"gpt-4o-mini","stream":true,"stream_options":{"include_usage":true},` +
		`"messages":[{"role":"user","content":"Hello"}],"tools":[{"type":"function","function":{"name":"get_weather"}}]}`)
	for _, tc := range []struct {
		file   string
		step   results.Step
		finish string
	}{
		{"testdata/stream_content.sse", results.Step{Content: "Hello! How can I help?",
			Usage: llm.Usage{Prompt: 19, Completion: 7}}, "stop"},
		{"testdata/stream_tool_call.sse", results.Step{ToolCalls: []results.ToolCall{{
			ID: "call_DdmO9pD3xa9XTPNJ32zg2hcA", Name: "get_weather", Args: `{"location":"Paris, France"}`}},
			Usage: llm.Usage{Prompt: 84, Completion: 17}}, "tool_calls"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			srv, data := sseServer(t, tc.file)
			p := startProxy(t, srv.URL+"/v1", Options{})
			resp, got := post(t, p.URL()+"/chat/completions", req, nil)
			if resp.StatusCode != 200 || !bytes.Equal(got, data) {
				t.Fatalf("status %d, agent got %q, want the file's bytes", resp.StatusCode, got)
			}
			if resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
			}
			calls := p.Calls()
			if len(calls) != 1 {
				t.Fatalf("%d calls", len(calls))
			}
			st := calls[0].Step
			if calls[0].Error != "" || st.Content != tc.step.Content || !slices.Equal(st.ToolCalls, tc.step.ToolCalls) ||
				st.Usage != tc.step.Usage || st.FinishReason != tc.finish {
				t.Fatalf("call %+v\nwant content %q tool calls %+v usage %+v finish %q", calls[0], tc.step.Content,
					tc.step.ToolCalls, tc.step.Usage, tc.finish)
			}
			if st.Request.Messages != 1 || !slices.Equal(st.Request.Tools, []string{"get_weather"}) {
				t.Fatalf("request %+v", st.Request)
			}
		})
	}
}

// TestStreamNoUsage: a stream without the include_usage chunk gets an estimated usage, flagged.
func TestStreamNoUsage(t *testing.T) {
	data, err := os.ReadFile("testdata/stream_content.sse")
	if err != nil {
		t.Fatal(err)
	}
	var kept [][]byte
	for _, ev := range bytes.SplitAfter(data, []byte("\n\n")) {
		if !bytes.Contains(ev, []byte(`"choices":[]`)) {
			kept = append(kept, ev)
		}
	}
	file := t.TempDir() + "/nousage.sse"
	if err := os.WriteFile(file, bytes.Join(kept, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, _ := sseServer(t, file)
	p := startProxy(t, srv.URL+"/v1", Options{})
	req := []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"Hello"}]}`)
	post(t, p.URL()+"/chat/completions", req, nil)
	st := p.Calls()[0].Step
	// llm.EstimateUsage: (bytes+3)/4 of the request JSON and of the reply text.
	want := llm.Usage{Prompt: (len(req) + 3) / 4, Completion: (len("Hello! How can I help?") + 3) / 4, Estimated: true}
	if st.Usage != want || !st.Request.ToolsWithheld {
		t.Fatalf("usage %+v, want %+v; request %+v", st.Usage, want, st.Request)
	}
}

// TestUpstreamError: an upstream 401 with OpenAI's error body (https://platform.openai.com/docs/guides/error-codes,
// "401 - Incorrect API key provided"; the message's shape from https://help.openai.com/en/articles/6882433)
// reaches the agent unchanged; the Call has Status 401 and the body's message.
func TestUpstreamError(t *testing.T) {
	body, err := os.ReadFile("testdata/error_401.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("X-Request-Id", "req_abc")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	p := startProxy(t, srv.URL+"/v1", Options{})
	resp, got := post(t, p.URL()+"/chat/completions", []byte(`{"model":"gpt-4o","messages":[]}`), nil)
	if resp.StatusCode != 401 || !bytes.Equal(got, body) || resp.Header.Get("X-Request-Id") != "req_abc" {
		t.Fatalf("agent got %d %q headers %v", resp.StatusCode, got, resp.Header)
	}
	c := p.Calls()[0]
	const msg = "Incorrect API key provided: sk-abc12***************************wxyz. You can find your API key at " +
		"https://platform.openai.com/account/api-keys."
	if c.Status != 401 || c.Error != msg || len(c.Step.ToolCalls) != 0 || c.Step.Content != "" {
		t.Fatalf("call %+v", c)
	}
}

// TestUpstreamDown: nothing listens upstream: the agent gets 502, the Call has Status 0 and the dial error.
func TestUpstreamDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // the port is free now: connections are refused
	p := startProxy(t, "http://"+addr+"/v1", Options{})
	resp, _ := post(t, p.URL()+"/chat/completions", []byte(`{"model":"m","messages":[{"role":"user","content":"x"}]}`), nil)
	if resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("status %d, want 502", resp.StatusCode)
	}
	c := p.Calls()[0]
	if c.Status != 0 || !c.Done || !strings.Contains(c.Error, "upstream not reached") ||
		!strings.Contains(c.Error, "connection refused") || c.Step.Request.Messages != 1 {
		t.Fatalf("call %+v", c)
	}
}

// TestSecrets: the agent's Authorization header reaches upstream but no Call field; Options.APIKey is sent
// upstream only when the agent sent no Authorization, and is recorded nowhere either, also when upstream
// echoes it in an error.
func TestSecrets(t *testing.T) {
	// Neither key has a shape llm.RedactString knows (sk-…): only the proxy's own redaction can hide them.
	const agentKey, optKey = "agentSECRET0123456789abcdef", "optionSECRET9876543210zyxwv"
	up := &capture{h: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		if strings.Contains(auth, optKey) {
			// OpenAI's 401 echoes part of the key; this server echoes it whole, the worst case.
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
				strings.TrimPrefix(auth, "Bearer "))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m",`+
			`"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`)
	})}
	srv := httptest.NewServer(up)
	defer srv.Close()
	p := startProxy(t, srv.URL+"/v1", Options{APIKey: optKey})
	req := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if resp, _ := post(t, p.URL()+"/chat/completions", req, map[string]string{"Authorization": "Bearer " + agentKey,
		"api-key": agentKey}); resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if resp, _ := post(t, p.URL()+"/chat/completions", req, nil); resp.StatusCode != 401 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if len(up.auth) != 2 || up.auth[0] != "Bearer "+agentKey || up.auth[1] != "Bearer "+optKey {
		t.Fatalf("upstream saw Authorization %q", up.auth)
	}
	calls := p.Calls()
	if len(calls) != 2 || calls[0].Step.Content != "ok" || calls[1].Status != 401 ||
		!strings.Contains(calls[1].Error, "[REDACTED]") {
		t.Fatalf("calls %+v", calls)
	}
	js, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{agentKey, optKey, "SECRET"} {
		if bytes.Contains(js, []byte(k)) {
			t.Fatalf("key %q recorded: %s", k, js)
		}
	}
}

// TestModelsNotRecorded: GET …/models is forwarded (OpenAI's list shape,
// https://platform.openai.com/docs/api-reference/models/list, served by the scripted policy) and not recorded.
func TestModelsNotRecorded(t *testing.T) {
	srv := httptest.NewServer(scripted.New(nil, scripted.Clean()))
	defer srv.Close()
	p := startProxy(t, srv.URL+"/v1", Options{})
	resp, err := http.Get(p.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list openai.ModelsList
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || len(list.Models) != 1 || list.Models[0].ID != scripted.ModelName {
		t.Fatalf("status %d models %+v", resp.StatusCode, list.Models)
	}
	if n := len(p.Calls()); n != 0 {
		t.Fatalf("%d calls recorded, want 0", n)
	}
}

// TestConcurrentOrder: three calls arrive one after another (each known to have reached upstream before the
// next is sent) and are answered in reverse order; Calls lists them in start order, in flight ones included.
func TestConcurrentOrder(t *testing.T) {
	arrived := make(chan string)
	release := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{}), "c": make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openai.ChatCompletionRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		name := req.Messages[0].Content
		arrived <- name
		<-release[name]
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"reply %s"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`, name)
	}))
	defer srv.Close()
	p := startProxy(t, srv.URL+"/v1", Options{})
	done := make(chan string, 3)
	for _, name := range []string{"a", "b", "c"} {
		go func() {
			resp, err := http.Post(p.URL()+"/chat/completions", "application/json",
				strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"`+name+`"}]}`))
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			done <- name
		}()
		if got := <-arrived; got != name {
			t.Fatalf("upstream got %q, want %q", got, name)
		}
	}
	inflight := p.Calls()
	if len(inflight) != 3 || inflight[0].Done || inflight[2].Done {
		t.Fatalf("in flight: %+v", inflight)
	}
	for _, name := range []string{"c", "b", "a"} {
		close(release[name])
		if got := <-done; got != name {
			t.Fatalf("finished %q, want %q", got, name)
		}
	}
	calls := p.Calls()
	for i, name := range []string{"a", "b", "c"} {
		c := calls[i]
		if !c.Done || c.Step.Index != i || c.Step.Content != "reply "+name {
			t.Fatalf("call %d: %+v, want reply %s", i, c, name)
		}
		if i > 0 && c.Start.Before(calls[i-1].Start) {
			t.Fatalf("call %d started before call %d", i, i-1)
		}
	}
}

// TestStartErrors: a malformed upstream is refused before listening; Close is safe twice.
func TestStartErrors(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:80/v1", "ftp://x/v1", "http:///v1", "http://h/v1?x=1"} {
		if _, err := Start(u, Options{}); err == nil {
			t.Errorf("Start(%q): no error", u)
		}
	}
	p, err := Start("http://127.0.0.1:1/v1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestGzip: an agent that asks for gzip gets upstream's compressed bytes unchanged (Content-Encoding kept,
// RFC 9110 §8.4); the Call is decoded from the decompressed body.
func TestGzip(t *testing.T) {
	const reply = `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"zipped"},` +
		`"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = io.WriteString(zw, reply)
	_ = zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "gzip" {
			t.Errorf("upstream got Accept-Encoding %q", r.Header.Get("Accept-Encoding"))
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(zipped.Bytes())
	}))
	defer srv.Close()
	p := startProxy(t, srv.URL+"/v1", Options{})
	resp, got := post(t, p.URL()+"/chat/completions", []byte(`{"model":"m","messages":[]}`),
		map[string]string{"Accept-Encoding": "gzip"})
	if resp.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(got, zipped.Bytes()) {
		t.Fatalf("agent got %q (Content-Encoding %q)", got, resp.Header.Get("Content-Encoding"))
	}
	c := p.Calls()[0]
	if c.Error != "" || c.Step.Content != "zipped" || c.Step.Usage != (llm.Usage{Prompt: 5, Completion: 2}) {
		t.Fatalf("call %+v", c)
	}
}

// countingTransport counts the requests it carries.
type countingTransport struct {
	mu sync.Mutex
	n  int
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// TestClientOption: Options.Client's Transport carries the upstream requests and its Timeout bounds a call
// upstream never answers (the agent gets 502, the Call the deadline error).
func TestClientOption(t *testing.T) {
	quit := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Never answers; returns when the proxy gives up (net/http notices a closed connection only after the
		// body was read) or the test ends.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-quit:
		}
	}))
	defer srv.Close()
	defer close(quit)
	tr := &countingTransport{}
	p := startProxy(t, srv.URL+"/v1", Options{Client: &http.Client{Transport: tr, Timeout: 50 * time.Millisecond}})
	resp, _ := post(t, p.URL()+"/chat/completions", []byte(`{"model":"m","messages":[]}`), nil)
	if resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("status %d, want 502", resp.StatusCode)
	}
	c := p.Calls()[0]
	if c.Status != 0 || !strings.Contains(c.Error, "context deadline exceeded") {
		t.Fatalf("call %+v", c)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.n != 1 {
		t.Fatalf("transport carried %d requests, want 1", tr.n)
	}
}
