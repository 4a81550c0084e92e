package main

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"webbench/agent/guard"
	"webbench/agent/mcpserver"
	"webbench/report"
	"webbench/results"
	"webbench/runner"
	"webbench/scripted"
)

func init() { extraCommands = append(extraCommands, mcpCmd) }

// defaultAttemptTimeout is the attempt budget without --timeout or a task timeout (the agent loop's default).
const defaultAttemptTimeout = 600 * time.Second

// defaultMaxSteps is WEBBENCH_MAX_STEPS without --max-steps or a task's max_steps (the agent loop's default,
// agent.Config.MaxSteps, as the runner exports it).
const defaultMaxSteps = 50

func mcpCmd() *cobra.Command {
	c := &cobra.Command{Use: "mcp", Short: "webbench's browser tools as an MCP server (bring your own agent)"}
	c.AddCommand(mcpServeCmd())
	return c
}

// mcpServeFlags are the flags of `bench mcp serve`.
type mcpServeFlags struct {
	sf                   suiteFlags
	guards, out, profile string
	driverDir, chromium  string
	timeout              time.Duration
	maxSteps             int
	stdio, noEvaluate    bool
}

func mcpServeCmd() *cobra.Command {
	var f mcpServeFlags
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve one attempt's browser tools over MCP by hand, to develop an agent",
		Long: "Opens one attempt of one task (the suite environment, a headless Chromium, a fresh browser context on\n" +
			"the start page) and serves webbench's browser tools for it over MCP (Streamable HTTP on 127.0.0.1, path\n" +
			"/mcp; or stdio with --stdio), with the tool-level guards of --guards as server middleware. It also serves\n" +
			"the scripted policy (an offline OpenAI-compatible model) for the suite's tasks behind the runner's\n" +
			"model-call recording proxy, so the agent's model calls are steps of the trajectory as in a run.\n\n" +
			"Standard output gets the agent's environment as shell export lines (the --agent-cmd contract:\n" +
			"WEBBENCH_MCP_URL, WEBBENCH_GOAL, …); with --stdio they go to standard error, standard output being MCP's.\n" +
			"It serves until Ctrl-C (SIGINT) or SIGTERM, the attempt's deadline, a final answer line on standard\n" +
			"input ({\"ok\": …, \"final\": …}, HTTP mode), or the end of standard input (--stdio). Then the trajectory\n" +
			"(model calls and tool calls, merged as bench run merges them) is judged as a run's attempt is and written to the run directory; the verdict\n" +
			"and the trajectory's path are printed on standard error.",
		Example: "  bench mcp serve --suite zoo --tasks shop-checkout-yoga-mat-express --out runs/dev\n" +
			"  bench mcp serve --tasks stays-book-hotel-miradouro-lisbon --guards intercept_hint=off > /tmp/env.sh   # then: . /tmp/env.sh",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return f.run(c) },
	}
	f.sf.register(c)
	c.Flags().StringVar(&f.guards, "guards", "", "guard switches as bench run takes them, e.g. intercept_hint=off (default: all "+
		"on); only the tool-level ones ("+strings.Join(guard.ToolLevel(), ", ")+") act in the server, the others are the agent's "+
		"(WEBBENCH_GUARDS)")
	c.Flags().DurationVar(&f.timeout, "timeout", 0, "attempt deadline from now (default: the task's, else 600s)")
	c.Flags().IntVar(&f.maxSteps, "max-steps", 0, "WEBBENCH_MAX_STEPS, the agent's advisory model-call budget "+
		"(default: the task's max_steps, else 50)")
	c.Flags().StringVar(&f.out, "out", "", "run directory the trajectory is written to (default runs/mcp-<timestamp>); "+
		"not a run's directory (one with manifest.json)")
	c.Flags().StringVar(&f.profile, "profile", "clean", "scripted policy fault profile: clean, observed, harsh, or a YAML file")
	c.Flags().BoolVar(&f.stdio, "stdio", false, "serve MCP over standard input/output instead of HTTP (all other output on standard error)")
	c.Flags().StringVar(&f.driverDir, "driver-dir", "", "Playwright driver folder (default: .cache/driver found upward, or $WEBBENCH_DRIVER_DIR)")
	c.Flags().StringVar(&f.chromium, "chromium", "", "Chromium binary (default: $WEBBENCH_CHROMIUM, /usr/lib/chromium/chromium-headless-shell for headless launches, /usr/lib/chromium/chromium, chromium/chrome on PATH, Playwright's cache; docs/SETUP.md \"Browser discovery\")")
	c.Flags().BoolVar(&f.noEvaluate, "disable-evaluate", false, "remove browser_evaluate from the tools")
	return c
}

