package agent

import (
	"strings"
	"testing"

	"webbench/browser"

	openai "github.com/sashabaranov/go-openai"
)

const (
	obsHome  = "- generic [ref=e1]:\n  - textbox \"City\" [ref=e2]\n  - button \"Search\" [ref=e3]"
	obsTyped = "- generic [ref=e1]:\n  - textbox \"City\" [ref=e2]: Lisbon\n  - button \"Search\" [ref=e3]"
)

func TestParseObservation(t *testing.T) {
	for in, want := range map[string]Observation{"": ObserveFull, "full": ObserveFull, "diff": ObserveDiff, "none": ObserveNone} {
		if got, err := ParseObservation(in); err != nil || got != want {
			t.Errorf("ParseObservation(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseObservation("incremental"); err == nil || err.Error() != `unknown observation snapshot mode "incremental" (valid: full, diff, none)` {
		t.Errorf("ParseObservation(incremental): %v", err)
	}
}

func TestObserverModes(t *testing.T) {
	const u = "http://x/"
	typed := func() browser.Result { return browser.Result{URL: u, Snapshot: browser.Snapshot{YAML: obsTyped}} }

	// diff: the change only on the same URL; whole on browser_snapshot and after a navigation.
	o := &observer{mode: ObserveDiff}
	first := browser.Result{URL: u, Snapshot: browser.Snapshot{YAML: obsHome}}
	o.first(&first)
	if first.Snapshot.YAML != obsHome || !first.HasNote(ObservationHeading) {
		t.Fatalf("diff first observation: %+v", first)
	}
	r := typed()
	o.result("browser_type", &r)
	if want := "- <changed> textbox \"City\" [ref=e2]: Lisbon"; r.Snapshot.YAML != want {
		t.Errorf("diff after a type: %q, want %q", r.Snapshot.YAML, want)
	}
	r = typed()
	o.result("browser_click", &r)
	if r.Snapshot.YAML != browser.NoChangesYAML {
		t.Errorf("diff with nothing changed: %q", r.Snapshot.YAML)
	}
	r = typed()
	o.result("browser_snapshot", &r)
	if r.Snapshot.YAML != obsTyped {
		t.Errorf("diff, browser_snapshot: %q, want whole", r.Snapshot.YAML)
	}
	r = browser.Result{URL: u + "search", Snapshot: browser.Snapshot{YAML: obsHome}}
	o.result("browser_click", &r)
	if r.Snapshot.YAML != obsHome {
		t.Errorf("diff after a navigation: %q, want whole", r.Snapshot.YAML)
	}

	// none: Page only, the first observation too; browser_snapshot whole.
	o = &observer{mode: ObserveNone}
	first = browser.Result{URL: u, Snapshot: browser.Snapshot{YAML: obsHome}}
	o.first(&first)
	if first.Snapshot.YAML != "" || first.URL != u || !first.HasNote(ObservationHeading) {
		t.Fatalf("none first observation: %+v", first)
	}
	r = typed()
	o.result("browser_type", &r)
	if r.Snapshot.YAML != "" || r.URL != u {
		t.Errorf("none after a type: %+v", r)
	}
	r = typed()
	o.result("mcp__browser_snapshot", &r)
	if r.Snapshot.YAML != obsTyped {
		t.Errorf("none, browser_snapshot: %q", r.Snapshot.YAML)
	}

	// full: untouched.
	o = &observer{mode: ObserveFull}
	first = browser.Result{URL: u, Snapshot: browser.Snapshot{YAML: obsHome}}
	o.first(&first)
	r = typed()
	o.result("browser_type", &r)
	if first.Snapshot.YAML != obsHome || len(first.Notes) != 0 || r.Snapshot.YAML != obsTyped {
		t.Errorf("full changed a result: %+v %+v", first, r)
	}
}

// Render keeps the base of the diffs after it whole (the model needs it to read them), and elides what is
// older than the base.
func TestRenderKeepsDiffBase(t *testing.T) {
	msg := func(y string) Message {
		r := browser.Result{URL: "u", Snapshot: browser.Snapshot{YAML: y}}
		return Message{ChatCompletionMessage: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool}, Observation: &r}
	}
	d, _ := browser.DiffSnapshot(obsHome, obsTyped)
	out := Render([]Message{msg(obsTyped), msg(obsHome), msg(d), msg(browser.NoChangesYAML)}, 1)
	if !strings.Contains(out[0].Content, browser.SnapshotPlaceholder) {
		t.Errorf("snapshot older than the base not elided: %q", out[0].Content)
	}
	for i, want := range []string{obsHome, d, browser.NoChangesYAML} {
		if !strings.Contains(out[i+1].Content, want) {
			t.Errorf("message %d: %q lacks %q", i+1, out[i+1].Content, want)
		}
	}
	// Without diffs, as before: only the newest whole snapshot stays.
	out = Render([]Message{msg(obsHome), msg(obsTyped)}, 1)
	if !strings.Contains(out[0].Content, browser.SnapshotPlaceholder) || !strings.Contains(out[1].Content, obsTyped) {
		t.Errorf("full-mode render changed: %q / %q", out[0].Content, out[1].Content)
	}
}
