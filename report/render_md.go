package report

import (
	"fmt"
	"io"

	"webbench/analysis"
)

func init() {
	RegisterRenderer("md", markdownRenderer{})
	RegisterRenderer("markdown", markdownRenderer{})
}

// markdownRenderer is GitHub-flavoured Markdown, fit for a PR comment or
// $GITHUB_STEP_SUMMARY.
type markdownRenderer struct{}

// Run writes RunTable as a Markdown table.
func (markdownRenderer) Run(w io.Writer, r *RunReport) error {
	if r.Judges != nil {
		return runWithJudges(w, true, RenderOptions{Wide: true}, r)
	}
	RunTable(r.Arms, nil).Markdown(w)
	return nil
}

// Ablation writes MarkdownReport.
func (markdownRenderer) Ablation(w io.Writer, r *AblationReport) error {
	if err := MarkdownReport(w, r.Analysis); err != nil {
		return err
	}
	return ablationJudges(w, true, RenderOptions{Wide: true}, r)
}

// Compare writes the warnings as a list, CompareTables and CompareFooter as
// paragraphs.
func (markdownRenderer) Compare(w io.Writer, c *analysis.RunComparison) error {
	if ws := CompareWarnings(c); len(ws) > 0 {
		fmt.Fprintln(w, "**Warnings**")
		fmt.Fprintln(w)
		for _, x := range ws {
			fmt.Fprintf(w, "- %s\n", x)
		}
		fmt.Fprintln(w)
	}
	for _, t := range CompareTables(c) {
		t.Markdown(w)
	}
	for _, l := range CompareFooter(c) {
		fmt.Fprintf(w, "\n%s\n", l)
	}
	return nil
}
