package main

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/spf13/cobra"

	"webbench/analysis"
	"webbench/judge"
	"webbench/llm"
	"webbench/report"
	"webbench/results"
	"webbench/srcerr"
	"webbench/suites"
)

func init() { extraCommands = append(extraCommands, judgeCmd) }

// judgeLong is bench judge's help text.
const judgeLong = "DIR is a run directory: every final attempt is judged again by --judge and the verdicts are written to\n" +
	"DIR/verdicts-<judge>.jsonl beside the original ones. Or DIR holds WebVoyager result folders (task*/ with\n" +
	"interact_messages.json and screenshotN.png): each gets <folder>/verdict-<judge>.json, joined by task id\n" +
	"(taskAmazon--0 = Amazon--0) to --answers reference_answer.json and --tasks-file (question text; a GAIA-format\n" +
	"file's \"Final answer\" fields are answers too); a summary line counts pass, fail, uncertain and judge errors.\n" +
	"The answer judge says uncertain when the answer matched its rule but states other candidates; with\n" +
	"--judge-model the llm judge decides those.\n" +
	"Nested folders (DIR/<run>/task…/) are found at any depth; a folder's name may have another letter case\n" +
	"or a copy's suffix (taskApple--17 (2)). --answers-jsonl FILE judges answers given as JSON Lines instead\n" +
	"({\"task_id\", \"answer\", optional \"run\", \"id\"}; no DIR, nothing written). --format json|jsonl prints\n" +
	"the verdicts and a summary on stdout for scripts. Over folders or --answers-jsonl, exit 4 when some\n" +
	"answers are judge errors (an unknown task id among them), 5 when none was graded.\n" +
	"--audit FILE records trusted verdicts (a human audit: {\"attempt_id\", \"pass\"} lines) of some of the\n" +
	"run's attempts as DIR/audit.jsonl and prints each judge's pass rates corrected for judge error\n" +
	"(prediction-powered inference), as bench report shows them from then on.\n" +
	"--agreement A B prints Cohen's κ and the confusion table between two judges' verdicts in DIR ('original'\n" +
	"names the verdicts recorded during the run).\n" +
	"The llm judge has its own model block: --judge-model openai:NAME --judge-base-url URL, key from\n" +
	"--judge-key-env (default OPENAI_API_KEY)."

// judgeModes refuses flags that the chosen mode of bench judge would ignore: --audit records an audit (no
// judging, no agreement, text only), --agreement prints one table (text only, not over --answers-jsonl), and
// --answers-jsonl grades answers (no audit, no agreement). A flag accepted must do what it says.
func judgeModes(c *cobra.Command, answersJSONL, audit string, agreement bool) error {
	set := func(name string) bool { return c.Flags().Changed(name) }
	switch {
	case audit != "" && answersJSONL != "":
		return usageErr("--audit records trusted verdicts for a run directory's attempts; it does not apply to --answers-jsonl")
	case audit != "" && agreement:
		return usageErr("--audit and --agreement are separate steps: record the audit, then print the agreement")
	case audit != "" && (set("judge") || set("format")):
		return usageErr("--audit records the audit and prints the corrected rates as text; --judge and --format do not apply to it " +
			"(bench report DIR --format … shows the corrected rates of every judge)")
	case agreement && answersJSONL != "":
		return usageErr("--agreement compares the judges of a run directory; it does not apply to --answers-jsonl")
	case agreement && (set("judge") || set("format")):
		return usageErr("--agreement prints the agreement of the two judges it names, as text; --judge and --format do not apply to it")
	}
	return nil
}

