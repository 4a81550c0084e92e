package srcerr

import (
	"bytes"
	"errors"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestErrorFormat(t *testing.T) {
	for _, c := range []struct {
		e    *Error
		want string
	}{
		{At("s.yaml", 3, 5, "variant a: scope", "%q: expected all or target", "some"),
			`s.yaml:3:5: variant a: scope: "some": expected all or target`},
		{At("s.yaml", 3, 0, "", "no column"), "s.yaml:3: no column"},
		{At("s.yaml", 0, 0, "", "no variants"), "s.yaml: no variants"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"clean", "observed", "harsh"}
	for got, want := range map[string]string{
		"observd": ` (did you mean "observed"?)`,
		"Clean":   ` (did you mean "clean"?)`,
		"cleen":   ` (did you mean "clean"?)`,
		"noisy":   "", // nothing that near
		"clean":   "", // not a miss
		"x":       "",
	} {
		if s := Suggest(got, names); s != want {
			t.Errorf("Suggest(%q) = %q, want %q", got, s, want)
		}
	}
}

func TestSyntaxLine(t *testing.T) {
	for doc, want := range map[string]int{
		"a: 1\nb: 2\n":                       0,
		"a: 1\nb:\n  - x\n - y\n":            4,
		"a: {x: 1,\n  y: 2}\nb: [1\nc: 3\n":  3, // the closed flow mapping spanning lines 1-2 is fine
		"a: 1\nb: \"open\nc: 3\n":            2,
		"a: b: c\n":                          1,
		"l:\n  - a\n  - b\n   c: d\n  - e\n": 4,
	} {
		if got := SyntaxLine([]byte(doc)); got != want {
			t.Errorf("SyntaxLine(%q) = %d, want %d", doc, got, want)
		}
	}
}

func TestFromYAMLTypeErrors(t *testing.T) {
	type inner struct {
		Snapshot string `yaml:"snapshot"`
	}
	type doc struct {
		Name string `yaml:"name"`
		Obs  inner  `yaml:"observation"`
	}
	data := []byte("name: x\nobservation:\n  snapshots: diff\nnmae: y\n")
	var d doc
	dec := yaml.NewDecoder(bytesReader(data))
	dec.KnownFields(true)
	err := FromYAML("d.yaml", data, dec.Decode(&d), Keys(doc{}, inner{}))
	want := "d.yaml:3:3: unknown key \"snapshots\" (did you mean \"snapshot\"?)\n" +
		"d.yaml:4:1: unknown key \"nmae\" (did you mean \"name\"?)"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	var se *Error
	if !errors.As(err, &se) || se.Line != 3 {
		t.Fatalf("errors.As: %v", se)
	}
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
