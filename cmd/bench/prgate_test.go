package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// prGateEnv is the environment variable that turns TestPRGateSeesGuardRemoved on (`make pr-gate-check`, and the
// pr-gate-check workflow): it runs the PR workflow's Zoo selection seven times, too long for make test.
const prGateEnv = "WEBBENCH_TEST_PR_GATE"

// prGateGuards are the guards whose removal the PR workflow's gate must see: those with a large effect in the
// seeds (docs/ZOO.md "The PR gate").
var prGateGuards = []string{"intercept_hint", "snapshot_ready", "stale_ref_refresh", "evaluate_isolation", "visual_progress"}

// prWorkflowEnv reads the PR workflow's env block, whose REPS, MARGIN, GATE_TASKS and GATE_OPTIONS size its gate.
func prWorkflowEnv(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../../.github/workflows/pr-ablation.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Env map[string]string `yaml:"env"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"REPS", "MARGIN", "GATE_TASKS", "GATE_OPTIONS"} {
		if wf.Env[k] == "" {
			t.Fatalf("pr-ablation.yml's env has no %s", k)
		}
	}
	return wf.Env
}

// The PR workflow's gate, run as the workflow runs it (its selection, reps, seed, profile and margin read from
// pr-ablation.yml): one base run with every guard on; an A/A run (the same code again) must pass `bench compare
// base aa --fail-if-worse MARGIN`, and a head run with any one of the five large-effect guards off must fail it
// (exit 1). The base is shared by the six comparisons; each head runs the whole selection, as a PR's would.
func TestPRGateSeesGuardRemoved(t *testing.T) {
	if os.Getenv(prGateEnv) == "" {
		t.Skipf("runs the PR workflow's Zoo selection 7 times: set %s=1 (make pr-gate-check)", prGateEnv)
	}
	env := prWorkflowEnv(t)
	dir := t.TempDir()
	run := func(name string, extra ...string) string {
		out := filepath.Join(dir, name)
		args := []string{"run", "--suite", "zoo", "--tasks", env["GATE_TASKS"], "--reps", env["REPS"], "--seed", "1",
			"--model", "scripted", "--profile", "observed", "--out", out}
		for _, o := range strings.Fields(env["GATE_OPTIONS"]) {
			args = append(args, "--suite-option", o)
		}
		if _, stderr, code := bench(t, append(args, extra...)...); code != 0 {
			t.Fatalf("bench run %s: exit %d\n%s", name, code, stderr)
		}
		return out
	}
	gate := func(a, b string) (int, string) {
		stdout, stderr, code := bench(t, "compare", a, b, "--fail-if-worse", env["MARGIN"])
		return code, stdout + stderr
	}
	base := run("base")
	if code, out := gate(base, run("aa")); code != 0 {
		t.Errorf("A/A (the same code twice): gate exit %d, want 0 (pass)\n%s", code, out)
	}
	for _, g := range prGateGuards {
		if code, out := gate(base, run("no_"+g, "--guards", g+"=off")); code != 1 {
			t.Errorf("%s off: gate exit %d, want 1 (the PR is worse beyond the margin %s)\n%s", g, code, env["MARGIN"], out)
		}
	}
}
