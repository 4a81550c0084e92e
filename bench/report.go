package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"webbench/browser"
)

// Machine describes where the figures were taken.
type Machine struct {
	Date    string `json:"date"`
	CPU     string `json:"cpu"`
	Cores   int    `json:"cores"`
	MemGiB  float64
	Go      string `json:"go"`
	Chrome  string `json:"chromium"`
	Driver  string `json:"playwright_core"`
	MCP     string `json:"playwright_mcp"`
	LoadAvg string `json:"loadavg"` // 1-minute load average at start → end
}

// Report is everything `make bench` measured. Nil sections were not run.
type Report struct {
	Machine    Machine
	Overhead   *OverheadFigures
	Steps      []PageFigures
	Startup    *StartupFigures
	Throughput []ThroughputFigures
	// MCPVersions are the step latencies of the arms of MCPVersionsSpec (the built-in agent on Playwright MCP
	// releases), in the spec's arm order.
	MCPVersions []ArmSteps
	// TestTiming is where make test's time goes, read from its passes' go test -json output (ReadTestJSON).
	TestTiming *TestTimingFigures
	// Elapsed is the whole report's wall time.
	Elapsed time.Duration
}

// Commands that reproduce each section (also printed in BENCHMARKS.md).
const (
	CmdAll        = "make bench"
	CmdOverhead   = "go run ./bench/cmd/benchreport -only overhead"
	CmdSteps      = "go run ./bench/cmd/benchreport -only steps"
	CmdStartup    = "go run ./bench/cmd/benchreport -only startup"
	CmdThroughput = "go run ./bench/cmd/benchreport -only throughput"
	CmdGoBench    = "go test -run '^$' -bench . -benchtime 5x ./bench/"
)

// DescribeMachine fills Machine from /proc, the runtime, and the given versions.
func DescribeMachine(chromium, driver, mcp string) Machine {
	m := Machine{Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Cores: runtime.NumCPU(), Go: runtime.Version(),
		Chrome: chromium, Driver: driver, MCP: mcp, LoadAvg: LoadAvg()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			m.MemGiB = float64(kb) / (1 << 20)
		}
	}
	return m
}

// LoadAvg is the 1-minute load average from /proc/loadavg ("" when unreadable).
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// maxLoad is the largest number in a "start → end" load-average string (0 when none parses).
func maxLoad(s string) float64 {
	var out float64
	for _, f := range strings.Fields(s) {
		if v, err := strconv.ParseFloat(f, 64); err == nil {
			out = max(out, v)
		}
	}
	return out
}

// MCPPackageVersion reads the installed @playwright/mcp version from its package.json ("" when absent).
func MCPPackageVersion(dir string) string {
	cli, err := MCPCLIPath(dir)
	if err != nil {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(cli), "package.json"))
	if err != nil {
		return ""
	}
	var p struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &p) != nil {
		return ""
	}
	return p.Version
}

