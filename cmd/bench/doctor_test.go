package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"webbench/llm"
	"webbench/scripted"
)

// Error bodies bench doctor is tested against, each from its source.
const (
	// OpenAI's 404 for a model that does not exist, as quoted in openai/openai-agents-python#458
	// (https://github.com/openai/openai-agents-python/issues/458); "404 - model not found" in
	// https://platform.openai.com/docs/guides/error-codes.
	doctorModelNotFound = `{"error":{"message":"The model ` + "`gpt-4o-mini-typo`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`
	// OpenAI's 401 for a wrong key (the key masked by OpenAI), as quoted in continuedev/continue#9358
	// (https://github.com/continuedev/continue/issues/9358) and chatanywhere/GPT_API_free#62; "401 -
	// Incorrect API key provided" in https://platform.openai.com/docs/guides/error-codes.
	doctorBadKey = `{"error":{"message":"Incorrect API key provided: sk-docto**********3456. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
)

const doctorKey = "sk-doctortest-0123456789abcdef3456"

// doctor runs the bench binary's doctor with the key in $DOCTOR_KEY and returns stdout, stderr, exit code.
func doctor(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	out, errb, code := benchEnv(t, []string{"DOCTOR_KEY=" + doctorKey},
		append([]string{"doctor", "--api-key-env", "DOCTOR_KEY"}, args...)...)
	if strings.Contains(out+errb, doctorKey) || strings.Contains(out+errb, "0123456789abcdef") {
		t.Errorf("bench doctor %v printed the key:\n%s%s", args, out, errb)
	}
	return out, errb, code
}

// errorServer answers every chat request with status and body, recording the Authorization headers.
func errorServer(t *testing.T, status int, body string) (string, func() []string) {
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		auth = append(auth, r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), auth...) }
}

// The scripted policy on loopback (as bench policy serve runs it) passes: exit 0, tools yes, and a note that it is
// the policy; --model scripted starts its own; --json carries the same findings.
func TestDoctorScripted(t *testing.T) {
	srv := scripted.New(nil, scripted.Profile{})
	url, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	out, stderr, code := doctor(t, "--model", "openai:scripted", "--base-url", url)
	t.Logf("bench doctor --model openai:scripted --base-url %s:\n%s", url, out)
	for _, want := range []string{"endpoint:    " + url, "model:       scripted", "api key:     $DOCTOR_KEY is set",
		"tools:       yes", "seed:        accepted", "usage:       reported", "reasoning:   none seen",
		"max tokens:  no cap configured, none sent (--max-tokens N would send one as max_tokens)",
		"result:      ready for bench run"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// A real model's settings checked against the policy are named as such: it answers any model name.
	if want := "note: " + url + " is webbench's scripted policy (bench policy serve), not a model: it answers any " +
		"model name (\"scripted\" here)"; code != 0 || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d, stderr %q, want %q…", code, stderr, want)
	}
	out, _, code = doctor(t, "--json")
	var rep llm.Diagnosis
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || rep.Capabilities == nil ||
		!rep.Capabilities.Tools || !strings.HasPrefix(rep.Endpoint, "http://127.0.0.1:") || rep.Error != nil {
		t.Errorf("--model scripted --json: exit %d, %v, %s", code, err, out)
	}
}

// A mistyped model name: exit 2 with the class, the status, the server's message and a hint; one request.
func TestDoctorModelNotFound(t *testing.T) {
	url, reqs := errorServer(t, 404, doctorModelNotFound)
	out, stderr, code := doctor(t, "--model", "openai:gpt-4o-mini-typo", "--base-url", url)
	t.Logf("exit %d\n%s%s", code, out, stderr)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	for _, want := range []string{"error:       config (HTTP 404)", "type, code:  invalid_request_error, model_not_found",
		"message:     The model `gpt-4o-mini-typo` does not exist or you do not have access to it.", "hint:",
		"result:      a run on this endpoint would stop at its first call (exit 2)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if !strings.Contains(stderr, "does not exist") {
		t.Errorf("stderr %q", stderr)
	}
	if got := reqs(); len(got) != 1 || got[0] != "/v1/chat/completions Bearer "+doctorKey {
		t.Errorf("requests %q", got)
	}
}

// A wrong key: exit 3, the server's (masked) message shown, the key itself never printed — also when a server
// echoes it whole (synthetic body below).
func TestDoctorBadKey(t *testing.T) {
	url, _ := errorServer(t, 401, doctorBadKey)
	out, stderr, code := doctor(t, "--model", "openai:gpt-4o-mini", "--base-url", url)
	t.Logf("exit %d\n%s%s", code, out, stderr)
	if code != 3 || !strings.Contains(out, "error:       auth (HTTP 401)") ||
		!strings.Contains(out, "message:     Incorrect API key provided: sk-docto**********3456.") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
	// Synthetic: a server that echoes the key it was sent (doctor() fails the test if it shows up).
	echo := `{"error":{"message":"invalid key ` + doctorKey + `","type":"invalid_request_error","code":"invalid_api_key"}}`
	url, _ = errorServer(t, 401, echo)
	out, stderr, code = doctor(t, "--model", "openai:m", "--base-url", url, "--json")
	if code != 3 || !strings.Contains(out, `"class": "auth"`) {
		t.Errorf("echoing server: exit %d\n%s%s", code, out, stderr)
	}
}

// llama.cpp's server started with a context too small for even the check request (-c 256, say): its 400
// exceed_context_size_error, as server-context.cpp composes it (ggml-org/llama.cpp tools/server; the
// llamacpp_400_exceed_context_size replay shape). Doctor says so, not "is the server up?", with the
// context-window hint, and exits 2 as the run would (it stops at its preflight with the same hint).
func TestDoctorContextOverflow(t *testing.T) {
	const body = `{"error":{"code":400,"message":"request (312 tokens) exceeds the available context size (256 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":312,"n_ctx":256}}`
	url, _ := errorServer(t, 400, body)
	out, stderr, code := doctor(t, "--model", "openai:qwen3-8b", "--base-url", url)
	t.Logf("exit %d\n%s%s", code, out, stderr)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	for _, want := range []string{"error:       context_overflow (HTTP 400)",
		"message:     request (312 tokens) exceeds the available context size (256 tokens)",
		"hint:        the model's context window is too small for the system prompt, tools and first page",
		"result:      the model's context window cannot hold even this small request"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, "is the server up") {
		t.Errorf("overflow reported as an unreachable server:\n%s", out)
	}
	// bench run on the same endpoint stops at the preflight, exit 2, with the hint; nothing recorded.
	dir := t.TempDir()
	_, stderr, code = bench(t, "run", "--suite", "zoo", "--tasks", twoShopTasks, "--model", "openai:qwen3-8b",
		"--base-url", url, "--out", dir+"/run")
	if code != 2 || !strings.Contains(stderr, "at the preflight") || !strings.Contains(stderr, "Ollama num_ctx") {
		t.Errorf("run: exit %d\n%s", code, stderr)
	}
}
