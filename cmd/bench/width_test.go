package main

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// maxLine is the rune count of the longest line of s.
func maxLine(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, utf8.RuneCountInString(l))
	}
	return n
}

// TestTerminalReportFitsColumns: bench report and bench compare in the table format keep every line within
// $COLUMNS (80 and 120; off a terminal the default is 120), --wide prints the full tables as wide as they need,
// and --wide with a format that always has the full tables is refused (exit 2).
func TestTerminalReportFitsColumns(t *testing.T) {
	a := writeRun(t, runSpec{tasks: 12, reps: 2, seed: 1, fail: func(i int) bool { return i%3 == 0 }})
	b := writeRun(t, runSpec{tasks: 12, reps: 2, seed: 1, fail: func(i int) bool { return i%2 == 0 }})
	wideOut, stderr, code := bench(t, "compare", a, b, "--wide")
	if code != 0 {
		t.Fatalf("compare --wide: exit %d: %s", code, stderr)
	}
	if maxLine(wideOut) <= 120 {
		t.Fatalf("the full comparison table is %d columns: it does not test fitting:\n%s", maxLine(wideOut), wideOut)
	}
	for _, cols := range []string{"80", "120", ""} {
		width := 120
		if cols == "80" {
			width = 80
		}
		env := []string{"COLUMNS=" + cols}
		out, stderr, code := benchEnv(t, env, "compare", a, b)
		if code != 0 || maxLine(out) > width {
			t.Errorf("COLUMNS=%q compare: exit %d, widest line %d > %d:\n%s%s", cols, code, maxLine(out), width, out, stderr)
		}
		for _, want := range []string{"new failures: ", "Δ pts [95% CI]: ", "Tasks whose pass rate changed"} {
			if !strings.Contains(out, want) {
				t.Errorf("COLUMNS=%q compare lacks %q:\n%s", cols, want, out)
			}
		}
		out, stderr, code = benchEnv(t, env, "report", a)
		if code != 0 || maxLine(out) > width || !strings.Contains(out, "default") {
			t.Errorf("COLUMNS=%q report: exit %d, widest line %d > %d:\n%s%s", cols, code, maxLine(out), width, out, stderr)
		}
	}
	// An ablation run with re-judges (results/testdata/v2ablate: answer and state verdicts, so the report has
	// the judges part after the analysis, with its agreement tables and notes, as make demo's has).
	abl := fixtureCopy(t, "v2ablate")
	wideAbl, _, _ := bench(t, "report", abl, "--wide")
	if maxLine(wideAbl) <= 120 {
		t.Errorf("the ablation fixture's wide report is %d columns: it does not test fitting", maxLine(wideAbl))
	}
	// --wide: the tables whole, every other line (warnings, notes, titles, the footer) within $COLUMNS.
	wide80, _, _ := benchEnv(t, []string{"COLUMNS=80"}, "report", abl, "--wide")
	tableWide := false
	for _, l := range strings.Split(wide80, "\n") {
		if strings.ContainsAny(l, "┌│├└") {
			tableWide = tableWide || utf8.RuneCountInString(l) > 80
			continue
		}
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("COLUMNS=80 --wide: a prose line of %d columns: %q", utf8.RuneCountInString(l), l)
		}
	}
	if !tableWide || !strings.Contains(wide80, "WARNINGS") {
		t.Errorf("COLUMNS=80 --wide: no table wider than 80 or no warnings:\n%s", wide80)
	}
	for _, width := range []int{80, 120} {
		out, stderr, code := benchEnv(t, []string{fmt.Sprintf("COLUMNS=%d", width)}, "report", abl)
		// The footer names the program as invoked and the directory, pasteable across its continuation lines.
		if cmd := strings.ReplaceAll(out, " \\\n    ", " "); !strings.Contains(cmd, benchBin+" report "+abl+" --wide") {
			t.Errorf("COLUMNS=%d: the footer lacks %q:\n%s", width, benchBin+" report "+abl+" --wide", out)
		}
		if code != 0 || maxLine(out) > width || !strings.Contains(out, "Variants vs ") {
			t.Errorf("COLUMNS=%d ablation report: exit %d, widest line %d:\n%s%s", width, code, maxLine(out), out, stderr)
		}
	}
	if _, stderr, code := bench(t, "report", a, "--format", "md", "--wide"); code != 2 || !strings.Contains(stderr, "--wide applies to the table format") {
		t.Errorf("--format md --wide: exit %d, %s", code, stderr)
	}
}
