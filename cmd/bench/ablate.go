package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"webbench/analysis"
	"webbench/report"
	"webbench/spec"

	"github.com/spf13/cobra"

	"webbench/results"
	"webbench/runner"
	"webbench/suites"
)

func init() { extraCommands = append(extraCommands, ablateCmd) }

func ablateCmd() *cobra.Command {
	var rf runFlags
	var pf priceFlags
	var reps int
	var tasks string
	var failIfWorse float64
	var bh bool
	var htmlDir, model, baseURL, profile string
	c := &cobra.Command{
		Use:   "ablate SPEC.yaml",
		Short: "Run every arm of an ablation spec on the same tasks and report paired statistics",
		Long: "Runs the baseline and every variant of SPEC on the same (task, rep) pairs with the same seeds, arms of a pair\n" +
			"scheduled next to each other, into one run directory; then analyses (STATS.md) and prints the report.\n" +
			"--fail-if-worse MARGIN exits 1 when a variant is worse than the baseline by more than MARGIN with its\n" +
			"interval entirely below zero and its Holm-adjusted primary p below alpha.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			spec, err := spec.LoadSpec(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			if model != "" || profile != "" {
				if model == "" {
					model = "scripted"
				}
				m, err := runner.ParseModel(model, baseURL, profile)
				if err != nil {
					return usageErr("%v", err)
				}
				if m.Kind == "scripted" && c.Flags().Changed("base-url") {
					return usageErr("--base-url needs --model openai:NAME")
				}
				spec.Baseline.Model = &m
			} else if c.Flags().Changed("base-url") {
				return usageErr("--base-url needs --model openai:NAME (it replaces the baseline's model)")
			}
			if c.Flags().Changed("reps") {
				if reps < 1 {
					return usageErr("--reps must be at least 1 (got %d)", reps)
				}
				spec.Reps = reps
			}
			if c.Flags().Changed("tasks") {
				if strings.TrimSpace(tasks) == "" {
					return usageErr("--tasks needs comma-separated task id globs, e.g. 'shop-*' (got an empty value)")
				}
				spec.Tasks = tasks
			}
			if !c.Flags().Changed("fail-if-worse") {
				failIfWorse = spec.FailIfWorse
			} else if err := checkMargin(failIfWorse); err != nil {
				return err
			}
			plan, s, err := ablatePlan(c, args[0], spec, failIfWorse)
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
				name := spec.Name
				if name == "" {
					name = strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0]))
				}
				rf.out = filepath.Join("runs", name)
			}
			if rf.workers == 0 {
				rf.workers = spec.Workers
			}
			ropts, err := rf.options()
			if err != nil {
				return err
			}
			if rf.dryRun {
				return printPlan(c, plan, ropts.Shard, rf.jsonOut)
			}
			fmt.Fprintf(c.ErrOrStderr(), "ablation %s: %s over %d of the %s, %s → %s\n", spec.Name,
				results.Count(len(plan.Variants), "arm", "arms"), usedTasks(plan),
				results.Count(len(plan.Tasks), "selected task", "selected tasks"), results.Count(spec.Reps, "rep", "reps"), ropts.OutDir)
			if _, err := runner.Run(c.Context(), plan, s, ropts); err != nil {
				return runErr(err)
			}
			return reportAblation(c, ropts.OutDir, htmlDir, analysisOpts{bh: bh, failIfWorse: failIfWorse})
		},
	}
	rf.register(c)
	c.Flags().IntVar(&reps, "reps", 0, "override the spec's reps")
	c.Flags().StringVar(&tasks, "tasks", "", "override the spec's tasks: comma-separated task id globs, e.g. 'shop-*,stays-qa-*' (a glob that matches no task is an error; each arm still runs on its scope's share of them)")
	c.Flags().Float64Var(&failIfWorse, "fail-if-worse", 0, "exit 1 when a variant is worse than the baseline by more than this margin (a proportion in (0, 1), e.g. 0.05) with its interval below zero and its Holm-adjusted p < alpha")
	c.Flags().BoolVar(&bh, "bh", false, "also report Benjamini–Hochberg adjusted p-values")
	c.Flags().StringVar(&model, "model", "", "replace the baseline's model (variants inherit it unless they set their own): scripted[:PROFILE] or openai:NAME")
	c.Flags().StringVar(&baseURL, "base-url", "", "endpoint for --model openai:NAME")
	pf.register(c, "every real-model arm")
	c.Flags().StringVar(&profile, "profile", "", "scripted policy profile for the baseline (clean, observed, harsh, or a YAML file)")
	c.Flags().StringVar(&htmlDir, "html", "", "folder for report.html (default: the run directory)")
	return c
}

