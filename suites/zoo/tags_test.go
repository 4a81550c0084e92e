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

// tag_instances gives the families carrying a tag more tasks than instances=one's one: with
// "evaluate_isolation=2" each of that guard's 14 families has two (its hand-written task first, where it has
// one), every other family one, and the one-per-family tasks are those instances=one selects. It needs
// instances=one, N ≥ 1 and a tag some task carries.
func TestSuiteTagInstancesOption(t *testing.T) {
	one, err := NewSuite(suites.Options{"instances": SelectOne})
	if err != nil {
		t.Fatal(err)
	}
	two, err := NewSuite(suites.Options{"instances": SelectOne, "tag_instances": "evaluate_isolation=2"})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, task := range two.Tasks() {
		ids[task.ID] = true
	}
	for _, task := range one.Tasks() {
		if !ids[task.ID] {
			t.Errorf("%s (instances=one) is not among tag_instances' tasks", task.ID)
		}
	}
	per := map[string]int{}
	for _, task := range two.Tasks() {
		per[Family(task)]++
	}
	evalFams := 0
	for _, task := range one.Tasks() {
		want := 1
		if task.HasTag("evaluate_isolation") {
			want = 2
			evalFams++
		}
		if got := per[Family(task)]; got != want {
			t.Errorf("family %s: %d tasks, want %d", Family(task), got, want)
		}
	}
	if evalFams != 14 || len(two.Tasks()) != len(one.Tasks())+14 {
		t.Errorf("%d evaluate_isolation families, %d tasks against %d: want 14 families, 14 more tasks",
			evalFams, len(two.Tasks()), len(one.Tasks()))
	}
	for _, c := range []struct {
		opts suites.Options
		want string
	}{
		{suites.Options{"tag_instances": "evaluate_isolation=2"}, "needs instances=one"},
		{suites.Options{"instances": SelectOne, "tag_instances": "evaluate_isolation=0"}, "want TAG=N"},
		{suites.Options{"instances": SelectOne, "tag_instances": "evaluate_isolation"}, "want TAG=N"},
		{suites.Options{"instances": SelectOne, "tag_instances": "nope=2"}, `no task carries "nope"`},
	} {
		if _, err := NewSuite(c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.opts, err, c.want)
		}
	}
}

// The suite refuses what it does not understand instead of planning its default selection: an unknown option
// key, a selection, mix or tag that is not one, each with the near miss it probably meant.
func TestNewSuiteRefusesUnknownOptions(t *testing.T) {
	for _, c := range []struct {
		opts suites.Options
		want string
	}{
		{suites.Options{"instancs": "one"}, `zoo: unknown option "instancs" (did you mean "instances"?) (valid: tasks_dir, `},
		{suites.Options{"instances": "al"}, `zoo: instances: unknown selection "al" (did you mean "all"?) (valid: tasks, all, one)`},
		{suites.Options{"mix": "realistc"}, `zoo: mix: unknown mix "realistc" (did you mean "realistic"?) (valid: realistic)`},
		{suites.Options{"tag_instances": "evaluate_isolation=2"}, `needs instances=one, got instances=tasks`},
		{suites.Options{"instances": SelectOne, "tag_instances": "evaluate_isolaton=2"},
			`zoo: tag_instances: no task carries "evaluate_isolaton" (did you mean "evaluate_isolation"?)`},
		{suites.Options{"tags": "intercept_hnt"}, `zoo: tags: no task carries "intercept_hnt" (did you mean "intercept_hint"?)`},
	} {
		_, err := NewSuite(c.opts)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) && !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one starting or ending with %q", c.opts, err, c.want)
		}
	}
}
