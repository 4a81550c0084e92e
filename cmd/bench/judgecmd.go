package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"webbench/analysis"
	"webbench/judge"
	"webbench/llm"
	"webbench/report"
	"webbench/results"
	"webbench/suites"
	"webbench/suites/webvoyager"
)

func init() { extraCommands = append(extraCommands, judgeCmd) }

func judgeCmd() *cobra.Command {
	var which string
	var opts judge.Options
	var agreement []string
	var sf suiteFlags
	c := &cobra.Command{
		Use:   "judge DIR",
		Short: "Re-score existing attempts (a run directory, or WebVoyager result folders) without re-running",
		Long: "DIR is a run directory: every final attempt is judged again by --judge and the verdicts are written to\n" +
			"DIR/verdicts-<judge>.jsonl beside the original ones. Or DIR holds WebVoyager result folders (task*/ with\n" +
			"interact_messages.json and screenshotN.png): each gets <folder>/verdict-<judge>.json, joined by task id\n" +
			"(taskAmazon--0 = Amazon--0) to --answers reference_answer.json and --tasks-file (question text; a GAIA-format\n" +
			"file's \"Final answer\" fields are answers too); a summary line counts pass, fail, uncertain and judge errors.\n" +
			"The answer judge says uncertain when the answer matched its rule but states other candidates; with\n" +
			"--judge-model the llm judge decides those.\n" +
			"--agreement A B prints Cohen's κ and the confusion table between two judges' verdicts in DIR ('original'\n" +
			"names the verdicts recorded during the run).\n" +
			"The llm judge has its own model block: --judge-model openai:NAME --judge-base-url URL, key from\n" +
			"--judge-key-env (default OPENAI_API_KEY).",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			dir := args[0]
			if len(agreement) > 0 {
				if len(agreement) != 2 {
					return usageErr("--agreement takes two judge names")
				}
				return printAgreement(c, dir, agreement[0], agreement[1])
			}
			if which == results.OriginalJudge {
				return usageErr("--judge %s names the verdicts recorded during the run; choose one of %s", which, judgeList())
			}
			if !slices.Contains(judge.Names(), which) {
				return usageErr("--judge %q: expected one of %s", which, judgeList())
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
				refs, err := loadFolderRefs(c, sf, which)
				if err != nil {
					return err
				}
				if err := preflightJudge(c, j); err != nil {
					return err
				}
				return rescoreFolders(c, folders, j, refs)
			case err != nil:
				return usageErr("%v", err)
			}
			if err := preflightJudge(c, j); err != nil {
				return err
			}
			return rescoreRun(c, run, j, sf)
		},
	}
	sf.register(c)
	c.Flags().StringVar(&which, "judge", "llm", "judge: "+judgeList())
	c.Flags().StringVar(&opts.Model, "judge-model", "", "judge model openai:NAME")
	c.Flags().StringVar(&opts.BaseURL, "judge-base-url", "", "judge endpoint (OpenAI-compatible)")
	c.Flags().StringVar(&opts.KeyEnv, "judge-key-env", "OPENAI_API_KEY", "environment variable holding the judge's API key")
	c.Flags().IntVar(&opts.Screenshots, "screenshots", judge.DefaultScreenshots, "last k screenshots shown to the llm judge")
	c.Flags().StringSliceVar(&agreement, "agreement", nil, "two judge names: print Cohen's κ and the confusion table")
	return c
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
	opts := sf.options()
	for k, v := range plan.SuiteOptions {
		if _, set := opts[k]; !set {
			opts[k] = v
		}
	}
	s, err := suites.Open(sf.suite, opts)
	if err != nil {
		return usageErr("%v", err)
	}
	defer s.Close()
	tasks := map[string]suites.Task{}
	for _, t := range s.Tasks() {
		tasks[t.ID] = t
	}
	var out []results.VerdictRecord
	pass, errs, unsure := 0, 0, 0
	var stop error
	for _, r := range run.Final() {
		t, ok := tasks[r.TaskID]
		if !ok || !r.Judged() {
			continue
		}
		v, fatal := judgeAttempt(c, run, r, t, j)
		if fatal != nil {
			stop = judgeStop(j, fatal, fmt.Sprintf("after %s, kept in %s", results.Count(len(out), "verdict", "verdicts"), results.VerdictsPath(run.Dir, j.Name())))
			break
		}
		switch v.Outcome() {
		case "error":
			errs++
		case "uncertain":
			unsure++
		case "pass":
			pass++
		}
		out = append(out, results.VerdictRecord{AttemptID: r.AttemptID, TaskID: r.TaskID, Variant: r.Variant, Verdict: v})
	}
	if stop != nil {
		// A fatal stop part-way keeps the verdicts an earlier bench judge wrote for the attempts not reached.
		seen := map[string]bool{}
		for _, v := range out {
			seen[v.AttemptID] = true
		}
		for _, v := range run.VerdictRecords(j.Name()) {
			if !seen[v.AttemptID] {
				out = append(out, v)
			}
		}
	}
	path, err := results.WriteVerdicts(run.Dir, j.Name(), out)
	if err != nil {
		return withCode(exitInfra, err)
	}
	n := len(out)
	fmt.Fprintf(c.OutOrStdout(), "%s: %s judged by %s: %d pass, %d fail, %d uncertain, %s\n", path,
		results.Count(n, "attempt", "attempts"), j.Name(), pass, n-pass-errs-unsure, unsure, results.Count(errs, "judge error", "judge errors"))
	if hint := allErrorsHint(j.Name(), out); hint != "" && stop == nil {
		fmt.Fprintln(c.ErrOrStderr(), "bench: "+hint)
	}
	return stop
}

