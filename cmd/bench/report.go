package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
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
	var o analysisOpts
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
			r, err := lookupRenderer(format, wide, c.OutOrStdout(), args[0], o.reportArgs())
			if err != nil {
				return err
			}
			run, err := openRun(args[0])
			if err != nil {
				return err
			}
			if err := checkJudge(run, o.judge); err != nil {
				return err
			}
			if run.Manifest.Plan.Ablation == nil {
				if err := renderRunReport(c, r, run, o.judge); err != nil || !withGate {
					return err
				}
				if err := completeGate(run); err != nil {
					return err
				}
				return infraGate(c, run) // bench run's own end gate
			}
			a, recs, err := analyzeRun(run, o)
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
	c.Flags().StringVar(&o.judge, "judge", "", "report the verdicts of this re-judge (bench judge) instead of the run's own")
	c.Flags().BoolVar(&o.bh, "bh", false, "ablation runs: also report Benjamini–Hochberg adjusted p-values")
	c.Flags().BoolVar(&withGate, "gate", false, "after the report, apply the run's gates: exit 3 when the run stopped or planned attempts have no record (a missing shard), exit 1 when an ablation's recorded fail_if_worse gate fails, exit 3 when more than 10% of the attempts are infrastructure errors")
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
func (o analysisOpts) reportArgs() []string {
	var args []string
	if o.judge != "" {
		args = append(args, "--judge", o.judge)
	}
	if o.bh {
		args = append(args, "--bh")
	}
	if o.cmh {
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
	js, err := judgesReport(run)
	if err != nil {
		return usageErr("%v", err)
	}
	rep := &report.RunReport{Dir: run.Dir, Arms: arms, Records: recs, Run: run}
	return withCode(exitInfra, renderRunWithJudges(c.OutOrStdout(), r, rep, js, uncertainBounds(arms)))
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
	// An ablation run re-judged, or with Zoo Q&A attempts, gets the judges part after its analysis (issue 12 item
	// 8): the text formats print its tables, JSON adds its keys; the HTML report does not carry it yet.
	var doc *judgesDoc
	if run != nil {
		d, err := judgesReport(run)
		if err != nil {
			return usageErr("%v", err)
		}
		if len(run.Judges()) > 0 || d.ZooQA != nil {
			doc = d
		}
	}
	md := isFormat(r, "md", "markdown")
	if doc != nil && isFormat(r, "json") {
		var buf bytes.Buffer
		if err := r.Ablation(&buf, rep); err != nil {
			return withCode(exitInfra, err)
		}
		out, err := appendJSONFields(buf.Bytes(), []jsonField{{"judges", doc.Judges}, {"judge_agreement", doc.Agreement},
			{"zoo_qa_ground_truth", doc.ZooQA}})
		if err != nil {
			return withCode(exitInfra, err)
		}
		_, err = c.OutOrStdout().Write(out)
		return withCode(exitInfra, err)
	}
	if err := r.Ablation(c.OutOrStdout(), rep); err != nil {
		return withCode(exitInfra, err)
	}
	if doc == nil || !md && !isFormat(r, "table") {
		return nil
	}
	tables, note := judgesTables(dir, doc)
	if !md && (len(tables) > 0 || note != "") {
		fmt.Fprintln(c.OutOrStdout()) // apart from the analysis above it
	}
	return withCode(exitInfra, writeJudgesPart(c.OutOrStdout(), r, tables, note))
}

// writeJudgesPart writes the judges part's tables and note in r's format: Markdown tables for md, else (table)
// the full tables with --wide (their titles and the note wrapped at the width), or tables and note fitted to the
// width (report.FitTable, report.WriteWrapped).
func writeJudgesPart(w io.Writer, r report.Renderer, tables []results.Table, note string) error {
	md := isFormat(r, "md", "markdown")
	opts := report.RenderOptions{Wide: true}
	if cr, ok := r.(report.Configurable); ok {
		opts = cr.Options()
	}
	for _, x := range tables {
		switch {
		case md:
			x.Markdown(w)
		case opts.Wide:
			// The table as wide as it needs, its title (prose) wrapped at the width.
			if x.Title != "" && opts.Width > 0 {
				report.WriteWrapped(w, x.Title, "", "  ", opts.Width)
				x.Title = ""
			}
			if err := x.Render(w); err != nil {
				return err
			}
		default:
			if err := report.FitTable(w, x, opts.Width); err != nil {
				return err
			}
		}
	}
	if note == "" {
		return nil
	}
	if md || opts.Width <= 0 {
		_, err := fmt.Fprintln(w, note)
		return err
	}
	report.WriteWrapped(w, note, "", "  ", opts.Width)
	return nil
}

// The judges part of a plain run's report (issue 12 item 8; review item S2): every judge's verdicts over the
// run (the run's own, results.OriginalJudge, and each re-judge's verdicts-<judge>.jsonl), Cohen's κ between
// every two of them, the answer judge against the state judge as ground truth on Zoo Q&A attempts, and the
// bounds of every pass rate with uncertain attempts.

// passBounds is a pass rate over the decided (pass or fail) attempts and its bounds with the uncertain ones,
// left out of it, counted as fails (lower) and as passes (upper). Uncertain verdicts are not missing at random
// (the answer judge doubts some kinds of answer more than others), so the rate alone may be biased; the truth
// over the decided and uncertain attempts lies between the bounds. Each is null when its denominator is 0.
type passBounds struct {
	Rate              *float64 `json:"rate"`
	RateUncertainFail *float64 `json:"rate_uncertain_as_fail"`
	RateUncertainPass *float64 `json:"rate_uncertain_as_pass"`
}

func newPassBounds(passes, decided, uncertain int) passBounds {
	ratio := func(k, n int) *float64 {
		if n == 0 {
			return nil
		}
		x := float64(k) / float64(n)
		return &x
	}
	return passBounds{Rate: ratio(passes, decided), RateUncertainFail: ratio(passes, decided+uncertain),
		RateUncertainPass: ratio(passes+uncertain, decided+uncertain)}
}

// boundedRate is a pass-rate cell's suffix for uncertain attempts: " (N decided of M: lo–hi%)", "" when none.
func boundedRate(passes, decided, uncertain int) string {
	if uncertain == 0 {
		return ""
	}
	b := newPassBounds(passes, decided, uncertain)
	return fmt.Sprintf(" (%d decided of %d: %.1f–%.1f%%)", decided, decided+uncertain, 100**b.RateUncertainFail,
		100**b.RateUncertainPass)
}

// variantBounds is a variant's pass rate with its uncertain attempts' bounds (JSON uncertain_bounds).
type variantBounds struct {
	Variant   string `json:"variant"`
	Decided   int    `json:"decided"`
	Uncertain int    `json:"uncertain"`
	Passes    int    `json:"passes"`
	passBounds
}

// uncertainBounds is the variantBounds of every arm, in order.
func uncertainBounds(arms []analysis.Arm) []variantBounds {
	out := make([]variantBounds, 0, len(arms))
	for _, a := range arms {
		u := a.ErrorsByClass[string(results.ClassUncertain)]
		out = append(out, variantBounds{Variant: a.Name, Decided: a.N, Uncertain: u, Passes: a.Passes,
			passBounds: newPassBounds(a.Passes, a.N, u)})
	}
	return out
}

// verdictCounts counts one judge's verdicts over the run's attempts (JSON judges): Attempts those it has a
// verdict for, Decided those it passed or failed, JudgeErrors those it could not judge.
type verdictCounts struct {
	Judge string `json:"judge"`
	// JudgedBy counts the run's own verdicts by the judge that gave them ("answer", "state", "state+answer"), for
	// results.OriginalJudge only: the run's own judge differs by task (runner.Judge).
	JudgedBy    map[string]int `json:"judged_by,omitempty"`
	Attempts    int            `json:"attempts"`
	Decided     int            `json:"decided"`
	Passes      int            `json:"passes"`
	Uncertain   int            `json:"uncertain"`
	JudgeErrors int            `json:"judge_errors"`
	passBounds
}

// agreementDoc is two judges' agreement (JSON judge_agreement): judge.CompareJudges over the attempts both
// decided (judge.PairVerdicts), its confusion table cell by cell, and the attempts skipped and why.
type agreementDoc struct {
	JudgeA string `json:"judge_a"`
	JudgeB string `json:"judge_b"`
	judge.Agreement
	BothPass   int `json:"both_pass"`
	APassBFail int `json:"a_pass_b_fail"`
	AFailBPass int `json:"a_fail_b_pass"`
	BothFail   int `json:"both_fail"`
	// Skipped = SkippedMissingA (a verdict of judge B only) + SkippedMissingB (of judge A only) +
	// SkippedUncertain + SkippedJudgeError.
	Skipped           int `json:"skipped"`
	SkippedMissingA   int `json:"skipped_missing_a"`
	SkippedMissingB   int `json:"skipped_missing_b"`
	SkippedUncertain  int `json:"skipped_uncertain"`
	SkippedJudgeError int `json:"skipped_judge_error"`
}

func newAgreementDoc(a, b string, p judge.Paired) agreementDoc {
	ag := judge.CompareJudges(p.A, p.B)
	t := ag.Table
	return agreementDoc{JudgeA: a, JudgeB: b, Agreement: ag, BothPass: t[0][0], APassBFail: t[0][1], AFailBPass: t[1][0],
		BothFail: t[1][1], Skipped: p.Skipped(), SkippedMissingA: p.MissingA, SkippedMissingB: p.MissingB,
		SkippedUncertain: p.Uncertain, SkippedJudgeError: p.Errors}
}

// groundTruthDoc is the answer judge (judge_a) against the state judge (judge_b) as ground truth on the run's
// Zoo Q&A attempts (JSON zoo_qa_ground_truth): FalsePass the attempts the answer judge passed and the state
// judge failed, FalseFail the converse. Attempts counts the Zoo Q&A attempts; MissingVerdicts names the judges
// of the two with neither a verdicts file (bench judge DIR --judge NAME writes it) nor the run's own verdicts of
// that judge (judge.Verdict.Parts, which runs write since issue 12), and then nothing is compared. Source says
// where each judge's verdicts come from ("answer: verdicts-answer.jsonl" — a re-judge wins — or "state: the
// run's own verdicts"). The state judge is ground truth because a Zoo Q&A task's check.state holds the value the
// agent entered in the app; a disagreement is the answer judge misreading the agent's reply, or the reply
// contradicting the value entered.
type groundTruthDoc struct {
	GroundTruth     string   `json:"ground_truth"`
	Attempts        int      `json:"attempts"`
	MissingVerdicts []string `json:"missing_verdicts"`
	Source          []string `json:"source"`
	// FalsePassIDs and FalseFailIDs are the attempt ids of the disagreements (bench report's table lists them);
	// BothFailNoAnswer counts the agreements that are attempts which ended without an answer (both judges fail
	// them without reading a reply, so they raise κ without testing the answer judge).
	FalsePassIDs     []string `json:"false_pass_ids"`
	FalseFailIDs     []string `json:"false_fail_ids"`
	BothFailNoAnswer int      `json:"both_fail_no_answer"`
	FalsePass        int      `json:"false_pass"`
	FalseFail        int      `json:"false_fail"`
	agreementDoc
}

// judgesDoc is the judges part of the report.
type judgesDoc struct {
	Judges    []verdictCounts `json:"judges"`
	Agreement []agreementDoc  `json:"judge_agreement"`
	ZooQA     *groundTruthDoc `json:"zoo_qa_ground_truth"`
}

// judgeOutcomes returns the verdicts of judge name over run by attempt id, as the report counts them: for
// results.OriginalJudge every final record a judge saw (pass, fail, uncertain, or a judge error); for a re-judge
// the attempts it re-scored (the run's judged records with a verdict in verdicts-<name>.jsonl), each as
// (*results.Run).Attempts applies it (an uncertain verdict on an attempt that never answered is a fail).
func judgeOutcomes(run *results.Run, name string) (map[string]judge.Verdict, error) {
	final := run.Final()
	recs := final
	var rescored map[string]judge.Verdict
	if name != results.OriginalJudge {
		var err error
		if recs, err = run.Attempts(name); err != nil {
			return nil, err
		}
		rescored, _ = run.Verdicts(name)
	}
	out := map[string]judge.Verdict{}
	for i, a := range recs {
		if rescored != nil {
			if _, ok := rescored[a.AttemptID]; !ok || !final[i].Judged() {
				continue
			}
		} else if !a.Judged() && !(a.Status == results.StatusError && a.ErrorClass == results.ClassJudge) {
			continue
		}
		v := judge.Verdict{Judge: name, Pass: a.Status == results.StatusPass, Uncertain: a.ErrorClass == results.ClassUncertain,
			Reason: a.Verdict.Reason}
		if a.ErrorClass == results.ClassJudge {
			v.Error = cmp.Or(a.Verdict.Error, a.Error, "judge error")
		}
		out[a.AttemptID] = v
	}
	return out, nil
}

// isZooQA reports whether a is an attempt of a Zoo Q&A task: one with a state check and an answer rule, which
// the run's own judge (runner.Judge) judged by both, the state judge first (verdict judge "state+answer").
func isZooQA(a results.Attempt) bool { return a.Suite == "zoo" && a.Verdict.Judge == "state+answer" }

// judgesReport builds the judges part of run's report.
func judgesReport(run *results.Run) (*judgesDoc, error) {
	names := append([]string{results.OriginalJudge}, run.Judges()...)
	outs := map[string]map[string]judge.Verdict{}
	doc := &judgesDoc{Agreement: []agreementDoc{}}
	for _, n := range names {
		vs, err := judgeOutcomes(run, n)
		if err != nil {
			return nil, err
		}
		outs[n] = vs
		vc := verdictCounts{Judge: n, Attempts: len(vs)}
		if n == results.OriginalJudge {
			vc.JudgedBy = map[string]int{}
			for _, a := range run.Final() {
				if _, ok := vs[a.AttemptID]; ok {
					vc.JudgedBy[cmp.Or(a.Verdict.Judge, "none")]++
				}
			}
		}
		for _, v := range vs {
			switch v.Outcome() {
			case "pass":
				vc.Passes++
				vc.Decided++
			case "fail":
				vc.Decided++
			case "uncertain":
				vc.Uncertain++
			default:
				vc.JudgeErrors++
			}
		}
		vc.passBounds = newPassBounds(vc.Passes, vc.Decided, vc.Uncertain)
		doc.Judges = append(doc.Judges, vc)
	}
	for i, a := range names {
		for _, b := range names[i+1:] {
			doc.Agreement = append(doc.Agreement, newAgreementDoc(a, b, judge.PairVerdicts(outs[a], outs[b])))
		}
	}
	qa := map[string]bool{}
	// own holds the run's own state and answer verdicts of each Zoo Q&A attempt (the parts of its "state+answer"
	// verdict), used where no re-judge of that name exists.
	own := map[string]map[string]judge.Verdict{"state": {}, "answer": {}}
	for _, a := range run.Final() {
		if !isZooQA(a) {
			continue
		}
		qa[a.AttemptID] = true
		for _, p := range a.Verdict.Parts {
			if m := own[p.Judge]; m != nil {
				if p.Uncertain && results.UncertainIsFailure(a.FinishReason) {
					// As the run counted it: an uncertain verdict on an attempt that never answered is a fail.
					p.Uncertain, p.Reason = false, results.UncertainFailReason(a.FinishReason, p.Reason)
				}
				m[a.AttemptID] = p
			}
		}
	}
	if len(qa) == 0 {
		return doc, nil
	}
	gt := &groundTruthDoc{GroundTruth: "state", Attempts: len(qa), MissingVerdicts: []string{}, Source: []string{}}
	only := func(n string) map[string]judge.Verdict {
		vs, ok := outs[n]
		switch {
		case ok:
			gt.Source = append(gt.Source, n+": verdicts-"+n+".jsonl")
		case len(own[n]) > 0:
			vs, ok = own[n], true
			gt.Source = append(gt.Source, n+": "+ownVerdicts)
		default:
			gt.MissingVerdicts = append(gt.MissingVerdicts, n)
		}
		out := map[string]judge.Verdict{}
		for id, v := range vs {
			if qa[id] {
				out[id] = v
			}
		}
		return out
	}
	ans, st := only("answer"), only("state")
	pairs := judge.PairVerdicts(ans, st)
	gt.agreementDoc = newAgreementDoc("answer", "state", pairs)
	gt.FalsePassIDs, gt.FalseFailIDs = []string{}, []string{}
	noAnswer := map[string]bool{}
	for _, a := range run.Final() {
		if qa[a.AttemptID] && a.FinishReason != results.FinishAnswered {
			noAnswer[a.AttemptID] = true
		}
	}
	for i, id := range pairs.IDs {
		switch {
		case pairs.A[i] && !pairs.B[i]:
			gt.FalsePassIDs = append(gt.FalsePassIDs, id)
		case !pairs.A[i] && pairs.B[i]:
			gt.FalseFailIDs = append(gt.FalseFailIDs, id)
		case !pairs.A[i] && noAnswer[id]:
			gt.BothFailNoAnswer++
		}
	}
	if len(gt.MissingVerdicts) > 0 {
		gt.agreementDoc = newAgreementDoc("answer", "state", judge.Paired{})
		gt.FalsePassIDs, gt.FalseFailIDs, gt.BothFailNoAnswer = []string{}, []string{}, 0
	}
	gt.FalsePass, gt.FalseFail = gt.APassBFail, gt.AFailBPass
	doc.ZooQA = gt
	return doc, nil
}

// kappaText is κ for a title: "0.400 (SE 0.130)", or why it is undefined.
func kappaText(ag judge.Agreement) string {
	switch {
	case ag.N == 0:
		return "undefined (no attempt decided by both)"
	case ag.Kappa == nil:
		return "undefined (a judge gave the same verdict every time)"
	}
	return fmt.Sprintf("%.3f (SE %.3f)", *ag.Kappa, *ag.SE)
}

// ownVerdicts names, in the Zoo Q&A ground truth's sources (JSON source), verdicts read from the run's records
// rather than from a re-judge's verdicts file.
const ownVerdicts = "the run's own verdicts"

// skippedText says how many attempts an agreement skipped and why.
func skippedText(d agreementDoc) string {
	return fmt.Sprintf("%d skipped: %d missing a verdict, %d uncertain, %s", d.Skipped,
		d.SkippedMissingA+d.SkippedMissingB, d.SkippedUncertain, results.Count(d.SkippedJudgeError, "judge error", "judge errors"))
}

// agreementTable is the confusion table of d: rows judge A (labelled a), columns judge B (labelled b).
func agreementTable(title, a, b string, d agreementDoc) results.Table {
	return results.Table{Title: title, Header: []string{"", b + " pass", b + " fail"},
		Rows: [][]string{{a + " pass", fmt.Sprint(d.BothPass), fmt.Sprint(d.APassBFail)},
			{a + " fail", fmt.Sprint(d.AFailBPass), fmt.Sprint(d.BothFail)}}}
}

// judgesTables are the text tables of doc: the verdicts by judge and every agreement when the run has more than
// one judge's verdicts, and the Zoo Q&A ground-truth comparison when it has Zoo Q&A attempts; note is printed
// after them: the line said instead of that table when its verdicts are missing, or the attempt ids of its false
// passes and false fails.
func judgesTables(dir string, doc *judgesDoc) (tables []results.Table, note string) {
	if len(doc.Judges) > 1 {
		t := results.Table{Title: "verdicts by judge (an uncertain verdict is neither pass nor fail: the bounds count the " +
			"uncertain as fails / as passes)", Header: []string{"judge", "attempts", "pass rate", "uncertain", "judge errors"}}
		for _, j := range doc.Judges {
			rate := "0/0 = n/a"
			if j.Rate != nil {
				rate = fmt.Sprintf("%d/%d = %.1f%%", j.Passes, j.Decided, 100**j.Rate)
			}
			name := j.Judge
			if len(j.JudgedBy) > 0 {
				var by []string
				for _, k := range slices.Sorted(maps.Keys(j.JudgedBy)) {
					by = append(by, fmt.Sprintf("%s %d", k, j.JudgedBy[k]))
				}
				name += " (" + strings.Join(by, ", ") + ")"
			}
			t.Rows = append(t.Rows, []string{name, fmt.Sprint(j.Attempts), rate + boundedRate(j.Passes, j.Decided, j.Uncertain),
				fmt.Sprint(j.Uncertain), fmt.Sprint(j.JudgeErrors)})
		}
		tables = append(tables, t)
	}
	for _, d := range doc.Agreement {
		tables = append(tables, agreementTable(fmt.Sprintf("agreement %s vs %s over %s (%s); Cohen's κ = %s",
			d.JudgeA, d.JudgeB, results.Count(d.N, "attempt", "attempts"), skippedText(d), kappaText(d.Agreement)), d.JudgeA, d.JudgeB, d))
	}
	if gt := doc.ZooQA; gt != nil {
		head := "answer judge vs state judge (ground truth) on Zoo Q&A: " + results.Count(gt.Attempts, "attempt", "attempts")
		if len(gt.MissingVerdicts) > 0 {
			var cmds []string
			for _, n := range gt.MissingVerdicts {
				cmds = append(cmds, fmt.Sprintf("bench judge %s --judge %s", dir, n))
			}
			return tables, fmt.Sprintf("%s; no verdicts of %s yet: run %s", head, strings.Join(gt.MissingVerdicts, ", "),
				strings.Join(cmds, " and "))
		}
		source := strings.Join(gt.Source, "; ")
		if len(gt.Source) == 2 && gt.Source[0] == "answer: "+ownVerdicts && gt.Source[1] == "state: "+ownVerdicts {
			source = "both judges: " + ownVerdicts
		}
		tables = append(tables, agreementTable(fmt.Sprintf("%s (%s), %d compared (%s); Cohen's κ = %s; %s "+
			"(answer pass, state fail), %s (answer fail, state pass); %d of the both-fail never answered",
			head, source, gt.N, skippedText(gt.agreementDoc), kappaText(gt.Agreement),
			results.Count(gt.FalsePass, "false pass", "false passes"), results.Count(gt.FalseFail, "false fail", "false fails"),
			gt.BothFailNoAnswer), "answer", "state", gt.agreementDoc))
		for _, l := range []struct {
			what string
			ids  []string
		}{{"false passes", gt.FalsePassIDs}, {"false fails", gt.FalseFailIDs}} {
			if len(l.ids) > 0 {
				note += fmt.Sprintf("Zoo Q&A %s (answer judge vs state judge): %s\n", l.what, strings.Join(l.ids, ", "))
			}
		}
		note = strings.TrimSuffix(note, "\n")
	}
	return tables, note
}

// isFormat reports whether r is the renderer of one of the formats names.
func isFormat(r report.Renderer, names ...string) bool {
	for _, n := range names {
		if x, err := report.LookupRenderer(n); err == nil && reflect.TypeOf(x) == reflect.TypeOf(r) {
			return true
		}
	}
	return false
}

// renderRunWithJudges renders the plain run's report rep with r and adds the judges part doc and the variants'
// uncertain bounds vb: the table and Markdown formats print the variants table with every pass rate of a
// variant with uncertain attempts followed by "(N decided of M: lo–hi%)", then judgesTables; the JSON format
// adds the top-level keys uncertain_bounds, judges, judge_agreement and zoo_qa_ground_truth to its document;
// other formats (html) render as they do.
func renderRunWithJudges(w io.Writer, r report.Renderer, rep *report.RunReport, doc *judgesDoc, vb []variantBounds) error {
	md := isFormat(r, "md", "markdown")
	switch {
	case md || isFormat(r, "table"):
		t := report.RunTable(rep.Arms)
		col := slices.Index(t.Header, "pass rate [Wilson 95%]")
		for i := range t.Rows {
			if col >= 0 && i < len(vb) {
				t.Rows[i][col] += boundedRate(vb[i].Passes, vb[i].Decided, vb[i].Uncertain)
			}
		}
		tables, note := judgesTables(rep.Dir, doc)
		return writeJudgesPart(w, r, append([]results.Table{t}, tables...), note)
	case isFormat(r, "json"):
		var buf bytes.Buffer
		if err := r.Run(&buf, rep); err != nil {
			return err
		}
		out, err := appendJSONFields(buf.Bytes(), []jsonField{{"uncertain_bounds", vb}, {"judges", doc.Judges},
			{"judge_agreement", doc.Agreement}, {"zoo_qa_ground_truth", doc.ZooQA}})
		if err != nil {
			return err
		}
		_, err = w.Write(out)
		return err
	}
	return r.Run(w, rep)
}

// jsonField is a top-level key and value appendJSONFields adds.
type jsonField struct {
	key string
	val any
}

// appendJSONFields adds fields to the end of the indented JSON object doc (the json renderer's document, two
// spaces an indent level), in order, indented alike.
func appendJSONFields(doc []byte, fields []jsonField) ([]byte, error) {
	t := bytes.TrimRight(doc, " \t\r\n")
	if !bytes.HasSuffix(t, []byte("}")) {
		return nil, fmt.Errorf("report JSON: not an object")
	}
	var b bytes.Buffer
	b.Write(bytes.TrimRight(t[:len(t)-1], " \t\r\n"))
	for _, f := range fields {
		v, err := json.MarshalIndent(f.val, "  ", "  ")
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, ",\n  %q: %s", f.key, v)
	}
	b.WriteString("\n}\n")
	if !json.Valid(b.Bytes()) {
		return nil, fmt.Errorf("report JSON: invalid after adding the judges")
	}
	return b.Bytes(), nil
}
