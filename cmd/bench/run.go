package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"webbench/agent"
	"webbench/agent/guard"
	"webbench/browser"
	"webbench/llm"
	"webbench/report"
	"webbench/results"
	"webbench/runner"
	"webbench/scripted"
	"webbench/suites"
)

// suiteFlags are the flags that choose a suite and its tasks.
type suiteFlags struct {
	suite, tasks, tasksFile, answers, staleDates string
}

func (f *suiteFlags) register(c *cobra.Command) {
	c.Flags().StringVar(&f.suite, "suite", "zoo", "suite name (bench suites lists them)")
	c.Flags().StringVar(&f.tasks, "tasks", "", "comma-separated task id globs, e.g. 'shop-*' (default: all)")
	c.Flags().StringVar(&f.tasksFile, "tasks-file", "", "task file (WebVoyager JSONL)")
	c.Flags().StringVar(&f.answers, "answers", "", "reference answers file (WebVoyager reference_answer.json)")
	c.Flags().StringVar(&f.staleDates, "stale-dates", "", "WebVoyager tasks naming past dates: skip|shift|keep")
}

// options are the suite options the flags set (the empty ones left out).
func (f *suiteFlags) options() suites.Options {
	opts := suites.Options{}
	for k, v := range map[string]string{"tasks_file": f.tasksFile, "answers": f.answers, "stale_dates": f.staleDates} {
		if v != "" {
			opts[k] = v
		}
	}
	return opts
}

func (f *suiteFlags) open() (suites.Suite, []suites.Task, error) {
	s, err := suites.Open(f.suite, f.options())
	if err != nil {
		return nil, nil, usageErr("%v", err)
	}
	tasks, err := suites.Filter(s.Tasks(), f.tasks)
	if err != nil {
		s.Close()
		return nil, nil, usageErr("%v", err)
	}
	return s, tasks, nil
}

// runFlags configure execution (shared by run and ablate).
type runFlags struct {
	workers, retries           int
	out, shard                 string
	driverDir, chromium, wsURL string
	wsURLEnv, exposeNetwork    string
	browserHeaders             []string
	browserHeaderEnv           []string
	connectTimeout, reconnect  time.Duration
	maxCost                    float64
	maxConns                   int
	req                        requestFlags
	dryRun, jsonOut            bool
	screenshots, trace         bool
	noEvaluate                 bool
	// cmd is the command the flags were registered on (register), for Changed.
	cmd *cobra.Command
}

