package report

import (
	"fmt"
	"sort"
	"strings"

	"webbench/analysis"
	"webbench/results"
)

// RunTable renders arm summaries as the `bench report` table: attempts, passes, pass rate with its Wilson 95%
// interval, errors, mean steps, tokens, wall time, failure modes. With bounds (one per arm, in order; nil for
// none), the pass rate of an arm with uncertain attempts is followed by "(N decided of M: lo–hi%)".
func RunTable(arms []analysis.Arm, bounds []analysis.VariantBounds) results.Table {
	t := results.Table{Header: []string{"variant", "model", "attempts", "passes", "pass rate [Wilson 95%]", "errors",
		"mean steps", "mean tokens", "mean wall", "failure modes"}}
	for i, a := range arms {
		steps, toks, wall := "-", "-", "-"
		if a.N > 0 {
			steps, toks, wall = fmt.Sprintf("%.1f", a.MeanSteps), fmt.Sprintf("%.0f", a.MeanTokens), fmt.Sprintf("%.1fs", a.MeanWallMS/1000)
		}
		rate := rateCell(a.Passes, a.N, a.Rate, a.Wilson)
		if i < len(bounds) {
			rate += boundedRate(bounds[i].Passes, bounds[i].Decided, bounds[i].Uncertain)
		}
		t.Rows = append(t.Rows, []string{a.Name, modelCell(a.Model), fmt.Sprint(a.Attempts), fmt.Sprint(a.Passes),
			rate, fmt.Sprint(a.Errors), steps, toks, wall, countsString(a.FailureModes)})
	}
	return t
}

// modelCell is an arm's model for a table ("-" when unknown).
func modelCell(m string) string {
	if m == "" {
		return "-"
	}
	return m
}

// countsString renders {"loop":3,"no_json":1} as "loop 3, no_json 1" (sorted by count, then name).
func countsString(m map[string]int) string {
	type kv struct {
		k string
		v int
	}
	var xs []kv
	for k, v := range m {
		if v > 0 {
			xs = append(xs, kv{k, v})
		}
	}
	sort.Slice(xs, func(i, j int) bool {
		if xs[i].v != xs[j].v {
			return xs[i].v > xs[j].v
		}
		return xs[i].k < xs[j].k
	})
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprintf("%s %d", x.k, x.v))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// tokensPerPassCell is an arm's MeanTokensPassed rounded, or "-" with no pass.
func tokensPerPassCell(a analysis.Arm) string {
	if a.MeanTokensPassed == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f", *a.MeanTokensPassed)
}
