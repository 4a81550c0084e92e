package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/report"
	_ "webbench/report/formats"
	"webbench/results"
)

// TestCompareVerdictInWords compares the recorded ablation's baseline (run A) with its no_stale_ref_refresh arm
// (run B) without a gate: with 3 tasks moved p_paired cannot go below 0.25, and every format leads with the verdict in words, and names how the new failures failed
// (the three stale-ref tasks, each a stale_ref_deadlock in run B); json carries both as fields.
func TestCompareVerdictInWords(t *testing.T) {
	run, err := results.Open(whyRun)
	if err != nil {
		t.Fatal(err)
	}
	recs := run.Final()
	side := func(label, variant string) analysis.RunSide {
		return analysis.RunSide{Label: label, Name: whyRun, Attempts: recs, Variant: variant,
			Trajectories: analysis.RunTrajectories(run)}
	}
	c, err := analysis.CompareRuns(side(analysis.LabelRunA, "baseline"), side(analysis.LabelRunB, "no_stale_ref_refresh"),
		analysis.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.CompareVerdict(c); !strings.HasPrefix(got, "Verdict: run B vs run A: cannot tell: too few tasks moved — 100% → 0% on 3 tasks") {
		t.Errorf("verdict %q", got)
	}
	if got, want := report.NewFailureModesLine(c), "How the 3 new failures failed in run B: 3 stale_ref_deadlock."; got != want {
		t.Errorf("new failures' modes %q, want %q", got, want)
	}
	for _, format := range []string{"table", "md"} {
		r, err := report.LookupRenderer(format)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := r.Compare(&b, c); err != nil {
			t.Fatal(err)
		}
		first := strings.TrimLeft(strings.SplitN(b.String(), "\n", 2)[0], "*")
		if !strings.HasPrefix(first, "Verdict: run B vs run A: cannot tell") || !strings.Contains(b.String(), "3 stale_ref_deadlock") {
			t.Errorf("%s: first line %q, or no failure modes of the new failures:\n%s", format, first, b.String())
		}
	}
	r, _ := report.LookupRenderer("json")
	var b bytes.Buffer
	if err := r.Compare(&b, c); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Verdict     string           `json:"verdict"`
		VerdictKind string           `json:"verdict_kind"`
		Modes       []analysis.Count `json:"new_failure_modes"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.VerdictKind != string(analysis.VerdictPermFloor) || !strings.HasPrefix(doc.Verdict, "Verdict: run B vs run A: ") ||
		len(doc.Modes) != 1 || doc.Modes[0] != (analysis.Count{Name: "stale_ref_deadlock", N: 3}) {
		t.Errorf("json verdict_kind %q, new_failure_modes %v", doc.VerdictKind, doc.Modes)
	}
}
