// Package agents_test runs the reference external agents (examples/agents/node, examples/agents/python) end to
// end: for each agent and task, `bench mcp serve` opens one attempt (real Chromium, the Zoo app, the scripted
// policy under the clean profile), the agent runs with the exported environment (the --agent-cmd
// contract), its last stdout line is handed back to the server on standard input, and the attempt record
// the server writes must say the judge passed it.
package agents_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tasks are a state task with a consent dialog on its way (the shop's cookie banner intercepts the first click)
// and an answer task (suites/zoo/tasks/shop.yaml: answer {number: 6}), with the judge each is judged by and the
// final answer the agent must report ("" when any).
var tasks = []struct{ id, judge, final string }{
	{"shop-checkout-yoga-mat-express", "state", ""},
	{"shop-qa-yoga-mat-thickness", "answer", "6"},
}

func TestReferenceAgentsPassZooTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("real-Chromium test (-short)")
	}
	nodeDir, _ := filepath.Abs("node")
	nodeMain := filepath.Join(nodeDir, "dist", "agent.js")
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("examples/agents/node/node_modules is missing: run `make agents` (make test does): %v", err)
	}
	if _, err := os.Stat(nodeMain); err != nil {
		t.Fatalf("%s is missing: run `make agents` to build it: %v", nodeMain, err)
	}
	bench := filepath.Join(t.TempDir(), "bench")
	if out, err := exec.Command("go", "build", "-o", bench, "webbench/cmd/bench").CombinedOutput(); err != nil {
		t.Fatalf("go build bench: %v\n%s", err, out)
	}
	pyMain, _ := filepath.Abs(filepath.Join("python", "agent.py"))
	agents := map[string][]string{"node": {"node", nodeMain}, "python": {"python3", pyMain}}
	for _, name := range []string{"node", "python"} {
		for _, task := range tasks {
			t.Run(name+"/"+task.id, func(t *testing.T) {
				rec := runAttempt(t, bench, task.id, agents[name], true)
				if rec.TaskID != task.id || rec.Status != "pass" || !rec.Verdict.Pass || rec.Verdict.Judge != task.judge {
					t.Fatalf("attempt of %s: status %q, verdict %+v (task %q)", task.id, rec.Status, rec.Verdict, rec.TaskID)
				}
				if !rec.OK || rec.Final == "" || task.final != "" && rec.Final != task.final || rec.Steps < 2 {
					t.Fatalf("attempt of %s: ok %v final %q steps %d", task.id, rec.OK, rec.Final, rec.Steps)
				}
			})
		}
	}
	// The harness can tell a failure: an "agent" that answers 7 at once is judged a fail by the answer judge.
	t.Run("wrong-answer-fails", func(t *testing.T) {
		rec := runAttempt(t, bench, tasks[1].id, []string{"python3", "-c",
			`print('{"ok": true, "final": "7", "page": "", "error": null}')`}, false)
		if rec.Status == "pass" || rec.Verdict.Pass || rec.Final != "7" {
			t.Fatalf("a wrong answer: status %q verdict %+v final %q", rec.Status, rec.Verdict, rec.Final)
		}
	})
}

// attempt is the part of a results attempt record (results.Attempt, attempts.jsonl) the test reads.
type attempt struct {
	TaskID  string `json:"task_id"`
	Status  string `json:"status"`
	OK      bool   `json:"ok"`
	Final   string `json:"final"`
	Steps   int    `json:"steps"`
	Verdict struct {
		Judge  string `json:"judge"`
		Pass   bool   `json:"pass"`
		Reason string `json:"reason"`
	} `json:"verdict"`
}

