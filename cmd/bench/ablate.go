package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"webbench/analysis"
	"webbench/report"
	"webbench/results"
	"webbench/runner"
	"webbench/spec"
	"webbench/suites"
)

func init() { extraCommands = append(extraCommands, ablateCmd) }

func ablateCmd() *cobra.Command {
	var rf runFlags
	var pf priceFlags
	var f ablateFlags
	c := &cobra.Command{
		Use:   "ablate SPEC.yaml",
		Short: "Run every arm of an ablation spec on the same tasks and report paired statistics",
		Long: "Runs the baseline and every variant of SPEC on the same (task, rep) pairs with the same seeds, arms of a pair\n" +
			"scheduled next to each other, into one run directory; then analyses (STATS.md) and prints the report.\n" +
			"--fail-if-worse MARGIN exits 1 when a variant is worse than the baseline by more than MARGIN with its\n" +
			"interval entirely below zero and its Holm-adjusted primary p below alpha. --fail-if-costlier tokens=0.2 exits 1\n" +
			"when a variant's ratio of mean tokens to the baseline's, on the same pairs, is above 1.2 with its whole 95%\n" +
			"interval above 1.2 and its Holm-adjusted p below alpha (spec: fail_if_costlier).",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			sp, err := spec.LoadSpec(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			if err := f.apply(c, sp); err != nil {
				return err
			}
			if err := rf.check(); err != nil {
				return err
			}
			rf.cas.fromSpec(c, sp)
			cas, err := rf.openCassette()
			if err != nil {
				return err
			}
			sp.SuiteOptions = suiteOptions(sp.Suite, sp.SuiteOptions, cas)
			plan, s, err := ablatePlan(c, args[0], sp, f.failIfWorse)
			if err != nil {
				return err
			}
			defer s.Close()
			if err := rf.applyModelFlags(c, plan.Variants); err != nil {
				return err
			}
			if err := pf.apply(c, plan.Variants); err != nil {
				return err
			}
			if err := checkMaxCost(c, rf.maxCost, plan.Variants); err != nil {
				return err
			}
			if err := checkCostGatePriced(c, costGateSource(c), sp.FailIfCostlier, runnerArms(plan.Variants)); err != nil {
				return err
			}
			if rf.out == "" {
				rf.out = sp.OutDir(args[0])
			}
			if rf.workers == 0 {
				rf.workers = sp.Workers
			}
			if rf.modelCache == "" {
				rf.modelCache = sp.ModelCacheDir()
			}
			ropts, err := rf.options()
			if err != nil {
				return err
			}
			if plan.Ablation.Sequential != nil {
				rule, err := analysis.NewSeqRule(plan.Record(), ropts.Shard.Has)
				if err != nil {
					return usageErr("%v", err)
				}
				ropts.Sequential = rule
			}
			if rf.dryRun {
				return printPlan(c, plan, ropts.Shard, rf.jsonOut)
			}
			fmt.Fprintf(c.ErrOrStderr(), "ablation %s: %s over %d of the %s, %s → %s\n", sp.Name,
				results.Count(len(plan.Variants), "arm", "arms"), plan.UsedTasks(),
				results.Count(len(plan.Tasks), "selected task", "selected tasks"), results.Count(sp.Reps, "rep", "reps"), ropts.OutDir)
			if _, err := runner.Run(c.Context(), plan, s, ropts); err != nil {
				return runErr(err)
			}
			err = reportAblation(c, ropts.OutDir, f.htmlDir, analysis.RunOptions{BH: f.bh, FailIfWorse: f.failIfWorse})
			printCassetteSession(c.ErrOrStderr(), ropts.Cassette)
			return err
		},
	}
	rf.register(c)
	// An ablation's run directory is named after its spec (Spec.OutDir), not the time, so a re-run resumes it.
	c.Flags().Lookup("out").Usage = "run directory (default runs/<the spec's name:, else its file name>); re-running on it resumes"
	f.register(c)
	pf.register(c, "every real-model arm")
	return c
}

// ablatePlan opens the spec's suite and expands the spec over its tasks into the plan (spec.Spec.Open), its
// warnings printed and its variants validated. The caller closes the suite.
func ablatePlan(c *cobra.Command, path string, sp *spec.Spec, failIfWorse float64) (runner.Plan, suites.Suite, error) {
	plan, s, err := sp.Open(path, failIfWorse)
	if err != nil {
		return runner.Plan{}, nil, usageErr("%v", err)
	}
	for _, w := range report.SpecWarningTexts(plan.Ablation.SpecWarnings) {
		fmt.Fprintln(c.ErrOrStderr(), "warning:", w)
	}
	shots, _ := c.Flags().GetBool("screenshots")
	if err := runner.CheckVariants(plan.Variants, shots, os.Stderr); err != nil {
		s.Close()
		return runner.Plan{}, nil, usageErr("%v", err)
	}
	return plan, s, nil
}