func judgeCmd() *cobra.Command {
	var which string
	var opts judge.Options
	var agreement []string
	var sf suiteFlags
	var answersJSONL, format, audit string
	c := &cobra.Command{
		Use:   "judge [DIR]",
		Short: "Re-score existing attempts (a run directory, or WebVoyager result folders) without re-running",
		Long:  judgeLong,
		Args:  cobra.RangeArgs(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := judgeModes(c, answersJSONL, audit, len(agreement) > 0); err != nil {
				return err
			}
			if answersJSONL != "" {
				if len(args) > 0 {
					return usageErr("--answers-jsonl judges the answers of the file: no DIR (got %s)", args[0])
				}
				return runAnswersJSONL(c, which, opts, sf, answersJSONL, format)
			}
			if len(args) != 1 {
				return usageErr("bench judge takes a DIR (a run directory or WebVoyager result folders), or --answers-jsonl FILE")
			}
			dir := args[0]
			if audit != "" {
				return recordAudit(c, dir, audit)
			}
			if len(agreement) > 0 {
				if len(agreement) != 2 {
					return usageErr("--agreement takes two judge names")
				}
				return printAgreement(c, dir, agreement[0], agreement[1])
			}
			if which == results.OriginalJudge {
				return usageErr("--judge %s names the verdicts recorded during the run; choose one of %s", which, judgeList())
			}
			if err := srcerr.OneOf("judge", which, judge.Names()); err != nil {
				return usageErr("--judge: %v", err)
			}
			j, err := judge.New(which, opts)
			if err != nil {
				return usageErr("%v", err)
			}
			run, err := results.Open(dir)
			switch {
			case errors.Is(err, results.ErrNoManifest):
				folders, skipped, err := findFolders(dir)
				if err != nil {
					return err
				}
				for _, sk := range skipped {
					fmt.Fprintf(c.ErrOrStderr(), "warning: %s looks like a WebVoyager result folder but has no interact_messages.json: skipped\n", sk)
				}
				refs, err := loadFolderRefs(c, sf, which, "WebVoyager result folders")
				if err != nil {
					return err
				}
				out, err := newJudgeOutput(c, format, j.Name())
				if err != nil {
					return err
				}
				if err := preflightJudge(c, j); err != nil {
					return err
				}
				return rescoreFolders(c, dir, folders, j, refs, out)
			case err != nil:
				return usageErr("%v", err)
			}
			if format != "text" {
				return usageErr("--format %s is for WebVoyager result folders and --answers-jsonl; a run directory's "+
					"verdicts are in DIR/verdicts-<judge>.jsonl (bench report --format json reads them)", format)
			}
			if err := preflightJudge(c, j); err != nil {
				return err
			}
			return rescoreRun(c, run, j, sf)
		},
	}
	sf.register(c)
	c.Flags().StringVar(&which, "judge", "llm", "judge: "+judgeList())
	judgeModelFlags(c, &opts)
	c.Flags().StringSliceVar(&agreement, "agreement", nil, "two judge names: print Cohen's κ and the confusion table")
	c.Flags().StringVar(&audit, "audit", "", "trusted verdicts (JSON Lines: attempt_id, pass) of some of DIR's attempts: copied to DIR/"+results.AuditFile+"; prints every judge's pass rates corrected for judge error")
	c.Flags().StringVar(&answersJSONL, "answers-jsonl", "", "judge the answers of this JSON Lines file (task_id, answer, optional run, id) instead of DIR")
	c.Flags().StringVar(&format, "format", "text", "output over folders or --answers-jsonl: text, json (one document), jsonl (a line per verdict, then the summary)")
	return c
}

// judgeModelFlags registers the llm judge's model block on c (--judge-model, --judge-base-url, --judge-key-env,
// --screenshots) into opts.
func judgeModelFlags(c *cobra.Command, opts *judge.Options) {
	c.Flags().StringVar(&opts.Model, "judge-model", "", "judge model openai:NAME")
	c.Flags().StringVar(&opts.BaseURL, "judge-base-url", "", "judge endpoint (OpenAI-compatible)")
	c.Flags().StringVar(&opts.KeyEnv, "judge-key-env", "OPENAI_API_KEY", "environment variable holding the judge's API key")
	c.Flags().IntVar(&opts.Screenshots, "screenshots", judge.DefaultScreenshots, "last k screenshots shown to the llm judge")
}

// judgeList names the registered judges for flag help and errors.
func judgeList() string { return strings.Join(judge.Names(), ", ") }

// rescoreRun judges every pass/fail attempt of the run directory dir again with j and writes
// dir/verdicts-<judge>.jsonl. The suite and its options (tasks file, answers, stale-dates policy) come from the
// run's manifest unless given as flags.
func rescoreRun(c *cobra.Command, run *results.Run, j judge.Judge, sf suiteFlags) error {
	plan := run.Manifest.Plan
	if !c.Flags().Changed("suite") {
		sf.suite = plan.Suite
	}
	opts := suites.Options{}
	maps.Copy(opts, plan.SuiteOptions)
	maps.Copy(opts, sf.options())
	s, err := suites.Open(sf.suite, opts)
	if err != nil {
		return usageErr("%v", err)
	}
	defer s.Close()
	res := run.Rejudge(c.Context(), j, s.Tasks())
	var stop error
	if res.Stop != nil {
		stop = judgeStop(j, res.Stop, fmt.Sprintf("after %s, kept in %s", results.Count(res.Judged, "verdict", "verdicts"), results.VerdictsPath(run.Dir, j.Name())))
	}
	path, err := results.WriteVerdicts(run.Dir, j.Name(), res.Verdicts)
	if err != nil {
		return withCode(exitInfra, err)
	}
	n := len(res.Verdicts)
	fmt.Fprintf(c.OutOrStdout(), "%s: %s judged by %s: %d pass, %d fail, %d uncertain, %s\n", path,
		results.Count(n, "attempt", "attempts"), j.Name(), res.Pass, n-res.Pass-res.Errors-res.Uncertain, res.Uncertain,
		results.Count(res.Errors, "judge error", "judge errors"))
	if hint := results.AllErrorsHint(j.Name(), res.Verdicts); hint != "" && stop == nil {
		fmt.Fprintln(c.ErrOrStderr(), "bench: "+hint)
	}
	return stop
}

