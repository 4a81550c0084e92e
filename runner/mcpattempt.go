package runner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"webbench/browser"
	"webbench/results"
	"webbench/suites"
)

// OpenedAttempt is one attempt's environment opened outside a run (bench mcp serve): the suite environment,
// a browser of its own and a fresh browser context on the environment's start page, as the runner opens them
// for the built-in agent (the tenant allow-list, the action timeout, browser_evaluate removed when asked).
type OpenedAttempt struct {
	// Env is the suite environment (the Zoo tenant); its State is what the state judge reads.
	Env suites.Env
	// Browser is the attempt's browser (launched for it, or connected to Options.BrowserEndpoint).
	Browser *browser.Browser
	// Session is the attempt's browser context, already on StartURL.
	Session *browser.Session
	// StartURL is Env.StartURL(), the page the session opened.
	StartURL string

	drv *browser.Driver
}

// OpenAttempt opens attempt attemptID of task t: it starts the Playwright driver (opts.DriverDir), launches
// Chromium headless (opts.Chromium; or connects to opts.BrowserEndpoint), opens the suite environment, a
// browser context with the environment's allow-list (opts.ActionTimeout, opts.DisableEvaluate), and loads the
// start page. Errors are infrastructure errors naming the step that failed; whatever was opened is closed
// then. Close the result with Close.
func OpenAttempt(ctx context.Context, opts Options, suite suites.Suite, t suites.Task, attemptID string) (_ *OpenedAttempt, err error) {
	o := &OpenedAttempt{}
	defer func() {
		if err != nil {
			o.Close()
		}
	}()
	if o.drv, err = browser.StartDriver(browser.DriverOptions{DriverDir: opts.DriverDir}); err != nil {
		return nil, fmt.Errorf("start the Playwright driver: %w", err)
	}
	if o.Browser, err = o.drv.Launch(launchOptions(opts, suite)); err != nil {
		return nil, fmt.Errorf("launch browser: %w", err)
	}
	if o.Env, err = suite.Open(ctx, t, attemptID); err != nil {
		return nil, fmt.Errorf("open environment: %w", err)
	}
	o.Session, err = o.Browser.NewSession(browser.SessionOptions{ActionTimeout: opts.ActionTimeout,
		Allowed: o.Env.Allowed, AskOnly: suites.AskOnly(o.Env), DisableEvaluate: opts.DisableEvaluate})
	if err != nil {
		return nil, fmt.Errorf("new browser context: %w", err)
	}
	o.StartURL = o.Env.StartURL()
	if err := o.Session.Navigate(o.StartURL); err != nil {
		return nil, fmt.Errorf("open start page: %w", err)
	}
	return o, nil
}

// Close closes the browser context, the environment (the tenant is deleted: read Env.State before), the
// browser and the driver, and returns the first error. Safe on a partly opened attempt.
func (o *OpenedAttempt) Close() error {
	var errs []error
	if o.Session != nil {
		errs = append(errs, o.Session.Close())
	}
	if o.Env != nil {
		errs = append(errs, o.Env.Close(context.Background()))
	}
	if o.Browser != nil {
		errs = append(errs, o.Browser.Close())
	}
	if o.drv != nil {
		errs = append(errs, o.drv.Stop())
	}
	return errors.Join(errs...)
}

// AgentVars are the values of an external agent's environment (ExternalEnv) for one attempt opened outside a
// run (bench mcp serve), so that it gets what `bench run --agent-cmd` gives it. The sampling parameters
// (WEBBENCH_TEMPERATURE, WEBBENCH_TOP_P, WEBBENCH_MAX_TOKENS) are not among them: they are exported only when
// a variant sets them, and an attempt opened by hand has no variant.
type AgentVars struct {
	// MCPURL is the attempt's MCP server (Streamable HTTP); "" leaves WEBBENCH_MCP_URL out (MCP over stdio).
	MCPURL string
	// Goal, StartURL, TaskID and AttemptID are the task's goal, the environment's start page, the task id and
	// the attempt id.
	Goal, StartURL, TaskID, AttemptID string
	// Seed is WEBBENCH_SEED (nil: left out, as with seed mode none).
	Seed *int
	// Deadline is WEBBENCH_DEADLINE (RFC 3339, UTC, to the second); Timeout is the attempt budget, exported
	// truncated to whole seconds as WEBBENCH_TIMEOUT_S (as the runner does).
	Deadline time.Time
	Timeout  time.Duration
	// Model is the model name to put in requests; BaseURL the model endpoint the agent calls (the recording
	// proxy's URL, ModelRecorder.URL).
	Model, BaseURL string
	// MaxSteps is WEBBENCH_MAX_STEPS, the advisory model-call budget.
	MaxSteps int
	// Guards are the guard switches (guard.Parse's map; nil: all on), exported as WEBBENCH_GUARDS: every guard
	// in registry order, name=on|off.
	Guards map[string]bool
}

