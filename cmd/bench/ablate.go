package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"webbench/ablation"
	"webbench/results"
	"webbench/runner"
	"webbench/suites"
)

func init() { extraCommands = append(extraCommands, ablateCmd) }

// ablationFile records, in the run directory, what the analysis needs beyond the records.
const ablationFile = "ablation.json"

// ablationMeta is ablation.json.
type ablationMeta struct {
	SchemaVersion int                 `json:"schema_version"`
	Spec          string              `json:"spec"`
	Baseline      string              `json:"baseline"`
	Variants      []string            `json:"variants"`
	Switched      map[string][]string `json:"switched"`
	Targets       map[string][]string `json:"targets"`
	TaskTags      map[string][]string `json:"task_tags"`
	Alpha         float64             `json:"alpha"`
	Power         float64             `json:"power"`
	MinEffect     float64             `json:"min_effect"`
	Warnings      []string            `json:"warnings,omitempty"`
	// FailIfWorse is the gate margin the run was made with (0 = none), so reports show the gate.
	FailIfWorse float64 `json:"fail_if_worse,omitempty"`
}

func ablateCmd() *cobra.Command {
	var rf runFlags
	var reps, workers int
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
			spec, err := ablation.LoadSpec(args[0])
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
				spec.Baseline.Model = &m
			}
			if c.Flags().Changed("reps") {
				if reps < 1 {
					return usageErr("--reps must be at least 1 (got %d)", reps)
				}
				spec.Reps = reps
			}
			if c.Flags().Changed("workers") {
				spec.Workers = workers
			}
			if !c.Flags().Changed("fail-if-worse") {
				failIfWorse = spec.FailIfWorse
			} else if err := checkMargin(failIfWorse); err != nil {
				return err
			}
			opts := suites.Options{}
			for k, v := range spec.SuiteOptions {
				opts[k] = v
			}
			s, err := suites.Open(spec.Suite, opts)
			if err != nil {
				return usageErr("%s: %v", args[0], err)
			}
			defer s.Close()
			tasks, err := suites.Filter(s.Tasks(), spec.Tasks)
			if err != nil {
				return usageErr("%s: %v", args[0], err)
			}
			arms, err := spec.Expand(tasks)
			if err != nil {
				return usageErr("%v", err)
			}
			for _, w := range arms.Warnings {
				fmt.Fprintln(c.ErrOrStderr(), "warning:", w)
			}
			if err := validateVariants(arms.Variants); err != nil {
				return err
			}
			plan := runner.Plan{Suite: s.Name(), Tasks: tasks, Reps: spec.Reps, Variants: arms.Variants, BaseSeed: spec.Seed}
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
			ropts, err := rf.options(spec)
			if err != nil {
				return err
			}
			if rf.dryRun {
				return printPlan(c, plan, ropts.Shard, rf.jsonOut)
			}
			meta := ablationMeta{SchemaVersion: results.SchemaVersion, Spec: args[0], Baseline: arms.Variants[0].Name,
				Switched: arms.Switched, Targets: arms.TargetTasks(), TaskTags: map[string][]string{},
				Alpha: spec.Alpha, Power: spec.Power, MinEffect: spec.MinEffect, Warnings: arms.Warnings,
				FailIfWorse: failIfWorse}
			for _, v := range arms.Variants[1:] {
				meta.Variants = append(meta.Variants, v.Name)
			}
			for _, t := range tasks {
				meta.TaskTags[t.ID] = t.Tags
			}
			if err := os.MkdirAll(ropts.OutDir, 0o755); err != nil {
				return withCode(exitInfra, err)
			}
			if err := results.WriteJSONFile(filepath.Join(ropts.OutDir, ablationFile), meta); err != nil {
				return withCode(exitInfra, err)
			}
			used := map[string]bool{}
			for _, v := range arms.Variants {
				for _, t := range tasks {
					if v.TaskIDs == nil || v.TaskIDs[t.ID] {
						used[t.ID] = true
					}
				}
			}
			fmt.Fprintf(c.ErrOrStderr(), "ablation %s: %d arm(s) over %d of the %d selected task(s), %d rep(s) → %s\n", spec.Name,
				len(arms.Variants), len(used), len(tasks), spec.Reps, ropts.OutDir)
			if _, err := runner.Run(c.Context(), plan, s, ropts); err != nil {
				return runErr(err)
			}
			a, recs, err := analyzeDir(ropts.OutDir, analysisOpts{bh: bh, failIfWorse: failIfWorse})
			if err != nil {
				return usageErr("%v", err)
			}
			if err := printAblationReport(c, ropts.OutDir, a, recs); err != nil {
				return err
			}
			if htmlDir == "" {
				htmlDir = ropts.OutDir
			}
			if err := ablation.HTMLReport(htmlDir, a, recs, filepath.Join(ropts.OutDir, results.TrajectoriesDir)); err != nil {
				fmt.Fprintln(c.ErrOrStderr(), "warning: HTML report:", err)
			} else {
				fmt.Fprintf(c.ErrOrStderr(), "HTML report: %s\n", filepath.Join(htmlDir, "report.html"))
			}
			if err := infraGate(c, ropts.OutDir); err != nil {
				return err
			}
			return gate(c, a, failIfWorse)
		},
	}
	rf.register(c)
	c.Flags().IntVar(&reps, "reps", 0, "override the spec's reps")
	c.Flags().IntVar(&workers, "workers-override", 0, "")
	_ = c.Flags().MarkHidden("workers-override")
	c.Flags().Float64Var(&failIfWorse, "fail-if-worse", 0, "exit 1 when a variant is worse than the baseline by more than this margin (a proportion in (0, 1), e.g. 0.05) with its interval below zero and its Holm-adjusted p < alpha")
	c.Flags().BoolVar(&bh, "bh", false, "also report Benjamini–Hochberg adjusted p-values")
	c.Flags().StringVar(&model, "model", "", "replace the baseline's model (variants inherit it unless they set their own): scripted[:PROFILE] or openai:NAME")
	c.Flags().StringVar(&baseURL, "base-url", "", "endpoint for --model openai:NAME")
	c.Flags().StringVar(&profile, "profile", "", "scripted policy profile for the baseline (clean, observed, harsh, or a YAML file)")
	c.Flags().StringVar(&htmlDir, "html", "", "folder for report.html (default: the run directory)")
	return c
}

