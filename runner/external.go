package runner

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/shlex"

	"webbench/agent"
	"webbench/agent/guard"
	"webbench/llm"
	"webbench/results"
)

// AgentCmd is an external agent run once per attempt (results.AgentCmd: the same type is recorded in the
// manifest). DESIGN.md "External agents".
type AgentCmd = results.AgentCmd

// AgentsDir is the run directory's folder of external agents' output (results.AgentsDir): the redacted last
// AgentOutputMax bytes of each attempt's standard output and error.
const AgentsDir = results.AgentsDir

// AgentOutputMax bounds what is kept of an external agent's standard output and standard error: the last
// 1 MiB of each (the final answer is the last line that parses, so the tail is what counts).
const AgentOutputMax = 1 << 20

// agentKillGrace is how long an external agent has between SIGTERM and SIGKILL at the attempt deadline.
const agentKillGrace = 2 * time.Second

// ExternalEnv lists the environment variables the runner sets for an external agent:
// WEBBENCH_MCP_URL (the attempt's MCP server, Streamable HTTP), WEBBENCH_GOAL, WEBBENCH_START_URL,
// WEBBENCH_TASK_ID, WEBBENCH_ATTEMPT_ID, WEBBENCH_SEED (absent with seed mode none), WEBBENCH_DEADLINE (RFC
// 3339, UTC), WEBBENCH_TIMEOUT_S (whole seconds), WEBBENCH_MODEL (the model name to put in requests),
// WEBBENCH_BASE_URL (the variant's model endpoint behind webbench's recording proxy, runner/modelproxy), WEBBENCH_TEMPERATURE,
// WEBBENCH_TOP_P and WEBBENCH_MAX_TOKENS (only when set), WEBBENCH_MAX_STEPS (the model-call budget; advisory:
// webbench does not count an external agent's calls) and WEBBENCH_GUARDS (all seven guards, name=on|off,
// comma-separated, in registry order). OPENAI_API_KEY is removed from the inherited environment and set only
// when the model block names a key variable (api_key_env), to that variable's value. An agent's own env may
// not set these names.
var ExternalEnv = []string{"WEBBENCH_MCP_URL", "WEBBENCH_GOAL", "WEBBENCH_START_URL", "WEBBENCH_TASK_ID",
	"WEBBENCH_ATTEMPT_ID", "WEBBENCH_SEED", "WEBBENCH_DEADLINE", "WEBBENCH_TIMEOUT_S", "WEBBENCH_MODEL",
	"WEBBENCH_BASE_URL", "WEBBENCH_TEMPERATURE", "WEBBENCH_TOP_P", "WEBBENCH_MAX_TOKENS", "WEBBENCH_MAX_STEPS",
	"WEBBENCH_GUARDS"}

// ParseAgentCmd builds the AgentCmd of `--agent-cmd "COMMAND ARGS"` (split into words by POSIX shell rules,
// github.com/google/shlex: quotes and backslashes, no expansion) and `--agent-env K=V` (repeatable), run in dir
// (the current directory). Errors: an empty command, a line that does not split (an unclosed quote), an env
// entry without "=" or with an empty name.
func ParseAgentCmd(cmd string, env []string, dir string) (*AgentCmd, error) {
	words, err := shlex.Split(cmd)
	if err != nil {
		return nil, fmt.Errorf("--agent-cmd %q: %v", cmd, err)
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("--agent-cmd %q: no command", cmd)
	}
	a := &AgentCmd{Kind: "command", Run: words, Dir: dir}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--agent-env %q: expected NAME=VALUE", kv)
		}
		if a.Env == nil {
			a.Env = map[string]string{}
		}
		a.Env[k] = v
	}
	return a, nil
}

// CheckAgentCmd checks an external agent before a run starts: its shape (CheckAgentShape) and a command that
// resolves (ResolveAgentCmd). The error says which.
func CheckAgentCmd(a *AgentCmd) error {
	if err := CheckAgentShape(a); err != nil {
		return err
	}
	if _, err := ResolveAgentCmd(a); err != nil {
		return err
	}
	return checkAgentScript(a)
}

