package report

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/report/reporttest"
)

// judgesFixture is the run report of reporttest.JudgesRun: its one variant and its judges part.
func judgesFixture(t *testing.T) *RunReport {
	t.Helper()
	run := reporttest.JudgesRun(t, filepath.Join(t.TempDir(), "run"))
	js, err := analysis.AnalyzeJudges(run)
	if err != nil {
		t.Fatal(err)
	}
	arms := analysis.Summarize(run.Final())
	return &RunReport{Dir: run.Dir, Arms: arms, Records: run.Final(), Run: run, Judges: js, Bounds: analysis.UncertainBounds(arms)}
}

// The judges part: the verdicts by judge, the agreement and the Zoo Q&A ground truth as tables, then the ids of
// the ground truth's disagreements, in the words and numbers worked out by hand in reporttest.
func TestJudgesPart(t *testing.T) {
	r := judgesFixture(t)
	p := NewJudgesPart(r.Dir, r.Judges)
	if len(p.Tables) != 3 {
		t.Fatalf("%d tables, want 3: %+v", len(p.Tables), p.Tables)
	}
	want, rows := reporttest.JudgesWant, reporttest.JudgesWantRows
	for i, tb := range p.Tables {
		if tb.Title != want[i] {
			t.Errorf("table %d title\n got %q\nwant %q", i, tb.Title, want[i])
		}
		if !slices.EqualFunc(tb.Rows, rows[2*i:2*i+2], slices.Equal) {
			t.Errorf("table %d rows %q, want %q", i, tb.Rows, rows[2*i:2*i+2])
		}
	}
	if !slices.Equal(p.Notes, want[3:]) {
		t.Errorf("notes %q, want %q", p.Notes, want[3:])
	}

	// The md and table formats print them in that order after the variants table, whose pass rate carries the
	// uncertain attempt's bounds.
	var md, tb strings.Builder
	if err := RunWithJudges(&md, true, RenderOptions{Wide: true}, r); err != nil {
		t.Fatal(err)
	}
	mdWant := []string{"(57 decided of 58: 48.3–50.0%) |"}
	for i, w := range want {
		if i < 3 {
			mdWant = append(mdWant, "**"+w+"**", "| "+strings.Join(rows[2*i], " | ")+" |", "| "+strings.Join(rows[2*i+1], " | ")+" |")
		} else {
			mdWant = append(mdWant, w)
		}
	}
	reporttest.InOrder(t, "md", md.String(), mdWant)
	if err := RunWithJudges(&tb, false, RenderOptions{Wide: true}, r); err != nil {
		t.Fatal(err)
	}
	reporttest.InOrder(t, "table", tb.String(), append([]string{"(57 decided of 58: 48.3–50.0%) │"}, want...))

	// One judge and no Zoo Q&A attempt: nothing to show.
	one := &analysis.Judges{Judges: r.Judges.Judges[:1], Agreement: []analysis.JudgeAgreement{}}
	if p := NewJudgesPart(r.Dir, one); !p.Empty() {
		t.Errorf("one judge: %+v, want an empty part", p)
	}
}

// NewAblationReport is the one document of an ablation run, `bench ablate`'s end and `bench report` alike: with the
// run it fills every part of AblationReport (a part added to the struct and not to the constructor fails here),
// its judges part being analysis.AblationJudges'; with no run, no judges part.
func TestNewAblationReport(t *testing.T) {
	run := reporttest.JudgesRun(t, filepath.Join(t.TempDir(), "run"))
	recs := run.Final()
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: recs[0].Variant})
	rep, err := NewAblationReport(run.Dir, run, a, recs)
	if err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(*rep)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("NewAblationReport leaves %s unset", v.Type().Field(i).Name)
		}
	}
	want, err := analysis.AblationJudges(run)
	if err != nil || want == nil {
		t.Fatalf("AblationJudges: %v, %v", want, err)
	}
	if !reflect.DeepEqual(rep.Judges, want) {
		t.Errorf("judges part %+v, want %+v", rep.Judges, want)
	}
	if rep.Dir != run.Dir || rep.Run != run || rep.Analysis != a || len(rep.Records) != len(recs) {
		t.Errorf("report %+v, want the run, analysis and records given", rep)
	}
	bare, err := NewAblationReport("d", nil, a, recs)
	if err != nil || bare.Judges != nil || bare.Run != nil || bare.Dir != "d" {
		t.Errorf("no run: %+v, %v; want no judges part", bare, err)
	}
}
