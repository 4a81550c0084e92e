package report

import (
	"math"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/results"
)

// A variant with a known token increase: the compact report's cost line says it with its interval and p_holm,
// within the width, the gate line fails it, and the wide table carries both views.
func TestCostLinesAndGate(t *testing.T) {
	a := analysis.Analyze(analysistest.CostRun(14, 2, 2.5, 7), analysis.Inputs{Baseline: "base",
		FailIfCostlier: map[results.CostOutcome]float64{results.CostTokens: 0.2}})
	var b strings.Builder
	if err := CompactReport(&b, a, 100, ""); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n, line := widest(out); n > 100 {
		t.Errorf("line of %d runes: %q", n, line)
	}
	c := a.Variants[0].Cost(results.CostTokens)
	for _, want := range []string{CostHeader[:40], "v (14 tasks, 28 pairs): steps",
		"tokens " + RatioPct(c.Means.Ratio) + " " + ratioCI(c.Means.RatioCI) + " p_holm 0.0001",
		"costlier than the gate allows (" + strings.TrimLeft(RatioPct(c.Means.Ratio), "+") + " more tokens",
		"Cost gate (fail if costlier than tokens +20% with the whole interval above it and p_holm below alpha): FAILED. v:"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("compact report lacks %q:\n%s", want, out)
		}
	}
	tbl := costTable(a, AblationCostWording())
	if len(tbl.Rows) != 8 || tbl.Rows[0][2] != "all" || tbl.Rows[4][2] != "passed (secondary)" || tbl.Rows[4][10] != "-" {
		t.Errorf("cost table rows: %v", tbl.Rows)
	}
	if got := tbl.Rows[1][5]; got != CostAmount(results.CostTokens, c.Means.MeanA, false) || !strings.HasSuffix(got, " tokens") {
		t.Errorf("baseline mean cell %q", got)
	}
}

func TestCostWords(t *testing.T) {
	for _, c := range []struct {
		r    float64
		want string
	}{{1.83, "+83%"}, {0.95, "-5.0%"}, {1, "0%"}, {0.43, "-57%"}} {
		if got := RatioPct(c.r); got != c.want {
			t.Errorf("RatioPct(%v) = %q, want %q", c.r, got, c.want)
		}
	}
	if got := costDiffCI(results.CostWall, 12345, [2]float64{-500, math.Inf(1)}); got != "+12.3 [-0.5, +∞] s" {
		t.Errorf("wall difference %q", got)
	}
	if got := CostAmount(results.CostUSD, -0.0123, true); got != "-$0.0123" {
		t.Errorf("usd %q", got)
	}
	vd := analysis.CostVerdict{Kind: analysis.CostVerdictCheaper, Outcome: results.CostTokens, Ratio: 0.46,
		RatioCI: [2]float64{0.3, 0.7}, Diff: -10, PHolm: 0.01}
	if got := CostVerdictText(vd); got != "54% fewer tokens [-70%, -30%], p_holm 0.01" {
		t.Errorf("cheaper: %q", got)
	}
	vd = analysis.CostVerdict{Kind: analysis.CostVerdictPermFloor, Outcome: results.CostWall, Moved: 4, Unit: "family",
		PermFloor: 0.125}
	if got := CostVerdictText(vd); got != "no wall time difference shown: with 4 families moved, p cannot go below 0.125" {
		t.Errorf("perm floor: %q", got)
	}
	if got := CostMarginsText(map[results.CostOutcome]float64{results.CostWall: 0.5, results.CostTokens: 0.125}); got != "tokens +12.5%, wall +50%" {
		t.Errorf("margins %q", got)
	}
}

