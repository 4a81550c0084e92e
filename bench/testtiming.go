package bench

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// CmdTestTiming records make test's go test passes as JSON for the "make test" section (TestTimingFigures).
const CmdTestTiming = "make test-timing"

// GoalMakeTest bounds `make test`'s wall time on a fresh clone on 2 cores (set-up already done).
const GoalMakeTest = "≤ 15 min"

// TestTimingFigures is where make test's time goes, read from the `go test -json` output of its passes
// (ReadTestJSON): each pass's wall time, each package's and the slowest top-level tests'.
type TestTimingFigures struct {
	// Passes are the files read, in the order given, with the wall time of each: its last event's time minus
	// its first's.
	Passes []TimedName
	// Span is the passes' wall time together, in seconds: the earliest first event of any file to the latest last
	// event of any, so passes that ran side by side (make test runs the determinism test beside the package pass)
	// count once.
	Span float64
	// Packages are every package that ran tests, slowest first: its test binary's elapsed time (go test's
	// "ok … 12.3s"), summed over the passes that ran it.
	Packages []TimedName
	// Slowest are the top-level tests that took longest, slowest first, as "package TestName"; a parallel
	// test's time overlaps its package's other tests.
	Slowest []TimedName
}

// TimedName is a name and a duration in seconds.
type TimedName struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// testEvent is a line of `go test -json` (cmd/test2json: Time, Action, Package, Test, Elapsed in seconds).
type testEvent struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
	// ImportPath names the package of a build-output event (Go 1.24 on: the compiler's output, with no Time),
	// FailedBuild the one whose build failed on a package's fail event.
	ImportPath  string
	FailedBuild string
}

// ReadTestJSON reads `go test -json` outputs (one file per pass; lines that are not JSON events are skipped)
// and keeps the slowest top-level tests. A file with no test event is an error.
func ReadTestJSON(files []string, slowest int) (*TestTimingFigures, error) {
	f := &TestTimingFigures{}
	pkgs := map[string]float64{}
	var tests []TimedName
	var start, end time.Time
	for _, name := range files {
		first, last, err := readTestEvents(name, func(e testEvent) {
			if e.Action != "pass" && e.Action != "fail" {
				return
			}
			pkg := strings.TrimPrefix(e.Package, "webbench/")
			switch {
			case e.Test == "":
				pkgs[pkg] += e.Elapsed
			case !strings.Contains(e.Test, "/"):
				tests = append(tests, TimedName{pkg + " " + e.Test, e.Elapsed})
			}
		})
		if err != nil {
			return nil, err
		}
		f.Passes = append(f.Passes, TimedName{filepath.Base(name), last.Sub(first).Seconds()})
		if start.IsZero() || first.Before(start) {
			start = first
		}
		if last.After(end) {
			end = last
		}
	}
	f.Span = end.Sub(start).Seconds()
	for p, s := range pkgs {
		f.Packages = append(f.Packages, TimedName{p, s})
	}
	slower := func(a, b TimedName) int {
		return cmp.Or(cmp.Compare(b.Seconds, a.Seconds), cmp.Compare(a.Name, b.Name))
	}
	slices.SortFunc(f.Packages, slower)
	slices.SortFunc(tests, slower)
	f.Slowest = tests[:min(slowest, len(tests))]
	return f, nil
}

// readTestEvents calls fn on every event of a `go test -json` file and returns its first and last event times;
// events without a time (build output) reach fn without counting for either.
func readTestEvents(name string, fn func(testEvent)) (first, last time.Time, err error) {
	r, err := os.Open(name)
	if err != nil {
		return first, last, err
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e testEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Action == "" {
			continue
		}
		if e.Time.IsZero() {
			fn(e)
			continue
		}
		if first.IsZero() {
			first = e.Time
		}
		last = e.Time
		fn(e)
	}
	if err := sc.Err(); err != nil {
		return first, last, fmt.Errorf("%s: %w", name, err)
	}
	if first.IsZero() {
		return first, last, fmt.Errorf("%s: no go test -json event", name)
	}
	return first, last, nil
}

