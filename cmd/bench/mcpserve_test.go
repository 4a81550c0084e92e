package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"webbench/results"
	"webbench/suites"
)

// exportLines is how many export lines bench mcp serve prints in HTTP mode: runner.ExternalEnv's names but
// the three sampling parameters (exported only when a variant sets them).
const exportLines = 12

// mcpTask is a Zoo task with a state check: with no order placed, the state judge's verdict is a fail.
const mcpTask = "shop-checkout-yoga-mat-express"

// allGuards are the seven guards of WEBBENCH_GUARDS, in the registry's order (docs/GUARDS.md).
var allGuards = []string{"intercept_hint", "repeat_guard", "final_recovery", "snapshot_ready", "stale_ref_refresh",
	"evaluate_isolation", "visual_progress"}

// playwrightTools are the browser tools the server lists: Playwright MCP's names
// (https://github.com/microsoft/playwright-mcp README, "Tools") of the tools webbench implements, plus its own
// browser_mouse_click_xy (the vision tool of Playwright MCP's --caps=vision).
var playwrightTools = []string{"browser_click", "browser_evaluate", "browser_fill_form", "browser_hover",
	"browser_mouse_click_xy", "browser_navigate", "browser_navigate_back", "browser_press_key",
	"browser_select_option", "browser_snapshot", "browser_take_screenshot", "browser_type", "browser_wait_for"}

// syncBuffer is a bytes.Buffer safe to write from the command's copier and read from the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// sourceExports runs the export lines in a POSIX shell (/bin/sh, the outside reference for the quoting) and
// returns the WEBBENCH_* variables it then has.
func sourceExports(t *testing.T, lines string) map[string]string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "env.sh")
	if err := os.WriteFile(f, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", `set -e; . "$1"; env -0`, "sh", f)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sourcing the exports: %v\n%s", err, lines)
	}
	vars := map[string]string{}
	for _, kv := range strings.Split(string(out), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "WEBBENCH_") {
			vars[k] = v
		}
	}
	return vars
}

