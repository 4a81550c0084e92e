package mcptools

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"webbench/browser"
)

// snapshotLinkRE is Playwright MCP's snapshot section when the snapshot went to a file (observed on 0.0.78
// and 0.0.83 after actions): "### Snapshot\n- [Snapshot](.playwright-mcp/page-<timestamp>.yml)".
var snapshotLinkRE = regexp.MustCompile(`(?m)^### Snapshot\n- \[Snapshot\]\(([^)\n]+)\)$`)

// ansiRE matches ANSI escape sequences (Playwright's call logs are coloured: "\x1b[2m … \x1b[22m").
var ansiRE = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")

func stripANSI(s string) string { return ansiRE.ReplaceAllString(s, "") }

// parseText reads a Playwright MCP result text into a browser.Result: ANSI escapes removed, then
// browser.ParseResult (### Error, ### Result, ### Page, ### Snapshot, ### Events; every other section — "Ran
// Playwright code", "Open tabs", "Modal state" … — becomes a Note, in order). A snapshot linked to a file is
// read from it (relative to dir, the server's workspace root); a file that cannot be read leaves the snapshot
// out and adds a note saying so. Playwright MCP never appends a refreshed snapshot itself, so a snapshot that
// ParseResult placed after a note is the result's own snapshot.
func parseText(text, dir string) browser.Result {
	text = stripANSI(text)
	link := ""
	if m := snapshotLinkRE.FindStringSubmatch(text); m != nil {
		link = m[1]
	}
	r := browser.ParseResult(text)
	if !r.Snapshot.Elided && r.Snapshot.YAML == "" && r.Refreshed != nil {
		r.Snapshot, r.Refreshed = *r.Refreshed, nil
	}
	if r.Refreshed != nil && r.Snapshot.Elided && link != "" {
		r.Refreshed = nil
	}
	if link != "" {
		p := link
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if b, err := os.ReadFile(p); err == nil {
			r.Snapshot = browser.Snapshot{YAML: strings.TrimRight(string(b), "\n")}
		} else {
			r.Snapshot = browser.Snapshot{}
			r.Notes = append(r.Notes, browser.Note{Heading: "Snapshot", Body: "(the server's snapshot file " + link +
				" could not be read: " + err.Error() + ")"})
		}
	}
	return r
}
