package replay

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"webbench/llm"
)

// loadShapes reads testdata/shapes and fails the test when they are invalid.
func loadShapes(t *testing.T) []Shape {
	t.Helper()
	shapes, err := LoadDir("testdata/shapes")
	if err != nil {
		t.Fatal(err)
	}
	return shapes
}

func start(t *testing.T, shapes []Shape, opts Options) *Server {
	t.Helper()
	s, err := Start(shapes, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// post sends a chat request for model with the given messages and returns status, headers and body.
func post(t *testing.T, url, model string, messages any) (int, http.Header, []byte) {
	t.Helper()
	if messages == nil {
		messages = []map[string]any{{"role": "user", "content": "hi"}}
	}
	b, _ := json.Marshal(map[string]any{"model": model, "messages": messages})
	resp, err := http.Post(url+"/chat/completions", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, out
}

// knownClasses are the classes a shape may expect: ok and every llm.ErrorClass the client assigns.
var knownClasses = []string{ClassOK, string(llm.ErrorConfig), string(llm.ErrorAuth), string(llm.ErrorQuota),
	string(llm.ErrorRateLimit), string(llm.ErrorContextOverflow), string(llm.ErrorInfra), string(llm.ErrorAgent),
	string(llm.ErrorContentFilter)}

func TestShapesValidAndSourced(t *testing.T) {
	shapes := loadShapes(t)
	if len(shapes) < 30 {
		t.Fatalf("%d shapes, want at least 30", len(shapes))
	}
	classes := map[string]int{}
	for _, s := range shapes {
		classes[s.Expect.Class]++
		if !slices.Contains(knownClasses, s.Expect.Class) {
			t.Errorf("%s: unknown class %q", s.Name, s.Expect.Class)
		}
		want := llm.ErrorClass(s.Expect.Class).ExitCode() // "ok": 0
		if s.Expect.ExitCode != want {
			t.Errorf("%s: exit_code %d, want %d for class %s", s.Name, s.Expect.ExitCode, want, s.Expect.Class)
		}
		if len(s.Source) < 20 {
			t.Errorf("%s: source %q too short to locate", s.Name, s.Source)
		}
		if len(s.Body) == 0 && s.BodyText == nil {
			t.Errorf("%s: neither body nor body_text", s.Name)
		}
	}
	for _, c := range knownClasses {
		if classes[c] == 0 {
			t.Errorf("no shape of class %s", c)
		}
	}
	t.Logf("%d shapes: %v", len(shapes), classes)
}

func TestServesShapeBytesStatusHeaders(t *testing.T) {
	shapes := loadShapes(t)
	s := start(t, shapes, Options{})
	for _, name := range []string{"vllm_401_unauthorized", "nginx_502_html", "azure_429_token_rate_limit", "empty_body_503"} {
		sh := s.Shape(name)
		status, h, body := post(t, s.URL(), name, nil)
		if status != sh.Status {
			t.Errorf("%s: status %d, want %d", name, status, sh.Status)
		}
		want := []byte(sh.Body)
		if sh.BodyText != nil {
			want = []byte(*sh.BodyText)
		}
		if !bytes.Equal(body, want) {
			t.Errorf("%s: body %q, want %q", name, body, want)
		}
		for k, v := range sh.Headers {
			if h.Get(k) != v {
				t.Errorf("%s: header %s %q, want %q", name, k, h.Get(k), v)
			}
		}
	}
}

func TestThenSequenceRoutesAndRoot(t *testing.T) {
	shapes := loadShapes(t)
	s := start(t, shapes, Options{Routes: []Route{
		{Model: "flaky", Call: 2, Shape: "openai_500_server_error"},
		{Model: "flaky", Shape: "openai_tool_call"},
	}})
	var got []int
	for i := 0; i < 3; i++ {
		st, _, _ := post(t, s.URL(), "anthropic_529_then_ok", nil)
		got = append(got, st)
	}
	if got[0] != 529 || got[1] != 200 || got[2] != 200 {
		t.Errorf("then sequence statuses %v, want [529 200 200]", got)
	}
	got = nil
	for i := 0; i < 3; i++ {
		st, _, _ := post(t, s.URL(), "flaky", nil)
		got = append(got, st)
	}
	if got[0] != 200 || got[1] != 500 || got[2] != 200 {
		t.Errorf("route by call statuses %v, want [200 500 200]", got)
	}
	st, _, body := post(t, s.URL(), "gpt-4o-mnii", nil)
	if st != 404 || !strings.Contains(string(body), "does not exist") {
		t.Errorf("unknown model: %d %s", st, body)
	}
	st, h, body := post(t, s.RootURL(), "anything", nil)
	if st != 404 || string(body) != "404 page not found" || h.Get("Content-Type") != "text/plain" {
		t.Errorf("root path: %d %q %q", st, h.Get("Content-Type"), body)
	}
	resp, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Data []struct{ ID string } }
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Data) != len(shapes) {
		t.Errorf("/models lists %d, want %d", len(list.Data), len(shapes))
	}
	if n := s.Count(); n != 7 {
		t.Errorf("Count %d, want 7 chat requests", n)
	}
	if reqs := s.Requests(); len(reqs) != 9 || reqs[0].Served != "anthropic_529_then_ok" || reqs[1].Served != "anthropic_compat_tool_call" {
		t.Errorf("log: %d entries, first %+v", len(reqs), reqs[:2])
	}
}

func TestPeakConcurrency(t *testing.T) {
	s := start(t, loadShapes(t), Options{Latency: 200 * time.Millisecond})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			post(t, s.URL(), "openai_tool_call", nil)
		}()
	}
	wg.Wait()
	if p := s.Peak(); p != 4 {
		t.Errorf("Peak %d, want 4", p)
	}
}

