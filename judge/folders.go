package judge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"webbench/llm"
	"webbench/suites"
)

// ErrNoFolders is FindWebVoyagerFolders' error when a directory is no result folder and holds none.
var ErrNoFolders = errors.New("no WebVoyager result folders")

// FindWebVoyagerFolders lists the WebVoyager result folders under dir (dir itself when it holds
// interact_messages.json, else every folder below it that does, at any depth: runs/<run>/task…/), sorted; none
// is ErrNoFolders, an unreadable dir its error. skipped are the folders named like a result folder
// (task<Site>--<N>) without interact_messages.json, for the caller to warn about.
func FindWebVoyagerFolders(dir string) (folders, skipped []string, err error) {
	if _, err := os.Stat(filepath.Join(dir, "interact_messages.json")); err == nil {
		return []string{dir}, nil, nil
	}
	if _, err := os.ReadDir(dir); err != nil {
		return nil, nil, err
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || p == dir {
			return nil
		}
		if _, err := os.Stat(filepath.Join(p, "interact_messages.json")); err == nil {
			folders = append(folders, p)
			return filepath.SkipDir // a result folder holds no other
		}
		if _, ok := WebVoyagerTaskID(d.Name()); ok {
			skipped = append(skipped, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(folders) == 0 {
		return nil, nil, ErrNoFolders
	}
	sort.Strings(folders)
	return folders, skipped, nil
}

// JudgeFolder judges the WebVoyager result folder dir with j, joined by task id to refs when given (nil:
// none; the task's answer rule, and its question from a tasks file; refsNames names their files in messages;
// the id from the folder's name, WebVoyagerTaskID, its letter case ignored, LookupTask). With refs, a folder
// whose name is no result folder's and that the judge could not decide gets a judge error naming it, and one
// whose task refs lacks and that the judge could not decide a judge error starting "unknown task id".
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
	_, named := WebVoyagerTaskID(filepath.Base(filepath.Clean(dir)))
	if refs != nil {
		if t, ok := LookupTask(refs, in.Task.ID); ok {
			in.Task.ID = t.ID
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
	switch {
	case refs != nil && !joined && !named && v.Error != "":
		// First, so the printed line (cut at 160 characters) shows it.
		v = Verdict{Judge: j.Name(), Error: fmt.Sprintf("folder %q is not named as a WebVoyager result folder "+
			"(task<Site>--<N>, perhaps with a copy's suffix \" (2)\"), so it joins no task of %s", dir, refsNames)}
	case refs != nil && !joined && v.Error != "":
		v.Error = fmt.Sprintf("unknown task id %s: not in %s (%s)", in.Task.ID, refsNames, v.Error)
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
