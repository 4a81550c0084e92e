package main

import (
	"strings"
	"testing"

	"webbench/internal/replay"
	"webbench/scripted"
)

// bench doctor against the replay server on loopback, in front of the scripted policy: the second turn shows
// an endpoint refusing what webbench echoes (and that the client learns to leave it out), provider failures
// inside a 200 are retried before anything is advised, and each error says what the server said with one
// hint, the same on stdout and stderr.
func TestDoctorEndpointShapes(t *testing.T) {
	pol := scripted.New(nil, scripted.Profile{})
	up, err := pol.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pol.Close() })
	srv, err := replay.StartRecorded(replay.Options{Upstream: up, Routes: []replay.Route{
		{Model: "gateway-alias", Transform: "litellm_reasoning+strict_history"},
		{Model: "flaky-200", Call: 1, Shape: "deepseek_200_insufficient_system_resource"},
		{Model: "flaky-200"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	calls := func(model string) int {
		n := 0
		for _, r := range srv.Requests() {
			if r.Model == model {
				n++
			}
		}
		return n
	}
	for _, tc := range []struct {
		model  string
		exit   int
		want   []string
		absent []string
		stderr string
	}{
		{"gateway-alias", 0, []string{"second turn: ok: the tool result went back and the endpoint answered",
			"note:        not sent back: reasoning_content: the endpoint refused it (HTTP 422)", "result:      ready for bench run"},
			nil, ""},
		{"flaky-200", 0, []string{"tools:       yes", "second turn: ok", "result:      ready for bench run"}, nil, ""},
		{"deepseek_200_insufficient_system_resource", 3, []string{"error:       infra (HTTP 200)",
			"message:     the provider ended the reply with finish_reason \"insufficient_system_resource\"",
			"result:      the endpoint answered 200 but reported a failure of its own"},
			[]string{"tool-call-parser", "no tool call"}, "insufficient_system_resource"},
		{"nginx_413_html", 2, []string{"error:       config (HTTP 413)", "hint:        a proxy in front of the model refused the request's size"},
			[]string{"context window is too small"}, "client_max_body_size"},
		{"xai_400_incorrect_api_key", 3, []string{"error:       auth (HTTP 400)", "message:     Incorrect API key provided"}, nil,
			"check the API key"},
		{"cloudflare_404_could_not_route", 2, []string{"message:     Could not route to /client/v4/accounts/my-account",
			"hint:        check the account id in the base URL"}, []string{"check the model name"}, "check the account id"},
		{"cloudflare_429_daily_free_allocation", 3, []string{"error:       quota (HTTP 429)", "daily free allocation"}, nil,
			"daily limit reached"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			out, stderr, code := doctor(t, "--model", "openai:"+tc.model, "--base-url", srv.URL())
			t.Logf("exit %d after %d requests\n%s%s", code, calls(tc.model), out, stderr)
			if code != tc.exit {
				t.Errorf("exit %d, want %d", code, tc.exit)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q", w)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(out, a) {
					t.Errorf("output has %q", a)
				}
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q", tc.stderr)
			}
		})
	}
	// The refused turn was retried at once without the field; the 200 failure was retried before the
	// preflight counted.
	if n := calls("gateway-alias"); n != 3 {
		t.Errorf("gateway-alias: %d requests, want 3 (preflight, refused second turn, its retry)", n)
	}
	if n := calls("flaky-200"); n != 3 {
		t.Errorf("flaky-200: %d requests, want 3 (the 200 failure, the preflight's retry, the second turn)", n)
	}
}
