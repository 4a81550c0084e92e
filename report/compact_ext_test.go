package report_test

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/report"
	reportjson "webbench/report/json"
	"webbench/results"
	"webbench/stats"
)

// TestVerdictSaysWhy checks the verdict words when p_holm does not reach α, on the shapes of the demo's run of
// 2026-12-04 (README "make demo"): there, three arms failed every attempt (Δ −100 pts) on 6 tasks and the verdict
// said "no difference shown (MDE 97 pts: a smaller change can go unseen)", which reads as if a 100-point drop
// were smaller than 97. The verdict now names the bound that made any effect unshowable: the exact sign-flip
// floor 2/2^k of k moved tasks, Holm's (1979) multiplier m on the floor 2/2^G shared by m variants, or Holm's
// adjustment alone; the MDE only when |Δ| is below it.
func TestVerdictSaysWhy(t *testing.T) {
	arm := func(variant string, perTask ...string) []results.Attempt {
		var out []results.Attempt
		for i, reps := range perTask {
			for r := range len(reps) {
				out = append(out, analysistest.Rec(variant, fmt.Sprintf("t%02d", i), r, reps[r]))
			}
		}
		return out
	}
	same := func(n int, s string) []string { return slices.Repeat([]string{s}, n) }
	verdicts := func(a *analysis.Analysis) map[string]string {
		out := map[string]string{}
		for _, v := range a.Variants {
			out[v.Name] = report.Verdict(a, &v)
		}
		return out
	}

	// The demo's Holm floor: five variants on 6 tasks × 2 reps; three fail everything (p_paired = 2/2^6), one
	// moves 5 tasks, one 4. Holm's smallest multiplier for the three is 5 (five variants have a floor ≥ 2/2^6).
	demo := analysistest.Cat(arm("baseline", same(6, "PP")...),
		arm("no_snapshot_ready", same(6, "FF")...), arm("no_stale_ref_refresh", same(6, "FF")...),
		arm("no_visual_progress", same(6, "FF")...),
		arm("no_intercept_hint", "FF", "FF", "FF", "FF", "FP", "PP"),
		arm("no_evaluate_isolation", "FP", "FP", "FP", "FP", "PP", "PP"))
	a := analysis.Analyze(demo, analysis.Inputs{Baseline: "baseline"})
	got := verdicts(a)
	for _, name := range []string{"no_snapshot_ready", "no_stale_ref_refresh", "no_visual_progress"} {
		want := "no difference shown: at this size none can be (p_holm ≥ 0.156 with 6 tasks compared and 5 variants sharing the floor)"
		if got[name] != want {
			t.Errorf("%s: %q, want %q", name, got[name], want)
		}
	}
	// no_intercept_hint's 5 moved tasks leave p_paired ≥ 0.0625 > α, but the Holm bound is the reason no number
	// of reps lifts, so the verdict names it (as for no_evaluate_isolation's 4).
	for _, name := range []string{"no_intercept_hint", "no_evaluate_isolation"} {
		if !strings.HasPrefix(got[name], "no difference shown: at this size none can be (p_holm ≥ 0.156 with 6 tasks") {
			t.Errorf("%s: %q, want the Holm bound", name, got[name])
		}
	}
	for _, v := range a.Variants {
		if v.PHolm < analysis.DefaultAlpha {
			t.Errorf("%s: p_holm %s: the fixture should not reach α", v.Name, stats.FmtP(v.PHolm))
		}
	}
	// Every report, not only the compact one, says that the all-fail arms' intervals (the adjusted Wald interval
	// of six −100-point tasks, [−100, −29.2] pts as in the demo) and no_intercept_hint's ([−100, −9.0]) exclude 0
	// while p_holm does not reach α; no_evaluate_isolation's ([−63.7, +13.7]) does not.
	want := "no_snapshot_ready, no_stale_ref_refresh, no_visual_progress, no_intercept_hint"
	for name, render := range map[string]func(io.Writer, *analysis.Analysis) error{"markdown": report.MarkdownReport,
		"wide terminal": report.TerminalReport, "compact": func(w io.Writer, a *analysis.Analysis) error { return report.CompactReport(w, a, 120, "") }} {
		var b strings.Builder
		if err := render(&b, a); err != nil {
			t.Fatal(err)
		}
		flat := strings.Join(strings.Fields(b.String()), " ")
		if !strings.Contains(flat, want+": the 95% interval excludes 0 but p_holm is not below α = 0.05.") {
			t.Errorf("%s report: no note naming %s:\n%s", name, want, b.String())
		}
	}

	// The verdict is also in the full reports: the Markdown and wide tables' verdict column, JSON's "verdict".
	var md, js strings.Builder
	if err := report.MarkdownReport(&md, a); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| no difference shown: at this size none can be (p_holm ≥ 0.156 with 6 tasks compared and 5 variants sharing the floor) |") {
		t.Errorf("markdown report lacks the verdict column:\n%s", md.String())
	}
	if err := reportjson.JSONReport(&js, a); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Variants []struct{ Name, Verdict string }
	}
	if err := json.Unmarshal([]byte(js.String()), &doc); err != nil {
		t.Fatal(err)
	}
	for _, v := range doc.Variants {
		if v.Verdict != got[v.Name] || v.Verdict == "" {
			t.Errorf("JSON verdict of %s: %q, want %q", v.Name, v.Verdict, got[v.Name])
		}
	}

	// Holm alone: two variants on 12 tasks, each failing 6 of them in both reps: p_paired = 2/2^6 = 0.03125 (the
	// floor 2/2^12 is far below α, m·floor too); with two more arms — "two", failing 2 tasks (p_paired = 2/2^2 =
	// 0.5, its floor with 2 moved tasks), and an identical one (p = 1) — Holm's step-down multiplies the first
	// of the two by 4 and the second by 3, and keeps p_holm monotone: 0.125 for both. The identical arm shows no
	// difference and has |Δ| = 0 below its MDE.
	half := append(same(6, "FF"), same(6, "PP")...)
	twoMoved := append(same(2, "FF"), same(10, "PP")...)
	four := analysistest.Cat(arm("baseline", same(12, "PP")...), arm("a", half...), arm("b", half...), arm("two", twoMoved...),
		arm("same", same(12, "PP")...))
	a2 := analysis.Analyze(four, analysis.Inputs{Baseline: "baseline"})
	got = verdicts(a2)
	for _, name := range []string{"a", "b"} {
		if want := "no difference shown after Holm's adjustment (p_paired 0.0312 < α = 0.05, p_holm 0.125)"; got[name] != want {
			t.Errorf("%s: %q, want %q", name, got[name], want)
		}
	}
	if want := "no difference shown: with 2 tasks moved, p_paired cannot go below 0.5"; got["two"] != want {
		t.Errorf("two: %q, want %q", got["two"], want)
	}
	if !strings.HasPrefix(got["same"], "no difference shown (MDE ") {
		t.Errorf("same: %q, want the MDE clause", got["same"])
	}

	// Clustered (12 tasks in 3 clusters): the floor is 2/2^3 per variant and the bound names clusters, not tasks
	// (the review of 2026-12-04 saw "with 3 tasks compared").
	clustered := func(recs []results.Attempt) []results.Attempt {
		for i := range recs {
			recs[i].Cluster = fmt.Sprintf("c%d", (recs[i].TaskID[2]-'0')%3)
		}
		return recs
	}
	twelveF := same(12, "FF")
	a3 := analysis.Analyze(clustered(analysistest.Cat(arm("baseline", same(12, "PP")...), arm("x", twelveF...), arm("y", twelveF...))),
		analysis.Inputs{Baseline: "baseline"})
	got = verdicts(a3)
	for _, name := range []string{"x", "y"} {
		if want := "no difference shown: at this size none can be (p_holm ≥ 0.5 with 3 clusters compared and 2 variants sharing the floor)"; got[name] != want {
			t.Errorf("clustered %s: %q, want %q", name, got[name], want)
		}
	}
	if w := wordedWarning(a3, analysis.WarnHolmFloor); w == nil || !strings.Contains(w.Text, "With 3 clusters compared") ||
		!strings.Contains(w.Text, "every cluster moved the same way") || !strings.Contains(w.Text, "clusters.") {
		t.Errorf("clustered holm_floor warning: %+v", w)
	}

	// Unpaired (no shared (task, rep) pair: the variant ran rep 1, the baseline rep 0): the primary p is Fisher's,
	// and the line says p_fisher, not p_paired.
	var u []results.Attempt
	for i := range 12 {
		u = append(u, analysistest.Rec("baseline", fmt.Sprintf("t%02d", i), 0, 'P'), analysistest.Rec("u", fmt.Sprintf("t%02d", i), 1, 'F'))
	}
	a4 := analysis.Analyze(u, analysis.Inputs{Baseline: "baseline"})
	if line := report.VariantLine(a4, &a4.Variants[0]); a4.Variants[0].All.Matched || !strings.Contains(line, ", p_fisher ") ||
		strings.Contains(line, "p_paired") {
		t.Errorf("unpaired line: %q (matched %v)", line, a4.Variants[0].All.Matched)
	}
}

// wordedWarning returns the first of a's warnings of kind as the reports print it (report.AnalysisWarnings), nil
// when none.
func wordedWarning(a *analysis.Analysis, kind analysis.WarningKind) *report.WordedWarning {
	for _, w := range report.AnalysisWarnings(a) {
		if w.Kind == kind {
			return &w
		}
	}
	return nil
}