// Formatting helpers.
func fms(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case v >= 10000:
		return fmt.Sprintf("%.1f s", v/1000)
	case v >= 1000:
		return fmt.Sprintf("%.2f s", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.2f ms", v)
}

func fdist(d Dist) string {
	if d.N == 0 {
		return "–"
	}
	return fms(d.MedianMS) + " / " + fms(d.P90MS)
}

func fratio(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) || r == 0 {
		return "–"
	}
	if r < 0.1 {
		return fmt.Sprintf("%.2g×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}

// fsize formats a byte count in SI units (kB = 1,000 bytes, as in the "≤ 50 KB" goal).
func fsize(n float64) string {
	switch {
	case math.IsNaN(n):
		return "–"
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.0f KB", n/1e3)
	}
	return fmt.Sprintf("%.0f B", n)
}

func fbytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	case n >= 10<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// row is one line of the table: a measure, webbench's figure, the baseline's figure, the ratio, and the goal
// set for the measure ("" = none).
type row struct{ measure, webbench, baseline, ratio, goal string }

// The performance goals ("Faster steps, smaller observations, lighter workers"), printed beside the figures they
// apply to. Each is a bound on the webbench figure of its row (GoalAttemptRatio on the ratio column).
const (
	// GoalAttemptRatio bounds one Zoo checkout attempt's wall time over a direct playwright-go program's.
	GoalAttemptRatio = "≤ 1.5×"
	// GoalClick bounds browser_click on the 40-control checkout page (act, settle, snapshot), median.
	GoalClick = "≤ 100 ms"
	// GoalType bounds browser_type on a text box of the checkout page, with its snapshot, median.
	GoalType = "≤ 80 ms"
	// GoalClickObservation bounds the observation after a click on the 2,014-ref results page, with no loss
	// of pass rate.
	GoalClickObservation = "≤ 30 KiB"
	// GoalWorkerPSS bounds the median PSS of one worker's browser process tree on Zoo pages.
	GoalWorkerPSS = "≤ 150 MiB median"
	// GoalRunDirPerAttempt bounds the run directory's bytes per attempt (still readable by every report).
	GoalRunDirPerAttempt = "≤ 50 KB"
)

// section is a titled group of rows with the command that reproduces it and notes for BENCHMARKS.md.
type section struct {
	// short is the table's title, title the Markdown heading; first names the first figures column ("" =
	// "webbench").
	short, title, first, baseline, ratio, command string
	rows                                          []row
	notes                                         []string
}

// sections are the report's tables in the order printed: overhead, per step, start-up, MCP versions,
// throughput, make test (each when measured).
func (r *Report) sections() []section {
	var out []section
	if o := r.Overhead; o != nil {
		out = append(out, overheadSection(o))
	}
	out = append(out, stepSections(r.Steps)...)
	if st := r.Startup; st != nil {
		out = append(out, startupSection(st))
	}
	if len(r.MCPVersions) > 1 {
		out = append(out, mcpVersionSections(r.MCPVersions)...)
	}
	if len(r.Throughput) > 0 {
		out = append(out, r.throughputSection())
	}
	if r.TestTiming != nil {
		out = append(out, testTimingSection(r.TestTiming))
	}
	return out
}

// overheadSection is the harness overhead: webbench against direct playwright-go on one Zoo checkout.
func overheadSection(o *OverheadFigures) section {
	return section{
		short:    "HARNESS OVERHEAD (Zoo checkout, scripted policy, 1 worker)",
		title:    fmt.Sprintf("Harness overhead — Zoo task %s, scripted policy (clean, zero latency), 1 worker", o.Task),
		baseline: "direct playwright-go", ratio: "webbench ÷ direct", command: CmdOverhead,
		rows: []row{
			{fmt.Sprintf("whole run of %d attempt(s) (median / p90)", o.Attempts), fdist(o.RunWebbench), fdist(o.RunDirect), fratio(o.RunRatio), ""},
			{"one attempt (median / p90)", fdist(o.AttemptWebbench), fdist(o.AttemptDirect), fratio(o.AttemptRatio), GoalAttemptRatio},
			{fmt.Sprintf("in an attempt: %d tool calls (act, settle, snapshot)", o.ToolCalls), fms(o.ToolMS), fmt.Sprintf("%d actions", o.Actions), "", ""},
			{fmt.Sprintf("in an attempt: %d model calls (scripted policy)", o.Steps), fms(o.ModelMS), "–", "", ""},
			{"in an attempt: the rest (set-up and loop)", fms(o.OtherMS), "–", "", ""},
			{"  of it set-up: tenant, browser context, start page (direct: to the start page loaded)", fms(o.SetupMS), fms(o.DirectSetupMS), "", ""},
			{"  of it the agent loop outside model and tool calls (prompts, guards, recording)", fms(o.LoopMS), "–", "", ""},
			{"run directory per attempt (bytes of every file runner.Run wrote ÷ attempts)", fsize(o.RunDirPerAttempt), "–", "", GoalRunDirPerAttempt},
		},
		notes: []string{
			"Both sides start a Playwright driver and one Chromium with the same flags, then run the attempts one after another, each in a fresh Zoo tenant and browser context; every attempt on both sides passes the task's state check.",
			"The direct program performs the task's solution steps as role locators (click, fill, select_option, keyboard press) with Playwright's auto-waiting only. webbench goes through the agent loop: a model call per step, and after every action the MCP-style settle (on events: the requests the action started, a navigation's commit and load, then DOM quiet for 40 ms, 100 ms after a script's requests, with two animation frames since the last mutation; no fixed sleep) and a fresh AI snapshot; requests are routed through the tenant allow-list.",
			"Breakdown rows are medians over attempts from the records and trajectories (model_ms, tool duration_ms, the loop's duration_ms; set-up is the attempt's duration_ms minus its loop's). An attempt's duration_ms ends when its agent loop does: the judge and closing the context come after it (the direct program's attempt time includes closing its context).",
			"Run directory per attempt: the sum of the file sizes of one webbench run's directory (records, trajectories, manifest, …; kB = 1,000 bytes) over its attempts, median over runs. These are clean scripted checkouts of one task, and run-wide files are shared by only a few attempts; the issue's ≈ 240 KB per attempt was measured on the demo ablation (45 MB for 188 attempts).",
		},
	}
}

// stepSections are the per-step latencies and observation sizes against @playwright/mcp, one section per page;
// the last carries the notes on how both sides were measured.
func stepSections(steps []PageFigures) []section {
	var out []section
	for _, p := range steps {
		g := pageGoals(p.Page)
		s := section{
			short:    fmt.Sprintf("PER STEP: %s page, %d refs", p.Page, p.Webbench.Refs),
			title:    fmt.Sprintf("Per step — %s page, %d refs", p.Page, p.Webbench.Refs),
			baseline: "@playwright/mcp " + MCPVersion, ratio: "MCP ÷ webbench", command: CmdSteps,
			rows: []row{
				{"browser_snapshot (median / p90)", fdist(p.Webbench.Snapshot), fdist(p.MCP.Snapshot), fratio(p.SnapshotRatio), ""},
				{"browser_click, checkbox (median / p90)", fdist(p.Webbench.Click), fdist(p.MCP.Click), fratio(p.ClickRatio), g.click},
			},
		}
		if p.Webbench.Type.N > 0 {
			s.rows = append(s.rows, row{"browser_type, text box (median / p90)", fdist(p.Webbench.Type), fdist(p.MCP.Type), fratio(p.TypeRatio), g.typ})
		}
		s.rows = append(s.rows,
			row{"stale ref: never in snapshot (median / p90)", fdist(p.Webbench.StaleUnknown), fdist(p.MCP.StaleUnknown), fratio(p.StaleUnknownRatio), ""},
			row{"stale ref: node removed (median / p90)", fdist(p.Webbench.StaleRemoved), fdist(p.MCP.StaleRemoved), fratio(p.StaleRemovedRatio), ""},
			row{"observation bytes: browser_snapshot", fbytes(int64(p.Webbench.SnapshotBytes)), fbytes(int64(p.MCP.SnapshotBytes)), fratio(float64(p.MCP.SnapshotBytes) / float64(p.Webbench.SnapshotBytes)), ""},
			row{"observation bytes: browser_click", fbytes(int64(p.Webbench.ClickBytes)), fbytes(int64(p.MCP.ClickBytes)), fratio(float64(p.MCP.ClickBytes) / float64(p.Webbench.ClickBytes)), g.clickBytes},
		)
		if p.Webbench.DiffClickBytes > 0 {
			s.rows = append(s.rows, row{"observation bytes: browser_click, observation diff", fbytes(int64(p.Webbench.DiffClickBytes)),
				fbytes(int64(p.MCP.ClickBytes)), fratio(float64(p.MCP.ClickBytes) / float64(p.Webbench.DiffClickBytes)), g.clickBytes})
		}
		s.notes = []string{
			"Stale-ref error texts — webbench: `" + p.Webbench.StaleText + "`; MCP: `" + p.MCP.StaleText + "`.",
		}
		out = append(out, s)
		if len(p.ClickPhases) > 0 {
			out = append(out, clickPhaseSection(p))
		}
	}
	if len(steps) > 0 {
		last := &out[len(out)-1]
		last.notes = append(last.notes,
			"Both sides drive the same Debian Chromium with the same flags (MCP: `--headless --isolated --no-sandbox --caps vision --executable-path … --viewport-size 1280x720` and a config file with `launchOptions.args`), one browser each for the whole measurement, on pages served by the benchmark itself (a one-page checkout with 40 controls; a results page with 2,000 result links and 5 filters). Calls are interleaved: sample i runs on both sides back to back (the side going first alternates), so load changes hit both alike; the ratio is the median over samples of MCP's latency ÷ webbench's. The removed-node case reloads the page, snapshots, removes the node with browser_evaluate, then times the click.",
			"@playwright/mcp "+MCPVersion+" writes the snapshot taken after an action to a file (`.playwright-mcp/page-….yml`) and returns a link to it, so its action results are small and the model must read the file or call browser_snapshot to see the page; webbench returns the snapshot inline (the layout of MCP ≤ 0.0.68). MCP's browser_type takes no snapshot at all. MCP waits a fixed settle (`--timeout-settle`, 500 ms by default) after actions.",
		)
	}
	return out
}

// clickPhaseLabels name the parts of a browser_click (browser.Phase*, "other", "total") in the table.
var clickPhaseLabels = map[string]string{
	browser.PhaseProbe:           "resolve the element, arm the click probe (2 driver calls)",
	browser.PhaseAction:          "Playwright's click (actionability checks, hit-target check, input events)",
	browser.PhaseSettleRequests:  "settle: requests the click started",
	browser.PhaseSettleDOM:       "settle: DOM quiet window and two animation frames (one Evaluate)",
	browser.PhaseSettleDOMPage:   "  of it in the page",
	browser.PhaseSettleQuietLeft: "  of it the quiet window still to run when the wait started",
	browser.PhaseCheck:           "click probe read, beyond the settle",
	browser.PhaseSnapshot:        "snapshot (and the title beside it)",
	browser.PhasePageInfo:        "result URL and title",
	"other":                      "the rest (Go side)",
	"total":                      "browser_click, whole call",
}

// clickPhaseSection is the breakdown of webbench's browser_click on a page (PageFigures.ClickPhases).
func clickPhaseSection(p PageFigures) section {
	s := section{
		short:    fmt.Sprintf("BROWSER_CLICK PART BY PART: %s page", p.Page),
		title:    fmt.Sprintf("Where a browser_click's time goes — %s page", p.Page),
		baseline: "–", ratio: "–", command: CmdSteps,
	}
	for _, ph := range p.ClickPhases {
		label := clickPhaseLabels[ph.Phase]
		if label == "" {
			label = ph.Phase
		}
		goal := ""
		if ph.Phase == "total" {
			goal = GoalClick
		}
		s.rows = append(s.rows, row{label + " (median / p90)", fdist(ph.Dist), "–", "", goal})
	}
	n := 0
	if len(p.ClickPhases) > 0 {
		n = p.ClickPhases[0].Dist.N
	}
	s.notes = []string{fmt.Sprintf("%d clicks on the same checkbox, webbench only, one after another after the interleaved "+
		"comparison; each part timed inside browser.Session (SessionOptions.Phases), medians per part, so the parts' "+
		"medians need not add up to the total's. The probe read runs beside the settle: its row is only the wait "+
		"left after the settle. \"The rest\" is the whole call minus the sequential parts of the same click.", n)}
	return s
}

// startupSection is the attempt start-up: a new context in a running browser against a fresh browser (and a
// fresh MCP server) per attempt.
func startupSection(st *StartupFigures) section {
	s := section{
		short:    "ATTEMPT START-UP (until the Zoo shop home page has loaded)",
		title:    "Attempt start-up — until the Zoo shop home page has loaded (fresh tenant each time)",
		baseline: "fresh browser per attempt", ratio: "baseline ÷ context", command: CmdStartup,
		rows: []row{
			{"new context in a running browser (median / p90)", fdist(st.Context), "–", "", ""},
			{"fresh Chromium per attempt (median / p90)", "–", fdist(st.Browser), fratio(st.BrowserRatio), ""},
		},
	}
	if st.MCP.N > 0 {
		s.rows = append(s.rows, row{"fresh @playwright/mcp server per attempt (median / p90)", "–", fdist(st.MCP), fratio(st.MCPRatio), ""})
	}
	s.notes = []string{"All variants include closing what they opened. The driver (≈1 s to start) is running for the first two; the MCP server row includes its Node.js start, the handshake and its own browser launch."}
	return s
}

// mcpVersionSections compare the first arm of vs with each later one: the built-in agent's step latency per
// tool on Playwright MCP.
func mcpVersionSections(vs []ArmSteps) []section {
	var out []section
	a := vs[0]
	for _, b := range vs[1:] {
		s := section{
			short: fmt.Sprintf("BUILT-IN AGENT ON PLAYWRIGHT MCP: %s vs %s (step latency)", a.Arm, b.Arm),
			title: fmt.Sprintf("Built-in agent on Playwright MCP — step latency, %s vs %s (%s)", a.Arm, b.Arm, MCPVersionsSpec),
			first: a.Arm, baseline: b.Arm, ratio: b.Arm + " ÷ " + a.Arm, command: CmdMCPVersions,
			rows: []row{{"attempts passed", fmt.Sprintf("%d/%d", a.Passed, a.Total), fmt.Sprintf("%d/%d", b.Passed, b.Total), "", ""}},
		}
		tools := append(slices.Clone(MCPVersionTools), "")
		for _, t := range tools {
			da, db := a.ByTool[t], b.ByTool[t]
			name := t
			if t == "" {
				da, db, name = a.All, b.All, "every tool call"
			}
			if da.N == 0 && db.N == 0 {
				continue
			}
			ratio := ""
			if da.N > 0 && db.N > 0 && da.MedianMS > 0 {
				ratio = fratio(db.MedianMS / da.MedianMS)
			}
			s.rows = append(s.rows, row{fmt.Sprintf("%s (median / p90; n %d, %d)", name, da.N, db.N), fdist(da), fdist(db), ratio, ""})
		}
		s.notes = []string{
			"Both arms run the built-in agent (scripted policy, clean profile, all guards on) on the same pairs; the only difference is the tool backend, a Playwright MCP server per attempt (`" + a.Tools + "` vs `" + b.Tools + "`), each with its own isolated headless Chromium behind the attempt's allow-list proxy.",
			"A step's latency is the tool call's wall time in the trajectory (`duration_ms`): the tools/call round trip over stdio, the server's action, its settle and snapshot, and reading the snapshot file it links to. The ratio is of medians (calls are not paired across arms).",
		}
		out = append(out, s)
	}
	return out
}

// throughputSection is attempts per minute and browser memory per worker count.
func (r *Report) throughputSection() section {
	s := section{
		short:    fmt.Sprintf("THROUGHPUT AND MEMORY (%d-attempt batch, %d cores)", r.Throughput[0].Attempts, r.Machine.Cores),
		title:    fmt.Sprintf("Throughput and memory — runner.Run, scripted policy, %d-attempt batch of Zoo shop tasks, %d cores", r.Throughput[0].Attempts, r.Machine.Cores),
		baseline: "", ratio: "speed-up vs 1 worker", command: CmdThroughput,
	}
	for _, t := range r.Throughput {
		s.rows = append(s.rows, row{
			fmt.Sprintf("%d worker(s): attempts/min · attempt · passed", t.Workers),
			fmt.Sprintf("%.1f /min · %s · %d/%d", t.PerMinute, fms(t.AttemptMS), t.Passed, t.Total), "", fratio(t.Speedup), ""})
		s.rows = append(s.rows, row{
			fmt.Sprintf("%d worker(s): PSS/worker median · peak · all peak", t.Workers),
			fmt.Sprintf("%s · %s · %s", fbytes(t.WorkerPSS), fbytes(t.WorkerPeak), fbytes(t.TotalPeak)), "", "", GoalWorkerPSS})
		if t.WorkerAnon > 0 {
			s.rows = append(s.rows, row{fmt.Sprintf("%d worker(s): of it anonymous (private), median", t.Workers),
				fbytes(t.WorkerAnon), "", "", ""})
		}
	}
	s.notes = []string{
		"Rows: attempts per minute · median attempt duration · attempts passed; then the PSS of one worker's browser process tree (median over samples of the mean over live workers · largest single tree) · the largest sum of all browser trees plus the Playwright driver.",
		"attempts/min is the batch size over the run's wall time (driver start and browser launches included), median over runs. PSS sums `Pss:` of /proc/<pid>/smaps_rollup over each Chromium browser process and its descendants (sampled every 500 ms while the run lasts); shared pages are split between the processes that map them, so trees add up. The file-backed part of a tree's PSS (the executable and its data files) shrinks when other processes on the machine map the same files (other browsers of the same executable, this run's or another job's); the anonymous part (`Pss_Anon:`: heaps, V8, stacks) does not, so it is the figure to compare across runs on a shared machine.",
	}
	return s
}

// Table writes the one plain-text table `make bench` prints: a block per section (its title, then a header
// naming the baseline and the ratio, then its rows), columns aligned across the whole table.
func (r *Report) Table(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, s := range r.sections() {
		if i > 0 {
			fmt.Fprintf(tw, "\t\t\t\t\n")
		}
		base := s.baseline
		if base == "" {
			base = "–"
		}
		fmt.Fprintf(tw, "%s\t\t\t\t\n", s.short)
		fmt.Fprintf(tw, "  measure\t%s\t%s\t%s\tgoal (issue 14)\n", s.firstName(), base, s.ratio)
		for _, x := range s.rows {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", x.measure, orDash(x.webbench), orDash(x.baseline), x.ratio, x.goal)
		}
	}
	return tw.Flush()
}

// Markdown writes BENCHMARKS.md: the machine, then one table per section with its command and notes.
func (r *Report) Markdown(w io.Writer) {
	m := r.Machine
	fmt.Fprintf(w, "# webbench benchmarks\n\n")
	fmt.Fprintf(w, "Generated by `%s` (bench/cmd/benchreport; the measurements are in package `bench`). Figures are medians "+
		"(with p90 where a distribution is meaningful) of several runs on one machine; comparisons are ratios of figures "+
		"taken in the same run. Go benchmarks of single calls: `%s`.\n\n", CmdAll, CmdGoBench)
	fmt.Fprintf(w, "| machine | |\n|---|---|\n")
	fmt.Fprintf(w, "| date | %s |\n| CPU | %s, %d cores, %.1f GiB RAM |\n| Go | %s |\n| Chromium | %s |\n"+
		"| playwright-core (driver) | %s |\n| @playwright/mcp | %s |\n| 1-min load average (start → end) | %s |\n| total time | %s |\n\n",
		m.Date, m.CPU, m.Cores, m.MemGiB, m.Go, m.Chrome, m.Driver, m.MCP, m.LoadAvg, r.Elapsed.Round(time.Second))
	if l := maxLoad(m.LoadAvg); m.Cores > 0 && l > float64(m.Cores) {
		fmt.Fprintf(w, "**The machine was busy with other work during this run** (1-minute load average up to %.1f on %d "+
			"cores): absolute times are inflated and p90s widened; the per-step ratios, taken from back-to-back calls, "+
			"are the least affected figures. Re-run `make bench` on a quiet machine for clean absolute numbers.\n\n", l, m.Cores)
	}
	for _, s := range r.sections() {
		fmt.Fprintf(w, "## %s\n\n", s.title)
		base := s.baseline
		if base == "" {
			base = "–"
		}
		fmt.Fprintf(w, "| measure | %s | %s | %s | goal (issue 14) |\n|---|---|---|---|---|\n", s.firstName(), base, s.ratio)
		for _, x := range s.rows {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", x.measure, orDash(x.webbench), orDash(x.baseline), orDash(x.ratio), orDash(x.goal))
		}
		fmt.Fprintf(w, "\nCommand: `%s`\n\n", s.command)
		for _, n := range s.notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
		if len(s.notes) > 0 {
			fmt.Fprintln(w)
		}
	}
}

// stepGoals are the goals of a per-step page's rows ("" = none): browser_click and browser_type latency, and
// the bytes of the observation after the click.
type stepGoals struct{ click, typ, clickBytes string }

// pageGoals returns the goals of the stepPages page named page: the latency goals are set on the 40-control
// checkout page, the observation goal on the 2,014-ref results page.
func pageGoals(page string) stepGoals {
	for _, sp := range stepPages {
		if sp.name == page {
			return sp.goals
		}
	}
	return stepGoals{}
}

// firstName is the first figures column's header.
func (s section) firstName() string {
	if s.first == "" {
		return "webbench"
	}
	return s.first
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