// runAttempt serves one attempt of task with `bench mcp serve`, runs the agent command with its exports, hands the
// agent's last stdout line to the server and returns the attempt record it wrote; with wantPass the server's
// verdict line must say pass.
func runAttempt(t *testing.T, bench, task string, agentCmd []string, wantPass bool) attempt {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	out := t.TempDir()
	srv := exec.CommandContext(ctx, bench, "mcp", "serve", "--suite", "zoo", "--tasks", task, "--out", out)
	stdin, err := srv.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var serveErr bytes.Buffer
	srv.Stderr = &serveErr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()

	env, err := readExports(stdout)
	if err != nil {
		t.Fatalf("bench mcp serve exports: %v\nstderr:\n%s", err, serveErr.String())
	}
	names := map[string]bool{}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		names[k] = true
	}
	for _, k := range []string{"WEBBENCH_MCP_URL", "WEBBENCH_GOAL", "WEBBENCH_BASE_URL", "WEBBENCH_MODEL", "WEBBENCH_SEED",
		"WEBBENCH_DEADLINE", "WEBBENCH_GUARDS"} {
		if !names[k] {
			t.Fatalf("bench mcp serve did not export %s: %q", k, env)
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()

	ag := exec.CommandContext(ctx, agentCmd[0], agentCmd[1:]...)
	ag.Env = append(os.Environ(), env...)
	var agentOut, agentErr bytes.Buffer
	ag.Stdout, ag.Stderr = &agentOut, &agentErr
	if err := ag.Run(); err != nil {
		t.Fatalf("agent %v: %v\nstderr:\n%s", agentCmd, err, agentErr.String())
	}
	lines := strings.Split(strings.TrimRight(agentOut.String(), "\n"), "\n")
	last := lines[len(lines)-1]
	var final struct {
		OK    *bool   `json:"ok"`
		Final string  `json:"final"`
		Page  string  `json:"page"`
		Error *string `json:"error"`
	}
	if err := json.Unmarshal([]byte(last), &final); err != nil || final.OK == nil {
		t.Fatalf("agent's last stdout line is not the final JSON object: %q (%v)\nstderr:\n%s", last, err, agentErr.String())
	}
	if _, err := io.WriteString(stdin, last+"\n"); err != nil {
		t.Fatalf("writing the final answer to the server: %v", err)
	}
	_ = stdin.Close()
	if err := srv.Wait(); err != nil {
		t.Fatalf("bench mcp serve: %v\nstderr:\n%s", err, serveErr.String())
	}
	if wantPass && !strings.Contains(serveErr.String(), "verdict: pass") {
		t.Errorf("server's verdict line is not a pass:\n%s\nagent stderr:\n%s", serveErr.String(), agentErr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "attempts.jsonl"))
	if err != nil {
		t.Fatalf("attempt record: %v\nstderr:\n%s", err, serveErr.String())
	}
	var rec attempt
	if err := json.Unmarshal(bytes.TrimSpace(b), &rec); err != nil {
		t.Fatalf("attempts.jsonl: %v: %s", err, b)
	}
	if t.Failed() || wantPass && rec.Status != "pass" {
		t.Logf("agent stderr:\n%s", agentErr.String())
	}
	return rec
}

// readExports reads `export NAME='value'` lines until WEBBENCH_GUARDS (the last one bench mcp serve prints) and
// returns them as NAME=value.
func readExports(r io.Reader) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var env []string
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, "export ")
		if !ok {
			continue
		}
		name, quoted, ok := strings.Cut(rest, "=")
		if !ok {
			return nil, fmt.Errorf("export line without '=': %q", line)
		}
		v, err := unquote(quoted)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		env = append(env, name+"="+v)
		if name == "WEBBENCH_GUARDS" {
			return env, nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, errors.New("standard output ended before WEBBENCH_GUARDS was exported")
}

// unquote reads a POSIX shell word made of single-quoted parts and \' (POSIX.1-2017 XCU 2.2.1, 2.2.2).
func unquote(s string) (string, error) {
	var b strings.Builder
	for len(s) > 0 {
		switch {
		case strings.HasPrefix(s, `\'`):
			b.WriteByte('\'')
			s = s[2:]
		case s[0] == '\'':
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return "", fmt.Errorf("unterminated quote in %q", s)
			}
			b.WriteString(s[1 : 1+end])
			s = s[2+end:]
		default:
			return "", fmt.Errorf("unexpected %q in a quoted word", s)
		}
	}
	return b.String(), nil
}
