package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/report"
	"webbench/report/html"
	"webbench/report/table"
)

// TestRenderersRenderEveryReport: every registered format renders a run, an ablation and a comparison of two
// runs; the comparison shows the same Δ in each.
func TestRenderersRenderEveryReport(t *testing.T) {
	recs := analysistest.Cat(analysistest.TasksOf("base", "PPPPPPPPPPPP"), analysistest.TasksOf("v", "FFFFFFFPPPPP"))
	an := analysis.Analyze(recs, analysis.Inputs{Baseline: "base"})
	a, b := report.SelfSides(recs, "base", "v")
	cmp, err := analysis.CompareRuns(a, b, analysis.CompareOptions{FailIfWorse: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"table", "md", "markdown", "json", "html"} {
		r, err := report.LookupRenderer(strings.ToUpper(f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		dir := t.TempDir()
		var run, abl, c bytes.Buffer
		if err := r.Run(&run, &report.RunReport{Dir: dir, Arms: analysis.Summarize(recs)}); err != nil {
			t.Errorf("%s run: %v", f, err)
		}
		if f == "html" {
			if page, err := os.ReadFile(filepath.Join(dir, html.HTMLReportFile)); err != nil || !strings.Contains(string(page), "5/12 = 41.7%") {
				t.Errorf("html run report: %v", err)
			}
		} else if !strings.Contains(run.String(), "5/12 = 41.7%") && !strings.Contains(run.String(), `"passes": 5`) {
			t.Errorf("%s run report lacks the pass rate:\n%s", f, run.String())
		}
		if err := r.Ablation(&abl, &report.AblationReport{Dir: dir, Analysis: an, Records: recs}); err != nil || abl.Len() == 0 {
			t.Errorf("%s ablation: %v (%d bytes)", f, err, abl.Len())
		}
		if err := r.Compare(&c, cmp); err != nil {
			t.Errorf("%s compare: %v", f, err)
		}
		if f == "json" {
			var doc map[string]any
			if err := json.Unmarshal(c.Bytes(), &doc); err != nil || doc["method"] != "paired_signflip" || doc["gate"] == nil {
				t.Errorf("json compare: %v %v", err, doc)
			}
			analysistest.Approx(t, "json compare delta", doc["delta"].(float64), -7.0/12, 1e-12)
		} else if s := c.String(); !strings.Contains(s, "-58.3 [") || !strings.Contains(s, "Gate --fail-if-worse 0.050: FAILED.") {
			t.Errorf("%s compare lacks Δ or the gate:\n%s", f, s)
		}
	}
	if _, err := report.LookupRenderer("xml"); err == nil || !strings.Contains(err.Error(), "html, json, junit, markdown, md, table") {
		t.Errorf("unknown format: %v", err)
	}
	if r, err := report.LookupRenderer(""); err != nil || !reflect.DeepEqual(r, table.TableRenderer{}) {
		t.Errorf(`format "": %v, %T`, err, r)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering table twice did not panic")
		}
	}()
	report.RegisterRenderer("table", table.TableRenderer{})
}
