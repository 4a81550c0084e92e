package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The package's shared fixtures: runs that several tests read, made once per test binary by the first test that
// asks (sync.OnceValues), in the binary's folder (removed by TestMain). A test only reads them: a run directory
// it must change (resume, report --format html, which writes report.html) stays its own.

// gateWholeRun is an unsharded `bench ablate` run of a spec: the spec file and the run directory.
type gateWholeRun struct {
	spec, dir string
}

// gateWhole is the unsharded run of the gate spec over visualProgressTargets[1:5] (gateSpec: 4 tasks, the
// baseline and no_visual_progress, 8 attempts): TestK8sPodsCommandsMergedEqualUnsharded compares the pods'
// merged run with it, TestAblationDeterministic runs the spec again and compares the statistics.
var gateWhole = sync.OnceValues(func() (gateWholeRun, error) {
	dir, err := os.MkdirTemp(filepath.Dir(benchBin), "gate-whole")
	if err != nil {
		return gateWholeRun{}, err
	}
	spec, err := writeGateSpec(dir, visualProgressTargets[1:5])
	if err != nil {
		return gateWholeRun{}, err
	}
	out := filepath.Join(dir, "whole")
	_, stderr, code, err := runBench(nil, "ablate", spec, "--out", out)
	if err == nil && code != 0 {
		err = fmt.Errorf("unsharded ablate of %s: exit %d\n%s", spec, code, stderr)
	}
	return gateWholeRun{spec: spec, dir: out}, err
})

// sharedGateWhole is gateWhole, failing the test when the run could not be made.
func sharedGateWhole(t *testing.T) gateWholeRun {
	t.Helper()
	r, err := gateWhole()
	if err != nil {
		t.Fatal(err)
	}
	return r
}