func (f *mcpServeFlags) run(c *cobra.Command) error {
	stdout, stderr := c.OutOrStdout(), c.ErrOrStderr()
	exports := stdout
	if f.stdio {
		exports = stderr
	}
	out, g, err := f.check(c)
	if err != nil {
		return err
	}
	s, t, err := f.oneTask()
	if err != nil {
		return err
	}
	defer s.Close()
	w, err := results.OpenWriter(out)
	if err != nil {
		return withCode(exitInfra, fmt.Errorf("run directory: %w", err))
	}
	defer w.Close()

	policy, policyURL, err := scripted.StartLoopback(s.Tasks(), f.profile)
	if err != nil {
		return withCode(exitInfra, fmt.Errorf("start scripted policy: %w", err))
	}
	defer policy.Close()
	// The runner's model-call recording proxy in front of the policy: WEBBENCH_BASE_URL, as in bench run.
	models, err := runner.StartModelRecorder(policyURL)
	if err != nil {
		return withCode(exitInfra, fmt.Errorf("model proxy: %w", err))
	}
	defer models.Close()

	pairID := results.PairID(s.Name(), t.ID, 1)
	attemptID := results.AttemptID(runner.ServedVariant, pairID)
	seed := results.Seed(pairID, 1)
	// The attempt is not cancelled by the signal that stops serving: the trajectory is still judged and written.
	actx := context.WithoutCancel(c.Context())
	att, err := runner.OpenAttempt(actx, runner.Options{DriverDir: f.driverDir, Chromium: f.chromium,
		DisableEvaluate: f.noEvaluate}, s, t, attemptID)
	if err != nil {
		return withCode(exitInfra, err)
	}
	defer att.Close()
	opened := time.Now()

	timeout := f.timeout
	if timeout == 0 {
		timeout = cmpDuration(t.Timeout, defaultAttemptTimeout)
	}
	// Whole seconds, so WEBBENCH_DEADLINE (RFC 3339) is the server's deadline exactly.
	deadline := time.Now().Add(timeout).Truncate(time.Second).UTC()
	srv, err := mcpserver.New(actx, att.Session, mcpserver.Options{TaskID: t.ID, Goal: t.Goal, Deadline: deadline,
		Guards: g})
	if err != nil {
		return usageErr("--guards: %v", err)
	}
	url := ""
	if !f.stdio {
		if url, err = srv.StartHTTP(); err != nil {
			srv.Close()
			return withCode(exitInfra, err)
		}
	}
	maxSteps := cmp.Or(f.maxSteps, max(t.MaxSteps, 0), defaultMaxSteps)
	env := runner.AgentVars{MCPURL: url, Goal: t.Goal, StartURL: att.StartURL, TaskID: t.ID, AttemptID: attemptID,
		Seed: &seed, Deadline: deadline, Timeout: timeout, Model: scripted.ModelName, BaseURL: models.URL(),
		MaxSteps: maxSteps, Guards: g}.Env()
	for _, kv := range env {
		fmt.Fprintf(exports, "export %s=%s\n", kv[0], report.ShellQuote(kv[1]))
	}
	trPath := filepath.Join(w.Dir(), results.TrajectoryPath(attemptID))
	f.announce(stderr, t.ID, url, g, deadline, trPath)

	stop := srv.ServeUntil(c.Context(), f.stdio, c.InOrStdin(), c.OutOrStdout(), stderr, deadline)
	served := time.Since(opened)
	defer abortOnSecondSignal(stderr)()
	tools := srv.Close()
	toolCalls := len(tools.Steps)
	tr := models.Merge(tools, srv.Start())
	tr.Finish = stop.Finish(deadline)
	rec, err := runner.ConcludeServed(c.Context(), w, att.Env, runner.Served{Task: t, Suite: s.Name(),
		AttemptID: attemptID, Seed: seed, Guards: g, Opened: opened, Wall: served}, tr)
	if err != nil {
		return withCode(exitInfra, fmt.Errorf("trajectory: %w", err))
	}
	if err := w.Append(rec); err != nil {
		return withCode(exitInfra, err)
	}
	fmt.Fprintf(stderr, "stopped: %s after %s, %s\n", stop.Why, results.Count(toolCalls, "tool call", "tool calls"),
		results.Count(models.Calls(), "model call", "model calls"))
	fmt.Fprintf(stderr, "verdict: %s\n", verdictLine(rec))
	fmt.Fprintf(stderr, "trajectory: %s\n", trPath)
	return nil
}
