package report

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
)

// 0/0 arms: a variant without records, one with only infra errors, and an
// empty baseline. Nothing panics, everything is JSON-encodable.
func TestAnalyzeEmptyArms(t *testing.T) {
	recs := analysistest.Cat(analysistest.RecsOf("base", "a", 0, "PF"), analysistest.RecsOf("broken", "a", 0, "II"))
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base", Variants: []string{"ghost", "broken"}})
	for _, v := range a.Variants {
		if v.All.Method != analysis.MethodNone || v.All.P != 1 || v.All.CI != [2]float64{-1, 1} {
			t.Errorf("%s: method %s P %v CI %v", v.Name, v.All.Method, v.All.P, v.All.CI)
		}
		if v.Arm.N != 0 {
			t.Errorf("%s: N = %d", v.Name, v.Arm.N)
		}
	}
	if c := a.Variants[1].All; c.DroppedPairs != 2 || c.DroppedByClass["infra"] != 2 {
		t.Errorf("dropped = %d %v", c.DroppedPairs, c.DroppedByClass)
	}
	w := a.Warning(analysis.WarnEmptyArm)
	if w == nil || !strings.Contains(w.Text, "ghost vs base: No records, so nothing to compare.") {
		t.Errorf("empty-arm warning: %+v", a.Warnings)
	}
	if w := a.Warning(analysis.WarnInfraErrors); w == nil || !strings.Contains(w.Text, "broken 2/2 (100%)") ||
		!strings.Contains(w.Text, "2 pairs with an infra error on either side were dropped") {
		t.Errorf("infra warning: %+v", w)
	}
	if failed, _ := a.Gate(0); failed {
		t.Error("gate failed on empty arms")
	}
	mustJSON(t, a)
	var sb strings.Builder
	if err := TerminalReport(&sb, a); err != nil {
		t.Fatal(err)
	}

	a = analysis.Analyze(nil, analysis.Inputs{Baseline: "base", Variants: []string{"v"}})
	if w := a.Warning(analysis.WarnNoBaseline); w == nil {
		t.Errorf("no no_baseline warning: %+v", a.Warnings)
	}
	mustJSON(t, a)
}

// Zero variance of the per-task differences: every task moved by +1.
func TestAnalyzeZeroVariance(t *testing.T) {
	a := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "FFFF"), analysistest.TasksOf("v", "PPPP")), analysis.Inputs{})
	c := a.Variants[0].All
	if c.Method != analysis.MethodPairedSignFlip || c.CI[1] != 1 || c.Delta != 1 {
		t.Fatalf("method %s Δ %v CI %v", c.Method, c.Delta, c.CI)
	}
	// Not the point [1, 1]: the adjusted interval over 4 + 2 tasks.
	analysistest.Approx(t, "CI lo", c.CI[0], 0.07026861405663576, 1e-9)
	analysistest.Approx(t, "P = 2/2^4", c.P, 0.125, 1e-12)
	if !strings.Contains(c.Paired.Note, "no spread") {
		t.Errorf("note = %q", c.Paired.Note)
	}
	var sb strings.Builder
	if err := TerminalReport(&sb, a); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), "note: v (all common): the differences have no spread") {
		t.Errorf("terminal report lacks the fallback note:\n%s", sb.String())
	}
}

