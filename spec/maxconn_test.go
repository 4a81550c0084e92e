package spec

import (
	"strings"
	"testing"

	"webbench/llm"
	"webbench/runner"
	"webbench/suites"
)

// max_connections in a model block reaches each arm's model and the model client's config: the baseline's cap
// is inherited by a variant without a model block and by one whose block leaves it out, and replaced by a
// variant that sets its own; a negative cap is refused with the spec's name.
func TestSpecMaxConnections(t *testing.T) {
	src := `name: caps
reps: 1
baseline:
  model: {kind: openai, name: m, base_url: "http://127.0.0.1:1/v1", max_connections: 4}
variants:
  - name: inherits
    guards: {repeat_guard: false}
  - name: other_temperature
    model: {temperature: 0.5}
  - name: own_cap
    model: {max_connections: 2}
`
	s, err := ParseSpec("caps.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	arms, err := s.Expand([]suites.Task{{ID: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"baseline": 4, "inherits": 4, "other_temperature": 4, "own_cap": 2}
	for _, v := range arms.Variants {
		cfg := runner.LLMConfig(v.Model, "")
		if v.Model.MaxConnections != want[v.Name] || cfg.MaxConnections != want[v.Name] {
			t.Errorf("%s: model max_connections %d, llm.Config %d; want %d", v.Name, v.Model.MaxConnections,
				cfg.MaxConnections, want[v.Name])
		}
		c, err := llm.New(cfg)
		if err != nil || c.Config().MaxConnections != want[v.Name] {
			t.Errorf("%s: client %v, %v", v.Name, c, err)
		}
	}
	_, err = ParseSpec("neg.yaml", []byte(strings.Replace(src, "max_connections: 2", "max_connections: -1", 1)))
	if err == nil || !strings.Contains(err.Error(), "neg.yaml") || !strings.Contains(err.Error(), "max_connections -1") {
		t.Errorf("negative cap: %v", err)
	}
}