func (f *runFlags) register(c *cobra.Command) {
	f.cmd = c
	c.Flags().IntVar(&f.workers, "workers", 0, "parallel workers, each with its own browser (default: number of cores)")
	c.Flags().IntVar(&f.retries, "retries", 2, "retries of an attempt after infrastructure errors")
	c.Flags().StringVar(&f.out, "out", "", "run directory (default runs/<timestamp>); re-running on it resumes")
	c.Flags().StringVar(&f.shard, "shard", "", "run shard i/n of the plan (partitioned by pair_id); 'k8s/n' takes i from JOB_COMPLETION_INDEX")
	c.Flags().StringVar(&f.driverDir, "driver-dir", "", "Playwright driver folder (default: .cache/driver found upward, or $WEBBENCH_DRIVER_DIR)")
	c.Flags().StringVar(&f.chromium, "chromium", "", "Chromium binary (default: $WEBBENCH_CHROMIUM, /usr/lib/chromium/chromium-headless-shell for headless launches, /usr/lib/chromium/chromium, chromium/chrome on PATH, Playwright's cache; README \"Browser discovery\")")
	c.Flags().StringVar(&f.wsURL, "browser-endpoint", "", "connect to a remote Playwright browser server (ws://… or wss://…, "+
		"Playwright "+browser.DriverMinor+".x like this bench's driver) instead of launching Chromium")
	c.Flags().StringVar(&f.wsURLEnv, "browser-endpoint-env", "", "--browser-endpoint read from the environment "+
		"variable `VAR` (keeps a ?token= in the URL out of shell history and the process list)")
	c.Flags().StringArrayVar(&f.browserHeaders, "browser-header", nil, "'Name: value' HTTP header sent with the connect to "+
		"--browser-endpoint (repeatable); the value is a secret, recorded nowhere")
	c.Flags().StringArrayVar(&f.browserHeaderEnv, "browser-header-env", nil, "'Name=VAR': send header Name with the value of "+
		"$VAR (repeatable; keeps tokens out of shell history and the process list)")
	c.Flags().StringVar(&f.exposeNetwork, "browser-expose-network", "", "Playwright's exposeNetwork rules for "+
		"--browser-endpoint, e.g. '<loopback>': the remote browser reaches these hosts through this machine (the Zoo "+
		"on its loopback); honoured by servers in 'playwright run-server' mode, ignored by launchServer and "+
		"launch-server ones (the check before the run refuses a remote browser that cannot load a start page on this "+
		"machine's loopback; a rule must match the start URL's host as written: 127.0.0.1 does not cover localhost)")
	c.Flags().DurationVar(&f.connectTimeout, "browser-connect-timeout", browser.DefaultConnectTimeout, "bound of one connect to --browser-endpoint")
	c.Flags().DurationVar(&f.reconnect, "browser-reconnect", runner.DefaultBrowserReconnect, "how long --browser-endpoint "+
		"may stay unreachable during a run (one window for all workers) before the run stops, exit 3, resumable "+
		"(0: the first failed connect stops it)")
	c.Flags().Float64Var(&f.maxCost, "max-cost", 0, "stop once recorded model spend reaches this many USD")
	c.Flags().IntVar(&f.maxConns, "max-connections", 0, "cap of concurrent requests to each model endpoint across all workers, halved on HTTP 429 and grown back (0: no cap)")
	f.req.register(c)
	c.Flags().BoolVar(&f.dryRun, "dry-run", false, "print the plan (attempt ids, in task order; the run shuffles the pairs' order by the seed, then starts the pairs with the most arms first) and exit")
	c.Flags().BoolVar(&f.jsonOut, "json", false, "with --dry-run: print the plan as JSON")
	c.Flags().BoolVar(&f.screenshots, "screenshots", false, "keep a screenshot after every step (for the llm judge)")
	c.Flags().BoolVar(&f.trace, "trace", false, "keep a Playwright trace (traces/<attempt_id>.zip) of every attempt that did not pass")
	c.Flags().BoolVar(&f.noEvaluate, "disable-evaluate", false, "remove browser_evaluate from the agent's tools")
}

func (f *runFlags) options() (runner.Options, error) {
	// 0 workers is the default ("number of cores"); negative counts and spend limits are mistakes.
	switch {
	case f.workers < 0:
		return runner.Options{}, usageErr("--workers %d: must be at least 0 (0: number of cores)", f.workers)
	case f.retries < 0:
		return runner.Options{}, usageErr("--retries %d: must be at least 0", f.retries)
	case f.maxCost < 0 || math.IsNaN(f.maxCost):
		return runner.Options{}, usageErr("--max-cost %v: must be at least 0 USD (0: no limit)", f.maxCost)
	case f.maxConns < 0:
		return runner.Options{}, usageErr("--max-connections %d: must be at least 0 (0: no cap)", f.maxConns)
	}
	sh, err := runner.ParseShard(f.shard)
	if err != nil {
		return runner.Options{}, usageErr("%v", err)
	}
	if f.connectTimeout <= 0 {
		return runner.Options{}, usageErr("--browser-connect-timeout %s: must be positive", f.connectTimeout)
	}
	endpoint, err := f.endpoint()
	if err != nil {
		return runner.Options{}, err
	}
	headers, err := f.headers(endpoint)
	if err != nil {
		return runner.Options{}, err
	}
	if f.exposeNetwork != "" && endpoint == "" {
		return runner.Options{}, usageErr("--browser-expose-network needs --browser-endpoint")
	}
	// The connect flags do nothing for local browsers: given without an endpoint, they are a mistake (a
	// forgotten --browser-endpoint-env), not a no-op.
	for _, n := range []string{"browser-connect-timeout", "browser-reconnect", "browser-expose-network"} {
		if endpoint == "" && f.cmd != nil && f.cmd.Flags().Changed(n) {
			return runner.Options{}, usageErr("--%s needs --browser-endpoint (or --browser-endpoint-env): it "+
				"configures the connects to a remote browser server", n)
		}
	}
	if f.reconnect < 0 {
		return runner.Options{}, usageErr("--browser-reconnect %s: must be at least 0 (0: the first failed connect "+
			"stops the run)", f.reconnect)
	}
	reconnect := f.reconnect
	if reconnect == 0 {
		reconnect = -1 // the first failed connect stops the run (runner.Options' 0 is the default window)
	}
	out := f.out
	if out == "" {
		out = filepath.Join("runs", time.Now().UTC().Format("20060102-150405"))
	}
	return runner.Options{OutDir: out, Workers: f.workers, Retries: f.retries, Shard: sh, DriverDir: f.driverDir,
		Chromium: f.chromium, BrowserEndpoint: endpoint, BrowserHeaders: headers, BrowserExposeNetwork: f.exposeNetwork,
		BrowserConnectTimeout: f.connectTimeout,
		BrowserReconnect:      reconnect, MaxCostUSD: f.maxCost, Screenshots: f.screenshots, Trace: f.trace,
		DisableEvaluate: f.noEvaluate}, nil
}

