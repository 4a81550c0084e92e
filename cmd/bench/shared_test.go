package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"webbench/results"
)

// The package's shared fixtures: runs that several tests read, made once per test binary by the first test that
// asks (sync.OnceValues), in the binary's folder (removed by TestMain). A test only reads them: a run directory
// it must change (resume, report --format html, which writes report.html) stays its own.

// shared is the fixture that get makes (a sync.OnceValues below), failing the test when it could not be made.
func shared[T any](t *testing.T, get func() (T, error)) T {
	t.Helper()
	v, err := get()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// gateWholeRun is an unsharded `bench ablate` run of a spec: the spec file and the run directory.
type gateWholeRun struct {
	spec, dir string
}

// gateWhole is the unsharded run of the gate spec over visualProgressTargets[:3] (gateSpec: 3 tasks, the
// baseline and no_visual_progress, 6 attempts): TestK8sPodsCommandsMergedEqualUnsharded compares the pods'
// merged run, a second run of the spec with the same seeds, with it. Three tasks are the fewest that give each
// of the three shard pods a pair: their pair ids fall on shards 2, 1 and 3.
var gateWhole = sync.OnceValues(func() (gateWholeRun, error) {
	dir, err := os.MkdirTemp(filepath.Dir(benchBin), "gate-whole")
	if err != nil {
		return gateWholeRun{}, err
	}
	spec, err := writeGateSpec(dir, visualProgressTargets[:3])
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

// killedRun is a `bench run` of twoShopTasks (2 reps, 2 workers, the clean scripted policy: 4 attempts) killed
// with SIGKILL, its whole process group, once its first attempt is recorded, then resumed to its end with the
// same command.
type killedRun struct {
	args         []string // the command's arguments, --out dir last
	dir          string   // the run directory
	killedAt     int      // lines of attempts.jsonl when it was killed
	resumeStderr string   // the resumed run's standard error
	resumeCode   int      // and its exit code
}

// killedThenResumed is the shared killedRun: TestSigkillThenResume checks its records, and
// TestShardsMergedEqualUnsharded takes it as its unsharded run (the same command), which also shows that the
// resumed run's attempts are those of the sharded ones.
var killedThenResumed = sync.OnceValues(func() (killedRun, error) {
	dir, err := os.MkdirTemp(filepath.Dir(benchBin), "killed")
	if err != nil {
		return killedRun{}, err
	}
	k := killedRun{dir: filepath.Join(dir, "run")}
	k.args = []string{"run", "--suite", "zoo", "--tasks", twoShopTasks, "--reps", "2", "--workers", "2",
		"--model", "scripted", "--profile", "clean", "--out", k.dir}
	cmd := exec.Command(benchBin, k.args...)
	cmd.Dir = "../.."
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return k, err
	}
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(k.dir, "attempts.jsonl")); err == nil && bytes.Count(b, []byte("\n")) >= 1 {
			break
		}
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the whole group: bench, its driver and browsers
	cmd.Wait()
	if b, err := os.ReadFile(filepath.Join(k.dir, "attempts.jsonl")); err == nil {
		k.killedAt = bytes.Count(b, []byte("\n"))
	}
	_, k.resumeStderr, k.resumeCode, err = runBench(nil, k.args...)
	return k, err
})
