package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"webbench/judge"
	"webbench/results"
)

// agreementRun writes a run directory by hand in the results schema: one record per attempt of variant
// "default" (attempts.jsonl) and, per re-judge, verdicts-<judge>.jsonl.
type agreementRun struct {
	t        *testing.T
	dir      string
	lines    strings.Builder
	verdicts map[string][]results.VerdictRecord
	n        int
	// parts: add gives a "state+answer" record the state and answer verdicts of re as its own verdict's parts,
	// as runs write them (judge.Verdict.Parts).
	parts bool
}

func newAgreementRun(t *testing.T) *agreementRun {
	t.Helper()
	dir := t.TempDir()
	m := &results.Manifest{SchemaVersion: results.SchemaVersion, RunID: filepath.Base(dir), Plan: results.Plan{Suite: "zoo",
		Reps: 1, Baseline: "default", Variants: []results.Variant{{Name: "default"}}}}
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	return &agreementRun{t: t, dir: dir, verdicts: map[string][]results.VerdictRecord{}}
}

// add records count attempts with the run's own verdict own (judged by ownJudge: "answer", or "state+answer" for
// a Zoo Q&A task) and, for every re-judge named in re, that judge's verdict. own and re's values are "pass",
// "fail", "uncertain", "error" (a judge error) or "infra" (own only: an infrastructure error, never judged).
func (r *agreementRun) add(count int, ownJudge, own string, re map[string]string) {
	verdict := func(name, out string) judge.Verdict {
		v := judge.Verdict{Judge: name, Reason: out}
		switch out {
		case "pass":
			v.Pass = true
		case "uncertain":
			v.Uncertain = true
		case "error":
			v.Error = "judge failed"
		}
		return v
	}
	for range count {
		task := fmt.Sprintf("task-%02d", r.n)
		r.n++
		pid := results.PairID("zoo", task, 0)
		rec := results.Attempt{SchemaVersion: results.SchemaVersion, AttemptID: results.AttemptID("default", pid), PairID: pid,
			Variant: "default", TaskID: task, Suite: "zoo", Cluster: task, Model: "scripted:observed",
			Guards: map[string]bool{}, FinishReason: results.FinishAnswered, Final: "answer " + task, Verdict: verdict(ownJudge, own)}
		switch own {
		case "pass":
			rec.Status = results.StatusPass
		case "fail":
			rec.Status, rec.ErrorClass = results.StatusFail, results.ClassAgent
		case "uncertain":
			rec.Status, rec.ErrorClass, rec.Error = results.StatusError, results.ClassUncertain, "uncertain: two candidates"
		case "error":
			rec.Status, rec.ErrorClass, rec.Error = results.StatusError, results.ClassJudge, "judge failed"
		case "infra":
			rec.Status, rec.ErrorClass, rec.Error, rec.Verdict = results.StatusError, results.ClassInfra, "browser crashed", judge.Verdict{}
		}
		if r.parts && ownJudge == "state+answer" {
			rec.Verdict.Parts = []judge.Verdict{verdict("state", re["state"]), verdict("answer", re["answer"])}
		}
		line, _ := json.Marshal(rec)
		r.lines.Write(line)
		r.lines.WriteByte('\n')
		for name, out := range re {
			r.verdicts[name] = append(r.verdicts[name], results.VerdictRecord{AttemptID: rec.AttemptID, TaskID: task,
				Variant: "default", Verdict: verdict(name, out)})
		}
	}
}

// write writes attempts.jsonl and the verdicts files of the judges named (all when none is; a name with no
// verdicts, like "none", writes none).
func (r *agreementRun) write(judges ...string) string {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.dir, results.AttemptsFile), []byte(r.lines.String()), 0o644); err != nil {
		r.t.Fatal(err)
	}
	if len(judges) == 0 {
		for name := range r.verdicts {
			judges = append(judges, name)
		}
	}
	for _, name := range judges {
		if _, ok := r.verdicts[name]; !ok {
			continue // a name without verdicts ("none"): attempts.jsonl only
		}
		if _, err := results.WriteVerdicts(r.dir, name, r.verdicts[name]); err != nil {
			r.t.Fatal(err)
		}
	}
	return r.dir
}