// headerName is an HTTP header name (RFC 9110 token).
var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// endpoint is the remote browser server's URL: --browser-endpoint, or the value of $VAR for
// --browser-endpoint-env VAR (refused together, or with VAR unset or empty); "" for local browsers. Errors
// never quote the URL.
func (f *runFlags) endpoint() (string, error) {
	if f.wsURLEnv == "" {
		return f.wsURL, nil
	}
	if f.wsURL != "" {
		return "", usageErr("--browser-endpoint and --browser-endpoint-env: give one of them")
	}
	v := strings.TrimSpace(os.Getenv(f.wsURLEnv))
	if v == "" {
		return "", usageErr("--browser-endpoint-env %s: $%s is unset or empty", f.wsURLEnv, f.wsURLEnv)
	}
	return v, nil
}

// headers are the connect headers of --browser-header 'Name: value' and --browser-header-env 'Name=VAR' (the
// value read from $VAR), refused without a remote endpoint, with a malformed name, a header given twice, or
// an unset or empty variable. Errors never quote a value.
func (f *runFlags) headers(endpoint string) (map[string]string, error) {
	if len(f.browserHeaders)+len(f.browserHeaderEnv) == 0 {
		return nil, nil
	}
	if endpoint == "" {
		return nil, usageErr("--browser-header and --browser-header-env need --browser-endpoint (or --browser-endpoint-env): they are sent " +
			"with the connect to a remote browser server")
	}
	out := map[string]string{}
	add := func(flag, name, value string) error {
		name = strings.TrimSpace(name)
		if !headerName.MatchString(name) {
			return usageErr("%s: %q is not an HTTP header name (want 'Name: value'%s)", flag, name,
				map[bool]string{true: ", or Name=VAR", false: ""}[flag == "--browser-header-env"])
		}
		for k := range out {
			if strings.EqualFold(k, name) {
				return usageErr("%s: header %s given twice", flag, name)
			}
		}
		out[name] = value
		return nil
	}
	for _, h := range f.browserHeaders {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			return nil, usageErr("--browser-header: want 'Name: value' (a colon after the name), got a value of %s "+
				"without one", results.Count(len(h), "character", "characters"))
		}
		if err := add("--browser-header", name, strings.TrimSpace(value)); err != nil {
			return nil, err
		}
	}
	for _, h := range f.browserHeaderEnv {
		name, env, ok := strings.Cut(h, "=")
		if !ok || env == "" {
			return nil, usageErr("--browser-header-env %q: want Name=VAR (the value is read from $VAR)", h)
		}
		v := os.Getenv(env)
		if v == "" {
			return nil, usageErr("--browser-header-env %s: $%s is unset or empty", h, env)
		}
		if err := add("--browser-header-env", name, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// applyModelFlags sets --max-connections, --omit and --max-tokens-field, each when given, on every variant's
// model (run: the one variant; ablate: every arm, replacing the spec's max_connections, omit and
// max_tokens_field). A negative cap is refused by options; an unknown --omit field or --max-tokens-field value
// here.
func (f *runFlags) applyModelFlags(c *cobra.Command, vs []runner.Variant) error {
	if c.Flags().Changed("max-connections") {
		for i := range vs {
			vs[i].Model.MaxConnections = f.maxConns
		}
	}
	capped := false
	for i := range vs {
		if err := f.req.apply(c, &vs[i].Model); err != nil {
			return err
		}
		capped = capped || vs[i].Model.MaxTokens != nil
	}
	return f.req.check(c, capped)
}

// requestFlags are the flags that shape the model request (bench run, ablate and doctor): the fields never
// sent, the completion cap and the field it goes in — the settings the preflight's hints name.
type requestFlags struct {
	omit           []string
	maxTokens      int
	maxTokensField string
}

func (f *requestFlags) register(c *cobra.Command) {
	c.Flags().StringSliceVar(&f.omit, "omit", nil, "request fields never sent, for models that reject them: "+
		strings.Join(llm.OmitFields, ", ")+" (comma-separated; the model block's omit)")
	c.Flags().IntVar(&f.maxTokens, "max-tokens", 0, "completion cap in tokens sent with every model call (the model block's max_tokens; default: none, the endpoint's own)")
	c.Flags().StringVar(&f.maxTokensField, "max-tokens-field", "", "request field the completion cap is sent in: "+
		"max_tokens, max_completion_tokens or both (the model block's max_tokens_field; default: max_completion_tokens for OpenAI and Azure hosts, max_tokens elsewhere)")
}

// apply sets the flags that were given on m (replacing m's omit, max_tokens and max_tokens_field) and
// validates them.
func (f *requestFlags) apply(c *cobra.Command, m *runner.Model) error {
	if c.Flags().Changed("omit") {
		m.Omit = slices.Clone(f.omit)
	}
	if c.Flags().Changed("max-tokens") {
		if f.maxTokens < 1 {
			return usageErr("--max-tokens %d: must be at least 1", f.maxTokens)
		}
		n := f.maxTokens
		m.MaxTokens = &n
	}
	if c.Flags().Changed("max-tokens-field") {
		m.MaxTokensField = f.maxTokensField
	}
	if err := (llm.Config{Omit: m.Omit, MaxTokensField: m.MaxTokensField}).Validate(); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// check refuses --max-tokens-field when no model it applies to has a completion cap (capped false): the
// field would never be sent, so the flag would do nothing.
func (f *requestFlags) check(c *cobra.Command, capped bool) error {
	if c.Flags().Changed("max-tokens-field") && !capped {
		return usageErr("--max-tokens-field %s: no completion cap is sent without --max-tokens N (or max_tokens in the model block)",
			f.maxTokensField)
	}
	return nil
}

func runCmd() *cobra.Command {
	var sf suiteFlags
	var rf runFlags
	var pf priceFlags
	var reps, maxSteps int
	var model, baseURL, profile, guards, prompt, seed, agentCmd, observation string
	var agentEnv []string
	var baseSeed int64
	var timeout, callTimeout time.Duration
	c := &cobra.Command{
		Use:   "run",
		Short: "Run one agent configuration over a suite and report",
		Example: "  bench run --suite zoo --reps 3 --workers 2 --model scripted --profile clean --out runs/zoo\n" +
			"  bench run --suite zoo --model openai:gpt-4o-mini --base-url https://api.openai.com/v1",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if reps < 1 {
				return usageErr("--reps must be at least 1 (got %d)", reps)
			}
			if err := checkBudgets(c, maxSteps, timeout, callTimeout); err != nil {
				return err
			}
			m, err := runner.ParseModel(model, baseURL, profile)
			if err != nil {
				return usageErr("%v", err)
			}
			m.CallTimeout = callTimeout
			g, err := guard.Parse(guards)
			if err != nil {
				return usageErr("--guards: %v", err)
			}
			s, tasks, err := sf.open()
			if err != nil {
				return err
			}
			defer s.Close()
			obs, err := agent.ParseObservation(observation)
			if err != nil {
				return usageErr("--observation: %v", err)
			}
			vs := []runner.Variant{{Name: "default", Model: m, Guards: g, PromptFile: prompt, MaxSteps: maxSteps,
				Timeout: timeout, Seed: seed}}
			if obs != agent.ObserveFull {
				vs[0].Observation = string(obs)
			}
			if vs[0].Agent, err = agentFlags(c, agentCmd, agentEnv); err != nil {
				return err
			}
			if vs[0].Agent != nil && c.Flags().Changed("observation") {
				return usageErr("--observation: the built-in agent's observation mode; an --agent-cmd agent " +
					"sees what the webbench MCP server returns")
			}
			if err := rf.applyModelFlags(c, vs); err != nil {
				return err
			}
			// After the flags' own checks, so a mistyped value is named as such.
			if err := refuseWithScripted(c, m); err != nil {
				return err
			}
			if err := validateVariants(vs, rf.screenshots); err != nil {
				return err
			}
			if err := pf.apply(c, vs); err != nil {
				return err
			}
			if err := checkMaxCost(c, rf.maxCost, vs); err != nil {
				return err
			}
			plan := runner.Plan{Suite: s.Name(), SuiteOptions: sf.options(), TaskFilter: sf.tasks, Tasks: tasks,
				Reps: reps, Variants: vs, BaseSeed: baseSeed}
			opts, err := rf.options()
			if err != nil {
				return err
			}
			if rf.dryRun {
				return printPlan(c, plan, opts.Shard, rf.jsonOut)
			}
			return execute(c.Context(), c, plan, s, opts)
		},
	}
	sf.register(c)
	rf.register(c)
	c.Flags().IntVar(&reps, "reps", 1, "repetitions per task")
	c.Flags().StringVar(&model, "model", "scripted", "model: scripted[:PROFILE] (offline policy) or openai:NAME (any OpenAI-compatible endpoint; key from $OPENAI_API_KEY)")
	c.Flags().StringVar(&baseURL, "base-url", "", "endpoint for openai:NAME (default https://api.openai.com/v1)")
	pf.register(c, "the openai:NAME model")
	c.Flags().StringVar(&profile, "profile", "clean", "scripted policy fault profile: clean, observed, harsh, or a YAML file")
	c.Flags().StringVar(&guards, "guards", "", "guard switches, e.g. repeat_guard=off,intercept_hint=off (default: all on)")
	c.Flags().StringVar(&prompt, "prompt", "", "system prompt file (default: the embedded prompt)")
	c.Flags().StringVar(&observation, "observation", "full", "what results of actions show of the page: full "+
		"(the whole snapshot), diff (only what changed since the last snapshot the model saw; whole after a "+
		"navigation or browser_snapshot) or none (URL and title only; the model calls browser_snapshot)")
	c.Flags().StringVar(&agentCmd, "agent-cmd", "", "run this external agent per attempt instead of the built-in one: "+
		"\"COMMAND ARGS\" (shell-style words, no shell), with the attempt's MCP server, goal, deadline and model "+
		"endpoint in WEBBENCH_* variables (DESIGN.md \"External agents\")")
	c.Flags().StringArrayVar(&agentEnv, "agent-env", nil, "NAME=VALUE for the --agent-cmd agent's environment (repeatable; "+
		"${VAR} in VALUE is webbench's $VAR, expanded per attempt and recorded unexpanded: single-quote it, "+
		"'NAME=${VAR}', or your shell expands it first and the secret is recorded)")
	c.Flags().StringVar(&seed, "seed-mode", "", "'' derives seeds per pair; 'none' sends no seed; a number fixes it")
	c.Flags().Int64Var(&baseSeed, "seed", 1, "base seed; attempt seeds derive from it and pair_id")
	c.Flags().IntVar(&maxSteps, "max-steps", 0, "model-call budget per attempt (default: task's, else 50; an --agent-cmd agent gets it as "+
		"WEBBENCH_MAX_STEPS, advisory)")
	c.Flags().DurationVar(&timeout, "timeout", 0, "attempt time budget (default: task's, else 600s)")
	c.Flags().DurationVar(&callTimeout, "call-timeout", 0, "bound on one model HTTP call (default 120s); exceeding it is an infrastructure error")
	return c
}

// agentFlags is the external agent of --agent-cmd and --agent-env (nil without --agent-cmd), run in the
// current directory. It refuses --agent-env without --agent-cmd, --prompt beside it (the agent has its own
// prompt) and a command that does not resolve (before anything runs: a mistyped command is not N attempts of
// 0 %).
func agentFlags(c *cobra.Command, cmd string, env []string) (*runner.AgentCmd, error) {
	if !c.Flags().Changed("agent-cmd") {
		if len(env) > 0 {
			return nil, usageErr("--agent-env: only with --agent-cmd")
		}
		return nil, nil
	}
	if c.Flags().Changed("prompt") {
		return nil, usageErr("--prompt cannot apply to an external agent (--agent-cmd; it has its own prompt): remove it")
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	a, err := runner.ParseAgentCmd(cmd, env, wd)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	if err := runner.CheckAgentCmd(a); err != nil {
		return nil, usageErr("--agent-cmd: %v", err)
	}
	return a, nil
}

// printPlan prints the (sharded) plan.
func printPlan(c *cobra.Command, plan runner.Plan, sh runner.Shard, asJSON bool) error {
	atts, err := plan.Expand()
	if err != nil {
		return usageErr("%v", err)
	}
	atts = sh.Select(atts)
	if asJSON {
		enc := json.NewEncoder(c.OutOrStdout())
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"shard": sh.String(), "attempts": atts, "count": len(atts)})
	}
	fmt.Fprintf(c.OutOrStdout(), "%s, shard %s\n", results.Count(len(atts), "attempt", "attempts"), sh)
	for _, a := range atts {
		fmt.Fprintf(c.OutOrStdout(), "%s  pair %s  %-14s %s rep %d\n", a.AttemptID, a.PairID, a.Variant, a.TaskID, a.Rep)
	}
	return nil
}

// execute runs the plan and prints the run report.
func execute(ctx context.Context, c *cobra.Command, plan runner.Plan, s suites.Suite, opts runner.Options) error {
	fmt.Fprintf(c.ErrOrStderr(), "run directory: %s\n", opts.OutDir)
	sum, err := runner.Run(ctx, plan, s, opts)
	if err := runErr(err); err != nil {
		return err
	}
	if sum.Stopped != "" {
		fmt.Fprintf(c.ErrOrStderr(), "stopped early: %s\n", sum.Stopped)
	}
	run, err := openRun(opts.OutDir)
	if err != nil {
		return err
	}
	if err := printRunReport(c, run, report.DefaultFormat); err != nil {
		return err
	}
	return infraGate(c, run)
}

// runErr maps runner errors to exit codes: interrupt 130, a different plan in the run directory 2, a remote
// browser server of another Playwright version or a remote browser that cannot load the suite's start page 2
// (any other failed connect to it, and a server lost for the whole reconnect window, are infrastructure, 3), an
// endpoint error that stops runs (runner.EndpointError) its class's code — config 2 (model name, base URL,
// invalid request), auth and quota 3 — with the server's message and hint, other failures 3.
func runErr(err error) error {
	var ee *runner.EndpointError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return &exitError{exitInterrupt, err}
	case errors.Is(err, runner.ErrPlanMismatch):
		return usageErr("%v", err)
	case errors.Is(err, browser.ErrVersionMismatch), errors.Is(err, runner.ErrBrowserUnreachable):
		// Another Playwright version on the server, or a remote browser that cannot reach the suite's pages:
		// no retry fixes it, the setup must change.
		return usageErr("%v", err)
	case errors.As(err, &ee):
		code := ee.ExitCode()
		if code == 0 {
			code = exitInfra
		}
		// A config error needs another command (model name, base URL, --omit, …); auth and quota are fixed
		// outside it (the key, the account), so the same command resumes.
		fix := "fix the model settings (the hint above) and re-run; the run directory resumes"
		if code == exitInfra {
			fix = "fix the key or the account's credit and re-run the same command to resume"
		}
		return &exitError{code, fmt.Errorf("%v\nthe run stopped: nothing was recorded as an agent failure; %s",
			err, fix)}
	}
	return withCode(exitInfra, err)
}

