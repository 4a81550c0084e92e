package bench

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// ReadTestJSON takes a pass's wall from its first and last events, sums a package's elapsed over the passes,
// keeps top-level tests only (no subtests) slowest first, and skips lines that are not events.
func TestReadTestJSON(t *testing.T) {
	dir := t.TempDir()
	pass := `{"Time":"2026-12-05T10:00:00Z","Action":"start","Package":"webbench/runner"}
# webbench/llm [build failed]
{"Time":"2026-12-05T10:00:01Z","Action":"pass","Package":"webbench/runner","Test":"TestA","Elapsed":40.5}
{"Time":"2026-12-05T10:00:02Z","Action":"pass","Package":"webbench/runner","Test":"TestA/sub","Elapsed":39}
{"Time":"2026-12-05T10:00:03Z","Action":"fail","Package":"webbench/cmd/bench","Test":"TestB","Elapsed":120}
{"Time":"2026-12-05T10:00:04Z","Action":"skip","Package":"webbench/cmd/bench","Test":"TestC","Elapsed":0}
{"Time":"2026-12-05T10:01:00Z","Action":"pass","Package":"webbench/runner","Elapsed":61.25}
{"Time":"2026-12-05T10:10:00Z","Action":"fail","Package":"webbench/cmd/bench","Elapsed":300}
`
	det := `{"Time":"2026-12-05T10:01:05Z","Action":"pass","Package":"webbench/cmd/bench","Test":"TestD","Elapsed":150}
{"Time":"2026-12-05T10:03:35Z","Action":"pass","Package":"webbench/cmd/bench","Elapsed":151}
`
	p1, p2 := filepath.Join(dir, "pass.json"), filepath.Join(dir, "determinism.json")
	os.WriteFile(p1, []byte(pass), 0o644)
	os.WriteFile(p2, []byte(det), 0o644)
	f, err := ReadTestJSON([]string{p1, p2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := &TestTimingFigures{
		Passes:   []TimedName{{"pass.json", 600}, {"determinism.json", 150}},
		Span:     600, // the determinism pass ran within the package pass: counted once
		Packages: []TimedName{{"cmd/bench", 451}, {"runner", 61.25}},
		Slowest:  []TimedName{{"cmd/bench TestD", 150}, {"cmd/bench TestB", 120}},
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("got %+v\nwant %+v", f, want)
	}
	var md bytes.Buffer
	(&Report{TestTiming: f}).Markdown(&md)
	for _, s := range []string{"| wall: pass.json | 600 s |", "| wall: the passes together | 600 s | – | – | ≤ 15 min |",
		"| package cmd/bench | 451 s |", "| package runner | 61.2 s |", "| test cmd/bench TestD | 150 s |", "Command: `make test-timing`"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("markdown lacks %q:\n%s", s, md.String())
		}
	}
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, []byte("FAIL\n"), 0o644)
	if _, err := ReadTestJSON([]string{empty}, 10); err == nil || !strings.Contains(err.Error(), "no go test -json event") {
		t.Errorf("a file with no event: err %v", err)
	}
}

// TestTestFailuresFromGoTestJSON reads real `go test -json` output (a throwaway module run by this machine's go:
// a package with a passing test and a failing one with a failing subtest and a log line, and a package that does
// not compile, and a test that go test's -timeout ends): one block for the failing top-level test, with its
// subtest's output, one for its package's own output, one with the compiler's error for the package that did not
// build, one for the timed-out test with its log and the timeout's panic, none for the passing test.
func TestTestFailuresFromGoTestJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module failing\n\ngo 1.26\n")
	write("x_test.go", `package failing

import "testing"

func TestOK(t *testing.T) { t.Log("quiet") }

func TestBad(t *testing.T) {
	t.Log("before the subtest")
	t.Run("sub", func(t *testing.T) { t.Error("the reason it broke") })
}
`)
	write("slow/s_test.go", "package slow\n\nimport (\n\t\"os\"\n\t\"testing\"\n\t\"time\"\n)\n\n"+
		"func TestSlow(t *testing.T) {\n\tif os.Getenv(\"SLOW\") == \"\" {\n\t\tt.Skip()\n\t}\n"+
		"\tt.Log(\"still working\")\n\ttime.Sleep(time.Minute)\n}\n")
	write("broken/b_test.go", "package broken\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) { undefinedName() }\n")
	cmd := exec.Command("go", "test", "-json", "-count=1", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	js, err := cmd.Output()
	if err == nil {
		t.Fatal("go test of a failing test exited 0")
	}
	// A test that go test's -timeout ends has output but no end event of its own.
	cmd = exec.Command("go", "test", "-json", "-count=1", "-timeout", "3s", "./slow")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "SLOW=1")
	timedOut, _ := cmd.Output()
	write("pass.json", string(js))
	write("slow.json", string(timedOut))
	blocks, err := TestFailures([]string{filepath.Join(dir, "pass.json"), filepath.Join(dir, "slow.json")})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(blocks, "")
	if len(blocks) != 6 {
		t.Fatalf("%d blocks, want TestBad's, its package's, the broken package's build and its package's, TestSlow's "+
			"and its package's:\n%s", len(blocks), all)
	}
	var bad string
	for _, b := range blocks {
		if strings.HasPrefix(b, "=== pass.json: failing TestBad\n") {
			bad = b
		}
	}
	for _, s := range []string{"before the subtest", "the reason it broke", "--- FAIL: TestBad/sub"} {
		if !strings.Contains(bad, s) {
			t.Errorf("TestBad's block lacks %q:\n%s", s, all)
		}
	}
	for _, s := range []string{"=== pass.json: build failing/broken", "undefined: undefinedName", "=== pass.json: failing\n",
		"=== slow.json: failing/slow TestSlow\n", "still working", "panic: test timed out after 3s"} {
		if !strings.Contains(all, s) {
			t.Errorf("blocks lack %q:\n%s", s, all)
		}
	}
	if strings.Contains(all, "quiet") {
		t.Errorf("the passing test's output is in a block:\n%s", all)
	}
}