// allErrorsHint says, when every verdict of out is the same judge error, that no attempt was judged and why
// ("every verdict is the judge error "task has no state check": no task of this run has one; the state judge
// grades only tasks with check.state"); "" otherwise.
func allErrorsHint(name string, out []results.VerdictRecord) string {
	if len(out) == 0 {
		return ""
	}
	msg := out[0].Verdict.Error
	for _, v := range out {
		if v.Verdict.Error == "" || v.Verdict.Error != msg {
			return ""
		}
	}
	hint := fmt.Sprintf("every one of the %d verdicts is the judge error %q: the %s judge decided no attempt", len(out), msg, name)
	switch msg {
	case "task has no state check":
		hint += "; no task of this run has a state check (check.state: the Zoo's action tasks), so judge it with --judge answer or llm"
	case "task has no answer rule":
		hint += "; no task of this run has an answer rule (check.answer), so judge it with --judge state or llm"
	}
	return hint
}

// judgePreflightTimeout bounds the judge's preflight (its retries of rate limits and infrastructure errors
// included).
const judgePreflightTimeout = 60 * time.Second

// preflightJudge checks the judge's endpoint (judge.Preflighter) before anything is judged or written: an
// endpoint error of a class that stops runs (config: a mistyped model name, a base URL without /v1; auth; quota)
// stops bench judge with its exit code (2, 3), the server's message and the hint. Other errors (unreachable,
// rate limited after retries) are warned about: the attempts meet them as judge errors.
func preflightJudge(c *cobra.Command, j judge.Judge) error {
	p, ok := j.(judge.Preflighter)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(c.Context(), judgePreflightTimeout)
	defer cancel()
	err := p.Preflight(ctx)
	if err == nil {
		return nil
	}
	if le := fatalEndpointError(err); le != nil {
		return judgeStop(j, le, "before any attempt was judged: nothing written")
	}
	fmt.Fprintf(c.ErrOrStderr(), "warning: the %s judge's preflight failed (%s); judging anyway\n", j.Name(),
		llm.RedactString(err.Error()))
	return nil
}