// infraThreshold is the share of attempts ending in infrastructure errors above which a completed run exits 3
// (STATS.md warns above 10%).
const infraThreshold = 0.10

// infraGate exits 3 when more than infraThreshold of the run's attempts ended in infrastructure errors after
// retries: such a run cannot answer its question, whatever its pass rates say.
func infraGate(c *cobra.Command, run *results.Run) error {
	recs := run.Final()
	infra := 0
	for _, r := range recs {
		if r.Status == results.StatusError && r.ErrorClass == results.ClassInfra {
			infra++
		}
	}
	if len(recs) == 0 || float64(infra) <= infraThreshold*float64(len(recs)) {
		return nil
	}
	return withCode(exitInfra, fmt.Errorf("%d of %d attempts ended in infrastructure errors after retries (> %.0f%%): "+
		"the results cannot be trusted; see the error column of %s/%s, fix the cause and re-run the same command to retry them",
		infra, len(recs), 100*infraThreshold, run.Dir, results.AttemptsFile))
}

// validateVariants checks what can be checked before anything runs: scripted profiles, prompt files, and that
// a real model has its key in the environment (a warning: local servers need none).
// checkBudgets refuses a negative --max-steps, --timeout or --call-timeout and a zero --timeout given explicitly
// (0 is only the default, meaning the task's budget).
func checkBudgets(c *cobra.Command, maxSteps int, timeout, callTimeout time.Duration) error {
	switch {
	case maxSteps < 0:
		return usageErr("--max-steps %d: must not be negative (0, the default: the task's budget, else 50)", maxSteps)
	case timeout < 0 || (timeout == 0 && c.Flags().Changed("timeout")):
		return usageErr("--timeout %v: must be above 0 (default: the task's, else 600s)", timeout)
	case callTimeout < 0:
		return usageErr("--call-timeout %v: must be above 0 (default 120s)", callTimeout)
	}
	return nil
}

