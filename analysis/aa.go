package analysis

// The observed noise floor: a variant that is a copy of the
// baseline run with other seeds (an A/A arm, spec `aa: true`) measures how
// far two arms differ by chance alone.

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	"webbench/results"
)

// WarnNoiseFloor is the Warning.Kind of the noise-floor line of an A/A arm.
const WarnNoiseFloor WarningKind = "noise_floor"

// AACopies lists, in plan order, the arms of plan p that are other-seeds A/A
// arms as spec `aa: true` makes them (aaVariant): the plan's baseline in
// everything but the name and the seed mode — the same model (kind, name,
// endpoint, profile, sampling, prices), guards, prompt (file and SHA-256),
// max_steps, timeout, no switched guard, every task — with the seed mode
// "+i·results.AASeedOffset" (i ≥ 1) where the baseline's differs. It is the fallback
// for manifests written before results.Ablation.Copies recorded those arms; a
// newer manifest's copies are the spec's. A/A membership (VariantResult.AA:
// out of Holm's family and the gate) is decided from the plan, never from the
// records, which carry only the model's name and the guards (otherwise a
// variant with a fixed seed and another prompt would pass for an A/A copy
// and leave the gate). nil when p has no such arm or no baseline.
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
		if v.Name == p.Baseline || v.Seed == base.Seed || v.TargetTasks != nil || !isAASeed(v.Seed) {
			continue
		}
		if reflect.DeepEqual(strip(v), b) {
			out = append(out, v.Name)
		}
	}
	return out
}

// isAASeed reports whether seed is a seed mode of spec `aa: true` arms:
// "+i·results.AASeedOffset" with i ≥ 1.
func isAASeed(seed string) bool {
	n, err := strconv.ParseInt(strings.TrimPrefix(seed, "+"), 10, 64)
	return err == nil && n > 0 && n%results.AASeedOffset == 0 && seed == results.AASeed(int(n/results.AASeedOffset))
}

// noiseFloorWarnings returns one WarnNoiseFloor warning per other-seeds A/A
// variant of a (Inputs.Copies), with its comparison (Δ, interval, p_paired):
// the observed noise floor of the run.
func noiseFloorWarnings(a *Analysis, copies []string) []Warning {
	var out []Warning
	for _, v := range a.Variants {
		if !slices.Contains(copies, v.Name) {
			continue
		}
		c := v.All
		out = append(out, Warning{Kind: WarnNoiseFloor, Variants: []string{v.Name}, Comparison: &c})
	}
	return out
}
