package zoo

import (
	"slices"
	"testing"

	"webbench/suites"
)

func TestFamilyAndSample(t *testing.T) {
	tasks := []suites.Task{
		{ID: "shop-b", App: "shop", Mutations: []string{"ref_churn", "consent"}},
		{ID: "shop-a", App: "shop", Mutations: []string{"consent", "ref_churn"}},
		{ID: "shop-c", App: "shop"},
		{ID: "chat-a", App: "chat", Mutations: []string{"late_hydration"}},
		{ID: "shop-d", App: "shop", Mutations: []string{"consent"}},
		{ID: "shop-e", App: "shop", Mutations: []string{"consent", "ref_churn"}},
	}
	if f := Family(tasks[0]); f != "shop|consent,ref_churn|" {
		t.Errorf("Family = %q, want the app and the sorted mutations", f)
	}
	if Family(tasks[0]) != Family(tasks[1]) || Family(tasks[2]) == Family(tasks[3]) {
		t.Error("the same app and mutations in another order must be one family; other apps, others")
	}
	qa := suites.Task{ID: "shop-q", App: "shop", Check: suites.Check{Answer: &suites.AnswerRule{Exact: "6"}}}
	both := suites.Task{ID: "shop-s", App: "shop", Check: suites.Check{State: map[string]any{}, Answer: &suites.AnswerRule{Number: new(float64)}}}
	if Family(qa) != "shop||answer" || Family(both) != "shop||state+answer" || Family(qa) == Family(tasks[2]) {
		t.Errorf("families of a Q&A task %q and a state+answer task %q: the check's kind must part them", Family(qa), Family(both))
	}
	ids := func(ts []suites.Task) []string {
		var out []string
		for _, x := range ts {
			out = append(out, x.ID)
		}
		return out
	}
	for per, want := range map[int][]string{
		1: {"chat-a", "shop-a", "shop-c", "shop-d"},
		2: {"chat-a", "shop-a", "shop-b", "shop-c", "shop-d"},
		0: {"chat-a", "shop-a", "shop-b", "shop-c", "shop-d", "shop-e"},
	} {
		if got := ids(Sample(tasks, per)); !slices.Equal(got, want) {
			t.Errorf("Sample(per %d) = %v, want %v", per, got, want)
		}
	}
}

// Every built-in family is covered by a sample of one, and the sample is smaller than the Zoo.
func TestSampleCoversEveryBuiltinFamily(t *testing.T) {
	all, err := BuiltinTasks()
	if err != nil {
		t.Fatal(err)
	}
	fams := map[string]bool{}
	for _, x := range all {
		fams[Family(x)] = true
	}
	s := Sample(all, 1)
	got := map[string]bool{}
	for _, x := range s {
		got[Family(x)] = true
	}
	if len(got) != len(fams) || len(s) != len(fams) || len(s) >= len(all) {
		t.Errorf("sample of %d tasks covers %d of %d families (Zoo: %d tasks)", len(s), len(got), len(fams), len(all))
	}
}
