package report

import (
	"fmt"

	"webbench/analysis"
)

// ModelCacheTable is the model cache's account per arm (analysis.ArmCache): model calls, those replayed from
// the cache and those sent, the replayed tokens, and the cost as run (every call, what the arm costs without
// the cache), paid this run and saved. No rows when no arm ran with the cache; every report of a run made
// with --model-cache shows it after the arms.
func ModelCacheTable(arms []analysis.Arm) ReportTable {
	t := ReportTable{Title: "Model cache", Header: []string{"arm", "model calls", "replayed", "sent",
		"tokens replayed", "cost as run", "paid", "saved"}}
	for _, a := range arms {
		c := a.ModelCache
		if c == nil {
			continue
		}
		t.Rows = append(t.Rows, []string{a.Name, fmt.Sprint(a.ModelCalls), fmt.Sprint(c.Replayed), fmt.Sprint(c.Sent),
			compactNum(float64(c.ReplayedTokens)), fmt.Sprintf("$%.4f", a.CostUSD), fmt.Sprintf("$%.4f", c.PaidUSD),
			fmt.Sprintf("$%.4f", c.SavedUSD)})
	}
	t.Note = "Replayed calls answered from --model-cache without reaching the endpoint. Cost as run counts every " +
		"call at the model's prices (the arms' cost column and the paired cost outcomes use it, so a cached run " +
		"compares like an uncached one); paid is what this run sent, saved what the replays would have cost."
	return t
}
