package main

import (
	"regexp"
	"testing"

	"webbench/suites"

	"github.com/spf13/cobra"
)

// Every `--tasks ID` in a command's help examples names a Zoo task that exists (a help example naming no task
// fails on the first try of the user who copies it).
func TestHelpExamplesNameRealTasks(t *testing.T) {
	s, err := suites.Open("zoo", nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, tk := range s.Tasks() {
		ids[tk.ID] = true
	}
	cmds := []*cobra.Command{runCmd(), reportCmd(), suitesCmd(), policyCmd(), zooCmd()}
	for _, c := range extraCommands {
		cmds = append(cmds, c())
	}
	// Task ids have a letter and a dash (bench power's --tasks is a count).
	re := regexp.MustCompile(`--tasks[ =]([a-z][a-z0-9]*-[a-z0-9-]+)(?:\s|$)`)
	seen := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, m := range re.FindAllStringSubmatch(c.Example, -1) {
			seen++
			if !ids[m[1]] {
				t.Errorf("%s: example --tasks %s: no such Zoo task", c.CommandPath(), m[1])
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	for _, c := range cmds {
		walk(c)
	}
	if seen == 0 {
		t.Fatal("no example names a task: the pattern is wrong")
	}
}
