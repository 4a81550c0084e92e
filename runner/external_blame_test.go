package runner

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"webbench/agent/guard"
	"webbench/internal/replay"
	"webbench/results"
)

// Who is to blame when an external agent's attempt goes wrong (one run, real processes, Chromium, the Zoo and
// the scripted policy behind internal/replay's recorded server shapes):
//   - e503: the agent's model call gets a real server's 503 (replay shape ollama_503_server_busy, source in
//     the shape file) and the agent exits: the endpoint's fault — status error, class infra (retried), the
//     error naming the HTTP status — never the agent's fail;
//   - e400: OpenAI's 400 invalid_request_error (openai_400_both_max_tokens_fields, class config) to the agent's own
//     request: the agent's fault — the run goes on, the attempt is the agent's failure (agent_crashed), and
//     the model step keeps the endpoint's error;
//   - segv: an agent killed by a signal is agent_crashed naming the signal, not "exit code -1";
//   - echo: a secret the agent's env took from webbench's environment (${WB_TEST_SECRET}) and the agent
//     printed is redacted in the kept stderr, and is in no file of the run directory;
//   - records name the agent that played them (results.Attempt.Agent).
func TestExternalAgentBlame(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s, tasks := zooShop(t, "shop-checkout-yoga-mat-express")
	up := startPolicy(t, s)
	srv, err := replay.StartRecorded(replay.Options{Upstream: up, UpstreamModels: []string{"scripted"},
		Routes: []replay.Route{{Model: "busy", Shape: "ollama_503_server_busy"},
			{Model: "bad-request", Shape: "openai_400_both_max_tokens_fields"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	const secret = "s3cret-from-the-environment-42"
	t.Setenv("WB_TEST_SECRET", secret)
	ad := agentsDir(t)
	m := Model{Kind: "openai", Name: "scripted", BaseURL: srv.URL()}
	react := func(model string) *AgentCmd {
		return &AgentCmd{Kind: "command", Run: []string{"./react.py"}, Dir: ad, Env: map[string]string{"WB_TEST_MODEL": model}}
	}
	vs := []Variant{
		{Name: "e503", Model: m, Guards: guard.Default(), Agent: react("busy")},
		{Name: "e400", Model: m, Guards: guard.Default(), Agent: react("bad-request")},
		{Name: "segv", Model: m, Guards: guard.Default(), Agent: &AgentCmd{Kind: "command", Run: []string{"./segv.sh"}, Dir: ad}},
		{Name: "echo", Model: m, Guards: guard.Default(), Agent: &AgentCmd{Kind: "command", Run: []string{"./envdump.py"},
			Dir: ad, Env: map[string]string{"WB_TEST_OUT": filepath.Join(t.TempDir(), "env.json"), "WB_TEST_ECHO": "${WB_TEST_SECRET}"}}},
	}
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: vs, BaseSeed: 1}
	dir := filepath.Join(t.TempDir(), "run")
	opts := Options{OutDir: dir, Workers: 2, Retries: 0, Log: io.Discard, BrowserEndpoint: sharedBrowser(t)}
	if _, err := Run(context.Background(), plan, s, opts); err != nil {
		t.Fatal(err)
	}
	run, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]results.Attempt{}
	for _, r := range run.Final() {
		recs[r.Variant] = r
	}
	if r := recs["e503"]; r.Status != results.StatusError || r.ErrorClass != results.ClassInfra ||
		!strings.Contains(r.Error, "HTTP 503") {
		t.Errorf("e503: status %s/%s, error %q; want error/infra naming HTTP 503", r.Status, r.ErrorClass, r.Error)
	}
	r := recs["e400"]
	if r.Status != results.StatusFail || r.FailureMode != results.ModeAgentCrashed {
		t.Errorf("e400: status %s, failure mode %s (%q); want the agent's fail, agent_crashed", r.Status, r.FailureMode, r.Error)
	} else if tr, err := run.Trajectory(r.AttemptID); err != nil {
		t.Error(err)
	} else if n := len(tr.Steps); n == 0 || !strings.Contains(tr.Steps[n-1].Error, "at the same time is not supported") {
		t.Errorf("e400: last step error %q, want the endpoint's message", tr.Steps[max(n-1, 0)].Error)
	}
	if r := recs["segv"]; r.FailureMode != results.ModeAgentCrashed || !strings.Contains(r.Error, `signal "segmentation fault"`) {
		t.Errorf("segv: failure mode %s, error %q; want agent_crashed naming the signal", r.FailureMode, r.Error)
	}
	if r := recs["echo"]; r.Agent != "command: ./envdump.py" || recs["segv"].Agent != "command: ./segv.sh" {
		t.Errorf("records name agents %q, %q", r.Agent, recs["segv"].Agent)
	} else if b, err := os.ReadFile(filepath.Join(dir, AgentsDir, r.AttemptID+".stderr")); err != nil ||
		!strings.Contains(string(b), "echo=[REDACTED]") {
		t.Errorf("echo: kept stderr %q (%v), want the secret redacted", b, err)
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), secret) {
				t.Errorf("%s holds the secret", p)
			}
		}
		return nil
	})
}