// reportDoc is the part of bench report --format json this file checks.
type reportDoc struct {
	Variants []struct {
		Passes int `json:"passes"`
		N      int `json:"n"`
	} `json:"variants"`
	UncertainBounds []struct {
		Variant           string   `json:"variant"`
		Decided           int      `json:"decided"`
		Uncertain         int      `json:"uncertain"`
		Passes            int      `json:"passes"`
		Rate              *float64 `json:"rate"`
		RateUncertainFail *float64 `json:"rate_uncertain_as_fail"`
		RateUncertainPass *float64 `json:"rate_uncertain_as_pass"`
	} `json:"uncertain_bounds"`
	Judges []struct {
		Judge       string         `json:"judge"`
		JudgedBy    map[string]int `json:"judged_by"`
		Attempts    int            `json:"attempts"`
		Decided     int            `json:"decided"`
		Passes      int            `json:"passes"`
		Uncertain   int            `json:"uncertain"`
		JudgeErrors int            `json:"judge_errors"`
		Rate        *float64       `json:"rate"`
		Lower       *float64       `json:"rate_uncertain_as_fail"`
		Upper       *float64       `json:"rate_uncertain_as_pass"`
	} `json:"judges"`
	Agreement []agreementJSON `json:"judge_agreement"`
	ZooQA     *struct {
		agreementJSON
		GroundTruth     string   `json:"ground_truth"`
		Attempts        int      `json:"attempts"`
		MissingVerdicts []string `json:"missing_verdicts"`
		Source          []string `json:"source"`
		FalsePassIDs    []string `json:"false_pass_ids"`
		FalseFailIDs    []string `json:"false_fail_ids"`
		BothFailNoAns   int      `json:"both_fail_no_answer"`
		FalsePass       int      `json:"false_pass"`
		FalseFail       int      `json:"false_fail"`
	} `json:"zoo_qa_ground_truth"`
}

type agreementJSON struct {
	JudgeA            string    `json:"judge_a"`
	JudgeB            string    `json:"judge_b"`
	N                 int       `json:"n"`
	Table             [2][2]int `json:"table"`
	Kappa             *float64  `json:"kappa"`
	SE                *float64  `json:"se"`
	BothPass          int       `json:"both_pass"`
	APassBFail        int       `json:"a_pass_b_fail"`
	AFailBPass        int       `json:"a_fail_b_pass"`
	BothFail          int       `json:"both_fail"`
	Skipped           int       `json:"skipped"`
	SkippedMissingA   int       `json:"skipped_missing_a"`
	SkippedMissingB   int       `json:"skipped_missing_b"`
	SkippedUncertain  int       `json:"skipped_uncertain"`
	SkippedJudgeError int       `json:"skipped_judge_error"`
}

func reportJSON(t *testing.T, dir string, extra ...string) reportDoc {
	t.Helper()
	out, stderr, code := bench(t, append([]string{"report", dir, "--format", "json"}, extra...)...)
	var doc reportDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("report --format json: exit %d, %v\n%s%s", code, err, out, stderr)
	}
	return doc
}

func isNear(p *float64, want float64) bool { return p != nil && near(*p, want, 5e-4) }

// twoJudgeRun is the run of TestReportJudgeAgreement: the run's own (answer) verdicts and a re-judge "llm"'s
// agree on 50 attempts as the two readers of Wikipedia's worked example of Cohen's κ
// (https://en.wikipedia.org/wiki/Cohen%27s_kappa, "Simple example": 20 yes–yes, 5 yes–no, 10 no–yes, 15 no–no
// of 50, κ = 0.4 — po = 0.7, pe = 0.5·0.6 + 0.5·0.4 = 0.5); four more attempts are skipped (two uncertain by
// the run's own judge, one without an llm verdict, one an llm judge error) and one infrastructure error was
// never judged.
func twoJudgeRun(t *testing.T) string {
	r := newAgreementRun(t)
	r.add(20, "answer", "pass", map[string]string{"llm": "pass"})
	r.add(5, "answer", "pass", map[string]string{"llm": "fail"})
	r.add(10, "answer", "fail", map[string]string{"llm": "pass"})
	r.add(15, "answer", "fail", map[string]string{"llm": "fail"})
	r.add(2, "answer", "uncertain", map[string]string{"llm": "pass"})
	r.add(1, "answer", "pass", nil)
	r.add(1, "answer", "fail", map[string]string{"llm": "error"})
	r.add(1, "answer", "infra", nil)
	return r.write()
}

