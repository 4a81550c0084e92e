package html

// The self-contained HTML report: dir/report.html (warnings, a forest plot of
// Δ per variant, the report tables and a tasks × arms pass-rate heatmap, all
// inline SVG/CSS) and one page per attempt, dir/attempts/<id>.html, stepping
// through its trajectory. Nothing is loaded from the network; every text is
// escaped by html/template.

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"webbench/analysis"
	"webbench/report"
	"webbench/results"
	"webbench/stats"
)

// HTMLReportFile is the name of the main page HTMLReport writes in its dir;
// HTMLAttemptsDir the subdirectory of the per-attempt pages.
const (
	HTMLReportFile  = "report.html"
	HTMLAttemptsDir = "attempts"
)

// HTMLReport writes a self-contained HTML report of a (no network access:
// inline CSS and SVG, no scripts) to dir/report.html, creating dir:
//
//   - the warnings in plain words;
//   - a forest plot (inline SVG) of Δ = p_variant − p_baseline with its 95%
//     interval, one row per variant (all common tasks) and per target-task
//     comparison; a filled dot marks Holm-adjusted (target rows: unadjusted)
//     p < α;
//   - the tables of ReportTables;
//   - the judges part of js (report.JudgesPart; nil or one judge without Zoo
//     Q&A attempts: none): a section "Judges" with its tables and notes;
//   - a tasks × arms heatmap (inline SVG) of per-task pass rates, with one
//     small square per attempt (green pass, red fail, grey error) linking to
//     its page.
//
// For every record in recs it writes dir/attempts/<attempt_id>.html (ids
// with characters outside [A-Za-z0-9._-] are sanitised) from the attempt's
// trajectory in run (results.Run.Trajectory): the record, the goal, every
// step with its request summary, the model's text and tool calls, the
// model-facing and (when different) raw tool results, the reasoning (collapsed)
// and refusal of each reply, the guard events, the
// finish, links to the same (task, rep) in the other arms, and the kept
// screenshots (results.Run.ScreenshotFiles) by relative path. A missing or
// unreadable trajectory (or a nil run) is noted on the page, not an error.
// recs should be the final records the analysis used. It returns the first
// file-system error.
func HTMLReport(dir string, a *analysis.Analysis, js *analysis.Judges, recs []results.Attempt, run *results.Run) error {
	return htmlReport(dir, a, js, nil, recs, run)
}

// htmlReport is HTMLReport with the divergence analysis why (nil: none): its section after the tables (whyVM),
// a link from each heatmap cell of an examined pair to its page, and the pair pages (writePairPages).
func htmlReport(dir string, a *analysis.Analysis, js *analysis.Judges, why *analysis.Why, recs []results.Attempt, run *results.Run) error {
	if err := os.MkdirAll(filepath.Join(dir, HTMLAttemptsDir), 0o755); err != nil {
		return err
	}
	vm := reportVM{A: a, Title: fmt.Sprintf("Ablation: %s vs %s", report.ArmsCount(a), a.Baseline), Alpha: stats.FmtP(a.Alpha),
		Power: fmt.Sprintf("%.0f%%", 100*a.Power), Forest: forestPlot(a), Heat: heatmap(a, recs, pairLinks(why))}
	if why != nil {
		vm.Why = newWhyVM(why, report.NewWhyPart(why, a.Baseline))
	}
	vm.Headlines, vm.HeadlineTitle = report.Headlines(a, why), "Answer"
	if a.Sequential != nil {
		vm.HeadlineTitle = report.SeqHeadlineTitle
	}
	for _, g := range report.GroupWarnings(report.AnalysisWarnings(a)) {
		vm.Warnings = append(vm.Warnings, warningGroupVM{Line: g.Line(report.TestedVariants(a)), Texts: g.Texts})
	}
	for _, f := range a.Flake {
		vm.Flake = append(vm.Flake, report.FlakeLine(f))
	}
	vm.Tables = report.ReportTables(a)
	vm.Notes = report.StatNotes(a)
	if js != nil {
		vm.Judges = report.NewJudgesPart(dir, js)
	}
	if a.FailIfWorse > 0 {
		vm.Gate = report.GateLine(a)
		vm.GateFailed, _ = a.Gate(a.FailIfWorse)
	}
	vm.CostForest, vm.CostNote = costForest(a), costForestNote
	if len(a.FailIfCostlier) > 0 {
		vm.CostGate = report.CostGateLine(a)
		vm.CostGateFailed, _ = a.CostGate()
	}
	if err := writeTemplate(filepath.Join(dir, HTMLReportFile), reportTmpl, vm); err != nil {
		return err
	}
	if err := writePairPages(dir, why, run, a.Baseline); err != nil {
		return err
	}
	return writeAttemptPages(dir, recs, run)
}

