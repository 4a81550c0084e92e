package main

// bench judge for scripts: answers from a JSON Lines file, a machine-readable summary, exit codes that say
// whether anything was graded.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"webbench/judge"
	"webbench/results"
	"webbench/srcerr"
	"webbench/suites/webvoyager"
)

// Exit codes of bench judge over result folders or --answers-jsonl, beside the CLI's own (exit.go): every
// answer was graded (pass, fail or uncertain) is 0.
const (
	// exitJudgeErrors: some answers were graded, others are judge errors (an unknown task id among them).
	exitJudgeErrors = 4
	// exitNothingGraded: no answer was graded: every one is a judge error, or there was none.
	exitNothingGraded = 5
)

// judgedAnswer is one verdict of bench judge's summary (--format json, jsonl): the answer's task, where it came
// from (run and id of an --answers-jsonl line, or the result folder and its run: the folder's parent relative
// to DIR), the outcome (pass, fail, uncertain, error) and why.
type judgedAnswer struct {
	Kind        string `json:"kind,omitempty"`
	TaskID      string `json:"task_id"`
	Run         string `json:"run,omitempty"`
	ID          string `json:"id,omitempty"`
	Folder      string `json:"folder,omitempty"`
	Answer      string `json:"answer"`
	Outcome     string `json:"outcome"`
	Reason      string `json:"reason,omitempty"`
	Error       string `json:"error,omitempty"`
	UnknownTask bool   `json:"unknown_task,omitempty"`
}

// judgeSummary counts bench judge's verdicts: graded = pass + fail + uncertain; judge_errors the rest
// (unknown_task_ids among them, each id once); exit_code the code bench judge exits with.
type judgeSummary struct {
	Kind           string   `json:"kind,omitempty"`
	Judge          string   `json:"judge"`
	Answers        int      `json:"answers"`
	Graded         int      `json:"graded"`
	Pass           int      `json:"pass"`
	Fail           int      `json:"fail"`
	Uncertain      int      `json:"uncertain"`
	JudgeErrors    int      `json:"judge_errors"`
	UnknownTaskIDs []string `json:"unknown_task_ids"`
	ExitCode       int      `json:"exit_code"`
}

// judgeOutput collects the verdicts of one bench judge and writes them in its format: text (a line per answer
// as it is judged, then the summary line), jsonl (a line per verdict as it is judged, "kind": "verdict", then
// the summary, "kind": "summary"), json (one document {"summary", "verdicts"} at the end).
type judgeOutput struct {
	format string
	w      io.Writer
	sum    judgeSummary
	all    []judgedAnswer
	seen   map[string]bool
}

func newJudgeOutput(c *cobra.Command, format, judgeName string) (*judgeOutput, error) {
	if err := srcerr.OneOf("format", format, []string{"text", "json", "jsonl"}); err != nil {
		return nil, usageErr("--format: %v", err)
	}
	return &judgeOutput{format: format, w: c.OutOrStdout(), sum: judgeSummary{Judge: judgeName, UnknownTaskIDs: []string{}},
		seen: map[string]bool{}}, nil
}

// add records one verdict; line is the text format's line for it.
func (o *judgeOutput) add(a judgedAnswer, line string) {
	o.sum.Answers++
	switch a.Outcome {
	case "pass":
		o.sum.Pass++
	case "fail":
		o.sum.Fail++
	case "uncertain":
		o.sum.Uncertain++
	default:
		o.sum.JudgeErrors++
	}
	if a.UnknownTask && !o.seen[a.TaskID] {
		o.seen[a.TaskID] = true
		o.sum.UnknownTaskIDs = append(o.sum.UnknownTaskIDs, a.TaskID)
	}
	switch o.format {
	case "text":
		fmt.Fprintln(o.w, line)
	case "jsonl":
		a.Kind = "verdict"
		b, _ := json.Marshal(a)
		fmt.Fprintln(o.w, string(b))
	default:
		o.all = append(o.all, a)
	}
}

