package runner

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"webbench/agent/guard"
	"webbench/internal/replay"
	"webbench/llm"
	"webbench/results"
)

// An external agent that asks the endpoint for a model it does not serve gets OpenAI's documented 404
// model_not_found (internal/replay shape openai_404_model_not_found, source in the shape file) through the
// recording proxy. That is the endpoint's fault, not the agent's: the run stops with an *EndpointError of class
// config (exit code 2), as it does for the built-in agent, and no attempt is recorded as the agent's fail —
// never a mistyped model name reported as a 0 % agent score. The endpoint check before the run passes (the
// variant's own model name is served), so only the agent's call can find the mistake. The proxy also sends the
// variant's key upstream on the agent's behalf (the agent gets none: the model block names no variable), and
// the key is in no kept file.
func TestExternalAgentEndpointFatalStopsTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s, tasks := zooShop(t, "shop-checkout-yoga-mat-express")
	up := startPolicy(t, s)
	srv, err := replay.StartRecorded(replay.Options{Upstream: up, UpstreamModels: []string{"scripted"},
		Routes: []replay.Route{{Model: "gpt-4o-mnii", Shape: "openai_404_model_not_found"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	const key = "sk-variant-key-for-the-proxy-0123456789"
	t.Setenv("OPENAI_API_KEY", key)
	v := Variant{Name: "typo", Guards: guard.Default(),
		Model: Model{Kind: "openai", Name: "scripted", BaseURL: srv.URL()},
		Agent: &AgentCmd{Kind: "command", Run: []string{"./react.py"}, Dir: agentsDir(t),
			Env: map[string]string{"WB_TEST_MODEL": "gpt-4o-mnii"}}} // react.py sends this model name instead
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: []Variant{v}, BaseSeed: 1}
	dir := filepath.Join(t.TempDir(), "run")
	_, err = Run(context.Background(), plan, s, Options{OutDir: dir, Workers: 1, Retries: 0, Log: io.Discard,
		BrowserEndpoint: sharedBrowser(t)})
	var ee *EndpointError
	if !errors.As(err, &ee) {
		t.Fatalf("Run error = %v, want an *EndpointError", err)
	}
	if ee.Err.Class != llm.ErrorConfig || ee.Err.StatusCode != 404 || ee.ExitCode() != 2 ||
		!strings.Contains(ee.Err.Message, "gpt-4o-mnii") {
		t.Errorf("endpoint error = class %s, HTTP %d, exit %d, %q; want config, 404, 2, naming the model",
			ee.Err.Class, ee.Err.StatusCode, ee.ExitCode(), ee.Err.Message)
	}
	rr, err := results.ReadAttempts(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if rr != nil && len(rr.Latest) != 0 {
		t.Errorf("records %+v: the endpoint's error was recorded as an attempt", rr.Latest)
	}
	var mistyped, keyed int
	for _, r := range srv.Requests() {
		if r.N == 0 {
			continue
		}
		if r.Model == "gpt-4o-mnii" {
			mistyped++
			if r.Header.Get("Authorization") == "Bearer "+key {
				keyed++
			}
		}
	}
	if mistyped != 1 || keyed != 1 {
		t.Errorf("agent's calls with the mistyped model = %d (with the variant's key: %d), want 1 (1)", mistyped, keyed)
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), key) {
				t.Errorf("%s holds the API key", p)
			}
		}
		return nil
	})
}
