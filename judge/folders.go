package judge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"webbench/llm"
	"webbench/suites"
)

// ErrNoFolders is FindWebVoyagerFolders' error when a directory is no result folder and holds none.
var ErrNoFolders = errors.New("no WebVoyager result folders")

// FindWebVoyagerFolders lists the WebVoyager result folders of dir (dir itself when it holds
// interact_messages.json, else its subdirectories that do), sorted; none is ErrNoFolders, an unreadable dir its
// os.ReadDir error. skipped are the subdirectories named like a result folder (task<Site>--<N>) without
// interact_messages.json, for the caller to warn about.
func FindWebVoyagerFolders(dir string) (folders, skipped []string, err error) {
	if _, err := os.Stat(filepath.Join(dir, "interact_messages.json")); err == nil {
		folders = []string{dir}
	} else {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, nil, err
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
		return nil, nil, ErrNoFolders
	}
	sort.Strings(folders)
	return folders, skipped, nil
}

// JudgeFolder judges the WebVoyager result folder dir with j, joined by task id to refs when given (nil:
// none; the task's answer rule, and its question from a tasks file; refsNames names their files in messages).
// A folder without a question, or whose answer cannot be read, gets a verdict with Error (the other folders are
// still judged); so does a judge failure (redacted). The error is the folder's read error, or the endpoint's
// *llm.Error when its class stops runs (llm.FatalError; no verdict).
func JudgeFolder(ctx context.Context, dir string, j Judge, refs map[string]suites.Task, refsNames string) (Input, Verdict, error) {
	in, err := LoadWebVoyagerFolder(dir)
	unreadable := errors.Is(err, ErrUnreadableAnswer)
	noTask := errors.Is(err, ErrNoTaskText)
	if err != nil && !unreadable && !noTask {
		return in, Verdict{}, err
	}
	joined := false
	if refs != nil {
		if t, ok := refs[in.Task.ID]; ok {
			joined = true
			in.Task.Check = t.Check
			if t.Goal != "" {
				in.Task.Goal = t.Goal
				noTask = false // the tasks file gives the question the folder lacks (an unreadable answer stays one)
			}
		}
	}
	var v Verdict
	switch {
	case noTask:
		// No question to judge against: a judge error for this folder, the others are still judged.
		v = Verdict{Judge: j.Name(), Error: fmt.Sprintf("no question: no --tasks-file gives task %s, "+
			"and interact_messages.json has no user message \"Now given a task: …\"", in.Task.ID)}
	case unreadable:
		// The folder's answer cannot be told apart from the rest of its last message: a judge error, not a
		// fail of an agent that may have answered.
		v = Verdict{Judge: j.Name(), Error: unreadableMessage(err)}
	default:
		v, err = j.Judge(ctx, in)
		if le := llm.FatalError(err); le != nil {
			return in, v, le
		}
		if err != nil {
			v = Verdict{Judge: j.Name(), Error: llm.RedactString(err.Error())}
		}
	}
	if refs != nil && !joined && v.Error != "" {
		// First, so the printed line (cut at 160 characters) shows it.
		v.Error = fmt.Sprintf("no task %s in %s: %s", in.Task.ID, refsNames, v.Error)
	}
	return in, v, nil
}

// unreadableMessage is the message of LoadWebVoyagerFolder's error err that holds ErrUnreadableAnswer: when the
// folder also has no task text (a joined error), the answer's error only.
func unreadableMessage(err error) string {
	msg := err.Error()
	if je, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range je.Unwrap() {
			if errors.Is(e, ErrUnreadableAnswer) {
				msg = e.Error()
			}
		}
	}
	return msg
}

// PreflightTimeout bounds a judge's preflight (PreflightEndpoint), its retries of rate limits and
// infrastructure errors included.
const PreflightTimeout = 60 * time.Second

// PreflightEndpoint checks j's endpoint (Preflighter; nothing to check otherwise) within PreflightTimeout,
// before anything is judged. fatal is the endpoint's *llm.Error when its class stops runs (config: a mistyped
// model name, a base URL without /v1; auth; quota); err is any other failure (unreachable, rate limited after
// the retries), which the attempts will meet as judge errors.
func PreflightEndpoint(ctx context.Context, j Judge) (fatal *llm.Error, err error) {
	p, ok := j.(Preflighter)
	if !ok {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, PreflightTimeout)
	defer cancel()
	err = p.Preflight(ctx)
	if le := llm.FatalError(err); le != nil {
		return le, nil
	}
	return nil, err
}
