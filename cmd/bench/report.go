package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"webbench/analysis"
	"webbench/report"
	_ "webbench/report/formats" // every format registered for --format
	"webbench/results"
)

func reportCmd() *cobra.Command {
	var format string
	var o analysis.RunOptions
	var withGate, wide bool
	var costlier string
	c := &cobra.Command{
		Use:   "report RUN_DIR",
		Short: "Print the report of a run directory without re-running",
		Long: "Prints the report of a run (per-variant summary) or of an ablation run (the analysis of bench ablate),\n" +
			"in any registered format; html writes RUN_DIR/report.html and prints its path.\n" +
			"--gate applies, after the report, the gates the run's own command applies at its end: for an ablation run\n" +
			"those of bench ablate with the fail_if_worse and fail_if_costlier the run recorded (--fail-if-costlier\n" +
			"replaces the latter): exit 1 when a variant is worse than the baseline by more than fail_if_worse, or\n" +
			"costlier than fail_if_costlier allows, the same message as bench ablate; exit 3 when more than 10% of the\n" +
			"attempts ended in infrastructure errors; for a plain run the infrastructure gate of bench run. The gates'\n" +
			"lines are in the report (on stderr with --format html, whose report goes to a file). Use it on a merged\n" +
			"run (bench merge): a shard's own gate sees only its share of the pairs. A run that stopped or lacks records\n" +
			"of planned attempts (a shard not merged in, killed or unfinished) is not gated: exit 3, saying what is missing.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if c.Flags().Changed("fail-if-costlier") {
				m, err := costMargins(costlier)
				if err != nil {
					return err
				}
				o.FailIfCostlier = m
			}
			r, err := lookupRenderer(format, wide, c.OutOrStdout(), args[0], reportArgs(o))
			if err != nil {
				return err
			}
			run, err := openRun(args[0])
			if err != nil {
				return err
			}
			if err := checkJudge(run, o.Judge); err != nil {
				return err
			}
			if run.Manifest.Plan.Ablation == nil {
				if err := renderRunReport(c, r, run, o.Judge); err != nil || !withGate {
					return err
				}
				if err := completeGate(run); err != nil {
					return err
				}
				return infraGate(run) // bench run's own end gate
			}
			a, recs, err := analysis.AnalyzeRun(run, o)
			if err != nil {
				return usageErr("%v", err)
			}
			if err := checkCostGatePriced(c, costGateSource(c), a.FailIfCostlier, manifestArms(run.Manifest.Plan.Variants)); err != nil {
				return err
			}
			rep, err := report.NewAblationReport(run.Dir, run, a, recs)
			if err != nil {
				return usageErr("%v", err)
			}
			if err := renderAblationReport(c, r, rep); err != nil || !withGate {
				return err
			}
			if err := completeGate(run); err != nil {
				return err
			}
			margin := run.Manifest.Plan.Ablation.FailIfWorse
			if margin <= 0 && len(a.FailIfCostlier) == 0 {
				fmt.Fprintf(c.ErrOrStderr(), "gate: none: %s was run without fail_if_worse (the spec's, or --fail-if-worse of bench ablate); only the infrastructure gate applies\n", run.Dir)
			}
			return ablationGates(c, run, a, margin, format != "html")
		},
	}
	c.Flags().StringVar(&format, "format", report.DefaultFormat, "report format: "+formatList())
	c.Flags().BoolVar(&wide, "wide", false, wideHelp)
	c.Flags().StringVar(&o.Judge, "judge", "", "report the verdicts of this re-judge (bench judge) instead of the run's own")
	c.Flags().BoolVar(&o.BH, "bh", false, "ablation runs: also report Benjamini–Hochberg adjusted p-values")
	c.Flags().BoolVar(&withGate, "gate", false, "after the report, apply the run's gates: exit 3 when the run stopped or planned attempts have no record (a missing shard), exit 1 when an ablation's recorded fail_if_worse or fail_if_costlier gate fails, exit 3 when more than 10% of the attempts are infrastructure errors")
	c.Flags().StringVar(&costlier, "fail-if-costlier", "", "ablation runs, replacing the recorded "+
		"gate: "+failIfCostlierHelp)
	c.Flags().BoolVar(&o.CMH, "cmh", false, "ablation runs: also report the Cochran–Mantel–Haenszel test across tasks (p_cmh)")
	return c
}

