// Package bench holds webbench's performance benchmarks: where the time of an evaluation goes. Each
// measurement is a plain function returning its figures (so that `go test -bench` and the report program
// bench/cmd/benchreport share one implementation); `make bench` runs the report program, which prints one
// table and writes BENCHMARKS.md.
//
// The measurements:
//   - MeasureOverhead: a Zoo shop checkout run through runner.Run with the scripted policy (zero model
//     latency) against a plain playwright-go program doing the same clicks and fills on the same Zoo app; an
//     attempt's time outside model and tool calls is split into set-up (tenant, context, start page) and the
//     agent loop's own work.
//   - MeasureSteps: per tool call, webbench's browser tools against @playwright/mcp (MCPVersion, driven
//     over its stdio protocol by MCPClient) on a 40-control checkout form and a 2,000-result page (Pages):
//     action and snapshot latency, stale-ref error latency, observation size; and webbench's browser_click
//     on the checkout page part by part (browser.SessionOptions.Phases: probe, click, settle, snapshot).
//   - MeasureStartup: an attempt's start-up with a fresh context in a running browser against a fresh browser.
//   - MeasureThroughput: attempts per minute at 1, 2 and 4 workers, and the PSS of each worker's browser
//     process tree (/proc/<pid>/smaps_rollup).
//
// Nothing here runs in `go test ./...` without -bench: the Benchmark functions are skipped unless -bench
// selects them, and the unit tests are quick and browser-free.
package bench

import "webbench/browser"

// chromiumPath is the Chromium browser.FindChromium picks (browser.DefaultChromium when none is found, so that
// the launch error names it).
func chromiumPath() string {
	if p, _, err := browser.FindChromium("", true); err == nil {
		return p
	}
	return browser.DefaultChromium
}
