// Package junit is the JUnit XML report format ("junit"): a test suite per variant, for CI.
package junit

// JUnit XML (`--format junit`) for CI test reporters (GitHub test-report
// actions, GitLab, Jenkins). The shape is the Apache Ant JUnit schema (Windy
// Road, JUnit.xsd, Apache-2.0; render_junit_test.go validates against it):
// <testsuites> without attributes; one <testsuite> per variant compared with
// its baseline (an ablation: each non-baseline variant, A/A arms included and
// marked by the property aa; a comparison: run B's variant against run A's; a
// plain run: each non-baseline variant against the plan's baseline, or its
// only variant alone); one <testcase> per task; a <failure
// type="new_failure"> for each new failure against the baseline (TaskDiff
// Change ChangeNewFailure, the definition of bench compare), an <error
// type="only_a"> when the variant has no judged attempt of a task the
// baseline has. A single variant's testcase fails (type "failed") when any of
// its judged attempts of the task failed. The warnings and the gate line,
// which the other formats print above and under their tables, are each
// comparison suite's system-err.

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"webbench/analysis"
	"webbench/report"
	"webbench/results"
)

func init() { report.RegisterRenderer("junit", junitRenderer{}) }

// junitRenderer writes one JUnit XML document per report.
type junitRenderer struct{}

// JUnitHostname is the hostname attribute of every testsuite: the schema
// says 'localhost' should be used when the host cannot be determined, and a
// report is rendered from records, which do not name the machine (the output
// stays the same wherever it is rendered).
const JUnitHostname = "localhost"

// junitNoTime is the timestamp when neither the manifest nor any record has
// a start time.
const junitNoTime = "1970-01-01T00:00:00"

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Package    string          `xml:"package,attr"`
	ID         int             `xml:"id,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Hostname   string          `xml:"hostname,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  junitText       `xml:"system-out"`
	SystemErr  junitText       `xml:"system-err"`
}

// junitText is an element's text, its line breaks written as they are (encoding/xml would write a
// string field's as "&#xA;"), so that a multi-line system-out reads as text in the file.
type junitText string

// MarshalXML writes start, s as character data and the end of start.
func (s junitText) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	for _, t := range []xml.Token{start, xml.CharData(s), start.End()} {
		if err := e.EncodeToken(t); err != nil {
			return err
		}
	}
	return nil
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure"`
	Error     *junitProblem `xml:"error"`
}