// wideHelp is the help of --wide.
const wideHelp = "table format: the full tables, as wide as they need (default: lines that fit $COLUMNS, the terminal, or 120 columns)"

// lookupRenderer returns the renderer of format with the terminal width of out (report.TerminalWidth), the run
// directory dir its footer names ("" for none: a comparison of two runs), the program name (programName) and the
// flags (reportArgs) of the report command it suggests, and --wide applied when it is Configurable (the table
// format); --wide with another format is a usage error (md, html and json always hold the full tables).
func lookupRenderer(format string, wide bool, out io.Writer, dir string, reportArgs []string) (report.Renderer, error) {
	r, err := report.LookupRenderer(format)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	cr, ok := r.(report.Configurable)
	if !ok {
		if wide {
			return nil, usageErr("--wide applies to the table format; --format %s always has the full tables", format)
		}
		return r, nil
	}
	f, _ := out.(*os.File)
	return cr.With(report.RenderOptions{Width: report.TerminalWidth(f), Wide: wide, RunDir: dir, Program: programName(),
		ReportArgs: reportArgs}), nil
}

// programName is the CLI as the user invoked it, for the commands a report suggests: os.Args[0] as given when it
// holds a path separator ("./bin/bench", "bin/bench", an absolute path), else "bench" (found on $PATH); "bench"
// too for the temporary binary of `go run`.
func programName() string {
	if len(os.Args) == 0 || !strings.ContainsRune(os.Args[0], filepath.Separator) {
		return "bench"
	}
	if rel, err := filepath.Rel(os.TempDir(), os.Args[0]); err == nil && strings.HasPrefix(rel, "go-build") {
		return "bench" // `go run ./cmd/bench`: its binary is gone when the command ends
	}
	return os.Args[0]
}

// reportArgs are the flags of o that change what an ablation report shows, as `bench report` takes them, for the
// report command the compact report suggests: --judge NAME, --bh, --cmh. The gate margin is not among them
// (bench report applies the run's recorded one with --gate).
func reportArgs(o analysis.RunOptions) []string {
	var args []string
	if o.Judge != "" {
		args = append(args, "--judge", o.Judge)
	}
	if o.BH {
		args = append(args, "--bh")
	}
	if o.CMH {
		args = append(args, "--cmh")
	}
	return args
}

// formatList names the registered report formats for flag help.
func formatList() string { return strings.Join(report.Formats(), ", ") }

// printRunReport prints the report of the plain run in format.
func printRunReport(c *cobra.Command, run *results.Run, format string) error {
	r, err := lookupRenderer(format, false, c.OutOrStdout(), run.Dir, nil)
	if err != nil {
		return err
	}
	return renderRunReport(c, r, run, "")
}

// renderRunReport renders the per-variant summary of run (with the verdicts of judgeName) with r.
func renderRunReport(c *cobra.Command, r report.Renderer, run *results.Run, judgeName string) error {
	recs, err := run.Attempts(judgeName)
	if err != nil {
		return usageErr("%v", err)
	}
	arms := analysis.Summarize(recs)
	analysis.LabelModels(arms, run.Manifest.Plan.Variants)
	ws := printRunWarnings(c, run, recs, arms)
	js, err := analysis.AnalyzeJudges(run)
	if err != nil {
		return usageErr("%v", err)
	}
	rep := &report.RunReport{Dir: run.Dir, Arms: arms, Records: recs, Run: run, Judges: js, Bounds: analysis.UncertainBounds(arms),
		Warnings: ws}
	return withCode(exitInfra, r.Run(c.OutOrStdout(), rep))
}

// renderAblationReport renders the ablation report rep (report.NewAblationReport) with r, after the warnings
// about its records and run on stderr.
func renderAblationReport(c *cobra.Command, r report.Renderer, rep *report.AblationReport) error {
	printRunWarnings(c, rep.Run, rep.Records, rep.Analysis.Arms)
	return withCode(exitInfra, r.Ablation(c.OutOrStdout(), rep))
}
