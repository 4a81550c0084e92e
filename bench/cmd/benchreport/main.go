// Command benchreport runs webbench's benchmarks (package bench), prints one table and writes BENCHMARKS.md.
// `make bench` runs it after installing @playwright/mcp into bench/mcp.
//
// Usage:
//
//	go run ./bench/cmd/benchreport [-out BENCHMARKS.md] [-only overhead,steps,startup,throughput,mcp-versions,make-test] [-quick]
//	                               [-json FILE] [-mcp-dir bench/mcp] [-test-json FILE,FILE]
//	go run ./bench/cmd/benchreport -test-fails FILE,FILE
//
// -test-json adds the "make test" section from make test's passes recorded with go test -json (make
// test-timing writes them into runs/test-timing/); it measures nothing itself. -test-fails prints the output of
// the failed tests in such files and exits 1 when there are any, 0 when none; it runs nothing else.
// -quick shrinks every measurement to a smoke test (a minute or so; figures are not meant to be quoted).
// Progress goes to stderr; the table to stdout. Exit status 1 when a measurement fails (the report is still
// written with the sections that completed).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"webbench/bench"
	"webbench/browser"
)

func main() {
	out := flag.String("out", "BENCHMARKS.md", "Markdown report to write (\"\" = none)")
	only := flag.String("only", "", "comma-separated sections to run: overhead, steps, startup, throughput, mcp-versions, make-test (default all; make-test only reads -test-json)")
	quick := flag.Bool("quick", false, "small sizes: a smoke test, not figures to quote")
	jsonOut := flag.String("json", "", "also write the raw figures as JSON to this file")
	testJSON := flag.String("test-json", "", "comma-separated go test -json outputs of make test's passes (make test-timing): adds the make test section")
	testFails := flag.String("test-fails", "", "comma-separated go test -json outputs: print their failed tests' output and exit 1 if any (runs nothing else)")
	mcpDir := flag.String("mcp-dir", "", "@playwright/mcp install folder (default bench/mcp found upward, or $WEBBENCH_MCP_DIR)")
	flag.Parse()
	if *testFails != "" {
		os.Exit(printTestFailures(strings.Split(*testFails, ",")))
	}

	want, err := sections(*only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport: -only:", err)
		os.Exit(2)
	}
	run := func(s string) bool { return len(want) == 0 || want[s] }

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	logf := func(f string, a ...any) {
		fmt.Fprintf(os.Stderr, "[%5.0fs] "+f+"\n", append([]any{time.Since(start).Seconds()}, a...)...)
	}
	if run("steps") || run("startup") {
		if _, err := bench.MCPCLIPath(*mcpDir); err != nil {
			fmt.Fprintln(os.Stderr, "benchreport:", err)
			os.Exit(2)
		}
	}

	chromium, driver := versions()
	rep := &bench.Report{}
	loadStart := bench.LoadAvg()
	rep.Machine = bench.DescribeMachine(chromium, driver, bench.MCPPackageVersion(*mcpDir))
	logf("machine: %d cores, load average %s, Chromium %s, playwright-core %s, @playwright/mcp %s",
		rep.Machine.Cores, loadStart, chromium, driver, rep.Machine.MCP)

	failed := measure(ctx, rep, run, *quick, bench.MCPOptions{Dir: *mcpDir}, logf)
	if *testJSON != "" && run("make-test") {
		if rep.TestTiming, err = bench.ReadTestJSON(strings.Split(*testJSON, ","), 10); err != nil {
			logf("make test timing FAILED: %v", err)
			failed = append(failed, "test-json")
		}
	}
	rep.Elapsed = time.Since(start)
	rep.Machine.LoadAvg = loadStart + " → " + bench.LoadAvg()

	fmt.Println()
	if err := rep.Table(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
	}
	if *out != "" {
		if err := writeMarkdown(rep, *out); err != nil {
			fmt.Fprintln(os.Stderr, "benchreport:", err)
			os.Exit(1)
		}
		logf("wrote %s", *out)
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "benchreport:", err)
		}
	}
	if len(failed) > 0 || ctx.Err() != nil {
		fmt.Fprintf(os.Stderr, "benchreport: failed: %s\n", strings.Join(failed, ", "))
		os.Exit(1)
	}
}

