// Package zootest chooses the Zoo tasks a browser test runs: one per cell of apps and mutations (SampleCells),
// instead of the whole Zoo, so that make test stays fast as the Zoo grows; WholeZooEnv=1 runs every task (the
// nightly and anyone changing the Zoo's pages).
package zootest

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"webbench/suites"
	"webbench/suites/zoo"
)

// WholeZooEnv, set to 1, makes the samplers return every task they are given instead of a sample.
const WholeZooEnv = "WEBBENCH_TEST_WHOLE_ZOO"

// onePerFamily returns the ids of one task of each family (zoo.Family) among tasks, in id order; every task when
// WholeZooEnv is 1. It fails the test when there is none.
func onePerFamily(t testing.TB, tasks []suites.Task) []string {
	t.Helper()
	per := 1
	if os.Getenv(WholeZooEnv) == "1" {
		per = 0
	}
	var ids []string
	for _, task := range zoo.Sample(tasks, per) {
		ids = append(ids, task.ID)
	}
	if len(ids) == 0 {
		t.Fatal("zootest: no Zoo task accepted")
	}
	return ids
}

// FamiliesEnv, set to 1, makes SampleCells return one instance of every family instead of one of every cell
// (make zoo-check sets WholeZooEnv instead: every instance). Set to anything else, it is a regular expression
// (Go syntax, unanchored) over family ids, and SampleCells returns one instance of every family it matches, or
// with WholeZooEnv=1 every instance of them: to check the families one is writing.
const FamiliesEnv = "WEBBENCH_TEST_ZOO_FAMILIES"

// familyFilter is FamiliesEnv as a regular expression, nil when it is empty or 1.
func familyFilter(t testing.TB) *regexp.Regexp {
	t.Helper()
	v := os.Getenv(FamiliesEnv)
	if v == "" || v == "1" {
		return nil
	}
	re, err := regexp.Compile(v)
	if err != nil {
		t.Fatalf("zootest: %s: %v", FamiliesEnv, err)
	}
	return re
}

// CellsEnv, set to 1, makes SampleCells sample one instance per app × mutations, whatever cell its caller asks.
const CellsEnv = "WEBBENCH_TEST_ZOO_CELLS"

// AppMutations is the cell of an instance by its app and its mutations ("shop|consent").
func AppMutations(t suites.Task) string {
	return t.App + "|" + strings.Join(slices.Sorted(slices.Values(t.Mutations)), ",")
}

// App is the cell of an instance by its app.
func App(t suites.Task) string { return t.App }

// Mutations is the cell of an instance by its mutations ("consent", "" for none).
func Mutations(t suites.Task) string {
	return strings.Join(slices.Sorted(slices.Values(t.Mutations)), ",")
}

// SampleCells returns the ids of one family instance (an id "<family>/<slug>") per cell — app × mutations —
// among the Zoo's instances that keep accepts (nil: all), in id order: the first family of a cell by id, its
// first instance. The families of a cell share their pages and their mutation, so a test that plays one of them
// per cell exercises every app's every mutation while the number of families grows; FamiliesEnv=1 takes one
// instance of every family, WholeZooEnv=1 every instance.
//
// cell names the cell of an instance for make test's sample (nil: app × mutations, AppMutations); CellsEnv=1
// takes app × mutations whatever cell says.
func SampleCells(t testing.TB, keep func(suites.Task) bool, cell func(suites.Task) string) []string {
	t.Helper()
	all, err := zoo.BuiltinInstances()
	if err != nil {
		t.Fatal(err)
	}
	return sampleCells(t, all, func(task suites.Task) bool {
		return strings.Contains(task.ID, "/") && (keep == nil || keep(task))
	}, cell)
}

// SampleTaskCells is SampleCells over the hand-written tasks (zoo.BuiltinTasks, the suite's default selection,
// each an instance of its family) instead of the generated instances: one task per cell, the first family of
// the cell by id, its first task by id; FamiliesEnv and CellsEnv as there, WholeZooEnv=1 every accepted task.
// For a test whose tasks come from a spec on the default selection (the demo's).
func SampleTaskCells(t testing.TB, keep func(suites.Task) bool, cell func(suites.Task) string) []string {
	t.Helper()
	all, err := zoo.BuiltinTasks()
	if err != nil {
		t.Fatal(err)
	}
	return sampleCells(t, all, keep, cell)
}

// sampleCells is SampleCells over the tasks of all that keep accepts (nil: all).
func sampleCells(t testing.TB, all []suites.Task, keep func(suites.Task) bool, cell func(suites.Task) string) []string {
	t.Helper()
	fam := familyFilter(t)
	var inst []suites.Task
	for _, task := range all {
		if (keep == nil || keep(task)) && (fam == nil || fam.MatchString(zoo.Family(task))) {
			inst = append(inst, task)
		}
	}
	if os.Getenv(WholeZooEnv) == "1" || os.Getenv(FamiliesEnv) == "1" || fam != nil {
		return onePerFamily(t, inst)
	}
	if cell == nil || os.Getenv(CellsEnv) == "1" {
		cell = AppMutations
	}
	seen := map[string]bool{}
	var ids []string
	for _, task := range zoo.Sample(inst, 1) { // one task per family, in id order
		if c := cell(task); !seen[c] {
			seen[c] = true
			ids = append(ids, task.ID)
		}
	}
	if len(ids) == 0 {
		t.Fatal("zootest: no Zoo task accepted")
	}
	return ids
}

// SampleAppsMutations is SampleCells by app (every instance) together with SampleCells by mutations (mutated
// instances), in id order, each id once: every app's pages and every mutation met at least once, in about as
// many instances as there are apps and mutations, where app × mutations takes one per pair. CellsEnv=1 takes
// one per app × mutations, FamiliesEnv and WholeZooEnv as in SampleCells.
func SampleAppsMutations(t testing.TB) []string {
	t.Helper()
	ids := SampleCells(t, nil, App)
	ids = append(ids, SampleCells(t, func(task suites.Task) bool { return len(task.Mutations) > 0 }, Mutations)...)
	slices.Sort(ids)
	return slices.Compact(ids)
}