// scriptExts are the file extensions of the scripts an interpreter named first in an agent's run is given.
var scriptExts = []string{".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".sh", ".rb", ".pl"}

// checkAgentScript refuses a run whose first argument is a script file (one of scriptExts, not an option) that
// does not exist, relative to a.Dir: `python3 agnet.py` resolves python3, so without this check every attempt
// would end agent_crashed on the interpreter's "can't open file".
func checkAgentScript(a *AgentCmd) error {
	if len(a.Run) < 2 || strings.HasPrefix(a.Run[1], "-") || !slices.Contains(scriptExts, filepath.Ext(a.Run[1])) {
		return nil
	}
	p := a.Run[1]
	if !filepath.IsAbs(p) {
		p = filepath.Join(a.Dir, p)
	}
	if _, err := os.Stat(p); err != nil {
		where := a.Dir
		if where == "" {
			where = "the current directory"
		}
		return fmt.Errorf("agent script %q (the argument of %s) not found relative to %s: %v", a.Run[1], a.Run[0],
			where, errors.Unwrap(err))
	}
	return nil
}

// CheckAgentShape checks what an external agent's description alone can tell: kind "command", a non-empty
// run, and no env entry naming a variable the runner sets (ExternalEnv) or any other WEBBENCH_* name, or that
// is no variable name.
func CheckAgentShape(a *AgentCmd) error {
	if a.Kind != "command" {
		return fmt.Errorf("agent kind %q: expected command", a.Kind)
	}
	if len(a.Run) == 0 || a.Run[0] == "" {
		return errors.New("agent run: no command (expected [COMMAND, ARGS…])")
	}
	for k := range a.Env {
		if slices.Contains(ExternalEnv, k) {
			return fmt.Errorf("agent env %s: set by webbench for each attempt; remove it", k)
		}
		if strings.HasPrefix(k, "WEBBENCH_") {
			return fmt.Errorf("agent env %s: WEBBENCH_* names are webbench's (the attempt's contract); use another name", k)
		}
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("agent env %q: not a variable name", k)
		}
	}
	return nil
}

// ResolveAgentCmd is the absolute path of a's command: a name without a slash is looked up in $PATH
// (exec.LookPath), a relative path is taken relative to a.Dir (the spec file's folder, or the current
// directory). The error names the command and where it was looked for.
func ResolveAgentCmd(a *AgentCmd) (string, error) {
	name := a.Run[0]
	if strings.Contains(name, "/") && !filepath.IsAbs(name) {
		name = filepath.Join(a.Dir, name)
	}
	p, err := exec.LookPath(name)
	if err != nil {
		where := "in $PATH"
		if strings.Contains(a.Run[0], "/") {
			dir := a.Dir
			if dir == "" {
				dir = "the current directory"
			}
			where = "relative to " + dir
		}
		return "", fmt.Errorf("agent command %q not found or not executable (looked %s): %v", a.Run[0], where,
			errors.Unwrap(err))
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p, nil
}

// checkAgents refuses, before anything runs, a variant whose external agent cannot start (CheckAgentCmd) or
// which sets an option the external agent cannot apply: a system prompt file (the agent has its own prompt),
// the request options omit, max_connections and max_tokens_field, and --screenshots (only the built-in loop
// keeps screenshots for the judge).
func checkAgents(plan Plan, opts Options) error {
	for _, v := range plan.Variants {
		if v.Agent == nil {
			continue
		}
		if v.PromptFile != "" {
			return fmt.Errorf("variant %s: prompt %s cannot apply to an external agent (it has its own prompt): remove it",
				v.Name, v.PromptFile)
		}
		// Options of the built-in agent's own requests and loop, which an external agent builds itself: accepted,
		// they would do nothing, so they are refused (the agent reads WEBBENCH_* instead).
		refuse := func(what string) error {
			return fmt.Errorf("variant %s: %s cannot apply to an external agent (it makes its own model requests "+
				"and screenshots): remove it", v.Name, what)
		}
		switch {
		case len(v.Model.Omit) > 0:
			return refuse("omit (--omit)")
		case v.Model.MaxConnections > 0:
			return refuse("max_connections (--max-connections)")
		case v.Model.MaxTokensField != "":
			return refuse("max_tokens_field (--max-tokens-field)")
		case opts.Screenshots:
			return refuse("--screenshots")
		}
		if err := CheckAgentCmd(v.Agent); err != nil {
			return fmt.Errorf("variant %s: %w", v.Name, err)
		}
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	b   []byte
	cut bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
		t.cut = true
	}
	return len(p), nil
}

// externalRun is how an external agent's process ended.
type externalRun struct {
	stdout, stderr []byte
	exitCode       int
	timedOut       bool
	stopped        bool // ctx ended (the run was stopped)
	startErr       error
	// signal names the signal that killed the agent ("segmentation fault", "killed"), "" when it exited.
	signal string
}

// runAgentProcess runs a's command (resolved path bin) in its own process group with env, standard input
// /dev/null, until it exits, the deadline passes (SIGTERM to the group, SIGKILL after agentKillGrace) or ctx
// ends (SIGKILL to the group). Whatever way it ends, the group is killed afterwards so no child outlives the
// attempt; on Linux the agent also gets SIGKILL if webbench itself dies (dieWithParent).
func runAgentProcess(ctx context.Context, a *AgentCmd, bin string, env []string, deadline time.Time) externalRun {
	out, errb := &tailBuffer{max: AgentOutputMax}, &tailBuffer{max: AgentOutputMax}
	cmd := exec.Command(bin, a.Run[1:]...)
	cmd.Dir = a.Dir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out, errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
	// A child left behind holding the output pipes open must not block Wait once the agent itself exited.
	cmd.WaitDelay = agentKillGrace
	if err := cmd.Start(); err != nil {
		return externalRun{startErr: err, exitCode: -1}
	}
	pgid := cmd.Process.Pid
	kill := func(sig syscall.Signal) { _ = syscall.Kill(-pgid, sig) }
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	var r externalRun
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		r.timedOut = true
		kill(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(agentKillGrace):
			kill(syscall.SIGKILL)
			<-done
		}
	case <-ctx.Done():
		r.stopped = true
		kill(syscall.SIGKILL)
		<-done
	}
	kill(syscall.SIGKILL) // children the agent left behind
	r.stdout, r.stderr = out.b, errb.b
	r.exitCode = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.signal = ws.Signal().String()
	}
	if !r.timedOut && !r.stopped && !time.Now().Before(deadline) {
		r.timedOut = true // it exited after the deadline, before the timer fired: a timeout all the same
	}
	return r
}

