package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"webbench/agent"
	"webbench/agent/guard"
	"webbench/agent/mcpserver"
	"webbench/judge"
	"webbench/llm"
	"webbench/results"
	"webbench/runner"
	"webbench/scripted"
	"webbench/suites"
)

func init() { extraCommands = append(extraCommands, mcpCmd) }

// mcpVariant is the variant name the attempt id of `bench mcp serve` derives from (runner.AttemptID).
const mcpVariant = "mcp-serve"

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
	c.Flags().StringVar(&f.chromium, "chromium", "", "Chromium binary (default: $WEBBENCH_CHROMIUM, /usr/lib/chromium/chromium-headless-shell for headless launches, /usr/lib/chromium/chromium, chromium/chrome on PATH, Playwright's cache; README \"Browser discovery\")")
	c.Flags().BoolVar(&f.noEvaluate, "disable-evaluate", false, "remove browser_evaluate from the tools")
	return c
}

// oneTask is the one task --tasks names: a glob matching none is the suite filter's error, more than one is
// refused listing them.
func (f *mcpServeFlags) oneTask() (suites.Suite, suites.Task, error) {
	if strings.TrimSpace(f.sf.tasks) == "" {
		return nil, suites.Task{}, usageErr("--tasks: give exactly one task id (bench suites lists them)")
	}
	s, tasks, err := f.sf.open()
	if err != nil {
		return nil, suites.Task{}, err
	}
	if len(tasks) != 1 {
		s.Close()
		ids := make([]string, 0, len(tasks))
		for _, t := range tasks {
			ids = append(ids, t.ID)
		}
		if len(ids) > 10 {
			ids = append(ids[:10], fmt.Sprintf("… (%d in all)", len(tasks)))
		}
		return nil, suites.Task{}, usageErr("--tasks %s: matches %d tasks (%s); give exactly one", f.sf.tasks,
			len(tasks), strings.Join(ids, ", "))
	}
	return s, tasks[0], nil
}

