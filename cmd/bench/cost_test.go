package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"webbench/analysis/analysistest"
	"webbench/results"
)

// writeCostRun writes an ablation run directory of analysistest.CostRun (arms "base" and "v", every attempt
// passed, the variant's costs multiplied by ratio) with the cost gate gate recorded (nil: none).
func writeCostRun(t *testing.T, g, reps int, ratio float64, seed uint64, gate map[results.CostOutcome]float64) string {
	t.Helper()
	return writeCostRunModel(t, g, reps, ratio, seed, gate, results.Model{Kind: "scripted", Profile: "clean"})
}

// writeCostRunModel is writeCostRun with both arms recorded as running model m.
func writeCostRunModel(t *testing.T, g, reps int, ratio float64, seed uint64, gate map[results.CostOutcome]float64,
	m results.Model) string {
	t.Helper()
	dir := t.TempDir()
	recs := analysistest.CostRun(g, reps, ratio, seed)
	man := &results.Manifest{SchemaVersion: results.SchemaVersion, RunID: filepath.Base(dir), Plan: results.Plan{
		Suite: "synthetic", Reps: reps, Baseline: "base", Variants: []results.Variant{{Name: "base", Model: m}, {Name: "v", Model: m}},
		Attempts: len(recs), Ablation: &results.Ablation{Spec: "cost.yaml", Alpha: 0.05, Power: 0.8, MinEffect: 0.1,
			FailIfCostlier: gate}}}
	if err := results.WriteManifest(dir, man); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, results.AttemptsFile), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A known token increase through the CLI: bench report shows it, its recorded cost gate fails it under --gate
// (exit 1), --fail-if-costlier replaces the recorded gate, an A/A run passes, bench compare gates the same way,
// and bench power plans from the run.
func TestCostGateCLI(t *testing.T) {
	gate := map[results.CostOutcome]float64{results.CostTokens: 0.2}
	costly := writeCostRun(t, 14, 2, 2.5, 7, gate)
	out, stderr, code := bench(t, "report", costly, "--gate")
	if code != exitGate || !strings.Contains(out, "Cost gate (fail if costlier than tokens +20%") ||
		!strings.Contains(stderr, "--fail-if-costlier tokens +20%: a variant is costlier than the baseline") ||
		!strings.Contains(out, "Cost vs the baseline on the same pairs") {
		t.Errorf("costly run, --gate: exit %d\n%s\n%s", code, out, stderr)
	}
	if out, stderr, code := bench(t, "report", costly, "--gate", "--fail-if-costlier", "tokens=2"); code != 0 ||
		!strings.Contains(unwrap(out), "passed: no variant is shown costlier") {
		t.Errorf("margin +200%%: exit %d, %s", code, stderr)
	}
	if _, stderr, code := bench(t, "report", costly, "--fail-if-costlier", "money=1"); code != exitUsage ||
		!strings.Contains(stderr, `unknown cost outcome "money"`) {
		t.Errorf("bad outcome: exit %d, %s", code, stderr)
	}
	aa := writeCostRun(t, 14, 2, 1, 8, gate)
	if _, stderr, code := bench(t, "report", aa, "--gate"); code != 0 {
		t.Errorf("A/A run, --gate: exit %d, %s", code, stderr)
	}
	var doc struct {
		Variants []struct {
			Costs []struct {
				Outcome, View string
				Ratio         *float64
				GateFailed    *bool `json:"gate_failed"`
			}
		}
		CostGate *struct{ Failed bool } `json:"cost_gate"`
	}
	js, _, _ := bench(t, "report", costly, "--format", "json")
	if err := json.Unmarshal([]byte(js), &doc); err != nil || doc.CostGate == nil || !doc.CostGate.Failed ||
		doc.Variants[0].Costs[1].Outcome != "tokens" || *doc.Variants[0].Costs[1].GateFailed != true {
		t.Errorf("json: %v %+v", err, doc)
	}
	if _, _, code := bench(t, "compare", costly, costly, "--variant", "base", "--variant-b", "v",
		"--fail-if-costlier", "tokens=0.2"); code != exitGate {
		t.Errorf("compare base → v with a cost gate: exit %d, want 1", code)
	}
	plan, stderr, code := bench(t, "power", "--from", costly, "--outcome", "tokens", "--effect", "0.5")
	if code != 0 || !strings.Contains(plan, "Cost outcome tokens") || !strings.Contains(plan, "variant v against base: 14 units") {
		t.Errorf("power: exit %d\n%s\n%s", code, plan, stderr)
	}
}

