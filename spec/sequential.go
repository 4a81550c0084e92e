package spec

import (
	"gopkg.in/yaml.v3"

	"webbench/results"
	"webbench/runner"
	"webbench/srcerr"
	"webbench/suites"
)

// SeqSetting is a spec's `sequential:` key (STATS.md "Sequential ablations"): `sequential: true` (the spec's
// alpha and min_effect), `sequential: {alpha: 0.05, min_effect: 0.10}` (either may be left out: the spec's),
// or false / absent (a fixed-size ablation).
type SeqSetting struct {
	// On is whether the ablation is sequential.
	On bool
	// Alpha and MinEffect are the design's level and futility margin (Alpha 0: the spec's alpha; MinEffect
	// unset: the spec's min_effect, an explicit `min_effect: 0` no futility stop).
	Alpha, MinEffect float64
	// minEffectSet records an explicit min_effect, so that 0 (no futility stop) is not replaced by the default.
	minEffectSet bool
}

// UnmarshalYAML reads `sequential:` as a boolean or a mapping of alpha and min_effect (numbers); anything else
// is a *srcerr.Error at the value (srcerr.Decode names the file), as the spec's other errors.
func (s *SeqSetting) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		return n.Decode(&s.On)
	}
	if n.Kind != yaml.MappingNode {
		return srcerr.Mismatch("", n, "sequential", "true, false or {alpha: A, min_effect: M}")
	}
	s.On = true
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], n.Content[j+1]
		var dst *float64
		switch k.Value {
		case "alpha":
			dst = &s.Alpha
		case "min_effect":
			dst, s.minEffectSet = &s.MinEffect, true
		default:
			return srcerr.AtNode("", k, "sequential", "%v", srcerr.OneOf("key", k.Value, []string{"alpha", "min_effect"}))
		}
		if v.Kind != yaml.ScalarNode || v.Decode(dst) != nil {
			return srcerr.Mismatch("", v, "sequential."+k.Value, "a number")
		}
	}
	return nil
}

// checkSequential fills the sequential design's defaults (the spec's alpha and min_effect) and checks them:
// alpha in (0, 1), min_effect in [0, 1) (0: no futility stop).
func (s *Spec) checkSequential(c specCheck) error {
	if s.Sequential == nil || !s.Sequential.On {
		return nil
	}
	if s.Sequential.Alpha == 0 {
		s.Sequential.Alpha = s.Alpha
	}
	if !s.Sequential.minEffectSet {
		s.Sequential.MinEffect, s.Sequential.minEffectSet = s.MinEffect, true
	}
	if s.FailIfWorse > 0 {
		return c.errKey("fail_if_worse", "fail_if_worse: %s", SeqGateRefusal)
	}
	if a, m := s.Sequential.Alpha, s.Sequential.MinEffect; a <= 0 || a >= 1 || m < 0 || m >= 1 {
		return c.errKey("sequential", "sequential: alpha must be in (0, 1) and min_effect in [0, 1) (got %v, %v)", a, m)
	}
	return nil
}

// SeqGateRefusal says why a sequential ablation refuses the --fail-if-worse gate: the gate's rule is the
// fixed-size test, which on data a sequential rule stopped is only a diagnostic, so its exit code could
// contradict the run's own decisions.
const SeqGateRefusal = "a sequential ablation's answer is its decisions (worse, better, futile); the fail-if-worse gate " +
	"applies the fixed-size test, a diagnostic on data a sequential rule stopped, so the two are not combined " +
	"(leave the gate out, or run a fixed-size ablation)"

// SetSequential makes the spec sequential (bench ablate --sequential) with the spec's alpha and min_effect
// unless its `sequential:` block sets them.
func (s *Spec) SetSequential() {
	if s.Sequential == nil {
		s.Sequential = &SeqSetting{}
	}
	s.Sequential.On = true
	_ = s.checkSequential(specCheck{line: func(string) int { return 0 }})
}

// seqDesign is the spec's sequential design over tasks (in plan order), nil when the spec is not sequential.
func (s *Spec) seqDesign(tasks []suites.Task) *results.Sequential {
	if s.Sequential == nil || !s.Sequential.On {
		return nil
	}
	return &results.Sequential{Alpha: s.Sequential.Alpha, MinEffect: s.Sequential.MinEffect,
		Units: runner.SeqUnits(tasks, s.Seed)}
}
