package analysis

// The environment's flake rate: a same-seed A/A arm (spec `aa: same-seed`) replays the baseline with
// the baseline's own seeds, so with a deterministic policy every pair should end the same way in both arms.
// The share of pairs that do not is what the environment (browser timing, machine load, the page's timers)
// changes on its own — the rate at which a paired comparison sees a "rescued" or "broke" pair nobody caused.

import (
	"fmt"
	"sort"

	"webbench/results"
	"webbench/stats"
)

// WarnFlakeRate is the Warning.Kind of a same-seed A/A arm that disagrees with the baseline on some pair.
const WarnFlakeRate WarningKind = "flake_rate"

// maxFlakeExamples bounds FlakeRate.Examples.
const maxFlakeExamples = 5

// FlakeRate is the disagreement of one same-seed A/A arm with the baseline.
type FlakeRate struct {
	// Variant is the same-seed A/A arm.
	Variant string
	// Pairs is the number of pairs with a finished final record (pass or fail, results.Attempt.Done) in both
	// arms; Differ those whose outcome differs: status, failure mode or verdict. Errors counts the pairs left
	// out because either attempt ended in an error or an uncertain verdict: neither is an outcome (the reports
	// leave both out of every denominator; a resume runs an errored attempt again and keeps an uncertain one,
	// results.Attempt.Judged), so it is neither agreement nor a flake.
	Pairs, Differ, Errors int
	// Rate is Differ/Pairs (0 when Pairs is 0: undefined, shown as n/a and null in JSON, as an arm's pass rate
	// with no judged attempt); Wilson its Wilson 95% score interval.
	Rate   float64
	Wilson [2]float64
	// Examples describe the first differing pairs (by task and rep): "task rep 1: pass vs fail (gave_up)".
	Examples []string
}

// outcome is what a same-seed replay must reproduce of an attempt: status, failure mode and verdict.
func outcome(r results.Attempt) string {
	s := string(r.Status)
	if r.FailureMode != "" {
		s += " (" + string(r.FailureMode) + ")"
	}
	if r.Done() && r.Verdict.Pass != (r.Status == results.StatusPass) {
		s += fmt.Sprintf(" verdict pass=%v", r.Verdict.Pass)
	}
	return s
}

// flakeRates compares each replay arm of by with the baseline, pair by pair.
func flakeRates(by map[string][]results.Attempt, baseline string, replays []string) []FlakeRate {
	var out []FlakeRate
	base := map[string]results.Attempt{}
	for _, r := range by[baseline] {
		base[PairKey(r)] = r
	}
	for _, name := range replays {
		f := FlakeRate{Variant: name}
		v := append([]results.Attempt(nil), by[name]...)
		sort.SliceStable(v, func(i, j int) bool {
			if v[i].TaskID != v[j].TaskID {
				return v[i].TaskID < v[j].TaskID
			}
			return v[i].Rep < v[j].Rep
		})
		for _, r := range v {
			b, ok := base[PairKey(r)]
			if !ok {
				continue
			}
			if !b.Done() || !r.Done() {
				f.Errors++
				continue
			}
			f.Pairs++
			if ob, or := outcome(b), outcome(r); ob != or || b.Verdict.Pass != r.Verdict.Pass {
				f.Differ++
				if len(f.Examples) < maxFlakeExamples {
					f.Examples = append(f.Examples, fmt.Sprintf("%s rep %d: %s vs %s", r.TaskID, r.Rep, ob, or))
				}
			}
		}
		if f.Pairs > 0 {
			f.Rate = float64(f.Differ) / float64(f.Pairs)
		}
		f.Wilson[0], f.Wilson[1] = stats.Wilson(f.Differ, f.Pairs, stats.Z95)
		out = append(out, f)
	}
	return out
}

// flakeWarnings returns one WarnFlakeRate warning per replay arm that differs from the baseline on some pair.
func flakeWarnings(fs []FlakeRate) []Warning {
	var out []Warning
	for _, f := range fs {
		if f.Differ > 0 {
			out = append(out, Warning{Kind: WarnFlakeRate, Variants: []string{f.Variant}, Flake: f})
		}
	}
	return out
}
