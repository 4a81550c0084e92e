package report

// The wording of the gate's decisions (analysis.GateReason): the reasons an ablation's gate fails or lets a
// variant pass inconclusively, the gate line of the reports, and the gate of a comparison of two runs.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"webbench/analysis"
	"webbench/results"
	"webbench/stats"
)

// GateReasonText words the gate's reason about one variant of an ablation (analysis.Analysis.Gate,
// GateInconclusive): why it fails (GateWorse, GateErrorsCouldHide), or why it passes although it looks worse
// (GateNotShown); `bench ablate`'s stderr, the reports' gate line and the JSON's gate.why print it.
func GateReasonText(r analysis.GateReason) string {
	switch r.Kind {
	case analysis.GateErrorsCouldHide:
		return fmt.Sprintf("variant %s: its errors could hide a failure against %s: %s; with every error counted as a failure, %s",
			r.Variant, r.Baseline, errorCounts(r, "variant", "baseline"), boundText(r.AsFailBoth))
	case analysis.GateWorse:
		return fmt.Sprintf("variant %s is worse than %s: Δ = %s pts [%s, %s] is below -%.1f pts, its whole interval is below 0 and p_holm = %.3g is below %.3g",
			r.Variant, r.Baseline, stats.Pts(r.Delta), stats.Pts(r.CI[0]), stats.Pts(r.CI[1]), 100*r.Margin, r.PHolm, r.Alpha)
	case analysis.GateNotShown:
		return fmt.Sprintf("%s: Δ = %s pts [%s, %s] looks worse, but p_holm = %s is not below %s (p_paired %s), so it is not shown worse at this size",
			r.Variant, stats.Pts(r.Delta), stats.Pts(r.CI[0]), stats.Pts(r.CI[1]), stats.FmtP(r.PHolm), stats.FmtP(r.Alpha), stats.FmtP(r.P))
	case analysis.GateIntervalReachesZero:
		return fmt.Sprintf("%s: Δ = %s pts [%s, %s] is below -%.1f pts, but its interval reaches 0",
			r.Variant, stats.Pts(r.Delta), stats.Pts(r.CI[0]), stats.Pts(r.CI[1]), 100*r.Margin)
	}
	return fmt.Sprintf("%s: Δ = %s pts is not below -%.1f pts", r.Variant, stats.Pts(r.Delta), 100*r.Margin)
}

// GateReasonTexts words each of rs (GateReasonText), in order; empty, not nil, for none.
func GateReasonTexts(rs []analysis.GateReason) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, GateReasonText(r))
	}
	return out
}

// GateLine is the gate verdict for a.FailIfWorse.
func GateLine(a *analysis.Analysis) string {
	failed, why := a.Gate(a.FailIfWorse)
	if !failed {
		line := fmt.Sprintf("Gate (fail if worse by more than %.1f pts with the interval below 0 and p_holm below alpha): passed: no variant is shown worse.", 100*a.FailIfWorse)
		if inc := a.GateInconclusive(a.FailIfWorse); len(inc) > 0 {
			line += " Inconclusive, not evidence of no harm: " + strings.Join(GateReasonTexts(inc), "; ") + "."
		}
		return line
	}
	return fmt.Sprintf("Gate (fail if worse by more than %.1f pts with the interval below 0 and p_holm below alpha): FAILED. %s", 100*a.FailIfWorse,
		strings.Join(GateReasonTexts(why), "; "))
}

// RunGateText words the gate of a comparison of two runs (c.Gate, non-nil): which condition decided, with the
// runs and variants named.
func RunGateText(c *analysis.RunComparison) string {
	r := c.Gate.Reason
	d := fmt.Sprintf("Δ %+.1f pts [%+.1f, %+.1f], p %.3g (%s)", 100*r.Delta, 100*r.CI[0], 100*r.CI[1], r.P, r.Method)
	switch r.Kind {
	case analysis.GateErrorsCouldHide:
		return fmt.Sprintf("%s (variant %s)'s errors could hide a failure against %s (variant %s): %s; %s, but with every error counted as a failure, %s",
			c.B.Name, c.B.Variant, c.A.Name, c.A.Variant, errorCounts(r, c.B.Label, c.A.Label), d, boundText(r.AsFailBoth))
	case analysis.GateWorse:
		return fmt.Sprintf("%s (variant %s) is worse than %s (variant %s): %s is below -%.1f pts, its whole interval is below 0 and p < %.2g",
			c.B.Name, c.B.Variant, c.A.Name, c.A.Variant, d, 100*r.Margin, r.Alpha)
	case analysis.GateNotBelowMargin:
		return fmt.Sprintf("%s is not below -%.1f pts", d, 100*r.Margin)
	case analysis.GateIntervalReachesZero:
		return fmt.Sprintf("inconclusive: %s, but the interval reaches 0", d)
	}
	return fmt.Sprintf("inconclusive: %s, but p ≥ %.2g, the gate's alpha (the exact sign-flip p; with %d moved %s it cannot go below %.3g)",
		d, r.Alpha, r.Moved, results.Plural(r.Moved, "task", "tasks"), r.PermFloor)
}

// errorCounts says the errors of both arms on the common pairs, by class, the variant's side named variant and
// the baseline's baseline ("errors on the 80 common pairs: variant 16 (infra 16), baseline 0").
func errorCounts(r analysis.GateReason, variant, baseline string) string {
	return fmt.Sprintf("errors on the %d common pairs: %s %s, %s %s", r.CommonPairs, variant, classCounts(r.ErrorsB),
		baseline, classCounts(r.ErrorsA))
}

// classCounts formats error counts by class: "16 (infra 16)" or "0".
func classCounts(m map[string]int) string {
	n := 0
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] > 0 {
			n += m[k]
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", n, strings.Join(parts, ", "))
}

// boundText describes an imputed comparison: "Δ = −20.0 pts [−31.0, −9.0], p = 0.00341".
func boundText(b analysis.BoundResult) string {
	return fmt.Sprintf("Δ = %s pts [%s, %s], p = %s", stats.Pts(b.Delta), stats.Pts(b.CI[0]), stats.Pts(b.CI[1]), stats.FmtP(b.P))
}
