// Package md is the Markdown report format ("md", "markdown").
package md

import (
	"fmt"
	"io"

	"webbench/analysis"
	"webbench/report"
)

func init() {
	report.RegisterRenderer("md", markdownRenderer{})
	report.RegisterRenderer("markdown", markdownRenderer{})
}

// markdownRenderer is GitHub-flavoured Markdown, fit for a PR comment or
// $GITHUB_STEP_SUMMARY.
type markdownRenderer struct{}

// Run writes RunTable as a Markdown table.
func (markdownRenderer) Run(w io.Writer, r *report.RunReport) error {
	if r.Judges != nil || len(report.ModelCacheTable(r.Arms).Rows) > 0 {
		return report.RunWithJudges(w, true, report.RenderOptions{Wide: true}, r)
	}
	report.RunTable(r.Arms, nil).Markdown(w)
	return nil
}

// Ablation writes MarkdownReport, the divergence part (report.AblationWhy) and the judges part.
func (markdownRenderer) Ablation(w io.Writer, r *report.AblationReport) error {
	if err := report.MarkdownReportWhy(w, r.Analysis, r.Why); err != nil {
		return err
	}
	report.AblationWhy(w, true, report.RenderOptions{Wide: true}, r)
	return report.AblationJudges(w, true, report.RenderOptions{Wide: true}, r)
}

// Compare writes the warnings as a list, CompareTables and CompareFooter as
// paragraphs.
func (markdownRenderer) Compare(w io.Writer, c *analysis.RunComparison) error {
	fmt.Fprintf(w, "**%s**\n\n", report.CompareVerdict(c))
	if ws := report.CompareWarnings(c); len(ws) > 0 {
		fmt.Fprintln(w, "**Warnings**")
		fmt.Fprintln(w)
		for _, x := range ws {
			fmt.Fprintf(w, "- %s\n", x)
		}
		fmt.Fprintln(w)
	}
	for _, t := range report.CompareTables(c) {
		t.Markdown(w)
	}
	report.ComparePart(c).WriteText(w, true, 0)
	for _, l := range report.CompareFooter(c) {
		fmt.Fprintf(w, "\n%s\n", l)
	}
	return nil
}
