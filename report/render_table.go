package report

import (
	"fmt"
	"io"

	"webbench/analysis"
)

func init() { RegisterRenderer("table", tableRenderer{}) }

// tableRenderer is the terminal format: plain-words lines that fit RenderOptions.Width (CompactReport,
// FitTable, CompactCompare), or with RenderOptions.Wide the warnings and olekukonko/tablewriter tables in full.
type tableRenderer struct{ o RenderOptions }

// With returns the renderer with o applied (Configurable).
func (t tableRenderer) With(o RenderOptions) Renderer { return tableRenderer{o: o} }

func (t tableRenderer) width() int {
	if t.o.Width <= 0 {
		return DefaultWidth
	}
	return t.o.Width
}

// Run prints RunTable fitted to the width (FitTable), or in full with Wide.
func (t tableRenderer) Run(w io.Writer, r *RunReport) error {
	if r.Judges != nil {
		return runWithJudges(w, false, t.Options(), r)
	}
	if t.o.Wide {
		return RunTable(r.Arms, nil).Render(w)
	}
	return FitTable(w, RunTable(r.Arms, nil), t.width())
}

// Options returns the renderer's RenderOptions, Width resolved (Configurable).
func (t tableRenderer) Options() RenderOptions {
	o := t.o
	o.Width = t.width()
	return o
}

// Ablation prints CompactReport, or with Wide TerminalReportWidth (the tables whole, the prose wrapped at the width).
func (t tableRenderer) Ablation(w io.Writer, r *AblationReport) error {
	var err error
	if t.o.Wide {
		err = TerminalReportWidth(w, r.Analysis, t.width())
	} else {
		err = CompactReport(w, r.Analysis, t.width(), ReportCommand(t.o.Program, t.o.RunDir, t.o.ReportArgs))
	}
	if err != nil {
		return err
	}
	return ablationJudges(w, false, t.Options(), r)
}

// Compare prints CompactCompare, or with Wide the warnings, CompareTables and CompareFooter.
func (t tableRenderer) Compare(w io.Writer, c *analysis.RunComparison) error {
	if !t.o.Wide {
		CompactCompare(w, c, t.width())
		return nil
	}
	if ws := CompareWarnings(c); len(ws) > 0 {
		fmt.Fprintln(w, "WARNINGS")
		for _, x := range ws {
			fmt.Fprintf(w, "  ! %s\n", x)
		}
	}
	for _, t := range CompareTables(c) {
		if err := t.Render(w); err != nil {
			return err
		}
	}
	for _, l := range CompareFooter(c) {
		fmt.Fprintln(w, l)
	}
	return nil
}