// testTimingSection is make test's time: each pass's wall time and theirs together (Span; the goal applies to it
// plus go vet), the packages and the slowest tests.
func testTimingSection(f *TestTimingFigures) section {
	var rows []row
	for _, p := range f.Passes {
		rows = append(rows, row{"wall: " + p.Name, fsec(p.Seconds), "", "", ""})
	}
	rows = append(rows, row{"wall: the passes together", fsec(f.Span), "", "", GoalMakeTest})
	for _, p := range f.Packages {
		rows = append(rows, row{"package " + p.Name, fsec(p.Seconds), "", "", ""})
	}
	for _, t := range f.Slowest {
		rows = append(rows, row{"test " + t.Name, fsec(t.Seconds), "", "", ""})
	}
	return section{
		short: "MAKE TEST (go test -json)", title: "make test — where the time goes (go test -json)",
		first: "seconds", command: CmdTestTiming, rows: rows,
		notes: []string{
			"`make test-timing` runs make test's two passes (the packages four at a time, and beside them the determinism test) with -json into runs/test-timing/; `make bench` reads them when they are there (benchreport -test-json).",
			"A package's figure is its test binary's elapsed time; the packages run four at a time and the determinism test beside them, so the wall is about the longest chain, not their sum. A parallel test's figure overlaps its package's other tests.",
			"Not included: make setup and go vet (about 20 s on a warm cache).",
		},
	}
}

// fsec formats seconds: "631 s", "12.3 s".
func fsec(s float64) string {
	if s >= 100 {
		return fmt.Sprintf("%.0f s", s)
	}
	return fmt.Sprintf("%.1f s", s)
}

// TestFailures is what the failing tests of `go test -json` outputs printed (make test-timing keeps go test's text
// in its files, so it prints this when a pass fails): per file, in order, one block per failed top-level test (its
// subtests' output included; a test still running when its package failed, as at go test's -timeout, counts as
// failed) and per failed package for its output outside tests (a panic, a TestMain) and, when its build failed, the
// compiler's output (go test -json's build-output events, Go 1.24 on), each block headed "=== <file>: <package>
// <test>" ("=== <file>: <package>" for a package's own output). It returns no block when nothing failed; a file
// that cannot be read or holds no event is an error.
func TestFailures(files []string) ([]string, error) {
	type key struct{ pkg, test string }
	var blocks []string
	for _, name := range files {
		out := map[key]*strings.Builder{}
		add := func(k key, text string) {
			if out[k] == nil {
				out[k] = &strings.Builder{}
			}
			out[k].WriteString(text)
		}
		var failed, started []key
		ended := map[key]bool{}
		_, _, err := readTestEvents(name, func(e testEvent) {
			top, _, _ := strings.Cut(e.Test, "/")
			k := key{e.Package, top}
			switch {
			case e.Action == "run" && e.Test == top:
				started = append(started, k)
			case e.Action == "output":
				add(k, e.Output)
			case e.Action == "build-output":
				add(key{"build", e.ImportPath}, e.Output)
			case e.Test != top: // a subtest's end: its top-level test's comes later
			case e.Action == "pass" || e.Action == "skip":
				ended[k] = true
			case e.Action == "fail":
				ended[k] = true
				if e.FailedBuild != "" {
					failed = append(failed, key{"build", e.FailedBuild})
				}
				if top == "" { // a package that failed with tests still running (-timeout): theirs first
					for _, r := range started {
						if r.pkg == e.Package && !ended[r] {
							failed = append(failed, r)
						}
					}
				}
				failed = append(failed, k)
			}
		})
		if err != nil {
			return nil, err
		}
		for _, k := range failed {
			text := ""
			if out[k] != nil {
				text = out[k].String()
			}
			head := strings.TrimSpace(k.pkg + " " + k.test)
			blocks = append(blocks, fmt.Sprintf("=== %s: %s\n%s", filepath.Base(name), head, text))
		}
	}
	return blocks, nil
}
