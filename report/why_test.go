package report

import (
	"bytes"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/results"
)

// The cause lines name the variant, its count of such pairs, where and on what they diverged, the guard event
// and each arm's bytes there, and how the pairs ended (or where the extra steps went).
func TestWhyPart(t *testing.T) {
	w := &analysis.Why{MaterialSteps: 2, MaterialTokenRatio: 1.25, Variants: []analysis.VariantWhy{{
		Variant: "no_intercept_hint", Discordant: 8, Unguarded: 1,
		Pairs: make([]analysis.Divergence, 10),
		Groups: []analysis.CauseGroup{
			{Cause: analysis.Cause{Outcome: analysis.OutcomeBroke, Guard: "intercept_hint", Action: "condensed", ActedIn: "a", Kind: results.KindIntercepted},
				Pairs: []int{0, 1, 2, 3, 4, 5, 6}, Where: []analysis.Count{{Name: "browser_click", N: 7}}, FirstCall: 7,
				Endings: []analysis.Count{{Name: "intercepted", N: 6}, {Name: "max_steps", N: 1}}, ABytes: 394, BBytes: 2415},
			{Cause: analysis.Cause{Outcome: analysis.OutcomeBroke, Kind: results.KindIntercepted}, Pairs: []int{7},
				Where: []analysis.Count{{Name: "browser_click", N: 1}}, Endings: []analysis.Count{{Name: "intercepted", N: 1}}, ABytes: 394, BBytes: 412},
			{Cause: analysis.Cause{Outcome: analysis.OutcomeCostlier, Guard: "intercept_hint", Action: "condensed", ActedIn: "a", Kind: results.KindIntercepted},
				Pairs: []int{8, 9}, Where: []analysis.Count{{Name: "browser_click", N: 2}}, ExtraSteps: 5,
				SpentOn: []analysis.Count{{Name: "browser_click", N: 3}, {Name: "browser_snapshot", N: 2}}, ABytes: 480, BBytes: 1457},
		}}}}
	p := NewWhyPart(w, "baseline")
	want := []string{
		"no_intercept_hint broke 8: 7 diverge at a click on a covered control (browser_click, the first such call in 7; baseline: intercept_hint condensed, 394 B; no_intercept_hint: 2.4 KB) → 6 intercepted, 1 max_steps",
		"no_intercept_hint broke 8: 1 diverged before a guard acted in one arm only, at a click on a covered control (browser_click; baseline: 394 B; no_intercept_hint: 412 B) → 1 intercepted",
	}
	if len(p.Moved) != 2 || p.Moved[0].Text != want[0] || p.Moved[1].Text != want[1] {
		t.Fatalf("moved lines:\n%v\nwant\n%v", p.Moved, want)
	}
	cost := "no_intercept_hint cost more on 2: 2 diverge at a click on a covered control (browser_click; baseline: intercept_hint condensed, 480 B; no_intercept_hint: 1.5 KB) → +5 steps, on 3 browser_click, 2 browser_snapshot"
	if len(p.Cost) != 1 || p.Cost[0].Text != cost {
		t.Fatalf("cost lines: %v\nwant %s", p.Cost, cost)
	}
	if !strings.HasPrefix(p.Noise, "Diverged before any guard acted: 1 of 8 discordant pairs (12%)") {
		t.Fatalf("noise: %s", p.Noise)
	}
	var b bytes.Buffer
	p.WriteText(&b, true, 0)
	if !strings.Contains(b.String(), "### "+WhyMovedTitle) || !strings.Contains(b.String(), "- "+mdText(want[0])) {
		t.Fatalf("markdown:\n%s", b.String())
	}
	if got := p.VariantLines("no_intercept_hint"); len(got) != 3 || got[2] != cost {
		t.Fatalf("variant lines: %v", got)
	}
}
