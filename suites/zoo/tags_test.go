package zoo

import (
	"strings"
	"testing"

	"webbench/suites"
)

// The tags option keeps the tasks carrying one of its tags, after the instances selection: one instance of each
// family of the five large-effect guards is the PR workflow's gate selection (74 families: 20 + 14 + 14 + 14 + 12,
// each family exercising one mutation, so one guard). A tag no task carries is an error.
func TestSuiteTagsOption(t *testing.T) {
	five := "intercept_hint|snapshot_ready|stale_ref_refresh|evaluate_isolation|visual_progress"
	s, err := NewSuite(suites.Options{"instances": SelectOne, "tags": five})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	fams := map[string]bool{}
	for _, task := range s.Tasks() {
		fams[Family(task)] = true
		n := 0
		for _, g := range strings.Split(five, "|") {
			if task.HasTag(g) {
				per[g]++
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s carries %d of the five guards' tags, want 1", task.ID, n)
		}
	}
	want := map[string]int{"intercept_hint": 20, "snapshot_ready": 14, "stale_ref_refresh": 14, "evaluate_isolation": 14, "visual_progress": 12}
	if len(s.Tasks()) != 74 || len(fams) != 74 {
		t.Errorf("%d tasks in %d families, want 74 in 74", len(s.Tasks()), len(fams))
	}
	for g, n := range want {
		if per[g] != n {
			t.Errorf("%s: %d families, want %d", g, per[g], n)
		}
	}
	if _, err := NewSuite(suites.Options{"tags": "intercept_hint|nope"}); err == nil || !strings.Contains(err.Error(), `no task carries "nope"`) {
		t.Errorf("unknown tag: error %v", err)
	}
}
