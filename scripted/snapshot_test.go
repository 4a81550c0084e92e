package scripted

import (
	"reflect"
	"testing"

	"webbench/suites"
)

// A snapshot captured on this machine (Playwright 1.64.1, AI mode, boxes), with a few hand-made lines for
// escapes and nesting.
const snapReal = `- generic [active] [ref=e1] [box=8,21,1264,242]:
  - 'heading "Order #12345 confirmed" [level=1] [ref=e2] [box=8,21,1264,37]'
  - group "Colour" [ref=e3] [box=10,80,1260,56]:
    - generic [ref=e5] [box=24,105,51,17]:
      - radio "Blue" [ref=e6] [box=29,106,13,13]
      - text: Blue
    - generic [ref=e7] [box=79,105,51,17]:
      - radio "Red" [ref=e8] [box=84,106,13,13]
      - text: Red
  - generic [ref=e10] [box=8,135,1264,18]:
    - text: Run automated as manual
    - switch [checked] [ref=e11] [box=178,146,16,6]
  - dialog "Cookie consent" [ref=e15] [box=8,190,1264,55]:
    - paragraph [ref=e16] [box=8,190,1264,18]: We use cookies
    - button "Close" [ref=e19] [box=153,224,23,21]: x
  - list [ref=e30]:
    - listitem [ref=e31]:
      - link "Say \"hi\"" [ref=f2e32]
    - listitem [ref=e33]:
      - link "Say \"hi\"" [ref=f2e34]
  - 'paragraph [ref=e40]': "Time: 12:30"`

func TestParseSnapshot(t *testing.T) {
	s := parseSnapshot(snapReal)
	h := s.find(&suites.Target{Role: "heading", NameRegex: `Order #(\d+)`}, true)
	if h == nil || h.name != "Order #12345 confirmed" || h.ref != "e2" || !reflect.DeepEqual(h.box, []float64{8, 21, 1264, 37}) {
		t.Fatalf("heading %+v", h)
	}
	sw := s.find(&suites.Target{Role: "switch"}, true)
	if sw == nil || sw.ref != "e11" || sw.hasName || sw.desc() != "switch" || s.nodes[sw.parent].ref != "e10" {
		t.Fatalf("switch %+v", sw)
	}
	if p := s.find(&suites.Target{Role: "paragraph", NameRegex: "cookies"}, true); p == nil || p.text != "We use cookies" {
		t.Fatalf("paragraph %+v", p)
	}
	if p := s.find(&suites.Target{Role: "paragraph", NameRegex: `Time: (\S+)`}, false); p == nil || p.ref != "e40" || p.text != "Time: 12:30" {
		t.Fatalf("quoted key and value %+v", p)
	}
	// Escaped quotes, frame-prefixed refs, nth.
	if l := s.find(&suites.Target{Role: "link", Name: `Say "hi"`, Nth: 1}, true); l == nil || l.ref != "f2e34" {
		t.Fatalf("second link %+v", l)
	}
	if l := s.find(&suites.Target{Role: "link", Name: `Say "hi"`, Nth: 2}, true); l != nil {
		t.Fatalf("third link %+v", l)
	}
	// within: an ancestor's role and name.
	if b := s.find(&suites.Target{Role: "button", Name: "Close", Within: &suites.Target{Role: "dialog", Name: "Cookie consent"}}, true); b == nil || b.ref != "e19" {
		t.Fatalf("within dialog %+v", b)
	}
	if b := s.find(&suites.Target{Role: "button", Name: "Close", Within: &suites.Target{Role: "group"}}, true); b != nil {
		t.Fatalf("close is not within the group: %+v", b)
	}
	if r := s.find(&suites.Target{Role: "radio", Name: "red"}, true); r == nil || r.ref != "e8" {
		t.Fatalf("case-insensitive name %+v", r)
	}
	if d := s.findDismiss(); d == nil || d.ref != "e19" {
		t.Fatalf("dismiss %+v", d)
	}
	if l := s.findLabel(s.find(&suites.Target{Role: "radio", Name: "Blue"}, true)); l == nil || l.ref != "e5" {
		t.Fatalf("label %+v", l)
	}
	if !s.hasInteractive() || len(s.refs()) != 18 {
		t.Fatalf("interactive %v refs %d", s.hasInteractive(), len(s.refs()))
	}
}

func TestEmptyShellIsNotInteractive(t *testing.T) {
	for _, snap := range []string{
		"- generic [ref=e1]:\n  - img [ref=e2]",
		`- generic "button" [ref=e5]`,                           // a role word inside a name does not count
		"- generic [ref=e1]:\n  - button \"Go\"",                // a widget without a ref does not count
		"- text: click the link below\n- img \"link\" [ref=e3]", // nor one in text
	} {
		if parseSnapshot(snap).hasInteractive() {
			t.Errorf("%q counted as interactive", snap)
		}
	}
	if !parseSnapshot("- 'button \"Go: now\" [ref=e4]'").hasInteractive() {
		t.Error("a yaml-quoted button is interactive")
	}
}

func TestElementMatches(t *testing.T) {
	blue := &suites.Target{Role: "radio", Name: "Blue"}
	for _, tc := range []struct {
		el         string
		t          *suites.Target
		allowLabel bool
		want       bool
	}{
		{`radio "Blue"`, blue, false, true},
		{`radio "Red"`, blue, false, false},
		{`checkbox "Blue"`, blue, false, false},
		{`label of radio "Blue"`, blue, true, true},
		{`label of radio "Blue"`, blue, false, false},
		{`heading "Order #42"`, &suites.Target{Role: "heading", NameRegex: `Order #\d+`}, false, true},
		{`switch`, &suites.Target{Role: "switch"}, false, true},
		{``, blue, false, false},
	} {
		if got := elementMatches(tc.el, tc.t, tc.allowLabel); got != tc.want {
			t.Errorf("elementMatches(%q, %+v, %v) = %v", tc.el, tc.t, tc.allowLabel, got)
		}
	}
}

func TestFindLabelSibling(t *testing.T) {
	s := parseSnapshot(`- group "Size" [ref=e1]:
  - radio "M" [ref=e2]
  - generic [ref=e3]: S
  - radio "L" [ref=e4]
  - generic [ref=e5]: M
  - generic [ref=e6]: L`)
	if l := s.findLabel(s.find(&suites.Target{Role: "radio", Name: "M"}, true)); l == nil || l.ref != "e5" {
		t.Fatalf("label of M: %+v", l)
	}
	if l := s.findLabel(s.find(&suites.Target{Role: "radio", Name: "L"}, true)); l == nil || l.ref != "e6" {
		t.Fatalf("label of L: %+v", l)
	}
	if l := parseSnapshot(`- radio "XL" [ref=e2]`); l.findLabel(&l.nodes[0]) != nil {
		t.Fatal("a lone radio has no label")
	}
}
