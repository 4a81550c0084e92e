package report

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/report/reporttest"
	"webbench/results"
	"webbench/stats"
)

// widest is the rune count of the longest line of s.
func widest(s string) (int, string) {
	n, at := 0, ""
	for _, l := range strings.Split(s, "\n") {
		if c := utf8.RuneCountInString(l); c > n {
			n, at = c, l
		}
	}
	return n, at
}

// TestCompactReportFits renders the report fixture (2 variants, warnings, a gate) and an eight-arm leave-one-out
// ablation with the demo's arm names at 80 and 120 columns: no line is wider, every variant has its line with
// Δ, p_paired, p_holm and a verdict, and the wide report (TerminalReport) is wider than both — the reason for
// the compact one.
func TestCompactReportFits(t *testing.T) {
	recs, in := reporttest.ReportFixture()
	fixture := analysis.Analyze(recs, in)

	arms := []string{"baseline", "no_intercept_hint", "no_repeat_guard", "no_final_recovery", "no_snapshot_ready",
		"no_stale_ref_refresh", "no_evaluate_isolation", "no_visual_progress"}
	pattern := map[string]string{"baseline": "PPPPPPPPPPPP", "no_intercept_hint": "FFFFFFFFPPPP",
		"no_repeat_guard": "PPPPPPPPPPPP", "no_final_recovery": "PPPPPPPPPPFP", "no_snapshot_ready": "FFFFFFFFFFFF",
		"no_stale_ref_refresh": "FFFFFFFFFFFF", "no_evaluate_isolation": "FFFFPPPPPPPP", "no_visual_progress": "FFFFFFFFFFFF"}
	var demo []results.Attempt
	sw := map[string][]string{}
	for _, a := range arms {
		demo = append(demo, analysistest.TasksOf(a, pattern[a])...)
		if a != "baseline" {
			sw[a] = []string{strings.TrimPrefix(a, "no_")}
		}
	}
	big := analysis.Analyze(demo, analysis.Inputs{Baseline: "baseline", Switched: sw, FailIfWorse: 0.05})

	for _, a := range []*analysis.Analysis{fixture, big} {
		var wideOut strings.Builder
		if err := TerminalReport(&wideOut, a); err != nil {
			t.Fatal(err)
		}
		wideN, _ := widest(wideOut.String())
		for _, width := range []int{80, 120} {
			var b strings.Builder
			if err := CompactReport(&b, a, width, ""); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if n, l := widest(out); n > width {
				t.Errorf("width %d: a line of %d runes:\n%s", width, n, l)
			}
			if wideN <= width {
				t.Errorf("the wide report (%d columns) already fits %d: the fixture does not test fitting", wideN, width)
			}
			for _, v := range a.Variants {
				line := VariantLine(a, &v)
				for _, part := range []string{v.Name + ": Δ ", "p_paired " + stats.FmtP(v.All.P), "p_holm " + stats.FmtP(v.PHolm), Verdict(a, &v)} {
					if !strings.Contains(line, part) {
						t.Errorf("variant line %q lacks %q", line, part)
					}
				}
				// The figures and the verdict are in the output, wrapped: compare without the wrapping whitespace.
				flat := strings.Join(strings.Fields(out), " ")
				if !strings.Contains(flat, VariantFigures(&v)) || strings.Count(flat, ": "+Verdict(a, &v)) != 1 {
					t.Errorf("width %d: the output lacks the figures of %s, or its verdict once (%q):\n%s", width, v.Name, line, out)
				}
			}
			for _, wn := range AnalysisWarnings(a) {
				if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(wn.Text), " ")) {
					t.Errorf("width %d: warning %q lost", width, wn.Text)
				}
			}
		}
	}

	// The last line names the run directory, shell-quoted, so that it can be pasted; RUN_DIR without one.
	for dir, want := range map[string]string{"": "bench report RUN_DIR --wide", "runs/demo": "bench report runs/demo --wide",
		"/tmp/my run": "bench report '/tmp/my run' --wide", "-x": "bench report ./-x --wide"} {
		var b strings.Builder
		if err := CompactReport(&b, fixture, 200, ReportCommand("", dir, nil)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("dir %q: the footer lacks %q:\n%s", dir, want, b.String())
		}
	}

	// Verdicts by the gate's rule: in the eight-arm ablation the always-failing arms are worse, the identical
	// one shows no difference.
	for _, v := range big.Variants {
		got := Verdict(big, &v)
		switch v.Name {
		case "no_snapshot_ready", "no_stale_ref_refresh", "no_visual_progress":
			if got != "worse than the baseline (gate FAILS)" {
				t.Errorf("%s: %q (p_holm %s, Δ %s)", v.Name, got, stats.FmtP(v.PHolm), stats.Pts(v.All.Delta))
			}
		case "no_repeat_guard":
			if !strings.HasPrefix(got, "no difference shown") {
				t.Errorf("%s: %q", v.Name, got)
			}
		}
	}
}

