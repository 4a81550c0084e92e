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
			"interval entirely below zero and its Holm-adjusted primary p below alpha.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			sp, err := spec.LoadSpec(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			if err := f.apply(c, sp); err != nil {
				return err
			}
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
			if rf.out == "" {
				rf.out = sp.OutDir(args[0])
			}
			if rf.workers == 0 {
				rf.workers = sp.Workers
			}
			ropts, err := rf.options()
			if err != nil {
				return err
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
			return reportAblation(c, ropts.OutDir, f.htmlDir, analysis.RunOptions{BH: f.bh, FailIfWorse: f.failIfWorse})
		},
	}
	rf.register(c)
	c.Flags().IntVar(&f.reps, "reps", 0, "override the spec's reps")
	c.Flags().StringVar(&f.tasks, "tasks", "", "override the spec's tasks: comma-separated task id globs, e.g. 'shop-*,stays-qa-*' (a glob that matches no task is an error; each arm still runs on its scope's share of them)")
	c.Flags().Float64Var(&f.failIfWorse, "fail-if-worse", 0, "exit 1 when a variant is worse than the baseline by more than this margin (a proportion in (0, 1), e.g. 0.05) with its interval below zero and its Holm-adjusted p < alpha")
	c.Flags().BoolVar(&f.bh, "bh", false, "also report Benjamini–Hochberg adjusted p-values")
	c.Flags().StringVar(&f.model, "model", "", "replace the baseline's model (variants inherit it unless they set their own): scripted[:PROFILE] or openai:NAME")
	c.Flags().StringVar(&f.baseURL, "base-url", "", "endpoint for --model openai:NAME")
	pf.register(c, "every real-model arm")
	c.Flags().StringVar(&f.profile, "profile", "", "scripted policy profile for the baseline (clean, observed, harsh, or a YAML file)")
	c.Flags().StringVar(&f.htmlDir, "html", "", "folder for report.html (default: the run directory)")
	return c
}

// ablateFlags are bench ablate's flags that override the spec (reps, tasks, fail-if-worse, the baseline's
// model) or choose the report (bh, html).
type ablateFlags struct {
	reps                             int
	tasks                            string
	failIfWorse                      float64
	bh                               bool
	htmlDir, model, baseURL, profile string
}

// apply applies the overriding flags to the spec sp (a usage error names a bad value), and takes the spec's
// fail_if_worse when --fail-if-worse is not given.
func (f *ablateFlags) apply(c *cobra.Command, sp *spec.Spec) error {
	if f.model != "" || f.profile != "" {
		model := f.model
		if model == "" {
			model = "scripted"
		}
		m, err := runner.ParseModel(model, f.baseURL, f.profile)
		if err != nil {
			return usageErr("%v", err)
		}
		if m.Kind == "scripted" && c.Flags().Changed("base-url") {
			return usageErr("--base-url needs --model openai:NAME")
		}
		sp.Baseline.Model = &m
	} else if c.Flags().Changed("base-url") {
		return usageErr("--base-url needs --model openai:NAME (it replaces the baseline's model)")
	}
	if c.Flags().Changed("reps") {
		if f.reps < 1 {
			return usageErr("--reps must be at least 1 (got %d)", f.reps)
		}
		sp.Reps = f.reps
	}
	if c.Flags().Changed("tasks") {
		if strings.TrimSpace(f.tasks) == "" {
			return usageErr("--tasks needs comma-separated task id globs, e.g. 'shop-*' (got an empty value)")
		}
		sp.Tasks = f.tasks
	}
	if !c.Flags().Changed("fail-if-worse") {
		f.failIfWorse = sp.FailIfWorse
	} else if err := checkMargin(f.failIfWorse); err != nil {
		return err
	}
	return nil
}

// ablatePlan opens the spec's suite and expands the spec over its tasks into the plan (spec.Spec.Open), its
// warnings printed and its variants validated. The caller closes the suite.
func ablatePlan(c *cobra.Command, path string, sp *spec.Spec, failIfWorse float64) (runner.Plan, suites.Suite, error) {
	plan, s, err := sp.Open(path, failIfWorse)
	if err != nil {
		return runner.Plan{}, nil, usageErr("%v", err)
	}
	for _, w := range plan.Ablation.Warnings {
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
	if err := renderAblationReport(c, term, dir, run, a, recs); err != nil {
		return err
	}
	if htmlDir == "" {
		htmlDir = dir
	}
	var path strings.Builder
	if h, err := report.LookupRenderer("html"); err != nil {
		fmt.Fprintln(c.ErrOrStderr(), "warning: HTML report:", err)
	} else if err := h.Ablation(&path, &report.AblationReport{Dir: htmlDir, Analysis: a, Records: recs, Run: run}); err != nil {
		fmt.Fprintln(c.ErrOrStderr(), "warning: HTML report:", err)
	} else {
		fmt.Fprintf(c.ErrOrStderr(), "HTML report: %s\n", strings.TrimSpace(path.String()))
	}
	return ablationGates(c, run, a, o.FailIfWorse)
}
