package bench

import (
	"context"
	"fmt"
	"testing"

	"webbench/browser"
)

// The Go benchmarks measure single operations with the testing package's b.N loop; they run only with -bench,
// e.g. `go test -run '^$' -bench . -benchtime 5x ./bench/` (or -bench 'Tool/webbench/results'). The figures
// of BENCHMARKS.md come from the Measure functions via bench/cmd/benchreport instead (interleaved sides,
// several runs, ratios).

// needBrowser skips when the Playwright driver cannot start (not installed: `make setup`).
func needBrowser(b *testing.B) {
	b.Helper()
	drv, err := browser.StartDriver(browser.DriverOptions{})
	if err != nil {
		b.Skip("Playwright driver not installed (make setup): " + err.Error())
	}
	_ = drv.Stop()
}

// needMCP skips when @playwright/mcp is not installed in bench/mcp (`make bench` installs it).
func needMCP(b *testing.B) {
	b.Helper()
	if _, err := MCPCLIPath(""); err != nil {
		b.Skip(err.Error())
	}
}

// openWebbench opens a driver, a browser and a session; the cleanup closes them.
func openWebbench(b *testing.B) toolSide {
	b.Helper()
	needBrowser(b)
	drv, err := browser.StartDriver(browser.DriverOptions{})
	if err != nil {
		b.Fatal(err)
	}
	br, err := drv.Launch(browser.LaunchOptions{ExecutablePath: chromiumPath(), Headless: true})
	if err != nil {
		drv.Stop()
		b.Fatal(err)
	}
	s, err := br.NewSession(browser.SessionOptions{})
	if err != nil {
		br.Close()
		drv.Stop()
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(); br.Close(); drv.Stop() })
	return webbenchSide{s}
}

// openMCP starts the MCP server; the cleanup closes it.
func openMCP(b *testing.B) toolSide {
	b.Helper()
	needMCP(b)
	c, err := StartMCP(context.Background(), MCPOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return mcpSide{c}
}

// BenchmarkTool times one tool call per iteration: browser_snapshot, browser_click on a checkbox, browser_type
// into a text box (on the pages that have one: the checkout's "City"), and browser_click on an unknown ref, on
// each page, for webbench and @playwright/mcp.
func BenchmarkTool(b *testing.B) {
	pages, err := StartPages()
	if err != nil {
		b.Fatal(err)
	}
	defer pages.Close()
	for _, sideName := range []string{"webbench", "mcp"} {
		b.Run(sideName, func(b *testing.B) {
			var side toolSide
			if sideName == "webbench" {
				side = openWebbench(b)
			} else {
				side = openMCP(b)
			}
			ctx := context.Background()
			for _, sp := range stepPages {
				b.Run(sp.path[1:], func(b *testing.B) {
					if _, err := mustOK(ctx, side, browser.ToolNavigate, map[string]any{"url": pages.URL(sp.path)}); err != nil {
						b.Fatal(err)
					}
					snap, err := mustOK(ctx, side, browser.ToolSnapshot, nil)
					if err != nil {
						b.Fatal(err)
					}
					ref, err := refOf(snap, `checkbox "`+sp.clickLabel+`"`)
					if err != nil {
						b.Fatal(err)
					}
					type call struct {
						name    string
						tool    browser.ToolName
						args    map[string]any
						wantErr bool
					}
					calls := []call{
						{"snapshot", browser.ToolSnapshot, nil, false},
						{"click", browser.ToolClick, map[string]any{"element": sp.clickLabel, "target": ref}, false},
					}
					if sp.typeLabel != "" {
						typeRef, err := refOf(snap, `textbox "`+sp.typeLabel+`"`)
						if err != nil {
							b.Fatal(err)
						}
						calls = append(calls, call{"type", browser.ToolType, map[string]any{"element": sp.typeLabel,
							"target": typeRef, "text": "Portland"}, false})
					}
					calls = append(calls, call{"stale_ref", browser.ToolClick, map[string]any{"element": "gone", "target": "e99999"}, true})
					for _, c := range calls {
						b.Run(c.name, func(b *testing.B) {
							bytes := 0
							for i := 0; i < b.N; i++ {
								r, _, err := timed(ctx, side, c.tool, c.args)
								if err != nil {
									b.Fatal(err)
								}
								if r.isErr != c.wantErr {
									b.Fatalf("%s: error %v, want %v: %.300s", c.tool, r.isErr, c.wantErr, r.text)
								}
								bytes = len(r.text)
							}
							b.ReportMetric(float64(bytes), "obs-bytes")
						})
					}
				})
			}
		})
	}
}

// BenchmarkStartup times an attempt's start-up per iteration: a context in a running browser, a fresh
// browser, a fresh MCP server (MeasureStartup with one rep per iteration).
func BenchmarkStartup(b *testing.B) {
	needBrowser(b)
	needMCP(b)
	var f StartupFigures
	for i := 0; i < b.N; i++ {
		var err error
		if f, err = MeasureStartup(context.Background(), StartupOptions{Reps: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(f.Context.MedianMS, "context-ms")
	b.ReportMetric(f.Browser.MedianMS, "browser-ms")
	b.ReportMetric(f.MCP.MedianMS, "mcp-ms")
}

// BenchmarkOverhead runs one webbench attempt and one direct playwright-go attempt of OverheadTask per
// iteration and reports the per-attempt ratio.
func BenchmarkOverhead(b *testing.B) {
	needBrowser(b)
	var f OverheadFigures
	for i := 0; i < b.N; i++ {
		var err error
		if f, err = MeasureOverhead(context.Background(), OverheadOptions{Runs: 1, Attempts: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(f.AttemptRatio, "webbench/direct")
	b.ReportMetric(f.AttemptWebbench.MedianMS, "webbench-ms")
	b.ReportMetric(f.AttemptDirect.MedianMS, "direct-ms")
}

// BenchmarkThroughput runs the ThroughputTasks batch once per iteration at 1, 2 and 4 workers.
func BenchmarkThroughput(b *testing.B) {
	needBrowser(b)
	for _, w := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			var f []ThroughputFigures
			for i := 0; i < b.N; i++ {
				var err error
				if f, err = MeasureThroughput(context.Background(), ThroughputOptions{Workers: []int{w}, Runs: 1, Reps: 1}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(f[0].PerMinute, "attempts/min")
			b.ReportMetric(float64(f[0].WorkerPSS)/(1<<20), "MiB/worker")
		})
	}
}
