package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"webbench/results"
)

func init() { extraCommands = append(extraCommands, mergeCmd) }

func mergeCmd() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "merge --out DIR SHARD_DIR...",
		Short: "Join shard run directories of one plan into one run directory",
		Long: "Refuses shards of different plans (suite, suite options, tasks, reps, variants, seed, ablation\n" +
			"parameters). Records are appended in shard order (those already in --out are skipped, so merging again\n" +
			"adds only new ones); trajectories, screenshots and traces are copied; re-judged verdicts\n" +
			"(verdicts-<judge>.jsonl) are joined; the manifest is rebuilt from the shards given (so merge all of them again, not\n" +
			"only a re-run one): the first shard's, with the shards' summaries added up,\n" +
			"their earliest start and latest end, and their browser launches joined (schema version 1 shards are converted).",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if out == "" {
				return usageErr("--out is required")
			}
			shards := make([]*results.Run, 0, len(args))
			for _, d := range args {
				run, err := results.Open(d)
				if err != nil {
					return usageErr("%s: not a run directory: %v", d, err)
				}
				if len(shards) > 0 && !samePlan(shards[0].Manifest.Plan, run.Manifest.Plan) {
					return usageErr("%s: its plan differs from %s's (mixed specs cannot be merged)", d, args[0])
				}
				shards = append(shards, run)
			}
			n, err := mergeInto(out, shards)
			if err != nil {
				return err
			}
			first := shards[0].Manifest
			fmt.Fprintf(c.OutOrStdout(), "merged %s from %s into %s\n", results.Count(n, "record", "records"),
				results.Count(len(args), "shard", "shards"), out)
			if got, err := results.Open(out); err == nil && len(got.Final()) < first.Plan.Attempts {
				fmt.Fprintf(c.ErrOrStderr(), "warning: the merged run holds %d of the plan's %d attempts: a shard is missing or "+
					"unfinished (re-run it, then merge all the shards again into the same --out: records already there are skipped, and the manifest is rebuilt from the shards given)\n", len(got.Final()), first.Plan.Attempts)
			}
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "", "merged run directory")
	return c
}

// mergeBrowser is the merged manifest's browser section: the first shard's (remote, endpoint, headers,
// expose_network), with the launches of every shard added up and their browser versions joined; nil when no
// shard has one.
func mergeBrowser(shards []*results.Run) *results.BrowserInfo {
	var out *results.BrowserInfo
	for _, run := range shards {
		b := run.Manifest.Browser
		if b == nil {
			continue
		}
		if out == nil {
			c := *b
			c.Versions = slices.Clone(b.Versions)
			out = &c
			continue
		}
		out.Launches += b.Launches
		for _, v := range b.Versions {
			if !slices.Contains(out.Versions, v) {
				out.Versions = append(out.Versions, v)
			}
		}
	}
	return out
}

// mergeSpan is the merged manifest's time span and summary: the earliest start, the latest end ("" when a
// shard has none: it was killed or is still running, so the merged run is not finished either), and the shards'
// summaries added up (Planned is the sum of the shards' shares, so a missing shard shows as fewer planned than
// the plan's attempts), their stop reasons joined as "shard I/N: reason; …". The summary is nil when no shard
// has one. Times are RFC 3339 strings, compared as times (an unparsable one is kept only when no other parses).
func mergeSpan(shards []*results.Run) (started, ended string, sum *results.Summary) {
	var t0, t1 time.Time
	ended = "-"
	var stops []string
	for _, run := range shards {
		m := run.Manifest
		if t, err := time.Parse(time.RFC3339, m.StartedAt); err == nil && (t0.IsZero() || t.Before(t0)) {
			t0, started = t, m.StartedAt
		} else if started == "" {
			started = m.StartedAt
		}
		switch t, err := time.Parse(time.RFC3339, m.EndedAt); {
		case m.EndedAt == "":
			ended = ""
		case ended != "" && err == nil && (t1.IsZero() || t.After(t1)):
			t1, ended = t, m.EndedAt
		}
		if s := m.Summary; s != nil {
			if sum == nil {
				sum = &results.Summary{}
			}
			sum.Planned += s.Planned
			sum.Skipped += s.Skipped
			sum.Ran += s.Ran
			sum.Passed += s.Passed
			sum.Failed += s.Failed
			sum.Errors += s.Errors
			sum.Uncertain += s.Uncertain
			if s.Stopped != "" {
				stops = append(stops, fmt.Sprintf("shard %s: %s", m.Shard, s.Stopped))
			}
		}
	}
	if ended == "-" {
		ended = ""
	}
	if sum != nil {
		sum.Stopped = strings.Join(stops, "; ")
	}
	return started, ended, sum
}

