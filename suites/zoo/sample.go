package zoo

import (
	"cmp"
	"slices"
	"strings"

	"webbench/suites"
)

// Family is the key of task t's family: its app, its sorted mutations and what its check judges — the state, the
// answer or both ("shop|consent,ref_churn|state", "recipes||answer"). Tasks of one family run the same pages
// under the same page conditions towards the same kind of end and differ in their data (the product, the
// channel, the plan), so a test that must exercise every mechanism of the Zoo (every app under every page
// condition, acting and answering) needs one task per family, not every task.
func Family(t suites.Task) string {
	var judged []string
	if t.Check.State != nil {
		judged = append(judged, "state")
	}
	if t.Check.Answer != nil {
		judged = append(judged, "answer")
	}
	ms := slices.Sorted(slices.Values(t.Mutations))
	return t.App + "|" + strings.Join(ms, ",") + "|" + strings.Join(judged, "+")
}

// Sample returns up to per tasks of each family of tasks (Family), the first ones by id, in id order; per ≤ 0
// returns every task. The choice is a fixed function of the task list, so a test that samples runs the same
// tasks on every machine and every run.
func Sample(tasks []suites.Task, per int) []suites.Task {
	sorted := slices.SortedFunc(slices.Values(tasks), func(a, b suites.Task) int { return cmp.Compare(a.ID, b.ID) })
	if per <= 0 {
		return sorted
	}
	taken := map[string]int{}
	var out []suites.Task
	for _, t := range sorted {
		if f := Family(t); taken[f] < per {
			taken[f]++
			out = append(out, t)
		}
	}
	return out
}
