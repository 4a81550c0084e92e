package main

import (
	"encoding/json"
	"path"
	"strings"
	"testing"
)

// bench ablate --tasks replaces the spec's task globs (the nightly workflow's `tasks` input): the plan holds only
// matching tasks, each arm on its scope's share (demo.yaml's scope: target, so no_repeat_guard runs the Q&A tasks
// tagged repeat_guard, the baseline their union with the chat task's); a glob that matches nothing, or an empty
// value, is refused.
func TestAblateTasksFlag(t *testing.T) {
	out, stderr, code := bench(t, "ablate", "suites/zoo/ablations/demo.yaml", "--dry-run", "--json",
		"--tasks", "shop-qa-*,chat-post-off-topic-sam")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var p struct {
		Attempts []struct {
			TaskID  string `json:"task_id"`
			Variant string `json:"variant"`
		} `json:"attempts"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	byArm := map[string]map[string]bool{}
	for _, a := range p.Attempts {
		okQA, _ := path.Match("shop-qa-*", a.TaskID)
		if !okQA && a.TaskID != "chat-post-off-topic-sam" {
			t.Errorf("attempt on %s: not selected by --tasks", a.TaskID)
		}
		if byArm[a.Variant] == nil {
			byArm[a.Variant] = map[string]bool{}
		}
		byArm[a.Variant][a.TaskID] = true
	}
	// suites/zoo/tasks/shop.yaml: four shop-qa-* tasks, all tagged repeat_guard and final_recovery (one also
	// intercept_hint); chat-post-off-topic-sam is tagged snapshot_ready. Two reps each.
	want := map[string]int{"baseline": 5, "no_repeat_guard": 4, "no_final_recovery": 4, "no_intercept_hint": 1, "no_snapshot_ready": 1}
	for arm, n := range want {
		if len(byArm[arm]) != n {
			t.Errorf("%s runs on %d tasks %v, want %d", arm, len(byArm[arm]), byArm[arm], n)
		}
	}
	if total := (5 + 4 + 4 + 1 + 1) * 2; len(p.Attempts) != total {
		t.Errorf("%d attempts, want %d", len(p.Attempts), total)
	}
	for _, c := range []struct{ val, want string }{
		{"shop-qq-*", `glob "shop-qq-*" matches no task`},
		{" ", "--tasks needs comma-separated task id globs"},
	} {
		_, stderr, code := bench(t, "ablate", "suites/zoo/ablations/demo.yaml", "--dry-run", "--tasks", c.val)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("--tasks %q: exit %d, %q; want exit 2 and %q", c.val, code, stderr, c.want)
		}
	}
}
