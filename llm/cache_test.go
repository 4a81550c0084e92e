package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"webbench/internal/replay"
	"webbench/llm"
)

var cacheTools = []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
	Name: "browser_click", Parameters: json.RawMessage(`{"type":"object","properties":{"ref":{"type":"string"}}}`)}}}

func cacheClient(t *testing.T, model, base string) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{Model: model, BaseURL: base, Retries: 1, CallTimeout: 5 * time.Second,
		APIKeyEnv: "CACHE_TEST_NO_KEY"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func firstTurn() []openai.ChatCompletionMessage {
	return []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: "You are a web agent."},
		{Role: openai.ChatMessageRoleUser, Content: "Task: find the title.\n\n- heading \"Zoo Notes\" [ref=e1]"}}
}

// startCache starts a replay server over the recorded shapes (with opts) and opens a cache in a fresh directory,
// whose path it returns too.
func startCache(t *testing.T, opts replay.Options) (*replay.Server, *llm.Cache, string) {
	t.Helper()
	srv, err := replay.StartRecorded(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dir := t.TempDir()
	cache, err := llm.OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	return srv, cache, dir
}

// same compares what the agent reads of two responses (timings and the cached mark aside).
func same(a, b *llm.Response) bool {
	return reflect.DeepEqual(a.Message, b.Message) && a.Reasoning == b.Reasoning && a.ReasoningFrom == b.ReasoningFrom &&
		a.Refusal == b.Refusal && a.FinishReason == b.FinishReason && reflect.DeepEqual(a.Extra, b.Extra) &&
		a.Usage == b.Usage
}

// Every successful recorded provider shape is stored on the first call and replayed on the second, by a new
// client (a re-run) that sends nothing: the response is the one the endpoint gave, ids generated for tool calls
// without one included.
func TestCacheReplaysRecordedShapes(t *testing.T) {
	shapes, err := replay.Shapes()
	if err != nil {
		t.Fatal(err)
	}
	srv, cache, _ := startCache(t, replay.Options{})
	n := 0
	for _, sh := range shapes {
		if sh.Expect.Class != replay.ClassOK || len(sh.Then) > 0 || sh.ServeAt != "" {
			continue
		}
		n++
		req := llm.Request{Messages: firstTurn(), Tools: cacheTools}
		req.Cache = cache.Session(llm.CacheScope{Rep: 0})
		first, err := cacheClient(t, sh.Name, srv.URL()).Chat(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", sh.Name, err)
		}
		before := srv.Count()
		req.Cache = cache.Session(llm.CacheScope{Rep: 0})
		again, err := cacheClient(t, sh.Name, srv.URL()).Chat(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: replay: %v", sh.Name, err)
		}
		if srv.Count() != before {
			t.Errorf("%s: the replay reached the server", sh.Name)
		}
		if first.Cached || !again.Cached || !same(first, again) {
			t.Errorf("%s: replayed %+v (cached %v), want %+v", sh.Name, again, again.Cached, first)
		}
		if st := req.Cache.Stats(); st != (llm.CacheStats{Replayed: 1}) {
			t.Errorf("%s: stats %+v", sh.Name, st)
		}
		// Another rep is another sample: it is sent.
		req.Cache = cache.Session(llm.CacheScope{Rep: 1})
		if r, err := cacheClient(t, sh.Name, srv.URL()).Chat(context.Background(), req); err != nil || r.Cached {
			t.Errorf("%s: rep 1: cached %v, err %v", sh.Name, r != nil && r.Cached, err)
		}
	}
	if n < 20 {
		t.Fatalf("only %d successful shapes", n)
	}
}

// Error replies and 2xx failures are never stored: the next run asks the endpoint again.
func TestCacheStoresNoErrors(t *testing.T) {
	srv, cache, dir := startCache(t, replay.Options{})
	for _, name := range []string{"openai_401_invalid_api_key", "openai_400_maximum_context_length",
		"deepseek_200_insufficient_system_resource", "malformed_200", "nginx_502_html"} {
		if srv.Shape(name) == nil {
			t.Fatalf("no shape %s", name)
		}
		for run := 0; run < 2; run++ {
			before := srv.Count()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			_, err := cacheClient(t, name, srv.URL()).Chat(ctx, llm.Request{Messages: firstTurn(),
				Cache: cache.Session(llm.CacheScope{})})
			cancel()
			if err == nil {
				t.Fatalf("%s: no error", name)
			}
			if srv.Count() == before {
				t.Errorf("%s run %d: answered without the server", name, run)
			}
		}
	}
	if files := cacheFiles(t, dir); len(files) != 0 {
		t.Errorf("error replies stored: %v", files)
	}
}

func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// turn is one scripted conversation: the model's replies come from a replay server's routes (call 1 a tool
// call, later calls the shapes after it), the tool results from the test.
func converse(t *testing.T, c *llm.Client, s *llm.CacheSession, results []string) []*llm.Response {
	t.Helper()
	msgs := firstTurn()
	var out []*llm.Response
	for i := 0; ; i++ {
		resp, err := c.Chat(context.Background(), llm.Request{Messages: msgs, Tools: cacheTools, Seed: new(7), Cache: s})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, resp)
		if i == len(results) {
			return out
		}
		msgs = append(msgs, resp.Message)
		for _, tc := range resp.Message.ToolCalls {
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: tc.ID,
				Content: results[i]})
		}
		if len(resp.Message.ToolCalls) == 0 {
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: results[i]})
		}
	}
}