// ablatePlan opens the spec's suite, selects its tasks and expands the spec into the plan (warnings printed,
// variants validated). The caller closes the suite.
func ablatePlan(c *cobra.Command, path string, spec *spec.Spec, failIfWorse float64) (runner.Plan, suites.Suite, error) {
	opts := suites.Options{}
	for k, v := range spec.SuiteOptions {
		opts[k] = v
	}
	s, err := suites.Open(spec.Suite, opts)
	if err != nil {
		return runner.Plan{}, nil, usageErr("%s: %v", path, err)
	}
	plan, err := func() (runner.Plan, error) {
		tasks, err := suites.Filter(s.Tasks(), spec.Tasks)
		if err != nil {
			return runner.Plan{}, usageErr("%s: %v", path, err)
		}
		arms, err := spec.Expand(tasks)
		if err != nil {
			return runner.Plan{}, usageErr("%v", err)
		}
		for _, w := range arms.Warnings {
			fmt.Fprintln(c.ErrOrStderr(), "warning:", w)
		}
		shots, _ := c.Flags().GetBool("screenshots")
		if err := validateVariants(arms.Variants, shots); err != nil {
			return runner.Plan{}, err
		}
		for i := range arms.Variants {
			arms.Variants[i].Switched = arms.Switched[arms.Variants[i].Name]
		}
		return runner.Plan{Suite: s.Name(), SuiteOptions: opts, TaskFilter: spec.Tasks, Tasks: tasks, Reps: spec.Reps,
			Variants: arms.Variants, BaseSeed: spec.Seed, Ablation: &results.Ablation{Spec: path, Alpha: spec.Alpha,
				Power: spec.Power, MinEffect: spec.MinEffect, FailIfWorse: failIfWorse, Warnings: arms.Warnings,
				Replays: arms.Replays, Copies: arms.AA}}, nil
	}()
	if err != nil {
		s.Close()
		return runner.Plan{}, nil, err
	}
	return plan, s, nil
}

// usedTasks counts the plan's tasks that at least one arm runs on.
func usedTasks(plan runner.Plan) int {
	n := 0
	for _, t := range plan.Tasks {
		if slices.ContainsFunc(plan.Variants, func(v runner.Variant) bool { return v.TaskIDs == nil || v.TaskIDs[t.ID] }) {
			n++
		}
	}
	return n
}

// reportAblation analyses the finished ablation in dir, prints the terminal report (report.DefaultFormat),
// writes the HTML report with the registered html renderer (into htmlDir, default dir) and applies the
// infrastructure and --fail-if-worse gates.
func reportAblation(c *cobra.Command, dir, htmlDir string, o analysisOpts) error {
	run, err := openRun(dir)
	if err != nil {
		return err
	}
	a, recs, err := analyzeRun(run, o)
	if err != nil {
		return usageErr("%v", err)
	}
	term, err := lookupRenderer(report.DefaultFormat, false, c.OutOrStdout(), dir, o.reportArgs())
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
	return ablationGates(c, run, a, o.failIfWorse)
}

// ablationGates are the gates bench ablate applies at its end, and bench report --gate on an ablation run: the
// infrastructure gate (exit 3 when more than infraThreshold of the attempts ended in infrastructure errors),
// then the --fail-if-worse gate at margin (exit 1; margin 0: none).
func ablationGates(c *cobra.Command, run *results.Run, a *analysis.Analysis, margin float64) error {
	if err := infraGate(c, run); err != nil {
		return err
	}
	return gate(c, a, margin)
}

// gate applies the --fail-if-worse gate at margin to the analysis a (margin 0: no gate): exit 1 (exitGate)
// when a variant is shown worse than the baseline (Analysis.Gate), each reason printed on stderr; otherwise a
// "gate: passed" line and the inconclusive variants.
func gate(c *cobra.Command, a *analysis.Analysis, margin float64) error {
	if margin <= 0 {
		return nil
	}
	failed, why := a.Gate(margin)
	if failed {
		for _, w := range why {
			fmt.Fprintln(c.ErrOrStderr(), "gate:", w)
		}
		return &exitError{exitGate, fmt.Errorf("--fail-if-worse %.3f: a variant is worse than the baseline", margin)}
	}
	fmt.Fprintf(c.ErrOrStderr(), "gate: passed: no variant is shown worse than the baseline by more than %.3f (with its interval below 0 and p_holm below alpha)\n", margin)
	for _, w := range a.GateInconclusive(margin) {
		fmt.Fprintln(c.ErrOrStderr(), "gate: inconclusive:", w)
	}
	return nil
}

// analyzeRun analyses the final records of an ablation run, with the verdicts of o.judge ("" or "original": as
// recorded).
func analyzeRun(run *results.Run, o analysisOpts) (*analysis.Analysis, []results.Attempt, error) {
	if run.Manifest.Plan.Ablation == nil {
		return nil, nil, fmt.Errorf("%s is not an ablation run (its manifest has no plan.ablation)", run.Dir)
	}
	recs, err := run.Attempts(o.judge)
	if err != nil {
		return nil, nil, err
	}
	in := ablationInputs(run.Manifest.Plan, o.bh, o.failIfWorse)
	in.CMH = o.cmh
	a := analysis.Analyze(recs, in)
	a.LabelModels(run.Manifest.Plan.Variants)
	return a, recs, nil
}

// ablationInputs are the analysis inputs an ablation's plan records: its baseline, the other arms in plan
// order, their switched guards and target tasks, the task tags, α, power, minimum effect, the spec's
// warnings and its A/A arms (ablation.replays and ablation.copies; without copies, analysis.AACopies). failIfWorse 0 takes the margin the run was made with.
func ablationInputs(p results.Plan, bh bool, failIfWorse float64) analysis.Inputs {
	in := analysis.Inputs{Baseline: p.Baseline, Switched: p.Switched(), Targets: p.Targets(), TaskTags: p.TaskTags,
		BH: bh, FailIfWorse: failIfWorse}
	in.Variants = slices.DeleteFunc(p.VariantNames(), func(n string) bool { return n == p.Baseline })
	if a := p.Ablation; a != nil {
		in.Alpha, in.Power, in.MinEffect, in.ExtraWarnings = a.Alpha, a.Power, a.MinEffect, a.Warnings
		in.Replays, in.Copies = a.Replays, a.Copies
		if in.FailIfWorse == 0 {
			in.FailIfWorse = a.FailIfWorse
		}
	}
	if in.Copies == nil {
		in.Copies = analysis.AACopies(p) // a manifest written before ablation.copies
	}
	return in
}
