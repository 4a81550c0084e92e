package html

import (
	"bytes"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/report"
	"webbench/report/reporttest"
	"webbench/results"
)

// htmlRow is a row of cells as the pages write it, unescaped.
func htmlRow(cells []string) string {
	return "<tr><td>" + strings.Join(cells, "</td><td>") + "</td></tr>"
}

// judgesWant is the judges part of reporttest.JudgesRun as a page shows it (unescaped), in order: each table's
// title (between open and close) and rows, then each note as a paragraph.
func judgesWant(open, close string) []string {
	var out []string
	for i, w := range reporttest.JudgesWant {
		if i < 3 {
			rows := reporttest.JudgesWantRows
			out = append(out, open+w+close, htmlRow(rows[2*i]), htmlRow(rows[2*i+1]))
		} else {
			out = append(out, "<p>"+w+"</p>")
		}
	}
	return out
}

// checkEscaped fails unless the judges part's text is escaped in page s: the titles' "Q&A" and "run's".
func checkEscaped(t *testing.T, name, s string) {
	t.Helper()
	if !strings.Contains(s, "Zoo Q&amp;A") || strings.Contains(s, "Zoo Q&A") || strings.Contains(s, "run's own") {
		t.Errorf("%s: the judges part is not escaped", name)
	}
}

// A plain run's page shows the judges part after the variants table (whose pass rate then carries the
// uncertain attempt's bounds) in the words of the terminal report, every text escaped.
func TestHTMLRunJudges(t *testing.T) {
	run := reporttest.JudgesRun(t, filepath.Join(t.TempDir(), "run"))
	js, err := analysis.AnalyzeJudges(run)
	if err != nil {
		t.Fatal(err)
	}
	arms := analysis.Summarize(run.Final())
	page := func(js *analysis.Judges) string {
		t.Helper()
		var out bytes.Buffer
		r := &report.RunReport{Dir: run.Dir, Arms: arms, Records: run.Final(), Run: run, Judges: js, Bounds: analysis.UncertainBounds(arms)}
		if err := (htmlRenderer{}).Run(&out, r); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(run.Dir, HTMLReportFile))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	s := page(js)
	reporttest.InOrder(t, "run page", html.UnescapeString(s), append([]string{"(57 decided of 58: 48.3–50.0%)</td>"},
		judgesWant("<caption>", "</caption>")...))
	checkEscaped(t, "run page", s)
	// Without a judges part: no bounds, no judges tables.
	s = page(nil)
	if strings.Contains(s, "decided of") || strings.Contains(s, "agreement") || strings.Contains(s, "Zoo Q&amp;A") {
		t.Errorf("run page without a judges part shows one:\n%s", s)
	}
}

// An ablation's page shows the judges part after the analysis's tables and notes, before the heatmap; none when
// it has none or it shows nothing (one judge, no Zoo Q&A attempt).
func TestHTMLAblationJudges(t *testing.T) {
	run := reporttest.JudgesRun(t, filepath.Join(t.TempDir(), "judged"))
	js, err := analysis.AnalyzeJudges(run)
	if err != nil {
		t.Fatal(err)
	}
	recs, in := reporttest.ReportFixture()
	a := analysis.Analyze(recs, in)
	page := func(js *analysis.Judges) string {
		t.Helper()
		out := filepath.Join(t.TempDir(), "report")
		if err := HTMLReport(out, a, js, recs, nil); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out, HTMLReportFile))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	s := page(js)
	if len(report.StatNotes(a)) == 0 {
		t.Fatal("setup: the fixture's analysis has no notes")
	}
	want := append([]string{"<h2>Mechanism: failure modes per arm</h2>", "<h2>Notes</h2>", "<h2>Judges</h2>"}, judgesWant("<h3>", "</h3>")...)
	reporttest.InOrder(t, "ablation page", html.UnescapeString(s), append(want, "<h2>Pass rate per task and arm</h2>"))
	checkEscaped(t, "ablation page", s)
	for _, js := range []*analysis.Judges{nil, {Judges: js.Judges[:1], Agreement: []analysis.JudgeAgreement{}}} {
		if s := page(js); strings.Contains(s, "<h2>Judges</h2>") || strings.Contains(s, "agreement") {
			t.Errorf("judges %+v: the page shows a judges part", js)
		}
	}
}

