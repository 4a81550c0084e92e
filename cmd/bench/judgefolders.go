package main

// bench judge's second mode: WebVoyager result folders instead of a run directory.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"webbench/judge"
	"webbench/llm"
	"webbench/results"
	"webbench/suites"
	"webbench/suites/webvoyager"
)

// loadFolderRefs reads --answers and --tasks-file for judging result folders (webvoyager.LoadReferences); nil
// when neither is given. --suite other than webvoyager is a usage error (exit 2), as are the files' errors.
func loadFolderRefs(c *cobra.Command, sf suiteFlags, which string) (*webvoyager.References, error) {
	if c.Flags().Changed("suite") && sf.suite != webvoyager.Name {
		return nil, usageErr("--suite %s: WebVoyager result folders are judged as the %s suite", sf.suite, webvoyager.Name)
	}
	refs, err := webvoyager.LoadReferences(sf.answers, sf.tasksFile, which == "answer")
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

// rescoreFolders judges the WebVoyager result folders with j and writes <folder>/verdict-<judge>.json
// (results.RejudgeFolders), printing a line per folder and a summary: judged, pass, fail, uncertain, judge errors.
func rescoreFolders(c *cobra.Command, folders []string, j judge.Judge, refs *webvoyager.References) error {
	var tasks map[string]suites.Task // nil: no references given
	var names string
	if refs != nil {
		tasks, names = refs.Tasks, refs.Names
	}
	res, err := results.RejudgeFolders(c.Context(), folders, j, tasks, names, func(path string, v judge.Verdict) {
		status := v.Outcome()
		if status == "error" {
			status = "judge error"
		}
		fmt.Fprintf(c.OutOrStdout(), "%s: %s (%s)\n", path, status, firstLine(v.Reason+v.Error))
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
	fmt.Fprintf(c.OutOrStdout(), "%s judged by %s: %d pass, %d fail, %d uncertain, %s\n",
		results.Count(len(folders), "folder", "folders"), j.Name(), res.Pass, res.Fail, res.Uncertain,
		results.Count(res.Errors, "judge error", "judge errors"))
	return nil
}

// firstLine is the first line of s, cut to 160 characters.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
