package main

// Issue 13, the run side: full `bench run`s over Zoo tasks against internal/replay's loopback server, which
// answers with real model servers' recorded replies (internal/replay/testdata/shapes/*.json, each with its
// source: OpenAI's 404 model_not_found and 429 insufficient_quota, vLLM's string-error 401, OpenAI's 400
// context_length_exceeded) or proxies to the scripted policy, rewriting its replies into DeepSeek's
// thinking-mode shape (reasoning_content, required back on every assistant message of a tool-call turn).

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"webbench/agent"
	"webbench/internal/replay"
	"webbench/results"
	"webbench/scripted"
	"webbench/suites"
)

// endpoint is a replay server, chosen by the request's model name:
//
//	gpt-4o-mnii       openai_404_model_not_found (a mistyped gpt-4o-mini)
//	vllm-key          vllm_401_unauthorized, {"error":"Unauthorized"}
//	broke             openai_429_insufficient_quota
//	broke-later       the scripted policy for 3 calls, then openai_429_insufficient_quota
//	scripted          the scripted policy, unchanged
//	deepseek-reasoner the scripted policy in DeepSeek's thinking-mode shape, without usage
//	                  (transforms "deepseek+no_usage")
//	small-context     the scripted policy for the preflight, then openai_400_maximum_context_length
type endpoint struct {
	*replay.Server
	url string
}

// startScriptedPolicy starts the scripted policy (clean profile) over the Zoo tasks on loopback for the test
// and returns its base URL (with /v1).
func startScriptedPolicy(t *testing.T) string {
	t.Helper()
	url, stop, err := newScriptedPolicy()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return url
}

// newScriptedPolicy starts the scripted policy (clean profile) over the Zoo tasks on loopback and returns its
// base URL (with /v1) and the function that stops it.
func newScriptedPolicy() (string, func(), error) {
	s, err := suites.Open("zoo", nil)
	if err != nil {
		return "", nil, err
	}
	pol, url, err := scripted.StartLoopback(s.Tasks(), "clean")
	if err != nil {
		s.Close()
		return "", nil, err
	}
	return url, func() { pol.Close(); s.Close() }, nil
}

func startEndpoint(t *testing.T) *endpoint {
	t.Helper()
	e, stop, err := newEndpoint()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return e
}

// newEndpoint starts a scripted policy and the replay server in front of it (endpoint, its routes) and returns
// it and the function that stops both.
func newEndpoint() (*endpoint, func(), error) {
	up, stopPolicy, err := newScriptedPolicy()
	if err != nil {
		return nil, nil, err
	}
	routes := []replay.Route{
		{Model: "gpt-4o-mnii", Shape: "openai_404_model_not_found"},
		{Model: "vllm-key", Shape: "vllm_401_unauthorized"},
		{Model: "broke", Shape: "openai_429_insufficient_quota"},
		{Model: "deepseek-reasoner", Transform: "deepseek+no_usage"},
		{Model: "small-context", Call: 1},
	}
	for k := 4; k <= 64; k++ {
		routes = append(routes, replay.Route{Model: "broke-later", Call: k, Shape: "openai_429_insufficient_quota"})
	}
	routes = append(routes, replay.Route{Model: "small-context", Shape: "openai_400_maximum_context_length"})
	srv, err := replay.StartRecorded(replay.Options{Upstream: up, Routes: routes,
		UpstreamModels: []string{"scripted", "broke-later"}})
	if err != nil {
		stopPolicy()
		return nil, nil, err
	}
	return &endpoint{Server: srv, url: srv.URL()}, func() { srv.Close(); stopPolicy() }, nil
}

// Calls is the number of chat requests the endpoint got for model.
func (e *endpoint) Calls(model string) int {
	n := 0
	for _, r := range e.Requests() {
		if r.N > 0 && r.Model == model {
			n++
		}
	}
	return n
}

// reasoningRE matches the reasoning the deepseek transform adds (replay.ReasoningText).
var reasoningRE = regexp.MustCompile(`^Step \d+: I read the page snapshot and decide on the next action\.$`)

// endpointTasks are the Zoo tasks of these runs: two shop questions, a checkout, a booking (the scripted
// policy's clean profile passes all four).
const endpointTasks = "shop-qa-yoga-mat-thickness,shop-qa-hero-hoodie-sku,shop-checkout-cork-blocks-standard,stays-book-santa-cruz-suites-seville"