// mergeInto appends the shards' records (those not already in out, compared as written: results.RecordKey)
// to out, copies their trajectories, screenshots and traces, joins their re-judged verdicts and writes the
// first shard's manifest with the span, summary and browser section of all shards (mergeSpan, mergeBrowser),
// before any record, so an interrupted merge leaves a run directory; it returns the
// number of records appended. An out that already holds a run of another plan is refused.
func mergeInto(out string, shards []*results.Run) (int, error) {
	w, err := results.OpenWriter(out)
	if err != nil {
		return 0, withCode(exitInfra, err)
	}
	defer w.Close()
	prev, err := results.Open(out)
	switch {
	case errors.Is(err, results.ErrNoManifest):
		prev = nil
	case err != nil:
		return 0, usageErr("%v", err)
	case !samePlan(prev.Manifest.Plan, shards[0].Manifest.Plan):
		return 0, usageErr("%s holds a run of another plan (mixed specs cannot be merged)", out)
	}
	m := *shards[0].Manifest
	m.Shard = "merged from " + results.Count(len(shards), "shard", "shards")
	m.Browser = mergeBrowser(shards)
	m.StartedAt, m.EndedAt, m.Summary = mergeSpan(shards)
	if err := results.WriteManifest(out, &m); err != nil {
		return 0, withCode(exitInfra, err)
	}
	have := map[string]bool{}
	if prev != nil {
		for _, r := range prev.Records {
			have[results.RecordKey(r)] = true
		}
	}
	n := 0
	for _, run := range shards {
		for _, r := range run.Records {
			k := results.RecordKey(r)
			if have[k] {
				continue
			}
			have[k] = true
			if err := w.Append(r); err != nil {
				return n, withCode(exitInfra, err)
			}
			n++
		}
		for _, sub := range []string{results.TrajectoriesDir, results.ScreenshotsDir, results.TracesDir} {
			if err := copyTree(filepath.Join(run.Dir, sub), filepath.Join(out, sub)); err != nil {
				return n, withCode(exitInfra, err)
			}
		}
	}
	if err := mergeVerdicts(out, append([]*results.Run{prev}, shards...)); err != nil {
		return n, withCode(exitInfra, err)
	}
	return n, nil
}

// mergeVerdicts writes out/verdicts-<judge>.jsonl for every judge of runs (nil runs skipped): the verdicts of
// every run, a later run's verdict of an attempt replacing an earlier one's.
func mergeVerdicts(out string, runs []*results.Run) error {
	byJudge := map[string]map[string]results.VerdictRecord{}
	for _, run := range runs {
		if run == nil {
			continue
		}
		for _, name := range run.Judges() {
			if byJudge[name] == nil {
				byJudge[name] = map[string]results.VerdictRecord{}
			}
			for _, v := range run.VerdictRecords(name) {
				byJudge[name][v.AttemptID] = v
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(byJudge)) {
		vs := byJudge[name]
		recs := make([]results.VerdictRecord, 0, len(vs))
		for _, id := range slices.Sorted(maps.Keys(vs)) {
			recs = append(recs, vs[id])
		}
		if _, err := results.WriteVerdicts(out, name, recs); err != nil {
			return err
		}
	}
	return nil
}

// samePlan compares two plans as JSON (variants with their settings, tasks, reps, seed, ablation parameters).
func samePlan(a, b results.Plan) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func copyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		o, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(o, in); err != nil {
			o.Close()
			return err
		}
		return o.Close()
	})
}