func TestWrap(t *testing.T) {
	got := wrap("aaa bbb ccc dddddddddddd e", "> ", "  ", 8)
	want := []string{"> aaa", "  bbb", "  ccc", "  dddddd", "  dddddd", "  e"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrap: %q, want %q", got, want)
	}
	if got := wrap("", "x", "y", 10); len(got) != 1 || got[0] != "x" {
		t.Errorf("empty: %q", got)
	}
}

func TestFitTable(t *testing.T) {
	tb := results.Table{Title: "T", Header: []string{"variant", "pass rate", "failure modes"},
		Rows: [][]string{{"no_snapshot_ready", "0/12 = 0.0% [0.0, 24.2]", strings.Repeat("stale_ref×3, ", 12)}}}
	var narrow, roomy strings.Builder
	if err := FitTable(&narrow, tb, 60); err != nil {
		t.Fatal(err)
	}
	if n, l := widest(narrow.String()); n > 60 || !strings.Contains(narrow.String(), "  variant no_snapshot_ready\n      pass rate: 0/12 = 0.0% [0.0, 24.2]\n") {
		t.Errorf("narrow (%d: %q):\n%s", n, l, narrow.String())
	}
	if err := FitTable(&roomy, tb, 400); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(roomy.String(), "│ no_snapshot_ready") {
		t.Errorf("a table that fits is printed as a table:\n%s", roomy.String())
	}
}

// The footer's command is as invoked, carries the reader's flags, and is broken between shell words with a
// line continuation when it is longer than the width (a quoted word is never split), every line within it.
func TestCompactFooterCommand(t *testing.T) {
	if got := ReportCommand("./bin/bench", "runs/demo", []string{"--judge", "answer", "--bh"}); got != "./bin/bench report runs/demo --judge answer --bh" {
		t.Errorf("ReportCommand = %q", got)
	}
	a := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "PPPPPP"), analysistest.TasksOf("v", "FFFFFP")), analysis.Inputs{Baseline: "base"})
	dir := "/tmp/a very long directory name/with spaces in it/and more of it/runs/demo-2026-12-03"
	var b strings.Builder
	if err := CompactReport(&b, a, 60, ReportCommand("./bin/bench", dir, []string{"--judge", "answer"})); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	want := []string{"  ./bin/bench report \\", "    '/tmp/a very long directory name/with spaces in it/and more of it/runs/demo-2026-12-03' \\",
		"    --judge answer --wide"}
	if got := lines[len(lines)-3:]; !slices.Equal(got, want) {
		t.Errorf("footer lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), "with --wide or --format md, --format html or --format json:") {
		t.Errorf("footer lacks the formats:\n%s", b.String())
	}
	// The shell reads the pasted lines back as one command with the directory as one word.
	script := strings.Join(lines[len(lines)-3:], "\n")
	out, err := exec.Command("bash", "-c", "set -- "+script+"; printf '%s\\n' \"$@\"").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(strings.TrimSpace(string(out)), "\n"); !slices.Equal(got, []string{"./bin/bench", "report", dir, "--judge", "answer", "--wide"}) {
		t.Errorf("bash reads the footer as %q", got)
	}
}