func TestGate(t *testing.T) {
	// Worse by 50 points on 12 tasks (6 broke): p 2/2^6, adjusted interval
	// [−0.755, −0.102].
	worse := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "PPPPPPPPPPPP"), analysistest.TasksOf("v", "FFFFFFPPPPPP")), analysis.Inputs{})
	analysistest.Approx(t, "Delta", worse.Variants[0].All.Delta, -0.5, 1e-12)
	failed, why := worse.Gate(0.05)
	if !failed || len(why) != 1 || !strings.Contains(why[0], "variant v is worse than base: Δ = -50.0 pts [-75.5, -10.2]") {
		t.Errorf("gate 0.05: %v %q", failed, why)
	}
	// 5 of 10 tasks broke: the t approximation said p 0.015, the exact p is
	// 2/2^5 = 0.0625: not evidence, the gate passes.
	five := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "PPPPPPPPPP"), analysistest.TasksOf("v", "FFFFFPPPPP")), analysis.Inputs{})
	if failed, why := five.Gate(0.05); failed {
		t.Errorf("gate failed on 5 broken tasks (exact p 0.0625): %v", why)
	}
	if failed, _ := worse.Gate(0.6); failed {
		t.Error("gate failed although Δ = −0.5 is within a 0.6 margin")
	}
	// Worse by 20 points but the interval crosses 0: passes.
	unsure := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "PPPPPPPPPP"), analysistest.TasksOf("v", "FFPPPPPPPP")), analysis.Inputs{})
	c := unsure.Variants[0].All
	if !(c.Delta < -0.05 && c.CI[1] > 0) {
		t.Fatalf("setup: Δ %v CI %v", c.Delta, c.CI)
	}
	if failed, why := unsure.Gate(0.05); failed {
		t.Errorf("gate failed with an interval crossing 0: %v", why)
	}
	// Better: never fails.
	better := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "FFFFFPPPPP"), analysistest.TasksOf("v", "PPPPPPPPPP")), analysis.Inputs{})
	if failed, _ := better.Gate(0); failed {
		t.Error("gate failed for a better variant")
	}
	// Every task −1: p is the sign-flip p 2/2^G. With 4 tasks p = 0.125:
	// not evidence, the gate passes; with 6 tasks p = 0.03125 < 0.05: it fails.
	fourWorse := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "PPPP"), analysistest.TasksOf("v", "FFFF")), analysis.Inputs{FailIfWorse: 0.1})
	analysistest.Approx(t, "p 4 tasks", fourWorse.Variants[0].All.P, 0.125, 1e-12)
	if failed, why := fourWorse.Gate(0.1); failed {
		t.Errorf("gate failed on 4 tasks all −1 (sign-flip p 0.125): %v", why)
	}
	// Two such variants share the gate: Holm doubles the smaller p (0.0625 ≥ 0.05), so neither fails.
	twoWorse := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "PPPPPP"), analysistest.TasksOf("v", "FFFFFF"), analysistest.TasksOf("w", "FFFFFF")), analysis.Inputs{FailIfWorse: 0.1})
	analysistest.Approx(t, "p_holm of two", twoWorse.Variants[0].PHolm, 0.0625, 1e-12)
	if failed, why := twoWorse.Gate(0.1); failed {
		t.Errorf("gate failed on two variants with p 0.03125 each (Holm 0.0625): %v", why)
	}
	allWorse := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "PPPPPP"), analysistest.TasksOf("v", "FFFFFF")), analysis.Inputs{FailIfWorse: 0.1})
	analysistest.Approx(t, "p 6 tasks", allWorse.Variants[0].All.P, 0.03125, 1e-12)
	if failed, _ := allWorse.Gate(0.1); !failed {
		t.Error("gate passed with Δ = −1 on each of 6 tasks")
	}
	var sb strings.Builder
	if err := TerminalReport(&sb, allWorse); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), "FAILED. variant v is worse than base") {
		t.Errorf("terminal report lacks the gate verdict:\n%s", sb.String())
	}
}

