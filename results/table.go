package results

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Table is a rendered-agnostic table: a title, a header and rows of cells. Reports build Tables; Render and
// Markdown print them.
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
}

// Render prints t as a terminal table (olekukonko/tablewriter) with its title above.
func (t Table) Render(w io.Writer) error {
	if t.Title != "" {
		fmt.Fprintln(w, t.Title)
	}
	// Cells are printed as given: no upper-casing of headers, no "_" → " " (variant names like no_repeat_guard).
	tbl := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithRowAutoFormat(tw.Off))
	tbl.Header(toAny(t.Header)...)
	for _, r := range t.Rows {
		if err := tbl.Append(toAny(r)...); err != nil {
			return err
		}
	}
	return tbl.Render()
}

// Markdown prints t as a GitHub-flavoured Markdown table (fit for PR comments and $GITHUB_STEP_SUMMARY).
func (t Table) Markdown(w io.Writer) {
	if t.Title != "" {
		fmt.Fprintf(w, "**%s**\n\n", t.Title)
	}
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	fmt.Fprintln(w, "| "+strings.Join(mapS(t.Header, esc), " | ")+" |")
	seps := make([]string, len(t.Header))
	for i := range seps {
		seps[i] = "---"
	}
	fmt.Fprintln(w, "|"+strings.Join(seps, "|")+"|")
	for _, r := range t.Rows {
		fmt.Fprintln(w, "| "+strings.Join(mapS(r, esc), " | ")+" |")
	}
	fmt.Fprintln(w)
}

// HTML prints t as an HTML <table> (its title a <caption>), every cell escaped; the page around it is the
// caller's.
func (t Table) HTML(w io.Writer) {
	fmt.Fprintln(w, "<table>")
	if t.Title != "" {
		fmt.Fprintf(w, "<caption>%s</caption>\n", html.EscapeString(t.Title))
	}
	row := func(tag string, cells []string) {
		fmt.Fprint(w, "<tr>")
		for _, c := range cells {
			fmt.Fprintf(w, "<%s>%s</%s>", tag, html.EscapeString(c), tag)
		}
		fmt.Fprintln(w, "</tr>")
	}
	row("th", t.Header)
	for _, r := range t.Rows {
		row("td", r)
	}
	fmt.Fprintln(w, "</table>")
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func mapS(s []string, f func(string) string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = f(x)
	}
	return out
}

// Count returns n with the noun in its number, for the counts the CLI prints: Count(1, "attempt", "attempts") =
// "1 attempt", Count(0, "attempt", "attempts") = "0 attempts" (one for n = 1, many otherwise, as English does).
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Plural returns the noun in the number n asks for, without n: one for n = 1, many otherwise ("tasks" in "3 of 5
// tasks"); Count is the same with n in front.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
