package main

import (
	"strings"
	"testing"
)

// bench run --observation: a bad mode, and the flag beside an external agent, are usage errors (exit 2) before
// anything runs.
func TestObservationFlag(t *testing.T) {
	_, errOut, code := bench(t, "run", "--suite", "zoo", "--observation", "incremental", "--dry-run")
	if code != 2 || !strings.Contains(errOut, `--observation: unknown observation snapshot mode "incremental" (valid: full, diff, none)`) {
		t.Errorf("bad mode: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = bench(t, "run", "--suite", "zoo", "--observation", "diff", "--agent-cmd", "/bin/true", "--dry-run")
	if code != 2 || !strings.Contains(errOut, "--observation: the built-in agent's observation mode") {
		t.Errorf("beside --agent-cmd: exit %d, stderr %q", code, errOut)
	}
}