// reportAblation analyses the finished ablation in dir, prints the terminal report (report.DefaultFormat),
// writes the HTML report with the registered html renderer (into htmlDir, default dir) and applies the
// infrastructure and --fail-if-worse gates.
func reportAblation(c *cobra.Command, dir, htmlDir string, o analysis.RunOptions) error {
	run, err := openRun(dir)
	if err != nil {
		return err
	}
	a, recs, err := analysis.AnalyzeRun(run, o)
	if err != nil {
		return usageErr("%v", err)
	}
	term, err := lookupRenderer(report.DefaultFormat, false, c.OutOrStdout(), dir, reportArgs(o))
	if err != nil {
		return err
	}
	rep, err := report.NewAblationReport(dir, run, a, recs)
	if err != nil {
		return usageErr("%v", err)
	}
	if err := renderAblationReport(c, term, rep); err != nil {
		return err
	}
	page := *rep // the same document, its files written into htmlDir
	if htmlDir != "" {
		page.Dir = htmlDir
	}
	var path strings.Builder
	if h, err := report.LookupRenderer("html"); err != nil {
		fmt.Fprintln(c.ErrOrStderr(), "warning: HTML report:", err)
	} else if err := h.Ablation(&path, &page); err != nil {
		fmt.Fprintln(c.ErrOrStderr(), "warning: HTML report:", err)
	} else {
		fmt.Fprintf(c.ErrOrStderr(), "HTML report: %s\n", strings.TrimSpace(path.String()))
	}
	warnDominantCause(c.ErrOrStderr(), run)
	return ablationGates(c, run, a, o.FailIfWorse, true)
}

// ablationGates are the gates bench ablate applies at its end, and bench report --gate on an ablation run: the
// infrastructure gate (exit 3 when more than analysis.InfraGateFraction of the attempts ended in infrastructure errors),
// then the --fail-if-worse gate at margin (exit 1; margin 0: none) and the cost gate (gate). shown says whether the
// report just printed carries the gates' lines (every format but html, which goes to a file).
func ablationGates(c *cobra.Command, run *results.Run, a *analysis.Analysis, margin float64, shown bool) error {
	if err := infraGate(run); err != nil {
		return err
	}
	return gate(c, a, margin, shown)
}

// gate applies the --fail-if-worse gate at margin to the analysis a (margin 0: no gate) and its cost gate
// (Analysis.FailIfCostlier; none when empty), and exits 1 (exitGate) when a variant is shown worse than the
// baseline (Analysis.Gate) or costlier than the cost gate allows (Analysis.CostGate). The gates' lines
// (report.GateVerdict, report.CostGateLine) are the report's: printed again on stderr, wrapped to its width,
// only when the report did not show them (shown false), so that each is said once.
func gate(c *cobra.Command, a *analysis.Analysis, margin float64, shown bool) error {
	var err error
	var lines []string
	if margin > 0 {
		lines = append(lines, report.GateVerdict(a, margin, report.AblationGateWording()))
		if failed, _ := a.Gate(margin); failed {
			err = &exitError{exitGate, fmt.Errorf("--fail-if-worse %.3f: a variant is worse than the baseline", margin)}
		}
	}
	if len(a.FailIfCostlier) > 0 {
		lines = append(lines, report.CostGateLine(a))
		if failed, _ := a.CostGate(); failed && err == nil {
			err = &exitError{exitGate, fmt.Errorf("--fail-if-costlier %s: a variant is costlier than the baseline",
				report.CostMarginsText(a.FailIfCostlier))}
		}
	}
	if !shown {
		f, _ := c.ErrOrStderr().(*os.File)
		for _, l := range lines {
			report.WriteWrapped(c.ErrOrStderr(), l, "", "  ", report.TerminalWidth(f))
		}
	}
	return err
}

// failIfCostlierHelp is the help of --fail-if-costlier on bench ablate and bench report.
var failIfCostlierHelp = "exit 1 when a variant is costlier than the baseline: " + costMarginsHelp +
	", its whole 95% interval above it, Holm p < alpha)"

// costMarginsHelp is the value --fail-if-costlier takes, for its help.
var costMarginsHelp = "OUTCOME=MARGIN,… over " + results.CostOutcomeList() + " (tokens=0.2: the ratio of " +
	"per-task mean tokens on the same pairs above 1.2"

// costGateSource names where the cost gate comes from for a message: --fail-if-costlier when given, else the
// spec's or the run's recorded fail_if_costlier.
func costGateSource(c *cobra.Command) string {
	if c.Flags().Changed("fail-if-costlier") {
		return "--fail-if-costlier"
	}
	return "fail_if_costlier"
}

// costMargins parses --fail-if-costlier (results.ParseCostMargins), a usage error when malformed.
func costMargins(s string) (map[results.CostOutcome]float64, error) {
	m, err := results.ParseCostMargins(s)
	if err != nil {
		return nil, usageErr("--fail-if-costlier: %v", err)
	}
	return m, nil
}
