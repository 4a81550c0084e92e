package report_test

import (
	"encoding/json"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/report"
	reportjson "webbench/report/json"
	"webbench/stats"
)

// TestValidityFourOfForty: 4 of 40 tasks moved, all the same way: the t
// approximation said p 0.044 and failed the gate; the primary p is now the
// exact 2/2^4 = 0.125 (as the exact McNemar b = 0, c = 4), the interval
// reaches 0, and neither ablate nor compare fails the gate.
func TestValidityFourOfForty(t *testing.T) {
	recs := analysistest.FourOfForty()
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base", FailIfWorse: 0.05})
	c := a.Variants[0].All
	analysistest.Approx(t, "Δ", c.Delta, -0.1, 1e-12)
	analysistest.Approx(t, "p_paired", c.P, 0.125, 1e-12)
	analysistest.Approx(t, "p = exact McNemar 0/4", c.P, stats.McNemarExact(0, 4), 1e-12)
	if c.Paired.CIMethod != stats.CIMethodAdjusted || c.CI[1] <= 0 {
		t.Errorf("interval %v (%s): want the adjusted interval reaching 0", c.CI, c.Paired.CIMethod)
	}
	if failed, why := a.Gate(0.05); failed {
		t.Errorf("ablate gate failed on 4 of 40: %v", why)
	}
	sa, sb := report.SelfSides(recs, "base", "v")
	cmp, err := analysis.CompareRuns(sa, sb, analysis.CompareOptions{FailIfWorse: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Gate.Failed || cmp.Result().All.P != c.P {
		t.Errorf("compare gate %+v, p %v", cmp.Gate, cmp.Result().All.P)
	}
	var doc map[string]any
	var buf strings.Builder
	if err := reportjson.JSONReport(&buf, a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(buf.String()), &doc); err != nil {
		t.Fatal(err)
	}
	v := doc["variants"].([]any)[0].(map[string]any)
	if v["p_paired"].(float64) != 0.125 || v["gate_failed"] != false || v["ci_method"] != "adjusted" ||
		v["p_mcnemar_clustered"].(float64) != 0.125 {
		t.Errorf("json: p_paired %v gate_failed %v ci_method %v p_mcnemar_clustered %v", v["p_paired"], v["gate_failed"],
			v["ci_method"], v["p_mcnemar_clustered"])
	}
}
