package mcptools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parseText on texts as Playwright MCP 0.0.83 printed them (captured from the real server, data: URL page): an
// action result whose snapshot is a file link (read from the workspace), a browser_snapshot result with the
// snapshot inline, an error with ANSI-coloured call log, and a link whose file is gone.
func TestParseText(t *testing.T) {
	dir := t.TempDir()
	yml := "- generic [ref=e1]:\n  - button \"Go\" [active] [ref=e2]"
	if err := os.MkdirAll(filepath.Join(dir, ".playwright-mcp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".playwright-mcp", "page-1.yml"), []byte(yml+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	click := "### Ran Playwright code\n```js\nawait page.getByRole('button', { name: 'Go' }).click();\n```\n" +
		"### Page\n- Page URL: data:text/html,x\n- Page Title: x\n### Snapshot\n- [Snapshot](.playwright-mcp/page-1.yml)"
	r := parseText(click, dir)
	if r.URL != "data:text/html,x" || r.Title != "x" || r.Snapshot.YAML != yml || r.Snapshot.Elided || r.Refreshed != nil {
		t.Errorf("click: %+v", r)
	}
	if len(r.Notes) != 1 || r.Notes[0].Heading != "Ran Playwright code" || !strings.Contains(r.Notes[0].Body, "getByRole") {
		t.Errorf("click notes: %+v", r.Notes)
	}
	if !strings.HasPrefix(r.Format(), "### Page\n- Page URL: data:text/html,x\n- Page Title: x\n### Snapshot\n```yaml\n"+yml+"\n```\n### Ran Playwright code") {
		t.Errorf("click text:\n%s", r.Format())
	}

	snap := "### Page\n- Page URL: data:text/html,x\n### Snapshot\n```yaml\n" + yml + "\n```"
	// The server prints no title line for an untitled page; Format always prints one.
	if r := parseText(snap, dir); r.Snapshot.YAML != yml || len(r.Notes) != 0 ||
		r.Format() != "### Page\n- Page URL: data:text/html,x\n- Page Title: \n### Snapshot\n```yaml\n"+yml+"\n```" {
		t.Errorf("snapshot: %+v\n%s", r, r.Format())
	}

	errText := "### Error\nError: Element is not an <input>\nCall log:\n\x1b[2m  - waiting for locator('aria-ref=e2')\x1b[22m\n"
	if r := parseText(errText, dir); !strings.HasPrefix(r.Error, "Error: Element is not an <input>\nCall log:\n  - waiting for locator('aria-ref=e2')") ||
		strings.Contains(r.Error, "\x1b") {
		t.Errorf("error: %q", r.Error)
	}

	gone := strings.Replace(click, "page-1.yml", "page-2.yml", 1)
	if r := parseText(gone, dir); r.Snapshot.YAML != "" || r.Snapshot.Elided || !r.HasNote("Snapshot") {
		t.Errorf("missing file: %+v", r)
	}
}
