package report_test

import (
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/report"
	"webbench/report/reporttest"
	"webbench/stats"
)

// The sequential wording names both spendings: the test's (Kim–DeMets α·t³ on the observed information) and the
// repeated interval's (O'Brien–Fleming-type over the units), which decides futility.
func TestSeqWordingNamesBothSpendings(t *testing.T) {
	a := &analysis.Analysis{ClusterUnit: "family", Sequential: &analysis.SeqResult{Alpha: 0.05, MinEffect: 0.25,
		Units: 20, Looked: 7, Planned: 60, Saved: 12}}
	h := report.SeqHeader(a)
	for _, want := range []string{
		"group-sequential design with Kim–DeMets α·t^3 spending on the observed information",
		"futile when its repeated interval, on O'Brien–Fleming-type boundaries over the families, excludes a drop of 25",
		"looks reached family 7 of 20.",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("header lacks %q:\n%s", want, h)
		}
	}
	// A variant's line gives both counts: the unit in the plan's order and its own k of K.
	v := analysis.SeqVariant{SeqDecision: analysis.SeqDecision{Variant: "no_x", Stop: stats.SeqWorse, At: 7,
		Look: stats.SeqLook{N: 3, Mean: -1, P: 0.01, Lo: -1, Hi: -0.2}}, Units: 9, OwnAt: 3, Planned: 9, Saved: 6}
	if got, want := report.SeqLine(a, &v), "no_x: worse than the baseline at family 7 of 20 in the plan's order, its 3rd of 9 ("; !strings.HasPrefix(got, want) {
		t.Errorf("line %q, want it to start %q", got, want)
	}
	var b strings.Builder
	p := analysis.SeqPlan{Seq: stats.SeqDesign{Alpha: 0.05, Variants: 2, MaxUnits: 20}}
	if err := report.SeqPowerPlan(&b, p); err != nil {
		t.Fatal(err)
	}
	if want := "Kim–DeMets α·t^3 spending on the share of the 20 units, a look after every unit that moved; " +
		"repeated intervals on O'Brien–Fleming-type boundaries over the units; Holm across 2 variant(s)"; !strings.Contains(b.String(), want) {
		t.Errorf("plan lacks %q:\n%s", want, b.String())
	}
}

// In a sequential run the headlines are the fixed-size tests' verdicts on records the rule stopped: every text
// format titles them as diagnostics, not the decisions; a fixed-size run keeps the Answer title.
func TestSeqHeadlinesTitledDiagnostics(t *testing.T) {
	recs, in := reporttest.ReportFixture()
	a := analysis.Analyze(recs, in)
	render := func() map[string]string {
		var c, term, md strings.Builder
		if err := report.CompactReport(&c, a, 120, ""); err != nil {
			t.Fatal(err)
		}
		if err := report.TerminalReport(&term, a); err != nil {
			t.Fatal(err)
		}
		if err := report.MarkdownReport(&md, a); err != nil {
			t.Fatal(err)
		}
		return map[string]string{"compact": c.String(), "terminal": term.String(), "md": md.String()}
	}
	for name, out := range render() {
		if !strings.Contains(out, report.HeadlineTitle[:30]) || strings.Contains(out, "Fixed-size diagnostics, not the decisions") {
			t.Errorf("fixed-size run, %s: the headlines are not titled Answer:\n%s", name, out)
		}
	}
	a.Sequential = &analysis.SeqResult{Alpha: 0.05, MinEffect: 0.25, Units: 10, Looked: 10, Planned: 20}
	for name, out := range render() {
		if !strings.Contains(out, "Fixed-size diagnostics, not the decisions (per variant: verdict of the fixed-size test") ||
			strings.Contains(out, report.HeadlineTitle[:30]) {
			t.Errorf("sequential run, %s: the headlines are not titled diagnostics:\n%s", name, out)
		}
	}
}
