package analysis

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"webbench/stats"
)

// TestSeqSpendingStudy is the simulation that chose the sequential design's
// spending function and time scale (STATS.md "Sequential ablations"): for
// every calibration setting and every candidate, the A/A false stops (units
// in the plan's shuffled order, and with the moved units last), the power at
// the fixed design's MDE against the fixed test's on the same draws, and the
// attempts saved at twice the MDE. Run with WEBBENCH_STUDY=1 (minutes);
// WEBBENCH_STUDY_RUNS sets the runs per cell (default 200).
func TestSeqSpendingStudy(t *testing.T) {
	if os.Getenv("WEBBENCH_STUDY") == "" {
		t.Skip("set WEBBENCH_STUDY=1 to run the spending study")
	}
	runs := 200
	if n, err := strconv.Atoi(os.Getenv("WEBBENCH_STUDY_RUNS")); err == nil && n > 0 {
		runs = n
	}
	var cands []SeqCalDesign
	for _, sp := range []stats.Spending{{Family: "obf"}, {Family: "power", Rho: 3}, {Family: "power", Rho: 2.5},
		{Family: "power", Rho: 2}, {Family: "power", Rho: 1.5}, {Family: "power", Rho: 1}, {Family: "pocock"}} {
		cands = append(cands, SeqCalDesign{Spending: sp})
	}
	cands = append(cands, SeqCalDesign{InfoScale: true}, SeqCalDesign{InfoScale: true, InfoAt: 1})
	fmt.Printf("| setting | spending | scale | false stop | late | power seq | power fixed | fixed − seq | saved 2×MDE |\n")
	fmt.Printf("|---|---|---|---|---|---|---|---|---|\n")
	for i, s := range SeqSettings() {
		mde := MDEPrimary(s.unitDesign(), 0.05, 0.8, true)
		for _, cd := range cands {
			scale := "units"
			if cd.InfoScale {
				scale = "information planned under A/A"
			}
			if cd.InfoAt > 0 {
				cd.InfoAt *= mde
				scale = "information planned at the MDE"
			}
			r := calibrateSeq(s, cd, runs, 0.05, 1+uint64(i), false)
			fmt.Printf("| %s | %s | %s | %.3f | %.3f | %.3f | %.3f | %+.3f | %.3f |\n", s, cd.Spending, scale, r.FalseStop,
				r.FalseStopLate, r.PowerSeq, r.PowerFixed, r.PowerFixed-r.PowerSeq, r.Saved2)
		}
	}
}
