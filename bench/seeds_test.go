package bench

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"

	"webbench/analysis"
)

// seedsEnv sets the number of base seeds TestDemoAndGateHoldForSeeds simulates (default 300, about 5 s of CPU;
// docs/ZOO.md's figures are at 1,000) and adds the shares with no baseline failure to its log.
const seedsEnv = "WEBBENCH_TEST_SEEDS"

// The demo (`make demo`'s verdicts.yaml) shows each of the five large-effect guards worse than the baseline
// (p_holm < 0.05), and the PR workflow's gate (pr-ablation.yml's selection, REPS and MARGIN) fails each one's
// removal, at ≥ 0.95 of base seeds 1..300 (WEBBENCH_TEST_SEEDS: 1..N) under ObservedSeedModel, through the real
// analysis (analysis.SeedRobustness; docs/ZOO.md "Seed robustness").
func TestDemoAndGateHoldForSeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 300 seeds of the demo and the PR gate (about 5 s of CPU)")
	}
	n := 300
	s := os.Getenv(seedsEnv)
	if s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number", seedsEnv, s)
		}
	}
	m, err := ObservedSeedModel()
	if err != nil {
		t.Fatal(err)
	}
	demo, err := SpecSeedDesign("../suites/zoo/ablations/verdicts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gate, margin, err := GateSeedDesign("../.github/workflows/pr-ablation.yml", LargeEffectGuards)
	if err != nil {
		t.Fatal(err)
	}
	quiet := m
	quiet.BaseFail = 0
	for _, c := range []struct {
		what   string
		d      analysis.SeedDesign
		margin float64
	}{{"demo worse", demo, 0}, {"gate fails", gate, margin}} {
		f := analysis.SeedRobustness(c.d, m, n, c.margin, 0.05)
		var q analysis.SeedFigures
		if s != "" {
			q = analysis.SeedRobustness(c.d, quiet, n, c.margin, 0.05)
		}
		for i, a := range c.d.Arms {
			also := ""
			if q.Held != nil {
				also = fmt.Sprintf(" (%.3f with no baseline failure)", q.Held[i])
			}
			t.Logf("%s: %-22s %3d tasks: at %.3f of %d seeds%s; not at %v", c.what, a.Name, len(a.Tasks), f.Held[i],
				n, also, f.Lost[i])
			if slices.ContainsFunc(a.Guards, func(g string) bool { return slices.Contains(LargeEffectGuards, g) }) &&
				f.Held[i] < 0.95 {
				t.Errorf("%s: %s at %.3f of seeds, want ≥ 0.95", c.what, a.Name, f.Held[i])
			}
		}
	}
}
