// Package html is the HTML report format ("html"): a self-contained report.html and a page per attempt.
package html

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"webbench/analysis"
	"webbench/report"
	"webbench/results"
)

func init() { report.RegisterRenderer("html", htmlRenderer{}) }

// htmlRenderer writes self-contained HTML (inline CSS, no scripts, nothing
// loaded from the network). A run's and an ablation's report go to
// DIR/report.html (HTMLReportFile; an ablation adds a page per attempt, see
// HTMLReport) and their path is printed; a comparison of two runs, which has
// no directory, is written to w.
type htmlRenderer struct{}

// Run writes DIR/report.html with RunTable, followed by the judges part (report.JudgesPart) when the report
// has one (the pass rates then carry their uncertain bounds), and prints its path; with the report's Records it
// also writes DIR/attempts/<attempt_id>.html for each (the ablation's attempt pages: steps, reasoning, refusals,
// tool results) and links them from the report, and lists the report's warnings about the run.
func (htmlRenderer) Run(w io.Writer, r *report.RunReport) error {
	var links []pageLink
	if len(r.Records) > 0 {
		if err := writeAttemptPages(r.Dir, r.Records, r.Run); err != nil {
			return err
		}
		for _, rec := range r.Records {
			links = append(links, pageLink{Href: HTMLAttemptsDir + "/" + safeID(rec.AttemptID) + ".html",
				Text: fmt.Sprintf("%s · %s · rep %d: %s", rec.Variant, rec.TaskID, rec.Rep, statusText(rec))})
		}
	}
	var warnings []string
	for _, w := range r.Warnings {
		warnings = append(warnings, report.RunWarningText(w))
	}
	tables, lines := report.RunTables(r)
	if r.Judges != nil {
		p := report.NewJudgesPart(r.Dir, r.Judges)
		tables, lines = append(tables, p.Tables...), append(lines, p.Notes...)
	}
	var b bytes.Buffer
	if err := simplePageLinks(&b, "Run "+r.Dir, warnings, tables, lines, links); err != nil {
		return err
	}
	path := filepath.Join(r.Dir, HTMLReportFile)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, path)
	return err
}

// Ablation writes HTMLReport (with the report's judges part, divergence section and pair pages) into DIR and prints the path of its main page.
func (htmlRenderer) Ablation(w io.Writer, r *report.AblationReport) error {
	if err := htmlReport(r.Dir, r.Analysis, r.Judges, r.Why, r.Records, r.Run); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, filepath.Join(r.Dir, HTMLReportFile))
	return err
}

// Compare writes a page with the comparison's verdict in words (report.CompareVerdict), the warnings,
// CompareTables and CompareFooter to w, and links the attempt pages of run B's failed attempts on the new
// failures where run B's HTML report wrote them (B/attempts/<attempt_id>.html, as run B's directory was named to
// bench compare: the page opens them when saved where bench compare ran).
func (htmlRenderer) Compare(w io.Writer, c *analysis.RunComparison) error {
	lines := append(report.ComparePart(c).Lines(), report.CompareFooter(c)...)
	var links []pageLink
	for _, d := range c.Tasks {
		if d.Change != analysis.ChangeNewFailure {
			continue
		}
		for _, id := range d.FailedB {
			page := filepath.Join(c.B.Name, HTMLAttemptsDir, safeID(id)+".html")
			if regularFile(page) {
				links = append(links, pageLink{Href: filepath.ToSlash(page), Text: fmt.Sprintf("%s · %s: %s", d.Task, id,
					countListOf(d.ModesB))})
			}
		}
	}
	return simplePageLead(w, fmt.Sprintf("compare %s → %s", c.A.Name, c.B.Name), report.CompareVerdict(c),
		report.CompareWarnings(c), report.CompareTables(c), lines, links)
}

// countListOf words failure-mode counts as "2 stalled, 1 loop", by name.
func countListOf(m map[string]int) string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}

// pageLink is a link of a simple page.
type pageLink struct{ Href, Text string }

// simplePage writes a page of warnings, tables and closing lines.
func simplePage(w io.Writer, title string, warnings []string, tables []results.Table, lines []string) error {
	return simplePageLinks(w, title, warnings, tables, lines, nil)
}

// simplePageLinks writes a page of warnings, tables, closing lines and a list of links.
func simplePageLinks(w io.Writer, title string, warnings []string, tables []results.Table, lines []string, links []pageLink) error {
	return simplePageLead(w, title, "", warnings, tables, lines, links)
}

// simplePageLead writes a page led by the line lead ("" for none), then warnings, tables, closing lines and a
// list of links, in the ablation report's style (htmlCSS).
func simplePageLead(w io.Writer, title, lead string, warnings []string, tables []results.Table, lines []string, links []pageLink) error {
	var tb []template.HTML
	for _, t := range tables {
		var b bytes.Buffer
		t.HTML(&b)
		tb = append(tb, template.HTML(b.String())) // every cell escaped by results.Table.HTML
	}
	return simplePageTmpl.Execute(w, struct {
		Title, Lead     string
		Warnings, Lines []string
		Tables          []template.HTML
		Links           []pageLink
	}{title, lead, warnings, lines, tb, links})
}

var simplePageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title><style>` + htmlCSS + `</style></head>
<body><h1>{{.Title}}</h1>
{{if .Lead}}<p class="answer"><b>{{.Lead}}</b></p>{{end}}
{{if .Warnings}}<details class="warnings"><summary><strong>Warnings</strong> ({{len .Warnings}})</summary><ul>{{range .Warnings}}<li>{{.}}</li>{{end}}</ul></details>{{end}}
{{range .Tables}}{{.}}{{end}}
{{range .Lines}}<p>{{.}}</p>
{{end}}{{if .Links}}<h2>Attempts</h2><ul>{{range .Links}}<li><a href="{{.Href}}">{{.Text}}</a></li>
{{end}}</ul>{{end}}</body></html>
`))
