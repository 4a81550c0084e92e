package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"webbench/browser"
)

// These tests are quick and need no browser: statistics, /proc parsing, the pages, the MCP client against a
// fake stdio server (this test binary re-executed), and the report renderers.

func TestMedianQuantile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	if got := Median(xs); got != 3 {
		t.Errorf("Median odd = %v, want 3", got)
	}
	if got := Median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("Median even = %v, want 2.5", got)
	}
	if !math.IsNaN(Median(nil)) || !math.IsNaN(Quantile(nil, 0.9)) {
		t.Error("empty input should give NaN")
	}
	ten := []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	if got := Quantile(ten, 0.9); got != 9 {
		t.Errorf("p90 of 1..10 = %v, want 9 (nearest rank)", got)
	}
	if got := Quantile(ten, 1); got != 10 {
		t.Errorf("p100 = %v, want 10", got)
	}
	if got := Quantile([]float64{7}, 0.9); got != 7 {
		t.Errorf("p90 of one = %v", got)
	}
	if xs[0] != 5 {
		t.Error("Median sorted its input in place")
	}
	d := NewDist([]float64{1, 2, 3, 100})
	if d.N != 4 || d.MedianMS != 2.5 || d.P90MS != 100 {
		t.Errorf("NewDist = %+v", d)
	}
}

func TestParseStatAndPss(t *testing.T) {
	p, ok := parseStat(42, []byte("42 (my (odd) proc) S 7 42 42 0 -1 4194560 1 0 0 0"))
	if !ok || p.pid != 42 || p.ppid != 7 || p.comm != "my (odd) proc" {
		t.Fatalf("parseStat = %+v %v", p, ok)
	}
	if _, ok := parseStat(1, []byte("garbage")); ok {
		t.Error("garbage parsed")
	}
	rollup := "55d0c0000000-7ffd8d1fe000 ---p 00000000 00:00 0 [rollup]\nRss: 123456 kB\nPss: 98765 kB\nPss_Anon: 1 kB\n"
	kb, err := parsePss(strings.NewReader(rollup))
	if err != nil || kb != 98765 {
		t.Fatalf("parsePss = %d %v, want 98765", kb, err)
	}
	if pss, anon, err := parseRollup(strings.NewReader(rollup)); err != nil || pss != 98765 || anon != 1 {
		t.Fatalf("parseRollup = %d %d %v, want 98765 1", pss, anon, err)
	}
	if _, err := parsePss(strings.NewReader("Rss: 1 kB\n")); err == nil {
		t.Error("missing Pss accepted")
	}
	procs := []proc{{1, 0, "init"}, {10, 1, "node"}, {11, 10, "chromium"}, {12, 11, "chromium"}, {13, 12, "chromium"},
		{20, 1, "other"}, {21, 20, "chromium"}}
	got := fmt.Sprint(descendants(procs, 10))
	if got != "[10 11 12 13]" {
		t.Errorf("descendants = %s", got)
	}
	if !isChromium("chromium") || !isChromium("chrome") || !isChromium("headless_shell") || isChromium("node") {
		t.Error("isChromium")
	}
}

func TestTreePSSOfThisProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/smaps_rollup"); err != nil {
		t.Skip("no /proc/<pid>/smaps_rollup here")
	}
	n, err := TreePSS(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if n < 1<<20 || n > 8<<30 {
		t.Fatalf("PSS of the test process = %d bytes, want between 1 MiB and 8 GiB", n)
	}
	roots, err := BrowserRoots(os.Getpid())
	if err != nil || len(roots) != 0 {
		t.Fatalf("BrowserRoots of a browserless test = %v %v", roots, err)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}

func TestPages(t *testing.T) {
	p, err := StartPages()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	checkout := get(t, p.URL("/checkout"))
	controls := regexp.MustCompile(`<(input|select|textarea|button|a) `).FindAllString(checkout, -1)
	if len(controls) != CheckoutControls {
		t.Errorf("checkout has %d controls, want %d", len(controls), CheckoutControls)
	}
	for _, sp := range stepPages {
		if sp.path == "/checkout" {
			for _, need := range []string{sp.clickLabel, sp.typeLabel, `id="` + sp.removeID + `"`} {
				if !strings.Contains(checkout, need) {
					t.Errorf("checkout lacks %q", need)
				}
			}
		}
	}
	results := get(t, p.URL("/results"))
	if n := strings.Count(results, `<a href="#stay-`); n != ResultCount {
		t.Errorf("results has %d result links, want %d", n, ResultCount)
	}
	if n := strings.Count(results, `type="checkbox"`); n != 5 {
		t.Errorf("results has %d filters, want 5", n)
	}
}

func TestRefOfAndErrorSection(t *testing.T) {
	snap := "- main [ref=e2]:\n  - checkbox \"Pool\" [ref=f3e10]\n  - textbox \"City\" [ref=e11]\n"
	if r, err := refOf(snap, `checkbox "Pool"`); err != nil || r != "f3e10" {
		t.Errorf("refOf = %q %v", r, err)
	}
	if _, err := refOf(snap, `button "Go"`); err == nil {
		t.Error("refOf found a missing node")
	}
	text := "### Error\nRef e9 not found in the current page snapshot.\n  Try capturing new snapshot.\n### Page\n- Page URL: x"
	if got := errorSection(sideResult{res: browser.ParseResult(text), text: text}); got != "Ref e9 not found in the current page snapshot. Try capturing new snapshot." {
		t.Errorf("errorSection = %q", got)
	}
	if got := errorSection(sideResult{text: "plain failure\n### Page\n- Page URL: x"}); got != "plain failure" {
		t.Errorf("errorSection without an error section = %q", got)
	}
}

// TestHelperMCPServer is not a test: re-executed with BENCH_FAKE_MCP=1 it is a fake MCP stdio server that
// answers initialize, sends a notification and a server-to-client request before answering a tools/call,
// reports an error result for tool "fail", and a JSON-RPC error for tool "bad".
func TestHelperMCPServer(t *testing.T) {
	if os.Getenv("BENCH_FAKE_MCP") != "1" {
		t.Skip("helper process")
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"params"`
			Error any `json:"error"`
		}
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			os.Exit(3)
		}
		switch m.Method {
		case "initialize":
			out.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
				"protocolVersion": MCPProtocolVersion, "capabilities": map[string]any{},
				"serverInfo": map[string]any{"name": "Fake", "version": "9.9"}}})
		case "notifications/initialized":
		case "tools/call":
			out.Encode(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
			out.Encode(map[string]any{"jsonrpc": "2.0", "id": "srv-1", "method": "roots/list"})
			// The client must refuse the server's request before we answer.
			if !in.Scan() || !strings.Contains(in.Text(), `"srv-1"`) || !strings.Contains(in.Text(), "-32601") {
				os.Exit(4)
			}
			switch m.Params.Name {
			case "bad":
				out.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32602, "message": "unknown tool"}})
			default:
				out.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
					"isError": m.Params.Name == "fail",
					"content": []map[string]any{
						{"type": "text", "text": "### Result\n" + fmt.Sprint(m.Params.Arguments["x"])},
						{"type": "image", "data": "AA==", "mimeType": "image/png"},
						{"type": "text", "text": "tail"},
					}}})
			}
		}
	}
	os.Exit(0)
}

func TestMCPClientProtocol(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := &MCPClient{workDir: dir}
	cmd := exec.Command(exe, "-test.run=^TestHelperMCPServer$")
	cmd.Env = append(os.Environ(), "BENCH_FAKE_MCP=1")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.start(ctx, cmd); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.ServerVersion != "Fake 9.9" || c.ProtocolVersion != MCPProtocolVersion {
		t.Errorf("handshake: %q %q", c.ServerVersion, c.ProtocolVersion)
	}
	r, err := c.CallTool(ctx, "echo", map[string]any{"x": 7})
	if err != nil {
		t.Fatal(err)
	}
	if r.IsError || r.Text != "### Result\n7\ntail" || r.Images != 1 {
		t.Errorf("echo = %+v", r)
	}
	r, err = c.CallTool(ctx, "fail", nil)
	if err != nil || !r.IsError {
		t.Errorf("fail = %+v %v, want an error result", r, err)
	}
	if _, err := c.CallTool(ctx, "bad", nil); err == nil || !strings.Contains(err.Error(), "-32602") {
		t.Errorf("bad = %v, want the JSON-RPC error", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(ctx, "echo", nil); err == nil {
		t.Error("call after Close succeeded")
	}
}

func TestMCPCLIPathError(t *testing.T) {
	_, err := MCPCLIPath(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "npm install --prefix bench/mcp @playwright/mcp@"+MCPVersion) {
		t.Fatalf("MCPCLIPath on an empty folder: %v", err)
	}
}

func TestReportRendering(t *testing.T) {
	d := func(xs ...float64) Dist { return NewDist(xs) }
	r := &Report{
		Machine: Machine{Cores: 2, Go: "go1.26", Chrome: "156", Driver: "1.64.1", MCP: MCPVersion, LoadAvg: "0.5 → 0.7"},
		Overhead: &OverheadFigures{Task: OverheadTask, Attempts: 3, RunWebbench: d(20000), RunDirect: d(8000), RunRatio: 2.5,
			AttemptWebbench: d(6000, 6500), AttemptDirect: d(2000), AttemptRatio: 3.1, ModelMS: 120, ToolMS: 5000, OtherMS: 900,
			SetupMS: 700, LoopMS: 200, DirectSetupMS: 450,
			Steps: 17, ToolCalls: 16, Actions: 16, RunDirPerAttempt: 61_400},
		Steps: []PageFigures{{Page: "checkout (40 controls)",
			Webbench:      StepFigures{Refs: 89, Snapshot: d(12, 14), Click: d(300), Type: d(280), StaleUnknown: d(1.2), StaleRemoved: d(3), SnapshotBytes: 6040, ClickBytes: 6050, StaleText: "Ref e1 not found"},
			MCP:           StepFigures{Refs: 89, Snapshot: d(13), Click: d(560), Type: d(25), StaleUnknown: d(2.8), StaleRemoved: d(2.9), SnapshotBytes: 6040, ClickBytes: 274, StaleText: "Error: Ref e1 not found"},
			SnapshotRatio: 1.08, ClickRatio: 1.87, TypeRatio: 0.09,
			ClickPhases: []PhaseDist{{Phase: browser.PhaseAction, Dist: d(38, 38, 41)}, {Phase: "total", Dist: d(117, 117, 130)}}},
			{Page: "results (2,000 results)",
				Webbench: StepFigures{Refs: 2014, Snapshot: d(270), Click: d(490), StaleUnknown: d(2.4), StaleRemoved: d(3.6), SnapshotBytes: 306_000, ClickBytes: 306_200, DiffClickBytes: 1_850},
				MCP:      StepFigures{Refs: 2014, Snapshot: d(350), Click: d(735), StaleUnknown: d(2.4), StaleRemoved: d(4.7), SnapshotBytes: 306_000, ClickBytes: 277}}},
		Startup:    &StartupFigures{Context: d(300), Browser: d(1500), MCP: d(2600), BrowserRatio: 5, MCPRatio: 8.7},
		Throughput: []ThroughputFigures{{Workers: 1, Attempts: 8, PerMinute: 9.5, Speedup: 1, Passed: 8, Total: 16, WorkerPSS: 250 << 20, WorkerPeak: 280 << 20, TotalPeak: 400 << 20, WorkerAnon: 90 << 20, AttemptMS: 5400}},
	}
	var md strings.Builder
	r.Markdown(&md)
	for _, want := range []string{"# webbench benchmarks", "`make bench`", CmdOverhead, CmdSteps, CmdStartup, CmdThroughput,
		// The performance goals beside the rows they bound, on the page they are set for.
		"| measure | webbench | direct playwright-go | webbench ÷ direct | goal (issue 14) |",
		"| one attempt (median / p90) | 6.25 s / 6.50 s | 2.00 s / 2.00 s | 3.10× | ≤ 1.5× |",
		"| whole run of 3 attempt(s) (median / p90) | 20.0 s / 20.0 s | 8.00 s / 8.00 s | 2.50× | – |",
		"|   of it set-up: tenant, browser context, start page (direct: to the start page loaded) | 700 ms | 450 ms | – | – |",
		"| run directory per attempt (bytes of every file runner.Run wrote ÷ attempts) | 61 KB | – | – | ≤ 50 KB |",
		"| browser_click, checkbox (median / p90) | 300 ms / 300 ms | 560 ms / 560 ms | 1.87× | ≤ 100 ms |",
		"| browser_type, text box (median / p90) | 280 ms / 280 ms | 25.0 ms / 25.0 ms | 0.09× | ≤ 80 ms |",
		"| Playwright's click (actionability checks, hit-target check, input events) (median / p90) | 38.0 ms / 41.0 ms | – | – | – |",
		"| browser_click, whole call (median / p90) | 117 ms / 130 ms | – | – | ≤ 100 ms |",
		"## Where a browser_click's time goes — checkout (40 controls) page",
		"| observation bytes: browser_click | 6050 B | 274 B | 0.045× | – |",
		"| browser_click, checkbox (median / p90) | 490 ms / 490 ms | 735 ms / 735 ms | – | – |",
		"| observation bytes: browser_click | 299 KiB | 277 B | 0.0009× | ≤ 30 KiB |",
		"| observation bytes: browser_click, observation diff | 1850 B | 277 B | 0.15× | ≤ 30 KiB |",
		"| fresh Chromium per attempt (median / p90) | – | 1.50 s / 1.50 s | 5.00× | – |",
		"9.5 /min · 5.40 s · 8/16", "| 1 worker(s): PSS/worker median · peak · all peak | 250 MiB · 280 MiB · 400 MiB | – | – | ≤ 150 MiB median |",
		"| 1 worker(s): of it anonymous (private), median | 90 MiB | – | – | – |",
		"0.5 → 0.7"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "machine was busy") {
		t.Error("busy-machine note at load 0.7 on 2 cores")
	}
	r.Machine.LoadAvg = "1.5 → 6.25"
	md.Reset()
	r.Markdown(&md)
	if !strings.Contains(md.String(), "load average up to 6.2 on 2 cores") {
		t.Errorf("no busy-machine note at load 6.25 on 2 cores:\n%s", md.String())
	}
	var tb strings.Builder
	if err := r.Table(&tb); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(tb.String(), "\n")
	col := -1
	for _, l := range lines {
		if i := strings.Index(l, "3.10×"); i >= 0 {
			col = i
		}
	}
	for _, l := range lines {
		if i := strings.Index(l, "1.87×"); i >= 0 && i != col {
			t.Errorf("ratio columns not aligned across sections (%d vs %d):\n%s", i, col, tb.String())
		}
	}
	if col < 0 || !strings.Contains(tb.String(), "HARNESS OVERHEAD") || !strings.Contains(tb.String(), "goal (issue 14)") ||
		!strings.Contains(tb.String(), "≤ 150 MiB median") {
		t.Errorf("table:\n%s", tb.String())
	}
}

// The MCP-versions section: the first arm's figures, the other's, and the ratio of medians (other ÷ first),
// the first column named after the first arm; a tool no arm called has no row.
func TestReportMCPVersions(t *testing.T) {
	d := func(xs ...float64) Dist { return NewDist(xs) }
	r := &Report{MCPVersions: []ArmSteps{
		{Arm: "mcp-0.0.83", Tools: "npx @playwright/mcp@0.0.83", Passed: 11, Total: 11,
			ByTool: map[string]Dist{"browser_click": d(600, 800), "browser_navigate": d(400)}, All: d(400, 600, 800)},
		{Arm: "mcp-0.0.78", Tools: "npx @playwright/mcp@0.0.78", Passed: 10, Total: 11,
			ByTool: map[string]Dist{"browser_click": d(1400), "browser_navigate": d(500)}, All: d(500, 1400)},
	}}
	var md strings.Builder
	r.Markdown(&md)
	for _, want := range []string{"| measure | mcp-0.0.83 | mcp-0.0.78 | mcp-0.0.78 ÷ mcp-0.0.83 |",
		"| attempts passed | 11/11 | 10/11 | – |",
		"| browser_click (median / p90; n 2, 1) | 700 ms / 800 ms | 1.40 s / 1.40 s | 2.00× |",
		"| browser_navigate (median / p90; n 1, 1) | 400 ms / 400 ms | 500 ms / 500 ms | 1.25× |",
		"| every tool call (median / p90; n 3, 2) |", CmdMCPVersions, "`npx @playwright/mcp@0.0.78`"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "browser_type") {
		t.Errorf("a row for a tool no arm called:\n%s", md.String())
	}
}

// TestPhaseRecorder checks that the recorder keeps only the parts of the call between start and take, summing a
// part reported twice (a settle of two rounds).
func TestPhaseRecorder(t *testing.T) {
	r := &phaseRecorder{}
	r.add(browser.PhaseProbe, time.Second) // before start: not recorded
	r.start()
	r.add(browser.PhaseSettleDOM, 30*time.Millisecond)
	r.add(browser.PhaseSettleDOM, 12*time.Millisecond)
	r.add(browser.PhaseAction, 40*time.Millisecond)
	got := r.take()
	r.add(browser.PhaseSnapshot, time.Second) // after take: not recorded
	want := map[string]float64{browser.PhaseSettleDOM: 42, browser.PhaseAction: 40}
	if len(got) != len(want) || got[browser.PhaseSettleDOM] != 42 || got[browser.PhaseAction] != 40 {
		t.Fatalf("recorded %v, want %v", got, want)
	}
}
