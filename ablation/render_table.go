package ablation

import (
	"fmt"
	"io"
)

func init() { RegisterRenderer("table", tableRenderer{}) }

// tableRenderer is the terminal format: plain-words warnings and
// olekukonko/tablewriter tables.
type tableRenderer struct{}

// Run prints RunTable.
func (tableRenderer) Run(w io.Writer, r *RunReport) error { return RunTable(r.Arms).Render(w) }

// Ablation prints TerminalReport.
func (tableRenderer) Ablation(w io.Writer, r *AblationReport) error {
	return TerminalReport(w, r.Analysis)
}

// Compare prints the warnings, CompareTables and CompareFooter.
func (tableRenderer) Compare(w io.Writer, c *RunComparison) error {
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
