package ablation

import (
	"strings"
	"testing"
	"unicode/utf8"

	"webbench/results"
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
	recs, in := reportFixture()
	fixture := Analyze(recs, in)

	arms := []string{"baseline", "no_intercept_hint", "no_repeat_guard", "no_final_recovery", "no_snapshot_ready",
		"no_stale_ref_refresh", "no_evaluate_isolation", "no_visual_progress"}
	pattern := map[string]string{"baseline": "PPPPPPPPPPPP", "no_intercept_hint": "FFFFFFFFPPPP",
		"no_repeat_guard": "PPPPPPPPPPPP", "no_final_recovery": "PPPPPPPPPPFP", "no_snapshot_ready": "FFFFFFFFFFFF",
		"no_stale_ref_refresh": "FFFFFFFFFFFF", "no_evaluate_isolation": "FFFFPPPPPPPP", "no_visual_progress": "FFFFFFFFFFFF"}
	var demo []results.Attempt
	sw := map[string][]string{}
	for _, a := range arms {
		demo = append(demo, tasksOf(a, pattern[a])...)
		if a != "baseline" {
			sw[a] = []string{strings.TrimPrefix(a, "no_")}
		}
	}
	big := Analyze(demo, Inputs{Baseline: "baseline", Switched: sw, FailIfWorse: 0.05})

	for _, a := range []*Analysis{fixture, big} {
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
				for _, part := range []string{v.Name + ": Δ ", "p_paired " + fmtP(v.All.P), "p_holm " + fmtP(v.PHolm), Verdict(a, &v)} {
					if !strings.Contains(line, part) {
						t.Errorf("variant line %q lacks %q", line, part)
					}
				}
				// The line is in the output, wrapped: compare without the wrapping whitespace.
				if !strings.Contains(strings.Join(strings.Fields(out), " "), line) {
					t.Errorf("width %d: the output lacks the line of %s (%q):\n%s", width, v.Name, line, out)
				}
			}
			for _, wn := range a.Warnings {
				if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(wn.Text), " ")) {
					t.Errorf("width %d: warning %q lost", width, wn.Text)
				}
			}
		}
	}

	// The last line names the run directory, shell-quoted, so that it can be pasted; RUN_DIR without one.
	for dir, want := range map[string]string{"": "bench report RUN_DIR --wide", "runs/demo": "bench report runs/demo --wide",
		"/tmp/my run": "bench report '/tmp/my run' --wide"} {
		var b strings.Builder
		if err := CompactReport(&b, fixture, 200, dir); err != nil {
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
				t.Errorf("%s: %q (p_holm %s, Δ %s)", v.Name, got, fmtP(v.PHolm), pts(v.All.Delta))
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
