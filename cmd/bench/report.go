package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"webbench/ablation"
	"webbench/results"
)

func reportCmd() *cobra.Command {
	var format string
	var o analysisOpts
	c := &cobra.Command{
		Use:   "report RUN_DIR",
		Short: "Print the report of a run directory without re-running",
		Long: "Prints the report of a run (per-variant summary) or of an ablation run (the analysis of bench ablate),\n" +
			"in any registered format; html writes RUN_DIR/report.html and prints its path.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			dir := args[0]
			if _, err := os.Stat(filepath.Join(dir, results.AttemptsFile)); err != nil {
				return usageErr("%s is not a run directory (no %s)", dir, results.AttemptsFile)
			}
			r, err := ablation.LookupRenderer(format)
			if err != nil {
				return usageErr("%v", err)
			}
			if m, err := results.ReadManifest(dir); err != nil {
				return usageErr("%v", err)
			} else if m.Plan.Ablation == nil {
				return renderRunReport(c, r, dir, o.judge)
			}
			a, recs, err := analyzeDir(dir, o)
			if err != nil {
				return usageErr("%v", err)
			}
			return renderAblationReport(c, r, dir, a, recs)
		},
	}
	c.Flags().StringVar(&format, "format", "table", "report format: "+formatList())
	c.Flags().StringVar(&o.judge, "judge", "", "report the verdicts of this re-judge (bench judge) instead of the run's own")
	c.Flags().BoolVar(&o.bh, "bh", false, "ablation runs: also report Benjamini–Hochberg adjusted p-values")
	c.Flags().BoolVar(&o.cmh, "cmh", false, "ablation runs: also report the Cochran–Mantel–Haenszel test across tasks (p_cmh)")
	return c
}

// analysisOpts are the choices of an ablation run's analysis beyond its manifest's plan: BH and CMH p-values, a
// gate margin (0: the run's own), and the re-judge whose verdicts are analysed ("": the run's own).
type analysisOpts struct {
	bh, cmh     bool
	failIfWorse float64
	judge       string
}

// formatList names the registered report formats for flag help.
func formatList() string { return strings.Join(ablation.Formats(), ", ") }

// printRunReport prints the report of the plain run in dir in format.
func printRunReport(c *cobra.Command, dir, format string) error {
	r, err := ablation.LookupRenderer(format)
	if err != nil {
		return usageErr("%v", err)
	}
	return renderRunReport(c, r, dir, "")
}

// renderRunReport renders the per-variant summary of the run in dir (with the verdicts of judgeName) with r.
func renderRunReport(c *cobra.Command, r ablation.Renderer, dir, judgeName string) error {
	run, err := results.Open(dir)
	if err != nil {
		return usageErr("%v", err)
	}
	if run.TornTail {
		fmt.Fprintf(c.ErrOrStderr(), "warning: %s/%s ends with a torn line (ignored)\n", dir, results.AttemptsFile)
	}
	recs, err := run.Attempts(judgeName)
	if err != nil {
		return usageErr("%v", err)
	}
	return withCode(exitInfra, r.Run(c.OutOrStdout(), &ablation.RunReport{Dir: dir, Arms: ablation.Summarize(recs)}))
}

// renderAblationReport renders the analysis a of the ablation run in dir (records recs) with r.
func renderAblationReport(c *cobra.Command, r ablation.Renderer, dir string, a *ablation.Analysis, recs []results.Attempt) error {
	return withCode(exitInfra, r.Ablation(c.OutOrStdout(), &ablation.AblationReport{Dir: dir, Analysis: a, Records: recs,
		TrajDir: filepath.Join(dir, results.TrajectoriesDir)}))
}

// printAblationReport prints the terminal report (ablation.DefaultFormat) of the ablation run in dir.
func printAblationReport(c *cobra.Command, dir string, a *ablation.Analysis, recs []results.Attempt) error {
	r, err := ablation.LookupRenderer(ablation.DefaultFormat)
	if err != nil {
		return err
	}
	return renderAblationReport(c, r, dir, a, recs)
}
