package agent

import (
	"testing"

	"webbench/browser"

	openai "github.com/sashabaranov/go-openai"
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

func TestRenderElidesOldSnapshots(t *testing.T) {
	obs := func(s string) Message {
		r := browser.ParseResult("### Page\n- Page URL: u\n### Snapshot\n```yaml\n- button \"" + s + "\" [ref=e1]\n```")
		return Message{ChatCompletionMessage: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool}, Observation: &r}
	}
	snap := func(s string) string {
		return "### Page\n- Page URL: u\n- Page Title: \n### Snapshot\n```yaml\n- button \"" + s + "\" [ref=e1]\n```"
	}
	msgs := []Message{obs("one"), obs("two"), TextMessage(openai.ChatMessageRoleAssistant, "no snapshot"), obs("three")}
	out := Render(msgs, 1)
	if want := snap("three"); out[3].Content != want {
		t.Errorf("latest snapshot changed: %q", out[3].Content)
	}
	for i := 0; i < 2; i++ {
		if want := "### Page\n- Page URL: u\n- Page Title: \n" + browser.SnapshotPlaceholder; out[i].Content != want {
			t.Errorf("message %d not elided: %q", i, out[i].Content)
		}
	}
	if msgs[0].Text() != snap("one") || out[2].Content != "no snapshot" {
		t.Error("input modified, or a text message changed")
	}
	out = Render(msgs, 2)
	if out[1].Content != snap("two") || !contains(out[0].Content, browser.SnapshotPlaceholder) {
		t.Errorf("keep=2 wrong: %q / %q", out[0].Content, out[1].Content)
	}
	// A refreshed snapshot is newer than the result's own: it stays, the other goes.
	r := browser.ParseResult(snap("old"))
	r.Refreshed = &browser.Snapshot{YAML: "- button \"new\" [ref=e2]"}
	out = Render([]Message{{Observation: &r}}, 1)
	if want := "### Page\n- Page URL: u\n- Page Title: \n" + browser.SnapshotPlaceholder +
		"\n### Snapshot\n```yaml\n- button \"new\" [ref=e2]\n```"; out[0].Content != want {
		t.Errorf("refreshed: %q", out[0].Content)
	}
}