// TestReportJudgeAgreement: bench report of a run with two judges' verdicts prints Cohen's κ = 0.4 (SE
// sqrt(po(1−po) / (n(1−pe)²)) = sqrt(0.21/12.5) = 0.130) and the confusion table 20/5/10/15, the 4 skipped
// attempts by why, and every pass rate with uncertain attempts as "N decided of M" with its bounds: the run's
// own 26/52 = 50.0%, 48.1% (26/54) counting the 2 uncertain as fails, 51.9% (28/54) as passes.
func TestReportJudgeAgreement(t *testing.T) {
	dir := twoJudgeRun(t)
	out, stderr, code := benchEnv(t, []string{"COLUMNS=400"}, "report", dir, "--wide") // a wide terminal: titles unwrapped
	if code != 0 {
		t.Fatalf("report: exit %d\n%s%s", code, out, stderr)
	}
	t.Logf("bench report %s:\n%s", dir, out)
	for _, want := range []string{
		"26/52 = 50.0% [36.9, 63.1] (52 decided of 54: 48.1–51.9%)",
		"agreement original vs llm over 50 attempts (4 skipped: 1 missing a verdict, 2 uncertain, 1 judge error); Cohen's κ = 0.400 (SE 0.130)",
		"│ original pass │ 20       │ 5        │",
		"│ original fail │ 10       │ 15       │",
		// The run's own verdicts name the judges that gave them.
		"│ original (answer 54) │ 54       │ 26/52 = 50.0% (52 decided of 54: 48.1–51.9%) │ 2         │ 0            │",
		"│ llm                  │ 53       │ 32/52 = 61.5%                                │ 0         │ 1            │",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(out, "Zoo Q&A") {
		t.Errorf("no Zoo Q&A attempt, yet a ground-truth line:\n%s", out)
	}

	doc := reportJSON(t, dir)
	if len(doc.Agreement) != 1 {
		t.Fatalf("judge_agreement: %+v, want one pair", doc.Agreement)
	}
	a := doc.Agreement[0]
	if a.JudgeA != "original" || a.JudgeB != "llm" || a.N != 50 || a.Table != [2][2]int{{20, 5}, {10, 15}} ||
		a.BothPass != 20 || a.APassBFail != 5 || a.AFailBPass != 10 || a.BothFail != 15 || !isNear(a.Kappa, 0.4) ||
		!isNear(a.SE, 0.1296) || a.Skipped != 4 || a.SkippedMissingA != 0 || a.SkippedMissingB != 1 ||
		a.SkippedUncertain != 2 || a.SkippedJudgeError != 1 {
		t.Errorf("judge_agreement: %+v (κ %v, SE %v)", a, ptrVal(a.Kappa), ptrVal(a.SE))
	}
	if len(doc.UncertainBounds) != 1 {
		t.Fatalf("uncertain_bounds: %+v", doc.UncertainBounds)
	}
	if b := doc.UncertainBounds[0]; b.Variant != "default" || b.Decided != 52 || b.Uncertain != 2 || b.Passes != 26 ||
		!isNear(b.Rate, 0.5) || !isNear(b.RateUncertainFail, 26.0/54) || !isNear(b.RateUncertainPass, 28.0/54) {
		t.Errorf("uncertain_bounds: %+v", b)
	}
	if len(doc.Judges) != 2 {
		t.Fatalf("judges: %+v", doc.Judges)
	}
	if j := doc.Judges[0]; j.Judge != "original" || j.Attempts != 54 || j.Decided != 52 || j.Passes != 26 || j.Uncertain != 2 ||
		j.JudgeErrors != 0 || !isNear(j.Lower, 26.0/54) || !isNear(j.Upper, 28.0/54) {
		t.Errorf("judges[original]: %+v", j)
	}
	if j := doc.Judges[1]; j.Judge != "llm" || j.Attempts != 53 || j.Decided != 52 || j.Passes != 32 || j.Uncertain != 0 ||
		j.JudgeErrors != 1 || !isNear(j.Rate, 32.0/52) || !isNear(j.Lower, 32.0/52) || !isNear(j.Upper, 32.0/52) {
		t.Errorf("judges[llm]: %+v", j)
	}
	if doc.ZooQA != nil || len(doc.Variants) != 1 || doc.Variants[0].N != 52 {
		t.Errorf("zoo_qa_ground_truth %+v, variants %+v", doc.ZooQA, doc.Variants)
	}

	// --judge llm: the pass rate is the re-judge's (the uncertain two are its passes); the agreement is the same.
	doc = reportJSON(t, dir, "--judge", "llm")
	if b := doc.UncertainBounds[0]; b.Decided != 52 || b.Passes != 32 || b.Uncertain != 0 || !isNear(b.RateUncertainFail, 32.0/52) {
		t.Errorf("--judge llm: uncertain_bounds %+v", b)
	}
	if len(doc.Agreement) != 1 || !isNear(doc.Agreement[0].Kappa, 0.4) {
		t.Errorf("--judge llm: judge_agreement %+v", doc.Agreement)
	}
}

// TestReportUncertainBoundsOneJudge: a plain run with only its own verdicts prints no agreement, only the bounds
// in the variants table: 3 passes, 1 fail, 2 uncertain → 3/4 = 75.0% (4 decided of 6: 50.0–83.3%).
func TestReportUncertainBoundsOneJudge(t *testing.T) {
	r := newAgreementRun(t)
	r.add(3, "answer", "pass", nil)
	r.add(1, "answer", "fail", nil)
	r.add(2, "answer", "uncertain", nil)
	dir := r.write()
	out, stderr, code := benchEnv(t, []string{"COLUMNS=400"}, "report", dir, "--wide") // a wide terminal: titles unwrapped
	if code != 0 || !strings.Contains(out, "3/4 = 75.0% [30.1, 95.4] (4 decided of 6: 50.0–83.3%)") ||
		strings.Contains(out, "agreement") || strings.Contains(out, "verdicts by judge") {
		t.Errorf("report: exit %d\n%s%s", code, out, stderr)
	}
	out, _, _ = bench(t, "report", dir, "--format", "md")
	if !strings.Contains(out, "| 3/4 = 75.0% [30.1, 95.4] (4 decided of 6: 50.0–83.3%) |") {
		t.Errorf("report --format md:\n%s", out)
	}
	doc := reportJSON(t, dir)
	if len(doc.Agreement) != 0 || doc.Agreement == nil || len(doc.Judges) != 1 || doc.Judges[0].Uncertain != 2 {
		t.Errorf("judges %+v, judge_agreement %+v (want [], not null)", doc.Judges, doc.Agreement)
	}
}

// TestReportZooQAGroundTruth: on Zoo Q&A attempts (judged by the state judge and the answer judge: verdict
// judge "state+answer"), the report compares the answer judge's re-judge with the state judge's as ground
// truth. The 20 decided pairs are the worked example of easycalculation.com's "Cohen's Kappa Index"
// (https://www.easycalculation.com/statistics/learn-cohens-kappa-index.php: 12 yes–yes, 2 yes–no, 4 no–yes,
// 2 no–no, κ = (0.7 − 0.62) / (1 − 0.62) = 0.21): 2 false passes (answer pass, state fail), 4 false fails; one
// more Q&A attempt is uncertain by the answer judge, and 3 attempts of state-only tasks are no Q&A.
func TestReportZooQAGroundTruth(t *testing.T) {
	r := newAgreementRun(t)
	r.add(12, "state+answer", "pass", map[string]string{"answer": "pass", "state": "pass"})
	r.add(2, "state+answer", "fail", map[string]string{"answer": "pass", "state": "fail"})
	r.add(4, "state+answer", "fail", map[string]string{"answer": "fail", "state": "pass"})
	r.add(2, "state+answer", "fail", map[string]string{"answer": "fail", "state": "fail"})
	r.add(1, "state+answer", "pass", map[string]string{"answer": "uncertain", "state": "pass"})
	r.add(3, "state", "pass", map[string]string{"answer": "error", "state": "pass"})

	dir := r.write("answer")                                                           // the state judge's verdicts not yet written
	out, stderr, code := benchEnv(t, []string{"COLUMNS=400"}, "report", dir, "--wide") // a wide terminal: titles unwrapped
	want := "answer judge vs state judge (ground truth) on Zoo Q&A: 21 attempts; no verdicts of state yet: run bench judge " +
		dir + " --judge state"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("without state verdicts: exit %d, lacks %q\n%s%s", code, want, out, stderr)
	}

	r.write("state")
	out, stderr, code = benchEnv(t, []string{"COLUMNS=400"}, "report", dir, "--wide") // a wide terminal: titles unwrapped
	t.Logf("bench report %s:\n%s", dir, out)
	for _, want := range []string{
		"answer judge vs state judge (ground truth) on Zoo Q&A: 21 attempts (answer: verdicts-answer.jsonl; state: " +
			"verdicts-state.jsonl), 20 compared (1 skipped: 0 missing a verdict, " +
			"1 uncertain, 0 judge errors); Cohen's κ = 0.211 (SE 0.270); 2 false passes (answer pass, state fail), " +
			"4 false fails (answer fail, state pass)",
		"│ answer pass │ 12         │ 2          │",
		"│ answer fail │ 4          │ 2          │",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("report: exit %d, lacks %q\n%s", code, want, stderr)
		}
	}
	doc := reportJSON(t, dir)
	gt := doc.ZooQA
	if gt == nil {
		t.Fatal("no zoo_qa_ground_truth")
	}
	if gt.GroundTruth != "state" || gt.Attempts != 21 || len(gt.MissingVerdicts) != 0 || gt.JudgeA != "answer" ||
		gt.JudgeB != "state" || gt.N != 20 || gt.FalsePass != 2 || gt.FalseFail != 4 || gt.BothPass != 12 || gt.BothFail != 2 ||
		!isNear(gt.Kappa, 0.08/0.38) || gt.Skipped != 1 || gt.SkippedUncertain != 1 {
		t.Errorf("zoo_qa_ground_truth: %+v (κ %v)", *gt, ptrVal(gt.Kappa))
	}
	// Over all 24 attempts the three pairs of judges: the state-only tasks' answer judge errors are skipped.
	if len(doc.Agreement) != 3 || doc.Agreement[0].JudgeB != "answer" || doc.Agreement[2].JudgeA != "answer" ||
		doc.Agreement[2].JudgeB != "state" || doc.Agreement[2].N != 20 || doc.Agreement[2].SkippedJudgeError != 3 {
		t.Errorf("judge_agreement: %+v", doc.Agreement)
	}
}