// lastFinal is the agent's answer in its stdout out: the last line that parses as the built-in agent's final
// JSON object (agent.ParseFinal); failing that, a final JSON object printed over several lines at the end
// (pretty-printed: the shortest tail of lines, starting at a line that begins with "{", that ParseFinal
// accepts whole). nil when there is neither.
func lastFinal(out []byte) *results.FinalAnswer {
	var last *results.FinalAnswer
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), AgentOutputMax+1)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if f, err := agent.ParseFinal(sc.Text()); err == nil {
			last = f
		}
	}
	if last != nil {
		return last
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "{") {
			if f, err := agent.ParseFinal(strings.Join(lines[i:], "\n")); err == nil {
				return f
			}
		}
	}
	return nil
}

// guardsEnv is WEBBENCH_GUARDS for guard switches g (nil: all on): every guard in registry order, name=on|off.
func guardsEnv(g map[string]bool) string {
	m := guardMap(g)
	var parts []string
	for _, n := range guard.Names() {
		v := "off"
		if m[n] {
			v = "on"
		}
		parts = append(parts, n+"="+v)
	}
	return strings.Join(parts, ",")
}

// externalEnv is the external agent's environment: webbench's own minus OPENAI_API_KEY and every WEBBENCH_*
// variable, then the attempt's WEBBENCH_* (ExternalEnv; vars), OPENAI_API_KEY = key when key is named, then
// the agent's env with ${VAR} expanded from webbench's environment.
func externalEnv(vars map[string]string, keyNamed bool, key string, own map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "OPENAI_API_KEY" || strings.HasPrefix(k, "WEBBENCH_") {
			continue
		}
		env = append(env, kv)
	}
	for _, k := range ExternalEnv {
		if v, ok := vars[k]; ok {
			env = append(env, k+"="+v)
		}
	}
	if keyNamed {
		env = append(env, "OPENAI_API_KEY="+key)
	}
	keys := make([]string, 0, len(own))
	for k := range own {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+os.Expand(own[k], os.Getenv))
	}
	return env
}

// f32 formats a sampling parameter as the request would carry it.
func f32(p *float32) string { return strconv.FormatFloat(float64(*p), 'g', -1, 32) }

// stopsRun reports whether an endpoint error an external agent's model call met stops the run: auth and quota
// (the key, the account), and config errors that name the endpoint rather than the request — HTTP 404/405 (a
// mistyped model name or deployment, a base URL without /v1). Other config errors (400: a malformed or
// unsupported request) are the agent's own request's fault: they stay its failed steps (Step.Error).
func stopsRun(e *llm.Error) bool {
	if e == nil {
		return false
	}
	switch e.Class {
	case llm.ErrorAuth, llm.ErrorQuota:
		return true
	case llm.ErrorConfig:
		return e.StatusCode == 404 || e.StatusCode == 405
	}
	return false
}