// bench ablate takes --fail-if-costlier (refusing an unknown outcome before running anything).
func TestAblateFailIfCostlierFlag(t *testing.T) {
	if _, stderr, code := bench(t, "ablate", "suites/zoo/ablations/demo.yaml", "--dry-run", "--fail-if-costlier",
		"money=0.2"); code != exitUsage || !strings.Contains(stderr, `--fail-if-costlier: unknown cost outcome "money"`) {
		t.Errorf("unknown outcome: exit %d, %s", code, stderr)
	}
	if _, stderr, code := bench(t, "ablate", "suites/zoo/ablations/demo.yaml", "--dry-run", "--fail-if-costlier",
		"tokens=0.2,wall=0.5"); code != 0 {
		t.Errorf("valid gate, dry run: exit %d, %s", code, stderr)
	}
}

// A cost gate on usd needs prices, as --max-cost does: refused when no compared arm's model has any (every
// cost_usd is $0, so the gate could never fail), accepted when they do.
func TestCostGateUSDNeedsPrices(t *testing.T) {
	const want = "--fail-if-costlier usd needs the model's prices"
	if _, stderr, code := bench(t, "ablate", "suites/zoo/ablations/demo.yaml", "--dry-run", "--fail-if-costlier",
		"usd=0.2"); code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("ablate, scripted arms: exit %d, %s", code, stderr)
	}
	free := writeCostRun(t, 8, 1, 2, 3, nil)
	if _, stderr, code := bench(t, "report", free, "--fail-if-costlier", "usd=0.2"); code != exitUsage ||
		!strings.Contains(stderr, want) {
		t.Errorf("report, unpriced run: exit %d, %s", code, stderr)
	}
	if _, stderr, code := bench(t, "compare", free, free, "--variant", "base", "--variant-b", "v",
		"--fail-if-costlier", "usd=0.2"); code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("compare, unpriced runs: exit %d, %s", code, stderr)
	}
	recorded := writeCostRun(t, 8, 1, 2, 3, map[results.CostOutcome]float64{results.CostUSD: 0.2})
	if _, stderr, code := bench(t, "report", recorded, "--gate"); code != exitUsage ||
		!strings.Contains(stderr, "fail_if_costlier usd needs the model's prices") {
		t.Errorf("report --gate, recorded usd gate, unpriced run: exit %d, %s", code, stderr)
	}
	priced := writeCostRunModel(t, 8, 1, 2, 3, nil, results.Model{Kind: "openai", Name: "m", PriceIn: 1, PriceOut: 2})
	if _, stderr, code := bench(t, "report", priced, "--fail-if-costlier", "usd=0.2"); code != 0 {
		t.Errorf("report, priced run: exit %d, %s", code, stderr)
	}
	if _, stderr, code := bench(t, "compare", priced, priced, "--variant", "base", "--variant-b", "v",
		"--fail-if-costlier", "usd=0.2"); code == exitUsage {
		t.Errorf("compare, priced runs: exit %d, %s", code, stderr)
	}
}

// Each gate's line is said once, within the width: bench report --gate prints the gates' lines in the report
// (stdout), not again on stderr; with --format html (the report goes to a file) they go to stderr, wrapped.
func TestGateLinesOnce(t *testing.T) {
	costly := writeCostRun(t, 14, 2, 2.5, 7, map[results.CostOutcome]float64{results.CostTokens: 0.2})
	setManifest(t, costly, func(m *results.Manifest) { m.Plan.Ablation.FailIfWorse = 0.05 })
	env := []string{"COLUMNS=90"}
	out, stderr, code := benchEnv(t, env, "report", costly, "--gate")
	all := out + stderr
	for _, head := range []string{"Cost gate (fail if costlier", "Gate (fail if worse"} {
		if n := strings.Count(all, head); n != 1 || code != exitGate {
			t.Errorf("report --gate: %q %d times (exit %d), want once:\n%s\n%s", head, n, code, out, stderr)
		}
	}
	checkWidth(t, "report --gate", all, 90)
	_, stderr, _ = benchEnv(t, env, "report", costly, "--gate", "--format", "html")
	if !strings.Contains(stderr, "Cost gate (fail if costlier") || !strings.Contains(stderr, "Gate (fail if worse") {
		t.Errorf("report --gate --format html: the gates' lines are not on stderr:\n%s", stderr)
	}
	checkWidth(t, "report --gate --format html, stderr", strings.TrimSpace(stderr[:strings.LastIndex(stderr, "bench:")]), 90)
	cmp, stderr, _ := benchEnv(t, env, "compare", costly, costly, "--variant", "base", "--variant-b", "v",
		"--fail-if-costlier", "tokens=0.2", "--wide")
	if n := strings.Count(cmp+stderr, "Cost gate (fail if costlier"); n != 1 {
		t.Errorf("compare --wide: the cost gate's line %d times, want once:\n%s", n, cmp)
	}
	i := strings.Index(cmp, "Cost gate (")
	checkWidth(t, "compare --wide, the cost gate's line", cmp[i:], 90)
}