// writeAttemptPages writes dir/attempts/<attempt_id>.html for every record of recs (see HTMLReport), creating
// the directory.
func writeAttemptPages(dir string, recs []results.Attempt, run *results.Run) error {
	if err := os.MkdirAll(filepath.Join(dir, HTMLAttemptsDir), 0o755); err != nil {
		return err
	}
	byPair := map[string][]results.Attempt{}
	for _, r := range recs {
		byPair[analysis.PairKey(r)] = append(byPair[analysis.PairKey(r)], r)
	}
	for _, r := range recs {
		page := attemptPage(r, byPair[analysis.PairKey(r)], run, filepath.Join(dir, HTMLAttemptsDir))
		if err := writeTemplate(filepath.Join(dir, HTMLAttemptsDir, safeID(r.AttemptID)+".html"), attemptTmpl, page); err != nil {
			return err
		}
	}
	return nil
}

// safeID maps an attempt id to a file name stem.
func safeID(id string) string {
	if id == "" {
		return "unnamed"
	}
	b := []byte(id)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			b[i] = '_'
		}
	}
	s := string(b)
	if strings.Trim(s, ".") == "" {
		return "_" + s
	}
	return s
}

// attemptHref is the link from report.html to an attempt's page.
func attemptHref(id string) string { return HTMLAttemptsDir + "/" + safeID(id) + ".html" }

