package runner

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"webbench/agent/guard"
	"webbench/results"
)

// agentsDir is the absolute path of the test agents (runner/testdata/agents).
func agentsDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.Abs(filepath.Join("testdata", "agents"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestExternalAgents runs five external agents (real processes, real Chromium, the real Zoo and scripted
// policy) on one shop task in one run and checks each attempt's record, trajectory and kept output:
//   - envdump.py: every WEBBENCH_* variable of the contract has the attempt's value, the
//     parent's OPENAI_API_KEY and stale WEBBENCH_* do not leak, the spec env's ${VAR} is expanded for the agent
//     but recorded unexpanded, the answer is the last final JSON line of stdout;
//   - keyed: a model block naming api_key_env passes that key as OPENAI_API_KEY, and the key written to stderr
//     is redacted in agents/ID.stderr;
//   - crash.sh (exit 3, no final JSON line): failure mode agent_crashed naming the code and the kept stderr;
//   - sleeper.sh (ignores SIGTERM, has a child): killed at the 3 s deadline, failure mode timeout, the child
//     is gone too (the process group was killed);
//   - mcpsnap.py: a browser_snapshot over the attempt's MCP server (Streamable HTTP from a stdlib client) is a
//     trajectory step whose text is what the agent received.
//
// Then resuming the run with another agent command is refused (the agent is part of the variant).
func TestExternalAgents(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s, tasks := zooShop(t, "shop-checkout-yoga-mat-express")
	if len(tasks) != 1 {
		t.Fatalf("tasks: %v", tasks)
	}
	task := tasks[0]
	ad := agentsDir(t)
	tmp := t.TempDir()
	const parentKey, namedKey, secret = "sk-parent-must-not-pass-123456", "sk-named-key-abcdef-7890", "s3cret-value-9876"
	t.Setenv("OPENAI_API_KEY", parentKey)
	t.Setenv("WB_TEST_KEY", namedKey)
	t.Setenv("WB_TEST_SECRET", secret)
	t.Setenv("WEBBENCH_GOAL", "a stale goal from the parent environment")
	t.Setenv("WEBBENCH_STALE", "x")
	temp := float32(0.5)
	plainOut, keyedOut := filepath.Join(tmp, "plain.json"), filepath.Join(tmp, "keyed.json")
	snapOut, pidFile := filepath.Join(tmp, "snap.txt"), filepath.Join(tmp, "sleeper.pid")
	guards := guard.Default()
	guards["repeat_guard"] = false
	scriptedModel := Model{Kind: "scripted", Name: "scripted", Profile: "clean"}
	vs := []Variant{
		{Name: "plain", Model: Model{Kind: "scripted", Name: "scripted", Profile: "clean", Temp: &temp},
			Guards: guards, MaxSteps: 7, Timeout: 30 * time.Second,
			Agent: &AgentCmd{Kind: "command", Run: []string{"./envdump.py"}, Dir: ad,
				Env: map[string]string{"WB_TEST_OUT": plainOut, "WB_TEST_ECHO": "${WB_TEST_SECRET}"}}},
		{Name: "keyed", Model: Model{Kind: "scripted", Name: "scripted", Profile: "clean", APIKeyEnv: "WB_TEST_KEY"},
			Guards: guard.Default(),
			Agent:  &AgentCmd{Kind: "command", Run: []string{"python3", "envdump.py"}, Dir: ad, Env: map[string]string{"WB_TEST_OUT": keyedOut}}},
		{Name: "crash", Model: scriptedModel, Guards: guard.Default(),
			Agent: &AgentCmd{Kind: "command", Run: []string{"sh", "crash.sh"}, Dir: ad}},
		{Name: "sleeper", Model: scriptedModel, Guards: guard.Default(), Timeout: 3 * time.Second,
			Agent: &AgentCmd{Kind: "command", Run: []string{filepath.Join(ad, "sleeper.sh")},
				Env: map[string]string{"WB_TEST_PIDFILE": pidFile}}},
		{Name: "react", Model: scriptedModel, Guards: guard.Default(),
			Agent: &AgentCmd{Kind: "command", Run: []string{"./react.py"}, Dir: ad}},
		{Name: "mcp", Model: scriptedModel, Guards: guard.Default(),
			Agent: &AgentCmd{Kind: "command", Run: []string{"./mcpsnap.py"}, Dir: ad, Env: map[string]string{"WB_TEST_OUT": snapOut}}},
	}
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: vs, BaseSeed: 1}
	dir := filepath.Join(tmp, "run")
	opts := Options{OutDir: dir, Workers: 2, Retries: 0, Log: os.Stderr, BrowserEndpoint: sharedBrowser(t)}
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
	if len(recs) != len(vs) {
		t.Fatalf("records: %v", recs)
	}
	traj := func(t *testing.T, r results.Attempt) *results.Trajectory {
		t.Helper()
		tr, err := run.Trajectory(r.AttemptID)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	readEnv := func(t *testing.T, p string) map[string]any {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}

	t.Run("env", func(t *testing.T) {
		r := recs["plain"]
		env := readEnv(t, plainOut)
		str := func(k string) string { s, _ := env[k].(string); return s }
		if got := str("WEBBENCH_GOAL"); got != task.Goal {
			t.Errorf("WEBBENCH_GOAL = %q, want the task's goal %q", got, task.Goal)
		}
		if str("WEBBENCH_TASK_ID") != task.ID || str("WEBBENCH_ATTEMPT_ID") != r.AttemptID {
			t.Errorf("task/attempt id = %q %q, want %q %q", str("WEBBENCH_TASK_ID"), str("WEBBENCH_ATTEMPT_ID"), task.ID, r.AttemptID)
		}
		if r.Seed == nil || str("WEBBENCH_SEED") != strconv.Itoa(*r.Seed) {
			t.Errorf("WEBBENCH_SEED = %q, record seed %v", str("WEBBENCH_SEED"), r.Seed)
		}
		if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/mcp$`).MatchString(str("WEBBENCH_MCP_URL")) {
			t.Errorf("WEBBENCH_MCP_URL = %q", str("WEBBENCH_MCP_URL"))
		}
		if u := str("WEBBENCH_START_URL"); !strings.HasPrefix(u, "http://") || !strings.HasSuffix(u, task.Start) {
			t.Errorf("WEBBENCH_START_URL = %q, want the tenant's URL of %q", u, task.Start)
		}
		started, err := time.Parse(time.RFC3339, r.StartedAt)
		if err != nil {
			t.Fatal(err)
		}
		dl, err := time.Parse(time.RFC3339, str("WEBBENCH_DEADLINE"))
		if err != nil {
			t.Fatalf("WEBBENCH_DEADLINE %q: %v", str("WEBBENCH_DEADLINE"), err)
		}
		// The deadline is set when the agent starts, after the environment and the start page opened: the
		// variant's 30 s after the record's start (whole seconds), give or take that setup.
		if d := dl.Sub(started); d < 29*time.Second || d > 30*time.Second+2*time.Minute {
			t.Errorf("WEBBENCH_DEADLINE %s is %s after the attempt's start %s, want ≈ 30s", dl, d, started)
		}
		if str("WEBBENCH_TIMEOUT_S") != "30" || str("WEBBENCH_MAX_STEPS") != "7" || str("WEBBENCH_TEMPERATURE") != "0.5" {
			t.Errorf("timeout/max steps/temperature = %q %q %q", str("WEBBENCH_TIMEOUT_S"), str("WEBBENCH_MAX_STEPS"),
				str("WEBBENCH_TEMPERATURE"))
		}
		for _, k := range []string{"WEBBENCH_TOP_P", "WEBBENCH_MAX_TOKENS", "WEBBENCH_STALE"} {
			if _, ok := env[k]; ok {
				t.Errorf("%s is set (%v): not in the variant / not webbench's", k, env[k])
			}
		}
		want := "intercept_hint=on,snapshot_ready=on,stale_ref_refresh=on,evaluate_isolation=on,repeat_guard=off," +
			"final_recovery=on,visual_progress=on"
		got := strings.Split(str("WEBBENCH_GUARDS"), ",")
		if len(got) != 7 || !sameSet(got, strings.Split(want, ",")) {
			t.Errorf("WEBBENCH_GUARDS = %q, want the seven guards %q", str("WEBBENCH_GUARDS"), want)
		}
		if str("WEBBENCH_MODEL") != "scripted" || !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/v1$`).MatchString(str("WEBBENCH_BASE_URL")) {
			t.Errorf("model %q at %q", str("WEBBENCH_MODEL"), str("WEBBENCH_BASE_URL"))
		}
		if env["has_OPENAI_API_KEY"] != false {
			t.Error("OPENAI_API_KEY reached an agent whose model block names no key")
		}
		if str("WB_TEST_ECHO") != secret {
			t.Errorf("spec env ${WB_TEST_SECRET} = %q, want it expanded", str("WB_TEST_ECHO"))
		}
		if str("cwd") != ad {
			t.Errorf("agent ran in %q, want its folder %q", str("cwd"), ad)
		}
		// The answer is the last final JSON line.
		if r.FinishReason != results.FinishAnswered || r.Final != "answer from "+task.ID || !r.OK {
			t.Errorf("record finish %s final %q ok %v", r.FinishReason, r.Final, r.OK)
		}
		// It did not buy the mat: the state judge fails an ok=true answer.
		if r.Status != results.StatusFail || r.FailureMode != results.ModeWrongAnswer {
			t.Errorf("status %s mode %s (%s)", r.Status, r.FailureMode, r.Error)
		}
		tr := traj(t, r)
		if tr.Finish.ExitCode == nil || *tr.Finish.ExitCode != 0 || tr.Finish.Final == nil || tr.Finish.Final.Page != "done" {
			t.Errorf("trajectory finish %+v", tr.Finish)
		}
		out, err := os.ReadFile(filepath.Join(dir, AgentsDir, r.AttemptID+".stdout"))
		if err != nil || !strings.Contains(string(out), "more junk after the first answer") {
			t.Errorf("kept stdout: %q %v", out, err)
		}
		// The manifest records the agent with its env unexpanded; the secret is nowhere in the run directory's
		// manifest or records.
		var rv *results.Variant
		for i := range run.Manifest.Plan.Variants {
			if run.Manifest.Plan.Variants[i].Name == "plain" {
				rv = &run.Manifest.Plan.Variants[i]
			}
		}
		if rv == nil || rv.Agent == nil || rv.Agent.Env["WB_TEST_ECHO"] != "${WB_TEST_SECRET}" || rv.Agent.Run[0] != "./envdump.py" {
			t.Errorf("manifest variant %+v", rv)
		}
		for _, f := range []string{results.ManifestFile, results.AttemptsFile} {
			b, _ := os.ReadFile(filepath.Join(dir, f))
			if strings.Contains(string(b), secret) || strings.Contains(string(b), namedKey) {
				t.Errorf("%s holds a secret", f)
			}
		}
	})

	t.Run("named key", func(t *testing.T) {
		r := recs["keyed"]
		if readEnv(t, keyedOut)["has_OPENAI_API_KEY"] != true {
			t.Error("the model block names WB_TEST_KEY but the agent got no OPENAI_API_KEY")
		}
		b, err := os.ReadFile(filepath.Join(dir, AgentsDir, r.AttemptID+".stderr"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "key=[REDACTED]") || strings.Contains(string(b), namedKey) {
			t.Errorf("stderr %q: want the key redacted", b)
		}
	})

	t.Run("crash", func(t *testing.T) {
		r := recs["crash"]
		stderr := filepath.Join(AgentsDir, r.AttemptID+".stderr")
		if r.FailureMode != results.ModeAgentCrashed || r.FinishReason != results.FinishAgentCrashed ||
			!strings.Contains(r.Error, "exited with code 3 without a final JSON answer") || !strings.Contains(r.Error, stderr) {
			t.Errorf("record %s %s %s %q", r.Status, r.FinishReason, r.FailureMode, r.Error)
		}
		b, err := os.ReadFile(filepath.Join(dir, stderr))
		if err != nil || !strings.Contains(string(b), "crash-agent: something broke") {
			t.Errorf("kept stderr %q %v", b, err)
		}
		if tr := traj(t, r); tr.Finish.ExitCode == nil || *tr.Finish.ExitCode != 3 {
			t.Errorf("trajectory exit code %v", tr.Finish.ExitCode)
		}
	})

	t.Run("deadline", func(t *testing.T) {
		r := recs["sleeper"]
		if r.FinishReason != results.FinishTimeout || r.FailureMode != results.ModeTimeout || !strings.Contains(r.Error, "deadline") {
			t.Errorf("record %s %s %s %q", r.Status, r.FinishReason, r.FailureMode, r.Error)
		}
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		if alive(pid) {
			t.Errorf("the sleeper's child %d outlived the attempt", pid)
		}
		if tr := traj(t, r); tr.Finish.ExitCode == nil || *tr.Finish.ExitCode != -1 {
			t.Errorf("trajectory exit code %v, want -1 (killed)", tr.Finish.ExitCode)
		}
	})

	t.Run("mcp tool call", func(t *testing.T) {
		r := recs["mcp"]
		got, err := os.ReadFile(snapOut)
		if err != nil {
			t.Fatal(err)
		}
		tr := traj(t, r)
		if r.FinishReason != results.FinishAnswered || r.Steps != 1 || len(tr.Steps) != 1 {
			t.Fatalf("record %s steps %d, trajectory %d steps", r.FinishReason, r.Steps, len(tr.Steps))
		}
		st := tr.Steps[0]
		if len(st.ToolCalls) != 1 || st.ToolCalls[0].Name != "browser_snapshot" || len(st.Results) != 1 {
			t.Fatalf("step %+v", st)
		}
		if st.Results[0].ShownText() != string(got) || !strings.Contains(string(got), "- Page URL: http://") ||
			!strings.Contains(string(got), "Yoga Mat") {
			t.Errorf("step text %q, agent received %q", st.Results[0].ShownText(), got)
		}
	})

	t.Run("react", func(t *testing.T) {
		r := recs["react"]
		tr := traj(t, r)
		if r.Status != results.StatusPass || r.FinishReason != results.FinishAnswered {
			t.Errorf("react agent: %s %s %s %q (%d steps)", r.Status, r.FinishReason, r.FailureMode, r.Error, len(tr.Steps))
		}
		// intercept_hint (on) acted on the consent dialog's intercepted click, as for the built-in agent.
		if r.GuardEvents["intercept_hint"] == 0 {
			t.Errorf("guard events %v: want intercept_hint's", r.GuardEvents)
		}
		checkReactSteps(t, r, tr)
	})

	t.Run("resume with another agent", func(t *testing.T) {
		other := plan
		other.Variants = append([]Variant(nil), vs...)
		c := *vs[2].Agent
		c.Run = []string{"sh", "crash.sh", "--v2"}
		other.Variants[2].Agent = &c
		_, err := Run(context.Background(), other, s, Options{OutDir: dir, Workers: 1, Log: os.Stderr})
		if !errors.Is(err, ErrPlanMismatch) || !strings.Contains(err.Error(), "--v2") {
			t.Errorf("resume with another agent command: %v", err)
		}
	})
}

// TestAgentCmdRefusedBeforeTheRun: a mistyped command and a prompt beside an external agent stop the run before
// anything is written.
func TestAgentCmdRefusedBeforeTheRun(t *testing.T) {
	s, tasks := zooShop(t, "shop-checkout-yoga-mat-express")
	for name, v := range map[string]Variant{
		"mistyped": {Name: "x", Model: Model{Kind: "scripted", Name: "scripted", Profile: "clean"},
			Agent: &AgentCmd{Kind: "command", Run: []string{"./no-such-agent.py"}, Dir: agentsDir(t)}},
		"prompt": {Name: "x", Model: Model{Kind: "scripted", Name: "scripted", Profile: "clean"}, PromptFile: "p.txt",
			Agent: &AgentCmd{Kind: "command", Run: []string{"sh"}}},
		"omit": {Name: "x", Model: Model{Kind: "openai", Name: "m", BaseURL: "http://127.0.0.1:9/v1", Omit: []string{"seed"}},
			Agent: &AgentCmd{Kind: "command", Run: []string{"sh"}}},
		"max-connections": {Name: "x", Model: Model{Kind: "openai", Name: "m", BaseURL: "http://127.0.0.1:9/v1", MaxConnections: 2},
			Agent: &AgentCmd{Kind: "command", Run: []string{"sh"}}},
		"max-tokens-field": {Name: "x", Model: Model{Kind: "openai", Name: "m", BaseURL: "http://127.0.0.1:9/v1", MaxTokensField: "max_tokens"},
			Agent: &AgentCmd{Kind: "command", Run: []string{"sh"}}},
		"screenshots": {Name: "x", Model: Model{Kind: "scripted", Name: "scripted", Profile: "clean"},
			Agent: &AgentCmd{Kind: "command", Run: []string{"sh"}}},
		"webbench-env": {Name: "x", Model: Model{Kind: "scripted", Name: "scripted", Profile: "clean"},
			Agent: &AgentCmd{Kind: "command", Run: []string{"sh"}, Env: map[string]string{"WEBBENCH_FOO": "x"}}},
	} {
		dir := filepath.Join(t.TempDir(), "run")
		_, err := Run(context.Background(), Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: []Variant{v}}, s,
			Options{OutDir: dir, Workers: 1, Log: os.Stderr, Screenshots: name == "screenshots"})
		want := map[string]string{"mistyped": `agent command "./no-such-agent.py" not found`,
			"prompt": "cannot apply to an external agent", "omit": "omit (--omit) cannot apply to an external agent",
			"max-connections":  "max_connections (--max-connections) cannot apply",
			"max-tokens-field": "max_tokens_field (--max-tokens-field) cannot apply",
			"screenshots":      "--screenshots cannot apply", "webbench-env": "agent env WEBBENCH_FOO: WEBBENCH_* names are webbench's"}[name]
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the run directory was created (%v)", name, err)
		}
	}
}

// checkReactSteps checks the react agent's merged trajectory: its first snapshot (before any model call) is a
// step of its own; then one step per model call (recorded by the proxy: request, tool calls, usage) holding the
// results of exactly the tool calls it asked for, under their ids, in time order; the last model call answered
// without tool calls. The record's tokens are the model calls' usage summed.
func checkReactSteps(t *testing.T, r results.Attempt, tr *results.Trajectory) {
	t.Helper()
	if len(tr.Steps) < 3 {
		t.Fatalf("%d steps", len(tr.Steps))
	}
	first := tr.Steps[0]
	if first.Request.Messages != 0 || len(first.ToolCalls) != 1 || first.ToolCalls[0].Name != "browser_snapshot" || len(first.Results) != 1 {
		t.Errorf("step 0 %+v: want the agent's own first snapshot", first)
	}
	prompt, completion := 0, 0
	var last int64
	for i, st := range tr.Steps[1:] {
		prompt, completion = prompt+st.Usage.Prompt, completion+st.Usage.Completion
		if st.Request.Messages < 1 || len(st.Request.Tools) != 13 || st.ModelMS < 0 || st.StartedMS < last {
			t.Errorf("step %d: request %+v model_ms %d started %d (after %d): want a model call, in time order", i+1,
				st.Request, st.ModelMS, st.StartedMS, last)
		}
		last = st.StartedMS
		if len(st.Results) != len(st.ToolCalls) {
			t.Errorf("step %d: %d tool calls, %d results", i+1, len(st.ToolCalls), len(st.Results))
			continue
		}
		for j, res := range st.Results {
			if res.Call.ID != st.ToolCalls[j].ID || res.Call.Name != st.ToolCalls[j].Name {
				t.Errorf("step %d result %d: call %+v, want %+v", i+1, j, res.Call, st.ToolCalls[j])
			}
		}
	}
	t.Logf("react: %d steps, tokens %+v, guard events %v", len(tr.Steps), r.Tokens, r.GuardEvents)
	if end := tr.Steps[len(tr.Steps)-1]; len(end.ToolCalls) != 0 || !strings.Contains(end.Content, `"ok"`) {
		t.Errorf("last step %+v: want the model's final answer", end)
	}
	if prompt == 0 || r.Tokens.Prompt != prompt || r.Tokens.Completion != completion || r.Steps != len(tr.Steps) {
		t.Errorf("record tokens %+v steps %d, model calls' usage %d/%d over %d steps", r.Tokens, r.Steps, prompt,
			completion, len(tr.Steps))
	}
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

// alive reports whether process pid exists and is not a zombie (/proc/PID/stat state Z: dead, not yet reaped
// by its new parent).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// Fields after the command (in parentheses, which may hold spaces): the state comes first.
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}