// Env is v as name/value pairs in ExternalEnv's order (WEBBENCH_GUARDS last): the same names and values
// `bench run --agent-cmd` exports for the same attempt.
func (v AgentVars) Env() [][2]string {
	vars := v.vars()
	var env [][2]string
	for _, k := range ExternalEnv {
		if val, ok := vars[k]; ok {
			env = append(env, [2]string{k, val})
		}
	}
	return env
}

// vars is v by variable name, formatted as the external agent gets them (the deadline RFC 3339 in UTC, the
// timeout in whole seconds, the guards as guardsEnv).
func (v AgentVars) vars() map[string]string {
	vars := map[string]string{
		"WEBBENCH_GOAL": v.Goal, "WEBBENCH_START_URL": v.StartURL, "WEBBENCH_TASK_ID": v.TaskID,
		"WEBBENCH_ATTEMPT_ID": v.AttemptID, "WEBBENCH_DEADLINE": v.Deadline.UTC().Format(time.RFC3339),
		"WEBBENCH_TIMEOUT_S": strconv.FormatInt(int64(v.Timeout/time.Second), 10),
		"WEBBENCH_MODEL":     v.Model, "WEBBENCH_BASE_URL": v.BaseURL,
		"WEBBENCH_MAX_STEPS": strconv.Itoa(v.MaxSteps), "WEBBENCH_GUARDS": guardsEnv(v.Guards),
	}
	if v.MCPURL != "" {
		vars["WEBBENCH_MCP_URL"] = v.MCPURL
	}
	if v.Seed != nil {
		vars["WEBBENCH_SEED"] = strconv.Itoa(*v.Seed)
	}
	return vars
}

// ModelRecorder is the model-call recording proxy (runner/modelproxy) of an attempt opened outside a run,
// started as the runner starts it for an external agent: the agent's model calls go through it to the upstream
// endpoint and are merged into the trajectory by Merge, as the runner merges them.
type ModelRecorder struct {
	p     modelProxy
	calls []modelCallStep
	done  bool
}

// StartModelRecorder starts the recording proxy on 127.0.0.1 in front of upstream (a base URL such as the
// scripted policy's, http://127.0.0.1:PORT/v1), with no key of its own (as for a scripted variant) and the
// runner's default bound of 120 s on one call. Errors:
// a malformed upstream or the listen error.
func StartModelRecorder(upstream string) (*ModelRecorder, error) {
	p, err := startModelProxy(upstream, "", 0) // the runner's default call timeout (120 s)
	if err != nil {
		return nil, err
	}
	return &ModelRecorder{p: p}, nil
}

// URL is the proxy's base URL (upstream's path kept), the agent's WEBBENCH_BASE_URL.
func (m *ModelRecorder) URL() string { return m.p.URL() }

// Close stops the proxy (cutting calls still open) and keeps the calls it recorded. Safe to call twice.
func (m *ModelRecorder) Close() {
	if !m.done {
		m.calls, m.done = m.p.Close(), true
	}
}

// Calls is the number of model calls recorded (after Close or Merge; 0 before).
func (m *ModelRecorder) Calls() int { return len(m.calls) }

// Merge closes the proxy and returns the attempt's trajectory as the runner builds it for an external agent:
// tools (the MCP server's trajectory, agent/mcpserver Server.Close; its steps' StartedMS counted from origin,
// the server's Start) with the recorded model calls merged in time order, a tool call folded into the model
// call that asked for it, usage summed (see mergeExternal). Endpoint errors are left in the steps; unlike the
// runner, nothing is stopped on a fatal one.
func (m *ModelRecorder) Merge(tools *results.Trajectory, origin time.Time) *results.Trajectory {
	m.Close()
	return mergeExternal(tools, m.calls, origin)
}
