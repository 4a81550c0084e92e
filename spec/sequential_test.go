package spec

import (
	"strings"
	"testing"

	"webbench/suites"
)

// `sequential:` takes true (the spec's alpha and min_effect), a mapping overriding either, or false; other values
// and keys are errors naming the line; the plan records the design with one unit per cluster; SetSequential
// (--sequential) makes a spec sequential with its defaults.
func TestSequentialKey(t *testing.T) {
	for _, c := range []struct {
		src           string
		on            bool
		alpha, minEff float64
	}{
		{"alpha: 0.1\nmin_effect: 0.2\nsequential: true\n", true, 0.1, 0.2},
		{"sequential: {min_effect: 0.3}\n", true, 0.05, 0.3},
		{"sequential: {alpha: 0.01}\n", true, 0.01, 0.1},
		{"min_effect: 0.2\nsequential: {min_effect: 0}\n", true, 0.05, 0}, // explicit 0: no futility stop
		{"sequential: false\n", false, 0, 0},
	} {
		s, err := ParseSpec("s.yaml", []byte("name: x\ndesign: leave-one-out\n"+c.src))
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if q := s.Sequential; q.On != c.on || q.Alpha != c.alpha || q.MinEffect != c.minEff {
			t.Errorf("%q: %+v, want on %v, alpha %v, min_effect %v", c.src, *q, c.on, c.alpha, c.minEff)
		}
	}
	for src, want := range map[string]string{
		"sequential: yes please\n":                `s.yaml:3:13: sequential: want true, false or {alpha: A, min_effect: M}, got "yes please"`,
		"sequential: {alpha: 0.1, k: 3}\n":        `s.yaml:3:26: sequential: unknown key "k" (valid: alpha, min_effect)`,
		"sequential: {alpha: lots}\n":             `s.yaml:3:21: sequential.alpha: want a number, got "lots"`,
		"sequential: {alpha: 1.5}\n":              "s.yaml:3:1: sequential: alpha must be in (0, 1)",
		"fail_if_worse: 0.05\nsequential: true\n": "s.yaml:3:1: fail_if_worse: a sequential ablation's answer is its decisions",
	} {
		if _, err := ParseSpec("s.yaml", []byte("name: x\ndesign: leave-one-out\n"+src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
	s, err := ParseSpec("s.yaml", []byte("name: x\ndesign: leave-one-out\nmin_effect: 0.3\n"))
	if err != nil {
		t.Fatal(err)
	}
	tasks := []suites.Task{{ID: "a1", Cluster: "a"}, {ID: "a2", Cluster: "a"}, {ID: "b"}}
	if d := s.seqDesign(tasks); d != nil {
		t.Fatalf("a fixed spec has a design %+v", d)
	}
	s.SetSequential()
	d := s.seqDesign(tasks)
	if d == nil || d.Alpha != 0.05 || d.MinEffect != 0.3 || len(d.Units) != 2 {
		t.Errorf("--sequential: design %+v, want α 0.05, min effect 0.3 (the spec's), 2 units", d)
	}
}
