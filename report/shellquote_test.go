package report

import (
	"os/exec"
	"strings"
	"testing"
)

// ShellQuote's word read back by /bin/sh (the outside reference for the quoting) is the string itself, for
// quotes, $, backquotes, backslashes, a newline, globs and the empty string; a string of only safe characters is
// left bare, so that commands and exports stay readable.
func TestShellQuoteReadBack(t *testing.T) {
	cases := map[string]bool{ // the string → whether it is left bare
		"": false, "plain": true, "runs/demo-2/x.zip": true, "http://127.0.0.1:8080/mcp": true, "a,b+c@d%e": true,
		"Ana's order": false, `it's "quoted" $HOME ` + "`id` \\ back\nslash": false, "'": false, "''x'": false,
		"*.zip": false, "~/runs": false, "a=b": false, "x;y": false,
	}
	var script strings.Builder
	var order []string
	for s, bare := range cases {
		q := ShellQuote(s)
		if (q == s) != bare {
			t.Errorf("ShellQuote(%q) = %s: bare %v, want %v", s, q, q == s, bare)
		}
		script.WriteString("printf '%s\\0' " + q + "\n")
		order = append(order, s)
	}
	out, err := exec.Command("/bin/sh", "-c", script.String()).Output()
	if err != nil {
		t.Fatalf("/bin/sh: %v\n%s", err, script.String())
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(got) != len(order) {
		t.Fatalf("/bin/sh printed %d words, want %d: %q", len(got), len(order), got)
	}
	for i, s := range order {
		if got[i] != s {
			t.Errorf("ShellQuote(%q) = %s read back as %q", s, ShellQuote(s), got[i])
		}
	}
}
