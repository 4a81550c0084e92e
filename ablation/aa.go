package ablation

// The observed noise floor (issue 11 item 9): a variant that is a copy of the
// baseline run with other seeds (an A/A arm, spec `aa: true`) measures how
// far two arms differ by chance alone.

import (
	"fmt"
	"maps"

	"webbench/results"
)

// WarnNoiseFloor is the Warning.Kind of the noise-floor line of an A/A arm.
const WarnNoiseFloor = "noise_floor"

// IsAACopy reports whether the records of variant v are an A/A copy of the
// baseline records base: every record of both arms has the same model and
// guards as the baseline's first record, and at least one common pair_id
// carries different seeds in the two arms (an arm with the same seeds would
// replay the baseline, not measure noise). Such arms come from `aa: true`
// (Config.AA) but are recognised from the records alone.
func IsAACopy(base, v []results.Attempt) bool {
	if len(base) == 0 || len(v) == 0 {
		return false
	}
	ref := base[0]
	same := func(r results.Attempt) bool { return r.Model == ref.Model && maps.Equal(r.Guards, ref.Guards) }
	seeds := map[string]*int{}
	for _, r := range base {
		if !same(r) {
			return false
		}
		seeds[r.PairID] = r.Seed
	}
	differ := false
	for _, r := range v {
		if !same(r) {
			return false
		}
		if s, ok := seeds[r.PairID]; ok && s != nil && r.Seed != nil && *s != *r.Seed {
			differ = true
		}
	}
	return differ
}

// noiseFloorWarnings returns one WarnNoiseFloor warning per A/A variant of a
// (IsAACopy): its Δ, interval and p_paired, printed as the observed noise
// floor of the run.
func noiseFloorWarnings(a *Analysis, by map[string][]results.Attempt) []Warning {
	var out []Warning
	for _, v := range a.Variants {
		if !IsAACopy(by[a.Baseline], by[v.Name]) {
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