// zooTask is the Zoo's own definition of task id (the reference for the exported goal).
func zooTask(t *testing.T, id string) suites.Task {
	t.Helper()
	s, err := suites.Open("zoo", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tk := range s.Tasks() {
		if tk.ID == id {
			return tk
		}
	}
	t.Fatalf("no Zoo task %s", id)
	return suites.Task{}
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError || len(res.Content) == 0 {
		t.Fatalf("%s: isError=%v content=%v", name, res.IsError, res.Content)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: first content is %T", name, res.Content[0])
	}
	return tc.Text
}

func listToolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// checkTrajectory reads the run directory's trajectory and record of attemptID and checks they hold the task and
// the tool calls in order, the app's state, and a failed state verdict.
func checkTrajectory(t *testing.T, out, attemptID string, task suites.Task, calls []string) {
	t.Helper()
	tr, err := results.ReadTrajectory(filepath.Join(out, results.TrajectoryPath(attemptID)))
	if err != nil {
		t.Fatal(err)
	}
	if tr.TaskID != task.ID || tr.Goal != task.Goal {
		t.Errorf("trajectory task %q goal %q", tr.TaskID, tr.Goal)
	}
	var got []string
	for _, st := range tr.Steps {
		for _, c := range st.ToolCalls {
			got = append(got, c.Name)
		}
		if len(st.Results) != 1 || st.Results[0].RawText() == "" {
			t.Errorf("step %d: results %+v", st.Index, st.Results)
		}
	}
	if !slices.Equal(got, calls) {
		t.Errorf("trajectory tool calls %v, want %v", got, calls)
	}
	if len(tr.State) == 0 || !json.Valid(tr.State) {
		t.Errorf("trajectory state %q: want the Zoo app's state JSON", tr.State)
	}
	rr, err := results.ReadAttempts(out)
	if err != nil {
		t.Fatal(err)
	}
	recs := rr.Final()
	if len(recs) != 1 || recs[0].AttemptID != attemptID || recs[0].Status != results.StatusFail ||
		recs[0].Verdict.Judge != "state" || recs[0].Steps != len(calls) || recs[0].Trajectory != results.TrajectoryPath(attemptID) {
		t.Errorf("records %+v", recs)
	}
}

// bench mcp serve over HTTP, as a real subprocess: the export lines (sourced by /bin/sh) carry the contract's
// variables, the SDK's client lists the tools and calls two, SIGINT stops it with exit 0, the verdict line and
// the trajectory (those calls in order) follow.
func TestMCPServeHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	task := zooTask(t, mcpTask)
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(benchBin, "mcp", "serve", "--suite", "zoo", "--tasks", mcpTask, "--out", out,
		"--timeout", "300s", "--guards", "intercept_hint=off,repeat_guard=off", "--max-steps", "7")
	cmd.Dir = "../.."
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	started := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var lines strings.Builder
	sc := bufio.NewScanner(stdout)
	for n := 0; n < exportLines && sc.Scan(); n++ {
		lines.WriteString(sc.Text() + "\n")
	}
	rest := make(chan string, 1)
	go func() { b, _ := io.ReadAll(stdout); rest <- string(b) }()
	vars := sourceExports(t, lines.String())
	for _, k := range []string{"WEBBENCH_MCP_URL", "WEBBENCH_GOAL", "WEBBENCH_START_URL", "WEBBENCH_TASK_ID",
		"WEBBENCH_ATTEMPT_ID", "WEBBENCH_SEED", "WEBBENCH_DEADLINE", "WEBBENCH_TIMEOUT_S", "WEBBENCH_MODEL",
		"WEBBENCH_BASE_URL", "WEBBENCH_MAX_STEPS", "WEBBENCH_GUARDS"} {
		if vars[k] == "" {
			t.Errorf("%s not exported; stdout:\n%s\nstderr:\n%s", k, lines.String(), stderr.String())
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	if vars["WEBBENCH_GOAL"] != task.Goal || vars["WEBBENCH_TASK_ID"] != mcpTask {
		t.Errorf("goal %q task %q, want the Zoo's %q", vars["WEBBENCH_GOAL"], vars["WEBBENCH_TASK_ID"], task.Goal)
	}
	if !strings.HasPrefix(vars["WEBBENCH_MCP_URL"], "http://127.0.0.1:") || !strings.HasSuffix(vars["WEBBENCH_MCP_URL"], "/mcp") {
		t.Errorf("WEBBENCH_MCP_URL %q", vars["WEBBENCH_MCP_URL"])
	}
	var want []string
	for _, g := range allGuards {
		want = append(want, g+"="+map[bool]string{true: "off", false: "on"}[g == "intercept_hint" || g == "repeat_guard"])
	}
	if vars["WEBBENCH_GUARDS"] != strings.Join(want, ",") {
		t.Errorf("WEBBENCH_GUARDS %q, want %q", vars["WEBBENCH_GUARDS"], strings.Join(want, ","))
	}
	if vars["WEBBENCH_TIMEOUT_S"] != "300" {
		t.Errorf("WEBBENCH_TIMEOUT_S %q", vars["WEBBENCH_TIMEOUT_S"])
	}
	if vars["WEBBENCH_MAX_STEPS"] != "7" {
		t.Errorf("WEBBENCH_MAX_STEPS %q, want --max-steps 7", vars["WEBBENCH_MAX_STEPS"])
	}
	if dl, err := time.Parse(time.RFC3339, vars["WEBBENCH_DEADLINE"]); err != nil ||
		dl.Before(started.Add(299*time.Second)) || dl.After(time.Now().Add(300*time.Second)) {
		t.Errorf("WEBBENCH_DEADLINE %q (%v): want start + 300 s", vars["WEBBENCH_DEADLINE"], err)
	}
	if vars["WEBBENCH_MODEL"] != "scripted" {
		t.Errorf("WEBBENCH_MODEL %q", vars["WEBBENCH_MODEL"])
	}
	// The scripted policy answers the OpenAI models list (https://platform.openai.com/docs/api-reference/models/list).
	resp, err := http.Get(vars["WEBBENCH_BASE_URL"] + "/models")
	if err != nil {
		t.Fatal(err)
	}
	var models struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&models); err != nil || len(models.Data) != 1 || models.Data[0].ID != vars["WEBBENCH_MODEL"] {
		t.Errorf("GET %s/models: %+v %v", vars["WEBBENCH_BASE_URL"], models, err)
	}
	resp.Body.Close()
	if !strings.Contains(stderr.String(), "tool-level guards in the server: intercept_hint=off,snapshot_ready=on,stale_ref_refresh=on,evaluate_isolation=on") ||
		!strings.Contains(stderr.String(), "serving task "+mcpTask) {
		t.Errorf("stderr:\n%s", stderr.String())
	}

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "webbench-test", Version: "v0"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: vars["WEBBENCH_MCP_URL"]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := listToolNames(t, cs); !slices.Equal(got, playwrightTools) {
		t.Errorf("tools/list %v, want %v", got, playwrightTools)
	}
	if snap := callText(t, cs, "browser_snapshot", nil); !strings.Contains(snap, vars["WEBBENCH_START_URL"]) {
		t.Errorf("browser_snapshot does not name the start page %s:\n%s", vars["WEBBENCH_START_URL"], snap)
	}
	cart := strings.TrimSuffix(vars["WEBBENCH_START_URL"], "/") + "/cart"
	if nav := callText(t, cs, "browser_navigate", map[string]any{"url": cart}); !strings.Contains(nav, cart) {
		t.Errorf("browser_navigate %s:\n%s", cart, nav)
	}
	cs.Close()

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	after := <-rest
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGINT: %v\nstderr:\n%s", err, stderr.String())
	}
	if after != "" {
		t.Errorf("stdout after the exports: %q (want only export lines there)", after)
	}
	checkTrajectory(t, out, vars["WEBBENCH_ATTEMPT_ID"], task, []string{"browser_snapshot", "browser_navigate"})
	trPath := filepath.Join(out, results.TrajectoryPath(vars["WEBBENCH_ATTEMPT_ID"]))
	for _, w := range []string{"stopped: interrupted (SIGINT/SIGTERM) after 2 tool calls",
		"verdict: fail (state judge): ", "trajectory: " + trPath} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
		}
	}
}

