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
	"webbench/runner"
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