// A plain run's page lists the report's warnings about the run in the words of bench report's stderr.
func TestHTMLRunWarnings(t *testing.T) {
	run := reporttest.JudgesRun(t, filepath.Join(t.TempDir(), "run"))
	arms := analysis.Summarize(run.Final())
	ws := []analysis.RunWarning{{Kind: analysis.RunEstimatedTokens, Count: 2, Of: 58}, {Kind: analysis.RunAllInfra, Variant: "v"}}
	var out bytes.Buffer
	if err := (htmlRenderer{}).Run(&out, &report.RunReport{Dir: run.Dir, Arms: arms, Run: run, Warnings: ws}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(run.Dir, HTMLReportFile))
	if err != nil {
		t.Fatal(err)
	}
	reporttest.InOrder(t, "run page", html.UnescapeString(string(b)), []string{"<strong>Warnings</strong>",
		"<li>" + report.RunWarningText(ws[0]) + "</li>", "<li>" + report.RunWarningText(ws[1]) + "</li>", "<table"})
	if !strings.Contains(html.UnescapeString(string(b)), "2 of 58 attempts' tokens are estimated: the endpoint sent no usage (tokens and cost") {
		t.Errorf("run page lacks the estimated-tokens sentence:\n%s", b)
	}
}

// With an audit the pages show each judge's corrected pass rates in the judges part, in the terminal's words
// (report.CorrectedTable): the plain run's page after the agreement, the ablation's under "Judges".
func TestHTMLJudgesCorrected(t *testing.T) {
	run := reporttest.JudgesRun(t, filepath.Join(t.TempDir(), "run"))
	var labels []results.AuditLabel
	for i, a := range run.Final()[:30] {
		labels = append(labels, results.AuditLabel{AttemptID: a.AttemptID, Pass: i%3 != 0})
	}
	if _, err := results.WriteAudit(run.Dir, labels); err != nil {
		t.Fatal(err)
	}
	js, err := analysis.AnalyzeJudges(run)
	if err != nil || len(js.Corrected) != 2 {
		t.Fatalf("%v, %+v", err, js)
	}
	tb := report.CorrectedTable(js.Corrected[0])
	if !strings.Contains(tb.Title, "30 trusted verdicts") || len(tb.Rows) != 1 {
		t.Fatalf("table %+v", tb)
	}
	arms := analysis.Summarize(run.Final())
	var out bytes.Buffer
	r := &report.RunReport{Dir: run.Dir, Arms: arms, Records: run.Final(), Run: run, Judges: js, Bounds: analysis.UncertainBounds(arms)}
	if err := (htmlRenderer{}).Run(&out, r); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(run.Dir, HTMLReportFile))
	if err != nil {
		t.Fatal(err)
	}
	reporttest.InOrder(t, "run page", html.UnescapeString(string(b)), []string{"agreement original vs llm",
		"<caption>" + tb.Title + "</caption>", htmlRow(tb.Rows[0])})
	recs, in := reporttest.ReportFixture()
	dir := filepath.Join(t.TempDir(), "report")
	if err := HTMLReport(dir, analysis.Analyze(recs, in), js, recs, nil); err != nil {
		t.Fatal(err)
	}
	b, err = os.ReadFile(filepath.Join(dir, HTMLReportFile))
	if err != nil {
		t.Fatal(err)
	}
	reporttest.InOrder(t, "ablation page", html.UnescapeString(string(b)), []string{"<h2>Judges</h2>", "<h3>" + tb.Title + "</h3>",
		htmlRow(tb.Rows[0]), "<h2>Pass rate per task and arm</h2>"})
}
