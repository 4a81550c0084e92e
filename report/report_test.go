package report

import (
	"fmt"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/report/reporttest"
)

func TestTerminalAndMarkdownReports(t *testing.T) {
	recs, in := reporttest.ReportFixture()
	a := analysis.Analyze(recs, in)
	var term strings.Builder
	if err := TerminalReport(&term, a); err != nil {
		t.Fatal(err)
	}
	s := term.String()
	iw, ia := strings.Index(s, "WARNINGS"), strings.Index(s, "\nArms\n")
	if iw < 0 || ia < 0 || iw > ia {
		t.Errorf("warnings must come before the tables (warnings at %d, arms at %d):\n%s", iw, ia, s)
	}
	for _, want := range []string{
		"! variant w is identical to the baseline",
		"no_y vs base: Only 2 tasks changed outcome",
		"│ no_x ", // arm names verbatim in headers and rows (no tablewriter auto-format)
		"p=0.0156; rescued 7, broke 0",
		"+34.5 [+3.6, +57.4] adj.",
		"0.0312 (sign-flip)",
		"p=0.0312; rescued 7, broke 0", // Durkalski's McNemar by task, exact
		"Diagnostics (assume independent attempts",
		"target: x",
		"fired in 1/25 (1 passed), 3 events",
		"Gate (fail if worse by more than 5.0 pts with the interval below 0 and p_holm below alpha): passed: no variant is shown worse.",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("terminal report lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "NO X") || strings.Contains(s, "MC NEMAR") {
		t.Errorf("headers were auto-formatted:\n%s", s)
	}

	var md strings.Builder
	if err := MarkdownReport(&md, a); err != nil {
		t.Fatal(err)
	}
	m := md.String()
	for _, want := range []string{
		"## Ablation: 2 variants vs baseline `base`",
		"> [!WARNING]\n> - a variant is identical to the baseline (w)",
		"<details><summary>The warnings in full (4 causes)</summary>\n\n- variant w is identical to the baseline: it can only measure noise",
		"- no_x: no difference shown after Holm's adjustment — 64% → 92% on 15 tasks, Δ +34.5 pts [+3.6, +57.4];",
		"| variant | scope | tasks (informative) | baseline | variant | Δ pts [95% CI] | p_paired | p_perm | p_holm | McNemar by task (Durkalski) | MDE | power | gate |",
		"| no_x | all common | 15 (6) | 16/25 (64.0%) | 23/25 (92.0%) | +34.5 [+3.6, +57.4] adj. |",
		"**Gate (fail if worse by more than 5.0 pts with the interval below 0 and p_holm below alpha): passed: no variant is shown worse.**",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("markdown report lacks %q:\n%s", want, m)
		}
	}
	if strings.Index(m, "[!WARNING]") > strings.Index(m, "**Arms**") {
		t.Error("markdown warnings after the tables")
	}
}

// TestHolmFloorAndInconclusiveGate: 7 variants each failing all 6 tasks the baseline passes. Each p_paired is the
// exact floor 2/2^6 = 0.03125, so Holm's first step gives 7 × 0.03125 = 0.219: the gate passes, and the report
// must say the variants look worse but are not shown worse, and warn that no variant can pass Holm at 6 tasks
// (9 are needed: 7 × 2/2^9 = 0.027 < 0.05).
func TestHolmFloorAndInconclusiveGate(t *testing.T) {
	recs := analysistest.TasksOf("base", "PPPPPP")
	var names []string
	for i := range 7 {
		n := fmt.Sprintf("v%d", i)
		names = append(names, n)
		recs = append(recs, analysistest.TasksOf(n, "FFFFFF")...)
	}
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base", Variants: names, FailIfWorse: 0.05})
	analysistest.Approx(t, "p_paired", a.Variants[0].All.P, 0.03125, 1e-12)
	analysistest.Approx(t, "p_holm", a.Variants[0].PHolm, 0.21875, 1e-12)
	if failed, _ := a.Gate(0.05); failed {
		t.Fatal("gate failed at p_holm 0.219")
	}
	inc := a.GateInconclusive(0.05)
	if len(inc) != 7 || inc[0].Kind != analysis.GateNotShown || inc[0].Variant != "v0" ||
		!strings.Contains(GateReasonText(inc[0]), "v0: Δ = -100.0 pts") || !strings.Contains(GateReasonText(inc[0]), "not shown worse") {
		t.Errorf("inconclusive = %+v", inc)
	}
	var floor string
	for _, w := range AnalysisWarnings(a) {
		if w.Kind == analysis.WarnHolmFloor {
			floor = w.Text
		}
	}
	if !strings.Contains(floor, "v0, v1, v2, v3, v4, v5, v6 vs base: With 6 tasks compared, p_paired could at best reach 2/2^6 = 0.0312 (every task moved the same way), and 7 variants") ||
		!strings.Contains(floor, "p_holm ≥ 0.219") || !strings.Contains(floor, "at least 9 tasks") {
		t.Errorf("holm_floor warning = %q", floor)
	}
	if line := GateLine(a); !strings.Contains(line, "passed: no variant is shown worse. Inconclusive, not evidence of no harm: v0:") {
		t.Errorf("gate line = %q", line)
	}
	// With 9 tasks the floor is below α: no warning.
	recs = analysistest.TasksOf("base", "PPPPPPPPP")
	for _, n := range names {
		recs = append(recs, analysistest.TasksOf(n, "FFFFFFFFF")...)
	}
	for _, w := range analysis.Analyze(recs, analysis.Inputs{Baseline: "base", Variants: names}).Warnings {
		if w.Kind == analysis.WarnHolmFloor {
			t.Errorf("9 tasks: unexpected warning %+v", w)
		}
	}
}
