// Package layers holds the test of the module's layering: each folder imports only the folders below it, as
// docs/DESIGN.md draws them.
package layers

import (
	"bufio"
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// mayImport is docs/DESIGN.md's table: for each top folder of the module, the top folders its non-test code may
// import (a folder may always import its own subfolders and they it). Folders not listed (cmd, bench, examples,
// internal) are the wiring and tools above everything, and may import anything.
// anyMayImport are the leaf packages every layer may import: srcerr, the format of errors in users' files, and
// secret, which names carry credentials.
var anyMayImport = []string{"srcerr", "secret"}

var mayImport = map[string][]string{
	"srcerr":   {},
	"secret":   {},
	"llm":      {},
	"browser":  {},
	"suites":   {},
	"stats":    {},
	"judge":    {"suites", "llm"},
	"results":  {"judge", "llm", "browser", "suites"},
	"agent":    {"browser", "llm", "results"},
	"scripted": {"agent", "browser", "llm", "suites", "results"},
	"runner":   {"agent", "browser", "llm", "results", "suites", "judge", "scripted"},
	"spec":     {"runner", "agent", "llm", "results", "suites"},
	"analysis": {"stats", "results", "judge"},
	"report":   {"analysis", "stats", "results"},
}

// TestLayering lists every package's imports with `go list` and fails on an import that the table does not allow,
// so an arrow back up the graph is caught when it is written.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "webbench/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		from := top(fields[0])
		seen[from] = true
		allowed, ruled := mayImport[from]
		if !ruled {
			continue
		}
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, "webbench/") {
				continue
			}
			to := top(imp)
			if to != from && !slices.Contains(allowed, to) && !slices.Contains(anyMayImport, to) {
				t.Errorf("%s imports %s: %s may import only %v (docs/DESIGN.md, Layout)", fields[0], imp, from, allowed)
			}
		}
	}
	for f := range mayImport {
		if !seen[f] {
			t.Errorf("the table names %s/, which has no package: update it and docs/DESIGN.md", f)
		}
	}
}

// top is the module's top folder of an import path: webbench/agent/guard → agent.
func top(path string) string {
	rest := strings.TrimPrefix(path, "webbench/")
	first, _, _ := strings.Cut(rest, "/")
	return first
}
