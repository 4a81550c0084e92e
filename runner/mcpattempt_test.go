package runner

import (
	"slices"
	"testing"
	"time"
)

// AgentVars.Env gives bench mcp serve the runner's environment (as the external player formats it): names in
// ExternalEnv's order with WEBBENCH_GUARDS last, WEBBENCH_TIMEOUT_S truncated to whole seconds (2.9 s is "2",
// not the rounded "3"), WEBBENCH_MAX_STEPS, all seven guards as name=on|off, WEBBENCH_MCP_URL and
// WEBBENCH_SEED left out when not given (stdio; seed mode none).
func TestAgentVarsEnv(t *testing.T) {
	seed := 42
	dl := time.Date(2026, 12, 2, 4, 0, 3, 0, time.FixedZone("x", 3600))
	v := AgentVars{MCPURL: "http://127.0.0.1:1/mcp", Goal: "g", StartURL: "http://s/", TaskID: "t", AttemptID: "a",
		Seed: &seed, Deadline: dl, Timeout: 2900 * time.Millisecond, Model: "scripted", BaseURL: "http://127.0.0.1:2/v1",
		MaxSteps: 7, Guards: map[string]bool{"repeat_guard": false}}
	want := [][2]string{{"WEBBENCH_MCP_URL", "http://127.0.0.1:1/mcp"}, {"WEBBENCH_GOAL", "g"},
		{"WEBBENCH_START_URL", "http://s/"}, {"WEBBENCH_TASK_ID", "t"}, {"WEBBENCH_ATTEMPT_ID", "a"},
		{"WEBBENCH_SEED", "42"}, {"WEBBENCH_DEADLINE", "2026-12-02T03:00:03Z"}, {"WEBBENCH_TIMEOUT_S", "2"},
		{"WEBBENCH_MODEL", "scripted"}, {"WEBBENCH_BASE_URL", "http://127.0.0.1:2/v1"}, {"WEBBENCH_MAX_STEPS", "7"},
		{"WEBBENCH_GUARDS", "intercept_hint=on,repeat_guard=off,final_recovery=on,snapshot_ready=on," +
			"stale_ref_refresh=on,evaluate_isolation=on,visual_progress=on"}}
	if got := v.Env(); !slices.Equal(got, want) {
		t.Errorf("Env:\n got %q\nwant %q", got, want)
	}
	v.MCPURL, v.Seed = "", nil
	for _, kv := range v.Env() {
		if kv[0] == "WEBBENCH_MCP_URL" || kv[0] == "WEBBENCH_SEED" {
			t.Errorf("%s exported without a value: %q", kv[0], kv[1])
		}
	}
}