// bench mcp serve --stdio, run by the SDK's CommandTransport: MCP on its stdin/stdout, the exports (no
// WEBBENCH_MCP_URL) on stderr; closing the client (EOF) ends the attempt, judged and written, exit 0.
func TestMCPServeStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	task := zooTask(t, mcpTask)
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(benchBin, "mcp", "serve", "--stdio", "--tasks", mcpTask, "--out", out)
	cmd.Dir = "../.."
	var stderr syncBuffer
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "webbench-test", Version: "v0"}, nil).Connect(context.Background(),
		&mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Minute}, nil)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr.String())
	}
	if got := listToolNames(t, cs); !slices.Equal(got, playwrightTools) {
		t.Errorf("tools/list %v", got)
	}
	callText(t, cs, "browser_snapshot", nil)
	if err := cs.Close(); err != nil {
		t.Fatalf("close (the server's exit): %v\nstderr:\n%s", err, stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
	var exports strings.Builder
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.HasPrefix(l, "export ") {
			exports.WriteString(l + "\n")
		}
	}
	vars := sourceExports(t, exports.String())
	if _, ok := vars["WEBBENCH_MCP_URL"]; ok || vars["WEBBENCH_GOAL"] != task.Goal || len(vars) != exportLines-1 ||
		vars["WEBBENCH_MAX_STEPS"] != "40" {
		t.Errorf("stdio exports %v", vars)
	}
	checkTrajectory(t, out, vars["WEBBENCH_ATTEMPT_ID"], task, []string{"browser_snapshot"})
	for _, w := range []string{"stopped: standard input ended (MCP client gone) after 1 tool call", "verdict: fail (state judge): "} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
		}
	}
}

