package main

import (
	"strings"
	"testing"
)

// A flag value outside its closed set is a usage error (exit 2) naming the flag, the value, the nearest valid
// one and the valid ones, before anything runs.
func TestFlagClosedSets(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--suite", "zooo", "--dry-run"}, `--suite: unknown suite "zooo" (did you mean "zoo"?) (valid: `},
		{[]string{"run", "--suite", "zoo", "--profile", "observd", "--dry-run"},
			`--profile: unknown fault profile "observd" (did you mean "observed"?) (valid: clean, harsh, observed; or a YAML file path)`},
		{[]string{"run", "--suite", "zoo", "--model", "scripted:harhs", "--dry-run"},
			`--model: unknown fault profile "harhs" (did you mean "harsh"?)`},
		{[]string{"run", "--suite", "zoo", "--observation", "dif", "--dry-run"},
			`--observation: unknown observation snapshot mode "dif" (did you mean "diff"?) (valid: full, diff, none)`},
		{[]string{"run", "--suite", "zoo", "--guards", "final_recovry=off", "--dry-run"},
			`--guards: guard: unknown guard "final_recovry" (did you mean "final_recovery"?)`},
		{[]string{"power", "--tasks", "10", "--pairing", "same-sed"},
			`--pairing: unknown pairing "same-sed" (did you mean "same-seed"?) (valid: same-seed, independent, sticky)`},
		{[]string{"power", "--from", "x", "--outcome", "tokns"},
			`--outcome: unknown cost outcome "tokns" (did you mean "tokens"?)`},
	} {
		_, stderr, code := bench(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q\nwant %q", c.args, code, stderr, c.want)
		}
	}
}
