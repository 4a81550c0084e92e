package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"webbench/analysis"
	"webbench/report"

	"github.com/spf13/cobra"

	"webbench/judge"
	"webbench/results"
	"webbench/runner"
)

func reportCmd() *cobra.Command {
	var format string
	var o analysis.RunOptions
	var withGate, wide bool
	c := &cobra.Command{
		Use:   "report RUN_DIR",
		Short: "Print the report of a run directory without re-running",
		Long: "Prints the report of a run (per-variant summary) or of an ablation run (the analysis of bench ablate),\n" +
			"in any registered format; html writes RUN_DIR/report.html and prints its path.\n" +
			"--gate applies, after the report, the gates the run's own command applies at its end: for an ablation run\n" +
			"those of bench ablate with the fail_if_worse the run recorded (exit 1 when a variant is worse than the\n" +
			"baseline by more than it, the same message as bench ablate; exit 3 when more than 10% of the attempts\n" +
			"ended in infrastructure errors); for a plain run the infrastructure gate of bench run. Use it on a merged\n" +
			"run (bench merge): a shard's own gate sees only its share of the pairs. A run that stopped or lacks records\n" +
			"of planned attempts (a shard not merged in, killed or unfinished) is not gated: exit 3, saying what is missing.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
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
				return infraGate(c, run) // bench run's own end gate
			}
			a, recs, err := analysis.AnalyzeRun(run, o)
			if err != nil {
				return usageErr("%v", err)
			}
			if err := renderAblationReport(c, r, run.Dir, run, a, recs); err != nil || !withGate {
				return err
			}
			if err := completeGate(run); err != nil {
				return err
			}
			margin := run.Manifest.Plan.Ablation.FailIfWorse
			if margin <= 0 {
				fmt.Fprintf(c.ErrOrStderr(), "gate: none: %s was run without fail_if_worse (the spec's, or --fail-if-worse of bench ablate); only the infrastructure gate applies\n", run.Dir)
			}
			return ablationGates(c, run, a, margin)
		},
	}
	c.Flags().StringVar(&format, "format", report.DefaultFormat, "report format: "+formatList())
	c.Flags().BoolVar(&wide, "wide", false, wideHelp)
	c.Flags().StringVar(&o.Judge, "judge", "", "report the verdicts of this re-judge (bench judge) instead of the run's own")
	c.Flags().BoolVar(&o.BH, "bh", false, "ablation runs: also report Benjamini–Hochberg adjusted p-values")
	c.Flags().BoolVar(&withGate, "gate", false, "after the report, apply the run's gates: exit 3 when the run stopped or planned attempts have no record (a missing shard), exit 1 when an ablation's recorded fail_if_worse gate fails, exit 3 when more than 10% of the attempts are infrastructure errors")
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

// openRun reads the run directory dir (results.Open) as a usage error when it is none: a directory without a
// manifest is "not a run directory" (and one of WebVoyager result folders says to use bench judge); a run with a
// manifest but no attempts yet is a run.
func openRun(dir string) (*results.Run, error) {
	run, err := results.Open(dir)
	switch {
	case errors.Is(err, results.ErrNoManifest):
		why := "a run stopped by its preflight, before any attempt, writes none: fix the endpoint and re-run the command"
		if _, serr := os.Stat(dir); errors.Is(serr, os.ErrNotExist) {
			return nil, usageErr("%s is not a run directory (it does not exist): %s", dir, why)
		}
		var runs []string
		if ents, rerr := os.ReadDir(dir); rerr == nil {
			for _, e := range ents {
				if _, serr := os.Stat(filepath.Join(dir, e.Name(), results.ManifestFile)); e.IsDir() && serr == nil {
					runs = append(runs, e.Name())
				}
			}
		}
		if len(runs) > 0 {
			why = fmt.Sprintf("it holds %s (%s): report one of them, or merge shards first with bench merge",
				results.Count(len(runs), "run directory", "run directories"), strings.Join(runs, ", "))
		} else if folders, _, ferr := findFolders(dir); ferr == nil && len(folders) > 0 {
			why = fmt.Sprintf("it holds %s (interact_messages.json), which bench judge "+
				"grades (bench judge %s --judge answer --answers reference_answer.json) and bench report does not read",
				results.Count(len(folders), "WebVoyager result folder", "WebVoyager result folders"), dir)
		}
		return nil, usageErr("%s is not a run directory (no %s): %s", dir, results.ManifestFile, why)
	case err != nil:
		return nil, usageErr("%v", err)
	}
	return run, nil
}

// checkJudge refuses a --judge name that is neither a registered judge (judge.Names), the run's own verdicts
// (results.OriginalJudge) nor a re-judge of run (run.Judges) with a usage error listing both; "" (the run's own
// verdicts) passes. A registered judge the run was not re-judged with is left to (*results.Run).Attempts, whose
// message suggests running bench judge.
func checkJudge(run *results.Run, name string) error {
	if name == "" || name == results.OriginalJudge || slices.Contains(judge.Names(), name) || slices.Contains(run.Judges(), name) {
		return nil
	}
	return usageErr("--judge %q is not a registered judge (registered: %s); %s has the verdicts of: %s", name,
		strings.Join(judge.Names(), ", "), run.Dir, strings.Join(append([]string{results.OriginalJudge}, run.Judges()...), ", "))
}

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
	if run.TornTail {
		fmt.Fprintf(c.ErrOrStderr(), "warning: %s/%s ends with a torn line (ignored)\n", run.Dir, results.AttemptsFile)
	}
	recs, err := run.Attempts(judgeName)
	if err != nil {
		return usageErr("%v", err)
	}
	warnEstimated(c, recs)
	warnIncomplete(c, run)
	arms := analysis.Summarize(recs)
	analysis.LabelModels(arms, run.Manifest.Plan.Variants)
	warnAllInfra(c, arms)
	js, err := analysis.AnalyzeJudges(run)
	if err != nil {
		return usageErr("%v", err)
	}
	rep := &report.RunReport{Dir: run.Dir, Arms: arms, Records: recs, Run: run, Judges: js, Bounds: analysis.UncertainBounds(arms)}
	return withCode(exitInfra, r.Run(c.OutOrStdout(), rep))
}

