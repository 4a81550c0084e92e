package spec

import (
	"strings"
	"testing"

	"webbench/results"
)

func TestFailIfCostlier(t *testing.T) {
	s, err := ParseSpec("spec.yaml", []byte("name: x\nfail_if_costlier: {tokens: 0.2, wall: 1}\nvariants:\n  - name: v\n    guards: {repeat_guard: false}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.FailIfCostlier) != 2 || s.FailIfCostlier[results.CostTokens] != 0.2 || s.FailIfCostlier[results.CostWall] != 1 {
		t.Errorf("fail_if_costlier = %v", s.FailIfCostlier)
	}
	for src, want := range map[string]string{
		// Each mistake stands where it is: an unknown outcome at its name, with the near miss; a bad margin at
		// its value.
		"name: x\nreps: 1\nfail_if_costlier: {bananas: 0.2}\n": `spec.yaml:3:20: fail_if_costlier: unknown cost outcome "bananas"`,
		"name: x\nfail_if_costlier: {wall: 1, tokns: 0.2}\n":   `spec.yaml:2:29: fail_if_costlier: unknown cost outcome "tokns" (did you mean "tokens"?)`,
		"name: x\nfail_if_costlier:\n  tokens: -0.1\n":         "spec.yaml:3:11: fail_if_costlier: tokens: margin -0.1",
	} {
		if _, err := ParseSpec("spec.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", src, err, want)
		}
	}
}
