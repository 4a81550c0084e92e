package runner

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"webbench/results"
	"webbench/suites"
)

// A checkout is judged by the shop's state through the state judge, and an answer that does not match the
// reference is judged a failure (wrong_answer), in real Chromium with the scripted policy over HTTP.
func TestStateJudgeAndWrongAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	dir := t.TempDir()
	// The same lookup as shop-qa-yoga-mat-thickness, but the reference says 7 mm: the agent's (true) 6 is wrong.
	wrong := `- id: wrong-reference-yoga-mat
  app: shop
  start: /
  goal: Report the Yoga Mat thickness in millimetres (reference deliberately wrong).
  timeout: 60s
  max_steps: 20
  check:
    answer: {number: 7, tolerance: 0}
  solution:
    - click: {role: link, name: Yoga Mat}
    - answer: {from: {role: row, name_regex: '^Thickness: (\d+) mm$'}}
`
	if err := os.WriteFile(filepath.Join(dir, "wrong.yaml"), []byte(wrong), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := suites.Open("zoo", suites.Options{"tasks_dir": dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tasks, err := suites.Filter(s.Tasks(), "wrong-reference-yoga-mat,shop-checkout-cork-blocks-standard")
	if err != nil {
		t.Fatal(err)
	}
	rr := runCleanOnce(t, s, tasks)
	for _, r := range rr.Final() {
		switch r.TaskID {
		case "shop-checkout-cork-blocks-standard":
			if r.Status != results.StatusPass || r.Verdict.Judge != "state" || !r.Verdict.Pass {
				t.Errorf("checkout: %s, verdict %+v", r.Status, r.Verdict)
			}
		case "wrong-reference-yoga-mat":
			if r.Status != results.StatusFail || r.FailureMode != "wrong_answer" || r.Verdict.Judge != "answer" || !r.OK {
				t.Errorf("wrong answer: status %s mode %s verdict %+v ok %v final %q", r.Status, r.FailureMode, r.Verdict, r.OK, r.Final)
			}
		default:
			t.Errorf("unexpected task %s", r.TaskID)
		}
	}
}

// The Zoo Q&A ground-truth tasks (a state check and an answer rule: the recipes tasks that log the number in
// "My nutrition log") are judged by both judges, "state+answer", and pass when the scripted policy plays them
// in real Chromium — the attempts bench report compares the answer judge on, the state judge as ground truth.
func TestZooQAGroundTruthTasksPass(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	s, tasks := zooShop(t, "recipes-qa-banana-bread-calories,recipes-qa-lasagna-protein")
	if len(tasks) != 2 {
		t.Fatalf("want 2 tasks, got %d", len(tasks))
	}
	rr := runCleanOnce(t, s, tasks)
	final := map[string]string{"recipes-qa-banana-bread-calories": "229", "recipes-qa-lasagna-protein": "30"}
	if len(rr.Final()) != 2 {
		t.Fatalf("%d records, want 2", len(rr.Final()))
	}
	for _, r := range rr.Final() {
		if r.Status != results.StatusPass || r.Verdict.Judge != "state+answer" || !r.Verdict.Pass || r.Final != final[r.TaskID] {
			t.Errorf("%s: %s %s, verdict %+v, final %q", r.TaskID, r.Status, r.FailureMode, r.Verdict, r.Final)
		}
	}
}

// runCleanOnce runs tasks of suite s once each with the clean scripted policy (seed 1, two workers) and returns
// the run's records.
func runCleanOnce(t *testing.T, s suites.Suite, tasks []suites.Task) *results.ReadResult {
	t.Helper()
	out := t.TempDir()
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: []Variant{cleanVariant()}, BaseSeed: 1}
	opts := Options{OutDir: out, Workers: 2, Log: io.Discard, BrowserEndpoint: sharedBrowser(t)}
	if _, err := Run(context.Background(), plan, s, opts); err != nil {
		t.Fatal(err)
	}
	rr, err := results.ReadAttempts(out)
	if err != nil {
		t.Fatal(err)
	}
	return rr
}
