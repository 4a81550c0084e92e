package results

import (
	"context"
	"fmt"
	"os"

	"webbench/judge"
	"webbench/llm"
	"webbench/suites"
)

// Rejudged is one pass of a judge over a run's final attempts (Run.Rejudge).
type Rejudged struct {
	// Verdicts are the pass's verdicts in attempt order; after a Stop, followed by the verdicts an earlier pass
	// of the same judge wrote for the attempts not reached (so a fatal stop part-way keeps them).
	Verdicts []VerdictRecord
	// Judged counts the verdicts this pass gave; Pass, Uncertain and Errors count those with that outcome.
	Judged, Pass, Uncertain, Errors int
	// Stop is the endpoint error that stopped the pass (its class stops runs: llm.FatalError); nil when every
	// attempt was judged.
	Stop *llm.Error
}

// Rejudge judges every final pass/fail attempt of the run whose task is one of tasks (by id: the suite's) again
// with j, from its final answer, its trajectory's final state and its kept screenshots. A judge failure is a
// verdict with Error (redacted), except an endpoint error of a class that stops runs, which stops the pass
// (Rejudged.Stop).
func (r *Run) Rejudge(ctx context.Context, j judge.Judge, tasks []suites.Task) Rejudged {
	byID := make(map[string]suites.Task, len(tasks))
	for _, t := range tasks {
		byID[t.ID] = t
	}
	var res Rejudged
	for _, a := range r.Final() {
		t, ok := byID[a.TaskID]
		if !ok || !a.Judged() {
			continue
		}
		v, fatal := r.judgeAttempt(ctx, a, t, j)
		if fatal != nil {
			res.Stop = fatal
			break
		}
		switch v.Outcome() {
		case "error":
			res.Errors++
		case "uncertain":
			res.Uncertain++
		case "pass":
			res.Pass++
		}
		res.Verdicts = append(res.Verdicts, VerdictRecord{AttemptID: a.AttemptID, TaskID: a.TaskID, Variant: a.Variant, Verdict: v})
	}
	res.Judged = len(res.Verdicts)
	if res.Stop != nil {
		seen := map[string]bool{}
		for _, v := range res.Verdicts {
			seen[v.AttemptID] = true
		}
		for _, v := range r.VerdictRecords(j.Name()) {
			if !seen[v.AttemptID] {
				res.Verdicts = append(res.Verdicts, v)
			}
		}
	}
	return res
}

// judgeAttempt judges one recorded attempt a with j. fatal is an endpoint error of a class that stops runs
// (no verdict).
func (r *Run) judgeAttempt(ctx context.Context, a Attempt, t suites.Task, j judge.Judge) (judge.Verdict, *llm.Error) {
	in := judge.Input{Task: t, Final: a.Final, OK: a.OK}
	if tr, err := r.Trajectory(a.AttemptID); err == nil {
		in.State = tr.State
		for _, p := range r.ScreenshotFiles(tr) {
			if b, err := os.ReadFile(p); err == nil {
				in.Screenshots = append(in.Screenshots, b)
			}
		}
	}
	v, err := j.Judge(ctx, in)
	if le := llm.FatalError(err); le != nil {
		return v, le
	}
	if err != nil {
		v = judge.Verdict{Judge: j.Name(), Error: llm.RedactString(err.Error())}
	}
	return v, nil
}

// AllErrorsHint says, when every verdict of out is the same judge error, that the judge name decided no attempt
// and why ("every one of the 3 verdicts is the judge error "task has no state check": …; no task of this run
// has a state check …, so judge it with --judge answer or llm"); "" otherwise.
func AllErrorsHint(name string, out []VerdictRecord) string {
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

// FoldersRejudged counts one pass of a judge over WebVoyager result folders (RejudgeFolders): the verdicts
// written, by outcome (judge.Verdict.Outcome; Errors are judge errors).
type FoldersRejudged struct {
	Pass, Fail, Uncertain, Errors int
}

// A FolderError is why RejudgeFolders stopped at Folder: the judge's endpoint failed with a class that stops runs
// (Err holds the *llm.Error: llm.FatalError finds it), the folder could not be read, or its verdict could not be
// written (Write). Its message is Err's.
type FolderError struct {
	Folder string
	Write  bool
	Err    error
}

// Error is Err's message.
func (e *FolderError) Error() string { return e.Err.Error() }

// Unwrap is Err.
func (e *FolderError) Unwrap() error { return e.Err }

// RejudgeFolders judges each WebVoyager result folder of folders with j (judge.JudgeFolder, joined by task id to
// refs when not nil, refsNames naming their files), writes its verdict beside it (WriteFolderVerdict: the task's
// goal, the final answer, the screenshot count and the verdict) and calls done, when not nil, with the folder,
// the file written, what was judged and the verdict. It stops at the first folder that fails (a *FolderError), the verdicts of the folders
// before it written.
func RejudgeFolders(ctx context.Context, folders []string, j judge.Judge, refs map[string]suites.Task, refsNames string,
	done func(folder, path string, in judge.Input, v judge.Verdict)) (FoldersRejudged, error) {
	var res FoldersRejudged
	for _, fd := range folders {
		in, v, err := judge.JudgeFolder(ctx, fd, j, refs, refsNames)
		if err != nil {
			return res, &FolderError{Folder: fd, Err: err}
		}
		out, err := WriteFolderVerdict(fd, j.Name(), FolderVerdict{Task: in.Task.Goal, Answer: in.Final,
			Screenshots: len(in.Screenshots), Verdict: v})
		if err != nil {
			return res, &FolderError{Folder: fd, Write: true, Err: err}
		}
		switch v.Outcome() {
		case "pass":
			res.Pass++
		case "fail":
			res.Fail++
		case "uncertain":
			res.Uncertain++
		case "error":
			res.Errors++
		}
		if done != nil {
			done(fd, out, in, v)
		}
	}
	return res, nil
}
