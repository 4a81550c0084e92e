package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"webbench/analysis"
	"webbench/judge"
	"webbench/report"
	"webbench/results"
)

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

// completeGate is bench report --gate's first gate: a run that stopped or lacks records of planned attempts
// (a shard not merged in, a shard killed or unfinished) is not gated — a pass on part of the pairs is not the
// run's pass — and gets exit 3 (exitInfra), resumable: finish or merge the missing part, then gate again.
func completeGate(run *results.Run) error {
	c := run.Completeness()
	planned, missing, stopped := c.Planned, c.Missing, c.Stopped
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

// printRunWarnings prints the warnings about the run (analysis.RunWarnings) on stderr, one line each
// (report.RunWarningLine), and returns them.
func printRunWarnings(c *cobra.Command, run *results.Run, recs []results.Attempt, arms []analysis.Arm) []analysis.RunWarning {
	ws := analysis.RunWarnings(run, recs, arms)
	for _, w := range ws {
		fmt.Fprintln(c.ErrOrStderr(), report.RunWarningLine(w))
	}
	return ws
}
