package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lastBody decodes the body of the last chat request the endpoint got for model.
func (e *endpoint) lastBody(t *testing.T, model string) map[string]any {
	t.Helper()
	var body map[string]any
	for _, r := range e.Requests() {
		if r.N > 0 && r.Model == model {
			body = nil
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if body == nil {
		t.Fatalf("no request for %s", model)
	}
	return body
}

// fields reports which of the request-shaping fields body carries, e.g. "max_tokens=512 seed=1".
func fields(body map[string]any) string {
	var out []string
	for _, k := range []string{"max_completion_tokens", "max_tokens", "seed", "temperature", "top_p"} {
		if v, ok := body[k]; ok {
			out = append(out, fmt.Sprintf("%s=%v", k, v))
		}
	}
	return strings.Join(out, " ")
}

// --omit, --max-tokens and --max-tokens-field reach the request on bench run, bench ablate (replacing the spec's omit and
// max_tokens / max_tokens_field on every arm) and bench doctor: the loopback endpoint records the preflight's body. The
// mistyped model name (gpt-4o-mnii) stops run and ablate at the preflight, so no browser starts; doctor talks
// to the scripted policy and prints the field it sent. Unknown values are refused before anything runs.
func TestRequestFlagsReachTheRequest(t *testing.T) {
	e := startEndpoint(t)
	dir := t.TempDir()

	// Defaults: a seed, no completion cap.
	_, _, code := bench(t, "run", "--suite", "zoo", "--tasks", twoShopTasks, "--model", "openai:gpt-4o-mnii",
		"--base-url", e.url, "--out", filepath.Join(dir, "default"))
	def := e.lastBody(t, "gpt-4o-mnii")
	if code != 2 || def["seed"] == nil || def["max_tokens"] != nil || def["max_completion_tokens"] != nil {
		t.Fatalf("default run: exit %d, request %s; want exit 2, a seed and no cap", code, fields(def))
	}
	t.Logf("bench run (no flags): %s", fields(def))

	_, stderr, code := bench(t, "run", "--suite", "zoo", "--tasks", twoShopTasks, "--model", "openai:gpt-4o-mnii",
		"--base-url", e.url, "--omit", "seed,top_p", "--max-tokens", "300", "--max-tokens-field", "max_tokens", "--out", filepath.Join(dir, "run"))
	body := e.lastBody(t, "gpt-4o-mnii")
	if code != 2 || body["seed"] != nil || body["max_completion_tokens"] != nil || body["max_tokens"] != float64(300) {
		t.Errorf("run --omit seed,top_p --max-tokens 300 --max-tokens-field max_tokens: exit %d, request %s\n%s", code, fields(body), stderr)
	}
	t.Logf("bench run --omit seed,top_p --max-tokens 300 --max-tokens-field max_tokens: %s", fields(body))

	spec := filepath.Join(dir, "spec.yaml")
	src := fmt.Sprintf(`name: flags
suite: zoo
tasks: %q
reps: 1
baseline:
  model: {kind: openai, name: gpt-4o-mnii, base_url: %q, temperature: 0.5, max_tokens: 2000, omit: [max_tokens], max_tokens_field: max_tokens}
variants:
  - name: no_repeat_guard
    guards: {repeat_guard: false}
`, twoShopTasks, e.url)
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = bench(t, "ablate", spec, "--omit", "temperature,seed", "--max-tokens-field", "max_completion_tokens",
		"--out", filepath.Join(dir, "ablate"))
	body = e.lastBody(t, "gpt-4o-mnii")
	if code != 2 || body["temperature"] != nil || body["seed"] != nil || body["max_tokens"] != nil ||
		body["max_completion_tokens"] != float64(512) {
		t.Errorf("ablate --omit temperature,seed --max-tokens-field max_completion_tokens: exit %d, request %s\n%s",
			code, fields(body), stderr)
	}
	t.Logf("bench ablate --omit temperature,seed --max-tokens-field max_completion_tokens (spec: omit [max_tokens], temperature 0.5, max_tokens 2000, lowered to 512 by the preflight): %s", fields(body))

	stdout, stderr, code := bench(t, "doctor", "--model", "openai:scripted", "--base-url", e.url, "--omit", "seed",
		"--max-tokens", "100", "--max-tokens-field", "max_completion_tokens")
	body = e.lastBody(t, "scripted")
	if code != 0 || body["seed"] != nil || body["max_tokens"] != nil || body["max_completion_tokens"] != float64(100) ||
		!strings.Contains(stdout, "sent as max_completion_tokens") || !strings.Contains(stdout, "seed:        not sent") {
		t.Errorf("doctor --omit seed --max-tokens 100 --max-tokens-field max_completion_tokens: exit %d, request %s\n%s%s", code,
			fields(body), stdout, stderr)
	}
	t.Logf("bench doctor --omit seed --max-tokens 100 --max-tokens-field max_completion_tokens: %s", fields(body))

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--omit", "temprature", "--dry-run"}, `unknown field "temprature"`},
		{[]string{"run", "--max-tokens-field", "max_toks", "--max-tokens", "9", "--dry-run"}, `max_tokens_field "max_toks"`},
		{[]string{"run", "--max-tokens-field", "max_tokens", "--dry-run"}, "no completion cap is sent without --max-tokens"},
		{[]string{"run", "--max-tokens", "0", "--dry-run"}, "--max-tokens 0: must be at least 1"},
		{[]string{"ablate", "suites/zoo/ablations/demo.yaml", "--omit", "sed", "--dry-run"}, `unknown field "sed"`},
		{[]string{"doctor", "--max-tokens-field", "completion", "--max-tokens", "9"}, `max_tokens_field "completion"`},
		{[]string{"doctor", "--max-tokens-field", "max_tokens"}, "no completion cap is sent without --max-tokens"},
	} {
		_, stderr, code := bench(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("bench %v: exit %d, %s; want exit 2 with %s", c.args, code, stderr, c.want)
		}
	}
}