// checkWidth fails when a line of s is longer than width runes, table lines (box drawing) aside.
func checkWidth(t *testing.T, what, s string, width int) {
	t.Helper()
	for _, l := range strings.Split(s, "\n") {
		if n := len([]rune(l)); n > width && !strings.ContainsAny(l, "│┌└├") {
			t.Errorf("%s: a line of %d runes (> %d): %q", what, n, width, l)
		}
	}
}

// unwrap is s with each run of white space one space: a wrapped report's sentences whole again.
func unwrap(s string) string { return strings.Join(strings.Fields(s), " ") }

// bench compare words its cost section by its sides (run B against run A, one comparison), not by variants, and
// the cost gate's help says what --gate applies.
func TestCompareCostWording(t *testing.T) {
	costly := writeCostRun(t, 8, 1, 1, 3, nil)
	out, stderr, _ := benchEnv(t, []string{"COLUMNS=200"}, "compare", costly, costly, "--variant", "base",
		"--variant-b", "v", "--fail-if-costlier", "tokens=5")
	i := strings.Index(out, "Cost of run B vs run A on the same pairs")
	if i < 0 || !strings.Contains(out, "Cost gate (fail if costlier than tokens +500%") ||
		!strings.Contains(out, "passed: run B is not shown costlier than it allows.") {
		t.Fatalf("compare's cost section:\n%s\n%s", out, stderr)
	}
	if tail := out[i:]; strings.Contains(tail, "variant") {
		t.Errorf("compare's cost section speaks of variants:\n%s", tail)
	}
	help, _, _ := bench(t, "compare", "--help")
	for _, l := range strings.Split(help, "\n") {
		if strings.Contains(l, "--fail-if-costlier") && strings.Count(l, "exit 1 when") != 1 {
			t.Errorf("compare --help, --fail-if-costlier: %q", l)
		}
	}
	help, _, _ = bench(t, "report", "--help")
	if h := unwrap(help); !strings.Contains(h, "those of bench ablate with the fail_if_worse and fail_if_costlier the run recorded") ||
		!strings.Contains(h, "exit 1 when an ablation's recorded fail_if_worse or fail_if_costlier gate fails") {
		t.Errorf("report --help does not say --gate applies fail_if_costlier:\n%s", help)
	}
}

// bench power --outcome names a --variant the run does not have (listing those it has) and refuses its baseline;
// without --variant it takes the run's first variant; the plan says its α is one comparison's and, with several
// variants, which --alpha the Holm-adjusted verdict needs.
func TestPowerOutcomeVariant(t *testing.T) {
	run := writeCostRun(t, 8, 1, 2, 3, nil)
	if _, stderr, code := bench(t, "power", "--from", run, "--outcome", "tokens", "--variant", "bogus"); code != exitUsage ||
		!strings.Contains(stderr, "--variant bogus: "+run+" has no such arm; its variants: v (baseline base)") {
		t.Errorf("unknown variant: exit %d, %s", code, stderr)
	}
	if _, stderr, code := bench(t, "power", "--from", run, "--outcome", "tokens", "--variant", "base"); code != exitUsage ||
		!strings.Contains(stderr, "--variant base: that is the run's baseline") || !strings.Contains(stderr, "give one of its variants: v") {
		t.Errorf("the baseline as the variant: exit %d, %s", code, stderr)
	}
	out, stderr, code := bench(t, "power", "--from", run, "--outcome", "tokens")
	if code != 0 || !strings.Contains(out, "variant v against base: 8 units") ||
		!strings.Contains(out, "The run has one variant, so its verdict's p_holm is its p") {
		t.Errorf("default variant: exit %d\n%s\n%s", code, out, stderr)
	}
	help, _, _ := bench(t, "power", "--help")
	if !strings.Contains(unwrap(help), "with --outcome: the variant whose cost to compare with the run's baseline (default: the run's first variant") {
		t.Errorf("power --help does not say --variant's default with --outcome:\n%s", help)
	}
}
