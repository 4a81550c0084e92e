package srcerr

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

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

// TestDecodeTypeErrors: every value of the wrong type, in any block, comes out as `file:line:col: PATH: want
// KIND, got VALUE` at the value's own line and column, beside unknown keys in document order.
func TestDecodeTypeErrors(t *testing.T) {
	type model struct {
		Kind string   `yaml:"kind"`
		Temp *float32 `yaml:"temperature"`
	}
	type arm struct {
		Name    string          `yaml:"name"`
		Model   *model          `yaml:"model"`
		Guards  map[string]bool `yaml:"guards"`
		Timeout time.Duration   `yaml:"timeout"`
		Tags    []string        `yaml:"tags"`
	}
	type doc struct {
		Reps  int     `yaml:"reps"`
		Alpha float64 `yaml:"alpha"`
		Arms  []arm   `yaml:"arms"`
		Base  arm     `yaml:"base"`
	}
	for _, c := range []struct{ doc, want string }{
		{"reps: two\n", `d.yaml:1:7: reps: want an integer, got "two"`},
		{"alpha: 0.05\nreps:   3 reps\n", `d.yaml:2:9: reps: want an integer, got "3 reps"`},
		{"alpha: [1, 2]\n", `d.yaml:1:8: alpha: want a number, got a list`},
		{"arms:\n  - name: a\n  - name: b\n    guards: {repeat_guard: maybe}\n",
			`d.yaml:4:28: arms[1].guards.repeat_guard: want true or false, got "maybe"`},
		{"base:\n  model: {kind: openai, temperature: hot}\n",
			`d.yaml:2:38: base.model.temperature: want a number, got "hot"`},
		{"base:\n  timeout: soon\n", `d.yaml:2:12: base.timeout: want a duration like 90s, got "soon"`},
		{"base:\n  tags: x\n  model: [a]\n", "d.yaml:2:9: base.tags: want a list, got \"x\"\n" +
			"d.yaml:3:10: base.model: want a mapping, got a list"},
		{"reps: x\nrpes: 2\n", "d.yaml:1:7: reps: want an integer, got \"x\"\n" +
			`d.yaml:2:1: unknown key "rpes" (did you mean "reps"?)`},
		{"arms: {name: a}\n", `d.yaml:1:7: arms: want a list, got a mapping`},
		// yaml.v3 alone would read these as 3 and 0 without error.
		{"reps: 3.5\n", `d.yaml:1:7: reps: want an integer, got "3.5"`},
		{"alpha: 0.1\nreps: 1e-1\n", `d.yaml:2:7: reps: want an integer, got "1e-1"`},
		{"reps: 2.0\nalpha: 1\n", ""},
		{"", ""},
	} {
		var d doc
		err := Decode("d.yaml", []byte(c.doc), &d)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.doc, got, c.want)
		}
	}
}

func TestOneOf(t *testing.T) {
	set := []string{"leave-one-out", "add-one", "explicit"}
	for got, want := range map[string]string{
		"leave-one-out": "",
		"leave-on-out":  `unknown design "leave-on-out" (did you mean "leave-one-out"?) (valid: leave-one-out, add-one, explicit)`,
		"random":        `unknown design "random" (valid: leave-one-out, add-one, explicit)`,
	} {
		err := OneOf("design", got, set)
		if s := fmt.Sprint(err); err == nil && want != "" || err != nil && s != want {
			t.Errorf("OneOf(%q) = %v, want %s", got, err, want)
		}
	}
	if err := OneOf("profile", "cleen", []string{"clean"}, "or a YAML file path"); err == nil ||
		err.Error() != `unknown profile "cleen" (did you mean "clean"?) (valid: clean; or a YAML file path)` {
		t.Errorf("others: %v", err)
	}
}

// Scalar decodes a scalar as yaml.v3 does but refuses a fraction meant for an integer (yaml.v3 would make 3.5
// a 3); a whole float, a float for a float and a non-scalar come out as they should.
func TestScalar(t *testing.T) {
	node := func(src string) *yaml.Node {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Content[0]
	}
	var i int
	if Scalar(node("3.5"), &i) {
		t.Errorf("3.5 into an int accepted as %d", i)
	}
	if !Scalar(node("4.0"), &i) || i != 4 {
		t.Errorf("4.0 into an int: %d, want 4", i)
	}
	if !Scalar(node("7"), &i) || i != 7 {
		t.Errorf("7 into an int: %d, want 7", i)
	}
	if Scalar(node("[1]"), &i) || Scalar(node("two"), &i) {
		t.Error("a list or a word into an int accepted")
	}
	var f float64
	if !Scalar(node("3.5"), &f) || f != 3.5 {
		t.Errorf("3.5 into a float64: %v", f)
	}
}
