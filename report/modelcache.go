package report

import (
	"fmt"
	"io"

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

// ModelCacheLine is an arm's model-cache account in one line ("" when the arm ran without the cache):
// "NAME: R of N model calls replayed, S sent; cost $X as run, $Y paid, $Z saved".
func ModelCacheLine(a analysis.Arm) string {
	c := a.ModelCache
	if c == nil {
		return ""
	}
	return fmt.Sprintf("%s: %d of %d model calls replayed, %d sent; cost $%.4f as run, $%.4f paid, $%.4f saved", a.Name,
		c.Replayed, a.ModelCalls, c.Sent, a.CostUSD, c.PaidUSD, c.SavedUSD)
}

// printModelCacheLines prints the compact report's model-cache block: a heading and ModelCacheLine of each arm
// that ran with the cache; nothing when none did.
func printModelCacheLines(w io.Writer, arms []analysis.Arm, width int) {
	head := false
	for _, a := range arms {
		line := ModelCacheLine(a)
		if line == "" {
			continue
		}
		if !head {
			fmt.Fprintln(w)
			printWrapped(w, "Model cache (replayed calls did not reach the endpoint; cost as run counts every call)", "", "  ", width)
			head = true
		}
		printWrapped(w, line, "  ", "      ", width)
	}
}
