package agent

import (
	"testing"
)

func TestParseFinal(t *testing.T) {
	good := []string{
		`{"ok": true, "final": "Order #10042", "page": "http://x/", "error": null}`,
		"```json\n{\"ok\": false, \"final\": \"\", \"page\": \"\", \"error\": \"blocked\"}\n```",
		"  {\"ok\":true,\"final\":\"4.6 stars\"}  ",
	}
	for _, s := range good {
		if _, err := ParseFinal(s); err != nil {
			t.Errorf("ParseFinal(%q): %v", s, err)
		}
	}
	f, _ := ParseFinal(good[0])
	if !f.OK || f.Final != "Order #10042" || f.Error != nil {
		t.Errorf("fields: %+v", f)
	}
	bad := []string{"", "The order number is 10042.", "**Answer:** 4.6 stars", `{"final": "x"}`,
		`{"ok": true} {"ok": false}`, "```json\n{\"ok\": true}\n```\n```json\n{\"ok\": true}\n```", `[1,2]`, `{"ok": "yes"}`}
	for _, s := range bad {
		if _, err := ParseFinal(s); err == nil {
			t.Errorf("ParseFinal(%q) accepted", s)
		}
	}
}

// FuzzParseFinal: the final-answer parser never panics, and whatever it accepts re-parses to the same answer.
func FuzzParseFinal(f *testing.F) {
	for _, s := range []string{`{"ok": true, "final": "x", "page": "", "error": null}`, "```json\n{\"ok\":false}\n```",
		"prose", "", "{", `{"ok":true,"final":"\u0000"}`, "```\n{\"ok\":true}\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseFinal(s)
		if err != nil {
			return
		}
		if a == nil {
			t.Fatal("nil answer without error")
		}
	})
}

func TestElideSnapshots(t *testing.T) {
	snap := func(s string) string {
		return "### Page\n- Page URL: u\n### Snapshot\n```yaml\n- button \"" + s + "\" [ref=e1]\n```"
	}
	msgs := msgsOf(snap("one"), snap("two"), "no snapshot", snap("three"))
	out := ElideSnapshots(msgs, 1)
	if want := snap("three"); out[3].Content != want {
		t.Errorf("latest snapshot changed: %q", out[3].Content)
	}
	for i := 0; i < 2; i++ {
		if out[i].Content == msgs[i].Content || !contains(out[i].Content, SnapshotPlaceholder) {
			t.Errorf("message %d not elided: %q", i, out[i].Content)
		}
	}
	if msgs[0].Content != snap("one") {
		t.Error("input modified")
	}
	out = ElideSnapshots(msgs, 2)
	if out[1].Content != snap("two") || !contains(out[0].Content, SnapshotPlaceholder) {
		t.Errorf("keep=2 wrong: %q / %q", out[0].Content, out[1].Content)
	}
}
