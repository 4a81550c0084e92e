package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cliDoc is the reference page of the CLI; its flag tables are generated from the commands.
const cliDoc = "../../docs/CLI.md"

// flagsBlockRe matches one generated flag table: the command's path in the opening marker.
var flagsBlockRe = regexp.MustCompile(`(?s)<!-- flags: ([a-z ]+) -->\n.*?<!-- end flags -->`)

// TestDocsCoverFlags holds docs/CLI.md against the commands: every command has a generated flag table, each table
// lists exactly its command's flags with their --help text, and no table names a command that is gone. Run with
// WEBBENCH_UPDATE_DOCS=1 to rewrite the tables from the code.
func TestDocsCoverFlags(t *testing.T) {
	b, err := os.ReadFile(cliDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	want := map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && c.Name() != "help" && c.Name() != "completion" {
			want[c.CommandPath()] = flagTable(c)
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRoot())
	seen := map[string]bool{}
	out := flagsBlockRe.ReplaceAllStringFunc(doc, func(block string) string {
		path := flagsBlockRe.FindStringSubmatch(block)[1]
		seen[path] = true
		table, ok := want[path]
		if !ok {
			t.Errorf("%s documents the flags of %q, which is no command", cliDoc, path)
			return block
		}
		return fmt.Sprintf("<!-- flags: %s -->\n%s<!-- end flags -->", path, table)
	})
	for path := range want {
		if !seen[path] {
			t.Errorf("%s has no flag table for %q: add `<!-- flags: %s -->` and `<!-- end flags -->` lines under its "+
				"heading and run this test with WEBBENCH_UPDATE_DOCS=1", cliDoc, path, path)
		}
	}
	if out == doc {
		return
	}
	if os.Getenv("WEBBENCH_UPDATE_DOCS") != "" {
		if err := os.WriteFile(cliDoc, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's flag tables differ from the commands' flags (a flag added, gone or reworded): run "+
		"WEBBENCH_UPDATE_DOCS=1 go test ./cmd/bench -run TestDocsCoverFlags and review the diff", cliDoc)
}

// flagTable is c's flags as a Markdown table: flag, default, --help text (pipes escaped).
func flagTable(c *cobra.Command) string {
	var b strings.Builder
	b.WriteString("| flag | default | what it does |\n|---|---|---|\n")
	esc := strings.NewReplacer("|", `\|`, "\n", " ")
	n := 0
	c.NonInheritedFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" || f.Hidden {
			return
		}
		n++
		name := "`--" + f.Name + "`"
		if f.Shorthand != "" {
			name = "`-" + f.Shorthand + "`, " + name
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" && f.DefValue != "0" && f.DefValue != "0s" {
			def = "`" + esc.Replace(f.DefValue) + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, def, esc.Replace(f.Usage))
	})
	if n == 0 {
		return "(no flags)\n"
	}
	return b.String()
}

// TestReadmeIsAFrontDoor holds README.md to a first read: at most 300 lines, and no prose line over 120
// characters (code blocks and tables are not prose: a command or a table row keeps its shape).
func TestReadmeIsAFrontDoor(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 300 {
		t.Errorf("README.md has %d lines, more than 300: move reference text to a page under docs/", len(lines))
	}
	inCode := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inCode = !inCode
			continue
		}
		if inCode || strings.HasPrefix(l, "|") {
			continue
		}
		if n := len([]rune(l)); n > 120 {
			t.Errorf("README.md:%d: a prose line of %d characters (at most 120)", i+1, n)
		}
	}
}

// TestDocsAreReadable holds the pages under docs/ to what a reader can take in: no prose line over 120
// characters on any page (code blocks and table rows are not prose), and on docs/CLI.md, whose tables are the
// command overview, the exit codes and the generated flag tables, no table cell over 300 characters — a
// command's or an exit code's long text belongs in prose under its heading, and a flag's --help must say it
// in that much.
func TestDocsAreReadable(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("docs/*.md: %v, %d pages", err, len(pages))
	}
	cellSep := regexp.MustCompile(`[^\\]\|`)
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := "docs/" + filepath.Base(p)
		inCode := false
		for i, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				inCode = !inCode
				continue
			}
			switch {
			case inCode:
			case strings.HasPrefix(l, "|"):
				if filepath.Base(p) != "CLI.md" {
					continue
				}
				// Split on unescaped pipes; the row's own leading and trailing ones leave empty ends.
				for _, cell := range cellSep.Split(" "+l, -1) {
					if n := len([]rune(strings.TrimSpace(cell))); n > 300 {
						t.Errorf("%s:%d: a table cell of %d characters (at most 300): move the text into prose "+
							"under the command's heading, or shorten the flag's help", name, i+1, n)
					}
				}
			case len([]rune(l)) > 120:
				t.Errorf("%s:%d: a prose line of %d characters (at most 120)", name, i+1, len([]rune(l)))
			}
		}
	}
}
