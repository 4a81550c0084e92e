package junit

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
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
