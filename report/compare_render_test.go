package report

import (
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/results"
)

// TestCompareRunsMatchesAblate: bench compare and bench ablate give the same Δ, interval, p and gate verdict for
// the same two arms. 12 tasks, one rep; the variant fails 7 the baseline passes: d = (−1 ×7, 0 ×5), Δ = −7/12,
// exact sign-flip p = 2/2^7 = 0.015625, adjusted interval [−0.828, −0.172] — the gate (margin 0.05) fails at
// α = 0.05 and passes at α = 0.01.
// selfSides returns the two sides of a comparison of one run's records with itself: variant va of side A against
// variant vb of side B (pairs match on pair_id, which has no variant in it).
func SelfSides(recs []results.Attempt, va, vb string) (analysis.RunSide, analysis.RunSide) {
	return analysis.RunSide{Label: analysis.LabelRunA, Name: "a", Attempts: recs, Variant: va},
		analysis.RunSide{Label: analysis.LabelRunB, Name: "b", Attempts: recs, Variant: vb}
}

func TestCompareRunsMatchesAblate(t *testing.T) {
	recs := analysistest.Cat(analysistest.TasksOf("base", "PPPPPPPPPPPP"), analysistest.TasksOf("v", "FFFFFFFPPPPP"))
	for _, alpha := range []float64{0.05, 0.01} {
		an := analysis.Analyze(recs, analysis.Inputs{Baseline: "base", Alpha: alpha, FailIfWorse: 0.05})
		a, b := SelfSides(recs, "base", "v")
		cmp, err := analysis.CompareRuns(a, b, analysis.CompareOptions{Alpha: alpha, FailIfWorse: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		va, vc := an.Variants[0], cmp.Result()
		if va.All.Method != analysis.MethodPairedSignFlip || vc.All.Method != va.All.Method || vc.All.Delta != va.All.Delta ||
			vc.All.CI != va.All.CI || vc.All.P != va.All.P || vc.PHolm != va.PHolm {
			t.Errorf("α %v: compare %s Δ %v %v p %v (holm %v); ablate %s Δ %v %v p %v (holm %v)", alpha, vc.All.Method,
				vc.All.Delta, vc.All.CI, vc.All.P, vc.PHolm, va.All.Method, va.All.Delta, va.All.CI, va.All.P, va.PHolm)
		}
		analysistest.Approx(t, "Δ", vc.All.Delta, -7.0/12, 1e-12)
		analysistest.Approx(t, "p", vc.All.P, 0.015625, 1e-12)
		failed, _ := an.Gate(0.05)
		if cmp.Gate == nil || cmp.Gate.Failed != failed || failed != (alpha == 0.05) {
			t.Errorf("α %v: compare gate %+v, ablate gate failed %v; want failed %v", alpha, cmp.Gate, failed, alpha == 0.05)
		}
		if alpha == 0.01 && (cmp.Gate.Reason.Kind != analysis.GateNotShown || RunGateText(cmp) !=
			"b (variant v): Δ = -58.3 pts [-82.8, -17.2] looks worse, but p = 0.0156 is not below 0.01, so it is not shown worse at this size") {
			t.Errorf("α 0.01: gate why %q (%+v) does not name the alpha", RunGateText(cmp), cmp.Gate.Reason)
		}
		// The gate line is the ablation's, the sides named by the runs and the gate's p being p.
		head := "Gate (fail if worse by more than 5.0 pts with the interval below 0 and p below alpha): "
		want := head + "FAILED. b (variant v) is worse than a (variant base): Δ = -58.3 pts [-82.8, -17.2] is below -5.0 pts, " +
			"its whole interval is below 0 and p = 0.0156 is below 0.05"
		if alpha == 0.01 {
			want = head + "passed: b (variant v) is not shown worse than a (variant base). Inconclusive, not evidence of no harm: " +
				RunGateText(cmp) + "."
		}
		if got := CompareGateLine(cmp); got != want {
			t.Errorf("α %v: gate line\n got %q\nwant %q", alpha, got, want)
		}
		if cmp.Analysis.Alpha != alpha {
			t.Errorf("compare analysed at α %v, want %v", cmp.Analysis.Alpha, alpha)
		}
	}
}

// TestCompareWarningsNameTheSides: the same unmatched arms give the same warning, worded with the sides' labels in a
// comparison of two runs and with "baseline"/"variant" (prefixed by the variant) in an ablation — both from fields.
func TestCompareWarningsNameTheSides(t *testing.T) {
	recs := analysistest.Cat(analysistest.RecsOf("base", "t0", 0, "PP"), analysistest.RecsOf("base", "t1", 0, "PP"), analysistest.RecsOf("base", "t2", 0, "PP"),
		analysistest.RecsOf("v", "t0", 0, "P"), analysistest.RecsOf("v", "t1", 0, "F"), analysistest.RecsOf("v", "t2", 0, "P"))
	w := worded(analysis.Analyze(recs, analysis.Inputs{Baseline: "base"}), analysis.WarnNotComparable)
	if w == nil || !strings.HasPrefix(w.Text, "v vs base: The arms are not fully matched: 3 baseline and 0 variant judged attempts") {
		t.Fatalf("ablate warning = %+v", w)
	}
	a, b := SelfSides(recs, "base", "v")
	cmp, err := analysis.CompareRuns(a, b, analysis.CompareOptions{SameDir: true})
	if err != nil {
		t.Fatal(err)
	}
	texts := CompareWarnings(cmp)
	if len(texts) == 0 || texts[0] != "Run A and run B are the same directory: every pair agrees by construction." {
		t.Errorf("first compare warning = %q", texts)
	}
	found := false
	for _, x := range WordWarnings(cmp.Warnings, RunWording(cmp.A.Label, cmp.B.Label)) {
		if x.Kind == analysis.WarnNotComparable {
			found = true
			if !strings.HasPrefix(x.Text, "The arms are not fully matched: 3 run A and 0 run B judged attempts in scope") {
				t.Errorf("compare warning = %q", x.Text)
			}
		}
	}
	if !found {
		t.Errorf("compare has no %s warning: %q", analysis.WarnNotComparable, texts)
	}
	a.Label, b.Label = "main", "pr"
	cmp, err = analysis.CompareRuns(a, b, analysis.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(CompareWarnings(cmp), "\n"); !strings.Contains(got, "3 main and 0 pr judged attempts") {
		t.Errorf("labels main/pr: warnings %q", got)
	}
}
