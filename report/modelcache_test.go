package report

import (
	"strings"
	"testing"

	"webbench/analysis"
)

// The model cache's table has a row per arm that ran with the cache, in the arms' words, and none without.
func TestModelCacheTable(t *testing.T) {
	arms := []analysis.Arm{
		{Name: "baseline", ModelCalls: 40, CostUSD: 0.5, ModelCache: &analysis.ArmCache{Replayed: 30, Sent: 10,
			ReplayedTokens: 120000, SavedUSD: 0.375, PaidUSD: 0.125}},
		{Name: "external", ModelCalls: 5, CostUSD: 0.1},
	}
	tb := ModelCacheTable(arms)
	want := []string{"baseline", "40", "30", "10", "120.0k", "$0.5000", "$0.1250", "$0.3750"}
	if len(tb.Rows) != 1 || strings.Join(tb.Rows[0], "|") != strings.Join(want, "|") {
		t.Fatalf("rows %q, want %q", tb.Rows, want)
	}
	if tb := ModelCacheTable(arms[1:]); len(tb.Rows) != 0 {
		t.Errorf("rows without a cache: %q", tb.Rows)
	}
	var b strings.Builder
	if err := RunWithJudges(&b, true, RenderOptions{Wide: true}, &RunReport{Arms: arms}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "Model cache") || !strings.Contains(s, "| baseline | 40 | 30 | 10 |") ||
		!strings.Contains(s, "paid is what this run sent") {
		t.Errorf("plain run's markdown:\n%s", s)
	}
	b.Reset()
	printModelCacheLines(&b, arms, 200)
	if s := b.String(); !strings.Contains(s, "baseline: 30 of 40 model calls replayed, 10 sent; cost $0.5000 as run, $0.1250 paid, $0.3750 saved") ||
		strings.Contains(s, "external") {
		t.Errorf("compact lines:\n%s", s)
	}
}
