package browser

import (
	"reflect"
	"strings"
	"testing"
)

func TestFormatAndParseResult(t *testing.T) {
	cases := []struct {
		r    Result
		text string
	}{
		{Result{Error: "boom\nCall log:\n  - x", URL: "u", Title: "t"},
			"### Error\nboom\nCall log:\n  - x\n### Page\n- Page URL: u\n- Page Title: t"},
		{Result{Result: `"ok"`, URL: "u", Snapshot: Snapshot{YAML: "- button \"Go\" [ref=e1]\n"},
			Events: []string{"[ERROR] a\nsecond line", "Downloaded file \"x\""}},
			"### Result\n\"ok\"\n### Page\n- Page URL: u\n- Page Title: \n### Snapshot\n```yaml\n- button \"Go\" [ref=e1]\n```\n" +
				"### Events\n- [ERROR] a\nsecond line\n- Downloaded file \"x\""},
		// A guard's note, then the refreshed snapshot (empty YAML still makes a block), after events.
		{Result{Error: StaleRefMessage("e4"), URL: "u", Events: []string{"e"}, Notes: []Note{{"Repeated call", "Stop."}},
			Refreshed: &Snapshot{}},
			"### Error\n" + StaleRefMessage("e4") + "\n### Page\n- Page URL: u\n- Page Title: \n### Events\n- e\n" +
				"### Repeated call\nStop.\n### Snapshot\n```yaml\n\n```"},
		// Elided snapshots render as the placeholder.
		{Result{URL: "u", Snapshot: Snapshot{Elided: true}, Refreshed: &Snapshot{YAML: "- link \"A\" [ref=f1e2]"}},
			"### Page\n- Page URL: u\n- Page Title: \n" + SnapshotPlaceholder + "\n### Snapshot\n```yaml\n- link \"A\" [ref=f1e2]\n```"},
		{Result{}, ""},
	}
	for i, c := range cases {
		if got := c.r.Format(); got != c.text {
			t.Errorf("%d: Format:\n%q\nwant\n%q", i, got, c.text)
		}
		back := ParseResult(c.text)
		if back.Format() != c.text {
			t.Errorf("%d: Format(ParseResult) = %q", i, back.Format())
		}
		want := c.r.Clone()
		want.Snapshot.YAML = strings.TrimRight(want.Snapshot.YAML, "\n")
		if !reflect.DeepEqual(back, want) && !(len(want.Events) == 0 && back.Events == nil) {
			t.Errorf("%d: ParseResult = %+v, want %+v", i, back, want)
		}
	}
	// The lead of the first observation is skipped; a heading-less text is no section at all.
	if r := ParseResult("Task: buy\n\n### Page\n- Page URL: u\n- Page Title: t"); r.URL != "u" || r.Title != "t" {
		t.Errorf("lead: %+v", r)
	}
	if r := ParseResult("just text"); !reflect.DeepEqual(r, Result{}) {
		t.Errorf("no sections: %+v", r)
	}
	if !ParseResult("### Result\nok\n### Repeated call (3rd)\nx").HasNote("Repeated call") ||
		ParseResult("### Repeated calls").HasNote("Repeated call") {
		t.Error("HasNote")
	}
	s, ok := ParseResult(cases[3].text).LastSnapshot()
	if !ok || s.YAML != "- link \"A\" [ref=f1e2]" {
		t.Errorf("LastSnapshot %+v %v", s, ok)
	}
}

func TestRefGrammar(t *testing.T) {
	for ref, want := range map[string]struct {
		prefix string
		n      int
	}{"e12": {"e", 12}, "f1e30": {"f1e", 30}} {
		p, n, ok := SplitRef(ref)
		if !ok || p != want.prefix || n != want.n {
			t.Errorf("SplitRef(%s) = %s %d %v", ref, p, n, ok)
		}
	}
	if _, _, ok := SplitRef("x1"); ok {
		t.Error("SplitRef(x1) accepted")
	}
	snap := Snapshot{YAML: "- generic [ref=e1]:\n  - 'button \"Go: now\" [ref=e2]'\n  - text: x [ref=f1e3]\n  - /url: y"}
	if got := snap.Nodes(); !reflect.DeepEqual(got, []RefNode{{"e1", "generic"}, {"e2", "button"}, {"f1e3", "text"}}) {
		t.Errorf("Nodes = %v", got)
	}
	if !snap.HasInteractiveRef() || HasInteractiveRef("- generic \"button\" [ref=e5]") || !IsInteractiveRole("menuitemradio") {
		t.Error("interactive roles")
	}
}

func TestEvaluateCutOffMessage(t *testing.T) {
	for _, c := range []struct {
		cancelled, terminated bool
		want                  string
	}{
		{false, true, "evaluate timed out after 5000 ms; page script was terminated"},
		{false, false, "evaluate timed out after 5000 ms; page script could not be terminated"},
		{true, true, "evaluate cancelled after 5000 ms; page script was terminated"},
	} {
		got := EvaluateCutOffMessage(c.cancelled, 5000, c.terminated)
		if got != c.want {
			t.Errorf("EvaluateCutOffMessage(%t, 5000, %t) = %q, want %q", c.cancelled, c.terminated, got, c.want)
		}
		if !IsEvaluateCutOff(got) {
			t.Errorf("IsEvaluateCutOff(%q) = false", got)
		}
	}
	if !IsEvaluateCutOff("Protocol error (Runtime.evaluate): Execution was terminated") {
		t.Error("CDP's termination error not recognised")
	}
	if IsEvaluateCutOff("ReferenceError: evaluate is not defined") {
		t.Error("an ordinary evaluate error recognised as cut off")
	}
}