// upstreamReply is a proxied reply decoded loosely.
type upstreamReply struct {
	Choices []struct {
		FinishReason string                     `json:"finish_reason"`
		Message      map[string]json.RawMessage `json:"message"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

func TestProxyTransforms(t *testing.T) {
	shapes := loadShapes(t)
	up := start(t, shapes, Options{Routes: []Route{{Shape: "openai_parallel_tool_calls"}}})
	for _, tc := range []struct {
		transform string
		check     func(t *testing.T, r upstreamReply)
	}{
		{"deepseek", func(t *testing.T, r upstreamReply) {
			if !strings.Contains(string(r.Choices[0].Message["reasoning_content"]), "Step 1") {
				t.Errorf("no reasoning_content: %s", r.Choices[0].Message["reasoning_content"])
			}
		}},
		{"reasoning", func(t *testing.T, r upstreamReply) {
			if len(r.Choices[0].Message["reasoning"]) == 0 {
				t.Error("no reasoning")
			}
		}},
		{"mistral", func(t *testing.T, r upstreamReply) {
			if !strings.HasPrefix(string(r.Choices[0].Message["content"]), `[{"thinking"`) {
				t.Errorf("content %s", r.Choices[0].Message["content"])
			}
		}},
		{"think_tag", func(t *testing.T, r upstreamReply) {
			if !strings.HasPrefix(string(r.Choices[0].Message["content"]), `"\u003cthink\u003e`) {
				t.Errorf("content %s", r.Choices[0].Message["content"])
			}
		}},
		{"object_args+no_usage", func(t *testing.T, r upstreamReply) {
			if !strings.Contains(string(r.Choices[0].Message["tool_calls"]), `"arguments":{"location"`) || r.Usage != nil {
				t.Errorf("tool_calls %s usage %s", r.Choices[0].Message["tool_calls"], r.Usage)
			}
		}},
		{"vllm", func(t *testing.T, r upstreamReply) {
			if string(r.Choices[0].Message["content"]) != "null" || !strings.Contains(string(r.Choices[0].Message["tool_calls"]), "chatcmpl-tool-") {
				t.Errorf("message %v", r.Choices[0].Message)
			}
		}},
		{"ollama", func(t *testing.T, r upstreamReply) {
			if string(r.Choices[0].Message["content"]) != `""` || !strings.Contains(string(r.Choices[0].Message["tool_calls"]), `"index":1`) {
				t.Errorf("message %v", r.Choices[0].Message)
			}
		}},
		{"anthropic", func(t *testing.T, r upstreamReply) {
			if !strings.Contains(string(r.Choices[0].Message["tool_calls"]), `"id":"toolu_01`) {
				t.Errorf("tool_calls %s", r.Choices[0].Message["tool_calls"])
			}
		}},
		{"gemini", func(t *testing.T, r upstreamReply) {
			if !strings.Contains(string(r.Choices[0].Message["tool_calls"]), `"thought_signature":"`) {
				t.Errorf("tool_calls %s", r.Choices[0].Message["tool_calls"])
			}
		}},
		{"no_ids", func(t *testing.T, r upstreamReply) {
			if strings.Contains(string(r.Choices[0].Message["tool_calls"]), `"id"`) {
				t.Errorf("tool_calls %s", r.Choices[0].Message["tool_calls"])
			}
		}},
		{"length_cutoff", func(t *testing.T, r upstreamReply) {
			if r.Choices[0].FinishReason != "length" {
				t.Errorf("finish_reason %q", r.Choices[0].FinishReason)
			}
		}},
	} {
		t.Run(tc.transform, func(t *testing.T) {
			front := start(t, shapes, Options{Upstream: up.URL(), Transform: tc.transform})
			st, _, body := post(t, front.URL(), "scripted", nil)
			if st != 200 {
				t.Fatalf("status %d: %s", st, body)
			}
			var r upstreamReply
			if err := json.Unmarshal(body, &r); err != nil || len(r.Choices) == 0 {
				t.Fatalf("reply %s: %v", body, err)
			}
			tc.check(t, r)
		})
	}
	// Upstream errors and their headers pass through untransformed.
	up429 := start(t, shapes, Options{Routes: []Route{{Shape: "groq_429_rate_limit_tpm"}}})
	front := start(t, shapes, Options{Upstream: up429.URL(), Transform: "deepseek"})
	st, h, body := post(t, front.URL(), "m", nil)
	if st != 429 || h.Get("Retry-After") != "7" || !strings.Contains(string(body), "Rate limit reached") {
		t.Errorf("proxied 429: %d retry-after %q %s", st, h.Get("Retry-After"), body)
	}
	if _, err := Start(shapes, Options{Transform: "nope"}); err == nil {
		t.Error("unknown transform accepted")
	}
}