type junitProblem struct {
	Type    string `xml:"type,attr"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// Ablation writes one testsuite per variant of the analysis against its
// baseline, in the analysis' order: its system-out the comparison in one line
// (and a same-seed A/A arm's flake rate), then the variant's lines of the
// divergence part (report.WhyPart: why its pairs moved, where their cost went),
// its system-err the warnings about the run or the variant and the gate line
// (junitNotices).
func (junitRenderer) Ablation(w io.Writer, r *report.AblationReport) error {
	a := r.Analysis
	why := report.NewWhyPart(r.Why, a.Baseline)
	byVariant := map[string][]results.Attempt{}
	for _, x := range r.Records {
		byVariant[x.Variant] = append(byVariant[x.Variant], x)
	}
	pkg, ts := junitPackage(r.Dir), junitTimestamp(r.Run, r.Records)
	doc := junitSuites{Suites: []junitSuite{}}
	ws, gate := report.AnalysisWarnings(a), ""
	suited := map[string]bool{}
	for _, v := range a.Variants {
		suited[v.Name] = true
	}
	for i, x := range ws {
		if !slices.ContainsFunc(x.Variants, func(n string) bool { return suited[n] }) {
			ws[i].Variants = nil // about variants without a suite of their own (e.g. one with no task): the run's
		}
	}
	if a.FailIfWorse > 0 {
		gate = report.GateLine(a)
	}
	if len(a.FailIfCostlier) > 0 {
		gate = strings.TrimSpace(gate + "\n" + report.CostGateLine(a))
	}
	for i := range a.Variants {
		v := &a.Variants[i]
		s := junitDiffSuite(v.Name, pkg, i, ts, byVariant[a.Baseline], byVariant[v.Name], a.Baseline)
		s.Properties = junitProps(a, v)
		out := junitSummary(a, v.Name, a.Baseline, v, s.Failures)
		if sv := seqVariant(a, v.Name); sv != nil {
			// the sequential decision is the result; the line above is then a diagnostic
			out = report.SeqLine(a, sv) + "\n" + out
			s.Properties = append(s.Properties, junitProperty{"sequential_stop", string(sv.Stop)},
				junitProperty{"sequential_at_unit", strconv.Itoa(sv.At)},
				junitProperty{"sequential_attempts_saved", strconv.Itoa(sv.Saved)})
		}
		for _, f := range a.Flake {
			if f.Variant == v.Name {
				out += "\n" + report.FlakeLine(f) // a same-seed A/A arm's flake rate, as the other formats print it
			}
		}
		for _, l := range why.VariantLines(v.Name) {
			out += "\n" + l
		}
		s.SystemOut = junitText(out)
		junitCost(&s, a, v)
		s.SystemErr = junitText(junitNotices(ws, v.Name, gate))
		doc.Suites = append(doc.Suites, s)
	}
	if len(a.Variants) == 0 && (len(ws) > 0 || gate != "") {
		// Nothing compared, yet something said: a suite of the baseline alone carries it.
		doc.Suites = append(doc.Suites, junitSuite{Name: a.Baseline, Package: pkg, Timestamp: ts, Hostname: JUnitHostname,
			Time: junitSeconds(0), SystemErr: junitText(junitNotices(ws, "", gate))})
	}
	if err := addJudges(&doc, r.Dir, ts, r.Judges); err != nil {
		return err
	}
	return writeJUnit(w, doc)
}

// Compare writes one testsuite: run B's variant against run A's, its
// system-err the comparison's warnings and gate line (junitNotices).
func (junitRenderer) Compare(w io.Writer, c *analysis.RunComparison) error {
	v := c.Result()
	name := c.B.Variant
	s := junitDiffSuite(name, c.B.Name, 0, junitTimestamp(nil, c.B.Attempts), analysis.VariantRecords(c.A.Attempts, c.A.Variant),
		analysis.VariantRecords(c.B.Attempts, c.B.Variant), c.A.Name)
	s.Properties = append(junitProps(c.Analysis, v),
		junitProperty{"run_a", c.A.Name}, junitProperty{"run_b", c.B.Name}, junitProperty{"variant_a", c.A.Variant})
	out := report.CompareVerdict(c)
	if !c.Overlap.None() {
		out = junitSummary(c.Analysis, c.B.Name+" ("+c.B.Variant+")", c.A.Name+" ("+c.A.Variant+")", v, s.Failures)
	}
	for _, l := range report.ComparePart(c).Lines() {
		out += "\n" + l
	}
	s.SystemOut = junitText(out)
	junitCost(&s, c.Analysis, v)
	var ws []report.WordedWarning
	for _, text := range report.CompareWarnings(c) {
		ws = append(ws, report.WordedWarning{Text: text})
	}
	gate := report.CompareGateLine(c)
	if l := report.UngatedLine(c); l != "" {
		gate = l
	} else if len(c.Analysis.FailIfCostlier) > 0 {
		gate = strings.TrimSpace(gate + "\n" + report.CostGateLineWith(c.Analysis, report.RunCostWording(c)))
	}
	s.SystemErr = junitText(junitNotices(ws, "", gate))
	return writeJUnit(w, junitSuites{Suites: []junitSuite{s}})
}

// Run writes, for a run of several variants, one testsuite per non-baseline
// variant against the plan's baseline (the first variant without a
// manifest), with the analysis' numbers as properties; for a run of one
// variant, one testsuite whose testcase fails when any judged attempt of the
// task failed.
func (junitRenderer) Run(w io.Writer, r *report.RunReport) error {
	ts := junitTimestamp(r.Run, r.Records)
	doc := junitSuites{Suites: []junitSuite{}}
	if len(r.Arms) > 1 {
		base := r.Arms[0].Name
		if r.Run != nil && r.Run.Manifest != nil && r.Run.Manifest.Plan.Baseline != "" {
			base = r.Run.Manifest.Plan.Baseline
		}
		a := analysis.Analyze(r.Records, analysis.Inputs{Baseline: base})
		return junitRenderer{}.Ablation(w, &report.AblationReport{Dir: r.Dir, Analysis: a, Records: r.Records, Run: r.Run,
			Judges: r.Judges})
	}
	for i, arm := range r.Arms {
		recs := analysis.VariantRecords(r.Records, arm.Name)
		s := junitSuite{Name: arm.Name, Package: junitPackage(r.Dir), ID: i, Timestamp: ts, Hostname: JUnitHostname}
		tasks, secs := junitTasks(recs)
		total := 0.0
		for _, id := range slices.Sorted(maps.Keys(tasks)) {
			t := tasks[id]
			tc := junitCase{Name: id, Classname: arm.Name, Time: junitSeconds(secs[id])}
			total += secs[id]
			switch {
			case t.n == 0:
				tc.Error = &junitProblem{Type: "no_judged_attempt", Message: fmt.Sprintf("no judged attempt of %s (every attempt ended in an error)", id)}
				s.Errors++
			case t.k < t.n:
				tc.Failure = &junitProblem{Type: "failed", Message: fmt.Sprintf("%d of %d judged attempts failed", t.n-t.k, t.n)}
				s.Failures++
			}
			s.Cases = append(s.Cases, tc)
		}
		s.Tests, s.Time = len(s.Cases), junitSeconds(total)
		s.Properties = []junitProperty{{"pass_rate", junitFloat(arm.Rate)}, {"passes", strconv.Itoa(arm.Passes)},
			{"n", strconv.Itoa(arm.N)}, {"errors", strconv.Itoa(arm.Errors)}}
		s.SystemOut = junitText(fmt.Sprintf("%s: %d of %d judged %s passed (%.1f%%), %d %s; %d of %d %s failed",
			arm.Name, arm.Passes, arm.N, results.Plural(arm.N, "attempt", "attempts"), 100*arm.Rate, arm.Errors, results.Plural(arm.Errors, "error", "errors"),
			s.Failures, s.Tests, results.Plural(s.Tests, "task", "tasks")))
		doc.Suites = append(doc.Suites, s)
	}
	if err := addJudges(&doc, r.Dir, ts, r.Judges); err != nil {
		return err
	}
	return writeJUnit(w, doc)
}

// JUnitJudgesSuite is the name of the testsuite of the judges part.
const JUnitJudgesSuite = "judges"

// addJudges appends to doc the testsuite JUnitJudgesSuite of the judges part js of the run in dir (started at
// ts) when it shows anything (report.JudgesPart): no testcase, since nothing in it passes or fails; its
// properties are the keys judges, judge_agreement and zoo_qa_ground_truth of --format json, each value named by
// its path of keys and array indices joined by "." ("judge_agreement.0.kappa"; a null is left out), and its
// system-out the judges part's tables and notes in the terminal report's words. The error is that of encoding
// js as JSON.
func addJudges(doc *junitSuites, dir, ts string, js *analysis.Judges) error {
	if js == nil {
		return nil
	}
	part := report.NewJudgesPart(dir, js)
	if part.Empty() {
		return nil
	}
	props, err := jsonProperties(js)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := part.WriteText(&out); err != nil {
		return err
	}
	doc.Suites = append(doc.Suites, junitSuite{Name: JUnitJudgesSuite, Package: junitPackage(dir), ID: len(doc.Suites),
		Timestamp: ts, Hostname: JUnitHostname, Time: junitSeconds(0), Properties: props, SystemOut: junitText(out.String())})
	return nil
}

// jsonProperties flattens v's JSON encoding into properties, in the encoding's order: one per string, number
// or boolean, named by its path of object keys and array indices joined by "."; nulls, empty arrays and empty
// objects give none.
func jsonProperties(v any) ([]junitProperty, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var props []junitProperty
	var walk func(path string) error
	walk = func(path string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		join := func(k string) string {
			if path == "" {
				return k
			}
			return path + "." + k
		}
		switch t := tok.(type) {
		case json.Delim: // '{' or '[': their members, then the closing delimiter
			for i := 0; dec.More(); i++ {
				key := strconv.Itoa(i)
				if t == '{' {
					k, err := dec.Token()
					if err != nil {
						return err
					}
					key = k.(string)
				}
				if err := walk(join(key)); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Number:
			props = append(props, junitProperty{path, t.String()})
		case string:
			props = append(props, junitProperty{path, t})
		case bool:
			props = append(props, junitProperty{path, strconv.FormatBool(t)})
		}
		return nil // nil: JSON null
	}
	return props, walk("")
}

type junitCount struct{ k, n int }

// junitTasks counts each task's passes k of n judged attempts and sums the
// seconds of all its attempts (DurationMS).
func junitTasks(recs []results.Attempt) (map[string]junitCount, map[string]float64) {
	tasks, secs := map[string]junitCount{}, map[string]float64{}
	for _, r := range recs {
		c := tasks[r.TaskID]
		if r.Done() {
			c.n++
			if r.Status == results.StatusPass {
				c.k++
			}
		}
		tasks[r.TaskID] = c
		secs[r.TaskID] += float64(r.DurationMS) / 1000
	}
	return tasks, secs
}

// junitDiffSuite builds the testsuite of variant recsB against baseline recsA
// (named baseName in messages): one testcase per task of taskDiffs, plus the
// tasks without any judged attempt on either side.
func junitDiffSuite(name, dir string, id int, ts string, recsA, recsB []results.Attempt, baseName string) junitSuite {
	s := junitSuite{Name: name, Package: junitPackage(dir), ID: id, Timestamp: ts, Hostname: JUnitHostname}
	diffs, _, _ := analysis.TaskDiffs(recsA, recsB)
	_, secs := junitTasks(recsB)
	total := 0.0
	for _, d := range diffs {
		tc := junitCase{Name: d.Task, Classname: name, Time: junitSeconds(secs[d.Task])}
		total += secs[d.Task]
		switch d.Change {
		case analysis.ChangeNewFailure:
			tc.Failure = &junitProblem{Type: analysis.ChangeNewFailure, Message: fmt.Sprintf(
				"new failure: %d of %d judged attempts passed, %d of %d against %s", d.PassesB, d.NB, d.PassesA, d.NA, baseName)}
			s.Failures++
		case analysis.ChangeOnlyA:
			tc.Error = &junitProblem{Type: analysis.ChangeOnlyA, Message: fmt.Sprintf(
				"no judged attempt of the task (%s has %d), e.g. every attempt ended in an error", baseName, d.NA)}
			s.Errors++
		}
		s.Cases = append(s.Cases, tc)
	}
	s.Tests, s.Time = len(s.Cases), junitSeconds(total)
	return s
}

// junitProps are the testsuite's properties: the comparison on all common
// tasks (delta and its CI in points, p_paired, p_holm, method), the arms'
// pass rates, the A/A mark and the verdict words (junitVerdict).
func junitProps(a *analysis.Analysis, v *analysis.VariantResult) []junitProperty {
	all, base, alpha := v.All, a.BaseArm, a.Alpha
	return []junitProperty{
		{"delta_pts", junitFloat(100 * all.Delta)},
		{"delta_ci_low_pts", junitFloat(100 * all.CI[0])},
		{"delta_ci_high_pts", junitFloat(100 * all.CI[1])},
		{"p_paired", junitFloat(all.P)},
		{"p_holm", junitFloat(v.PHolm)},
		{"method", all.Method},
		{"pass_rate_baseline", junitFloat(base.Rate)},
		{"pass_rate_variant", junitFloat(v.Arm.Rate)},
		{"aa", strconv.FormatBool(v.AA)},
		{"alpha", junitFloat(alpha)},
		{"verdict", junitVerdict(a, v)},
	}
}

// seqVariant is variant name's sequential outcome in a (nil for a fixed-size run or an arm not monitored).
func seqVariant(a *analysis.Analysis, name string) *analysis.SeqVariant {
	if a.Sequential == nil {
		return nil
	}
	for i := range a.Sequential.Variants {
		if a.Sequential.Variants[i].Variant == name {
			return &a.Sequential.Variants[i]
		}
	}
	return nil
}

// junitVerdict names the comparison in the words of the terminal report's verdict (Verdict, without a gate):
// "worse than the baseline", "better than the baseline" (p_holm below a's α), "no difference shown" (with why,
// or the MDE), an A/A control's words, or "nothing to compare".
func junitVerdict(a *analysis.Analysis, v *analysis.VariantResult) string {
	return report.VerdictText(a.VerdictOf(v, 0))
}

// junitSummary is the testsuite's one-line system-out.
func junitSummary(a *analysis.Analysis, name, base string, v *analysis.VariantResult, failures int) string {
	all := v.All
	return fmt.Sprintf("%s vs %s: Δ %+.1f pts [%+.1f, %+.1f], p %.3g, Holm p %.3g (%s): %s; %d new %s",
		name, base, 100*all.Delta, 100*all.CI[0], 100*all.CI[1], all.P, v.PHolm, all.Method, junitVerdict(a, v),
		failures, results.Plural(failures, "failure", "failures"))
}

// junitNotices is a testsuite's system-err: the warnings (report.AnalysisWarnings, report.CompareWarnings) about
// the whole run or naming variant, one line each prefixed "warning: ", then the gate line (report.GateLine,
// report.CompareGateLine; "" for none) — what the other formats print above and under their tables.
func junitNotices(ws []report.WordedWarning, variant, gate string) string {
	var lines []string
	for _, w := range ws {
		if len(w.Variants) == 0 || slices.Contains(w.Variants, variant) {
			lines = append(lines, "warning: "+w.Text)
		}
	}
	if gate != "" {
		lines = append(lines, gate)
	}
	return strings.Join(lines, "\n")
}

// junitTimestamp is the run's start as the schema wants it (UTC, no
// timezone, seconds): the manifest's started_at, else the earliest record's.
func junitTimestamp(run *results.Run, recs []results.Attempt) string {
	var best time.Time
	if run != nil && run.Manifest != nil {
		if t, err := time.Parse(time.RFC3339, run.Manifest.StartedAt); err == nil {
			best = t
		}
	}
	if best.IsZero() {
		for _, r := range recs {
			if t, err := time.Parse(time.RFC3339, r.StartedAt); err == nil && (best.IsZero() || t.Before(best)) {
				best = t
			}
		}
	}
	if best.IsZero() {
		return junitNoTime
	}
	return best.UTC().Format("2006-01-02T15:04:05")
}

// junitPackage is the package attribute: the run directory, "." when none.
func junitPackage(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

func junitSeconds(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }

// junitFloat formats x shortest-exact; NaN and ±Inf as "NaN", "Inf", "-Inf".
func junitFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func writeJUnit(w io.Writer, doc junitSuites) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
