package html

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"webbench/results"
)

// TestAttemptPageNamesGuardsOffAndAgent renders an attempt page of the results fixture v2ablate-gz with the record
// switched to an external agent whose standard error was kept: the page names the guards that were off as well as
// those on, the agent, and links its stderr file; the agent's own claim is not a second outcome label.
func TestAttemptPageNamesGuardsOffAndAgent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "results", "testdata", "v2ablate-gz"))); err != nil {
		t.Fatal(err)
	}
	const id = "b997634ce72945f6"
	if err := os.MkdirAll(filepath.Join(dir, results.AgentsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.AgentStderr(id)), []byte("boom\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec, ok := run.Latest(id)
	if !ok {
		t.Fatalf("no record %s", id)
	}
	rec.Agent = "command: python3 my_agent.py"
	rec.Guards = map[string]bool{"repeat_guard": false, "stale_ref_refresh": true, "intercept_hint": true}
	vm := attemptPage(rec, nil, run, filepath.Join(dir, "attempts"))
	if got := strings.Join(vm.GuardsOff, ","); got != "repeat_guard" {
		t.Errorf("guards off %q, want repeat_guard", got)
	}
	if vm.AgentStderr != "../agents/"+id+".stderr" {
		t.Errorf("stderr link %q, want ../agents/%s.stderr", vm.AgentStderr, id)
	}
	var b bytes.Buffer
	if err := attemptTmpl.Execute(&b, vm); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<tr><th>agent</th><td>command: python3 my_agent.py · <a href="../agents/` + id + `.stderr">its standard error</a></td></tr>`,
		`<tr><th>guards off</th><td><span class="flag">repeat_guard</span></td></tr>`,
		`<tr><th>guards on</th><td><span class="flag">intercept_hint</span><span class="flag">stale_ref_refresh</span></td></tr>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(page, "(ok: ") {
		t.Error("the page labels the agent's claim as an outcome (ok: …)")
	}
}
