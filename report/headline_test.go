package report_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"webbench/report"
	"webbench/report/reporttest"
	"webbench/stats"
)

// whyRun is a recorded guard ablation on the Zoo: make demo's spec on two task families per guard
// (analysis/testdata/why.yaml says how it was made), the demo's shape on fewer tasks.
const whyRun = "../analysis/testdata/why-run"

// TestCompactReportLeadsWithTheAnswer renders the terminal report of the recorded ablation at 120 columns: the
// screen before DETAILS fits 50 lines and opens with one headline per variant whose words and figures are the
// analysis's (verdict, pass rates on the same pairs, Δ and its interval, the tokens change, the top cause); each
// warning kind is summarised once before DETAILS and its sentences come once after it; each verdict sentence is
// printed once, with every variant it is about.
func TestCompactReportLeadsWithTheAnswer(t *testing.T) {
	_, a, why := reporttest.AnalyzeExplained(t, whyRun)
	var b bytes.Buffer
	if err := report.CompactReportWhy(&b, a, why, 120, ""); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	head, details, ok := strings.Cut(out, "\n"+report.DetailsTitle+"\n")
	if !ok {
		t.Fatalf("no %s line:\n%s", report.DetailsTitle, out)
	}
	lines := strings.Split(head, "\n")
	if len(lines) > 50 {
		t.Errorf("%d lines before %s, want ≤ 50:\n%s", len(lines), report.DetailsTitle, head)
	}
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > 120 {
			t.Errorf("line wider than 120 columns: %q", l)
		}
	}
	if !strings.HasPrefix(lines[3], report.HeadlineTitle[:20]) {
		t.Errorf("line 4 is %q, want the headlines' title", lines[3])
	}
	flat := strings.Join(strings.Fields(head), " ")
	hs := a.Headlines(why)
	if len(hs) != 7 {
		t.Fatalf("%d headlines, want one per variant (7)", len(hs))
	}
	for _, h := range hs {
		c := h.All
		want := fmt.Sprintf("%s: %s — %s → %s on %d tasks, Δ %s pts [%s, %s]; tokens %s", h.Variant,
			report.VerdictWord(h.Verdict), stats.Pct(c.A.Rate), stats.Pct(c.B.Rate), c.G(), stats.Pts(c.Delta),
			stats.Pts(c.CI[0]), stats.Pts(c.CI[1]), report.RatioPct(h.Cost.Ratio))
		if !strings.Contains(flat, want) {
			t.Errorf("no headline %q in:\n%s", want, head)
		}
		if h.Cause == nil || h.Moved != c.Broke+c.Rescued {
			t.Errorf("%s: cause %v with %d moved, want the top cause of its %d moved pairs", h.Variant, h.Cause, h.Moved,
				c.Broke+c.Rescued)
		}
	}
	// The recorded run: every variant loses its targets' passes; no_stale_ref_refresh's 3 targets all broke at a stale ref.
	for _, want := range []string{
		"no_stale_ref_refresh: cannot tell: too few tasks — 100% → 0% on 3 tasks, Δ -100.0 pts [-100.0, +10.1]",
		"top cause of 3 moved: broke 3 at a stale ref → 3 stale_ref_deadlock",
		"no_repeat_guard: cannot tell: too few tasks moved — 90% → 80% on 10 tasks",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("no %q in:\n%s", want, head)
		}
	}
	groups := report.GroupWarnings(report.AnalysisWarnings(a))
	if len(groups) < 3 {
		t.Fatalf("%d warning groups, want the run's several causes", len(groups))
	}
	for _, g := range groups {
		line := strings.Join(strings.Fields(g.Line(report.TestedVariants(a))), " ")
		if n := strings.Count(flat, line); n != 1 {
			t.Errorf("warning summary %q printed %d times before %s, want once", line, n, report.DetailsTitle)
		}
		for _, text := range g.Texts {
			text = strings.Join(strings.Fields(text), " ")
			if n := strings.Count(strings.Join(strings.Fields(details), " "), text); n != 1 {
				t.Errorf("warning %q printed %d times in the details, want once", text, n)
			}
			if strings.Contains(flat, text) {
				t.Errorf("warning sentence %q before %s, want it in the details only", text, report.DetailsTitle)
			}
		}
	}
	whole := strings.Join(strings.Fields(out), " ")
	for i := range a.Variants {
		if v := report.Verdict(a, &a.Variants[i]); strings.Count(whole, v) != 1 {
			t.Errorf("verdict sentence %q printed %d times, want once", v, strings.Count(whole, v))
		}
	}
	if strings.Contains(out, "failure rate") {
		t.Error("the report speaks of a failure rate; it speaks pass rates")
	}
}