func validateVariants(vs []runner.Variant, screenshots bool) error {
	for _, v := range vs {
		if v.Agent != nil && screenshots {
			return usageErr("%s: --screenshots cannot apply to an external agent (only the built-in loop keeps "+
				"screenshots for the judge): remove it", v.Name)
		}
		if v.Agent != nil {
			// The runner checks it too; here a dry run and the ablation's plan print catch it as well.
			if err := runner.CheckAgentCmd(v.Agent); err != nil {
				return usageErr("%s: %v", v.Name, err)
			}
			if v.PromptFile != "" {
				return usageErr("%s: prompt %s cannot apply to an external agent (it has its own prompt)", v.Name, v.PromptFile)
			}
		}
		if v.Model.Kind == "scripted" {
			if _, err := scripted.LoadProfile(v.Model.Profile); err != nil {
				return usageErr("%s: %v", v.Name, err)
			}
		}
		if _, err := agent.LoadPrompt(v.PromptFile); err != nil {
			return usageErr("%s: %v", v.Name, err)
		}
		if v.Model.Kind == "openai" {
			env := v.Model.APIKeyEnv
			if env == "" {
				env = "OPENAI_API_KEY"
			}
			if os.Getenv(env) == "" {
				fmt.Fprintf(os.Stderr, "warning: %s: $%s is not set; %s will be called without a key\n", v.Name, env, v.Model.BaseURL)
			}
		}
	}
	return nil
}
