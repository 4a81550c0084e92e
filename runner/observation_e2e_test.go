package runner

import (
	"strings"
	"testing"

	"webbench/agent"
	"webbench/agent/guard"
	"webbench/browser"
	"webbench/results"
	"webbench/suites"
)

// TestObservationModesPass runs one Zoo booking (stays-book-hotel-miradouro-lisbon: a form filled on the home
// page, then three navigations) through the scripted policy in each observation mode and requires a pass in
// each, with each mode's observations: full shows no diff; diff shows at least one diff (the fills on the home
// page) and still the whole results page after the Search navigation; none shows no snapshot after an action,
// so every snapshot the model saw came from a browser_snapshot it asked for (or stale_ref_refresh's refresh).
func TestObservationModesPass(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s, task := zooTask(t, "stays-book-hotel-miradouro-lisbon")
	model := Model{Kind: "scripted", Name: "scripted", Profile: "clean"}
	var vs []Variant
	for _, o := range agent.Observations {
		vs = append(vs, Variant{Name: string(o), Model: model, Guards: guard.Default(), Seed: e2eSeed,
			Observation: string(o)})
	}
	plan := Plan{Suite: "zoo", Tasks: []suites.Task{task}, Reps: 1, Variants: vs, BaseSeed: 1}
	dir, recs := runByVariant(t, plan, s)
	for _, o := range agent.Observations {
		r := recs[string(o)]
		if r.AttemptID == "" {
			t.Fatalf("%s: no record", o)
		}
		tr := readTrajectory(t, dir, r)
		if r.Status != results.StatusPass {
			t.Errorf("%s: status %s (failure mode %q, finish %q, verdict %q), want pass; %s", o, r.Status,
				r.FailureMode, r.FinishReason, r.Verdict.Reason, describeTrajectory(tr))
			continue
		}
		diffs, wholeAfterAction, asked := 0, 0, 0
		for _, st := range tr.Steps {
			for _, rec := range st.Results {
				res := browser.ParseResult(rec.ShownText()) // as the model read it: a refreshed snapshot alone reads as the snapshot
				isSnap := browser.BaseName(rec.Call.Name) == browser.ToolSnapshot
				if isSnap && res.Snapshot.YAML != "" {
					asked++
				}
				switch {
				case res.Snapshot.YAML == "" || isSnap:
				case rec.Refreshed && o == agent.ObserveNone:
					// stale_ref_refresh's refreshed snapshot (the task runs under ref_churn): a guard's, kept in
					// every mode; with no snapshot of its own before it, the text shows it first.
				case browser.IsSnapshotDiff(res.Snapshot.YAML):
					diffs++
				default:
					wholeAfterAction++
				}
			}
		}
		first := *tr.FirstObservation
		switch o {
		case agent.ObserveFull:
			if diffs != 0 || first.HasNote(agent.ObservationHeading) {
				t.Errorf("full: %d diffs, note on the first observation %v", diffs, first.HasNote(agent.ObservationHeading))
			}
		case agent.ObserveDiff:
			if diffs == 0 || wholeAfterAction == 0 {
				t.Errorf("diff: %d diffs, %d whole snapshots after actions; want both (fills on the home page, "+
					"navigations)", diffs, wholeAfterAction)
			}
		case agent.ObserveNone:
			if diffs != 0 || wholeAfterAction != 0 || asked == 0 || first.Snapshot.YAML != "" ||
				!strings.HasPrefix(first.Notes[len(first.Notes)-1].Body, "none:") {
				t.Errorf("none: %d diffs, %d whole snapshots after actions, %d asked for, first snapshot %d bytes",
					diffs, wholeAfterAction, asked, len(first.Snapshot.YAML))
			}
		}
	}
}

// zooTask opens the Zoo suite (closed when t ends) and returns it with its task id; fatal when there is none.
func zooTask(t *testing.T, id string) (suites.Suite, suites.Task) {
	t.Helper()
	s, err := suites.Open("zoo", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, tk := range s.Tasks() {
		if tk.ID == id {
			return s, tk
		}
	}
	t.Fatalf("zoo has no task %s", id)
	return nil, suites.Task{}
}