// endpointFailedLast returns the agent's last model call (in start order) when it failed on the endpoint's
// side: upstream not reached or cut (status 0), HTTP 429 or 5xx, or an error the client classes infra or
// rate_limit.
func endpointFailedLast(calls []modelCallStep) (modelCallStep, bool) {
	if len(calls) == 0 {
		return modelCallStep{}, false
	}
	c := calls[len(calls)-1]
	if c.Step.Error == "" {
		return c, false
	}
	if c.Status == 0 || c.Status == 429 || c.Status >= 500 {
		return c, true
	}
	return c, c.Endpoint != nil && (c.Endpoint.Class == llm.ErrorInfra || c.Endpoint.Class == llm.ErrorRateLimit)
}

// endpointWhat describes a failed model call: its HTTP status and the error.
func endpointWhat(c modelCallStep) string {
	if c.Status == 0 {
		return c.Step.Error
	}
	return fmt.Sprintf("HTTP %d: %s", c.Status, c.Step.Error)
}

// modelCallStep is one model call the recording proxy saw, as a trajectory step, and when it started.
type modelCallStep struct {
	Start time.Time
	Step  results.Step
	// Endpoint is the endpoint's classified error when the call failed with one (modelproxy.Call.Endpoint).
	Endpoint *llm.Error
	// Status is the upstream HTTP status (0: not reached, or the reply was cut).
	Status int
}

// mergeExternal is the trajectory of an external agent's attempt: tools (the MCP server's, one step per tool
// call, StartedMS since origin) and calls (the model calls, one step each) in time order. A tool step is
// folded into the latest model-call step before it when that step's tool_calls name that tool and still have
// a call of that name without a result — the model call that asked for it, so a ReAct agent's trajectory has the built-in
// agent's shape (one step per model call with its tool results and guard events); its record takes the model
// call's tool-call id. Other tool steps stay steps of their own. Steps are renumbered and the guard events'
// Step follows (1-based step number, as in the loop). Usage is the sum of the model calls'.
func mergeExternal(tools *results.Trajectory, calls []modelCallStep, origin time.Time) *results.Trajectory {
	tr := *tools
	type item struct {
		st    *results.Step
		model bool
		old   int // 1-based tool step number in tools (the events' Step)
	}
	var items []item
	for _, c := range calls {
		st := c.Step
		st.StartedMS = c.Start.Sub(origin).Milliseconds()
		items = append(items, item{st: &st, model: true})
		tr.Usage = tr.Usage.Add(st.Usage)
	}
	for i, st := range tools.Steps {
		items = append(items, item{st: st, old: i + 1})
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].st.StartedMS != items[j].st.StartedMS {
			return items[i].st.StartedMS < items[j].st.StartedMS
		}
		return items[i].model && !items[j].model
	})
	renum := map[int]int{}
	var out []*results.Step
	var models []*results.Step
	for _, it := range items {
		if it.model {
			it.st.Results = nil
			out = append(out, it.st)
			models = append(models, it.st)
			continue
		}
		name := ""
		if len(it.st.ToolCalls) > 0 {
			name = it.st.ToolCalls[0].Name
		}
		var host *results.Step
		var id string
		// Only the latest model call before it may host it: a call that reply did not ask for (the agent's own,
		// or one an older reply asked for and the agent withheld) is a step of its own, never pinned on an
		// older reply.
		if k := len(models) - 1; k >= 0 {
			used := 0
			for _, r := range models[k].Results {
				if r.Call.Name == name {
					used++
				}
			}
			seen := 0
			for _, tc := range models[k].ToolCalls {
				if tc.Name != name {
					continue
				}
				if seen == used {
					host, id = models[k], tc.ID
					break
				}
				seen++
			}
		}
		if host == nil || name == "" {
			out = append(out, it.st)
			renum[it.old] = len(out)
			continue
		}
		for _, r := range it.st.Results {
			r.Call.ID = id
			host.Results = append(host.Results, r)
			host.Progress = host.Progress || r.Action
		}
		host.Events = append(host.Events, it.st.Events...)
		renum[it.old] = slices.Index(out, host) + 1
	}
	for i, st := range out {
		st.Index = i
		for j := range st.Events {
			if n, ok := renum[st.Events[j].Step]; ok {
				st.Events[j].Step = n
			}
		}
	}
	tr.Events = slices.Clone(tools.Events)
	for j := range tr.Events {
		if n, ok := renum[tr.Events[j].Step]; ok {
			tr.Events[j].Step = n
		}
	}
	tr.Steps = out
	return &tr
}