// One statement per cause: on the demo's shape (6 tasks compared), the few-tasks warning
// gives p_paired's floor from the moved tasks (2/2^5 when 5 of 6 moved, not 2/2^6) and what it means, no perm_floor
// warning repeats it, and the compact report prints no note repeating the warning's interval sentence. A variant
// whose adjusted interval excludes 0 while p_holm ≥ α gets the one note saying why the two disagree.
func TestWarningsOneStatementPerCause(t *testing.T) {
	recs := analysistest.Cat(analysistest.TasksOf("base", "PPPPPP"), analysistest.TasksOf("five", "FFFFFP"), analysistest.TasksOf("all", "FFFFFF"))
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base"})
	var five, all *WordedWarning
	ws := AnalysisWarnings(a)
	for i, w := range ws {
		if w.Kind == analysis.WarnPermFloor {
			t.Errorf("perm_floor warning beside few_tasks: %q", w.Text)
		}
		if w.Kind == analysis.WarnFewTasks && slices.Contains(w.Variants, "five") {
			five = &ws[i]
		}
		if w.Kind == analysis.WarnFewTasks && slices.Contains(w.Variants, "all") {
			all = &ws[i]
		}
	}
	if five == nil || !strings.Contains(five.Text, "five vs base: Only 6 tasks are compared (fewer than 10): p_paired is the exact sign-flip p (with 5 of the 6 tasks moved it cannot go below 2/2^5 = 0.0625, above α = 0.05: with these outcomes no effect can be shown, though more reps may move more tasks)") {
		t.Errorf("few_tasks warning of five: %+v", five)
	}
	if all == nil || !strings.Contains(all.Text, "(with all 6 tasks moved it cannot go below 2/2^6 = 0.0312)") ||
		strings.Contains(all.Text, "above α") {
		t.Errorf("few_tasks warning of all: %+v", all)
	}
	var b strings.Builder
	if err := CompactReport(&b, a, 120, ""); err != nil {
		t.Fatal(err)
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	for _, bad := range []string{"note: five (", "note: all (", "2/2^5 = 0.0625 (> α"} {
		if strings.Contains(out, bad) {
			t.Errorf("compact report repeats a warning (%q):\n%s", bad, b.String())
		}
	}
	// five: Δ -83.3 pts, its adjusted interval below 0, p_paired 0.0625, p_holm 0.0625 (rank 2 of 2: ×1) ≥ α.
	c := a.Variants[0].All
	if a.Variants[0].Name != "five" || !(c.CI[1] < 0) || a.Variants[0].PHolm < 0.05 {
		t.Fatalf("fixture: %s CI %v p_holm %v", a.Variants[0].Name, c.CI, a.Variants[0].PHolm)
	}
	// "all": p_paired 0.0312, Holm ×2 = 0.0625 ≥ α, interval below 0: named in the same note.
	if !strings.Contains(out, "note: five, all: the 95% interval excludes 0 but p_holm is not below α = 0.05.") {
		t.Errorf("the note does not name both variants:\n%s", b.String())
	}
}

// Empty arms of several variants merge into one warning whose sentence reads right for many.
func TestEmptyArmsMerge(t *testing.T) {
	a := analysis.Analyze(analysistest.TasksOf("base", "PP"), analysis.Inputs{Baseline: "base", Variants: []string{"g1", "g2"}})
	w := worded(a, analysis.WarnEmptyArm)
	if w == nil || w.Text != "g1, g2 vs base: No records, so nothing to compare." || !slices.Equal(w.Variants, []string{"g1", "g2"}) {
		t.Errorf("empty-arm warning: %+v", a.Warnings)
	}
}

// One moved task of six: p_paired's floor is 2/2^1 = 1, and the warning says one task moved (review of stop 32:
// a floor derived from p_perm_floor < 1 said "no task moved").
func TestFewTasksOneMoved(t *testing.T) {
	a := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "PPPPPP"), analysistest.TasksOf("one", "FPPPPP")), analysis.Inputs{Baseline: "base"})
	w := worded(a, analysis.WarnFewTasks)
	if w == nil || !strings.Contains(w.Text, "(with 1 of the 6 tasks moved it is 2/2^1 = 1, above α = 0.05: with these outcomes no effect can be shown, though more reps may move more tasks)") {
		t.Errorf("few_tasks warning: %+v", w)
	}
	if a.Warning(analysis.WarnPermFloor) != nil || a.Warning(analysis.WarnHolmFloor) != nil {
		t.Errorf("a second statement of the floor: %+v", a.Warnings)
	}
}