func TestJSONFieldNames(t *testing.T) {
	recs := analysistest.Cat(analysistest.TasksOf("base", "FFFFFPPPPP"), analysistest.TasksOf("v", "PPPPPPPPPP"))
	recs[10].GuardEvents = map[string]int{"repeat_guard": 3}
	a := analysis.Analyze(recs, analysis.Inputs{FailIfWorse: 0.05, BH: true, CMH: true,
		ExtraWarnings: []string{"variant w is identical to the baseline: it can only measure noise"}})
	m := mustJSON(t, a)
	for _, k := range []string{"schema_version", "baseline", "alpha", "power", "min_effect", "attempts", "errors",
		"warnings", "variants", "arms", "gate"} {
		if _, ok := m[k]; !ok {
			t.Errorf("top level lacks %q", k)
		}
	}
	if m["schema_version"].(float64) != 1 || m["baseline"] != "base" {
		t.Errorf("schema_version %v baseline %v", m["schema_version"], m["baseline"])
	}
	v := m["variants"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "n", "passes", "rate", "wilson", "delta", "delta_ci", "p_paired", "p_perm",
		"p_mcnemar", "p_holm", "p_bh", "rescued", "broke", "mde", "mde_paired", "mde_tasks", "guard_events",
		"failure_modes", "switched", "scope", "targets", "method", "tasks", "informative_tasks", "pairs",
		"dropped_pairs", "baseline", "variant", "p", "p_fisher", "cmh", "power", "gate_failed", "note", "verdict"} {
		if _, ok := v[k]; !ok {
			t.Errorf("variant lacks %q", k)
		}
	}
	if v["name"] != "v" || v["n"].(float64) != 10 || v["passes"].(float64) != 10 || v["rescued"].(float64) != 5 ||
		v["broke"].(float64) != 0 || v["gate_failed"] != false {
		t.Errorf("variant values: %v", v)
	}
	analysistest.Approx(t, "json delta", v["delta"].(float64), 0.5, 1e-12)
	analysistest.Approx(t, "json p_mcnemar", v["p_mcnemar"].(float64), 0.0625, 1e-12)
	ci := v["delta_ci"].([]any)
	analysistest.Approx(t, "json delta_ci lo", ci[0].(float64), 0.05450520757465149, 1e-9)
	if ge := v["guard_events"].(map[string]any); ge["repeat_guard"].(float64) != 3 {
		t.Errorf("guard_events = %v", ge)
	}
	pw := v["power"].(map[string]any)
	for _, k := range []string{"n", "base_fail", "from", "to", "test", "method", "power", "tasks_for",
		"power_at_tasks_for", "exact_fisher_unpaired", "p_zero", "min_runs_zero"} {
		if _, ok := pw[k]; !ok {
			t.Errorf("power lacks %q", k)
		}
	}
	arm := m["arms"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "attempts", "n", "passes", "errors", "errors_by_class", "rate", "wilson",
		"clustered_se", "tasks", "mean_steps", "mean_tokens", "mean_wall_ms", "cost_usd", "failure_modes",
		"guard_events", "guard_fired", "guard_fired_pass", "recovered"} {
		if _, ok := arm[k]; !ok {
			t.Errorf("arm lacks %q", k)
		}
	}
	if arm["name"] != "base" || arm["failure_modes"].(map[string]any)["loop"].(float64) != 5 {
		t.Errorf("arm values: %v", arm)
	}
	ws := m["warnings"].([]any)
	first := ws[0].(map[string]any)
	if first["kind"] != "extra" || !strings.Contains(first["text"].(string), "identical to the baseline") {
		t.Errorf("first warning = %v", first)
	}
	if _, ok := first["variants"].([]any); !ok {
		t.Errorf("warning variants not an array: %v", first["variants"])
	}
	g := m["gate"].(map[string]any)
	if g["failed"] != false || g["margin"].(float64) != 0.05 {
		t.Errorf("gate = %v", g)
	}
}

// Unmatched arms (no common pair id) fall back to Fisher and Newcombe:
// Fisher 0/11 vs 2/11 failures = 0.476, Newcombe [−0.108, 0.477].
func TestAnalyzeUnpairedFallback(t *testing.T) {
	recs := analysistest.Cat(analysistest.RecsOf("base", "a", 0, "PPFPPPPFPPP"), analysistest.RecsOf("v", "a", 100, "PPPPPPPPPPP"))
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base"})
	c := a.Variants[0].All
	if c.Matched || c.Method != analysis.MethodFisher || c.Pairs != 0 {
		t.Fatalf("matched %v method %s pairs %d", c.Matched, c.Method, c.Pairs)
	}
	analysistest.Approx(t, "Fisher", c.PFisher, 0.476, 5e-4)
	analysistest.Approx(t, "P", c.P, c.PFisher, 0)
	analysistest.Approx(t, "Delta", c.Delta, 2.0/11, 1e-12)
	analysistest.Approx(t, "Newcombe lo", c.CI[0], -0.108, 5e-4)
	analysistest.Approx(t, "Newcombe hi", c.CI[1], 0.477, 5e-4)
	if !math.IsNaN(c.PMcNemar) {
		t.Errorf("McNemar computed without pairs: %v", c.PMcNemar)
	}
	if w := a.Warning(analysis.WarnUnpaired); w == nil || !strings.Contains(w.Text, "on 11 vs 11 attempts") {
		t.Errorf("unpaired warning: %+v", w)
	}
	if a.Warning(analysis.WarnUnderpowered) == nil {
		t.Errorf("no underpowered warning for the unpaired 2/11 vs 0/11: %+v", a.Warnings)
	}
	m := mustJSON(t, a)
	v := m["variants"].([]any)[0].(map[string]any)
	if v["p_paired"] != nil || v["p_mcnemar"] != nil || v["p_perm"] != nil || v["method"] != "fisher" {
		t.Errorf("unpaired JSON: p_paired %v p_mcnemar %v p_perm %v method %v", v["p_paired"], v["p_mcnemar"], v["p_perm"], v["method"])
	}
	analysistest.Approx(t, "json p_fisher", v["p_fisher"].(float64), 0.476, 5e-4)
}

func mustJSON(t *testing.T, a *analysis.Analysis) map[string]any {
	t.Helper()
	var b strings.Builder
	if err := JSONReport(&b, a); err != nil {
		t.Fatalf("JSONReport: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(b.String()), &m); err != nil {
		t.Fatalf("JSON does not parse: %v\n%s", err, b.String())
	}
	return m
}
