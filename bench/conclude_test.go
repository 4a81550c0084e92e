package bench

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"webbench/browser"
	"webbench/judge"
	"webbench/llm"
	"webbench/results"
	"webbench/runner"
	"webbench/suites"
)

// The four callers of the status rule — the runner's worker (runner.Judged, which its built-in agent, its MCP
// backend and external commands all end in), bench mcp serve (runner.ServedRecord), the Zoo benchmark's direct
// script (directRecord) and a re-judged verdict (results.WithVerdict, bench judge) — make the same record, byte for
// byte, of the same trajectory and verdict: a pass, a fail, an uncertain verdict on an attempt that answered
// (uncertain) and on one that did not (UncertainIsFailure: a fail), a judge error and an infrastructure finish.
func TestFourCallersOneStatusRule(t *testing.T) {
	n := 4.0
	counted := suites.Task{ID: "styles", Suite: "zoo", Goal: "How many styles are there?",
		Check: suites.Check{Answer: &suites.AnswerRule{Number: &n}}}
	unchecked := suites.Task{ID: "free", Suite: "zoo", Goal: "Describe the page."}
	step := &results.Step{Index: 0, Usage: llm.Usage{Prompt: 120, Completion: 30},
		ToolCalls: []results.ToolCall{{ID: "c1", Name: "browser_click", Args: `{"target":"e2"}`}},
		Results: []*results.ToolRecord{{Call: results.ToolCall{ID: "c1", Name: "browser_click", Args: `{"target":"e2"}`},
			Raw: browser.Result{URL: "u", Snapshot: browser.Snapshot{YAML: `- button "Go" [ref=e2]`}}, Action: true}}}
	answered := func(ok bool, final string) results.FinishRecord {
		return results.FinishRecord{Reason: results.FinishAnswered, Final: &results.FinalAnswer{OK: ok, Final: final}}
	}
	cases := []struct {
		name   string
		task   suites.Task
		finish results.FinishRecord
		status results.Status
		class  results.ErrorClass
	}{
		{"pass", counted, answered(true, "4 styles"), results.StatusPass, ""},
		{"fail", counted, answered(true, "5 styles"), results.StatusFail, results.ClassAgent},
		{"uncertain, answered", counted, answered(true, "3 of 4"), results.StatusError, results.ClassUncertain},
		{"uncertain, no final answer", counted, results.FinishRecord{Reason: results.FinishMaxSteps,
			Output: "3 of 4"}, results.StatusFail, results.ClassAgent},
		{"judge error", unchecked, results.FinishRecord{Reason: results.FinishAnswered, Error: "model said: see above",
			Final: &results.FinalAnswer{OK: true, Final: "a page"}}, results.StatusError, results.ClassJudge},
		{"infra finish", counted, results.FinishRecord{Reason: results.FinishModelError, ErrorClass: llm.ErrorInfra,
			Error: "endpoint unreachable"}, results.StatusError, results.ClassInfra},
	}
	ctx := context.Background()
	opened := time.Date(2026, 12, 4, 21, 0, 0, 0, time.UTC)
	for _, c := range cases {
		tr := &results.Trajectory{SchemaVersion: results.TrajectorySchemaVersion, Steps: []*results.Step{step},
			Usage: step.Usage, GuardCounts: map[string]int{"repeat_guard": 1}, Finish: c.finish}
		served := runner.ServedRecord(ctx, c.task, "zoo", "a1", 7, map[string]bool{"intercept_hint": false}, tr,
			opened, 1500*time.Millisecond)
		if served.Status != c.status || served.ErrorClass != c.class {
			t.Errorf("%s: status %s/%s, want %s/%s", c.name, served.Status, served.ErrorClass, c.status, c.class)
		}
		// The runner's worker, given the served attempt's identity and timings.
		base := results.Attempt{AttemptID: served.AttemptID, PairID: served.PairID, Variant: served.Variant,
			TaskID: served.TaskID, Suite: served.Suite, Cluster: served.Cluster, Rep: served.Rep, Seed: served.Seed,
			Model: served.Model, Guards: served.Guards, DurationMS: served.DurationMS, Meta: served.Meta,
			StartedAt: served.StartedAt}
		same(t, c.name+": runner vs bench mcp serve", runner.Judged(ctx, base, c.task, tr, nil), served)
		same(t, c.name+": Zoo direct script vs runner", directRecord(ctx, c.task, tr),
			runner.Judged(ctx, results.Attempt{}, c.task, tr, nil))
		// Re-judging the record with the verdict it was concluded with changes nothing.
		final, ok := tr.Finish.Output, false
		if f := tr.Finish.Final; f != nil {
			final, ok = f.Final, f.OK
		}
		v := judge.Compose(ctx, judge.ForTask(c.task), judge.Input{Task: c.task, Final: final, OK: ok})
		same(t, c.name+": bench judge vs runner", results.WithVerdict(served, v), served)
	}
}

// same fails the test when got and want differ as JSON.
func same(t *testing.T, what string, got, want results.Attempt) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("%s:\n got  %s\n want %s", what, g, w)
	}
}
