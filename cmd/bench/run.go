package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"webbench/agent"
	"webbench/agent/guard"
	"webbench/report"
	"webbench/runner"
	"webbench/suites"
)

// finishVariants checks the variants vs as a run takes them (validateVariants), applies the price flags to them
// and checks --max-cost against their prices.
func finishVariants(c *cobra.Command, vs []runner.Variant, rf *runFlags, pf *priceFlags) error {
	if err := runner.CheckVariants(vs, rf.screenshots, os.Stderr); err != nil {
		return usageErr("%v", err)
	}
	if err := pf.apply(c, vs); err != nil {
		return err
	}
	return checkMaxCost(c, rf.maxCost, vs)
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
			if err := checkProfileFlag(c, m); err != nil {
				return err
			}
			m.CallTimeout = callTimeout
			g, err := guard.Parse(guards)
			if err != nil {
				return usageErr("--guards: %v", err)
			}
			s, tasks, err := openRunSuite(&sf, &rf)
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
			if err := rf.applyModelFlags(c, vs); err != nil {
				return err
			}
			// After the flags' own checks, so a mistyped value is named as such.
			if err := refuseWithScripted(c, m); err != nil {
				return err
			}
			if err := finishVariants(c, vs, &rf, &pf); err != nil {
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

// openRunSuite checks the run flags (runFlags.check), opens the cassette of --record or --replay, then the
// suite with its options for it (suiteOptions).
func openRunSuite(sf *suiteFlags, rf *runFlags) (suites.Suite, []suites.Task, error) {
	if err := rf.check(); err != nil {
		return nil, nil, err
	}
	cas, err := rf.openCassette()
	if err != nil {
		return nil, nil, err
	}
	sf.adjust = func(suite string, o suites.Options) suites.Options { return suiteOptions(suite, o, cas) }
	return sf.open()
}

// agentFlags is the external agent of --agent-cmd and --agent-env (nil without --agent-cmd: the built-in agent),
// run in the current directory. It refuses --agent-env without --agent-cmd, --prompt and --observation beside it
// (the agent has its own prompt, and sees what the webbench MCP server returns) and a command that does not
// resolve (before anything runs: a mistyped command is not N attempts of 0 %).
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
	if c.Flags().Changed("observation") {
		return nil, usageErr("--observation: the built-in agent's observation mode; an --agent-cmd agent " +
			"sees what the webbench MCP server returns")
	}
	return a, nil
}

// printPlan prints the (sharded) plan (runner.WritePlan).
func printPlan(c *cobra.Command, plan runner.Plan, sh runner.Shard, asJSON bool) error {
	atts, err := plan.Expand()
	if err != nil {
		return usageErr("%v", err)
	}
	return runner.WritePlan(c.OutOrStdout(), plan, sh.Select(atts), sh, asJSON)
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
	warnDominantCause(c.ErrOrStderr(), run)
	printCassetteSession(c.ErrOrStderr(), opts.Cassette)
	return infraGate(run)
}

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

// checkProfileFlag refuses a scripted model m whose fault profile does not load, naming the flag it came from:
// --profile, or --model scripted:PROFILE.
func checkProfileFlag(c *cobra.Command, m runner.Model) error {
	if m.Kind != "scripted" {
		return nil
	}
	if err := runner.CheckProfile(m.Profile); err != nil {
		flag := "--model"
		if c.Flags().Changed("profile") && !strings.Contains(c.Flag("model").Value.String(), ":") {
			flag = "--profile"
		}
		return usageErr("%s: %v", flag, err)
	}
	return nil
}