// fatalEndpointError is err's *llm.Error when its class stops runs (llm.ErrorClass.Fatal), else nil.
func fatalEndpointError(err error) *llm.Error {
	var le *llm.Error
	if errors.As(err, &le) && le.Class.Fatal() {
		return le
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

// judgeAttempt judges one recorded attempt with j, from its final answer, its trajectory's final state and its
// kept screenshots. A judge failure is a verdict with Error (redacted), except an endpoint error of a class that
// stops runs (fatal: no verdict).
func judgeAttempt(c *cobra.Command, run *results.Run, r results.Attempt, t suites.Task, j judge.Judge) (judge.Verdict, *llm.Error) {
	in := judge.Input{Task: t, Final: r.Final, OK: r.OK}
	if tr, err := run.Trajectory(r.AttemptID); err == nil {
		in.State = tr.State
		for _, p := range run.ScreenshotFiles(tr) {
			if b, err := os.ReadFile(p); err == nil {
				in.Screenshots = append(in.Screenshots, b)
			}
		}
	}
	v, err := j.Judge(c.Context(), in)
	if le := fatalEndpointError(err); le != nil {
		return v, le
	}
	if err != nil {
		v = judge.Verdict{Judge: j.Name(), Error: llm.RedactString(err.Error())}
	}
	return v, nil
}

// folderRefs are the tasks bench judge joins to WebVoyager result folders by task id ("Amazon--0" for the folder
// taskAmazon--0): their answer rules (--answers, or a GAIA --tasks-file's "Final answer") and question text
// (--tasks-file).
type folderRefs struct {
	tasks map[string]suites.Task
	// names are the files' base names ("reference_answer.json or WebVoyager_data.jsonl"), for messages.
	names string
}

// loadFolderRefs reads --answers (WebVoyager reference_answer.json) and --tasks-file (WebVoyager or GAIA-format
// JSONL) for judging result folders; nil when neither is given. A file that is missing or unreadable is a usage
// error (exit 2) naming it; so is --suite other than webvoyager, and --judge answer with neither file (the
// folders hold no reference answer) or with only a tasks file that gives no answer (not GAIA format).
func loadFolderRefs(c *cobra.Command, sf suiteFlags, which string) (*folderRefs, error) {
	if c.Flags().Changed("suite") && sf.suite != webvoyager.Name {
		return nil, usageErr("--suite %s: WebVoyager result folders are judged as the %s suite", sf.suite, webvoyager.Name)
	}
	if sf.answers == "" && sf.tasksFile == "" {
		if which == "answer" {
			return nil, usageErr("--judge answer on WebVoyager result folders needs --answers reference_answer.json " +
				"(or a GAIA-format --tasks-file with \"Final answer\" fields): the folders hold no reference answer")
		}
		return nil, nil
	}
	refs := &folderRefs{tasks: map[string]suites.Task{}}
	var answers []webvoyager.RefAnswer
	var files []string
	if sf.answers != "" {
		a, err := webvoyager.ReadAnswersFile(sf.answers)
		if err != nil {
			return nil, usageErr("--answers %s: %v", sf.answers, err)
		}
		answers = a
		files = append(files, sf.answers)
	}
	if sf.tasksFile != "" {
		raws, err := webvoyager.ReadTasksFile(sf.tasksFile)
		if err != nil {
			return nil, usageErr("--tasks-file %s: %v", sf.tasksFile, err)
		}
		ts, _ := webvoyager.Join(raws, answers)
		rules := 0
		for _, t := range ts {
			refs.tasks[t.ID] = t
			if t.Check.Answer != nil {
				rules++
			}
		}
		if which == "answer" && sf.answers == "" && rules == 0 {
			return nil, usageErr("--tasks-file %s gives no task an answer (no \"Final answer\" field: not GAIA format): "+
				"--judge answer on WebVoyager result folders needs --answers reference_answer.json", sf.tasksFile)
		}
		files = append(files, sf.tasksFile)
	}
	for _, a := range answers {
		if _, ok := refs.tasks[a.Key()]; !ok {
			rule := webvoyager.AnswerRuleFor(a)
			refs.tasks[a.Key()] = suites.Task{ID: a.Key(), Check: suites.Check{Answer: &rule}}
		}
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	refs.names = strings.Join(names, " or ")
	return refs, nil
}

// findFolders lists the WebVoyager result folders of dir (dir itself when it holds interact_messages.json, else
// its subdirectories that do), sorted; none is a usage error. skipped are the subdirectories named like a result
// folder (task<Site>--<N>) without interact_messages.json, for the caller to warn about.
func findFolders(dir string) (folders, skipped []string, err error) {
	if _, err := os.Stat(filepath.Join(dir, "interact_messages.json")); err == nil {
		folders = []string{dir}
	} else {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, nil, usageErr("%v", err)
		}
		for _, e := range ents {
			if e.IsDir() {
				if _, err := os.Stat(filepath.Join(dir, e.Name(), "interact_messages.json")); err == nil {
					folders = append(folders, filepath.Join(dir, e.Name()))
				} else if strings.HasPrefix(e.Name(), "task") && strings.Contains(e.Name(), "--") {
					skipped = append(skipped, filepath.Join(dir, e.Name()))
				}
			}
		}
	}
	if len(folders) == 0 {
		return nil, nil, usageErr("%s: neither a run directory (%s) nor WebVoyager result folders (interact_messages.json)", dir, results.ManifestFile)
	}
	sort.Strings(folders)
	return folders, skipped, nil
}

// rescoreFolders judges the WebVoyager result folders with j, joined to refs (when given: the task's answer rule,
// and its question from a tasks file), writes <folder>/verdict-<judge>.json, prints a line per folder and a
// summary: judged, pass, fail, uncertain, judge errors.
func rescoreFolders(c *cobra.Command, folders []string, j judge.Judge, refs *folderRefs) error {
	counts := map[string]int{}
	for _, fd := range folders {
		in, err := judge.LoadWebVoyagerFolder(fd)
		unreadable := errors.Is(err, judge.ErrUnreadableAnswer)
		noTask := errors.Is(err, judge.ErrNoTaskText)
		if err != nil && !unreadable && !noTask {
			return usageErr("%v", err)
		}
		joined := false
		if refs != nil {
			if t, ok := refs.tasks[in.Task.ID]; ok {
				joined = true
				in.Task.Check = t.Check
				if t.Goal != "" {
					in.Task.Goal = t.Goal
					noTask = false // the tasks file gives the question the folder lacks (an unreadable answer stays one)
				}
			}
		}
		var v judge.Verdict
		switch {
		case noTask:
			// No question to judge against: a judge error for this folder, the others are still judged.
			v = judge.Verdict{Judge: j.Name(), Error: fmt.Sprintf("no question: no --tasks-file gives task %s, "+
				"and interact_messages.json has no user message \"Now given a task: …\"", in.Task.ID)}
		case unreadable:
			// The folder's answer cannot be told apart from the rest of its last message: a judge error, not a
			// fail of an agent that may have answered.
			msg := err.Error()
			if je, ok := err.(interface{ Unwrap() []error }); ok { // also no task text: the answer's error only
				for _, e := range je.Unwrap() {
					if errors.Is(e, judge.ErrUnreadableAnswer) {
						msg = e.Error()
					}
				}
			}
			v = judge.Verdict{Judge: j.Name(), Error: msg}
		default:
			v, err = j.Judge(c.Context(), in)
			if le := fatalEndpointError(err); le != nil {
				return judgeStop(j, le, "at "+fd+" (the verdicts of the folders before it are written)")
			}
			if err != nil {
				v = judge.Verdict{Judge: j.Name(), Error: llm.RedactString(err.Error())}
			}
		}
		if refs != nil && !joined && v.Error != "" {
			// First, so the printed line (cut at 160 characters) shows it.
			v.Error = fmt.Sprintf("no task %s in %s: %s", in.Task.ID, refs.names, v.Error)
		}
		counts[v.Outcome()]++
		out, err := results.WriteFolderVerdict(fd, j.Name(), results.FolderVerdict{Task: in.Task.Goal, Answer: in.Final,
			Screenshots: len(in.Screenshots), Verdict: v})
		if err != nil {
			return withCode(exitInfra, err)
		}
		status := v.Outcome()
		if status == "error" {
			status = "judge error"
		}
		fmt.Fprintf(c.OutOrStdout(), "%s: %s (%s)\n", out, status, firstLine(v.Reason+v.Error))
	}
	fmt.Fprintf(c.OutOrStdout(), "%s judged by %s: %d pass, %d fail, %d uncertain, %s\n",
		results.Count(len(folders), "folder", "folders"), j.Name(), counts["pass"], counts["fail"], counts["uncertain"],
		results.Count(counts["error"], "judge error", "judge errors"))
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
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
