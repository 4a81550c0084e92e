// Package table is the terminal report format ("table"): lines fitted to the terminal's width, or the full
// tables with --wide.
package table

import (
	"fmt"
	"io"

	"webbench/analysis"
	"webbench/report"
)

func init() { report.RegisterRenderer("table", TableRenderer{}) }

// TableRenderer is the terminal format: plain-words lines that fit RenderOptions.Width (CompactReport,
// FitTable, CompactCompare), or with RenderOptions.Wide the warnings and olekukonko/tablewriter tables in full.
type TableRenderer struct{ o report.RenderOptions }

// With returns the renderer with o applied (Configurable).
func (t TableRenderer) With(o report.RenderOptions) report.Renderer { return TableRenderer{o: o} }

func (t TableRenderer) width() int {
	if t.o.Width <= 0 {
		return report.DefaultWidth
	}
	return t.o.Width
}

// Run prints RunTable fitted to the width (FitTable), or in full with Wide.
func (t TableRenderer) Run(w io.Writer, r *report.RunReport) error {
	if r.Judges != nil || len(report.ModelCacheTable(r.Arms).Rows) > 0 {
		return report.RunWithJudges(w, false, t.Options(), r)
	}
	if t.o.Wide {
		return report.RunTable(r.Arms, nil).Render(w)
	}
	return report.FitTable(w, report.RunTable(r.Arms, nil), t.width())
}

// Options returns the renderer's RenderOptions, Width resolved (Configurable).
func (t TableRenderer) Options() report.RenderOptions {
	o := t.o
	o.Width = t.width()
	return o
}

// Ablation prints CompactReport, or with Wide TerminalReportWidth (the tables whole, the prose wrapped at the width).
func (t TableRenderer) Ablation(w io.Writer, r *report.AblationReport) error {
	var err error
	if t.o.Wide {
		err = report.TerminalReportWhy(w, r.Analysis, r.Why, t.width())
	} else {
		err = report.CompactReportWhy(w, r.Analysis, r.Why, t.width(), report.ReportCommand(t.o.Program, t.o.RunDir, t.o.ReportArgs))
	}
	if err != nil {
		return err
	}
	report.AblationWhy(w, false, t.Options(), r)
	return report.AblationJudges(w, false, t.Options(), r)
}

// Compare prints CompactCompare, or with Wide the warnings, CompareTables and CompareFooter: the tables whole,
// the prose wrapped at the width (as TerminalReportWidth).
func (t TableRenderer) Compare(w io.Writer, c *analysis.RunComparison) error {
	if !t.o.Wide {
		report.CompactCompare(w, c, t.width())
		return nil
	}
	report.WriteWrapped(w, report.CompareVerdict(c), "", "  ", t.width())
	if ws := report.CompareWarnings(c); len(ws) > 0 {
		fmt.Fprintln(w, "WARNINGS")
		for _, x := range ws {
			report.WriteWrapped(w, x, "  ! ", "    ", t.width())
		}
	}
	for _, t := range report.CompareTables(c) {
		if err := t.Render(w); err != nil {
			return err
		}
	}
	report.ComparePart(c).WriteText(w, false, t.width())
	for _, l := range report.CompareFooter(c) {
		report.WriteWrapped(w, l, "", "  ", t.width())
	}
	return nil
}