// A re-run replays the conversation until its first request that differs, then sends every later request
// (also one that matches a stored key again); a third run identical to the second is free.
func TestCacheStopsAtFirstDivergence(t *testing.T) {
	// missing_tool_call_id: a tool call without id (the id is generated and must be the same on replay, or the
	// second request would miss); groq_tool_call and lmstudio_tool_call: tool calls with the provider's ids.
	srv, cache, _ := startCache(t, replay.Options{Routes: []replay.Route{{Model: "conv", Shape: "missing_tool_call_id"}}})
	scope := llm.CacheScope{Rep: 2}
	run := func(results []string) ([]*llm.Response, llm.CacheStats, int) {
		before := srv.Count()
		s := cache.Session(scope)
		out := converse(t, cacheClient(t, "conv", srv.URL()), s, results)
		return out, s.Stats(), srv.Count() - before
	}
	a, st, sent := run([]string{"page one", "page two", "page three"})
	if st != (llm.CacheStats{Sent: 4, Diverged: true}) || sent != 4 {
		t.Fatalf("first run: %+v, %d sent", st, sent)
	}
	if len(a[0].Message.ToolCalls) == 0 || !strings.HasPrefix(a[0].Message.ToolCalls[0].ID, "call_wb_") {
		t.Fatalf("want a generated tool-call id, got %+v", a[0].Message.ToolCalls)
	}
	b, st, sent := run([]string{"page one", "page two", "page three"})
	if st != (llm.CacheStats{Replayed: 4}) || sent != 0 {
		t.Fatalf("unchanged re-run: %+v, %d sent", st, sent)
	}
	for i := range a {
		if !same(a[i], b[i]) || !b[i].Cached {
			t.Errorf("call %d replayed %+v, want %+v", i, b[i], a[i])
		}
	}
	// The second tool result changes: calls 1-2 replay, call 3 diverges, call 4 is sent although a later
	// request could have been keyed again.
	c, st, sent := run([]string{"page one", "page TWO", "page three"})
	if st != (llm.CacheStats{Replayed: 2, Sent: 2, Diverged: true}) || sent != 2 {
		t.Fatalf("variant: %+v, %d sent", st, sent)
	}
	if !c[0].Cached || !c[1].Cached || c[2].Cached || c[3].Cached {
		t.Errorf("cached marks %v %v %v %v", c[0].Cached, c[1].Cached, c[2].Cached, c[3].Cached)
	}
	if _, st, sent = run([]string{"page one", "page TWO", "page three"}); st.Replayed != 4 || sent != 0 {
		t.Errorf("re-run of the variant: %+v, %d sent", st, sent)
	}
}

