package report_test

import (
	"bytes"
	"encoding/json"
	stdhtml "html"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/report"
	"webbench/report/html"
	"webbench/report/table"
)

// TestRenderersRenderEveryReport: every registered format renders a run, an ablation and a comparison of two
// runs; the comparison shows the same Δ in each, and the ablation and the comparison say the same warnings and
// gate line in each (a format added without them fails here).
func TestRenderersRenderEveryReport(t *testing.T) {
	// 8 tasks (fewer than 10) and an infrastructure error: warnings in the ablation and the comparison.
	recs := analysistest.Cat(analysistest.TasksOf("base", "PPPPPPPP"), analysistest.TasksOf("v", "FFFFFFPI"))
	an := analysis.Analyze(recs, analysis.Inputs{Baseline: "base", FailIfWorse: 0.05})
	a, b := report.SelfSides(recs, "base", "v")
	cmp, err := analysis.CompareRuns(a, b, analysis.CompareOptions{FailIfWorse: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	var ablSays, cmpSays []string // the sentences every format prints of the ablation, of the comparison
	for _, w := range report.AnalysisWarnings(an) {
		ablSays = append(ablSays, w.Text)
	}
	cmpSays = append(report.CompareWarnings(cmp), report.CompareGateLine(cmp))
	if len(ablSays) == 0 || len(cmpSays) < 2 {
		t.Fatalf("the fixture has no warnings: %q, %q", ablSays, cmpSays)
	}
	ablGate := report.GateLine(an)
	formats := report.Formats()
	if !slices.Contains(formats, "junit") || !slices.Contains(formats, "html") {
		t.Fatalf("formats %q", formats)
	}
	for _, f := range formats {
		r, err := report.LookupRenderer(strings.ToUpper(f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		dir := t.TempDir()
		var run, abl, c bytes.Buffer
		if err := r.Run(&run, &report.RunReport{Dir: dir, Arms: analysis.Summarize(recs), Records: recs}); err != nil {
			t.Errorf("%s run: %v", f, err)
		}
		if f == "html" {
			if page, err := os.ReadFile(filepath.Join(dir, html.HTMLReportFile)); err != nil || !strings.Contains(string(page), "1/7 = 14.3%") {
				t.Errorf("html run report: %v", err)
			}
		} else if s := run.String(); !strings.Contains(s, "1/7 = 14.3%") && !strings.Contains(s, `"passes": 1,`) &&
			!strings.Contains(s, `"pass_rate_variant" value="0.14285714285714285"`) {
			t.Errorf("%s run report lacks the pass rate:\n%s", f, s)
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
			analysistest.Approx(t, "json compare delta", doc["delta"].(float64), -6.0/7, 1e-12)
			jsonSays(t, abl.Bytes(), c.Bytes(), ablSays, cmpSays, an)
			continue
		}
		ablText := abl.String()
		if f == "html" {
			page, err := os.ReadFile(filepath.Join(dir, html.HTMLReportFile))
			if err != nil {
				t.Fatal(err)
			}
			ablText = string(page)
		}
		// html and junit escape their text, table wraps its prose: the sentences are compared as read, their
		// white space folded.
		ablText, cmpText := fold(stdhtml.UnescapeString(ablText)), fold(stdhtml.UnescapeString(c.String()))
		if !strings.Contains(cmpText, "-85.7 [") && !strings.Contains(cmpText, "-85.7 pts [") {
			t.Errorf("%s compare lacks Δ:\n%s", f, cmpText)
		}
		for _, say := range append(ablSays, ablGate) {
			if !strings.Contains(ablText, fold(say)) {
				t.Errorf("%s ablation lacks %q", f, say)
			}
		}
		for _, say := range cmpSays {
			if !strings.Contains(cmpText, fold(say)) {
				t.Errorf("%s compare lacks %q", f, say)
			}
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

// jsonSays checks that the JSON ablation abl and comparison cmp carry the warnings' sentences (warnings[].text,
// warnings[]) and the gates' decisions (gate.failed and gate.why) of the other formats.
func jsonSays(t *testing.T, abl, cmp []byte, ablSays, cmpSays []string, an *analysis.Analysis) {
	t.Helper()
	var a struct {
		Warnings []struct{ Text string }
		Gate     *struct {
			Failed bool
			Why    []string
		}
	}
	if err := json.Unmarshal(abl, &a); err != nil || a.Gate == nil {
		t.Fatalf("json ablation: %v, gate %v", err, a.Gate)
	}
	var texts []string
	for _, w := range a.Warnings {
		texts = append(texts, w.Text)
	}
	failed, why := an.Gate(an.FailIfWorse)
	if !slices.Equal(texts, ablSays) || a.Gate.Failed != failed || !slices.Equal(a.Gate.Why, report.GateReasonTexts(why)) {
		t.Errorf("json ablation: warnings %q, gate %+v; want %q, %v %q", texts, a.Gate, ablSays, failed, report.GateReasonTexts(why))
	}
	var c struct {
		Warnings []string
		Gate     *struct{ Why string }
	}
	if err := json.Unmarshal(cmp, &c); err != nil || c.Gate == nil {
		t.Fatalf("json compare: %v, gate %v", err, c.Gate)
	}
	n := len(cmpSays) - 1 // the last is the gate line, whose reason is gate.why
	if !slices.Equal(c.Warnings, cmpSays[:n]) || !strings.HasSuffix(cmpSays[n], c.Gate.Why) {
		t.Errorf("json compare: warnings %q, gate %+v; want %q", c.Warnings, c.Gate, cmpSays)
	}
}

// fold replaces each run of white space in s by one space.
func fold(s string) string { return strings.Join(strings.Fields(s), " ") }
