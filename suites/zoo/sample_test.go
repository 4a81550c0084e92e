package zoo

import (
	"slices"
	"testing"

	"webbench/suites"
)

func TestFamilyAndSample(t *testing.T) {
	tasks := []suites.Task{
		{ID: "shop-b", App: "shop", Cluster: "shop-cart"},
		{ID: "shop-a", App: "shop", Cluster: "shop-cart"},
		{ID: "shop-c", App: "shop"},
		{ID: "chat-a", App: "chat", Cluster: "chat-post"},
		{ID: "shop-cart/d", App: "shop", Cluster: "shop-cart"},
		{ID: "shop-e", App: "shop", Cluster: "shop-qa"},
	}
	if f := Family(tasks[0]); f != "shop-cart" {
		t.Errorf("Family = %q, want the declared family (the cluster)", f)
	}
	if f := Family(tasks[2]); f != "shop-c" {
		t.Errorf("Family of a task without one = %q, want its id", f)
	}
	ids := func(ts []suites.Task) []string {
		var out []string
		for _, x := range ts {
			out = append(out, x.ID)
		}
		return out
	}
	for per, want := range map[int][]string{
		1: {"chat-a", "shop-a", "shop-c", "shop-e"},
		2: {"chat-a", "shop-a", "shop-b", "shop-c", "shop-e"},
		0: {"chat-a", "shop-a", "shop-b", "shop-c", "shop-cart/d", "shop-e"},
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
