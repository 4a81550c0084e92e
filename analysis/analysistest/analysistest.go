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
