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
	"sync"
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

// concurrentAttempts is how many of TestReferenceAgentsPassZooTasks's attempts are served at once: as many as
// reference.yaml's workers (an attempt mostly waits on the page and the agent's start, not the CPU).
const concurrentAttempts = 4

func TestReferenceAgentsPassZooTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("real-Chromium test (-short)")
	}
	needNodeAgent(t)
	bench := buildBench(t)
	nodeMain, _ := filepath.Abs(filepath.Join("node", "dist", "agent.js"))
	pyMain, _ := filepath.Abs(filepath.Join("python", "agent.py"))
	agents := map[string][]string{"node": {"node", nodeMain}, "python": {"python3", pyMain}}
	type job struct {
		name, task, judge, final string
		cmd                      []string
		wantPass                 bool
	}
	var jobs []job
	for _, name := range []string{"node", "python"} {
		for _, task := range tasks {
			jobs = append(jobs, job{name + "/" + task.id, task.id, task.judge, task.final, agents[name], true})
		}
	}
	// The harness can tell a failure: an "agent" that answers 7 at once is judged a fail by the answer judge.
	jobs = append(jobs, job{name: "wrong-answer-fails", task: tasks[1].id, cmd: []string{"python3", "-c",
		`print('{"ok": true, "final": "7", "page": "", "error": null}')`}})

	// The attempts are independent (each its own server, browser and agent process): they are served at once,
	// and each subtest then checks its own.
	served := make([]servedAttempt, len(jobs))
	sem := make(chan struct{}, concurrentAttempts)
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			served[i] = serveAttempt(bench, j.task, j.cmd)
		}()
	}
	wg.Wait()
	for i, j := range jobs {
		t.Run(j.name, func(t *testing.T) {
			rec := served[i].check(t, j.wantPass)
			if !j.wantPass {
				if rec.Status == "pass" || rec.Verdict.Pass || rec.Final != "7" {
					t.Fatalf("a wrong answer: status %q verdict %+v final %q", rec.Status, rec.Verdict, rec.Final)
				}
				return
			}
			if rec.TaskID != j.task || rec.Status != "pass" || !rec.Verdict.Pass || rec.Verdict.Judge != j.judge {
				t.Fatalf("attempt of %s: status %q, verdict %+v (task %q)", j.task, rec.Status, rec.Verdict, rec.TaskID)
			}
			if !rec.OK || rec.Final == "" || j.final != "" && rec.Final != j.final || rec.Steps < 2 {
				t.Fatalf("attempt of %s: ok %v final %q steps %d", j.task, rec.OK, rec.Final, rec.Steps)
			}
		})
	}
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

// servedAttempt is what serveAttempt saw of one attempt: the attempt record, the server's and the agent's
// stderr, and the first thing that went wrong (nil when the attempt ran to its record).
type servedAttempt struct {
	rec                attempt
	serveErr, agentErr string
	err                error
}

// check fails the test with what went wrong, or checks that the server's verdict line says pass (with wantPass),
// and returns the attempt record; the agent's stderr is logged when the test failed or, with wantPass, the
// attempt did not pass.
func (s servedAttempt) check(t *testing.T, wantPass bool) attempt {
	t.Helper()
	if s.err != nil {
		t.Fatalf("%v\nserver stderr:\n%s\nagent stderr:\n%s", s.err, s.serveErr, s.agentErr)
	}
	if wantPass && !strings.Contains(s.serveErr, "verdict: pass") {
		t.Errorf("server's verdict line is not a pass:\n%s\nagent stderr:\n%s", s.serveErr, s.agentErr)
	}
	if t.Failed() || wantPass && s.rec.Status != "pass" {
		t.Logf("agent stderr:\n%s", s.agentErr)
	}
	return s.rec
}

// contractExports are the variables bench mcp serve must export for an agent.
var contractExports = []string{"WEBBENCH_MCP_URL", "WEBBENCH_GOAL", "WEBBENCH_BASE_URL", "WEBBENCH_MODEL", "WEBBENCH_SEED",
	"WEBBENCH_DEADLINE", "WEBBENCH_GUARDS"}

// serveAttempt serves one attempt of task with `bench mcp serve`, runs the agent command with its exports (all of
// contractExports), hands the agent's last stdout line (which must be the final JSON object) to the server and
// reads the attempt record it wrote. It runs on any goroutine: what goes wrong is returned, not reported.
func serveAttempt(bench, task string, agentCmd []string) (s servedAttempt) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	out, err := os.MkdirTemp("", "agents-serve-")
	if err != nil {
		return servedAttempt{err: err}
	}
	defer os.RemoveAll(out)
	srv := exec.CommandContext(ctx, bench, "mcp", "serve", "--suite", "zoo", "--tasks", task, "--out", out)
	stdin, err := srv.StdinPipe()
	if err != nil {
		return servedAttempt{err: err}
	}
	stdout, err := srv.StdoutPipe()
	if err != nil {
		return servedAttempt{err: err}
	}
	var serveErr, agentOut, agentErr bytes.Buffer
	srv.Stderr = &serveErr
	defer func() { s.serveErr, s.agentErr = serveErr.String(), agentErr.String() }()
	if err := srv.Start(); err != nil {
		return servedAttempt{err: err}
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()

	env, err := readExports(stdout)
	if err != nil {
		return servedAttempt{err: fmt.Errorf("bench mcp serve exports: %w", err)}
	}
	names := map[string]bool{}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		names[k] = true
	}
	for _, k := range contractExports {
		if !names[k] {
			return servedAttempt{err: fmt.Errorf("bench mcp serve did not export %s: %q", k, env)}
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()

	ag := exec.CommandContext(ctx, agentCmd[0], agentCmd[1:]...)
	ag.Env = append(os.Environ(), env...)
	ag.Stdout, ag.Stderr = &agentOut, &agentErr
	if err := ag.Run(); err != nil {
		return servedAttempt{err: fmt.Errorf("agent %v: %w", agentCmd, err)}
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
		return servedAttempt{err: fmt.Errorf("agent's last stdout line is not the final JSON object: %q (%v)", last, err)}
	}
	if _, err := io.WriteString(stdin, last+"\n"); err != nil {
		return servedAttempt{err: fmt.Errorf("writing the final answer to the server: %w", err)}
	}
	_ = stdin.Close()
	if err := srv.Wait(); err != nil {
		return servedAttempt{err: fmt.Errorf("bench mcp serve: %w", err)}
	}
	b, err := os.ReadFile(filepath.Join(out, "attempts.jsonl"))
	if err != nil {
		return servedAttempt{err: fmt.Errorf("attempt record: %w", err)}
	}
	if err := json.Unmarshal(bytes.TrimSpace(b), &s.rec); err != nil {
		return servedAttempt{err: fmt.Errorf("attempts.jsonl: %w: %s", err, b)}
	}
	return s
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

// unquote reads a POSIX shell word made of single-quoted parts, \' and unquoted runs of the characters no shell
// treats specially (those report.ShellQuote leaves bare) (POSIX.1-2017 XCU 2.2.1, 2.2.2).
func unquote(s string) (string, error) {
	const bare = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+:@%,"
	var b strings.Builder
	for len(s) > 0 {
		switch {
		case strings.IndexByte(bare, s[0]) >= 0:
			n := len(s) - len(strings.TrimLeft(s, bare))
			b.WriteString(s[:n])
			s = s[n:]
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
			return "", fmt.Errorf("unexpected %q in a shell word", s)
		}
	}
	return b.String(), nil
}
