package report

// The wording of the gate's decisions (analysis.GateReason): the reasons an ablation's gate fails or lets a
// variant pass inconclusively, the gate line of the reports, and the gate of a comparison of two runs.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"webbench/analysis"
	"webbench/stats"
)

// GateWording names the two sides of the gate's decision in its sentences (as Wording does for the warnings):
// AblationGateWording is an ablation's, its variants and baseline named by each reason, RunGateWording that of a
// comparison of two runs, its one pair of sides named by the runs.
type GateWording struct {
	// Variant and Baseline name the sides in a reason's sentence; empty: the reason's own, the variant as
	// "variant NAME" where it is the subject of a failure and "NAME" before the figures of a pass.
	Variant, Baseline string
	// VariantSide and BaselineSide label the sides' error counts ("variant 16 (infra 16), baseline 0").
	VariantSide, BaselineSide string
	// P names the p the gate tests: "p_holm" (Holm-adjusted over an ablation's variants) or "p" (a comparison's
	// one variant, where p_holm is p); PAlso, when not empty, the unadjusted p added in parentheses ("p_paired").
	P, PAlso string
	// NoneWorse is the passed gate's verdict ("no variant is shown worse").
	NoneWorse string
}

// AblationGateWording is the GateWording of an ablation.
func AblationGateWording() GateWording {
	return GateWording{VariantSide: "variant", BaselineSide: "baseline", P: "p_holm", PAlso: "p_paired",
		NoneWorse: "no variant is shown worse"}
}

// RunGateWording is the GateWording of the comparison of two runs c: each side named by its run and variant
// ("runs/b (variant v)"), its error counts by its label ("run B").
func RunGateWording(c *analysis.RunComparison) GateWording {
	v, b := fmt.Sprintf("%s (variant %s)", c.B.Name, c.B.Variant), fmt.Sprintf("%s (variant %s)", c.A.Name, c.A.Variant)
	return GateWording{Variant: v, Baseline: b, VariantSide: c.B.Label, BaselineSide: c.A.Label, P: "p",
		NoneWorse: v + " is not shown worse than " + b}
}

// GateReasonWording words the gate's reason about one variant (analysis.GateReason) with the sides named by wd:
// why it fails (GateWorse, GateErrorsCouldHide), or why it passes (GateNotShown: it looks worse;
// GateIntervalReachesZero; GateNotBelowMargin) — the one wording of every kind, which every format, `bench
// ablate`'s stderr and the JSON's gate.why print.
func GateReasonWording(r analysis.GateReason, wd GateWording) string {
	subject, name, base := wd.Variant, wd.Variant, wd.Baseline
	if subject == "" {
		subject, name = "variant "+r.Variant, r.Variant
	}
	if base == "" {
		base = r.Baseline
	}
	fig := fmt.Sprintf("Δ = %s pts [%s, %s]", stats.Pts(r.Delta), stats.Pts(r.CI[0]), stats.Pts(r.CI[1]))
	switch r.Kind {
	case analysis.GateErrorsCouldHide:
		return fmt.Sprintf("%s: its errors could hide a failure against %s: %s; with every error counted as a failure, %s",
			subject, base, errorCounts(r, wd.VariantSide, wd.BaselineSide), boundText(r.AsFailBoth))
	case analysis.GateWorse:
		return fmt.Sprintf("%s is worse than %s: %s is below -%.1f pts, its whole interval is below 0 and %s = %.3g is below %.3g",
			subject, base, fig, 100*r.Margin, wd.P, r.PHolm, r.Alpha)
	case analysis.GateNotShown:
		also := ""
		if wd.PAlso != "" {
			also = fmt.Sprintf(" (%s %s)", wd.PAlso, stats.FmtP(r.P))
		}
		return fmt.Sprintf("%s: %s looks worse, but %s = %s is not below %s%s, so it is not shown worse at this size",
			name, fig, wd.P, stats.FmtP(r.PHolm), stats.FmtP(r.Alpha), also)
	case analysis.GateIntervalReachesZero:
		return fmt.Sprintf("%s: %s is below -%.1f pts, but its interval reaches 0", name, fig, 100*r.Margin)
	}
	return fmt.Sprintf("%s: Δ = %s pts is not below -%.1f pts", name, stats.Pts(r.Delta), 100*r.Margin)
}

// GateReasonText words the gate's reason about one variant of an ablation (AblationGateWording).
func GateReasonText(r analysis.GateReason) string { return GateReasonWording(r, AblationGateWording()) }

// GateReasonTexts words each of rs (GateReasonText), in order; empty, not nil, for none.
func GateReasonTexts(rs []analysis.GateReason) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, GateReasonText(r))
	}
	return out
}

// GateVerdict is the gate's verdict on a at margin (a proportion) with the sides named by wd, the one gate line
// of every format and of the commands' stderr: the rule, then "FAILED." and each failing variant's reason
// (Analysis.Gate), or "passed:" wd.NoneWorse and the variants it lets pass although they look worse
// (Analysis.GateInconclusive), which are not evidence of no harm.
func GateVerdict(a *analysis.Analysis, margin float64, wd GateWording) string {
	head := fmt.Sprintf("Gate (fail if worse by more than %.1f pts with the interval below 0 and %s below alpha)", 100*margin, wd.P)
	words := func(rs []analysis.GateReason) string {
		out := make([]string, 0, len(rs))
		for _, r := range rs {
			out = append(out, GateReasonWording(r, wd))
		}
		return strings.Join(out, "; ")
	}
	if failed, why := a.Gate(margin); failed {
		return fmt.Sprintf("%s: FAILED. %s", head, words(why))
	}
	line := fmt.Sprintf("%s: passed: %s.", head, wd.NoneWorse)
	if inc := a.GateInconclusive(margin); len(inc) > 0 {
		line += " Inconclusive, not evidence of no harm: " + words(inc) + "."
	}
	return line
}

// GateLine is the gate verdict of an ablation at a.FailIfWorse (GateVerdict).
func GateLine(a *analysis.Analysis) string {
	return GateVerdict(a, a.FailIfWorse, AblationGateWording())
}

// RunGateText words the reason of the gate of a comparison of two runs (c.Gate, non-nil), the sides named by
// RunGateWording: the JSON's gate.why.
func RunGateText(c *analysis.RunComparison) string {
	return GateReasonWording(c.Gate.Reason, RunGateWording(c))
}

// CompareGateLine is the gate verdict of the comparison c (GateVerdict of its analysis at its gate's margin, the
// sides named by RunGateWording), "" when it has no gate.
func CompareGateLine(c *analysis.RunComparison) string {
	if c.Gate == nil {
		return ""
	}
	return GateVerdict(c.Analysis, c.Gate.Margin, RunGateWording(c))
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
