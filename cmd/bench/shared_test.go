package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"webbench/results"
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
// merged run, a second run of the spec with the same seeds, with it.
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

// mistypedRun is a `bench run` over endpointTasks (workers 2) against a replay endpoint of its own, first with a
// mistyped model name (openai:gpt-4o-mnii: the endpoint's recorded 404 model_not_found), then with the right one
// (openai:scripted: the plain scripted policy through the endpoint) on the same directory.
type mistypedRun struct {
	url, dir      string            // the endpoint's base URL and the run directory
	stopStderr    string            // the mistyped run's standard error
	stopCode      int               // and its exit code
	afterStop     []results.Attempt // the records the mistyped run left (none is right)
	mistypedCalls int               // chat requests the endpoint got for gpt-4o-mnii
	fixStderr     string            // the second run's standard error
	fixCode       int               // and its exit code
}

// mistypedThenFixed is the shared mistypedRun: TestMistypedModelExitsTwoAndResumes checks both runs,
// TestReasoningShapePassesLikePlain compares its reasoning run with the second.
var mistypedThenFixed = sync.OnceValues(func() (mistypedRun, error) {
	e, stop, err := newEndpoint()
	if err != nil {
		return mistypedRun{}, err
	}
	defer stop()
	dir, err := os.MkdirTemp(filepath.Dir(benchBin), "mistyped")
	if err != nil {
		return mistypedRun{}, err
	}
	m := mistypedRun{url: e.url, dir: filepath.Join(dir, "run")}
	if _, m.stopStderr, m.stopCode, err = runBench(nil, endpointRun(e, m.dir, "gpt-4o-mnii")...); err != nil {
		return m, err
	}
	rr, err := results.ReadAttempts(m.dir)
	switch {
	case err == nil:
		m.afterStop = rr.Records
	case !os.IsNotExist(err):
		return m, err
	}
	m.mistypedCalls = e.Calls("gpt-4o-mnii")
	_, m.fixStderr, m.fixCode, err = runBench(nil, endpointRun(e, m.dir, "scripted")...)
	return m, err
})

// sharedMistypedRun is mistypedThenFixed, failing the test when the runs could not be made.
func sharedMistypedRun(t *testing.T) mistypedRun {
	t.Helper()
	m, err := mistypedThenFixed()
	if err != nil {
		t.Fatal(err)
	}
	return m
}
