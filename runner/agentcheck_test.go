package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An agent command is refused before the run when its program, or the script an interpreter is given, does not
// exist; an existing script, an option first or a non-script argument is let through.
func TestCheckAgentCmdScript(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agent.py"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		run  []string
		want string // "" = accepted
	}{
		{[]string{"sh", "agent.py"}, ""},
		{[]string{"sh", "agnet.py"}, `agent script "agnet.py" (the argument of sh) not found relative to ` + dir},
		{[]string{"sh", "-c", "echo x.py"}, ""},
		{[]string{"sh", "module"}, ""},
		{[]string{"./no-such-agent"}, `agent command "./no-such-agent" not found or not executable (looked relative to ` + dir},
		{[]string{"no-such-agent-xyz"}, `agent command "no-such-agent-xyz" not found or not executable (looked in $PATH)`},
	} {
		err := CheckAgentCmd(&AgentCmd{Kind: "command", Run: c.run, Dir: dir})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v, want accepted", c.run, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%v: %v, want %q…", c.run, err, c.want)
		}
	}
}
