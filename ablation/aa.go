package ablation

// The observed noise floor (issue 11 item 9): a variant that is a copy of the
// baseline run with other seeds (an A/A arm, spec `aa: true`) measures how
// far two arms differ by chance alone.

import (
	"fmt"
	"reflect"
	"slices"

	"webbench/results"
)

// WarnNoiseFloor is the Warning.Kind of the noise-floor line of an A/A arm.
const WarnNoiseFloor = "noise_floor"

// AACopies lists, in plan order, the other-seeds A/A arms of plan p: arms that
// are the plan's baseline in everything but their name and seed mode — the
// same model (kind, name, endpoint, profile, sampling, prices), guards, prompt
// (file and SHA-256), max_steps, timeout, switched guards (none) and task set
// (every task) — with a different seed mode. Spec `aa: true` makes such arms
// (seed "+N"); a variant written out the same way is one too. A/A membership
// (VariantResult.AA: out of Holm's family and the gate) is decided from the
// plan, never from the records, which carry only the model's name and the
// guards (review of issue 17: a variant with a fixed seed and another prompt
// passed for an A/A copy and left the gate). The baseline is never listed;
// nil when p has no such arm or no baseline.
func AACopies(p results.Plan) []string {
	base, ok := p.Variant(p.Baseline)
	if !ok {
		return nil
	}
	strip := func(v results.Variant) results.Variant {
		v.Name, v.Seed, v.Scope, v.TargetTasks = "", "", "", nil
		if len(v.Switched) == 0 {
			v.Switched = nil
		}
		return v
	}
	b := strip(base)
	var out []string
	for _, v := range p.Variants {
		if v.Name == p.Baseline || v.Seed == base.Seed || v.TargetTasks != nil {
			continue
		}
		if reflect.DeepEqual(strip(v), b) {
			out = append(out, v.Name)
		}
	}
	return out
}

// noiseFloorWarnings returns one WarnNoiseFloor warning per other-seeds A/A
// variant of a (Inputs.Copies): its Δ, interval and p_paired, printed as the
// observed noise floor of the run.
func noiseFloorWarnings(a *Analysis, copies []string) []Warning {
	var out []Warning
	for _, v := range a.Variants {
		if !slices.Contains(copies, v.Name) {
			continue
		}
		c := v.All
		out = append(out, Warning{Kind: WarnNoiseFloor, Variants: []string{v.Name}, Text: fmt.Sprintf(
			"Noise floor: %s is a copy of %s with other seeds (an A/A arm); it differs by Δ = %s pts [%s, %s], "+
				"p_paired = %.3g on %d tasks. Differences of this size between arms are what chance alone produces here.",
			v.Name, a.Baseline, pts(c.Delta), pts(c.CI[0]), pts(c.CI[1]), c.P, c.G())})
	}
	return out
}
