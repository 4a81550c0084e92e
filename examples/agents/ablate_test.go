package agents_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"webbench/results"
	"webbench/suites"
	_ "webbench/suites/zoo" // registers the zoo suite: the reference list of task ids and guard tags
)

// The bench binary the package's tests run, built once per test process (go build of webbench/cmd/bench) by the
// first test that needs it, and removed with its folder when the tests end (TestMain).
var (
	benchOnce sync.Once
	benchPath string
	benchErr  error
	benchOut  []byte
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchPath != "" {
		_ = os.RemoveAll(filepath.Dir(benchPath))
	}
	os.Exit(code)
}

// buildBench returns the path of a freshly built bench binary (one build per test process).
func buildBench(t *testing.T) string {
	t.Helper()
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agents-bench-")
		if err != nil {
			benchErr = err
			return
		}
		benchPath = filepath.Join(dir, "bench")
		benchOut, benchErr = exec.Command("go", "build", "-o", benchPath, "webbench/cmd/bench").CombinedOutput()
	})
	if benchErr != nil {
		t.Fatalf("go build bench: %v\n%s", benchErr, benchOut)
	}
	return benchPath
}

// needNodeAgent fails the test when the Node agent is not installed and built (`make agents`).
func needNodeAgent(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join("node", "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("examples/agents/node/node_modules is missing: run `make agents` (make test does): %v", err)
	}
	if _, err := os.Stat(filepath.Join("node", "dist", "agent.js")); err != nil {
		t.Fatalf("examples/agents/node/dist/agent.js is missing: run `make agents` to build it: %v", err)
	}
}

// runAblate runs `bench ablate SPEC --out DIR [ARGS…]` (spec relative to this folder), logs its wall time and
// returns the run directory read back with results.Open. A non-zero exit fails the test with the command's output.
func runAblate(t *testing.T, spec string, args ...string) (*results.Run, time.Duration) {
	t.Helper()
	bench := buildBench(t)
	specPath, err := filepath.Abs(spec)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bench, append([]string{"ablate", specPath, "--out", out}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	t.Logf("bench ablate %s: wall time %s", spec, wall.Round(100*time.Millisecond))
	if err != nil {
		t.Fatalf("bench ablate %s: %v\nstdout:\n%s\nstderr:\n%s", spec, err, stdout.String(), stderr.String())
	}
	run, err := results.Open(out)
	if err != nil {
		t.Fatalf("results.Open(%s): %v", out, err)
	}
	return run, wall
}

// zooTasks is the Zoo suite's task list (suites.Open("zoo"); the server starts only on an Open of a task).
func zooTasks(t *testing.T) []suites.Task {
	t.Helper()
	s, err := suites.Open("zoo", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s.Tasks()
}

// reportJSON runs `bench report DIR --format json` and returns the arms it reports (name, passes, judged).
func reportJSON(t *testing.T, dir string) []struct {
	Name   string `json:"name"`
	N      int    `json:"n"`
	Passes int    `json:"passes"`
} {
	t.Helper()
	cmd := exec.Command(buildBench(t), "report", dir, "--format", "json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bench report %s: %v\nstderr:\n%s", dir, err, stderr.String())
	}
	var rep struct {
		Arms []struct {
			Name   string `json:"name"`
			N      int    `json:"n"`
			Passes int    `json:"passes"`
		} `json:"arms"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("bench report --format json: %v\n%s", err, stdout.String())
	}
	return rep.Arms
}

// byArm groups records by variant name, each arm's records sorted by task id.
func byArm(recs []results.Attempt) map[string][]results.Attempt {
	out := map[string][]results.Attempt{}
	for _, a := range recs {
		out[a.Variant] = append(out[a.Variant], a)
	}
	for _, as := range out {
		slices.SortFunc(as, func(a, b results.Attempt) int {
			if a.TaskID < b.TaskID {
				return -1
			}
			if a.TaskID > b.TaskID {
				return 1
			}
			return a.Rep - b.Rep
		})
	}
	return out
}
