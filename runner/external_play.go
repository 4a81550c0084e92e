package runner

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"webbench/agent/mcpserver"
	"webbench/llm"
	"webbench/results"
)

// externalPlayer plays an attempt with the variant's external agent (Variant.Agent) in the worker's session,
// already on the start page: it starts the attempt's MCP server and the model-call recording proxy, runs the
// command until it exits or the deadline, and builds the trajectory (model calls and tool calls merged in time
// order, the finish from the agent's stdout), which the worker concludes as the built-in agent's.
type externalPlayer struct{}

func (externalPlayer) ownBrowser() bool { return false }

func (externalPlayer) play(ctx context.Context, st *stage) (played, error) {
	t, v, ag := st.a.Task, st.af.v, st.af.v.Agent
	timeout, maxSteps := externalBudgets(st)
	bin, err := ResolveAgentCmd(ag)
	if err != nil {
		return played{}, &setupError{err}
	}
	deadline := time.Now().Add(timeout)
	srv, err := mcpserver.New(ctx, st.sess, mcpserver.Options{TaskID: t.ID, Goal: t.Goal, Deadline: deadline,
		Guards: v.Guards})
	if err != nil {
		return played{}, &setupError{fmt.Errorf("mcp server: %w", err)}
	}
	mcpURL, err := srv.StartHTTP()
	if err != nil {
		srv.Close()
		return played{}, &setupError{fmt.Errorf("mcp server: %w", err)}
	}
	cfg := st.af.client.Config()
	keyNamed := v.Model.APIKeyEnv != ""
	key, proxyKey := "", ""
	if keyNamed {
		key = os.Getenv(v.Model.APIKeyEnv)
	}
	if v.Model.Kind != "scripted" {
		// The proxy sends the key the built-in agent would (the model block's variable, else OPENAI_API_KEY)
		// on calls that carry none, so an agent needs no key of its own; the agent gets OPENAI_API_KEY only
		// when the model block names a variable.
		proxyKey = os.Getenv(cfg.KeyEnv())
	}
	proxy, err := startModelProxy(cfg.BaseURL, proxyKey, v.Model.CallTimeout)
	if err != nil {
		srv.Close()
		return played{}, &setupError{fmt.Errorf("model proxy: %w", err)}
	}
	vars := externalVars(st, mcpURL, proxy.URL(), cfg.Model, deadline, timeout, maxSteps)
	run := runAgentProcess(ctx, ag, bin, externalEnv(vars, keyNamed, key, ag.Env), deadline)
	tools := srv.Close()
	calls := proxy.Close()
	if ctx.Err() != nil {
		return played{}, ctx.Err() // the run was stopped: unrecorded, re-run on resume (as the built-in path)
	}
	for _, c := range calls {
		if stopsRun(c.Endpoint) {
			// A wrong key, a mistyped model name or base URL, no quota: the endpoint's fault, not the agent's. The
			// run stops as it does for the built-in agent (EndpointError), nothing is recorded for this attempt,
			// and the attempt runs again on resume — never N attempts reported as the agent's 0 %.
			return played{}, c.Endpoint
		}
	}
	if run.startErr != nil {
		return played{}, fmt.Errorf("start agent %s: %w", ag.Run[0], run.startErr)
	}
	stderrRel := keepOutput(st, run, []string{key, proxyKey})
	tr := mergeExternal(tools, calls, srv.Start())
	externalFinish(tr, run, timeout, stderrRel)
	blameHarness(tr, srv.BrowserGone(), calls)
	return played{tr: tr, shots: st.sess.Screenshots(), shotSteps: st.sess.ScreenshotSteps()}, nil
}

// externalBudgets are the attempt's timeout and advisory model-call budget: the variant's, else the task's,
// else the built-in agent's defaults (agent.Config: 600 s, 50 steps).
func externalBudgets(st *stage) (time.Duration, int) {
	t, v, cfg := st.a.Task, st.af.v, st.af.cfg
	timeout := cfg.Timeout
	if t.Timeout > 0 && v.Timeout == 0 {
		timeout = t.Timeout
	}
	if timeout <= 0 {
		timeout = 600 * time.Second
	}
	maxSteps := cfg.MaxSteps
	if t.MaxSteps > 0 && v.MaxSteps == 0 {
		maxSteps = t.MaxSteps
	}
	if maxSteps <= 0 {
		maxSteps = 50
	}
	return timeout, maxSteps
}