// The API key and credentials in the base URL reach the endpoint but neither the key nor the files; a call
// made with another key replays.
func TestCacheKeepsNoSecrets(t *testing.T) {
	const secret, urlSecret, userSecret = "sk-cachetest-0123456789abcdef", "azsig0123456789", "hunter2pass"
	t.Setenv("CACHE_TEST_KEY", secret)
	srv, cache, dir := startCache(t, replay.Options{})
	if ep := llm.CacheEndpoint("https://U:" + userSecret + "@Gw.Example/v1/?api-version=2024-10-21&sig=" + urlSecret); ep != "https://gw.example/v1?api-version=2024-10-21" {
		t.Fatalf("endpoint %q", ep)
	}
	base := strings.Replace(srv.URL(), "http://", "http://user:"+userSecret+"@", 1)
	call := func(keyEnv string) *llm.Response {
		c, err := llm.New(llm.Config{Model: "groq_tool_call", BaseURL: base, APIKeyEnv: keyEnv, Retries: 1})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Chat(context.Background(), llm.Request{Messages: firstTurn(), Tools: cacheTools,
			Cache: cache.Session(llm.CacheScope{})})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if r := call("CACHE_TEST_KEY"); r.Cached {
		t.Fatal("first call replayed")
	}
	reqs := srv.Requests()
	if got := reqs[len(reqs)-1].Header.Get("Authorization"); got != "Bearer "+secret {
		t.Fatalf("the endpoint got Authorization %q", got)
	}
	t.Setenv("CACHE_TEST_OTHER_KEY", "sk-another-key-9876543210")
	if r := call("CACHE_TEST_OTHER_KEY"); !r.Cached {
		t.Error("a call with another API key was not replayed: the key depends on the API key")
	}
	files := cacheFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, s := range []string{secret, urlSecret, userSecret, "Bearer", "Authorization"} {
			if strings.Contains(string(b), s) || strings.Contains(f, s) {
				t.Errorf("%s holds %q", f, s)
			}
		}
	}
}

// The environment's per-run strings (a loopback origin, a tenant path) are placeholders in the key and the
// stored response: a re-run on another port and tenant replays, with its own URLs in the replayed reply.
func TestCacheVolatileStrings(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		calls++
		mu.Unlock()
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		_ = json.Unmarshal(body, &req)
		u := strings.Fields(req.Messages[len(req.Messages)-1].Content)[0]
		args, _ := json.Marshal(map[string]string{"url": u + "cart"})
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"browser_navigate","arguments":%q}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":9,"completion_tokens":4}}`, args)
	}))
	defer srv.Close()
	cache, _ := llm.OpenCache(t.TempDir())
	ask := func(origin, tenant string) string {
		s := cache.Session(llm.CacheScope{Endpoint: "test", Volatile: []string{origin, tenant}})
		resp, err := cacheClient(t, "m", srv.URL).Chat(context.Background(), llm.Request{Cache: s,
			Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: origin + tenant + " is the shop"}}})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Message.ToolCalls[0].Function.Arguments
	}
	if got := ask("http://127.0.0.1:40001", "/t/aaaa/"); got != `{"url":"http://127.0.0.1:40001/t/aaaa/cart"}` {
		t.Fatalf("first run: %s", got)
	}
	if got := ask("http://127.0.0.1:40777", "/t/bbbb/"); got != `{"url":"http://127.0.0.1:40777/t/bbbb/cart"}` || calls != 1 {
		t.Errorf("re-run on another origin: %s after %d calls", got, calls)
	}
}

// Parallel sessions writing and reading the same keys leave whole entries and no temporary files.
func TestCacheConcurrent(t *testing.T) {
	srv, cache, dir := startCache(t, replay.Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := cacheClient(t, "ollama_tool_call", srv.URL())
			_, err := c.Chat(context.Background(), llm.Request{Messages: firstTurn(), Tools: cacheTools,
				Cache: cache.Session(llm.CacheScope{Rep: i % 4})})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	files := cacheFiles(t, dir)
	if len(files) != 4 {
		t.Fatalf("want 4 entries (one per rep), got %v", files)
	}
	for _, f := range files {
		var e llm.CacheEntry
		b, _ := os.ReadFile(f)
		if err := json.Unmarshal(b, &e); err != nil || e.SchemaVersion != llm.CacheSchema ||
			filepath.Base(f) != e.Key+".json" {
			t.Errorf("%s: %v %+v", f, err, e)
		}
	}
	before := srv.Count()
	for rep := 0; rep < 4; rep++ {
		r, err := cacheClient(t, "ollama_tool_call", srv.URL()).Chat(context.Background(), llm.Request{
			Messages: firstTurn(), Tools: cacheTools, Cache: cache.Session(llm.CacheScope{Rep: rep})})
		if err != nil || !r.Cached {
			t.Errorf("rep %d: cached %v, %v", rep, r != nil && r.Cached, err)
		}
	}
	if srv.Count() != before {
		t.Error("replays reached the server")
	}
}

// BenchmarkCacheKey keys a request the size of a Zoo checkout step's (about 14 KB: the system prompt, the goal,
// one whole page snapshot and a dozen short tool results), the cost the cache adds to every call.
func BenchmarkCacheKey(b *testing.B) {
	msgs := firstTurn()
	snap := strings.Repeat("- link \"Yoga mat, 6 mm, blue\" [ref=e42]:\n  - /url: /t/abcd/shop/p/yoga-mat\n", 140)
	msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: snap})
	for i := 0; i < 12; i++ {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "clicking"},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "### Result\nClicked."})
	}
	body, err := json.Marshal(map[string]any{"model": "m", "messages": msgs, "tools": cacheTools, "seed": 7})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := llm.CacheKey("http://127.0.0.1:1/v1", 0, nil, body); err != nil {
			b.Fatal(err)
		}
	}
}