// TestReportZooQAOwnParts: a run whose Zoo Q&A records carry their own state and answer verdicts (Parts) shows the
// ground-truth table with no re-judge at all, from the same easycalculation.com counts (κ = 0.08/0.38); a re-judge
// of the answer judge then replaces the run's own answer verdicts (here: all pass, so the 4 state fails are false passes).
func TestReportZooQAOwnParts(t *testing.T) {
	r := newAgreementRun(t)
	r.parts = true
	r.add(12, "state+answer", "pass", map[string]string{"answer": "pass", "state": "pass"})
	r.add(2, "state+answer", "fail", map[string]string{"answer": "pass", "state": "fail"})
	r.add(4, "state+answer", "fail", map[string]string{"answer": "fail", "state": "pass"})
	r.add(2, "state+answer", "fail", map[string]string{"answer": "fail", "state": "fail"})
	dir := r.write("none")
	out, stderr, code := benchEnv(t, []string{"COLUMNS=400"}, "report", dir, "--wide") // a wide terminal: titles unwrapped
	want := "answer judge vs state judge (ground truth) on Zoo Q&A: 20 attempts (both judges: the run's own verdicts), 20 compared (0 skipped: 0 missing a verdict, 0 uncertain, 0 judge errors); " +
		"Cohen's κ = 0.211 (SE 0.270); 2 false passes (answer pass, state fail), 4 false fails (answer fail, state pass)"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("own parts: exit %d, lacks %q\n%s%s", code, want, out, stderr)
	}
	if !strings.Contains(out, "Zoo Q&A false passes (answer judge vs state judge): ") ||
		!strings.Contains(out, "Zoo Q&A false fails (answer judge vs state judge): ") {
		t.Errorf("the disagreements are not listed:\n%s", out)
	}
	doc := reportJSON(t, dir)
	if g := doc.ZooQA; g == nil || len(g.FalsePassIDs) != 2 || len(g.FalseFailIDs) != 4 || g.BothFailNoAns != 0 ||
		!strings.Contains(out, strings.Join(g.FalsePassIDs, ", ")) {
		t.Errorf("zoo_qa_ground_truth ids: %+v", g)
	}
	if len(doc.Judges) != 1 || !maps.Equal(doc.Judges[0].JudgedBy, map[string]int{"state+answer": 20}) {
		t.Errorf("judges: %+v, want the original's judged_by {state+answer: 20}", doc.Judges)
	}
	gt := doc.ZooQA
	if gt == nil || gt.N != 20 || gt.FalsePass != 2 || gt.FalseFail != 4 || len(gt.MissingVerdicts) != 0 ||
		!slices.Equal(gt.Source, []string{"answer: the run's own verdicts", "state: the run's own verdicts"}) {
		t.Fatalf("zoo_qa_ground_truth: %+v", gt)
	}

	// A re-judge of the answer judge passes all 20: it wins over the run's own answer verdicts.
	for i := range r.verdicts["answer"] {
		r.verdicts["answer"][i].Verdict = judge.Verdict{Judge: "answer", Pass: true, Reason: "re-judged"}
	}
	r.write("answer")
	gt = reportJSON(t, dir).ZooQA
	if gt == nil || gt.N != 20 || gt.FalsePass != 4 || gt.FalseFail != 0 || gt.BothPass != 16 ||
		!slices.Equal(gt.Source, []string{"answer: verdicts-answer.jsonl", "state: the run's own verdicts"}) {
		t.Fatalf("zoo_qa_ground_truth after answer re-judge: %+v", gt)
	}
}

