package results

import "fmt"

// AAMode is the kind of an A/A arm, a copy of the baseline on every task: "" (not an A/A arm), AAOtherSeeds or
// AASameSeed. A spec's `aa:` key sets it; the analysis reads an arm's kind from the plan (Plan.Copies,
// Plan.Replays) and reports it per arm.
type AAMode string

// The A/A arm kinds, as written in a spec.
const (
	// AAOtherSeeds is `aa: true` or `aa: other-seeds`: the baseline with other seeds (the noise floor).
	AAOtherSeeds AAMode = "other-seeds"
	// AASameSeed is `aa: same-seed`: the baseline replayed with its own seeds (the environment's flake rate).
	AASameSeed AAMode = "same-seed"
)

// AASeedOffset is the base-seed offset between other-seeds A/A arms: arm i (1-based) runs with seed
// "+i·AASeedOffset" (Variant.Seed), a seed sequence unrelated to the baseline's.
const AASeedOffset = 1_000_003

// AASeed is the seed mode of the i-th (1-based) other-seeds A/A arm: "+i·AASeedOffset" (the base seed plus that
// offset). The analysis recognises such arms by it in plans whose manifest predates Plan.Copies.
func AASeed(i int) string { return fmt.Sprintf("+%d", AASeedOffset*i) }