// countingServer answers every chat request with the content "reply N" (N: the request's number) once release is
// closed, counting the requests that arrived (got).
func countingServer(t *testing.T, release <-chan struct{}) (*httptest.Server, func() int) {
	t.Helper()
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		<-release
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"choices":[{"message":{"role":"assistant","content":"reply %d"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":4}}`, n)
	}))
	t.Cleanup(srv.Close)
	return srv, func() int { mu.Lock(); defer mu.Unlock(); return calls }
}

// Two identical requests in flight at once (the arms of a pair before a guard changes one) reach the endpoint
// once: the second waits and gets the first's reply, the one stored, so a re-run replays what both received.
func TestCacheSingleFlight(t *testing.T) {
	release := make(chan struct{})
	srv, got := countingServer(t, release)
	cache, _ := llm.OpenCache(t.TempDir())
	msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "open the shop"}}
	out := make([]string, 2)
	cached := make([]bool, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := cacheClient(t, "m", srv.URL).Chat(context.Background(), llm.Request{Messages: msgs,
				Cache: cache.Session(llm.CacheScope{Endpoint: "test"})})
			if err != nil {
				t.Error(err)
				return
			}
			out[i], cached[i] = resp.Message.Content, resp.Cached
		}()
	}
	for got() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(150 * time.Millisecond) // the second request reaches the server now unless it waits
	close(release)
	wg.Wait()
	if got() != 1 || out[0] != "reply 1" || out[1] != "reply 1" {
		t.Fatalf("%d requests sent, replies %q", got(), out)
	}
	if cached[0] == cached[1] {
		t.Errorf("exactly one reply should be marked cached (the waiter's): %v", cached)
	}
	resp, err := cacheClient(t, "m", srv.URL).Chat(context.Background(), llm.Request{Messages: msgs,
		Cache: cache.Session(llm.CacheScope{Endpoint: "test"})})
	if err != nil || resp.Message.Content != "reply 1" || got() != 1 {
		t.Errorf("re-run: %v, %v after %d requests", resp, err, got())
	}
}

// A second sample of a stored request (sent by a session that diverged earlier) does not replace the entry:
// the first writer wins, so the session that replayed or stored it first is reproduced on a re-run.
func TestCacheFirstWriterWins(t *testing.T) {
	release := make(chan struct{})
	close(release)
	srv, got := countingServer(t, release)
	cache, _ := llm.OpenCache(t.TempDir())
	ask := func(s *llm.CacheSession, content string) string {
		resp, err := cacheClient(t, "m", srv.URL).Chat(context.Background(), llm.Request{Cache: s,
			Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: content}}})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Message.Content
	}
	scope := llm.CacheScope{Endpoint: "test"}
	if r := ask(cache.Session(scope), "same"); r != "reply 1" {
		t.Fatalf("first: %q", r)
	}
	diverged := cache.Session(scope)
	if r := ask(diverged, "other"); r != "reply 2" {
		t.Fatalf("divergence: %q", r)
	}
	if r := ask(diverged, "same"); r != "reply 3" {
		t.Fatalf("a diverged session sends: %q", r)
	}
	if r := ask(cache.Session(scope), "same"); r != "reply 1" || got() != 3 {
		t.Errorf("re-run replays %q after %d requests, want the first writer's reply 1", r, got())
	}
}

// The attempt's seed is part of the key even when the request does not carry it: other seeds are other keys.
func TestCacheKeySeed(t *testing.T) {
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"open the shop"}]}`)
	key := func(seed *int) string {
		k, err := llm.CacheKey("http://127.0.0.1:1/v1", 0, seed, body)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	s11, s11b, s12 := 11, 11, 12
	if key(&s11) != key(&s11b) {
		t.Error("the same seed keys differently")
	}
	if key(&s11) == key(&s12) || key(&s11) == key(nil) {
		t.Error("another seed (or none) keys the same")
	}
}
