package main

import "testing"

// spliceSection replaces the named section up to the next "## " heading,
// keeps what follows, and appends the section when the document lacks it.
func TestSpliceSection(t *testing.T) {
	const h = "## Clustered"
	for _, tc := range []struct{ doc, want string }{
		{"# T\n\n## Clustered\n\nold\n\n## Cost\n\nc\n", "# T\n\n## Clustered\n\nnew\n\n## Cost\n\nc\n"},
		{"# T\n\n## Clustered\n\nold\n", "# T\n\n## Clustered\n\nnew\n"},
		{"# T\n\n## Cost\n\nc\n", "# T\n\n## Cost\n\nc\n\n## Clustered\n\nnew\n"},
		{"", "## Clustered\n\nnew\n"},
	} {
		if got := spliceSection(tc.doc, h, "## Clustered\n\nnew\n"); got != tc.want {
			t.Errorf("spliceSection(%q) = %q, want %q", tc.doc, got, tc.want)
		}
	}
	// A section without a final newline still leaves a blank line before the next heading.
	doc, want := "# T\n\n## Clustered\n\nold\n\n## Cost\n\nc\n", "# T\n\n## Clustered\n\nnew\n\n## Cost\n\nc\n"
	if got := spliceSection(doc, h, "## Clustered\n\nnew"); got != want {
		t.Errorf("spliceSection of a section without a final newline = %q, want %q", got, want)
	}
}
