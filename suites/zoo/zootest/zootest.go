// Package zootest chooses the Zoo tasks a browser test runs: one or a few tasks of every family (zoo.Sample)
// instead of the whole Zoo, so that make test stays fast as the Zoo grows; WholeZooEnv=1 runs every task (the
// nightly and anyone changing the Zoo's pages).
package zootest

import (
	"os"
	"testing"

	"webbench/suites"
	"webbench/suites/zoo"
)

// WholeZooEnv, set to 1, makes Sample return every task it is given instead of a sample.
const WholeZooEnv = "WEBBENCH_TEST_WHOLE_ZOO"

// Sample returns the ids of per tasks of each family (zoo.Family) among the built-in Zoo tasks (the default
// selection: the hand-written tasks) that keep accepts (nil: all), in id order; every accepted task when
// WholeZooEnv is 1. It fails the test when the Zoo's tasks do not load or none is accepted.
func Sample(t testing.TB, per int, keep func(suites.Task) bool) []string {
	t.Helper()
	all, err := zoo.BuiltinTasks()
	if err != nil {
		t.Fatal(err)
	}
	return sample(t, all, per, keep)
}

// SampleInstances is Sample over every task and family instance of the Zoo (zoo.BuiltinInstances, the suite
// option instances=all).
func SampleInstances(t testing.TB, per int, keep func(suites.Task) bool) []string {
	t.Helper()
	all, err := zoo.BuiltinInstances()
	if err != nil {
		t.Fatal(err)
	}
	return sample(t, all, per, keep)
}

func sample(t testing.TB, all []suites.Task, per int, keep func(suites.Task) bool) []string {
	t.Helper()
	var tasks []suites.Task
	for _, task := range all {
		if keep == nil || keep(task) {
			tasks = append(tasks, task)
		}
	}
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
