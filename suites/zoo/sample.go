package zoo

import (
	"cmp"
	"slices"

	"webbench/suites"
)

// Family is task t's declared family (ZOO.md "Task families"): the family it is an instance of, or the one its
// `family:` key maps it to; that is its Cluster, the unit its attempts are recorded under. A task without a
// family is its own (its id). A family's tasks run the same pages under the same page conditions towards the
// same kind of end and differ in their data (the product, the channel, the plan), so a test that must exercise
// every mechanism of the Zoo needs one task per family, not every task.
func Family(t suites.Task) string { return cmp.Or(t.Cluster, t.ID) }

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
