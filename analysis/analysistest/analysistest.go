// Package analysistest builds synthetic records for the tests of the analysis and report packages.
package analysistest

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"webbench/results"
)

// Rec builds one final record. outcome: 'P' pass, 'F' fail, 'I' infra error,
// 'J' judge error.
func Rec(variant, task string, rep int, outcome byte) results.Attempt {
	r := results.Attempt{SchemaVersion: results.SchemaVersion, AttemptID: fmt.Sprintf("%s-%s-%d", variant, task, rep),
		PairID: fmt.Sprintf("%s#%d", task, rep), Variant: variant, TaskID: task, Suite: "synthetic", Cluster: task, Rep: rep,
		Steps: 4, Tokens: results.Tokens{Prompt: 100, Completion: 20}, DurationMS: 2000, CostUSD: 0.001}
	switch outcome {
	case 'P':
		r.Status = results.StatusPass
	case 'F':
		r.Status, r.ErrorClass, r.FailureMode = results.StatusFail, results.ClassAgent, "loop"
	case 'I':
		r.Status, r.ErrorClass, r.FailureMode = results.StatusError, results.ClassInfra, "infra"
	case 'J':
		r.Status, r.ErrorClass = results.StatusError, results.ClassJudge
	case 'U':
		r.Status, r.ErrorClass = results.StatusError, results.ClassUncertain
	default:
		panic("bad outcome")
	}
	return r
}

// recs builds records of one variant on one task, one per character of
// outcomes (rep = index + rep0).
func RecsOf(variant, task string, rep0 int, outcomes string) []results.Attempt {
	var out []results.Attempt
	for i := range len(outcomes) {
		out = append(out, Rec(variant, task, rep0+i, outcomes[i]))
	}
	return out
}

// TasksOf builds one rep per task t0..t(n-1) with outcomes[i] on task i.
func TasksOf(variant string, outcomes string) []results.Attempt {
	var out []results.Attempt
	for i := range len(outcomes) {
		out = append(out, Rec(variant, fmt.Sprintf("t%d", i), 0, outcomes[i]))
	}
	return out
}

// Cat concatenates groups of records in order.
func Cat(groups ...[]results.Attempt) []results.Attempt {
	var out []results.Attempt
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// Approx reports an error when got (named name) is NaN or farther than tol from want.
func Approx(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.6g, want %.6g (±%g)", name, got, want, tol)
	}
}

// FourOfForty builds 40 tasks, one rep, all pass in the baseline; the variant
// fails 4 of them.
func FourOfForty() []results.Attempt {
	return Cat(TasksOf("base", strings.Repeat("P", 40)), TasksOf("v", "FFFF"+strings.Repeat("P", 36)))
}

// UnequalReps builds a baseline "base" and a variant "v" on 10 tasks of unequal reps: one task ("big") of 10 reps
// all passing in the baseline and failing in the variant, three ("r0".."r2") of one rep rescued by the variant
// and six ("f0".."f5") of one rep failing in both. Δ over tasks is +20 pts, while the pooled rates read
// 10/19 = 52.6% → 3/19 = 15.8% and McNemar counts rescued 3, broke 10.
func UnequalReps() []results.Attempt {
	recs := Cat(RecsOf("base", "big", 0, strings.Repeat("P", 10)), RecsOf("v", "big", 0, strings.Repeat("F", 10)))
	for i := range 3 {
		recs = append(recs, Rec("base", fmt.Sprintf("r%d", i), 0, 'F'), Rec("v", fmt.Sprintf("r%d", i), 0, 'P'))
	}
	for i := range 6 {
		recs = append(recs, Rec("base", fmt.Sprintf("f%d", i), 0, 'F'), Rec("v", fmt.Sprintf("f%d", i), 0, 'F'))
	}
	return recs
}

// OneArmBroken builds 40 tasks "t00".."t39" of 2 reps, every attempt of the baseline "base" passing, the variant
// "v" passing too except on its first 8 tasks, where both reps end as broken ('F': failures, Δ = −20 pts;
// 'I': infrastructure errors, 16 of its 80 attempts).
func OneArmBroken(broken byte) []results.Attempt {
	var recs []results.Attempt
	for i := range 40 {
		task := fmt.Sprintf("t%02d", i)
		recs = append(recs, RecsOf("base", task, 0, "PP")...)
		o := "PP"
		if i < 8 {
			o = string([]byte{broken, broken})
		}
		recs = append(recs, RecsOf("v", task, 0, o)...)
	}
	return recs
}

// FourOfFortyInClusters is FourOfForty with the 40 tasks in 4 clusters of 10 ("site0".."site3", task i in site
// i mod 4): one task of each cluster moved down, so the cluster means are equal while 36 of 40 tasks did not move.
func FourOfFortyInClusters() []results.Attempt {
	recs := FourOfForty()
	for i := range recs {
		var n int
		fmt.Sscanf(recs[i].TaskID, "t%d", &n)
		recs[i].Cluster = fmt.Sprintf("site%d", n%4)
	}
	return recs
}