// finish writes the summary (textLine for the text format) and returns the exit error: nil when every answer
// was graded, exitJudgeErrors when some are judge errors, exitNothingGraded when none was graded.
func (o *judgeOutput) finish(textLine string) error {
	s := &o.sum
	s.Graded = s.Pass + s.Fail + s.Uncertain
	sort.Strings(s.UnknownTaskIDs)
	switch {
	case s.Graded == 0:
		s.ExitCode = exitNothingGraded
	case s.JudgeErrors > 0:
		s.ExitCode = exitJudgeErrors
	}
	switch o.format {
	case "text":
		fmt.Fprintln(o.w, textLine)
	case "jsonl":
		s.Kind = "summary"
		b, _ := json.Marshal(s)
		fmt.Fprintln(o.w, string(b))
	default:
		if o.all == nil {
			o.all = []judgedAnswer{}
		}
		b, _ := json.MarshalIndent(struct {
			Summary  judgeSummary   `json:"summary"`
			Verdicts []judgedAnswer `json:"verdicts"`
		}{*s, o.all}, "", "  ")
		fmt.Fprintln(o.w, string(b))
	}
	if s.ExitCode == 0 {
		return nil
	}
	verb := "are judge errors"
	if s.JudgeErrors == 1 {
		verb = "is a judge error"
	}
	why := fmt.Sprintf("%d of %s %s", s.JudgeErrors, results.Count(s.Answers, "answer", "answers"), verb)
	if len(s.UnknownTaskIDs) > 0 {
		why += fmt.Sprintf(" (unknown task ids: %s)", strings.Join(s.UnknownTaskIDs, ", "))
	}
	if s.Graded == 0 {
		why = "nothing was graded: " + why
	}
	return &exitError{s.ExitCode, fmt.Errorf("%s", why)}
}

// outcomeText is a verdict's outcome as the text format words it.
func outcomeText(v judge.Verdict) string {
	if o := v.Outcome(); o != "error" {
		return o
	}
	return "judge error"
}

// answerLine is one line of an --answers-jsonl file: the task id, the answer, and optional labels of where it
// came from (run, id).
type answerLine struct {
	TaskID string `json:"task_id"`
	Answer string `json:"answer"`
	Run    string `json:"run"`
	ID     string `json:"id"`
}

// readAnswersJSONL reads an --answers-jsonl file; a line that is not such an object, or lacks task_id, is a
// usage error naming the file and line. Blank lines are skipped.
func readAnswersJSONL(path string) ([]answerLine, error) {
	out, err := results.ReadJSONL(path, `{"task_id", "answer", "run", "id"}`, func(_ int, a *answerLine) error {
		if strings.TrimSpace(a.TaskID) == "" {
			return errors.New("no task_id")
		}
		return nil
	})
	if err != nil {
		return nil, usageErr("--answers-jsonl: %v", err)
	}
	return out, nil
}

// judgeAnswersJSONL judges every line of the --answers-jsonl file path with j against refs (joined by task id,
// its letter case ignored): no files are written, the verdicts go to stdout in out's format.
func judgeAnswersJSONL(c *cobra.Command, path string, j judge.Judge, refs *webvoyager.References, out *judgeOutput) error {
	lines, err := readAnswersJSONL(path)
	if err != nil {
		return err
	}
	for _, l := range lines {
		a := judgedAnswer{TaskID: l.TaskID, Run: l.Run, ID: l.ID, Answer: l.Answer}
		t, ok := judge.LookupTask(refs.Tasks, strings.TrimPrefix(l.TaskID, "task"))
		var v judge.Verdict
		if !ok {
			a.UnknownTask = true
			v = judge.Verdict{Judge: j.Name(), Error: fmt.Sprintf("unknown task id %s: not in %s", l.TaskID, refs.Names)}
		} else {
			a.TaskID = t.ID
			v, err = j.Judge(c.Context(), judge.Input{Task: t, Final: l.Answer, OK: l.Answer != ""})
			if err != nil {
				return withCode(exitInfra, fmt.Errorf("%s: %v", l.TaskID, err))
			}
		}
		a.Outcome, a.Reason, a.Error = v.Outcome(), v.Reason, v.Error
		label := a.TaskID
		if l.Run != "" || l.ID != "" {
			label += " [" + strings.Trim(l.Run+" "+l.ID, " ") + "]"
		}
		out.add(a, fmt.Sprintf("%s: %s (%s)", label, outcomeText(v), firstLine(v.Reason+v.Error)))
	}
	s := out.sum
	return out.finish(fmt.Sprintf("%s judged by %s: %d pass, %d fail, %d uncertain, %s",
		results.Count(s.Answers, "answer", "answers"), j.Name(), s.Pass, s.Fail, s.Uncertain,
		results.Count(s.JudgeErrors, "judge error", "judge errors")))
}

// folderRun is the run a result folder belongs to: its parent's path relative to root ("" directly under it).
func folderRun(root, folder string) string {
	rel, err := filepath.Rel(root, filepath.Dir(folder))
	if err != nil || rel == "." {
		return ""
	}
	return filepath.ToSlash(rel)
}