func gate(c *cobra.Command, a *ablation.Analysis, margin float64) error {
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
	fmt.Fprintf(c.ErrOrStderr(), "gate: no variant worse than the baseline by more than %.3f\n", margin)
	return nil
}

// analyzeDir reads an ablation run directory and analyses it.
func analyzeDir(dir string, o analysisOpts) (*ablation.Analysis, []results.Attempt, error) {
	var meta ablationMeta
	if err := readJSON(filepath.Join(dir, ablationFile), &meta); err != nil {
		return nil, nil, fmt.Errorf("%s is not an ablation run: %v", dir, err)
	}
	rr, err := results.ReadAttempts(dir)
	if err != nil {
		return nil, nil, err
	}
	recs, err := ablation.WithJudge(rr.Final(), o.judge)
	if err != nil {
		return nil, nil, err
	}
	failIfWorse := o.failIfWorse
	if failIfWorse == 0 {
		failIfWorse = meta.FailIfWorse
	}
	a := ablation.Analyze(recs, ablation.Inputs{Baseline: meta.Baseline, Variants: meta.Variants,
		Switched: meta.Switched, Targets: meta.Targets, TaskTags: meta.TaskTags, Alpha: meta.Alpha,
		Power: meta.Power, MinEffect: meta.MinEffect, BH: o.bh, CMH: o.cmh, FailIfWorse: failIfWorse, ExtraWarnings: meta.Warnings})
	return a, recs, nil
}