// TestPairVerdictsKappaReference: judge.PairVerdicts pairs by attempt id over the union of both judges'
// attempts, and CompareJudges on its pairs gives the easycalculation.com example's κ = 0.08/0.38.
func TestPairVerdictsKappaReference(t *testing.T) {
	a, b := map[string]judge.Verdict{}, map[string]judge.Verdict{}
	i := 0
	for _, c := range []struct {
		n      int
		pa, pb bool
	}{{12, true, true}, {2, true, false}, {4, false, true}, {2, false, false}} {
		for range c.n {
			id := fmt.Sprintf("a%02d", i)
			i++
			a[id], b[id] = judge.Verdict{Pass: c.pa}, judge.Verdict{Pass: c.pb}
		}
	}
	a["only-a"], b["only-b"] = judge.Verdict{Pass: true}, judge.Verdict{Pass: true}
	a["unsure"], b["unsure"] = judge.Verdict{Pass: true}, judge.Verdict{Uncertain: true}
	a["err"], b["err"] = judge.Verdict{Error: "x"}, judge.Verdict{Uncertain: true}
	p := judge.PairVerdicts(a, b)
	if len(p.IDs) != 20 || p.MissingA != 1 || p.MissingB != 1 || p.Uncertain != 1 || p.Errors != 1 || p.Skipped() != 4 {
		t.Errorf("PairVerdicts: %d pairs, %+v", len(p.IDs), p)
	}
	ag := judge.CompareJudges(p.A, p.B)
	if ag.Table != [2][2]int{{12, 2}, {4, 2}} || !isNear(ag.Kappa, 0.08/0.38) || !near(ag.Chance, 0.62, 1e-12) {
		t.Errorf("CompareJudges: %+v (κ %v)", ag, ptrVal(ag.Kappa))
	}
}

