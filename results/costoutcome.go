package results

import (
	"fmt"
	"strings"

	"webbench/srcerr"
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
	// CostRepeatedCalls is Attempt.RepeatedCalls, the repeat guard's waste: tool calls that repeat an earlier
	// call of the attempt with the same result (RepeatedCalls).
	CostRepeatedCalls CostOutcome = "repeated_calls"
	// CostToolBytes is Attempt.ToolBytes, the intercept hint's waste: bytes of tool results sent to the model
	// (ToolResultBytes).
	CostToolBytes CostOutcome = "tool_bytes"
)

// CostOutcomes lists the cost outcomes in report order.
var CostOutcomes = []CostOutcome{CostSteps, CostTokens, CostUSD, CostWall, CostRepeatedCalls, CostToolBytes}

// Value is the attempt's value of the outcome: steps, prompt + completion tokens, USD, wall ms, repeated calls,
// or tool-result bytes (0 when not recorded: see Recorded).
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
	case CostRepeatedCalls:
		if a.RepeatedCalls != nil {
			return float64(*a.RepeatedCalls)
		}
	case CostToolBytes:
		if a.ToolBytes != nil {
			return float64(*a.ToolBytes)
		}
	}
	return 0
}

// Recorded reports whether a record holds the outcome: always for steps, tokens, USD and wall; for repeated
// calls and tool-result bytes only in records written since they were (a record read from an older run has
// neither, and is left out of those outcomes rather than counted as 0).
func (o CostOutcome) Recorded(a Attempt) bool {
	switch o {
	case CostRepeatedCalls:
		return a.RepeatedCalls != nil
	case CostToolBytes:
		return a.ToolBytes != nil
	}
	return true
}

// RepeatedCalls counts the tool calls of tr that repeat an earlier call of the same attempt: identical as the
// repeat guard's streaks define it (GUARDS.md §2, Streaks) — the same CallKey (tool name and canonical arguments,
// browser_evaluate's function with digits and white space normalised) and the same ResultFingerprint of what
// the model was shown (guards' notes and console counts left out) — whether or not the earlier call came just
// before. The first call of each such class is not counted: a loop of 35 identical calls counts 34.
func RepeatedCalls(tr *Trajectory) int {
	seen := map[[2]string]bool{}
	n := 0
	for _, st := range tr.Steps {
		for _, r := range st.Results {
			k := [2]string{CallKey(r.Call), ResultFingerprint(r.ShownResult())}
			if seen[k] {
				n++
			}
			seen[k] = true
		}
	}
	return n
}

// ToolResultBytes sums, over the tool calls of tr, the bytes of the tool message the model was sent for each
// (ToolRecord.ShownText: the result after guards' rewrites and the observation mode, as in the request that
// followed the call). Each result counts once, as first sent: later requests carry it again, snapshots elided,
// which the prompt tokens count.
func ToolResultBytes(tr *Trajectory) int64 {
	var n int64
	for _, st := range tr.Steps {
		for _, r := range st.Results {
			n += int64(len(r.ShownText()))
		}
	}
	return n
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
		if err := CheckCostOutcome(o); err != nil {
			return err
		}
		if !(v >= 0) || v > 1e6 {
			return fmt.Errorf("%s: margin %v: a relative increase ≥ 0, e.g. 0.2 for 20 %% more", o, v)
		}
	}
	return nil
}

// CheckCostOutcome refuses a name that is not one of CostOutcomes (srcerr.OneOf: with the nearest name).
func CheckCostOutcome(o CostOutcome) error {
	return srcerr.OneOf("cost outcome", string(o), strings.Split(CostOutcomeList(), ", "))
}

// CostOutcomeList names the cost outcomes for messages: "steps, tokens, usd, wall, repeated_calls, tool_bytes".
func CostOutcomeList() string {
	names := make([]string, len(CostOutcomes))
	for i, o := range CostOutcomes {
		names[i] = string(o)
	}
	return strings.Join(names, ", ")
}