// Refused before anything is opened: a task id that does not exist, a glob matching several, no --tasks.
// An --out that holds a run's manifest is refused, and nothing is written into it.
func TestMCPServeBadTasks(t *testing.T) {
	runDir := t.TempDir()
	if err := results.WriteManifest(runDir, &results.Manifest{RunID: "a real run"}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if ents, _ := os.ReadDir(runDir); len(ents) != 1 {
			t.Errorf("run directory after the refusal: %v (want manifest.json alone)", ents)
		}
	}()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tasks", "no-such-task"}, `glob "no-such-task" matches no task`},
		{[]string{"--tasks", "shop-qa-*"}, "matches 4 tasks (shop-qa-yoga-mat-thickness, shop-qa-hero-hoodie-sku, shop-qa-juno-jacket-shell, shop-qa-stasis-ball-rating); give exactly one"},
		{nil, "--tasks: give exactly one task id"},
		{[]string{"--tasks", mcpTask, "--guards", "intercept_hnt=off"}, `--guards: `},
		{[]string{"--tasks", mcpTask, "--timeout", "0s"}, "--timeout 0s: must be above 0"},
		{[]string{"--tasks", mcpTask, "--max-steps", "0"}, "--max-steps 0: must be above 0"},
		{[]string{"--tasks", mcpTask, "--out", runDir}, "--out " + runDir + ": holds a run (manifest.json); choose another --out"},
	} {
		_, stderr, code := bench(t, append([]string{"mcp", "serve"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// serveExports starts bench mcp serve (HTTP) with args and reads its export lines; stdin, when not nil, is the
// command's standard input.
func serveExports(t *testing.T, stdin io.Reader, args ...string) (*exec.Cmd, map[string]string, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(benchBin, append([]string{"mcp", "serve"}, args...)...)
	cmd.Dir = "../.."
	cmd.Stdin = stdin
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	var lines strings.Builder
	sc := bufio.NewScanner(stdout)
	for n := 0; n < exportLines && sc.Scan(); n++ {
		lines.WriteString(sc.Text() + "\n")
	}
	go io.Copy(io.Discard, stdout)
	return cmd, sourceExports(t, lines.String()), stderr
}

// A final answer line on standard input ends the attempt (HTTP mode) and the answer judge decides it: the Zoo
// task's reference answer (6 mm, suites/zoo/tasks/shop.yaml) passes. The task's own timeout (60 s) and
// max_steps are the defaults of WEBBENCH_TIMEOUT_S and WEBBENCH_MAX_STEPS. A model call the agent makes to
// WEBBENCH_BASE_URL (the goal as the first user message, the server's tools offered, as an agent does) is a
// model-call step of the written trajectory with the reply's tool call, its usage and the tool call's result
// folded in, as bench run --agent-cmd records it; the record's tokens are that usage. A short --timeout ends
// the attempt by itself at the deadline, as a timeout.
func TestMCPServeFinalAnswerAndDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	const qa = "shop-qa-yoga-mat-thickness"
	task := zooTask(t, qa)
	if task.Timeout != 60*time.Second || task.Check.Answer == nil || task.Check.Answer.Number == nil {
		t.Fatalf("task %s changed: timeout %v, answer %+v", qa, task.Timeout, task.Check.Answer)
	}
	out := filepath.Join(t.TempDir(), "run")
	pr, pw := io.Pipe()
	cmd, vars, stderr := serveExports(t, pr, "--tasks", qa, "--out", out)
	if vars["WEBBENCH_TIMEOUT_S"] != "60" || vars["WEBBENCH_GOAL"] != task.Goal {
		t.Errorf("timeout %q goal %q", vars["WEBBENCH_TIMEOUT_S"], vars["WEBBENCH_GOAL"])
	}
	if task.MaxSteps <= 0 || vars["WEBBENCH_MAX_STEPS"] != strconv.Itoa(task.MaxSteps) {
		t.Errorf("WEBBENCH_MAX_STEPS %q, want the task's max_steps %d", vars["WEBBENCH_MAX_STEPS"], task.MaxSteps)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "webbench-test", Version: "v0"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: vars["WEBBENCH_MCP_URL"]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reply := chatCall(t, cs, vars)
	if len(reply.Choices) != 1 || len(reply.Choices[0].Message.ToolCalls) != 1 ||
		reply.Choices[0].Message.ToolCalls[0].Function.Name != "browser_snapshot" || reply.Usage.PromptTokens <= 0 {
		t.Fatalf("chat reply to the bare goal: %+v (want one browser_snapshot call and usage)", reply)
	}
	asked := reply.Choices[0].Message.ToolCalls[0]
	callText(t, cs, asked.Function.Name, nil)
	cs.Close()
	answer := `{"ok": true, "final": "6 mm", "page": "", "error": null}`
	io.WriteString(pw, "not json\n"+answer+"\n")
	pw.Close() // EOF after the answer is ignored; exec's copy to the child's stdin ends (Wait waits for it)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, w := range []string{"standard input: not a final answer", "stopped: final answer received on standard input after 1 tool call",
		"verdict: pass (answer judge): "} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
		}
	}
	tr, err := results.ReadTrajectory(filepath.Join(out, results.TrajectoryPath(vars["WEBBENCH_ATTEMPT_ID"])))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Finish.Reason != results.FinishAnswered || tr.Finish.Final == nil || tr.Finish.Final.Final != "6 mm" || tr.Finish.Output != answer {
		t.Errorf("finish %+v", tr.Finish)
	}
	if len(tr.Steps) != 1 {
		t.Fatalf("trajectory has %d steps, want 1 (the model call, its snapshot folded in): %+v", len(tr.Steps), tr.Steps)
	}
	st := tr.Steps[0]
	if st.Request.Messages != 1 || len(st.ToolCalls) != 1 || st.ToolCalls[0].ID != asked.ID ||
		st.ToolCalls[0].Name != "browser_snapshot" || st.Usage.Prompt != reply.Usage.PromptTokens ||
		st.Usage.Completion != reply.Usage.CompletionTokens || st.Usage.Estimated {
		t.Errorf("model-call step %+v; want the reply's call %s and usage %+v", st, asked.ID, reply.Usage)
	}
	if len(st.Results) != 1 || st.Results[0].Call.ID != asked.ID || !strings.Contains(st.Results[0].RawText(), vars["WEBBENCH_START_URL"]) {
		t.Errorf("model-call step results %+v: want the snapshot under call id %s", st.Results, asked.ID)
	}
	if tr.Usage.Prompt != reply.Usage.PromptTokens || tr.Usage.Completion != reply.Usage.CompletionTokens {
		t.Errorf("trajectory usage %+v, want the one call's %+v", tr.Usage, reply.Usage)
	}
	rr, err := results.ReadAttempts(out)
	if err != nil {
		t.Fatal(err)
	}
	if recs := rr.Final(); len(recs) != 1 || recs[0].Tokens.Prompt != reply.Usage.PromptTokens ||
		recs[0].Tokens.Completion != reply.Usage.CompletionTokens || recs[0].Steps != 1 || recs[0].Status != results.StatusPass {
		t.Errorf("records %+v", recs)
	}
	if !strings.Contains(stderr.String(), "after 1 tool call, 1 model call") {
		t.Errorf("stderr does not count the model call:\n%s", stderr.String())
	}

	out = filepath.Join(t.TempDir(), "run")
	cmd, vars, stderr = serveExports(t, nil, "--tasks", mcpTask, "--out", out, "--timeout", "2s")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "stopped: attempt deadline reached after 0 tool calls") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	rr, err = results.ReadAttempts(out)
	if err != nil {
		t.Fatal(err)
	}
	if recs := rr.Final(); len(recs) != 1 || recs[0].FinishReason != results.FinishTimeout || recs[0].Status != results.StatusFail ||
		recs[0].AttemptID != vars["WEBBENCH_ATTEMPT_ID"] {
		t.Errorf("records %+v", recs)
	}
}