func writeTemplate(path string, t *template.Template, data any) error {
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return fmt.Errorf("ablation: rendering %s: %w", filepath.Base(path), err)
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// warningGroupVM is one warning group (report.WarningGroup): its summary line and its sentences.
type warningGroupVM struct {
	Line  string
	Texts []string
}

type reportVM struct {
	A     *analysis.Analysis
	Title string
	Alpha string
	Power string
	// Headlines are the variants' headlines (report.Headlines), the report's first section.
	Headlines []string
	// HeadlineTitle is their heading: "Answer", or a sequential run's report.SeqHeadlineTitle.
	HeadlineTitle string
	// Warnings are the warnings grouped by cause, collapsed behind a one-line summary.
	Warnings   []warningGroupVM
	Flake      []string // report.FlakeLine of each same-seed A/A arm
	Forest     forestVM
	Tables     []report.ReportTable
	Notes      []string
	Judges     report.JudgesPart
	Why        whyVM
	Heat       heatVM
	Gate       string
	GateFailed bool
	// CostForest is the forest plot of the cost ratios (costForest), CostNote what it shows; CostGate the cost
	// gate's line (report.CostGateLine, "" without one) and CostGateFailed whether it failed.
	CostForest     forestVM
	CostNote       string
	CostGate       string
	CostGateFailed bool
}

// ---- forest plot ----

type forestVM struct {
	W, H       int
	PlotX0     float64
	PlotX1     float64
	AxisY      float64
	ZeroX      float64
	Ticks      []tickVM
	Rows       []forestRowVM
	LabelX     float64
	TextX      float64
	HeaderText string
	// Aria is the plot's accessible name.
	Aria string
}

type tickVM struct {
	X     float64
	Label string
}

type forestRowVM struct {
	Y, Lo, Hi, Mid float64
	Label          string
	Sub            bool
	HasData        bool
	Sig            bool
	Text           string
}

const (
	forestLabelW = 300.0
	forestPlotW  = 420.0
	forestTextW  = 330.0
	forestRowH   = 26.0
	forestTop    = 28.0
)

func forestPlot(a *analysis.Analysis) forestVM {
	type row struct {
		label string
		sub   bool
		c     *analysis.Comparison
		p     float64
	}
	var rows []row
	for i := range a.Variants {
		v := &a.Variants[i]
		rows = append(rows, row{v.Name + " (" + report.ScopeLabel(v, &v.All) + ")", false, &v.All, v.PHolm})
		for j := range v.Targets {
			rows = append(rows, row{"target: " + v.Targets[j].Guard + " (secondary)", true, &v.Targets[j], v.Targets[j].PHolm})
		}
	}
	lo, hi := -0.1, 0.1
	for _, r := range rows {
		if r.c.Method != analysis.MethodNone {
			lo, hi = math.Min(lo, r.c.CI[0]), math.Max(hi, r.c.CI[1])
		}
	}
	lo = math.Max(-1, math.Floor(lo*10-1e-9)/10)
	hi = math.Min(1, math.Ceil(hi*10+1e-9)/10)
	step := 0.1
	switch {
	case hi-lo > 1.6:
		step = 0.5
	case hi-lo > 0.8:
		step = 0.25
	}
	x0 := forestLabelW
	x1 := forestLabelW + forestPlotW
	sx := func(v float64) float64 { return x0 + (v-lo)/(hi-lo)*(x1-x0) }
	f := forestVM{W: int(forestLabelW + forestPlotW + forestTextW), PlotX0: x0, PlotX1: x1, ZeroX: sx(0),
		LabelX: forestLabelW - 8, TextX: x1 + 10, HeaderText: "Δ pass rate, percentage points (95% interval)",
		Aria: "forest plot of the difference in pass rate per variant"}
	for t := math.Ceil(lo/step-1e-9) * step; t <= hi+1e-9; t += step {
		lbl := fmt.Sprintf("%+.0f", 100*t)
		if lbl == "+0" || lbl == "-0" {
			lbl = "0"
		}
		f.Ticks = append(f.Ticks, tickVM{X: sx(t), Label: lbl})
	}
	for i, r := range rows {
		y := forestTop + forestRowH*float64(i) + forestRowH/2
		fr := forestRowVM{Y: y, Label: r.label, Sub: r.sub}
		if r.c.Method != analysis.MethodNone {
			fr.HasData = true
			fr.Lo, fr.Hi, fr.Mid = sx(math.Max(lo, r.c.CI[0])), sx(math.Min(hi, r.c.CI[1])), sx(r.c.Delta)
			fr.Sig = r.p < a.Alpha
			pname := "p_holm"
			if r.sub {
				pname = "p_holm(targets)"
			}
			fr.Text = fmt.Sprintf("%s [%s, %s]  %s=%s", stats.Pts(r.c.Delta), stats.Pts(r.c.CI[0]), stats.Pts(r.c.CI[1]), pname, stats.FmtP(r.p))
		} else {
			fr.Text = "no data"
		}
		f.Rows = append(f.Rows, fr)
	}
	f.AxisY = forestTop + forestRowH*float64(len(rows)) + 4
	f.H = int(f.AxisY + 24)
	return f
}

// ---- heatmap ----

type heatVM struct {
	W, H   int
	Cols   []heatColVM
	Rows   []heatRowVM
	Legend string
}

type heatColVM struct {
	X    float64
	Name string
}

type heatRowVM struct {
	Y     float64
	TextY float64
	Task  string
	Label string
	Cells []heatCellVM
}

type heatCellVM struct {
	X, Y, W, H float64
	Fill       string
	Text       string
	TextX      float64
	TextY      float64
	Title      string
	Marks      []markVM
	// Pair is the link to the page of this cell's examined pair against the baseline ("" for none).
	Pair string
}

type markVM struct {
	X, Y, S float64
	Fill    string
	Href    string
	Title   string
}

const (
	heatLabelW = 260.0
	heatCellW  = 150.0
	heatCellH  = 22.0
	heatTop    = 24.0
	heatMarksW = 100.0
)

// heatmap builds the tasks × arms heatmap; pairs maps (variant, task) to an examined pair's page (pairLinks),
// which the cell's "≠" links to.
func heatmap(a *analysis.Analysis, recs []results.Attempt, pairs map[[2]string]string) heatVM {
	armIdx := map[string]int{}
	for i, arm := range a.Arms {
		armIdx[arm.Name] = i
	}
	cells := map[string][][]results.Attempt{}
	for _, r := range recs {
		i, ok := armIdx[r.Variant]
		if !ok {
			continue
		}
		if cells[r.TaskID] == nil {
			cells[r.TaskID] = make([][]results.Attempt, len(a.Arms))
		}
		cells[r.TaskID][i] = append(cells[r.TaskID][i], r)
	}
	tasks := make([]string, 0, len(cells))
	for t := range cells {
		tasks = append(tasks, t)
	}
	sort.Slice(tasks, func(i, j int) bool { return naturalLess(tasks[i], tasks[j]) })
	h := heatVM{W: int(heatLabelW + heatCellW*float64(len(a.Arms))), Legend: "Cell colour: pass rate of judged attempts " +
		"(red 0% → green 100%, grey none judged). Squares: one per attempt, green pass, red fail, grey error; click for its trajectory. " +
		"≠: the pair moved or its cost differs materially; click for the two trajectories side by side."}
	for i, arm := range a.Arms {
		h.Cols = append(h.Cols, heatColVM{X: heatLabelW + heatCellW*float64(i) + heatCellW/2, Name: arm.Name})
	}
	for ti, t := range tasks {
		y := heatTop + heatCellH*float64(ti)
		label := t
		if len([]rune(label)) > 38 {
			label = string([]rune(label)[:37]) + "…"
		}
		row := heatRowVM{Y: y, TextY: y + heatCellH/2 + 4, Task: t, Label: label}
		for i := range a.Arms {
			rs := cells[t][i]
			sort.SliceStable(rs, func(p, q int) bool { return rs[p].Rep < rs[q].Rep })
			x := heatLabelW + heatCellW*float64(i)
			k, n := 0, 0
			for _, r := range rs {
				if r.Done() {
					n++
					if r.Status == results.StatusPass {
						k++
					}
				}
			}
			cell := heatCellVM{X: x + 1, Y: y + 1, W: heatCellW - 2, H: heatCellH - 2, Fill: "#e5e5e5",
				TextX: x + heatCellW - 6, TextY: y + heatCellH/2 + 4, Pair: pairs[[2]string{a.Arms[i].Name, t}]}
			switch {
			case len(rs) == 0:
				cell.Text = "—"
				cell.Title = fmt.Sprintf("%s / %s: not run", t, a.Arms[i].Name)
			case n == 0:
				cell.Text = "0/0"
				cell.Title = fmt.Sprintf("%s / %s: %d attempts, none judged", t, a.Arms[i].Name, len(rs))
			default:
				r := float64(k) / float64(n)
				cell.Fill = fmt.Sprintf("hsl(%.0f,70%%,82%%)", 120*r)
				cell.Text = fmt.Sprintf("%d/%d", k, n)
				cell.Title = fmt.Sprintf("%s / %s: %d of %d judged attempts passed (%.0f%%)", t, a.Arms[i].Name, k, n, 100*r)
			}
			if len(rs) > 0 {
				s := math.Min(12, math.Floor(heatMarksW/float64(len(rs))))
				for j, r := range rs {
					m := markVM{X: x + 5 + s*float64(j), Y: y + (heatCellH-math.Max(2, s-2))/2, S: math.Max(2, s-2),
						Href: attemptHref(r.AttemptID)}
					switch {
					case r.Status == results.StatusPass:
						m.Fill = "#1a7f37"
					case r.Status == results.StatusFail:
						m.Fill = "#cf222e"
					default:
						m.Fill = "#8c959f"
					}
					m.Title = fmt.Sprintf("rep %d: %s", r.Rep, statusText(r))
					cell.Marks = append(cell.Marks, m)
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		h.Rows = append(h.Rows, row)
	}
	h.H = int(heatTop + heatCellH*float64(len(tasks)) + 4)
	return h
}

// naturalLess orders strings with digit runs compared as numbers ("t2" <
// "t10"), falling back to plain order on ties.
func naturalLess(a, b string) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na := strings.TrimLeft(a[si:i], "0")
			nb := strings.TrimLeft(b[sj:j], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			continue
		}
		if ca != cb {
			return ca < cb
		}
		i++
		j++
	}
	if len(a)-i != len(b)-j {
		return len(a)-i < len(b)-j
	}
	return a < b
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// statusText describes a record's outcome in a few words.
func statusText(r results.Attempt) string {
	s := string(r.Status)
	if r.ErrorClass != "" && r.Status == results.StatusError {
		s += " (" + string(r.ErrorClass) + ")"
	}
	if r.FailureMode != "" && r.Status != results.StatusPass {
		s += ", " + string(r.FailureMode)
	}
	return s
}

// ---- attempt pages ----

type attemptVM struct {
	Rec results.Attempt
	// StartMS is the attempt's start (Rec.StartedAt), Unix ms, 0 when unknown: guard events are stamped in
	// Unix ms and shown as the time since it.
	StartMS     int64
	Status      string
	StatusClass string
	Tokens      int
	Guards      []string
	// GuardsOff are the guards the attempt ran without (the record's Guards set false), the ablation's
	// switched-off guard among them.
	GuardsOff   []string
	GuardEvents []string
	Others      []otherVM
	// AgentStderr is the relative link to an external agent's kept standard error (results.AgentStderr), ""
	// when there is none.
	AgentStderr string
	Traj        *results.Trajectory
	FirstObs    string // Traj.FirstObservation cut to PageTextCap (pageText)
	TrajErr     string
	// Screenshots is the flat gallery (relative links, oldest first), used when the trajectory does not say which
	// step each screenshot was taken after (no screenshot_steps, as in trajectories written before it existed).
	Screenshots []string
	// ShotNote says which steps have a kept screenshot ("screenshots kept for steps 12–26") when they are shown
	// beside their steps.
	ShotNote string
	// Trace is the relative link to the attempt's Playwright trace (traces/<attempt_id>.zip, bench run --trace),
	// "" when there is none; TraceCmd and TraceOffline are the commands that open it, run where bench ran (the
	// webbench checkout, for TraceOffline's driver path).
	Trace, TraceCmd, TraceOffline string
	Steps                         []stepVM
}

type otherVM struct {
	Href, Variant, Status string
	Self                  bool
}

type stepVM struct {
	S       *results.Step
	Results []resultVM
	// Shots are the relative links of the screenshots taken after this step (Trajectory.ScreenshotSteps).
	Shots []string
}

type resultVM struct {
	R       *results.ToolRecord
	Rewrote bool
	// Text and Raw are R.Text and R.Raw as the page shows them, cut to PageTextCap (pageText).
	Text, Raw string
}

// PageTextCap is the most bytes of one tool result (as the model saw it, and raw) and of the first observation
// an attempt page shows; a longer one is cut at a UTF-8 boundary with a note giving its full length and the trajectory file that
// holds it whole. It keeps the pages, written for every attempt, from repeating the trajectory's page
// snapshots (a 2,000-ref results page is ≈ 200 KB per step): with it the demo's run directory stays within
// ≈ 50 KB per attempt.
const PageTextCap = 4096

// pageText is s cut to PageTextCap bytes (backing off to a rune start) with a note naming the trajectory file
// traj (relative to the run directory) when it was longer.
func pageText(s, traj string) string {
	if len(s) <= PageTextCap {
		return s
	}
	n := PageTextCap
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	how := ""
	if strings.HasSuffix(traj, ".gz") {
		how = " (gzip-compressed JSON: zcat it)"
	}
	return s[:n] + fmt.Sprintf("\n… [the page shows the first %d of %d bytes; the whole text is in %s%s]", n, len(s), traj, how)
}

func attemptPage(r results.Attempt, pair []results.Attempt, run *results.Run, pageDir string) attemptVM {
	vm := attemptVM{Rec: r, Status: statusText(r), StatusClass: string(r.Status), Tokens: r.Tokens.Prompt + r.Tokens.Completion}
	if t, err := time.Parse(time.RFC3339Nano, r.StartedAt); err == nil {
		vm.StartMS = t.UnixMilli()
	}
	for g, on := range r.Guards {
		if on {
			vm.Guards = append(vm.Guards, g)
		} else {
			vm.GuardsOff = append(vm.GuardsOff, g)
		}
	}
	sort.Strings(vm.Guards)
	sort.Strings(vm.GuardsOff)
	for g, n := range r.GuardEvents {
		if n > 0 {
			vm.GuardEvents = append(vm.GuardEvents, fmt.Sprintf("%s × %d", g, n))
		}
	}
	sort.Strings(vm.GuardEvents)
	sort.SliceStable(pair, func(i, j int) bool { return pair[i].Variant < pair[j].Variant })
	for _, o := range pair {
		vm.Others = append(vm.Others, otherVM{Href: safeID(o.AttemptID) + ".html", Variant: o.Variant,
			Status: statusText(o), Self: o.AttemptID == r.AttemptID})
	}
	if run == nil {
		vm.TrajErr = "No trajectory file was found for this attempt."
		return vm
	}
	// Before the trajectory: an attempt that ended in an infrastructure error before its trajectory was written
	// (start page, browser gone) still has its trace, where it matters most.
	traceLinks(&vm, run, pageDir)
	if p := filepath.Join(run.Dir, results.AgentStderr(r.AttemptID)); r.Agent != "" && regularFile(p) {
		vm.AgentStderr = relLink(pageDir, p)
	}
	tr, err := run.Trajectory(r.AttemptID)
	switch {
	case errors.Is(err, os.ErrNotExist):
		vm.TrajErr = "No trajectory file was found for this attempt."
		return vm
	case errors.Is(err, results.ErrBadTrajectory):
		vm.TrajErr = "The trajectory file is malformed: " + err.Error()
		return vm
	case err != nil:
		vm.TrajErr = "The trajectory could not be read: " + err.Error()
		return vm
	}
	vm.Traj, vm.FirstObs = tr, pageText(tr.FirstObservationText(), r.Trajectory)
	for _, st := range tr.Steps {
		if st == nil {
			continue
		}
		sv := stepVM{S: st}
		for _, res := range st.Results {
			if res != nil {
				sv.Results = append(sv.Results, resultVM{R: res, Rewrote: res.RawText() != res.ShownText(),
					Text: pageText(res.ShownText(), r.Trajectory), Raw: pageText(res.RawText(), r.Trajectory)})
			}
		}
		vm.Steps = append(vm.Steps, sv)
	}
	files := run.ScreenshotFiles(tr)
	if len(tr.ScreenshotSteps) == len(files) && len(files) > 0 {
		byStep := map[int][]string{}
		for i, p := range files {
			byStep[tr.ScreenshotSteps[i]] = append(byStep[tr.ScreenshotSteps[i]], relLink(pageDir, p))
		}
		placed := 0
		for i := range vm.Steps {
			vm.Steps[i].Shots = byStep[vm.Steps[i].S.Index]
			placed += len(vm.Steps[i].Shots)
		}
		if placed == len(files) {
			vm.ShotNote = shotNote(tr.ScreenshotSteps)
		} else { // a step index with no step block: show them all flat rather than lose one
			for i := range vm.Steps {
				vm.Steps[i].Shots = nil
			}
			for _, p := range files {
				vm.Screenshots = append(vm.Screenshots, relLink(pageDir, p))
			}
		}
	} else {
		for _, p := range files {
			vm.Screenshots = append(vm.Screenshots, relLink(pageDir, p))
		}
	}
	return vm
}

// regularFile reports whether p names a regular file.
func regularFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// traceLinks sets vm's trace link and commands when the run directory holds the attempt's Playwright trace,
// results.TracesDir/<attempt_id>.zip (written by bench run --trace for attempts that did not pass). The commands are
// the Playwright trace viewer's (https://playwright.dev/docs/trace-viewer: `npx playwright show-trace
// path/to/trace.zip`) and the same viewer from the playwright-core driver `make setup` installs, which needs no
// network (playwright-core 1.64.1 `cli.js show-trace [options] [trace]`, `-p 0` for any free port).
func traceLinks(vm *attemptVM, run *results.Run, pageDir string) {
	rel := results.TracesDir + "/" + vm.Rec.AttemptID + ".zip"
	p := filepath.Join(run.Dir, filepath.FromSlash(rel))
	if !regularFile(p) {
		return
	}
	vm.Trace = relLink(pageDir, p)
	at := report.ShellQuote(filepath.ToSlash(p)) // as the run directory was named to bench: from where bench ran
	// -p 0 serves the viewer on a free local port (printed) instead of opening Playwright's own browser, which
	// make setup does not install.
	vm.TraceCmd = "npx playwright show-trace -p 0 " + at
	vm.TraceOffline = "node .cache/driver/node_modules/playwright-core/cli.js show-trace -p 0 " + at
}

// ---- templates ----

const htmlCSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1f2328;max-width:1400px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
.meta{color:#59636e}
.warnings{background:#fff8c5;border:1px solid #d4a72c;border-radius:6px;padding:8px 16px}
.warnings li{margin:6px 0}.warnings summary{cursor:pointer;font-weight:600}
.answer li{margin:4px 0}caption{text-align:left;font-weight:bold}
table{border-collapse:collapse;margin:8px 0;font-size:13px;display:block;max-width:100%;overflow-x:auto}
svg{max-width:100%;height:auto}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}
.note{color:#59636e;font-size:12px;max-width:1100px}
.gate-fail{color:#cf222e;font-weight:bold}.gate-ok{color:#1a7f37;font-weight:bold}
svg text{font:12px system-ui,sans-serif;fill:#1f2328}
svg .sub{fill:#59636e}
pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:8px;white-space:pre-wrap;word-break:break-word;max-height:480px;overflow:auto;font-size:12px}
.step{border:1px solid #d0d7de;border-radius:6px;padding:8px 12px;margin:12px 0}
.step h3{margin:0 0 6px;font-size:15px}
.event{background:#ddf4ff;border-left:4px solid #0969da;padding:4px 8px;margin:4px 0}
.pass{color:#1a7f37;font-weight:bold}.fail{color:#cf222e;font-weight:bold}.error{color:#8c959f;font-weight:bold}
.flag{display:inline-block;background:#eaeef2;border-radius:10px;padding:0 8px;margin-right:4px;font-size:12px}
img.shot{max-width:640px;border:1px solid #d0d7de;margin:4px}
a.stepshot{float:right;margin-left:12px}img.thumb{max-width:320px}.step{overflow:auto}
a{color:#0969da}
`

var tmplFuncs = template.FuncMap{
	"add": func(a, b float64) float64 { return a + b },
	"sub": func(a, b float64) float64 { return a - b },
}

var reportTmpl = template.Must(template.New("report").Funcs(tmplFuncs).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title><style>` + htmlCSS + `</style></head><body>
<h1>{{.Title}}</h1>
<p class="meta">α = {{.Alpha}}, power {{.Power}}. Δ = p_variant − p_baseline in percentage points; paired on (task, rep) with tasks as the unit of analysis; p_holm is Holm-adjusted over the variants.</p>
{{if .Headlines}}<section class="answer"><h2>{{.HeadlineTitle}}</h2><ul>{{range .Headlines}}<li>{{.}}</li>{{end}}</ul></section>{{end}}
{{if .Warnings}}<details class="warnings"><summary>Warnings: {{len .Warnings}} causes (open for the full sentences)</summary><ul>{{range .Warnings}}<li><b>{{.Line}}</b><ul>{{range .Texts}}<li>{{.}}</li>{{end}}</ul></li>{{end}}</ul></details>{{end}}
{{range .Flake}}<p class="flake">{{.}}</p>{{end}}
{{if .Gate}}<p class="{{if .GateFailed}}gate-fail{{else}}gate-ok{{end}}">{{.Gate}}</p>{{end}}
{{if .CostGate}}<p class="{{if .CostGateFailed}}gate-fail{{else}}gate-ok{{end}}">{{.CostGate}}</p>{{end}}
<h2>Δ per variant</h2>
{{with .Forest}}{{template "forest" .}}{{end}}
<p class="note">Dot: Δ; line: its 95% interval over tasks, or clusters when clustered (the t interval from 12 moved ones on, else the adjusted Wald interval; Newcombe when unpaired); filled dot: p below α (Holm-adjusted). Below 12 moved tasks (clusters) the interval and the exact p are different methods and can disagree: an interval that excludes 0 with a hollow dot is not evidence of an effect.</p>
{{if .CostForest.Rows}}<h2>Cost change per variant</h2>
{{template "forest" .CostForest}}
<p class="note">{{.CostNote}}</p>
{{end}}{{range .Tables}}<h2>{{.Title}}</h2>
<table><thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>{{if .Note}}<p class="note">{{.Note}}</p>{{end}}
{{end}}
{{if .Notes}}<h2>Notes</h2><ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if not .Judges.Empty}}<h2>Judges</h2>
{{range .Judges.Tables}}<h3>{{.Title}}</h3>
<table><thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{end}}{{range .Judges.Notes}}<p>{{.}}</p>
{{end}}{{end}}{{template "why" .Why}}<h2>Pass rate per task and arm</h2>
<p class="note">{{.Heat.Legend}}</p>
{{with .Heat}}<svg role="img" aria-label="heatmap of pass rate per task and arm" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}">
{{range .Cols}}<text x="{{printf "%.1f" .X}}" y="16" text-anchor="middle">{{.Name}}</text>
{{end}}{{range .Rows}}<g><text x="4" y="{{printf "%.1f" .TextY}}"><title>{{.Task}}</title>{{.Label}}</text>
{{range .Cells}}<rect x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" width="{{printf "%.1f" .W}}" height="{{printf "%.1f" .H}}" fill="{{.Fill}}" rx="3"><title>{{.Title}}</title></rect>
{{range .Marks}}<a href="{{.Href}}"><rect x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" width="{{printf "%.1f" .S}}" height="{{printf "%.1f" .S}}" fill="{{.Fill}}"><title>{{.Title}}</title></rect></a>
{{end}}{{if .Pair}}<a href="{{.Pair}}"><text x="{{printf "%.1f" (sub .TextX 34.0)}}" y="{{printf "%.1f" .TextY}}" text-anchor="end" fill="#cf222e"><title>first divergence from the baseline</title>≠</text></a>{{end}}<text x="{{printf "%.1f" .TextX}}" y="{{printf "%.1f" .TextY}}" text-anchor="end">{{.Text}}</text>
{{end}}</g>
{{end}}</svg>{{end}}
</body></html>
{{define "forest"}}<svg role="img" aria-label="{{.Aria}}" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}">
<text x="{{.PlotX0}}" y="14">{{.HeaderText}}</text>
{{range .Ticks}}<line x1="{{printf "%.1f" .X}}" y1="20" x2="{{printf "%.1f" .X}}" y2="{{printf "%.1f" $.AxisY}}" stroke="#eaeef2"/>
<text x="{{printf "%.1f" .X}}" y="{{printf "%.1f" $.AxisY}}" dy="14" text-anchor="middle" class="sub">{{.Label}}</text>
{{end}}<line x1="{{printf "%.1f" .ZeroX}}" y1="20" x2="{{printf "%.1f" .ZeroX}}" y2="{{printf "%.1f" .AxisY}}" stroke="#59636e" stroke-dasharray="4 3"/>
{{range .Rows}}<g><text x="{{printf "%.1f" $.LabelX}}" y="{{printf "%.1f" .Y}}" dy="4" text-anchor="end"{{if .Sub}} class="sub"{{end}}>{{.Label}}</text>
{{if .HasData}}<line x1="{{printf "%.1f" .Lo}}" y1="{{printf "%.1f" .Y}}" x2="{{printf "%.1f" .Hi}}" y2="{{printf "%.1f" .Y}}" stroke="#0969da" stroke-width="2"/>
<line x1="{{printf "%.1f" .Lo}}" y1="{{printf "%.1f" (sub .Y 5.0)}}" x2="{{printf "%.1f" .Lo}}" y2="{{printf "%.1f" (add .Y 5.0)}}" stroke="#0969da" stroke-width="2"/>
<line x1="{{printf "%.1f" .Hi}}" y1="{{printf "%.1f" (sub .Y 5.0)}}" x2="{{printf "%.1f" .Hi}}" y2="{{printf "%.1f" (add .Y 5.0)}}" stroke="#0969da" stroke-width="2"/>
<circle cx="{{printf "%.1f" .Mid}}" cy="{{printf "%.1f" .Y}}" r="5" stroke="#0969da" stroke-width="2" fill="{{if .Sig}}#0969da{{else}}#ffffff{{end}}"/>{{end}}
<text x="{{printf "%.1f" $.TextX}}" y="{{printf "%.1f" .Y}}" dy="4">{{.Text}}</text></g>
{{end}}</svg>{{end}}`))
