package results

// Merging shard run directories of one plan (bench merge) into one run directory.

import (
	"cmp"
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
)

// MergeRefusedError is a merge Merge refused before writing anything: the output directory holds a run of
// another plan, or cannot be read as a run directory.
type MergeRefusedError struct{ Err error }

// Error is the reason's message.
func (e *MergeRefusedError) Error() string { return e.Err.Error() }

// Unwrap returns the reason.
func (e *MergeRefusedError) Unwrap() error { return e.Err }

// mergeBrowser is the merged manifest's browser section: the first shard's (remote, endpoint, headers,
// expose_network), with the launches of every shard added up and their browser versions joined; nil when no
// shard has one.
func mergeBrowser(shards []*Run) *BrowserInfo {
	var out *BrowserInfo
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
// the plan's attempts), their stop reasons joined as "shard I/N: reason; …", each shard's budgets listed
// (ShardBudgets) and added up (SumBudgets). The sequential skips are not the shards' added up (their looks saw
// their own pairs only): Merge's caller recomputes them over the merged records. The summary is nil when no
// shard has one. Times are RFC 3339 strings, compared as times (an unparsable one is kept only when no other parses).
func mergeSpan(shards []*Run) (started, ended string, sum *Summary) {
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
				sum = &Summary{}
			}
			sum.Planned += s.Planned
			sum.Skipped += s.Skipped
			sum.Ran += s.Ran
			sum.Passed += s.Passed
			sum.Failed += s.Failed
			sum.Errors += s.Errors
			sum.Uncertain += s.Uncertain
			if s.Budgets != nil {
				sum.ShardBudgets = append(sum.ShardBudgets, ShardBudget{Shard: m.Shard, Budgets: *s.Budgets})
			}
			sum.Budget = cmp.Or(sum.Budget, s.Budget)
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
		sum.Budgets = SumBudgets(sum.ShardBudgets, len(shards))
	}
	return started, ended, sum
}

// SeqMerger gives a merged run's sequential skips (Summary.SeqSkips) from the shards and the merged records (out's
// records before the merge, then the shards' new ones, in that order): the sequential rule's, which results does
// not own (analysis.MergedSeqSkips).
type SeqMerger func(shards []*Run, recs []Attempt) ([]SeqSkip, error)

// Merge joins shard run directories of one plan into the run directory out: it appends the shards' records
// (those not already in out, compared as written: RecordKey)
// to out, copies their trajectories, screenshots and traces, joins their re-judged verdicts and writes the
// first shard's manifest with the span, summary and browser section of all shards (mergeSpan, mergeBrowser),
// before any record, so an interrupted merge leaves a run directory; it returns the
// number of records appended. A plan with a sequential design needs seq, which gives the summary's skips over
// the merged records. An out that already holds a run of another plan, or that cannot be read, is refused
// with a *MergeRefusedError before anything is written; other errors are the file system's and seq's.
func Merge(out string, shards []*Run, seq SeqMerger) (int, error) {
	w, err := OpenWriter(out)
	if err != nil {
		return 0, err
	}
	defer w.Close()
	prev, err := Open(out)
	switch {
	case errors.Is(err, ErrNoManifest):
		prev = nil
	case err != nil:
		return 0, &MergeRefusedError{err}
	case !SamePlan(prev.Manifest.Plan, shards[0].Manifest.Plan):
		return 0, &MergeRefusedError{fmt.Errorf("%s holds a run of another plan (mixed specs cannot be merged)", out)}
	}
	m := *shards[0].Manifest
	m.Shard = "merged from " + Count(len(shards), "shard", "shards")
	m.Browser = mergeBrowser(shards)
	m.StartedAt, m.EndedAt, m.Summary = mergeSpan(shards)
	have := map[string]bool{}
	var all, add []Attempt
	if prev != nil {
		for _, r := range prev.Records {
			have[RecordKey(r)] = true
		}
		all = slices.Clone(prev.Records)
	}
	for _, run := range shards {
		for _, r := range run.Records {
			if k := RecordKey(r); !have[k] {
				have[k] = true
				add = append(add, r)
			}
		}
	}
	if m.Plan.Ablation != nil && m.Plan.Ablation.Sequential != nil && m.Summary != nil {
		if seq == nil {
			return 0, fmt.Errorf("the plan is sequential but no sequential rule was given to recompute its skips")
		}
		if m.Summary.SeqSkips, err = seq(shards, append(all, add...)); err != nil {
			return 0, err
		}
	}
	if err := WriteManifest(out, &m); err != nil {
		return 0, err
	}
	n := 0
	for _, r := range add {
		if err := w.Append(r); err != nil {
			return n, err
		}
		n++
	}
	for _, run := range shards {
		for _, sub := range []string{TrajectoriesDir, ScreenshotsDir, TracesDir} {
			if err := copyTree(filepath.Join(run.Dir, sub), filepath.Join(out, sub)); err != nil {
				return n, err
			}
		}
	}
	if err := mergeVerdicts(out, append([]*Run{prev}, shards...)); err != nil {
		return n, err
	}
	return n, nil
}

// mergeVerdicts writes out/verdicts-<judge>.jsonl for every judge of runs (nil runs skipped): the verdicts of
// every run, a later run's verdict of an attempt replacing an earlier one's.
func mergeVerdicts(out string, runs []*Run) error {
	byJudge := map[string]map[string]VerdictRecord{}
	for _, run := range runs {
		if run == nil {
			continue
		}
		for _, name := range run.Judges() {
			if byJudge[name] == nil {
				byJudge[name] = map[string]VerdictRecord{}
			}
			for _, v := range run.VerdictRecords(name) {
				byJudge[name][v.AttemptID] = v
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(byJudge)) {
		vs := byJudge[name]
		recs := make([]VerdictRecord, 0, len(vs))
		for _, id := range slices.Sorted(maps.Keys(vs)) {
			recs = append(recs, vs[id])
		}
		if _, err := WriteVerdicts(out, name, recs); err != nil {
			return err
		}
	}
	return nil
}

// SamePlan compares two plans as JSON (variants with their settings, tasks, reps, seed, ablation parameters).
func SamePlan(a, b Plan) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// copyTree copies the tree under src into dst (nothing when src does not exist).
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
