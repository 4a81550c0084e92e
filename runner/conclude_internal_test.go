package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"webbench/llm"
	"webbench/results"
	"webbench/suites"
)

// stateEnv is an environment whose app state is state (all the worker's conclude reads of it).
type stateEnv struct{ state json.RawMessage }

func (stateEnv) StartURL() string                                 { return "http://app.invalid/" }
func (stateEnv) Allowed(string) bool                              { return true }
func (e stateEnv) State(context.Context) (json.RawMessage, error) { return e.state, nil }
func (stateEnv) Close(context.Context) error                      { return nil }

// The worker concludes a played attempt (worker.conclude, what play does with a player's trajectory) into the
// same record as bench mcp serve (ConcludeServed) given the same identity, timings, trajectory and end state;
// both read the state from the environment and write the trajectory; ConcludeServed's record is ServedRecord's
// of the trajectory it completed, and its identity and timing fields are its inputs'.
func TestWorkerConcludeMatchesServedRecord(t *testing.T) {
	n := 4.0
	task := suites.Task{ID: "styles", Suite: "zoo", Goal: "How many styles are there?",
		Check: suites.Check{Answer: &suites.AnswerRule{Number: &n}}}
	state := json.RawMessage(`{"styles":4}`)
	answered := func(final string) results.FinishRecord {
		return results.FinishRecord{Reason: results.FinishAnswered, Final: &results.FinalAnswer{OK: true, Final: final}}
	}
	cases := []struct {
		name   string
		finish results.FinishRecord
		status results.Status
	}{
		{"pass", answered("4 styles"), results.StatusPass},
		{"fail", answered("5 styles"), results.StatusFail},
		{"uncertain", answered("3 of 4"), results.StatusError},
		{"no final answer", results.FinishRecord{Reason: results.FinishMaxSteps, Output: "3 of 4"}, results.StatusFail},
		{"infra", results.FinishRecord{Reason: results.FinishModelError, ErrorClass: llm.ErrorInfra,
			Error: "endpoint unreachable"}, results.StatusError},
	}
	ctx := context.Background()
	opened := time.Date(2026, 12, 4, 21, 0, 0, 0, time.FixedZone("CET", 3600))
	d := 1500 * time.Millisecond
	seed := 7
	guards := map[string]bool{"intercept_hint": false}
	client, err := llm.New(llm.Config{Model: "external", BaseURL: "http://llm.invalid/v1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		traj := func() *results.Trajectory {
			return &results.Trajectory{SchemaVersion: results.TrajectorySchemaVersion, TaskID: task.ID,
				Steps: []*results.Step{{Index: 0, Usage: llm.Usage{Prompt: 120, Completion: 30}}},
				Usage: llm.Usage{Prompt: 120, Completion: 30}, GuardCounts: map[string]int{"repeat_guard": 1},
				Finish: c.finish}
		}
		pair := results.PairID("zoo", task.ID, 1)
		id := results.AttemptID(ServedVariant, pair)
		// bench mcp serve's ending: the state read from the still open environment, the record, the trajectory.
		servedDir := t.TempDir()
		sw, err := results.OpenWriter(servedDir)
		if err != nil {
			t.Fatal(err)
		}
		servedTr := traj()
		served, err := ConcludeServed(ctx, sw, stateEnv{state}, Served{Task: task, Suite: "zoo", AttemptID: id, Seed: seed,
			Guards: guards, Opened: opened, Wall: d}, servedTr)
		sw.Close()
		if err != nil {
			t.Fatalf("%s: ConcludeServed: %v", c.name, err)
		}
		if string(servedTr.State) != string(state) {
			t.Errorf("%s: served trajectory state = %s, want the env's %s", c.name, servedTr.State, state)
		}
		written, err := results.ReadTrajectory(filepath.Join(servedDir, served.Trajectory))
		var st bytes.Buffer
		if err != nil || json.Compact(&st, written.State) != nil || st.String() != string(state) ||
			written.Finish.Reason != c.finish.Reason {
			t.Errorf("%s: served trajectory file %s: %v, state %s", c.name, served.Trajectory, err, st.String())
		}
		pure := ServedRecord(ctx, Served{Task: task, Suite: "zoo", AttemptID: id, Seed: seed, Guards: guards,
			Opened: opened, Wall: d}, servedTr)
		sameRecord(t, c.name+": ConcludeServed vs ServedRecord", served, pure)

		// ServedRecord's identity and timings are its inputs'.
		if served.AttemptID != id || served.PairID != pair || served.Variant != ServedVariant || served.Rep != 1 ||
			served.Seed == nil || *served.Seed != seed || served.TaskID != task.ID || served.Suite != "zoo" ||
			served.Cluster != task.ID || served.Model != "external" || served.DurationMS != 1500 ||
			served.StartedAt != "2026-12-04T20:00:00Z" {
			t.Errorf("%s: served identity/timings = %+v", c.name, served)
		}
		if g := served.Guards; len(g) < 2 || g["intercept_hint"] || !g["repeat_guard"] {
			t.Errorf("%s: served guards = %v, want the defaults with intercept_hint off", c.name, g)
		}
		if served.Status != c.status {
			t.Errorf("%s: served status %s, want %s", c.name, served.Status, c.status)
		}

		// The worker, with the record play builds (identity and timings set independently of ServedRecord).
		dir := t.TempDir()
		w, err := results.OpenWriter(dir)
		if err != nil {
			t.Fatal(err)
		}
		wk := &worker{opts: Options{Log: io.Discard}}
		a := Attempt{AttemptID: id, PairID: pair, Variant: ServedVariant, TaskID: task.ID, Rep: 1, Seed: &seed, Task: &task}
		af := &agentFor{v: &Variant{Name: ServedVariant}, client: client}
		rec := results.Attempt{AttemptID: a.AttemptID, PairID: a.PairID, Variant: a.Variant, TaskID: task.ID,
			Suite: task.Suite, Cluster: task.ID, Rep: 1, Seed: a.Seed, Model: "external", Guards: guardMap(guards),
			StartedAt: "2026-12-04T20:00:00Z", DurationMS: 1500}
		workerTr := traj()
		got := wk.conclude(ctx, rec, a, af, w, stateEnv{state}, nil, nil, workerTr)
		w.Close()
		sameRecord(t, c.name+": worker vs bench mcp serve", got, served)
		if string(workerTr.State) != string(state) {
			t.Errorf("%s: worker trajectory state = %s, want the env's %s", c.name, workerTr.State, state)
		}
		if _, err := os.Stat(filepath.Join(dir, got.Trajectory)); err != nil {
			t.Errorf("%s: worker wrote no trajectory: %v", c.name, err)
		}
	}
}

func sameRecord(t *testing.T, what string, got, want results.Attempt) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("%s:\n got  %s\n want %s", what, g, w)
	}
}
