package report

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/report/reporttest"
	"webbench/results"
)

// With an audit, the judges part gains each judge's corrected pass rates: for the run's own verdicts, the
// prediction-powered estimate — the judge's mean prediction on the unaudited attempts (pass 1, fail 0, uncertain
// 0.5) plus its mean error on the audited ones — worked out here from the verdicts, with the table's wording.
func TestJudgesPartCorrected(t *testing.T) {
	run := reporttest.JudgesRun(t, filepath.Join(t.TempDir(), "run"))
	final := run.Final()
	// Audit the first 20 attempts (all judged pass by the run's own judge): every other one truly failed.
	var labels []results.AuditLabel
	audited := map[string]bool{}
	truth := map[string]float64{}
	for i, a := range final[:20] {
		labels = append(labels, results.AuditLabel{AttemptID: a.AttemptID, Pass: i%2 == 0})
		audited[a.AttemptID] = true
		truth[a.AttemptID] = float64(1 - i%2)
	}
	if _, err := results.WriteAudit(run.Dir, labels); err != nil {
		t.Fatal(err)
	}
	js, err := analysis.AnalyzeJudges(run)
	if err != nil {
		t.Fatal(err)
	}
	if len(js.Corrected) != 2 || js.Corrected[0].Judge != results.OriginalJudge || js.Corrected[1].Judge != "llm" {
		t.Fatalf("corrected %+v, want original and llm", js.Corrected)
	}
	var fu, rect []float64
	for _, a := range final {
		f := 0.5
		switch {
		case a.Status == results.StatusPass:
			f = 1
		case a.Status == results.StatusFail:
			f = 0
		case a.ErrorClass != results.ClassUncertain:
			continue // not judged
		}
		if audited[a.AttemptID] {
			rect = append(rect, truth[a.AttemptID]-f)
		} else {
			fu = append(fu, f)
		}
	}
	sum := func(x []float64) (s float64) {
		for _, v := range x {
			s += v
		}
		return s
	}
	// The audit is no random sample (the first 20, all judged pass): the estimate leaves [0, 1] and is clipped.
	want := math.Max(0, sum(fu)/float64(len(fu))+sum(rect)/float64(len(rect)))
	o := js.Corrected[0]
	if len(o.Arms) != 1 || o.Audit != 20 || o.Arms[0].Audited != 20 || o.Arms[0].Attempts != len(fu)+len(rect) ||
		math.Abs(o.Arms[0].Rate.Est-want) > 1e-12 || !(o.Arms[0].Rate.Lo <= want && want < o.Arms[0].Rate.Hi) {
		t.Errorf("original corrected %+v, want est %g over %d attempts", o, want, len(fu)+len(rect))
	}
	if mfu := sum(fu) / float64(len(fu)); sum(rect) != -10 || o.Arms[0].Rate.Est >= mfu {
		t.Errorf("an audit finding 10 false passes must lower the rate below the judge's %g (rectifier sum %g): %+v", mfu, sum(rect), o.Arms[0])
	}
	p := NewJudgesPart(run.Dir, js)
	var tb *results.Table
	for i := range p.Tables {
		if strings.HasPrefix(p.Tables[i].Title, "pass rates of the original verdicts corrected for judge error by the audit (audit.jsonl, 20 trusted verdicts;") {
			tb = &p.Tables[i]
		}
	}
	if tb == nil {
		t.Fatalf("no corrected table in %+v", p.Tables)
	}
	a := o.Arms[0]
	row := []string{a.Variant, "58", "20", "49.1%", fmt.Sprintf("%.1f%% [%.1f, %.1f]", 100*a.Rate.Est, 100*a.Rate.Lo, 100*a.Rate.Hi), ""}
	if got := tb.Rows[0]; !slices.Equal(got, row) {
		t.Errorf("row %q, want %q", got, row)
	}
}