// externalVars are the WEBBENCH_* values of the external agent's environment for the attempt (ExternalEnv):
// the MCP server, the task, the deadline and budgets, the model (baseURL: the recording proxy's) and its
// sampling parameters when the variant sets them, the guard switches.
func externalVars(st *stage, mcpURL, baseURL, model string, deadline time.Time, timeout time.Duration,
	maxSteps int) map[string]string {
	t, v, a := st.a.Task, st.af.v, st.a
	vars := AgentVars{MCPURL: mcpURL, Goal: t.Goal, StartURL: st.env.StartURL(), TaskID: t.ID,
		AttemptID: a.AttemptID, Seed: a.Seed, Deadline: deadline, Timeout: timeout, Model: model, BaseURL: baseURL,
		MaxSteps: maxSteps, Guards: v.Guards}.vars()
	if v.Model.Temp != nil {
		vars["WEBBENCH_TEMPERATURE"] = f32(v.Model.Temp)
	}
	if v.Model.TopP != nil {
		vars["WEBBENCH_TOP_P"] = f32(v.Model.TopP)
	}
	if v.Model.MaxTokens != nil {
		vars["WEBBENCH_MAX_TOKENS"] = strconv.Itoa(*v.Model.MaxTokens)
	}
	return vars
}

// keepOutput writes the agent's stdout and stderr to agents/<attempt_id>.stdout and .stderr, redacted: the
// keys, and every agent env value expanded from webbench's environment (${VAR}: recorded unexpanded in the
// manifest, so its expansion must not reach the run directory either). It returns the stderr file's path
// relative to the run directory.
func keepOutput(st *stage, run externalRun, keys []string) string {
	secrets := keys
	for _, raw := range st.af.v.Agent.Env {
		if v := os.Expand(raw, os.Getenv); v != raw && len(v) >= 6 {
			secrets = append(secrets, v)
		}
	}
	redact := func(b []byte) []byte {
		s := llm.RedactString(string(b))
		for _, k := range secrets {
			if k != "" {
				s = strings.ReplaceAll(s, k, "[REDACTED]")
			}
		}
		return []byte(s)
	}
	stderrRel := results.AgentStderr(st.a.AttemptID)
	if err := st.w.WriteFile(stderrRel, redact(run.stderr)); err != nil {
		fmt.Fprintf(st.wk.opts.Log, "warning: %s: %v\n", stderrRel, err)
	}
	stdoutRel := results.AgentStdout(st.a.AttemptID)
	if err := st.w.WriteFile(stdoutRel, redact(run.stdout)); err != nil {
		fmt.Fprintf(st.wk.opts.Log, "warning: %s: %v\n", stdoutRel, err)
	}
	return stderrRel
}

// externalFinish sets tr's finish from how the command ended: killed at the deadline (timeout), the last final
// answer on its stdout (answered), else crashed (killed by a signal, or exited without a final answer).
func externalFinish(tr *results.Trajectory, run externalRun, timeout time.Duration, stderrRel string) {
	code := run.exitCode
	tr.Finish.ExitCode = &code
	switch f := lastFinal(run.stdout); {
	case run.timedOut:
		tr.Finish.Reason, tr.Finish.ErrorClass = results.FinishTimeout, llm.ErrorAgent
		tr.Finish.Error = fmt.Sprintf("external agent still running at the attempt deadline (timeout %s): its "+
			"process group was killed (stderr: %s)", timeout, stderrRel)
	case f != nil:
		tr.Finish.Reason, tr.Finish.Final = results.FinishAnswered, f
	case run.signal != "":
		tr.Finish.Reason, tr.Finish.ErrorClass = results.FinishAgentCrashed, llm.ErrorAgent
		tr.Finish.Error = fmt.Sprintf("agent killed by signal %q without a final JSON answer (stderr: %s)",
			run.signal, stderrRel)
	default:
		tr.Finish.Reason, tr.Finish.ErrorClass = results.FinishAgentCrashed, llm.ErrorAgent
		tr.Finish.Error = fmt.Sprintf("agent exited with code %d without a final JSON answer (stderr: %s)", code,
			stderrRel)
	}
}

// blameHarness marks tr's finish as the harness's or the endpoint's fault when it was: the page or context
// closed under the agent (gone, srv.BrowserGone: a crash, a kill; as the built-in loop's browser_closed,
// retried), or the agent's last model call failed on the endpoint's side (unreachable, 5xx, rate limited, cut
// by the call timeout) and it ended without an answer that claims success (infrastructure, retried, as the
// built-in agent's model_error after retries).
func blameHarness(tr *results.Trajectory, gone string, calls []modelCallStep) {
	if gone != "" {
		tr.Finish.Reason, tr.Finish.ErrorClass = results.FinishBrowserClosed, llm.ErrorInfra
		tr.Finish.Error = llm.RedactString("browser gone during the attempt: " + gone)
		return
	}
	if f := tr.Finish.Final; f != nil && f.OK {
		return
	}
	if c, ok := endpointFailedLast(calls); ok {
		class := llm.ErrorInfra
		if c.Endpoint != nil && c.Endpoint.Class == llm.ErrorRateLimit {
			class = llm.ErrorRateLimit
		}
		tr.Finish.ErrorClass = class
		tr.Finish.Error = llm.RedactString(fmt.Sprintf("the agent's last model call failed on the endpoint "+
			"(%s), then the agent ended (%s): an infrastructure error, retried", endpointWhat(c), tr.Finish.Reason))
	}
}
