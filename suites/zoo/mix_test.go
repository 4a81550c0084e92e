package zoo

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"webbench/suites"
)

// mixCounts counts a selection's tasks per mix pool ("" clean) and its families per pool.
func mixCounts(tasks []suites.Task) (map[string]int, map[string]map[string]bool) {
	n, fams := map[string]int{}, map[string]map[string]bool{}
	for _, t := range tasks {
		p := mixPool(t)
		n[p]++
		if fams[p] == nil {
			fams[p] = map[string]bool{}
		}
		fams[p][Family(t)] = true
	}
	return n, fams
}

// The realistic mix over the built-in Zoo: every failure mode at its seed's share of the selection (within
// rounding to whole tasks), the rest clean, spread over the families, the same for the same seed, and another
// seed draws other instances in the same numbers.
func TestRealisticMix(t *testing.T) {
	all, err := BuiltinInstances()
	if err != nil {
		t.Fatal(err)
	}
	mix, err := SelectMix(all, 1)
	if err != nil {
		t.Fatal(err)
	}
	n, fams := mixCounts(mix)
	total := float64(len(mix))
	t.Logf("%d tasks: %v", len(mix), n)
	if len(mix) < 100 {
		t.Errorf("the mix has %d tasks, want ≥ 100", len(mix))
	}
	avail, availFams := mixCounts(all)
	for _, m := range RealisticMix {
		share := float64(n[m.Guard]) / total
		// One task either way is rounding; the floor of one task holds every mode.
		if math.Abs(share-m.Share())*total > 1 {
			t.Errorf("%s: %d of %d tasks (%.3f), want %d/%d = %.3f", m.Guard, n[m.Guard], len(mix), share, m.Count,
				m.Of, m.Share())
		}
		// Spread: as many of the mode's families as its count allows.
		if want := min(n[m.Guard], len(availFams[m.Guard])); len(fams[m.Guard]) != want {
			t.Errorf("%s: %d tasks from %d families, want %d families", m.Guard, n[m.Guard], len(fams[m.Guard]), want)
		}
		if n[m.Guard] > avail[m.Guard] {
			t.Errorf("%s: %d selected of %d available", m.Guard, n[m.Guard], avail[m.Guard])
		}
	}
	if n["-"] != 0 || n[""] == 0 || n[""] > avail[""] {
		t.Errorf("clean %d (of %d), uncounted %d", n[""], avail[""], n["-"])
	}
	again, _ := SelectMix(all, 1)
	if !slices.EqualFunc(mix, again, func(a, b suites.Task) bool { return a.ID == b.ID }) {
		t.Error("the same seed drew another mix")
	}
	other, _ := SelectMix(all, 2)
	on, _ := mixCounts(other)
	if fmt.Sprint(on) != fmt.Sprint(n) || slices.EqualFunc(mix, other, func(a, b suites.Task) bool { return a.ID == b.ID }) {
		t.Errorf("seed 2: counts %v (seed 1: %v), or the same tasks", on, n)
	}
}

// Adding families keeps the shares: the mix of a doubled pool (every task twice, under new family ids) has the
// same shares and about twice the tasks.
func TestRealisticMixGrowsWithFamilies(t *testing.T) {
	all, err := BuiltinInstances()
	if err != nil {
		t.Fatal(err)
	}
	doubled := append([]suites.Task(nil), all...)
	for _, tk := range all {
		tk.ID, tk.Cluster = "copy-"+tk.ID, "copy-"+Family(tk)
		doubled = append(doubled, tk)
	}
	small, _ := SelectMix(all, 1)
	big, err := SelectMix(doubled, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(big) < 2*len(small)-2 || len(big) > 2*len(small)+2 {
		t.Errorf("doubled pool: %d tasks, want about 2 × %d", len(big), len(small))
	}
	nb, _ := mixCounts(big)
	for _, m := range RealisticMix {
		if got := float64(nb[m.Guard]) / float64(len(big)); math.Abs(got-m.Share())*float64(len(big)) > 1 {
			t.Errorf("%s: share %.3f in the doubled mix, want %.3f", m.Guard, got, m.Share())
		}
	}
}

// The suite option: mix=realistic selects the mix from every instance; a bad value or seed is refused; a mode
// without tasks is an error naming it.
func TestMixOption(t *testing.T) {
	s, err := NewSuite(suites.Options{"mix": MixRealistic})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := BuiltinInstances()
	want, _ := SelectMix(all, 1)
	if got := s.Tasks(); len(got) != len(want) || got[0].ID != want[0].ID {
		t.Errorf("suite option mix: %d tasks, SelectMix %d", len(got), len(want))
	}
	if _, err := NewSuite(suites.Options{"mix": "typical"}); err == nil || !strings.Contains(err.Error(), `unknown mix "typical" (valid: realistic)`) {
		t.Errorf("mix=typical: %v", err)
	}
	if _, err := NewSuite(suites.Options{"mix": MixRealistic, "mix_seed": "-1"}); err == nil {
		t.Error("mix_seed=-1 accepted")
	}
	var clean []suites.Task
	for _, tk := range all {
		if len(tk.Mutations) == 0 {
			clean = append(clean, tk)
		}
	}
	if _, err := SelectMix(clean, 1); err == nil || !strings.Contains(err.Error(), "no task exercises intercept_hint") {
		t.Errorf("a pool without mutated tasks: %v", err)
	}
}

// A failure mode's few tasks come from as many apps as its families are on (or as it has tasks).
func TestRealisticMixSpreadsOverApps(t *testing.T) {
	all, err := BuiltinInstances()
	if err != nil {
		t.Fatal(err)
	}
	mix, _ := SelectMix(all, 1)
	apps, availApps := map[string]map[string]bool{}, map[string]map[string]bool{}
	for _, set := range []struct {
		tasks []suites.Task
		into  map[string]map[string]bool
	}{{mix, apps}, {all, availApps}} {
		for _, tk := range set.tasks {
			p := mixPool(tk)
			if set.into[p] == nil {
				set.into[p] = map[string]bool{}
			}
			set.into[p][tk.App] = true
		}
	}
	n, _ := mixCounts(mix)
	for _, m := range RealisticMix {
		if want := min(n[m.Guard], len(availApps[m.Guard])); len(apps[m.Guard]) != want {
			t.Errorf("%s: the mix's %d tasks are on %d apps, want %d (its families are on %d)", m.Guard, n[m.Guard],
				len(apps[m.Guard]), want, len(availApps[m.Guard]))
		}
	}
}
