package spec

import (
	"strings"
	"testing"

	"webbench/suites"
)

// The spec key observation: {snapshot: full|diff|none}: a bad value, a typo'd key, the key beside an external
// agent and on an A/A arm are errors naming the file, the line and the field.
func TestObservationSpecErrors(t *testing.T) {
	cases := map[string]string{
		"name: x\nvariants:\n  - name: d\n    observation: {snapshot: incremental}\n":                                        `spec.yaml:4:5: variant d: observation: unknown snapshot mode "incremental" (valid: full, diff, none)`,
		"name: x\nbaseline:\n  observation: {snapshot: all}\nvariants:\n  - name: d\n    observation: {snapshot: diff}\n":    `spec.yaml:3:3: baseline: observation: unknown snapshot mode "all" (did you mean "full"?) (valid: full, diff, none)`,
		"name: x\nvariants:\n  - name: d\n    observation: {}\n":                                                             `spec.yaml:4:5: variant d: observation: unknown snapshot mode "" (valid: full, diff, none)`,
		"name: x\nvariants:\n  - name: d\n    observation: {snapshots: diff}\n":                                              `spec.yaml:4:19: unknown key "snapshots"`,
		"name: x\nvariants:\n  - name: d\n    agent: {kind: command, run: [/bin/true]}\n    observation: {snapshot: diff}\n": `spec.yaml:5:5: variant d: observation: the built-in agent's observation mode cannot apply to an external agent`,
		"name: x\nvariants:\n  - name: f\n    aa: true\n    observation: {snapshot: diff}\n":                                 `spec.yaml:5:5: variant f: observation: an aa (A/A) arm is a copy of the baseline`,
	}
	for src, want := range cases {
		_, err := ParseSpec("spec.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", src, err, want)
		}
	}
}

// The shipped spec: the three modes, baseline full; the variants carry their mode to the runner ("" for full,
// as an arm without the key).
func TestObservationSpecExpands(t *testing.T) {
	s, err := LoadSpec("../suites/zoo/ablations/observation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	arms, err := s.Expand([]suites.Task{{ID: "t1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(arms.Warnings) != 0 {
		t.Errorf("warnings: %v", arms.Warnings)
	}
	for _, v := range arms.Variants {
		got[v.Name] = v.Observation
	}
	want := map[string]string{"full": "", "diff": "diff", "none": "none"}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("arm %s: observation %q (present %v), want %q; all %v", k, g, ok, w, got)
		}
	}
}