// sections parses -only: the set of named sections (empty: all); an unknown name is an error.
func sections(only string) (map[string]bool, error) {
	want := map[string]bool{}
	for _, s := range strings.Split(only, ",") {
		if s = strings.TrimSpace(s); s != "" {
			switch s {
			case "overhead", "steps", "startup", "throughput", "mcp-versions", "make-test":
				want[s] = true
			default:
				return nil, fmt.Errorf("unknown section %q", s)
			}
		}
	}
	return want, nil
}

// measure runs the sections run selects into rep (small sizes when quick) and returns the names of those that
// failed. It stops starting sections once ctx is done.
func measure(ctx context.Context, rep *bench.Report, run func(string) bool, quick bool, mcpOpts bench.MCPOptions,
	logf func(string, ...any)) (failed []string) {
	fail := func(what string, err error) {
		logf("%s FAILED: %v", what, err)
		failed = append(failed, what)
	}
	size := func(full, small int) int {
		if quick {
			return small
		}
		return full
	}
	if run("overhead") {
		f, err := bench.MeasureOverhead(ctx, bench.OverheadOptions{Runs: size(3, 1), Attempts: size(2, 1), Log: logf})
		if err != nil {
			fail("overhead", err)
		} else {
			rep.Overhead = &f
		}
	}
	if run("steps") && ctx.Err() == nil {
		f, err := bench.MeasureSteps(ctx, bench.StepOptions{Samples: size(11, 3), MCP: mcpOpts, Log: logf})
		if err != nil {
			fail("steps", err)
		} else {
			rep.Steps = f
		}
	}
	if run("startup") && ctx.Err() == nil {
		f, err := bench.MeasureStartup(ctx, bench.StartupOptions{Reps: size(5, 2), MCP: mcpOpts, Log: logf})
		if err != nil {
			fail("startup", err)
		} else {
			rep.Startup = &f
		}
	}
	if run("throughput") && ctx.Err() == nil {
		o := bench.ThroughputOptions{Runs: size(2, 1), Reps: size(2, 1), Log: logf}
		if quick {
			o.Workers = []int{1, 2}
		}
		f, err := bench.MeasureThroughput(ctx, o)
		if err != nil {
			fail("throughput", err)
		} else {
			rep.Throughput = f
		}
	}
	if run("mcp-versions") && ctx.Err() == nil {
		o := bench.MCPVersionsOptions{Log: logf}
		if quick {
			o.Tasks = "shop-qa-yoga-mat-thickness"
		}
		f, err := bench.MeasureMCPVersions(ctx, o)
		if err != nil {
			fail("mcp-versions", err)
		} else {
			rep.MCPVersions = f
		}
	}
	return failed
}

// writeMarkdown writes rep's Markdown report to path.
func writeMarkdown(rep *bench.Report, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	rep.Markdown(f)
	return f.Close()
}

// versions launches the browser once to read its version and the driver's.
func versions() (chromium, driver string) {
	drv, err := browser.StartDriver(browser.DriverOptions{})
	if err != nil {
		return "?", "?"
	}
	defer drv.Stop()
	driver = drv.Version()
	b, err := drv.Launch(browser.LaunchOptions{Headless: true})
	if err != nil {
		return "?", driver
	}
	defer b.Close()
	return b.Version(), driver
}

// printTestFailures prints the failed tests of go test -json files (bench.TestFailures) and returns the exit code:
// 1 when any failed, 2 when a file cannot be read, else 0.
func printTestFailures(files []string) int {
	blocks, err := bench.TestFailures(files)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport: -test-fails:", err)
		return 2
	}
	for _, b := range blocks {
		fmt.Print(b)
	}
	if len(blocks) > 0 {
		return 1
	}
	return 0
}
