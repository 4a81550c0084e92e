package junit

import (
	"bytes"
	"encoding/xml"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/report"
	"webbench/report/reporttest"
)

// junitSchema writes the Apache Ant JUnit schema (Windy Road JUnit.xsd,
// Apache-2.0, github.com/windyroad/JUnit-Schema) to a temporary file and
// returns its path. The schema is not committed: `make setup` installs the
// npm package junit-xml@1.2.0 into .cache/junit-xml, whose
// src/index.test.ts carries it verbatim as the single-quoted JS string
// antJunitSchema. It also checks that xmllint is on PATH.
func junitSchema(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("xmllint"); err != nil {
		t.Fatalf("xmllint not found (Debian package libxml2-utils): run make setup")
	}
	dir, _ := os.Getwd()
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			t.Fatal("repository root (go.mod) not found")
		}
	}
	src, err := os.ReadFile(filepath.Join(dir, ".cache/junit-xml/node_modules/junit-xml/src/index.test.ts"))
	if err != nil {
		t.Fatalf("the JUnit schema is missing (%v): run make setup", err)
	}
	const open = "const antJunitSchema = '"
	s := string(src)
	i := strings.Index(s, open)
	if i < 0 {
		t.Fatal("antJunitSchema not found in junit-xml's index.test.ts")
	}
	s = s[i+len(open):]
	j := strings.Index(s, "';")
	if j < 0 {
		t.Fatal("end of antJunitSchema not found")
	}
	xsd := strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(s[:j])
	if !strings.Contains(xsd, "Windy Road") || !strings.Contains(xsd, `name="testsuites"`) {
		t.Fatal("antJunitSchema is not the Ant JUnit schema")
	}
	path := filepath.Join(t.TempDir(), "JUnit.xsd")
	if err := os.WriteFile(path, []byte(xsd), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// xmllintValid runs `xmllint --noout --schema schema` on doc and returns its
// error and output.
func xmllintValid(t *testing.T, schema string, doc []byte) (string, error) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(f, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("xmllint", "--noout", "--schema", schema, f).CombinedOutput()
	return string(out), err
}

func parseJUnit(t *testing.T, doc []byte) junitSuites {
	t.Helper()
	var s junitSuites
	if err := xml.Unmarshal(doc, &s); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	return s
}

// renderValid renders a document with f (named name in messages), fails unless it validates against the schema
// (xmllintValid) with its line breaks written as they are, and parses it.
func renderValid(t *testing.T, schema, name string, f func(w *bytes.Buffer) error) junitSuites {
	t.Helper()
	var buf bytes.Buffer
	if err := f(&buf); err != nil {
		t.Fatal(err)
	}
	if out, err := xmllintValid(t, schema, buf.Bytes()); err != nil {
		t.Fatalf("%s: invalid: %v\n%s\n%s", name, err, out, buf.Bytes())
	}
	if bytes.Contains(buf.Bytes(), []byte("&#xA;")) {
		t.Errorf("%s: line breaks written as character references", name)
	}
	return parseJUnit(t, buf.Bytes())
}

func prop(s junitSuite, name string) string {
	for _, p := range s.Properties {
		if p.Name == name {
			return p.Value
		}
	}
	return "<absent>"
}

func TestJUnitValidAgainstAntSchema(t *testing.T) {
	schema := junitSchema(t)
	r := junitRenderer{}

	// The validation can fail: a testsuite without its required properties and timestamp.
	bad := []byte(`<?xml version="1.0"?><testsuites><testsuite name="x" package="p" id="0" tests="1" failures="0" errors="0" time="1" hostname="h"><testcase name="a" classname="b" time="1"/><system-out/><system-err/></testsuite></testsuites>`)
	if out, err := xmllintValid(t, schema, bad); err == nil {
		t.Fatalf("xmllint accepted an invalid document:\n%s", out)
	}

	t.Run("ablation", func(t *testing.T) {
		recs, in := reporttest.ReportFixture()
		a := analysis.Analyze(recs, in)
		var buf bytes.Buffer
		if err := r.Ablation(&buf, &report.AblationReport{Dir: "runs/abl", Analysis: a, Records: recs}); err != nil {
			t.Fatal(err)
		}
		if out, err := xmllintValid(t, schema, buf.Bytes()); err != nil {
			t.Fatalf("invalid: %v\n%s\n%s", err, out, buf.Bytes())
		}
		doc := parseJUnit(t, buf.Bytes())
		if len(doc.Suites) != len(a.Variants) {
			t.Fatalf("%d suites, want %d", len(doc.Suites), len(a.Variants))
		}
		for i, s := range doc.Suites {
			v := &a.Variants[i]
			_, nf, _ := analysis.TaskDiffs(analysis.VariantRecords(recs, a.Baseline), analysis.VariantRecords(recs, v.Name))
			if s.Name != v.Name || s.ID != i || s.Package != "runs/abl" || s.Hostname != "localhost" {
				t.Errorf("suite %d: %+v", i, s)
			}
			if s.Failures != len(nf) || s.Tests != len(s.Cases) || s.Tests != 15 {
				t.Errorf("%s: failures %d tests %d, want %d new failures of 15 tasks", v.Name, s.Failures, s.Tests, len(nf))
			}
			for _, c := range s.Cases {
				if (c.Failure != nil) != strings.Contains(" "+strings.Join(nf, " ")+" ", " "+c.Name+" ") {
					t.Errorf("%s/%s: failure %v, new failures %v", v.Name, c.Name, c.Failure, nf)
				}
			}
			if got, want := prop(s, "delta_pts"), strconv.FormatFloat(100*v.All.Delta, 'g', -1, 64); got != want {
				t.Errorf("%s delta_pts %s, want %s", v.Name, got, want)
			}
			if got, want := prop(s, "p_holm"), strconv.FormatFloat(v.PHolm, 'g', -1, 64); got != want {
				t.Errorf("%s p_holm %s, want %s", v.Name, got, want)
			}
			if got, want := prop(s, "p_paired"), strconv.FormatFloat(v.All.P, 'g', -1, 64); got != want {
				t.Errorf("%s p_paired %s, want %s", v.Name, got, want)
			}
		}
		// By hand from the fixture: base FFFFFPPPPPFFPP, no_y FFFFFPPPPPFPPI: t13 passed in base, no_y's only
		// attempt is an infra error: only_a (sorted ids t0, t1, t10, t11, t12, t13, …: index 5).
		y := doc.Suites[1]
		if y.Errors != 1 || y.Cases[5].Name != "t13" || y.Cases[5].Error == nil || y.Cases[5].Error.Type != analysis.ChangeOnlyA {
			t.Errorf("no_y: errors %d, cases %+v", y.Errors, y.Cases)
		}
		// z: base passes 9 of 11 (not all), so no_y's 10 of 11 is no new failure; no_x has none either.
		if doc.Suites[0].Failures != 0 || y.Failures != 0 {
			t.Errorf("failures %d, %d, want 0, 0", doc.Suites[0].Failures, y.Failures)
		}
	})

	t.Run("compare", func(t *testing.T) {
		a := analysis.RunSide{Label: analysis.LabelRunA, Name: "runs/a", Attempts: analysistest.TasksOf("v", "PPPPPPFF")}
		b := analysis.RunSide{Label: analysis.LabelRunB, Name: "runs/b", Attempts: analysistest.TasksOf("v", "PFPFPPFI")}
		c, err := analysis.CompareRuns(a, b, analysis.CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := r.Compare(&buf, c); err != nil {
			t.Fatal(err)
		}
		if out, err := xmllintValid(t, schema, buf.Bytes()); err != nil {
			t.Fatalf("invalid: %v\n%s\n%s", err, out, buf.Bytes())
		}
		s := parseJUnit(t, buf.Bytes()).Suites[0]
		// t1 and t3 passed in A and fail in B: the two new failures (c.NewFailures); t7 has no judged attempt in B.
		if s.Failures != 2 || len(c.NewFailures) != 2 || s.Errors != 1 || s.Tests != 8 || s.Package != "runs/b" {
			t.Fatalf("suite %+v (new failures %v)", s, c.NewFailures)
		}
		if s.Cases[1].Failure == nil || s.Cases[1].Failure.Type != "new_failure" || s.Cases[3].Failure == nil {
			t.Errorf("cases %+v", s.Cases)
		}
		if got, want := prop(s, "delta_pts"), strconv.FormatFloat(100*c.Result().All.Delta, 'g', -1, 64); got != want {
			t.Errorf("delta_pts %s, want %s", got, want)
		}
		if prop(s, "pass_rate_baseline") != "0.75" || prop(s, "pass_rate_variant") != strconv.FormatFloat(4.0/7, 'g', -1, 64) {
			t.Errorf("pass rates %s %s", prop(s, "pass_rate_baseline"), prop(s, "pass_rate_variant"))
		}
		if s.Time != "16.000" { // 8 attempts of DurationMS 2000
			t.Errorf("time %s", s.Time)
		}
	})

	t.Run("run", func(t *testing.T) {
		recs := analysistest.TasksOf("v", "PFPI")
		recs[0].StartedAt = "2026-03-04T10:11:12+02:00"
		var buf bytes.Buffer
		if err := r.Run(&buf, &report.RunReport{Dir: "runs/one", Arms: analysis.Summarize(recs), Records: recs}); err != nil {
			t.Fatal(err)
		}
		if out, err := xmllintValid(t, schema, buf.Bytes()); err != nil {
			t.Fatalf("invalid: %v\n%s\n%s", err, out, buf.Bytes())
		}
		s := parseJUnit(t, buf.Bytes()).Suites[0]
		if s.Tests != 4 || s.Failures != 1 || s.Errors != 1 || s.Timestamp != "2026-03-04T08:11:12" || s.Cases[1].Failure == nil {
			t.Fatalf("suite %+v", s)
		}
		// Two variants: the second against the first, as an ablation.
		recs = append(analysistest.TasksOf("base", "PPP"), analysistest.TasksOf("w", "PFP")...)
		buf.Reset()
		if err := r.Run(&buf, &report.RunReport{Dir: "runs/two", Arms: analysis.Summarize(recs), Records: recs}); err != nil {
			t.Fatal(err)
		}
		if out, err := xmllintValid(t, schema, buf.Bytes()); err != nil {
			t.Fatalf("invalid: %v\n%s\n%s", err, out, buf.Bytes())
		}
		d := parseJUnit(t, buf.Bytes())
		if len(d.Suites) != 1 || d.Suites[0].Name != "w" || d.Suites[0].Failures != 1 || d.Suites[0].Timestamp != junitNoTime {
			t.Fatalf("suites %+v", d.Suites)
		}
	})
}

// near reports whether the property value v is a number within 1e-12 of want.
func near(v string, want float64) bool {
	x, err := strconv.ParseFloat(v, 64)
	return err == nil && math.Abs(x-want) <= 1e-12
}

// The judges part is a last testsuite "judges" without testcases (a disagreement fails nothing): its properties
// are the judges part's JSON keys flattened, its system-out the terminal report's tables and notes; the
// documents validate against the Ant schema. A part that shows nothing adds no testsuite.
func TestJUnitJudges(t *testing.T) {
	schema := junitSchema(t)
	run := reporttest.JudgesRun(t, filepath.Join(t.TempDir(), "run"))
	js, err := analysis.AnalyzeJudges(run)
	if err != nil {
		t.Fatal(err)
	}
	render := func(name string, f func(w *bytes.Buffer) error) junitSuites {
		t.Helper()
		return renderValid(t, schema, name, f)
	}
	recs := run.Final()
	arms := analysis.Summarize(recs)
	doc := render("run", func(w *bytes.Buffer) error {
		return junitRenderer{}.Run(w, &report.RunReport{Dir: run.Dir, Arms: arms, Records: recs, Run: run, Judges: js,
			Bounds: analysis.UncertainBounds(arms)})
	})
	if len(doc.Suites) != 2 {
		t.Fatalf("%d suites, want the variant's and the judges'", len(doc.Suites))
	}
	// The variant's suite is as without judges: its 29 failed tasks (25 answer-judged, 4 Zoo Q&A) and the
	// uncertain one's error.
	if v := doc.Suites[0]; v.Name != "default" || v.Failures != 29 || v.Errors != 1 || v.Tests != 58 {
		t.Errorf("variant suite: %s, %d failures, %d errors of %d", v.Name, v.Failures, v.Errors, v.Tests)
	}
	j := doc.Suites[1]
	if j.Name != JUnitJudgesSuite || j.ID != 1 || j.Package != run.Dir || j.Tests != 0 || j.Failures != 0 || j.Errors != 0 ||
		len(j.Cases) != 0 || j.Time != "0.000" {
		t.Errorf("judges suite: %+v", j)
	}
	for name, want := range map[string]string{
		"judges.0.judge": "original", "judges.0.judged_by.state+answer": "7", "judges.0.judged_by.answer": "51",
		"judges.0.passes": "28", "judges.0.uncertain": "1", "judges.1.judge": "llm", "judges.1.passes": "31",
		"judge_agreement.0.judge_a": "original", "judge_agreement.0.judge_b": "llm", "judge_agreement.0.n": "50",
		"judge_agreement.0.both_pass": "20", "judge_agreement.0.a_fail_b_pass": "10", "judge_agreement.0.skipped": "8",
		"judge_agreement.0.skipped_missing_b": "7", "zoo_qa_ground_truth.false_pass_ids.0": "qa-fp-0",
		"zoo_qa_ground_truth.false_pass_ids.1": "qa-fp-1", "zoo_qa_ground_truth.false_fail_ids.0": "qa-ff-0",
		"zoo_qa_ground_truth.both_fail_no_answer": "1", "zoo_qa_ground_truth.source.0": "answer: the run's own verdicts",
		"zoo_qa_ground_truth.missing_verdicts.0": "<absent>",
	} {
		if got := prop(j, name); got != want {
			t.Errorf("property %s = %q, want %q", name, got, want)
		}
	}
	// κ = 0.4 with SE sqrt(0.21/12.5); the ground truth's κ = 2/23 (reporttest.JudgesRun).
	if k, se, gt := prop(j, "judge_agreement.0.kappa"), prop(j, "judge_agreement.0.se"), prop(j, "zoo_qa_ground_truth.kappa"); !near(k, 0.4) ||
		!near(se, math.Sqrt(0.21/12.5)) || !near(gt, 2.0/23) {
		t.Errorf("kappa %s, se %s, ground truth kappa %s", k, se, gt)
	}
	reporttest.InOrder(t, "system-out", string(j.SystemOut), reporttest.JudgesWant)
	reporttest.InOrder(t, "system-out", string(j.SystemOut), []string{"│ original pass │ 20 ", "│ original fail │ 10 "})

	// An ablation, and a plain run of two variants (rendered as one): the judges suite comes last.
	frecs, in := reporttest.ReportFixture()
	a := analysis.Analyze(frecs, in)
	doc = render("ablation", func(w *bytes.Buffer) error {
		return junitRenderer{}.Ablation(w, &report.AblationReport{Dir: "runs/abl", Analysis: a, Records: frecs, Judges: js})
	})
	if n := len(doc.Suites); n != len(a.Variants)+1 || doc.Suites[n-1].Name != JUnitJudgesSuite || doc.Suites[n-1].ID != n-1 ||
		prop(doc.Suites[n-1], "judge_agreement.0.n") != "50" {
		t.Errorf("ablation: %d suites, last %+v", n, doc.Suites[n-1])
	}
	two := append(analysistest.TasksOf("base", "PPP"), analysistest.TasksOf("w", "PFP")...)
	doc = render("two variants", func(w *bytes.Buffer) error {
		return junitRenderer{}.Run(w, &report.RunReport{Dir: "runs/two", Arms: analysis.Summarize(two), Records: two, Judges: js})
	})
	if len(doc.Suites) != 2 || doc.Suites[0].Name != "w" || doc.Suites[1].Name != JUnitJudgesSuite {
		t.Errorf("two variants: suites %+v", doc.Suites)
	}

	// Nothing to show (no judges part; one judge and no Zoo Q&A attempt): no judges suite.
	for _, j := range []*analysis.Judges{nil, {Judges: js.Judges[:1], Agreement: []analysis.JudgeAgreement{}}} {
		doc = render("one judge", func(w *bytes.Buffer) error {
			return junitRenderer{}.Run(w, &report.RunReport{Dir: run.Dir, Arms: arms, Records: recs, Judges: j})
		})
		if len(doc.Suites) != 1 {
			t.Errorf("judges %+v: %d suites, want 1", j, len(doc.Suites))
		}
	}
}

// jsonProperties names every value by its path, in the encoding's order, and leaves nulls out.
func TestJSONProperties(t *testing.T) {
	got, err := jsonProperties(&analysis.Judges{Judges: []analysis.VerdictCounts{{Judge: "a b", JudgedBy: map[string]int{"y": 2, "x": 1}}},
		Agreement: []analysis.JudgeAgreement{{JudgeA: "a b", JudgeB: "c"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []junitProperty{{"judges.0.judge", "a b"}, {"judges.0.judged_by.x", "1"}, {"judges.0.judged_by.y", "2"},
		{"judges.0.attempts", "0"}}
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("first properties %+v, want %+v", got, want)
	}
	names := map[string]bool{}
	for _, p := range got {
		names[p.Name] = true
	}
	// κ, SE and the rates of no attempt are null; the table is [[0,0],[0,0]].
	for name, present := range map[string]bool{"judge_agreement.0.kappa": false, "judge_agreement.0.se": false,
		"judges.0.rate": false, "judge_agreement.0.table.1.1": true, "judge_agreement.0.judge_b": true, "zoo_qa_ground_truth": false} {
		if names[name] != present {
			t.Errorf("property %s present %v, want %v", name, names[name], present)
		}
	}
}

// The warnings and the gate line, which the other formats print above and under their tables, are each
// comparison suite's system-err: there, every warning about the whole run or about the suite's variant, one line
// each, then the gate line; a warning about other variants only is not (but one about variants that have no
// suite, such as a spec's variant identical to the baseline, is the whole run's). The documents validate against the Ant
// schema; an analysis that compares nothing still says its warnings, in a suite of the baseline alone.
func TestJUnitWarningsAndGate(t *testing.T) {
	schema := junitSchema(t)
	render := func(name string, f func(w *bytes.Buffer) error) junitSuites {
		t.Helper()
		return renderValid(t, schema, name, f)
	}
	recs, in := reporttest.ReportFixture()
	in.FailIfWorse = 0.05
	a := analysis.Analyze(recs, in)
	ws := report.AnalysisWarnings(a)
	doc := render("ablation", func(w *bytes.Buffer) error {
		return junitRenderer{}.Ablation(w, &report.AblationReport{Dir: "runs/abl", Analysis: a, Records: recs})
	})
	if len(doc.Suites) != len(a.Variants) {
		t.Fatalf("%d suites, want %d", len(doc.Suites), len(a.Variants))
	}
	said, some := map[string]bool{}, false
	for i, s := range doc.Suites {
		lines := strings.Split(string(s.SystemErr), "\n")
		if lines[len(lines)-1] != report.GateLine(a) || !strings.HasPrefix(lines[len(lines)-1], "Gate (fail if worse by more than 5.0 pts") {
			t.Errorf("%s: last line %q, want the gate line", s.Name, lines[len(lines)-1])
		}
		for _, w := range ws {
			suited := slices.ContainsFunc(w.Variants, func(n string) bool {
				return slices.ContainsFunc(a.Variants, func(v analysis.VariantResult) bool { return v.Name == n })
			})
			mine := !suited || slices.Contains(w.Variants, a.Variants[i].Name) // a warning about no suite's variant is the run's
			if got := slices.Contains(lines, "warning: "+w.Text); got != mine {
				t.Errorf("%s: warning %q present %v, want %v", s.Name, w.Text, got, mine)
			}
			said[w.Text] = said[w.Text] || mine
			some = some || len(w.Variants) > 0 && !mine
		}
	}
	if len(ws) == 0 || !some {
		t.Fatalf("the fixture has no warning about some variants only: %+v", ws)
	}
	for _, w := range ws {
		if !said[w.Text] {
			t.Errorf("warning %q in no suite", w.Text)
		}
	}

	// Only the baseline, half its attempts infrastructure errors: nothing compared, the infrastructure warning in
	// a suite of the baseline alone, without a gate line (no gate).
	base := analysistest.TasksOf("base", "PPII")
	lone := analysis.Analyze(base, analysis.Inputs{Baseline: "base"})
	lw := report.AnalysisWarnings(lone)
	doc = render("baseline alone", func(w *bytes.Buffer) error {
		return junitRenderer{}.Ablation(w, &report.AblationReport{Dir: "runs/abl", Analysis: lone, Records: base})
	})
	if len(lone.Variants) != 0 || len(lw) != 1 || !strings.HasPrefix(lw[0].Text, "Infrastructure errors in more than 10% of attempts: base 2/4") ||
		len(doc.Suites) != 1 || doc.Suites[0].Name != "base" || doc.Suites[0].Tests != 0 ||
		string(doc.Suites[0].SystemErr) != "warning: "+lw[0].Text {
		t.Errorf("baseline alone: warnings %+v, suites %+v", lw, doc.Suites)
	}

	// A comparison of two runs: its warnings (8 tasks, fewer than 10) and its gate line.
	ra := analysis.RunSide{Label: analysis.LabelRunA, Name: "runs/a", Attempts: analysistest.TasksOf("v", "PPPPPPFF")}
	rb := analysis.RunSide{Label: analysis.LabelRunB, Name: "runs/b", Attempts: analysistest.TasksOf("v", "PFPFPPFI")}
	c, err := analysis.CompareRuns(ra, rb, analysis.CompareOptions{FailIfWorse: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	doc = render("compare", func(w *bytes.Buffer) error { return junitRenderer{}.Compare(w, c) })
	var want []string
	for _, w := range report.CompareWarnings(c) {
		want = append(want, "warning: "+w)
	}
	want = append(want, report.CompareGateLine(c))
	if got := strings.Split(string(doc.Suites[0].SystemErr), "\n"); len(want) < 2 || !slices.Equal(got, want) {
		t.Errorf("compare system-err\n%q\nwant\n%q", got, want)
	}
}