func (f *mcpServeFlags) run(c *cobra.Command) error {
	stdout, stderr := c.OutOrStdout(), c.ErrOrStderr()
	exports := stdout
	if f.stdio {
		exports = stderr
	}
	if f.timeout < 0 || (f.timeout == 0 && c.Flags().Changed("timeout")) {
		return usageErr("--timeout %v: must be above 0 (default: the task's, else 600s)", f.timeout)
	}
	if f.maxSteps < 0 || (f.maxSteps == 0 && c.Flags().Changed("max-steps")) {
		return usageErr("--max-steps %d: must be above 0 (default: the task's max_steps, else %d)", f.maxSteps,
			defaultMaxSteps)
	}
	out := f.out
	if out == "" {
		out = filepath.Join("runs", "mcp-"+time.Now().UTC().Format("20060102-150405"))
	}
	// A dev attempt is never appended into a real run (its records would join the run's attempts).
	if _, err := os.Stat(filepath.Join(out, results.ManifestFile)); err == nil {
		return usageErr("--out %s: holds a run (%s); choose another --out", out, results.ManifestFile)
	} else if !errors.Is(err, os.ErrNotExist) {
		return withCode(exitInfra, fmt.Errorf("--out %s: %w", out, err))
	}
	g, err := guard.Parse(f.guards)
	if err != nil {
		return usageErr("--guards: %v", err)
	}
	if _, err := scripted.LoadProfile(f.profile); err != nil {
		return usageErr("--profile: %v", err)
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
	attemptID := results.AttemptID(mcpVariant, pairID)
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
	maxSteps := f.maxSteps
	if maxSteps == 0 {
		maxSteps = t.MaxSteps
	}
	if maxSteps <= 0 {
		maxSteps = defaultMaxSteps
	}
	env := runner.AgentVars{MCPURL: url, Goal: t.Goal, StartURL: att.StartURL, TaskID: t.ID, AttemptID: attemptID,
		Seed: &seed, Deadline: deadline, Timeout: timeout, Model: scripted.ModelName, BaseURL: models.URL(),
		MaxSteps: maxSteps, Guards: g}.Env()
	for _, kv := range env {
		fmt.Fprintf(exports, "export %s=%s\n", kv[0], shellQuote(kv[1]))
	}
	trPath := filepath.Join(w.Dir(), results.TrajectoryPath(attemptID))
	transport := "MCP at " + url
	if f.stdio {
		transport = "MCP on standard input/output"
	}
	fmt.Fprintf(stderr, "tool-level guards in the server: %s\n", guardList(g, guard.ToolLevel()))
	fmt.Fprintf(stderr, "serving task %s (%s) until %s or Ctrl-C; trajectory → %s\n", t.ID, transport,
		deadline.Format(time.RFC3339), trPath)

	stop := f.serve(c, srv, deadline)
	// A second Ctrl-C while the attempt is closed, judged and written aborts (main's signal context is done).
	again := make(chan os.Signal, 1)
	signal.Notify(again, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(again)
	go func() {
		if _, ok := <-again; ok {
			fmt.Fprintln(stderr, "interrupted again: exiting without writing the trajectory")
			os.Exit(exitInterrupt)
		}
	}()
	tools := srv.Close()
	toolCalls := len(tools.Steps)
	tr := models.Merge(tools, srv.Start())
	if st, err := att.Env.State(context.Background()); err == nil {
		tr.State = st
	}
	switch {
	case stop.final != nil:
		tr.Finish = results.FinishRecord{Reason: results.FinishAnswered, Output: stop.line, Final: stop.final}
	case stop.why == stopDeadline:
		tr.Finish = results.FinishRecord{Reason: results.FinishTimeout,
			Error: "attempt deadline " + deadline.Format(time.RFC3339) + " reached"}
	case stop.err != nil:
		tr.Finish = results.FinishRecord{Error: llm.RedactString(stop.err.Error())}
	default:
		// Stopped by hand, or the MCP client went away: no final answer (the answer judge fails it).
		tr.Finish = results.FinishRecord{Error: "bench mcp serve stopped (" + stop.why + ") before a final answer"}
	}
	rec := concludeByHand(c.Context(), t, s.Name(), attemptID, seed, g, tr)
	rec.StartedAt = opened.UTC().Format(time.RFC3339)
	rec.Tokens = results.Tokens{Prompt: tr.Usage.Prompt, Completion: tr.Usage.Completion, Estimated: tr.Usage.Estimated}
	if err := w.WriteTrajectory(rec.Trajectory, tr); err != nil {
		return withCode(exitInfra, fmt.Errorf("trajectory: %w", err))
	}
	if err := w.Append(rec); err != nil {
		return withCode(exitInfra, err)
	}
	fmt.Fprintf(stderr, "stopped: %s after %s, %s\n", stop.why, results.Count(toolCalls, "tool call", "tool calls"),
		results.Count(models.Calls(), "model call", "model calls"))
	fmt.Fprintf(stderr, "verdict: %s\n", verdictLine(rec))
	fmt.Fprintf(stderr, "trajectory: %s\n", trPath)
	return nil
}

// cmpDuration is d, or def when d is not positive.
func cmpDuration(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// guardList is "name=on|off" of names, comma-separated, from g (guard.Parse's map: every guard present).
func guardList(g map[string]bool, names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		v := "off"
		if on, ok := g[n]; !ok || on {
			v = "on"
		}
		parts[i] = n + "=" + v
	}
	return strings.Join(parts, ",")
}

// shellQuote quotes s for a POSIX shell (sh, bash, zsh): inside single quotes every character is literal
// except the single quote, which is written '\” (close, an escaped quote, reopen). POSIX.1-2017 XCU 2.2.3,
// https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_02_03.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Why serving stopped.
const (
	stopSignal   = "interrupted (SIGINT/SIGTERM)"
	stopDeadline = "attempt deadline reached"
	stopEOF      = "standard input ended (MCP client gone)"
	stopFinal    = "final answer received on standard input"
	stopServe    = "MCP transport failed"
)

// stopped is why serving ended, and the final answer when one came on standard input.
type stopped struct {
	why   string
	final *results.FinalAnswer
	line  string
	err   error
}

// serve waits until the signal context ends, the deadline passes, stdin ends (--stdio: the MCP stream) or
// a final answer line arrives on stdin (HTTP mode; other lines are reported and ignored, EOF is ignored).
func (f *mcpServeFlags) serve(c *cobra.Command, srv *mcpserver.Server, deadline time.Time) stopped {
	ctx := c.Context()
	done := make(chan stopped, 2)
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	if f.stdio {
		go func() {
			err := srv.ServeStdio(sctx, c.InOrStdin(), c.OutOrStdout())
			if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
				done <- stopped{why: stopServe, err: err}
				return
			}
			done <- stopped{why: stopEOF}
		}()
	} else {
		go readFinal(c.InOrStdin(), c.ErrOrStderr(), done)
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return stopped{why: stopSignal}
	case <-timer.C:
		return stopped{why: stopDeadline}
	case s := <-done:
		return s
	}
}

// readFinal reads lines from r until one parses as the final answer (agent.ParseFinal) and sends it on done.
// Other lines are reported on errw; the end of r sends nothing (a backgrounded serve has no stdin).
func readFinal(r io.Reader, errw io.Writer, done chan<- stopped) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		fa, err := agent.ParseFinal(line)
		if err != nil {
			fmt.Fprintf(errw, "standard input: not a final answer (%v); want {\"ok\": true|false, \"final\": \"…\"}\n", err)
			continue
		}
		done <- stopped{why: stopFinal, final: fa, line: line}
		return
	}
}

