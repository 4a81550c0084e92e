package analysis_test

import (
	"testing"

	"webbench/analysis"
	"webbench/browser"
	"webbench/report"
	"webbench/report/reporttest"
	"webbench/results"
	"webbench/suites/zoo"
)

// whyRun is a recorded guard ablation on the Zoo (testdata/why.yaml says how it was made).
const whyRun = "testdata/why-run"

// mutationShows reports whether a raw result (or, for the first observation, the page) shows the mutation's
// effect: the page condition ZOO.md describes, as the agent meets it. call is the call that produced it ("" for
// the first observation).
func mutationShows(mutation, call string, raw browser.Result) bool {
	k := results.ResultKindOf(raw)
	switch mutation {
	case "consent", "geo_redirect", "icon_over_input":
		return k == results.KindIntercepted
	case "late_hydration":
		return k == results.KindEmptySnapshot
	case "ref_churn":
		return k == results.KindStaleRef
	case "hung_fetch", "busy_script":
		return k == results.KindEvaluateCutOff
	case "nameless_switch":
		return call == string(browser.ToolMouseClickXY)
	}
	return false
}

// mutationSteps are the steps of t where one of the task's mutations first shows (−1: the first observation),
// one per mutation that shows.
func mutationSteps(t *results.Trajectory, mutations []string) map[int]bool {
	out := map[int]bool{}
	for _, m := range mutations {
		if t.FirstObservation != nil && mutationShows(m, "", *t.FirstObservation) {
			out[-1] = true
			continue
		}
	steps:
		for i, s := range t.Steps {
			for k, c := range s.ToolCalls {
				raw := browser.Result{Error: "no result: the call was still running"}
				if k < len(s.Results) {
					raw = s.Results[k].Raw
				} else if browser.BaseName(c.Name) == browser.ToolEvaluate {
					raw.Error = results.DeadlineCutOffPrefix + "browser_evaluate was running"
				}
				if mutationShows(m, string(browser.BaseName(c.Name)), raw) {
					out[i] = true
					break steps
				}
			}
		}
	}
	return out
}

// guardStep is the step of t at which guard first acted (−1: on the first observation), ok false when it never
// did: its first event in a step's record, else by the event's count of model calls made before it.
func guardStep(t *results.Trajectory, guard string) (int, bool) {
	for i, s := range t.Steps {
		for _, e := range s.Events {
			if e.Guard == guard {
				return i, true
			}
		}
	}
	for _, e := range t.Events {
		if e.Guard == guard {
			return max(e.Step, 0) - 1, true
		}
	}
	return 0, false
}

// guardEndedAt is guardStep of the record r's trajectory (−2 when the guard never acted).
func guardEndedAt(run *results.Run, r *results.Attempt, guard string) int {
	tr, err := run.Trajectory(r.AttemptID)
	if err != nil {
		return -2
	}
	if s, ok := guardStep(tr, guard); ok {
		return s
	}
	return -2
}

// switchedGuard is the guard on in one record and off in the other, and the record it is on in.
func switchedGuard(a, b *results.Attempt) (string, *results.Attempt) {
	for g, on := range a.Guards {
		if on != b.Guards[g] {
			if on {
				return g, a
			}
			return g, b
		}
	}
	return "", nil
}

// On the Zoo the mutation's step is known: at least 90 % of a guard ablation's discordant pairs first diverge
// at the step where the task's mutation shows, or where the guard it triggers (the switched one) first acts;
// and each variant's causes fit in two lines.
func TestWhyGroundTruth(t *testing.T) {
	run, a, why := reporttest.AnalyzeExplained(t, whyRun)
	tasks, err := zoo.BuiltinInstances()
	if err != nil {
		t.Fatal(err)
	}
	mutations := map[string][]string{}
	for _, tk := range tasks {
		mutations[tk.ID] = tk.Mutations
	}
	byID := map[string]*results.Attempt{}
	recs := run.Final()
	for i := range recs {
		byID[recs[i].AttemptID] = &recs[i]
	}
	n, hit := 0, 0
	for _, v := range why.Variants {
		for _, d := range v.Pairs {
			if !d.Outcome.Discordant() {
				continue
			}
			n++
			ra, rb := byID[d.A.AttemptID], byID[d.B.AttemptID]
			guard, on := switchedGuard(ra, rb)
			if on == nil {
				t.Fatalf("%s: the pair %s/%s switches no guard", v.Variant, d.A.AttemptID, d.B.AttemptID)
			}
			ok := map[int]bool{}
			for _, r := range []*results.Attempt{ra, rb} {
				tr, err := run.Trajectory(r.AttemptID)
				if err != nil {
					t.Fatal(err)
				}
				for s := range mutationSteps(tr, mutations[r.TaskID]) {
					ok[s] = true
				}
				if r == on {
					if s, acted := guardStep(tr, guard); acted {
						ok[s] = true
					}
				}
			}
			// An arm that ended is a divergence at the first step it lacks; a guard that acted as the loop ended
			// (final_recovery) recorded its event on the last step both arms have, the one before.
			if ok[d.Step] || d.At == analysis.AtEnd && guardEndedAt(run, on, guard) == d.Step-1 {
				hit++
			} else {
				t.Logf("%s %s: first divergence at step %d (%s), the mutation's or guard's steps are %v", v.Variant, d.Task, d.Step, d.At, ok)
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d discordant pairs in %s: too few to check", n, whyRun)
	}
	if float64(hit) < 0.9*float64(n) {
		t.Errorf("%d of %d discordant pairs diverge at the mutation's step or its guard's event, want at least 90%%", hit, n)
	}
	t.Logf("%d of %d discordant pairs diverge at the mutation's step or its guard's event", hit, n)
	lines := map[string]int{}
	for _, l := range report.NewWhyPart(why, a.Baseline).Moved {
		lines[l.Variant]++
	}
	for v, k := range lines {
		if k > 2 {
			t.Errorf("%s: %d lines of causes, want at most 2", v, k)
		}
	}
}
