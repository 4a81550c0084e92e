package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"webbench/analysis"
	"webbench/report"
	"webbench/results"
)

func init() { extraCommands = append(extraCommands, compareCmd) }

func compareCmd() *cobra.Command {
	var format, variant, variantB, judgeName string
	var failIfWorse float64
	var costlier string
	var wide bool
	c := &cobra.Command{
		Use:   "compare RUN_A RUN_B",
		Short: "What changed between two runs: new failures, fixed tasks, pass-rate change with its interval",
		Long: "Compares one variant (default: the baseline of an ablation, or the only variant) per task and overall.\n" +
			"When the runs share (task, rep) pairs (same suite, tasks and reps), the comparison is paired: Δ = mean\n" +
			"over tasks of the per-task change in pass rate, the exact sign-flip p over tasks (paired_signflip), a t\n" +
			"interval from 12 moved tasks or clusters on (else an adjusted Wald interval), and McNemar by task (STATS.md §2). The\n" +
			"same --seed adds shared randomness and power. Without common pairs there is no verdict: the report says\n" +
			"why (each run's judged tasks, none shared) and shows Δ = rate_B − rate_A unpaired (Newcombe interval, Fisher\n" +
			"exact p); a gate asked for is not applied and the command exits 2. The analysis, warnings and gate are those of bench ablate (analysis.CompareRuns),\n" +
			"at the ablation spec's alpha, power and min_effect when run A (else run B) is an ablation.",
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			if c.Flags().Changed("fail-if-worse") {
				if err := checkMargin(failIfWorse); err != nil {
					return err
				}
			}
			var costMs map[results.CostOutcome]float64
			if c.Flags().Changed("fail-if-costlier") {
				var err error
				if costMs, err = costMargins(costlier); err != nil {
					return err
				}
			}
			r, err := lookupRenderer(format, wide, c.OutOrStdout(), "", nil)
			if err != nil {
				return err
			}
			var sides [2]analysis.RunSide
			var abls [2]*results.Ablation
			var arms [2][]results.Variant
			for i, d := range args {
				if sides[i], abls[i], arms[i], err = readSide(d, judgeName); err != nil {
					return err
				}
			}
			opts := analysis.CompareParams(abls[0], abls[1])
			sides[0].Label, sides[1].Label = analysis.LabelRunA, analysis.LabelRunB
			if variant != "" {
				sides[0].Variant = variant
			}
			sides[1].Variant = variantB
			if variantB == "" {
				sides[1].Variant = sides[0].Variant
			}
			// Two variants of one directory are a real comparison; only the same variant twice is A/A.
			opts.FailIfWorse = failIfWorse
			opts.FailIfCostlier = costMs
			opts.SameDir = sides[0].Variant == sides[1].Variant && sameDir(args[0], args[1])
			cmp, err := analysis.CompareRuns(sides[0], sides[1], opts)
			var mv *analysis.MissingVariantError
			switch {
			case errors.As(err, &mv):
				flag := map[string]string{"a": "--variant", "b": "--variant-b (run B's variant, default: --variant)"}[mv.Side]
				return usageErr("%v; choose one with %s", err, flag)
			case err != nil:
				return withCode(exitInfra, err)
			}
			if err := checkCostGatePriced(c, "--fail-if-costlier", costMs, comparedArms(arms, cmp)); err != nil {
				return err
			}
			if err := r.Compare(c.OutOrStdout(), cmp); err != nil {
				return err
			}
			if err := cmp.GateError(); err != nil {
				// No common pair: the report says so; a gate without a verdict must not pass.
				return usageErr("%s: %v", gateFlags(c), err)
			}
			if cmp.Gate != nil && cmp.Gate.Failed {
				// The report's gate line says why; stderr only names what failed.
				return &exitError{exitGate, fmt.Errorf("--fail-if-worse %.3f: the gate failed: run B %s (variant %s) against run A %s (variant %s), see the report's gate line",
					failIfWorse, cmp.B.Name, cmp.B.Variant, cmp.A.Name, cmp.A.Variant)}
			}
			if failed, _ := cmp.Analysis.CostGate(); failed {
				return &exitError{exitGate, fmt.Errorf("--fail-if-costlier %s: the cost gate failed: run B %s (variant %s) against run A %s (variant %s), see the report's cost gate line",
					report.CostMarginsText(costMs), cmp.B.Name, cmp.B.Variant, cmp.A.Name, cmp.A.Variant)}
			}
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", report.DefaultFormat, "report format: "+formatList())
	c.Flags().BoolVar(&wide, "wide", false, wideHelp)
	c.Flags().StringVar(&variant, "variant", "", "variant to compare (default: run A's ablation baseline, or its first variant)")
	c.Flags().StringVar(&variantB, "variant-b", "", "run B's variant when it has another name (e.g. an ablation's baseline vs a plain run's default)")
	c.Flags().StringVar(&judgeName, "judge", "", "compare the verdicts of this re-judge (bench judge) instead of the runs' own")
	c.Flags().StringVar(&costlier, "fail-if-costlier", "", "exit 1 when RUN_B is costlier than RUN_A: "+costMarginsHelp+
		" with its whole 95% interval above 1.2 and p < alpha)")
	c.Flags().Float64Var(&failIfWorse, "fail-if-worse", 0, "exit 1 when RUN_B's Δ is below −MARGIN (a proportion in (0, 1): 0.05 = 5 points) with its whole 95% interval below zero and p below alpha (0.05 unless the runs are ablations)")
	return c
}

// gateFlags names the gate flags given to c: "--fail-if-worse", "--fail-if-costlier", or both.
func gateFlags(c *cobra.Command) string {
	var out []string
	for _, f := range []string{"fail-if-worse", "fail-if-costlier"} {
		if c.Flags().Changed(f) {
			out = append(out, "--"+f)
		}
	}
	return strings.Join(out, " and ")
}

// readSide reads one run of a comparison through results.Open (schema 1 directories are converted on load): its
// final records (with the verdicts of judgeName), its base seed, its ablation baseline as the default variant,
// its plan's suite, its ablation parameters (nil when it is not an ablation) and its recorded arms.
func readSide(dir, judgeName string) (analysis.RunSide, *results.Ablation, []results.Variant, error) {
	run, err := openRun(dir)
	if err != nil {
		return analysis.RunSide{}, nil, nil, err
	}
	if err := checkJudge(run, judgeName); err != nil {
		return analysis.RunSide{}, nil, nil, err
	}
	recs, err := run.Attempts(judgeName)
	if err != nil {
		return analysis.RunSide{}, nil, nil, usageErr("%v", err)
	}
	plan := run.Manifest.Plan
	s := analysis.RunSide{Name: dir, Attempts: recs, BaseSeed: plan.BaseSeed, Suite: plan.Suite, Trajectories: analysis.RunTrajectories(run)}
	if plan.Ablation == nil {
		return s, nil, plan.Variants, nil
	}
	s.Variant = plan.Baseline
	return s, plan.Ablation, plan.Variants, nil
}

// comparedArms are the recorded arms of the two variants c compares, run A's then run B's.
func comparedArms(arms [2][]results.Variant, c *analysis.RunComparison) []pricedArm {
	var out []pricedArm
	for i, name := range []string{c.A.Variant, c.B.Variant} {
		for _, v := range arms[i] {
			if v.Name == name {
				out = append(out, manifestArms([]results.Variant{v})...)
			}
		}
	}
	return out
}

// sameDir reports whether two paths name the same directory.
func sameDir(a, b string) bool {
	x, err1 := os.Stat(a)
	y, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(x, y)
}

// checkMargin refuses a --fail-if-worse margin outside (0, 1) (a proportion: 0.05 = 5 points; 0 would read as
// "no gate", so a margin given on the command line must be above 0).
func checkMargin(m float64) error {
	if m <= 0 || m >= 1 || math.IsNaN(m) {
		return usageErr("--fail-if-worse %v: the margin is a proportion in (0, 1): 0.05 = 5 points, 0.001 for any significant drop", m)
	}
	return nil
}