// preflightJudge checks the judge's endpoint (judge.PreflightEndpoint) before anything is judged or written: an
// endpoint error of a class that stops runs stops bench judge with its exit code (2, 3), the server's message
// and the hint. Other errors are warned about: the attempts meet them as judge errors.
func preflightJudge(c *cobra.Command, j judge.Judge) error {
	fatal, err := judge.PreflightEndpoint(c.Context(), j)
	if fatal != nil {
		return judgeStop(j, fatal, "before any attempt was judged: nothing written")
	}
	if err != nil {
		fmt.Fprintf(c.ErrOrStderr(), "warning: the %s judge's preflight failed (%s); judging anyway\n", j.Name(),
			llm.RedactString(err.Error()))
	}
	return nil
}

// judgeStop is the error bench judge exits with when the judge's endpoint answered le: the class's exit code
// (config 2, auth and quota 3), the server's message and hint, and when it happened.
func judgeStop(j judge.Judge, le *llm.Error, when string) error {
	code := le.Class.ExitCode()
	if code == 0 {
		code = exitInfra
	}
	return &exitError{code, fmt.Errorf("the %s judge's endpoint: %s\nbench judge stopped %s; fix the judge's model "+
		"(--judge-model, --judge-base-url, --judge-key-env) or the account and re-run", j.Name(),
		llm.RedactString(le.Error()), when)}
}

// printAgreement prints Cohen's κ and the confusion table of judges a and b over the run directory dir, paired
// as bench report pairs them (analysis.PairJudges: the skipped attempts counted by why).
func printAgreement(c *cobra.Command, dir, a, b string) error {
	run, err := openRun(dir)
	if err != nil {
		return err
	}
	d, err := analysis.PairJudges(run, a, b)
	if err != nil {
		return usageErr("%v", err)
	}
	if d.N == 0 {
		return usageErr("no attempt has a verdict from both %s and %s (%s)", a, b, report.SkippedText(d))
	}
	t := report.AgreementTable(d)
	return t.Render(c.OutOrStdout())
}

// runAnswersJSONL is bench judge --answers-jsonl FILE: the judge, the references (--answers, --tasks-file: at
// least one) and the output format, then judgeAnswersJSONL.
func runAnswersJSONL(c *cobra.Command, which string, opts judge.Options, sf suiteFlags, path, format string) error {
	if err := srcerr.OneOf("judge", which, judge.Names()); err != nil {
		return usageErr("--judge: %v", err)
	}
	j, err := judge.New(which, opts)
	if err != nil {
		return usageErr("%v", err)
	}
	refs, err := loadFolderRefs(c, sf, which, "the answers of --answers-jsonl")
	if err != nil {
		return err
	}
	if refs == nil {
		return usageErr("--answers-jsonl needs --answers reference_answer.json or --tasks-file: the task ids are joined to them")
	}
	out, err := newJudgeOutput(c, format, j.Name())
	if err != nil {
		return err
	}
	if err := preflightJudge(c, j); err != nil {
		return err
	}
	return judgeAnswersJSONL(c, path, j, refs, out)
}

// recordAudit is bench judge DIR --audit FILE: the labels are checked against the run's attempts (an id the run
// does not have is a usage error naming it), written as DIR/audit.jsonl, and every judge's corrected pass rates
// printed (report.CorrectedTable).
func recordAudit(c *cobra.Command, dir, file string) error {
	run, err := openRun(dir)
	if err != nil {
		return err
	}
	labels, err := results.ReadAuditLabels(file)
	if err != nil {
		return usageErr("--audit: %v", err)
	}
	known := map[string]bool{}
	for _, a := range run.Final() {
		known[a.AttemptID] = true
	}
	var unknown []string
	for _, l := range labels {
		if !known[l.AttemptID] {
			unknown = append(unknown, l.AttemptID)
		}
	}
	if len(unknown) > 0 {
		return usageErr("--audit %s: %s not in %s: %s", file, results.Count(len(unknown), "attempt id is", "attempt ids are"),
			dir, strings.Join(unknown, ", "))
	}
	if len(labels) == 0 {
		return usageErr("--audit %s: no labels", file)
	}
	path, err := results.WriteAudit(dir, labels)
	if err != nil {
		return withCode(exitInfra, err)
	}
	js, err := analysis.AnalyzeJudges(run)
	if err != nil {
		return usageErr("%v", err)
	}
	fmt.Fprintf(c.OutOrStdout(), "%s: %s recorded\n", path, results.Count(len(labels), "trusted verdict", "trusted verdicts"))
	for _, jc := range js.Corrected {
		if err := report.CorrectedTable(jc).Render(c.OutOrStdout()); err != nil {
			return err
		}
	}
	return nil
}