// chatReply is the part of an OpenAI chat completion the tests read
// (https://platform.openai.com/docs/api-reference/chat/object): the choices' tool calls and the usage.
type chatReply struct {
	Choices []struct {
		Message struct {
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// chatCall makes an external agent's first model call: POST WEBBENCH_BASE_URL/chat/completions with
// WEBBENCH_MODEL, the goal alone as the first user message and the MCP server's tools as function tools (the
// request body of https://platform.openai.com/docs/api-reference/chat/create).
func chatCall(t *testing.T, cs *mcp.ClientSession, vars map[string]string) chatReply {
	t.Helper()
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var tools []map[string]any
	for _, tl := range lt.Tools {
		tools = append(tools, map[string]any{"type": "function", "function": map[string]any{"name": tl.Name,
			"description": tl.Description, "parameters": tl.InputSchema}})
	}
	body, err := json.Marshal(map[string]any{"model": vars["WEBBENCH_MODEL"], "tools": tools,
		"messages": []map[string]any{{"role": "user", "content": vars["WEBBENCH_GOAL"]}}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(vars["WEBBENCH_BASE_URL"]+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var r chatReply
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &r) != nil {
		t.Fatalf("POST %s/chat/completions: %s %s", vars["WEBBENCH_BASE_URL"], resp.Status, b)
	}
	return r
}