// TestEchoChecks: a transformed reply that needs something back gets the provider's 400 when a later request
// drops it, and passes when it is there.
func TestEchoChecks(t *testing.T) {
	shapes := loadShapes(t)
	up := start(t, shapes, Options{Routes: []Route{{Shape: "openai_tool_call"}}})
	for _, tc := range []struct{ transform, want string }{
		{"deepseek", "reasoning_content in the thinking mode must be passed back"},
		{"gemini", "Function call is missing a thought_signature"},
	} {
		t.Run(tc.transform, func(t *testing.T) {
			front := start(t, shapes, Options{Upstream: up.URL(), Transform: tc.transform})
			_, _, body := post(t, front.URL(), "m", nil)
			var r upstreamReply
			json.Unmarshal(body, &r)
			asst := r.Choices[0].Message
			var calls []map[string]any
			json.Unmarshal(asst["tool_calls"], &calls)
			id := calls[0]["id"]
			user := map[string]any{"role": "user", "content": "hi"}
			tool := map[string]any{"role": "tool", "tool_call_id": id, "content": "ok"}
			// Dropped: only role and tool_calls (without extra_content) come back.
			bare := []map[string]any{}
			for _, c := range calls {
				bare = append(bare, map[string]any{"id": c["id"], "type": c["type"], "function": c["function"]})
			}
			st, _, out := post(t, front.URL(), "m", []any{user, map[string]any{"role": "assistant", "tool_calls": bare}, tool})
			if st != 400 || !strings.Contains(string(out), tc.want) {
				t.Errorf("dropped echo: %d %s", st, out)
			}
			if len(front.EchoErrors()) != 1 {
				t.Errorf("EchoErrors %v", front.EchoErrors())
			}
			// Kept: the assistant message as received.
			st, _, out = post(t, front.URL(), "m", []any{user, asst, tool})
			if st != 200 {
				t.Errorf("echoed: %d %s", st, out)
			}
			if len(front.EchoErrors()) != 1 {
				t.Errorf("EchoErrors after a good echo %v", front.EchoErrors())
			}
		})
	}
}

// uncapturedPhrases are classifier phrases no recorded body contains: names documented without a captured
// reply (Groq's RPD, OpenAI's billing_hard_limit_reached code, Anthropic's enforced_spend_limit_reached, Hugging
// Face's monthly credits, LiteLLM's ContentPolicyViolationError and end-user "over budget"), spellings of a
// recorded one (insufficient_credit), and generic wordings kept from the first round's table.
var uncapturedPhrases = map[string]bool{"per day (rpd)": true, "requests per day": true, "out of credit": true,
	"insufficient_credit": true, "exceeded your monthly included credits": true, "enforced_spend_limit_reached": true,
	"over budget": true, "billing_hard_limit_reached": true, "contentpolicyviolationerror": true, "invalid api key": true}

// Every entry of the classifier's phrase tables names a source, and (but for uncapturedPhrases) occurs in a
// recorded body: a shape here or a server body of llm/testdata/server_errors.json.
func TestPhraseTablesSourcedAndExercised(t *testing.T) {
	var corpus strings.Builder
	for _, s := range loadShapes(t) {
		corpus.Write(s.Body)
		if s.BodyText != nil {
			corpus.WriteString(*s.BodyText)
		}
		corpus.WriteString("\n")
	}
	b, err := os.ReadFile("../../llm/testdata/server_errors.json")
	if err != nil {
		t.Fatal(err)
	}
	corpus.Write(b)
	text := strings.ToLower(corpus.String())
	for _, tab := range llm.PhraseTables() {
		for _, p := range tab.Phrases {
			if strings.TrimSpace(p.Source) == "" {
				t.Errorf("%s %q has no source", tab.Name, p.Text)
			}
			if !strings.Contains(text, p.Text) && !uncapturedPhrases[p.Text] {
				t.Errorf("%s %q occurs in no recorded body", tab.Name, p.Text)
			}
		}
	}
}