func ptrVal(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// A re-judged ablation run's report (table and md) carries the judges' agreement after its analysis: the
// v2ablate fixture's two passes (state judge) re-judged by "llm" as one pass and one fail give the confusion
// table 1 / 1 / 0 / 0: po = 0.5, pe = 1·0.5 + 0·0.5 = 0.5, so κ = 0 and SE = sqrt(0.5·0.5 / (2·0.5²)) = 0.707.
func TestReportAblationJudgeAgreement(t *testing.T) {
	dir := fixtureCopy(t, "v2ablate")
	if _, err := results.WriteVerdicts(dir, "llm", []results.VerdictRecord{
		{AttemptID: "2ab84df9e96af7f2", Verdict: judge.Verdict{Judge: "llm", Pass: true, Reason: "ok"}},
		{AttemptID: "b997634ce72945f6", Verdict: judge.Verdict{Judge: "llm", Reason: "no"}}}); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"table", "md"} {
		out, stderr, code := bench(t, "report", dir, "--format", format)
		if code != 0 {
			t.Fatalf("--format %s: exit %d: %s", format, code, stderr)
		}
		want := "agreement original vs llm over 2 attempts (0 skipped: 0 missing a verdict, 0 uncertain, 0 judge errors); " +
			"Cohen's κ = 0.000 (SE 0.707)"
		// The table format wraps long lines at the width: compare with the whitespace folded.
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) || !strings.Contains(out, "original pass") {
			t.Errorf("--format %s: no agreement section %q in:\n%s", format, want, out)
		}
	}
	// The html report shows it in its section Judges, escaped; the junit report in a last testsuite "judges"
	// that fails nothing.
	want := "agreement original vs llm over 2 attempts (0 skipped: 0 missing a verdict, 0 uncertain, 0 judge errors); " +
		"Cohen&#39;s κ = 0.000 (SE 0.707)"
	if _, stderr, code := bench(t, "report", dir, "--format", "html"); code != 0 {
		t.Fatalf("--format html: exit %d: %s", code, stderr)
	}
	if page, err := os.ReadFile(filepath.Join(dir, "report.html")); err != nil || !strings.Contains(string(page), "<h2>Judges</h2>") ||
		!strings.Contains(string(page), "<h3>"+want+"</h3>") {
		t.Errorf("--format html: %v, no judges section %q in:\n%s", err, want, page)
	}
	junit, stderr, code := bench(t, "report", dir, "--format", "junit")
	if i := strings.Index(junit, `<testsuite name="judges"`); code != 0 || i < 0 || !strings.Contains(junit[i:], want) ||
		!strings.Contains(junit[i:], `tests="0" failures="0" errors="0"`) {
		t.Errorf("--format junit: exit %d, %s; no judges testsuite with %q in:\n%s", code, stderr, want, junit)
	}
	// The JSON report carries the same agreement after the analysis's keys.
	out, stderr, code := bench(t, "report", dir, "--format", "json")
	var doc struct {
		Arms      []json.RawMessage `json:"arms"`
		Agreement []agreementJSON   `json:"judge_agreement"`
		Judges    []struct {
			Judge    string `json:"judge"`
			Attempts int    `json:"attempts"`
		} `json:"judges"`
	}
	err := json.Unmarshal([]byte(out), &doc)
	var ol *agreementJSON // the pair original–llm (the fixture also holds answer and state re-judges)
	for i, a := range doc.Agreement {
		if a.JudgeA == "original" && a.JudgeB == "llm" {
			ol = &doc.Agreement[i]
		}
	}
	if code != 0 || err != nil || len(doc.Arms) == 0 || ol == nil || ol.N != 2 || ol.BothPass != 1 || ol.APassBFail != 1 ||
		!isNear(ol.Kappa, 0) || !isNear(ol.SE, 0.7071067811865476) || len(doc.Judges) != 4 {
		t.Errorf("--format json: exit %d, %v, %+v\n%s", code, err, doc, stderr)
	}
	// bench judge --agreement pairs them the same way.
	out, stderr, code = bench(t, "judge", dir, "--agreement", "original,llm")
	if want := "agreement original vs llm over 2 attempts (0 skipped: 0 missing a verdict, 0 uncertain, 0 judge errors); " +
		"Cohen's κ = 0.000 (SE 0.707)"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("bench judge --agreement: exit %d, %s%s; want %q", code, stderr, out, want)
	}
}