// The cost Holm floor's words: the verdict names the moved units and the bound, the warning groups the outcomes
// that share a bound and says how many moved units it takes.
func TestCostHolmFloorWording(t *testing.T) {
	h := analysis.HolmFloor{G: 6, M: 7, Need: 9, Floor: 2.0 / 64, Unit: "task"}
	vd := analysis.CostVerdict{Kind: analysis.CostVerdictHolmFloor, Outcome: results.CostTokens, Holm: h}
	if got, want := CostVerdictText(vd), "no tokens difference shown: with 6 tasks moved, p_holm cannot go below 7 × 0.0312 = 0.219"; got != want {
		t.Errorf("verdict %q, want %q", got, want)
	}
	w := analysis.Warning{Kind: analysis.WarnCostHolmFloor, Alpha: 0.05, Costs: []analysis.CostFloor{
		{Outcome: results.CostSteps, Holm: h}, {Outcome: results.CostTokens, Holm: h},
		{Outcome: results.CostWall, Holm: analysis.HolmFloor{G: 1, M: 2, Need: 7, Floor: 1, Unit: "family"}}}}
	got := WarningText(w, AblationWording("base"))
	for _, want := range []string{"(p_holm ≥ α = 0.05 after Holm's adjustment over the variants)",
		"steps and tokens: 6 tasks moved, so p ≥ 2/2^6 = 0.0312, and 7 variants have a floor at least as high, so p_holm ≥ 7 × 0.0312 = 0.219 (that needs at least 9 moved tasks)",
		"wall: 1 family moved"} {
		if !strings.Contains(got, want) {
			t.Errorf("warning lacks %q:\n%s", want, got)
		}
	}
}

// Every cost outcome has its words in the one table, and its amounts read in its unit.
func TestCostWordsTable(t *testing.T) {
	for _, o := range results.CostOutcomes {
		if _, ok := costWords[o]; !ok {
			t.Errorf("%s: no entry in costWords", o)
		}
	}
	for _, c := range []struct {
		o    results.CostOutcome
		x    float64
		want string
	}{{results.CostWall, 12345, "12.3 s"}, {results.CostTokens, 41665.4, "41665 tokens"}, {results.CostSteps, 9.46, "9.5 steps"}} {
		if got := CostAmount(c.o, c.x, false); got != c.want {
			t.Errorf("CostAmount(%s, %v) = %q, want %q", c.o, c.x, got, c.want)
		}
	}
	if got := CostAmount(results.CostUSD, -0.01234, false); got != "-$0.0123" {
		t.Errorf("usd: %q", got)
	}
}

// The waste outcomes in the reports: the compact line names them, the verdict words a count ("fewer repeated
// calls"), amounts print in calls and KB.
func TestWasteOutcomesReported(t *testing.T) {
	recs := analysistest.CostRun(14, 2, 1, 7)
	for i := range recs {
		n, b := 0, int64(2000)
		if recs[i].Variant == "base" {
			n, b = 5+i%4, 6000+int64(i%7)*100
		}
		recs[i].RepeatedCalls, recs[i].ToolBytes = &n, &b
	}
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base"})
	v := &a.Variants[0]
	line := CostLine(a, v)
	for _, want := range []string{"repeated_calls -100%", "tool_bytes -6"} {
		if !strings.Contains(line, want) {
			t.Errorf("cost line lacks %q: %s", want, line)
		}
	}
	if got := CostVerdictText(a.CostVerdictOf(v, v.Cost(results.CostRepeatedCalls))); !strings.HasPrefix(got, "100% fewer repeated calls [") {
		t.Errorf("verdict %q", got)
	}
	if got := CostAmount(results.CostToolBytes, 6150, false); got != "6.2 KB" {
		t.Errorf("tool bytes amount %q", got)
	}
}

// A count the baseline never has (mean 0): no ratio, so the compact line gives the difference per attempt.
func TestCostLineWithoutRatio(t *testing.T) {
	recs := analysistest.CostRun(6, 1, 1, 3)
	for i := range recs {
		n := 0
		if recs[i].Variant == "v" {
			n = 2
		}
		recs[i].RepeatedCalls = &n
	}
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base"})
	if line := CostLine(a, &a.Variants[0]); !strings.Contains(line, "repeated_calls +2.0 [") || !strings.Contains(line, "calls (baseline 0) p_holm") {
		t.Errorf("cost line: %s", line)
	}
}
