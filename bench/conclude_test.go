package bench

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"webbench/agent/guard"
	"webbench/browser"
	"webbench/judge"
	"webbench/llm"
	"webbench/results"
	"webbench/runner"
	"webbench/suites"
)

// The four callers of the status rule make the same record of the same trajectory and verdict: a pass, a fail,
// an uncertain verdict on an attempt that answered (uncertain) and on one that did not (UncertainIsFailure: a
// fail), a judge error and an infrastructure finish.
//   - bench mcp serve (runner.ServedRecord, the record runner.ConcludeServed makes): its identity and timings
//     are its inputs' (checked field by field), and the record is the runner's (runner.Judged) of a base built
//     here from the same inputs; the worker's own path (worker.conclude) is compared with ConcludeServed by
//     runner's TestWorkerConcludeMatchesServedRecord;
//   - the Zoo direct script (directRecord) is the rule computed here from results.Conclude and the task's
//     judges (judge.Compose), and has the served record's status fields;
//   - bench judge: the served record in a run directory, re-judged by another judge with a different verdict
//     (verdicts-other.jsonl) and read by Run.Attempts, is what WithVerdict promises: the rule's record of the
//     same trajectory with that verdict, a fail's failure mode being wrong_answer when the record was a pass or
//     uncertain; a record the run's judge never decided (judge error, infra) is unchanged.
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
	pass := func(j string) judge.Verdict { return judge.Verdict{Judge: j, Pass: true, Reason: "re-judged: pass"} }
	fail := judge.Verdict{Judge: "other", Reason: "re-judged: wrong"}
	cases := []struct {
		name   string
		task   suites.Task
		finish results.FinishRecord
		status results.Status
		class  results.ErrorClass
		// rejudge is another judge's verdict on the attempt (bench judge, verdicts-other.jsonl).
		rejudge judge.Verdict
	}{
		{"pass", counted, answered(true, "4 styles"), results.StatusPass, "", fail},
		{"fail", counted, answered(true, "5 styles"), results.StatusFail, results.ClassAgent, pass("other")},
		{"uncertain, answered", counted, answered(true, "3 of 4"), results.StatusError, results.ClassUncertain, fail},
		{"uncertain, no final answer", counted, results.FinishRecord{Reason: results.FinishMaxSteps,
			Output: "3 of 4"}, results.StatusFail, results.ClassAgent, pass("other")},
		{"judge error", unchecked, results.FinishRecord{Reason: results.FinishAnswered, Error: "model said: see above",
			Final: &results.FinalAnswer{OK: true, Final: "a page"}}, results.StatusError, results.ClassJudge, pass("other")},
		{"infra finish", counted, results.FinishRecord{Reason: results.FinishModelError, ErrorClass: llm.ErrorInfra,
			Error: "endpoint unreachable"}, results.StatusError, results.ClassInfra, pass("other")},
	}
	ctx := context.Background()
	opened := time.Date(2026, 12, 4, 22, 0, 0, 0, time.FixedZone("CET", 3600))
	seed := 7
	for _, c := range cases {
		traj := func() *results.Trajectory {
			return &results.Trajectory{SchemaVersion: results.TrajectorySchemaVersion, Steps: []*results.Step{step},
				Usage: step.Usage, GuardCounts: map[string]int{"repeat_guard": 1}, Finish: c.finish}
		}
		tr := traj()
		served := runner.ServedRecord(ctx, runner.Served{Task: c.task, Suite: "zoo", AttemptID: "a1", Seed: seed,
			Guards: map[string]bool{"intercept_hint": false}, Opened: opened, Wall: 1500 * time.Millisecond}, tr)
		if served.Status != c.status || served.ErrorClass != c.class {
			t.Errorf("%s: status %s/%s, want %s/%s", c.name, served.Status, served.ErrorClass, c.status, c.class)
		}
		// ServedRecord's identity and timings are its inputs'.
		if served.AttemptID != "a1" || served.PairID != results.PairID("zoo", c.task.ID, 1) ||
			served.Variant != runner.ServedVariant || served.Rep != 1 || served.Seed == nil || *served.Seed != seed ||
			served.DurationMS != 1500 || served.StartedAt != "2026-12-04T21:00:00Z" || served.Model != "external" ||
			served.Guards["intercept_hint"] || !served.Guards["repeat_guard"] {
			t.Errorf("%s: served identity/timings/guards = %+v", c.name, served)
		}
		// The runner, given the same identity and timings built from the inputs (not copied from served).
		guards := guard.Default()
		guards["intercept_hint"] = false
		base := results.Attempt{AttemptID: "a1", PairID: results.PairID("zoo", c.task.ID, 1),
			Variant: runner.ServedVariant, TaskID: c.task.ID, Suite: "zoo", Cluster: c.task.ID, Rep: 1, Seed: &seed,
			Model: "external", Guards: guards, DurationMS: 1500, StartedAt: "2026-12-04T21:00:00Z"}
		same(t, c.name+": runner vs bench mcp serve", runner.Judged(ctx, base, c.task, traj(), nil), served)

		// The Zoo direct script: the record of the status rule applied to the task's own judges, computed here
		// from results.Conclude and judge.Compose (not runner.Judged); with the served identity, the served record.
		verdictOf := func(v *judge.Verdict) func(results.Attempt) judge.Verdict {
			return func(rec results.Attempt) judge.Verdict {
				if v != nil {
					return *v
				}
				return judge.Compose(ctx, judge.ForTask(c.task), judge.Input{Task: c.task, Final: rec.Final, OK: rec.OK})
			}
		}
		direct := directRecord(ctx, c.task, traj())
		same(t, c.name+": Zoo direct script vs the rule", direct, results.Conclude(results.Attempt{}, traj(), verdictOf(nil)))
		stripped := served
		stripped.AttemptID, stripped.PairID, stripped.Variant, stripped.TaskID, stripped.Suite, stripped.Cluster = "", "", "", "", "", ""
		stripped.Rep, stripped.Seed, stripped.Model, stripped.Guards, stripped.DurationMS, stripped.StartedAt = 0, nil, "", nil, 0, ""
		stripped.Trajectory = results.TrajectoryPath("")
		same(t, c.name+": Zoo direct script vs bench mcp serve (status fields)", direct, stripped)

		// bench judge: the served record in a run directory, re-judged from verdicts-other.jsonl with another
		// verdict, read back by Run.Attempts.
		dir := t.TempDir()
		if err := results.WriteManifest(dir, &results.Manifest{RunID: "conclude", Plan: results.Plan{Suite: "zoo", Baseline: runner.ServedVariant,
			Variants: []results.Variant{{Name: runner.ServedVariant}}}}); err != nil {
			t.Fatal(err)
		}
		w, err := results.OpenWriter(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Append(served); err != nil {
			t.Fatal(err)
		}
		w.Close()
		if _, err := results.WriteVerdicts(dir, "other", []results.VerdictRecord{{AttemptID: "a1", TaskID: c.task.ID,
			Verdict: c.rejudge}}); err != nil {
			t.Fatal(err)
		}
		run, err := results.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := run.Attempts("other")
		if err != nil || len(recs) != 1 {
			t.Fatalf("%s: Attempts(other) = %d records, %v", c.name, len(recs), err)
		}
		got := recs[0]
		if v := got.Verdicts["other"]; v.Judge != "other" || v.Pass != c.rejudge.Pass || v.Reason != c.rejudge.Reason {
			t.Errorf("%s: re-judged record's verdicts = %v", c.name, got.Verdicts)
		}
		if got.SchemaVersion != results.SchemaVersion {
			t.Errorf("%s: re-judged record's schema version %d, want %d", c.name, got.SchemaVersion, results.SchemaVersion)
		}
		got.Verdicts, got.SchemaVersion = nil, 0 // attached on load, set on append
		// WithVerdict's promise: a record the run's judge decided or doubted is the record the rule makes of the
		// same trajectory with the other verdict, but for a fail's failure mode, which is the recorded one, or
		// wrong_answer when the record was a pass or uncertain; any other record is unchanged.
		want := served
		if served.Judged() {
			want = results.Conclude(base, traj(), verdictOf(&c.rejudge))
			if want.Status == results.StatusFail && served.Status != results.StatusFail {
				want.FailureMode = results.ModeWrongAnswer
			}
			if want.Status == served.Status {
				t.Errorf("%s: the re-judge verdict %+v does not change the status %s: pick another", c.name, c.rejudge, want.Status)
			}
		}
		same(t, c.name+": bench judge (Run.Attempts) vs the rule", got, want)
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
