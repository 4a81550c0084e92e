package main

import (
	"path/filepath"
	"strings"
	"testing"

	"webbench/internal/replay"
)

// Full bench runs over the replay server in front of the scripted policy, where what webbench sends back
// used to end the run after a preflight that passed:
//   - LiteLLM in front of Mistral under a model alias: every reply carries reasoning_content and the backend
//     refuses it back (422 extra_forbidden). The first refusal is retried without the field and the run goes
//     on: exit 0, every attempt recorded.
//   - a reply cut at the token limit mid tool call, on a server that refuses unparseable arguments in the
//     history (vLLM's 400 "Extra data", llama.cpp's 500): the cut call goes back as {} and the run goes on.
//
// Two Zoo questions, one worker: the attempts run one after the other (shop-qa-hero-hoodie-sku's 3 model calls,
// then shop-qa-yoga-mat-thickness's 2), so the second attempt's calls all come after the first refusal, which
// the run must not repeat; the cut is the model's 3rd request (the preflight's is the 1st), the first attempt's
// second call, whose history the next request carries.
func TestEndpointRunSurvivesWhatItSendsBack(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	up := startScriptedPolicy(t)
	srv, err := replay.StartRecorded(replay.Options{Upstream: up, Routes: []replay.Route{
		{Model: "gateway-alias", Transform: "litellm_reasoning+strict_history"},
		{Model: "cut-once", Call: 3, Transform: "length_cutoff+strict_history"},
		{Model: "cut-once", Transform: "strict_history"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	e := &endpoint{Server: srv, url: srv.URL()}
	for _, model := range []string{"gateway-alias", "cut-once"} {
		out := filepath.Join(t.TempDir(), model)
		_, stderr, code := bench(t, endpointRun(e, out, model, "--tasks", twoQuestions, "--workers", "1")...)
		if code != 0 {
			t.Errorf("%s: exit %d\n%s", model, code, stderr)
		}
		recs := readRecords(t, out)
		if len(recs) != 2 {
			t.Errorf("%s: %d records, want 2", model, len(recs))
		}
		for _, r := range recs {
			if r.Status != "pass" {
				t.Logf("%s %s: %s, class %s, mode %s, finish %s, error %q", model, r.TaskID, r.Status, r.ErrorClass,
					r.FailureMode, r.FinishReason, r.Error)
			}
			if r.ErrorClass == "config" || strings.Contains(r.Error, "extra_forbidden") || strings.Contains(r.Error, "Extra data") {
				t.Errorf("%s %s: %s %s %q", model, r.TaskID, r.Status, r.ErrorClass, r.Error)
			}
		}
		refused, requests := 0, 0
		for _, r := range srv.Requests() {
			if r.Model == model {
				requests++
				if r.Status != 200 {
					refused++
				}
			}
		}
		t.Logf("%s: exit %d, %d records, %d requests, %d refused, stderr: %s", model, code, len(recs), requests, refused,
			strings.TrimSpace(stderr))
		if model == "gateway-alias" && refused != 1 {
			t.Errorf("%s: %d refused requests, want 1 (the first echo, then never again)", model, refused)
		}
		if model == "cut-once" && refused != 0 {
			t.Errorf("%s: %d refused requests, want 0: %v", model, refused, srv.EchoErrors())
		}
		if model == "cut-once" {
			var bodies []string
			for _, r := range srv.Requests() {
				if r.Model == model {
					bodies = append(bodies, string(r.Body))
				}
			}
			// The request after the cut holds one more empty-arguments call: the cut one, sent back as {}.
			const empty = `"arguments":"{}"`
			if len(bodies) < 4 || strings.Count(bodies[3], empty) <= strings.Count(bodies[2], empty) {
				t.Errorf("%s: the request after the cut does not send the cut call back as {} (%d requests)", model, len(bodies))
			}
		}
	}
}
