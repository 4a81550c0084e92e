package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentCmdFlags: --agent-cmd options that cannot apply, or a command that does not resolve, exit 2 with a
// clear error before anything runs; a valid one is accepted (dry run).
func TestAgentCmdFlags(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--agent-cmd", "sh -c :", "--prompt", "p.txt", "--dry-run"}, "--prompt cannot apply to an external agent"},
		{[]string{"run", "--agent-cmd", "sh -c :", "--screenshots", "--dry-run"}, "--screenshots cannot apply to an external agent"},
		{[]string{"run", "--agent-cmd", "sh agnet.sh", "--dry-run"}, `agent script "agnet.sh" (the argument of sh) not found relative to `},
		{[]string{"run", "--agent-cmd", "./no-such-agent --x", "--dry-run"}, `agent command "./no-such-agent" not found or not executable`},
		{[]string{"run", "--agent-cmd", "no-such-agent-in-path", "--dry-run"}, `"no-such-agent-in-path" not found or not executable (looked in $PATH)`},
		{[]string{"run", "--agent-cmd", "sh 'unclosed", "--dry-run"}, `--agent-cmd "sh 'unclosed"`},
		{[]string{"run", "--agent-cmd", "  ", "--dry-run"}, "no command"},
		{[]string{"run", "--agent-env", "A=1", "--dry-run"}, "--agent-env: only with --agent-cmd"},
		{[]string{"run", "--agent-cmd", "sh", "--agent-env", "NOEQUALS", "--dry-run"}, `--agent-env "NOEQUALS": expected NAME=VALUE`},
		{[]string{"run", "--agent-cmd", "sh", "--agent-env", "WEBBENCH_MCP_URL=x", "--dry-run"}, "WEBBENCH_MCP_URL: set by webbench"},
	}
	for _, c := range cases {
		_, stderr, code := bench(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("bench %v: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, stderr, c.want)
		}
	}
	out, stderr, code := bench(t, "run", "--tasks", "shop-*", "--agent-cmd", `sh -c "echo hi"`, "--agent-env", "A=${HOME}", "--dry-run")
	if code != 0 || !strings.Contains(out, "11 attempts, shard 1/1") {
		t.Errorf("valid --agent-cmd: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	// A spec's relative command resolves against the spec's folder: named with that folder when missing.
	dir := t.TempDir()
	p := filepath.Join(dir, "agent.yaml")
	os.WriteFile(p, []byte("name: x\nbaseline:\n  agent: {kind: command, run: [./my-agent.py]}\nvariants:\n"+
		"  - name: v\n    guards: {repeat_guard: false}\n"), 0o644)
	_, stderr, code = bench(t, "ablate", p, "--dry-run")
	if code != 2 || !strings.Contains(stderr, `"./my-agent.py" not found`) || !strings.Contains(stderr, "relative to "+dir) {
		t.Errorf("spec with a missing agent: exit %d, stderr %q", code, stderr)
	}
	os.WriteFile(filepath.Join(dir, "my-agent.py"), []byte("#!/bin/sh\n"), 0o755)
	if _, stderr, code = bench(t, "ablate", p, "--dry-run"); code != 0 {
		t.Errorf("spec with its agent beside it: exit %d, stderr %q", code, stderr)
	}
}
