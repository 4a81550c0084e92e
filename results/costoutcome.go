package results

import (
	"fmt"
	"slices"
	"strings"
)

// CostOutcome names a per-attempt cost the analysis compares between arms on the same pairs (STATS.md "Cost
// outcomes"), as the spec's `fail_if_costlier` keys, `--fail-if-costlier` and the manifest's
// ablation.fail_if_costlier spell it.
type CostOutcome string

// The cost outcomes, in report order.
const (
	// CostSteps is Attempt.Steps, the model calls.
	CostSteps CostOutcome = "steps"
	// CostTokens is Attempt.Tokens' prompt + completion.
	CostTokens CostOutcome = "tokens"
	// CostUSD is Attempt.CostUSD (compared only when some attempt of the comparison is priced).
	CostUSD CostOutcome = "usd"
	// CostWall is Attempt.DurationMS, the attempt's wall time in ms.
	CostWall CostOutcome = "wall"
)

// CostOutcomes lists the cost outcomes in report order.
var CostOutcomes = []CostOutcome{CostSteps, CostTokens, CostUSD, CostWall}

// Value is the attempt's value of the outcome: steps, prompt + completion tokens, USD, or wall ms.
func (o CostOutcome) Value(a Attempt) float64 {
	switch o {
	case CostSteps:
		return float64(a.Steps)
	case CostTokens:
		return float64(a.Tokens.Prompt + a.Tokens.Completion)
	case CostUSD:
		return a.CostUSD
	case CostWall:
		return float64(a.DurationMS)
	}
	return 0
}

// ParseCostMargins reads "OUTCOME=MARGIN,…" (e.g. "tokens=0.2,wall=0.5"): per cost outcome, the relative
// increase a cost gate tolerates (0.2 = 20 % more). A margin is a number ≥ 0; an outcome may appear once.
func ParseCostMargins(s string) (map[CostOutcome]float64, error) {
	out := map[CostOutcome]float64{}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("%q: want OUTCOME=MARGIN, e.g. tokens=0.2", kv)
		}
		var m float64
		if _, err := fmt.Sscanf(strings.TrimSpace(v), "%g", &m); err != nil {
			return nil, fmt.Errorf("%q: the margin is a number, e.g. 0.2 for 20 %% more", kv)
		}
		o := CostOutcome(strings.TrimSpace(k))
		if _, dup := out[o]; dup {
			return nil, fmt.Errorf("%q: outcome %s given twice", kv, o)
		}
		out[o] = m
	}
	if err := CheckCostMargins(out); err != nil {
		return nil, err
	}
	return out, nil
}

// CheckCostMargins refuses an unknown outcome and a margin that is negative or not finite.
func CheckCostMargins(m map[CostOutcome]float64) error {
	for o, v := range m {
		if !slices.Contains(CostOutcomes, o) {
			return fmt.Errorf("unknown cost outcome %q (known: steps, tokens, usd, wall)", o)
		}
		if !(v >= 0) || v > 1e6 {
			return fmt.Errorf("%s: margin %v: a relative increase ≥ 0, e.g. 0.2 for 20 %% more", o, v)
		}
	}
	return nil
}
