package runner

import (
	"fmt"
	"slices"
	"testing"
)

// TestShufflePairs checks the run order of a plan: every attempt once, each pair's arms next to each other in
// Plan.Expand's order, the same order for the same seed, another for another seed, and not task order (the
// point: one app's waiting attempts spread among the others').
func TestShufflePairs(t *testing.T) {
	var todo []Attempt
	for p := range 30 {
		for _, v := range []string{"baseline", "no_a", "no_b"}[:1+p%3] {
			todo = append(todo, Attempt{AttemptID: fmt.Sprintf("%s-%d", v, p), PairID: fmt.Sprintf("p%02d", p), Variant: v})
		}
	}
	ids := func(as []Attempt) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.AttemptID)
		}
		return out
	}
	in := ids(todo)
	got := shufflePairs(slices.Clone(todo), 1)
	if g := ids(got); slices.Equal(g, in) {
		t.Fatal("shufflePairs kept task order")
	} else if sorted, want := slices.Sorted(slices.Values(g)), slices.Sorted(slices.Values(in)); !slices.Equal(sorted, want) {
		t.Fatalf("not a permutation: %v", g)
	}
	if again := ids(shufflePairs(slices.Clone(todo), 1)); !slices.Equal(again, ids(got)) {
		t.Errorf("seed 1 gave two orders:\n%v\n%v", ids(got), again)
	}
	if other := ids(shufflePairs(slices.Clone(todo), 2)); slices.Equal(other, ids(got)) {
		t.Errorf("seeds 1 and 2 gave the same order")
	}
	// Each pair's arms form one run, in their original order.
	seen := map[string]bool{}
	for i := 0; i < len(got); {
		p := got[i].PairID
		if seen[p] {
			t.Fatalf("pair %s split: %v", p, ids(got))
		}
		seen[p] = true
		j := i
		for j < len(got) && got[j].PairID == p {
			j++
		}
		var want []string
		for _, a := range todo {
			if a.PairID == p {
				want = append(want, a.AttemptID)
			}
		}
		if g := ids(got[i:j]); !slices.Equal(g, want) {
			t.Errorf("pair %s: arms %v, want %v", p, g, want)
		}
		i = j
	}
	if len(seen) != 30 {
		t.Errorf("%d pairs, want 30", len(seen))
	}
	if n := len(shufflePairs(nil, 1)); n != 0 {
		t.Errorf("empty todo gave %d attempts", n)
	}
}

// TestShufflePairsMostArmsFirst checks the sort after the shuffle: pairs with more attempts first (an ablation
// with scope: target gives the tasks several guards target more arms), equal counts in the shuffled order.
func TestShufflePairsMostArmsFirst(t *testing.T) {
	var todo []Attempt
	arms := map[string]int{}
	for p := range 24 {
		pair := fmt.Sprintf("p%02d", p)
		arms[pair] = 1 + p%4
		for _, v := range []string{"baseline", "no_a", "no_b", "no_c"}[:arms[pair]] {
			todo = append(todo, Attempt{AttemptID: v + "-" + pair, PairID: pair, Variant: v})
		}
	}
	got := shufflePairs(slices.Clone(todo), 1)
	if len(got) != len(todo) {
		t.Fatalf("%d attempts, want %d", len(got), len(todo))
	}
	var order []string
	for i, a := range got {
		if i == 0 || got[i-1].PairID != a.PairID {
			order = append(order, a.PairID)
		}
	}
	if len(order) != 24 {
		t.Fatalf("%d runs of pairs, want 24 (a pair split): %v", len(order), order)
	}
	for i := 1; i < len(order); i++ {
		if arms[order[i-1]] < arms[order[i]] {
			t.Fatalf("pair %s (%d arms) after %s (%d arms): %v", order[i], arms[order[i]], order[i-1],
				arms[order[i-1]], order)
		}
	}
	// The four-arm pairs first (p03, p07, …, p23), not in task order: the shuffle still orders equal counts.
	four := order[:6]
	for _, p := range four {
		if arms[p] != 4 {
			t.Fatalf("first six pairs %v, want the six with four arms", four)
		}
	}
	if slices.IsSorted(four) {
		t.Errorf("the four-arm pairs in task order %v: the shuffle is lost", four)
	}
}
