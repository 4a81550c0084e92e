package json

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/report"
)

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
	if failed, _ := a.Gate(0); failed {
		t.Error("gate failed on empty arms")
	}
	m := mustJSON(t, a)
	if w := jsonWarningText(m, analysis.WarnEmptyArm); !strings.Contains(w, "ghost vs base: No records, so nothing to compare.") {
		t.Errorf("empty-arm warning: %q", w)
	}
	if w := jsonWarningText(m, analysis.WarnInfraErrors); !strings.Contains(w, "broken 2/2 (100%)") ||
		!strings.Contains(w, "2 pairs with an infra error on either side were dropped") {
		t.Errorf("infra warning: %q", w)
	}
	var sb strings.Builder
	if err := report.TerminalReport(&sb, a); err != nil {
		t.Fatal(err)
	}

	a = analysis.Analyze(nil, analysis.Inputs{Baseline: "base", Variants: []string{"v"}})
	if w := a.Warning(analysis.WarnNoBaseline); w == nil {
		t.Errorf("no no_baseline warning: %+v", a.Warnings)
	}
	mustJSON(t, a)
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
	if a.Warning(analysis.WarnUnderpowered) == nil {
		t.Errorf("no underpowered warning for the unpaired 2/11 vs 0/11: %+v", a.Warnings)
	}
	m := mustJSON(t, a)
	if w := jsonWarningText(m, analysis.WarnUnpaired); !strings.Contains(w, "on 11 vs 11 attempts") {
		t.Errorf("unpaired warning: %q", w)
	}
	v := m["variants"].([]any)[0].(map[string]any)
	if v["p_paired"] != nil || v["p_mcnemar"] != nil || v["p_perm"] != nil || v["method"] != "fisher" {
		t.Errorf("unpaired JSON: p_paired %v p_mcnemar %v p_perm %v method %v", v["p_paired"], v["p_mcnemar"], v["p_perm"], v["method"])
	}
	analysistest.Approx(t, "json p_fisher", v["p_fisher"].(float64), 0.476, 5e-4)
}

// jsonWarningText is the text of the first warning of kind in the JSON document m, "" when none.
func jsonWarningText(m map[string]any, kind analysis.WarningKind) string {
	for _, w := range m["warnings"].([]any) {
		if w := w.(map[string]any); w["kind"] == string(kind) {
			return w["text"].(string)
		}
	}
	return ""
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
		"power_at_tasks_for", "exact_fisher_unpaired", "p_zero", "min_runs_zero", "may_overstate_by"} {
		if _, ok := pw[k]; !ok {
			t.Errorf("power lacks %q", k)
		}
	}
	if pw["may_overstate_by"] != nil { // tasks as the unit: calibration found no overstatement
		t.Errorf("may_overstate_by = %v on a by-task comparison, want null", pw["may_overstate_by"])
	}
	// A clustered comparison at 2 reps with a strong within-family share carries the calibrated bound.
	c := a.Variants[0].All
	c.Power.Unit, c.Power.TaskReps, c.Power.RepShare = "family", 2, 0.8
	if got := jsonComparison(&c).Power.MayOverstateBy; got == nil || *got != analysis.PowerOverstatement {
		t.Errorf("may_overstate_by = %v in the strong clustered case, want %v", got, analysis.PowerOverstatement)
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
