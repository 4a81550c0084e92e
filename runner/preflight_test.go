package runner

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
	"webbench/suites"
)

// shapeServer answers the preflight's tool call, except that a request carrying "temperature" gets OpenAI's
// 400 for a reasoning model's fixed sampling (the shape of "Unsupported value: 'temperature' does not support
// 0.7 with this model", https://platform.openai.com/docs/guides/reasoning). It records each request body.
type shapeServer struct {
	url    string
	mu     sync.Mutex
	bodies []map[string]any
}

func startShapeServer(t *testing.T) *shapeServer {
	t.Helper()
	s := &shapeServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if _, ok := body["temperature"]; ok {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`)
			return
		}
		io.WriteString(w, `{"id":"x","object":"chat.completion","model":"o4-mini","choices":[{"index":0,"finish_reason":"tool_calls",`+
			`"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"`+
			llm.PreflightTool+`","arguments":"{\"ok\":true}"}}]}}],"usage":{"prompt_tokens":40,"completion_tokens":9,"total_tokens":49}}`)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL + "/v1"
	return s
}

func (s *shapeServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// preflightPlan builds the plan of vs (one task) and their agents, without starting anything.
func preflightPlan(t *testing.T, vs []Variant) (Plan, map[string]*agentFor, []Attempt) {
	t.Helper()
	plan := Plan{Suite: "zoo", Tasks: []suites.Task{{ID: "t"}}, Reps: 1, Variants: vs, BaseSeed: 1}
	todo, err := plan.Expand()
	if err != nil {
		t.Fatal(err)
	}
	agents := map[string]*agentFor{}
	for i := range plan.Variants {
		v := &plan.Variants[i]
		af, err := newAgentFor(v, "")
		if err != nil {
			t.Fatal(err)
		}
		agents[v.Name] = af
	}
	return plan, agents, todo
}

// Arms on one endpoint that differ in a request-shaping setting get one preflight each; arms that differ only
// in what does not reach the request (guards, the connection cap) share one. An arm whose temperature the
// model rejects stops the run at the preflight, before any attempt, even when another arm on the same endpoint
// and model passed its preflight.
func TestPreflightPerRequestShape(t *testing.T) {
	srv := startShapeServer(t)
	m := Model{Kind: "openai", Name: "o4-mini", BaseURL: srv.url}
	f := func(x float32) *float32 { return &x }
	n := func(x int) *int { return &x }
	with := func(name string, edit func(*Model)) Variant {
		mm := m
		edit(&mm)
		return Variant{Name: name, Model: mm}
	}
	vs := []Variant{
		{Name: "baseline", Model: m},
		{Name: "no_guards", Model: m, Guards: map[string]bool{"repeat_guard": false}},
		with("capped", func(m *Model) { m.MaxConnections = 2 }),
		with("top_p", func(m *Model) { m.TopP = f(0.9) }),
		{Name: "no_seed", Model: m, Seed: "none"},
		with("omit_seed", func(m *Model) { m.Omit = []string{"seed"} }),
		with("max_tokens", func(m *Model) { m.MaxTokens = n(300) }),
		with("mt_field", func(m *Model) { m.MaxTokensField = "max_tokens" }),
	}
	plan, agents, todo := preflightPlan(t, vs)
	eps, err := preflight(context.Background(), plan, agents, todo, io.Discard)
	if err != nil {
		t.Fatalf("preflight: %v", err)
	}
	// baseline, no_guards and capped share; no_seed (seed mode none) and omit_seed are the same request; the rest differ.
	want := [][]string{{"baseline", "no_guards", "capped"}, {"top_p"}, {"no_seed", "omit_seed"}, {"max_tokens"}, {"mt_field"}}
	if len(eps) != len(want) || srv.count() != len(want) {
		t.Fatalf("%d endpoint entries, %d requests; want %d of each: %+v", len(eps), srv.count(), len(want), eps)
	}
	for i, ep := range eps {
		if strings.Join(ep.Variants, ",") != strings.Join(want[i], ",") || ep.Capabilities == nil || !ep.Capabilities.Tools {
			t.Errorf("entry %d: variants %v, capabilities %+v; want %v with tools", i, ep.Variants, ep.Capabilities, want[i])
		}
	}
	t.Logf("%d arms, %d preflights: %v", len(vs), srv.count(), want)

	// A temperature arm next to a passing baseline: its own preflight, which stops the run.
	before := srv.count()
	plan, agents, todo = preflightPlan(t, []Variant{{Name: "baseline", Model: m}, with("warm", func(m *Model) { m.Temp = f(0.7) })})
	_, err = preflight(context.Background(), plan, agents, todo, io.Discard)
	var ee *EndpointError
	if !errors.As(err, &ee) || ee.Variant != "warm" || !ee.Preflight || ee.ExitCode() != 2 ||
		!strings.Contains(ee.Error(), "temperature") {
		t.Fatalf("preflight with a rejected temperature on the second arm: %v; want warm's config EndpointError", err)
	}
	if got := srv.count() - before; got < 2 {
		t.Errorf("%d requests: the warm arm was not preflighted on its own", got)
	}
	t.Logf("second arm's rejected temperature: %v", ee)
}

// lockedBuffer is a strings.Builder safe for the run's concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The connection limiter's lines go to the run's log (Options.Log), not to standard error: a capped endpoint
// answers the preflight 429 (Retry-After: 0), then 404 model_not_found, which stops the run before the browser
// starts; the log holds the limiter's "2 → 1 after HTTP 429".
func TestLimiterLogsToRunLog(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"The model `+"`gpt-4o-mnii`"+` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`)
	}))
	t.Cleanup(srv.Close)
	s, err := suites.Open("zoo", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tasks, err := suites.Filter(s.Tasks(), "shop-qa-yoga-mat-thickness")
	if err != nil {
		t.Fatal(err)
	}
	v := Variant{Name: "default", Model: Model{Kind: "openai", Name: "gpt-4o-mnii", BaseURL: srv.URL + "/v1", MaxConnections: 2}}
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: []Variant{v}, BaseSeed: 1}
	var log lockedBuffer
	_, err = Run(context.Background(), plan, s, Options{OutDir: t.TempDir(), Workers: 1, Log: &log})
	var ee *EndpointError
	if !errors.As(err, &ee) || !ee.Preflight {
		t.Fatalf("run: %v; want the preflight's endpoint error", err)
	}
	want := "model endpoint " + srv.URL + "/v1 (gpt-4o-mnii): concurrency 2 → 1 after HTTP 429"
	if !strings.Contains(log.String(), want) {
		t.Errorf("run log lacks the limiter line (%q):\n%s", want, log.String())
	}
	t.Logf("run log:\n%s", log.String())
}