// concludeByHand builds the attempt record (StartedAt left to the caller) of a served attempt and judges it as the runner does (runner.Judge:
// the task's state and answer judges): the trajectory tr (State and Finish set) gives the steps, events and
// final answer.
func concludeByHand(ctx context.Context, t suites.Task, suite, attemptID string, seed int, g map[string]bool,
	tr *results.Trajectory) results.Attempt {
	guards := guard.Default()
	for k, v := range g {
		guards[k] = v
	}
	rec := results.Attempt{AttemptID: attemptID, PairID: results.PairID(suite, t.ID, 1), Variant: mcpVariant,
		TaskID: t.ID, Suite: cmpString(t.Suite, suite), Cluster: cmpString(t.Cluster, t.ID), Rep: 1, Seed: &seed,
		Model: "external", Guards: guards,
		DurationMS: tr.DurationMS, Steps: len(tr.Steps), GuardEvents: tr.GuardCounts, FinishReason: tr.Finish.Reason,
		Error: tr.Finish.Error, Trajectory: results.TrajectoryPath(attemptID), Meta: t.Meta}
	if fa := tr.Finish.Final; fa != nil {
		rec.Final, rec.OK = fa.Final, fa.OK
	}
	v := runner.Judge(ctx, nil, judge.Input{Task: t, Final: rec.Final, OK: rec.OK, State: tr.State})
	rec.Verdict = v
	switch {
	case v.Error != "":
		rec.Status, rec.ErrorClass = results.StatusError, results.ClassJudge
		rec.Error = strings.TrimPrefix(rec.Error+"; "+llm.RedactString(v.Error), "; ")
	case v.Uncertain:
		rec.Status, rec.ErrorClass = results.StatusError, results.ClassUncertain
	case v.Pass:
		rec.Status = results.StatusPass
	default:
		rec.Status, rec.ErrorClass = results.StatusFail, results.ClassAgent
		rec.FailureMode = agent.FailureMode(tr, false)
	}
	return rec
}

// cmpString is s, or def when s is "".
func cmpString(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

// verdictLine is "pass|fail|uncertain|error (judge): reason".
func verdictLine(rec results.Attempt) string {
	v := rec.Verdict
	word := string(rec.Status)
	if v.Uncertain {
		word = "uncertain"
	}
	reason := v.Reason
	if v.Error != "" {
		reason = v.Error
	}
	return fmt.Sprintf("%s (%s judge): %s", word, v.Judge, reason)
}
