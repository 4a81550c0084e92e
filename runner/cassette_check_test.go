package runner

import (
	"strings"
	"testing"

	"webbench/browser/cassette"
	"webbench/suites"
)

// TestReplayRefusesStateJudgedTasks: a replay answers the browser, not the app, so a task judged by the app's
// state would fail whatever the agent did; the plan is refused up front, naming a task, while answer-judged
// tasks replay and a recording takes both.
func TestReplayRefusesStateJudgedTasks(t *testing.T) {
	dir := t.TempDir()
	rec, err := cassette.Create(dir, cassette.Options{})
	if err != nil {
		t.Fatal(err)
	}
	state := suites.Task{ID: "recipes-qa-lasagna-protein", Check: suites.Check{State: map[string]any{"log": []any{}}}}
	answer := suites.Task{ID: "shop-qa-yoga-mat-thickness", Check: suites.Check{Answer: &suites.AnswerRule{Exact: "6 mm"}}}
	plan := Plan{Tasks: []suites.Task{answer, state}, Variants: []Variant{{Name: "baseline"}}}
	if err := checkCassette(plan, Options{Cassette: rec}); err != nil {
		t.Errorf("recording state-judged tasks: %v", err)
	}
	rep, err := cassette.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	err = checkCassette(plan, Options{Cassette: rep})
	if err == nil || !strings.Contains(err.Error(), "1 task is judged by the app's state") ||
		!strings.Contains(err.Error(), "recipes-qa-lasagna-protein") {
		t.Errorf("replaying a state-judged task: %v", err)
	}
	plan.Tasks = plan.Tasks[:1]
	if err := checkCassette(plan, Options{Cassette: rep}); err != nil {
		t.Errorf("replaying answer-judged tasks only: %v", err)
	}
}