// TestOneTaskNote: with one task compared, the interval printed is the whole range, and the statistical note says
// so (it said "no interval" beside a printed [-100.0, +100.0]).
func TestOneTaskNote(t *testing.T) {
	a := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("baseline", "P"), analysistest.TasksOf("v", "F")), analysis.Inputs{Baseline: "baseline"})
	v := &a.Variants[0]
	if line := VariantLine(a, v); !strings.Contains(line, "[-100.0, +100.0]") {
		t.Errorf("one-task line: %q", line)
	}
	if n := PairedNote(&v.All.Paired, "cluster"); !strings.Contains(n, "the interval is the whole range [-100, +100] pts") || strings.Contains(n, "no interval") {
		t.Errorf("one-task note: %q", n)
	}
	// An arm with no judged attempt has no rate ("n/a") in the compact line and no mean ("-", not 0) in the arms
	// table.
	e := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "PP"), analysistest.TasksOf("e", "II")), analysis.Inputs{Baseline: "base"})
	var eb, md strings.Builder
	if err := CompactReport(&eb, e, 120, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(eb.String(), "  e: 0/0 = n/a, 2 errors, 2 tasks\n") {
		t.Errorf("empty arm's compact line:\n%s", eb.String())
	}
	if err := MarkdownReport(&md, e); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| 0/0 = n/a | - | 2 (infra 2) | 2 | - | - | - | $0.0020 | - |") {
		t.Errorf("empty arm's row in the arms table:\n%s", md.String())
	}

	// The baseline arm's line marks it "(baseline)" unless that is its name.
	for base, want := range map[string]string{"baseline": "\n  baseline: 1/1 = ", "base": "\n  base (baseline): 1/1 = "} {
		a := analysis.Analyze(analysistest.Cat(analysistest.TasksOf(base, "P"), analysistest.TasksOf("v", "F")), analysis.Inputs{Baseline: base})
		var b strings.Builder
		if err := CompactReport(&b, a, 120, ""); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) || strings.Contains(b.String(), "baseline (baseline)") {
			t.Errorf("baseline %q: the arm line lacks %q:\n%s", base, want, b.String())
		}
	}
}

// TestGuardCells: the guard-activity table tells a guard switched off in an arm ("switched, no event") from one
// that could act and never did ("no event"); both were "-".
func TestGuardCells(t *testing.T) {
	withEvents := func(recs []results.Attempt, g string) []results.Attempt {
		for i := range recs {
			recs[i].GuardEvents = map[string]int{g: 1}
		}
		return recs
	}
	recs := analysistest.Cat(withEvents(analysistest.TasksOf("baseline", "PP"), "x"), analysistest.TasksOf("no_x", "FF"), withEvents(analysistest.TasksOf("no_y", "PP"), "x"))
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "baseline", Switched: map[string][]string{"no_x": {"x"}, "no_y": {"y"}}})
	tb := guardTable(a)
	want := [][]string{{"x", "fired in 2/2 (2 passed), 2 events", "switched, no event", "fired in 2/2 (2 passed), 2 events"}}
	if !slices.Equal(tb.Header, []string{"guard", "baseline", "no_x", "no_y"}) || len(tb.Rows) != 1 || !slices.Equal(tb.Rows[0], want[0]) {
		t.Errorf("guard table %v %v, want %v", tb.Header, tb.Rows, want)
	}
	recs = analysistest.Cat(withEvents(analysistest.TasksOf("baseline", "PP"), "x"), analysistest.TasksOf("other", "PP"))
	a = analysis.Analyze(recs, analysis.Inputs{Baseline: "baseline"})
	if tb := guardTable(a); len(tb.Rows) != 1 || tb.Rows[0][2] != "no event" {
		t.Errorf("a guard on but silent: %v", tb.Rows)
	}
}
