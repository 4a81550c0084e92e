package scripted

import (
	"testing"

	"webbench/suites"
)

// FuzzParseSnapshot: the AI-snapshot parser never panics, and lookups over whatever it parsed never panic.
func FuzzParseSnapshot(f *testing.F) {
	for _, s := range []string{
		"- button \"Place order\" [ref=e12] [cursor=pointer]",
		"- generic [active] [ref=f1e1]:\n  - 'button \"Go\"' [ref=e2]\n  - textbox \"Email\" [ref=f1e3]: ana@example.test",
		"- switch [checked] [ref=e9] [box=249,462,44,24]",
		"- generic \"button\" [ref=e5]",
		"- row \"Thickness: 6 mm\" [ref=e40]:\n    - cell \"Thickness\"\n",
		"- list:\n  - listitem:\n    - link \"a \\\"quoted\\\" name\" [ref=e7]:\n      - /url: /x",
		"", "-", "- :", "  - [ref=]", "- 'unterminated [ref=e1]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := parseSnapshot(text)
		if s == nil {
			return
		}
		_ = s.hasInteractive()
		_ = s.refs()
		for i := range s.nodes {
			_ = matchOne(&s.nodes[i], &suites.Target{Role: "button", NameRegex: "^(.*)$"})
			_ = s.nodes[i].desc()
		}
	})
}
