package main

import (
	"strings"

	"github.com/spf13/cobra"

	"webbench/runner"
	"webbench/spec"
)

// ablateFlags are bench ablate's flags that override the spec (reps, tasks, fail-if-worse, the baseline's
// model) or choose the report (bh, html).
type ablateFlags struct {
	reps                             int
	tasks                            string
	failIfWorse                      float64
	failIfCostlier                   string
	bh, sequential                   bool
	htmlDir, model, baseURL, profile string
}

// register adds the flags to c.
func (f *ablateFlags) register(c *cobra.Command) {
	c.Flags().IntVar(&f.reps, "reps", 0, "override the spec's reps")
	c.Flags().StringVar(&f.tasks, "tasks", "", "override the spec's tasks: comma-separated task id globs, e.g. 'shop-*,stays-qa-*' (a glob that matches no task is an error; each arm still runs on its scope's share of them)")
	c.Flags().Float64Var(&f.failIfWorse, "fail-if-worse", 0, "exit 1 when a variant is worse than the baseline by more than this margin (a proportion in (0, 1), e.g. 0.05) with its interval below zero and its Holm-adjusted p < alpha")
	c.Flags().StringVar(&f.failIfCostlier, "fail-if-costlier", "", failIfCostlierHelp)
	c.Flags().BoolVar(&f.bh, "bh", false, "also report Benjamini–Hochberg adjusted p-values")
	c.Flags().BoolVar(&f.sequential, "sequential", false, "sequential ablation: test every variant after each unit (task, or the suite's cluster) in the plan's order and leave a decided variant's remaining attempts unrun (the spec's sequential: block, else its alpha and min_effect)")
	c.Flags().StringVar(&f.model, "model", "", "replace the baseline's model (variants inherit it unless they set their own): scripted[:PROFILE] or openai:NAME")
	c.Flags().StringVar(&f.baseURL, "base-url", "", "endpoint for --model openai:NAME")
	c.Flags().StringVar(&f.profile, "profile", "", "scripted policy profile for the baseline (clean, observed, harsh, or a YAML file)")
	c.Flags().StringVar(&f.htmlDir, "html", "", "folder for report.html (default: the run directory)")
}

// apply applies the overriding flags to the spec sp (a usage error names a bad value), and takes the spec's
// fail_if_worse when --fail-if-worse is not given; --fail-if-costlier replaces the spec's fail_if_costlier.
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
		sp.OverrideTasks(f.tasks)
	}
	if c.Flags().Changed("fail-if-costlier") {
		m, err := costMargins(f.failIfCostlier)
		if err != nil {
			return err
		}
		sp.FailIfCostlier = m
	}
	if f.sequential {
		sp.SetSequential()
	}
	if !c.Flags().Changed("fail-if-worse") {
		f.failIfWorse = sp.FailIfWorse
	} else if err := checkMargin(f.failIfWorse); err != nil {
		return err
	}
	if sp.Sequential != nil && sp.Sequential.On && f.failIfWorse > 0 {
		return usageErr("--fail-if-worse (or the spec's fail_if_worse) with a sequential ablation: %s", spec.SeqGateRefusal)
	}
	return nil
}