// warnIncomplete warns on stderr when the report is of a run that did not finish: the manifest says it stopped
// (an endpoint error, --max-cost, an interrupt) or planned attempts have no record (killed, or still running).
// A shard's (--shard i/n, n > 1) planned attempts are its share of the plan, as its summary records; an
// unsharded or merged run's are the whole plan's (a merged manifest carries its first shard's summary). A
// shard whose share is empty gets a note saying so, not a warning.
func warnIncomplete(c *cobra.Command, run *results.Run) {
	m := run.Manifest
	planned, missing, stopped, isShard := completeness(run)
	switch {
	case isShard && m.Summary != nil && planned == 0 && stopped == "":
		fmt.Fprintf(c.ErrOrStderr(), "note: shard %s holds 0 of the plan's %d attempts: its share is empty (no (task, rep) "+
			"pair of the plan falls on it; more shards than pairs leave some empty); report the merged run\n", m.Shard, m.Plan.Attempts)
	case stopped != "":
		fmt.Fprintf(c.ErrOrStderr(), "warning: run stopped: %s; %d of %d planned attempts have no record (after the fix the stop named, re-run on this directory to resume)\n",
			stopped, missing, planned)
	case missing > 0:
		why := "the run did not finish"
		if m.EndedAt == "" {
			why += " (no end time in the manifest: killed, or still running)"
		}
		fmt.Fprintf(c.ErrOrStderr(), "warning: %s; %d of %d planned attempts have no record (resume with the same command)\n",
			why, missing, planned)
	}
}

// completeness says how much of its plan run holds: planned is the plan's attempts (a shard's: its share, as
// its summary records), missing how many of them have no final record, stopped the manifest's stop reason
// ("" when none), isShard whether run is one shard (--shard i/n, n > 1) rather than a whole or merged run.
func completeness(run *results.Run) (planned, missing int, stopped string, isShard bool) {
	m := run.Manifest
	planned = m.Plan.Attempts
	sh, err := runner.ParseShard(m.Shard)
	isShard = m.Shard != "" && err == nil && sh.N > 1
	if isShard && m.Summary != nil {
		planned = m.Summary.Planned // this shard's share of the plan
	}
	missing = max(planned-len(run.Final()), 0)
	if m.Summary != nil {
		stopped = m.Summary.Stopped
	}
	return planned, missing, stopped, isShard
}

// completeGate is bench report --gate's first gate: a run that stopped or lacks records of planned attempts
// (a shard not merged in, a shard killed or unfinished) is not gated — a pass on part of the pairs is not the
// run's pass — and gets exit 3 (exitInfra), resumable: finish or merge the missing part, then gate again.
func completeGate(run *results.Run) error {
	planned, missing, stopped, _ := completeness(run)
	switch {
	case stopped != "":
		return withCode(exitInfra, fmt.Errorf("gate: not applied: %s stopped (%s); %d of %d planned attempts have no record: "+
			"resume the run (or the shard that stopped, then merge again) and gate the whole run", run.Dir, stopped, missing, planned))
	case missing > 0:
		return withCode(exitInfra, fmt.Errorf("gate: not applied: %s holds %d of its %d planned attempts (a shard missing, "+
			"killed or unfinished): finish it (for a merged run, re-run the missing shards and merge all shards again) "+
			"and gate the whole run", run.Dir, planned-missing, planned))
	}
	return nil
}

// warnAllInfra warns on stderr about every variant all of whose attempts ended in infrastructure errors: its
// pass rate is undefined (n/a), not 0 %.
func warnAllInfra(c *cobra.Command, arms []analysis.Arm) {
	for _, name := range analysis.AllInfra(arms) {
		fmt.Fprintf(c.ErrOrStderr(), "warning: variant %s: every attempt ended in an infrastructure error: its pass rate "+
			"is undefined (n/a); see the error column of %s\n", name, results.AttemptsFile)
	}
}

// warnEstimated warns on stderr when some attempts' tokens (and so their cost) are estimates: the endpoint
// sent no usage.
func warnEstimated(c *cobra.Command, recs []results.Attempt) {
	if n := report.EstimatedTokens(recs); n > 0 {
		fmt.Fprintf(c.ErrOrStderr(), "warning: %d of %d attempts' tokens are estimated: the endpoint sent no usage "+
			"(tokens and cost are estimated from bytes, about 4 bytes a token)\n", n, len(recs))
	}
}

// renderAblationReport renders the analysis a of the ablation run (records recs) with r; renderers that write
// files write them into dir.
func renderAblationReport(c *cobra.Command, r report.Renderer, dir string, run *results.Run, a *analysis.Analysis,
	recs []results.Attempt) error {
	warnEstimated(c, recs)
	if run != nil {
		warnIncomplete(c, run)
	}
	warnAllInfra(c, a.Arms)
	rep := &report.AblationReport{Dir: dir, Analysis: a, Records: recs, Run: run}
	if run != nil {
		js, err := analysis.AblationJudges(run)
		if err != nil {
			return usageErr("%v", err)
		}
		rep.Judges = js
	}
	return withCode(exitInfra, r.Ablation(c.OutOrStdout(), rep))
}