// twoQuestions are endpointTasks' two shop questions (the clean scripted policy answers them in 3 and 2 model
// calls), for the runs that need two attempts and not the longer checkout and booking.
const twoQuestions = "shop-qa-yoga-mat-thickness,shop-qa-hero-hoodie-sku"

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
// The runs are the package's shared mistypedThenFixed (TestReasoningShapePassesLikePlain compares with the
// second).
func TestMistypedModelExitsTwoAndResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	m := shared(t, mistypedThenFixed)
	if m.stopCode != 2 || !strings.Contains(m.stopStderr, "The model `gpt-4o-mnii` does not exist") ||
		!strings.Contains(m.stopStderr, "config") ||
		!strings.Contains(m.stopStderr, "fix the model settings (the hint above) and re-run; the run directory resumes") {
		t.Fatalf("mistyped model: exit %d, stderr:\n%s\nwant exit 2 with the server's message", m.stopCode, m.stopStderr)
	}
	t.Logf("stderr of the stopped run:\n%s", m.stopStderr)
	for _, r := range m.afterStop {
		if r.Status == results.StatusFail {
			t.Errorf("config error recorded as an agent failure: %+v", r)
		}
	}
	if n := len(m.afterStop); n != 0 {
		t.Errorf("%d records written by a run stopped at the preflight", n)
	}
	if m.mistypedCalls != 1 {
		t.Errorf("the endpoint got %d calls for the mistyped model, want 1 (the preflight)", m.mistypedCalls)
	}
	// Fixed: the same directory, the right model name.
	if m.fixCode != 0 {
		t.Fatalf("resumed run with the right model: exit %d\n%s", m.fixCode, m.fixStderr)
	}
	recs := finalRecords(t, m.dir)
	if len(recs) != 4 {
		t.Fatalf("resumed run holds %d attempts, want 4", len(recs))
	}
	for _, r := range recs {
		if r.Status != "pass" {
			t.Errorf("%s: %s after the fix", r.TaskID, r.Status)
		}
	}
	run, err := results.Open(m.dir)
	if err != nil {
		t.Fatal(err)
	}
	if eps := run.Manifest.Endpoints; len(eps) != 1 || eps[0].Model != "scripted" || eps[0].BaseURL != m.url ||
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
	t.Parallel()
	e := startEndpoint(t)
	for _, c := range []struct{ model, want string }{{"vllm-key", "Unauthorized"}, {"broke", "You exceeded your current quota"}} {
		out := filepath.Join(t.TempDir(), c.model)
		_, stderr, code := bench(t, endpointRun(e, out, c.model)...)
		if code != 3 || !strings.Contains(stderr, c.want) ||
			!strings.Contains(stderr, "fix the key or the account's credit and re-run the same command to resume") {
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
// assistant message; the endpoint sends no usage, so the tokens are estimated and the report says so. The plain
// run is the package's shared mistypedThenFixed: the same tasks, the policy's replies unchanged through the
// same kind of endpoint (the mistyped run before it recorded nothing).
func TestReasoningShapePassesLikePlain(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	m := shared(t, mistypedThenFixed)
	if m.fixCode != 0 {
		t.Fatalf("plain run: exit %d\n%s", m.fixCode, m.fixStderr)
	}
	e := startEndpoint(t)
	plain, think := m.dir, filepath.Join(t.TempDir(), "think")
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
	if errs := e.EchoErrors(); len(errs) != 0 {
		t.Errorf("reasoning_content not sent back: %v", errs)
	}
	echoed := 0
	for _, r := range e.Requests() {
		if r.Model == "deepseek-reasoner" {
			echoed += strings.Count(string(r.Body), `"reasoning_content":"Step `)
		}
		if r.Model == "deepseek-reasoner" && r.Status != 200 {
			t.Errorf("request %d answered %d (%s)", r.N, r.Status, r.Served)
		}
	}
	if echoed == 0 {
		t.Error("no request carried a reasoning_content back")
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
			if !reasoningRE.MatchString(st.Reasoning) || st.ReasoningFrom != "reasoning_content" {
				t.Errorf("%s step %d: reasoning %q from %q", r.TaskID, st.Index, st.Reasoning, st.ReasoningFrom)
			}
			if strings.Contains(st.Content, "I read the page snapshot") {
				t.Errorf("%s step %d: reasoning left in the content", r.TaskID, st.Index)
			}
		}
	}
	t.Logf("reasoning run: %d steps with reasoning recorded, reasoning_content sent back %d times", steps, echoed)
	if eps := run.Manifest.Endpoints; len(eps) != 1 || eps[0].Capabilities == nil ||
		eps[0].Capabilities.ReasoningField != "reasoning_content" {
		t.Errorf("manifest endpoints %+v, want the preflight's reasoning field reasoning_content", eps)
	}
	// No usage was sent: the report says the tokens are estimated.
	if _, stderr, code := bench(t, "report", think); code != 0 ||
		!strings.Contains(stderr, "4 of 4 attempts' tokens are estimated: the endpoint sent no usage") {
		t.Errorf("report: exit %d, stderr %q; want the estimated-tokens warning", code, stderr)
	}
	for _, r := range run.Final() {
		if !r.Tokens.Estimated || r.Tokens.Prompt == 0 {
			t.Errorf("%s: tokens %+v, want estimated", r.TaskID, r.Tokens)
		}
	}
	// The HTML attempt pages show the reasoning, collapsed.
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

// overflowProxy is a loopback endpoint in front of e that answers OpenAI's 400 context_length_exceeded
// (openai_400_maximum_context_length) to every chat request carrying at least after tool results, and passes
// the others on to e unchanged: a model whose context fills up after that many tool calls.
func overflowProxy(t *testing.T, e *endpoint, after int) string {
	t.Helper()
	sh := e.Shape("openai_400_maximum_context_length")
	if sh == nil {
		t.Fatal("no shape openai_400_maximum_context_length")
	}
	target, _ := url.Parse(e.RootURL())
	rp := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(body, &req)
		tools := 0
		for _, m := range req.Messages {
			if m.Role == "tool" {
				tools++
			}
		}
		if strings.HasSuffix(r.URL.Path, "/chat/completions") && tools >= after {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(sh.Status)
			w.Write(sh.Body)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// (d) A context overflow on an attempt's first model call (the preflight passed, then OpenAI's
// context_length_exceeded: the system prompt, the tools and the first page do not fit) is a configuration
// error: the run stops with exit 2 and the context-window hint, nothing recorded. An overflow once the
// attempt has a tool result is the agent's failure: status fail, failure_mode context_overflow, the server's
// message in the record; the run is not stopped.
func TestContextOverflowIsAgentFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	e := startEndpoint(t)
	out := filepath.Join(t.TempDir(), "first")
	_, stderr, code := bench(t, endpointRun(e, out, "small-context")...)
	if code != 2 || !strings.Contains(stderr, "maximum context length is 4097 tokens") ||
		!strings.Contains(stderr, agent.ContextWindowHint) ||
		!strings.Contains(stderr, "fix the model settings (the hint above) and re-run") {
		t.Fatalf("overflow at the first call: exit %d, stderr:\n%s\nwant exit 2 with the context-window hint", code, stderr)
	}
	if n := len(readRecords(t, out)); n != 0 {
		t.Errorf("overflow at the first call: %d records, want none", n)
	}
	// The preflight, then at most one first call per worker (2) before the run stopped.
	if n := e.Calls("small-context"); n > 3 {
		t.Errorf("overflow at the first call: %d calls, want at most 3", n)
	}
	t.Logf("overflow at the first call: exit %d after %d calls; stderr: %s", code, e.Calls("small-context"),
		strings.TrimSpace(stderr))

	out = filepath.Join(t.TempDir(), "later")
	_, stderr, code = bench(t, "run", "--suite", "zoo", "--tasks", endpointTasks, "--reps", "1", "--workers", "2",
		"--model", "openai:scripted", "--base-url", overflowProxy(t, e, 1), "--out", out)
	if code != 0 {
		t.Fatalf("overflow after the first tool result: exit %d\n%s", code, stderr)
	}
	recs := readRecords(t, out)
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	for _, r := range recs {
		if r.Status != results.StatusFail || r.ErrorClass != results.ClassAgent ||
			r.FailureMode != results.ModeContextOverflow || r.FinishReason != results.FinishContextOverflow ||
			!strings.Contains(r.Error, "maximum context length is 4097 tokens") || r.Steps < 2 {
			t.Errorf("%s: status %s, class %s, mode %s, finish %s, %d steps, error %q", r.TaskID, r.Status, r.ErrorClass,
				r.FailureMode, r.FinishReason, r.Steps, r.Error)
		}
	}
	t.Logf("overflow after the first tool result: exit 0, %d records fail/context_overflow", len(recs))
}
