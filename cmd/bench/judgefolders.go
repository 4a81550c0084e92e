package main

// bench judge's second mode: WebVoyager result folders instead of a run directory.

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"webbench/judge"
	"webbench/llm"
	"webbench/results"
	"webbench/suites"
	"webbench/suites/webvoyager"
)

// loadFolderRefs reads --answers and --tasks-file for judging subject, result folders or --answers-jsonl's
// answers (webvoyager.LoadReferences); nil when neither is given. --suite other than webvoyager is a usage error
// (exit 2), as are the files' errors.
func loadFolderRefs(c *cobra.Command, sf suiteFlags, which, subject string) (*webvoyager.References, error) {
	if c.Flags().Changed("suite") && sf.suite != webvoyager.Name {
		return nil, usageErr("--suite %s: %s are judged as the %s suite", sf.suite, subject, webvoyager.Name)
	}
	refs, err := webvoyager.LoadReferences(sf.answers, sf.tasksFile, which == "answer", subject)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return refs, nil
}

// findFolders lists the WebVoyager result folders of dir (judge.FindWebVoyagerFolders); none, or dir
// unreadable, is a usage error.
func findFolders(dir string) (folders, skipped []string, err error) {
	folders, skipped, err = judge.FindWebVoyagerFolders(dir)
	if errors.Is(err, judge.ErrNoFolders) {
		return nil, nil, usageErr("%s: neither a run directory (%s) nor WebVoyager result folders (interact_messages.json)", dir, results.ManifestFile)
	}
	if err != nil {
		return nil, nil, usageErr("%v", err)
	}
	return folders, skipped, nil
}

// rescoreFolders judges the WebVoyager result folders (found under root) with j and writes
// <folder>/verdict-<judge>.json (results.RejudgeFolders), giving each verdict and the summary to out (a line per
// folder and a summary line, or JSON), and exits as out.finish says (4: some judge errors, 5: nothing graded).
func rescoreFolders(c *cobra.Command, root string, folders []string, j judge.Judge, refs *webvoyager.References, out *judgeOutput) error {
	var tasks map[string]suites.Task // nil: no references given
	var names string
	if refs != nil {
		tasks, names = refs.Tasks, refs.Names
	}
	res, err := results.RejudgeFolders(c.Context(), folders, j, tasks, names, func(folder, path string, in judge.Input, v judge.Verdict) {
		a := judgedAnswer{TaskID: in.Task.ID, Run: folderRun(root, folder), Folder: folder, Answer: in.Final,
			Outcome: v.Outcome(), Reason: v.Reason, Error: v.Error}
		_, named := judge.WebVoyagerTaskID(filepath.Base(folder))
		if _, known := judge.LookupTask(tasks, in.Task.ID); tasks != nil && named && !known && v.Outcome() == "error" {
			a.UnknownTask = true
		}
		out.add(a, fmt.Sprintf("%s: %s (%s)", path, outcomeText(v), firstLine(v.Reason+v.Error)))
	})
	var fe *results.FolderError
	if errors.As(err, &fe) {
		switch le := llm.FatalError(err); {
		case le != nil:
			return judgeStop(j, le, "at "+fe.Folder+" (the verdicts of the folders before it are written)")
		case fe.Write:
			return withCode(exitInfra, err)
		}
		return usageErr("%v", err)
	}
	return out.finish(fmt.Sprintf("%s judged by %s: %d pass, %d fail, %d uncertain, %s",
		results.Count(len(folders), "folder", "folders"), j.Name(), res.Pass, res.Fail, res.Uncertain,
		results.Count(res.Errors, "judge error", "judge errors")))
}

// firstLine is the first line of s, cut to 160 characters.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
