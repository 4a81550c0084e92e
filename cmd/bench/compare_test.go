package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"webbench/judge"
	"webbench/report"
	"webbench/results"
)

// runSpec describes a synthetic run directory: tasks first..first+tasks−1 × reps of variant "default", task i
// failing when fail(i); every record carries seed+10i+rep, model scripted:observed and the guards
// snapshot_ready (off when snapshotOff) and intercept_hint (on); baseSeed goes into the manifest's plan.
type runSpec struct {
	first, tasks, reps int
	seed               int
	baseSeed           int64
	snapshotOff        bool
	fail               func(task int) bool
	variant            string // default "default"
	// rejudge, when set, gives every record the verdict of a re-judge "llm": pass when rejudge(task).
	rejudge func(task int) bool
	// infra, when set, turns the task's records into infrastructure errors (status error, class infra).
	infra func(task int) bool
}

func writeRun(t *testing.T, s runSpec) string {
	t.Helper()
	dir := t.TempDir()
	variant := s.variant
	if variant == "" {
		variant = "default"
	}
	m := &results.Manifest{SchemaVersion: results.SchemaVersion, RunID: filepath.Base(dir), Plan: results.Plan{Suite: "zoo",
		Reps: s.reps, BaseSeed: s.baseSeed, Baseline: variant, Variants: []results.Variant{{Name: variant}}}}
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var verdicts []results.VerdictRecord
	for i := s.first; i < s.first+s.tasks; i++ {
		for r := 0; r < s.reps; r++ {
			task := fmt.Sprintf("task-%02d", i)
			pid := results.PairID("zoo", task, r)
			seed := s.seed + i*10 + r
			rec := results.Attempt{SchemaVersion: results.SchemaVersion, AttemptID: results.AttemptID(variant, pid),
				PairID: pid, Variant: variant, TaskID: task, Suite: "zoo", Cluster: task, Rep: r, Seed: &seed,
				Model: "scripted:observed", Guards: map[string]bool{"snapshot_ready": !s.snapshotOff, "intercept_hint": true},
				Status: results.StatusPass}
			if s.fail != nil && s.fail(i) {
				rec.Status, rec.ErrorClass = results.StatusFail, results.ClassAgent
			}
			if s.infra != nil && s.infra(i) {
				rec.Status, rec.ErrorClass, rec.Error, rec.FailureMode = results.StatusError, results.ClassInfra, "browser crashed", results.ModeInfra
			}
			if s.rejudge != nil {
				verdicts = append(verdicts, results.VerdictRecord{AttemptID: rec.AttemptID, TaskID: task, Variant: variant,
					Verdict: judge.Verdict{Judge: "llm", Pass: s.rejudge(i)}})
			}
			line, _ := json.Marshal(rec)
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	if err := os.WriteFile(filepath.Join(dir, results.AttemptsFile), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if verdicts != nil {
		if _, err := results.WriteVerdicts(dir, "llm", verdicts); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// comparison is the JSON of bench compare, field names as the README ("Results") lists them.
type comparison struct {
	SchemaVersion  int        `json:"schema_version"`
	RunA           string     `json:"run_a"`
	RunB           string     `json:"run_b"`
	Variant        string     `json:"variant"`
	VariantB       string     `json:"variant_b"`
	RateA          float64    `json:"rate_a"`
	RateB          float64    `json:"rate_b"`
	NA             int        `json:"n_a"`
	NB             int        `json:"n_b"`
	Method         string     `json:"method"`
	Delta          float64    `json:"delta"`
	DeltaCI        [2]float64 `json:"delta_ci"`
	P              float64    `json:"p"`
	Pairs          int        `json:"pairs"`
	PairsPassA     int        `json:"pairs_pass_a"`
	PairsPassB     int        `json:"pairs_pass_b"`
	TasksCompared  int        `json:"tasks_compared"`
	Informative    int        `json:"informative_tasks"`
	Rescued        int        `json:"rescued"`
	Broke          int        `json:"broke"`
	PMcNemar       *float64   `json:"p_mcnemar"`
	UnmatchedA     int        `json:"unmatched_a"`
	UnmatchedB     int        `json:"unmatched_b"`
	DroppedPairs   int        `json:"dropped_pairs"`
	SeedMismatches int        `json:"seed_mismatches"`
	MDE            *float64   `json:"mde"`
	PFisher        float64    `json:"p_fisher"`
	NewFailures    []string   `json:"new_failures"`
	Fixed          []string   `json:"fixed"`
	Tasks          []struct {
		Task   string         `json:"task"`
		PassA  int            `json:"passes_a"`
		NA     int            `json:"n_a"`
		PassB  int            `json:"passes_b"`
		NB     int            `json:"n_b"`
		Change string         `json:"change"`
		Delta  float64        `json:"delta"`
		ModesB map[string]int `json:"failure_modes_b"`
	} `json:"tasks"`
	Differences []string `json:"differences"`
	Warnings    []string `json:"warnings"`
	Gate        *struct {
		Margin     float64 `json:"margin"`
		Failed     bool    `json:"failed"`
		Why        string  `json:"why"`
		NotApplied bool    `json:"not_applied"`
	} `json:"gate"`
	// The paired figures (README "Results").
	CIMethod           *string        `json:"ci_method"`
	MovedTasks         int            `json:"moved_tasks"`
	PMcNemarClustered  *float64       `json:"p_mcnemar_clustered"`
	CommonPairs        int            `json:"common_pairs"`
	ErrorsA            map[string]int `json:"errors_a"`
	ErrorsB            map[string]int `json:"errors_b"`
	DifferentialErrors []string       `json:"differential_errors"`
	ErrorBounds        *struct {
		Pairs  int `json:"pairs"`
		AsFail struct {
			Delta   float64    `json:"delta"`
			DeltaCI [2]float64 `json:"delta_ci"`
			P       float64    `json:"p"`
		} `json:"as_fail"`
		AsPass struct {
			Delta   float64    `json:"delta"`
			DeltaCI [2]float64 `json:"delta_ci"`
			P       float64    `json:"p"`
		} `json:"as_pass"`
		AsFailBoth struct {
			Delta   float64    `json:"delta"`
			DeltaCI [2]float64 `json:"delta_ci"`
			P       float64    `json:"p"`
		} `json:"as_fail_both"`
	} `json:"error_bounds"`
	// The paired cost outcomes and the cost gate (README "Results"; their fields as bench report's JSON).
	Costs    []json.RawMessage `json:"costs"`
	CostGate json.RawMessage   `json:"cost_gate"`
	// Why the pairs moved (README "Why pairs moved"): the runs written here keep no trajectory, so every
	// examined pair is unread.
	Why *struct {
		Variants []struct {
			Variant    string            `json:"variant"`
			Pairs      []json.RawMessage `json:"pairs"`
			Groups     []json.RawMessage `json:"groups"`
			Discordant int               `json:"discordant"`
			Unguarded  int               `json:"unguarded"`
			Unread     int               `json:"unread"`
		} `json:"variants"`
		MaterialSteps      int     `json:"material_steps"`
		MaterialTokenRatio float64 `json:"material_token_ratio"`
	} `json:"why"`
	WhyLines *struct {
		Unread string   `json:"unread"`
		Moved  []string `json:"moved"`
		Cost   []string `json:"cost"`
		Noise  string   `json:"noise"`
		Note   string   `json:"note"`
	} `json:"why_lines"`
	Verdict         string `json:"verdict"`
	VerdictKind     string `json:"verdict_kind"`
	NewFailureModes []struct {
		Name string `json:"name"`
		N    int    `json:"n"`
	} `json:"new_failure_modes"`
}

// compareJSON runs bench compare --format json and decodes it, refusing fields the README does not list.
func compareJSON(t *testing.T, args ...string) comparison {
	t.Helper()
	out, stderr, code := bench(t, append([]string{"compare", "--format", "json"}, args...)...)
	var c comparison
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("compare %v: exit %d, %v\n%s%s", args, code, err, out, stderr)
	}
	return c
}

func firstSix(i int) bool { return i < 6 }

// TestCompare checks bench compare on runs of 10 tasks × 2 reps where run B fails tasks 0–5 that run A passes.
// Paired (STATS.md §2) over tasks, d = (−1 ×6, 0 ×4): Δ = −0.6, exact sign-flip p = 2/2^6 = 0.03125, adjusted
// interval (6 moved tasks < 12) (−6 ± z·√((8/12 − 0.25)·12))/12 = [−0.865218, −0.134782]; McNemar broke 12, rescued 0, p = 2·0.5^12 = 0.000488. The same pairs with other seeds
// stay paired (same numbers) with a seed warning. Runs without a common task are unpaired: Fisher exact on
// 20/20 vs 8/20, p = 2·C(28,20)/C(40,20) = 4.51e-5.
func TestCompare(t *testing.T) {
	a := writeRun(t, runSpec{tasks: 10, reps: 2, seed: 100, baseSeed: 1})
	b := writeRun(t, runSpec{tasks: 10, reps: 2, seed: 100, baseSeed: 1, snapshotOff: true, fail: firstSix})
	otherSeed := writeRun(t, runSpec{tasks: 10, reps: 2, seed: 5000, baseSeed: 2, snapshotOff: true, fail: firstSix})
	otherTasks := writeRun(t, runSpec{first: 10, tasks: 10, reps: 2, seed: 100, baseSeed: 1, fail: func(i int) bool { return i < 16 }})

	for name, dir := range map[string]string{"same seed": b, "other seed": otherSeed} {
		c := compareJSON(t, a, dir)
		if c.Method != "paired_signflip" || c.Pairs != 20 || c.TasksCompared != 10 || c.Informative != 6 ||
			c.PairsPassA != 20 || c.PairsPassB != 8 || c.CIMethod == nil || *c.CIMethod != "adjusted" {
			t.Errorf("%s: method %s, %d pairs (%d→%d) on %d tasks (%d informative); want paired_signflip, 20 (20→8) on 10 (6)",
				name, c.Method, c.Pairs, c.PairsPassA, c.PairsPassB, c.TasksCompared, c.Informative)
		}
		if !near(c.Delta, -0.6, 1e-9) || !near(c.P, 0.03125, 1e-12) || !near(c.DeltaCI[0], -0.865218, 5e-6) ||
			!near(c.DeltaCI[1], -0.134782, 5e-6) {
			t.Errorf("%s: paired Δ %v [%v, %v] p %v; want -0.6 [-0.865218, -0.134782] p 0.03125", name, c.Delta, c.DeltaCI[0], c.DeltaCI[1], c.P)
		}
		if c.Why == nil || len(c.Why.Variants) != 1 || c.Why.Variants[0].Unread != 12 || c.Why.Variants[0].Discordant != 0 ||
			len(c.Why.Variants[0].Groups) != 0 || c.WhyLines == nil || len(c.WhyLines.Moved) != 0 ||
			!strings.HasPrefix(c.WhyLines.Unread, "12 pairs") {
			t.Errorf("%s: why %+v lines %+v; want the 12 broken pairs unread (no trajectories), no cause line", name, c.Why, c.WhyLines)
		}
		if c.Broke != 12 || c.Rescued != 0 || c.PMcNemar == nil || !near(*c.PMcNemar, 0.000488, 5e-7) {
			t.Errorf("%s: McNemar broke %d rescued %d p %v; want 12, 0, 0.000488", name, c.Broke, c.Rescued, c.PMcNemar)
		}
		if len(c.NewFailures) != 6 || c.NewFailures[0] != "task-00" || len(c.Fixed) != 0 || c.MDE == nil {
			t.Errorf("%s: new failures %v, fixed %v, MDE %v", name, c.NewFailures, c.Fixed, c.MDE)
		}
		modes := 0
		for _, m := range c.NewFailureModes {
			modes += m.N
		}
		if modes < 6 || !strings.HasPrefix(c.Verdict, "Verdict: run B vs run A: ") || c.VerdictKind == "" {
			t.Errorf("%s: new failures' modes %v (want one per failed attempt of the 6 tasks), verdict %q (%q)", name,
				c.NewFailureModes, c.Verdict, c.VerdictKind)
		}
		warned := strings.Contains(strings.Join(c.Warnings, "\n"), "20 of 20 pairs ran with different seeds")
		if want := name == "other seed"; c.SeedMismatches != map[bool]int{true: 20}[want] || warned != want {
			t.Errorf("%s: seed_mismatches %d, warned %v; warnings %q", name, c.SeedMismatches, warned, c.Warnings)
		}
	}
	if c := compareJSON(t, a, otherSeed); strings.Join(c.Differences, "; ") != "guard snapshot_ready on → off; seed 1 → 2" {
		t.Errorf("differences = %q", c.Differences)
	}

	c := compareJSON(t, a, otherTasks)
	if c.Method != "fisher" || c.Pairs != 0 || c.PMcNemar != nil || !near(c.Delta, -0.6, 1e-9) ||
		!near(c.P, 4.5095e-5, 5e-9) || !near(c.PFisher, c.P, 1e-12) {
		t.Errorf("no common task: method %s, %d pairs, Δ %v, p %v (Fisher %v); want fisher, 0, -0.6, 4.5095e-5",
			c.Method, c.Pairs, c.Delta, c.P, c.PFisher)
	}
	if !strings.Contains(strings.Join(c.Warnings, "\n"), "compared unpaired") ||
		!strings.Contains(strings.Join(c.Differences, "; "), "tasks: 10 only in A, 10 only in B") {
		t.Errorf("no common task: warnings %q, differences %q", c.Warnings, c.Differences)
	}
	if c.VerdictKind != "no_common_pairs" || !strings.HasPrefix(c.Verdict, "Verdict: run B vs run A: no verdict — the runs share no "+
		"(task, rep) pair judged in both: run A has 10 judged tasks, run B 10, none in common") || c.Gate != nil {
		t.Errorf("no common task: verdict %q (%s), gate %+v; want no verdict with the counts, no gate", c.Verdict, c.VerdictKind, c.Gate)
	}
	if out, stderr, code := bench(t, "compare", a, otherTasks, "--fail-if-worse", "0.05"); code != 2 ||
		!strings.Contains(stderr, "--fail-if-worse: "+a+" and "+otherTasks+" share no task") ||
		!strings.Contains(out, "no verdict") || !strings.Contains(out, "Gate: not applied") || strings.Contains(out, "passed") {
		t.Errorf("gate on runs without a common task: exit %d, %q\n%s; want exit 2, the report with no verdict and the gate not applied",
			code, stderr, out)
	}

	table, _, _ := bench(t, "compare", a, b, "--fail-if-worse", "0.05")
	for _, want := range []string{"paired: 20→8 of 20 pairs, 10 tasks (6 informative)", "-60.0 [-86.5, -13.5] adj.",
		"rescued 0, broke 12", "task-05", "new_failure", "4 tasks with the same pass rate",
		"The runs differ in: guard snapshot_ready on → off.", "p below alpha): FAILED."} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}

// TestCompareNoCommonPair: runs of tasks 0–9 and 10–19 share no pair; every format says there is no verdict and
// why, without a verdict word, and a gate is not applied (exit 2, the report still printed). Runs sharing 2 of
// their 10 tasks compare those 2 and say so in the headline.
func TestCompareNoCommonPair(t *testing.T) {
	a := writeRun(t, runSpec{tasks: 10, reps: 1, seed: 1})
	b := writeRun(t, runSpec{first: 10, tasks: 10, reps: 1, seed: 1, fail: func(i int) bool { return i < 16 }})
	why := "the runs share no (task, rep) pair judged in both: run A has 10 judged tasks, run B 10, none in common"
	for _, f := range []string{"table", "md", "json", "html", "junit"} {
		out, stderr, code := bench(t, "compare", "--format", f, a, b)
		flat := strings.Join(strings.Fields(html.UnescapeString(out)), " ")
		if code != 0 || !strings.Contains(flat, "no verdict") || !strings.Contains(flat, why) {
			t.Errorf("--format %s: exit %d, %s; want no verdict and %q in\n%s", f, code, stderr, why, out)
		}
		for _, word := range []string{"worse —", "better —", "no difference shown"} {
			if strings.Contains(flat, word) {
				t.Errorf("--format %s says %q on runs without a common pair:\n%s", f, word, out)
			}
		}
		out, stderr, code = bench(t, "compare", "--format", f, a, b, "--fail-if-worse", "0.05")
		flat = strings.Join(strings.Fields(html.UnescapeString(out)), " ")
		if code != 2 || !strings.Contains(flat, "Gate: not applied") || !strings.Contains(stderr, "share no task judged in both") {
			t.Errorf("--format %s --fail-if-worse: exit %d, %q; want exit 2 and the gate not applied in\n%s", f, code, stderr, out)
		}
	}
	if c := compareJSON(t, a, b, "--fail-if-worse", "0.05"); c.Gate == nil || !c.Gate.NotApplied || c.Gate.Failed {
		t.Errorf("json gate %+v; want not_applied, not failed", c.Gate)
	}
	near := writeRun(t, runSpec{first: 8, tasks: 10, reps: 1, seed: 1})
	if c := compareJSON(t, a, near); c.VerdictKind == "no_common_pairs" || c.Pairs != 2 ||
		!strings.Contains(c.Verdict, "on 2 tasks, of 10 in run A and 10 in run B, Δ") {
		t.Errorf("2 of 10 tasks in common: %d pairs, verdict %q (%s); want the 2 compared and the 10 named", c.Pairs, c.Verdict, c.VerdictKind)
	}
}

// TestCompareGate: exit 1 only when B is worse by more than the margin with the interval below 0 and p < 0.05.
// Every task −1 gives the exact sign-flip p 2/2^G and the adjusted interval (never the point [−1, −1]): 0.125
// on 4 tasks (the gate passes, inconclusive), 0.03125 on 6 (it fails).
func TestCompareGate(t *testing.T) {
	a := writeRun(t, runSpec{tasks: 10, reps: 2, seed: 100})
	b := writeRun(t, runSpec{tasks: 10, reps: 2, seed: 100, fail: firstSix})
	// The gate line is printed once, in the report on stdout; stderr names the runs and variants without it.
	if out, stderr, code := bench(t, "compare", a, b, "--fail-if-worse", "0.05"); code != 1 ||
		strings.Count(out, "is worse than") != 1 || strings.Count(strings.Join(strings.Fields(out), " "), "its whole interval is below 0") != 1 ||
		strings.Contains(stderr, "is worse than") || strings.Contains(stderr, "its whole interval") ||
		!strings.Contains(stderr, "the gate failed: run B "+b+" (variant default) against run A "+a+" (variant default)") {
		t.Errorf("worse: exit %d, stdout %q, stderr %q; want exit 1, the gate line once on stdout", code, out, stderr)
	}
	if out, stderr, code := bench(t, "compare", b, a, "--fail-if-worse", "0.05"); code != 0 ||
		!strings.Contains(strings.Join(strings.Fields(out), " "), "p below alpha): passed: "+a+" (variant default) is not shown worse than "+b) {
		t.Errorf("better: exit %d, %s%s", code, out, stderr)
	}
	for _, n := range []struct {
		tasks int
		p     float64
		code  int
	}{{4, 0.125, 0}, {6, 0.03125, 1}} {
		x := writeRun(t, runSpec{tasks: n.tasks, reps: 1, seed: 1})
		y := writeRun(t, runSpec{tasks: n.tasks, reps: 1, seed: 1, fail: func(int) bool { return true }})
		c := compareJSON(t, x, y, "--fail-if-worse", "0.1")
		if c.Method != "paired_signflip" || !near(c.P, n.p, 1e-12) || c.Gate == nil || c.Gate.Failed != (n.code == 1) {
			t.Errorf("%d tasks all −1: method %s, p %v, gate %+v; want paired_signflip, %v, failed %v", n.tasks, c.Method, c.P, c.Gate, n.p, n.code == 1)
		}
		if out, stderr, code := bench(t, "compare", x, y, "--fail-if-worse", "0.1"); code != n.code ||
			(n.code == 1 && (!strings.Contains(out, "its whole interval is below 0") || strings.Contains(stderr, "its whole interval"))) {
			t.Errorf("%d tasks all −1: exit %d (want %d), %q", n.tasks, code, n.code, stderr)
		}
	}
	for _, m := range []string{"5", "-0.1", "0"} {
		if _, stderr, code := bench(t, "compare", a, b, "--fail-if-worse", m); code != 2 || !strings.Contains(stderr, "proportion in (0, 1)") {
			t.Errorf("--fail-if-worse %s: exit %d, %q; want exit 2", m, code, stderr)
		}
	}
	if out, _, code := bench(t, "compare", a, a); code != 0 || !strings.Contains(out, "same directory") || !strings.Contains(out, "A/A comparison") {
		t.Errorf("A vs A: exit %d\n%s", code, out)
	}
	if _, stderr, code := bench(t, "compare", a, b, "--variant", "nope"); code != 2 || !strings.Contains(stderr, `no variant "nope"`) {
		t.Errorf("unknown variant: exit %d, %q", code, stderr)
	}
	// An ablation's baseline against a plain run's default: --variant-b names run B's variant.
	abl := writeRun(t, runSpec{tasks: 10, reps: 2, seed: 100, variant: "baseline"})
	if _, stderr, code := bench(t, "compare", abl, b); code != 2 || !strings.Contains(stderr, "--variant-b") {
		t.Errorf("other variant names without --variant-b: exit %d, %q", code, stderr)
	}
	if c := compareJSON(t, abl, b, "--variant-b", "default"); c.Variant != "baseline" || c.VariantB != "default" ||
		c.Method != "paired_signflip" || c.Pairs != 20 || !near(c.Delta, -0.6, 1e-9) {
		t.Errorf("--variant-b: %s → %s, method %s, %d pairs, Δ %v; want baseline → default, paired_signflip, 20, -0.6",
			c.Variant, c.VariantB, c.Method, c.Pairs, c.Delta)
	}
	os.WriteFile(filepath.Join(b, results.ManifestFile), []byte(`{"schema_version": 99}`), 0o644)
	if _, stderr, code := bench(t, "compare", a, b); code != 2 || !strings.Contains(stderr, "schema_version 99") {
		t.Errorf("schema mismatch: exit %d, %q", code, stderr)
	}
}

// TestCompareAndReportWithJudge: --judge llm analyses the re-judge's verdicts. Run B fails tasks 0–5 by its own
// judge; the re-judge passes every task but 9 in both runs, so both pass 18 of the 20 pairs and Δ = 0.
func TestCompareAndReportWithJudge(t *testing.T) {
	notNine := func(i int) bool { return i != 9 }
	a := writeRun(t, runSpec{tasks: 10, reps: 2, seed: 100, rejudge: notNine})
	b := writeRun(t, runSpec{tasks: 10, reps: 2, seed: 100, fail: firstSix, rejudge: notNine})
	if c := compareJSON(t, a, b); !near(c.Delta, -0.6, 1e-9) {
		t.Errorf("own verdicts: Δ %v, want -0.6", c.Delta)
	}
	c := compareJSON(t, a, b, "--judge", "llm")
	if c.Pairs != 20 || c.PairsPassA != 18 || c.PairsPassB != 18 || c.Delta != 0 || len(c.NewFailures) != 0 {
		t.Errorf("--judge llm: %d pairs %d→%d, Δ %v, new failures %v; want 20 pairs 18→18, Δ 0, none",
			c.Pairs, c.PairsPassA, c.PairsPassB, c.Delta, c.NewFailures)
	}
	if _, stderr, code := bench(t, "compare", a, b, "--judge", "state"); code != 2 || !strings.Contains(stderr, `has no verdicts of judge "state"`) {
		t.Errorf("--judge without verdicts: exit %d, %q", code, stderr)
	}
	out, stderr, code := bench(t, "report", b, "--format", "json", "--judge", "llm")
	var doc struct {
		Variants []struct {
			Passes int `json:"passes"`
			N      int `json:"n"`
		} `json:"variants"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 || len(doc.Variants) != 1 || doc.Variants[0].Passes != 18 {
		t.Errorf("report --judge llm: exit %d, %v, %+v\n%s", code, err, doc, stderr)
	}
}

// TestReportFormats: bench report renders a plain run in every registered format (html writes DIR/report.html and
// prints its path) and refuses an unknown one, naming the formats.
func TestReportFormats(t *testing.T) {
	dir := writeRun(t, runSpec{tasks: 4, reps: 1, seed: 1, fail: func(i int) bool { return i == 0 }})
	for format, want := range map[string]string{"table": "3/4 = 75.0%", "md": "| default | scripted:observed | 4 | 3 |", "json": `"passes": 3`,
		"html": filepath.Join(dir, "report.html")} {
		out, stderr, code := bench(t, "report", dir, "--format", format)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("report --format %s: exit %d, lacks %q:\n%s%s", format, code, want, out, stderr)
		}
	}
	if page, err := os.ReadFile(filepath.Join(dir, "report.html")); err != nil || !strings.Contains(string(page), "<td>3/4 = 75.0% [30.1, 95.4]</td>") {
		t.Errorf("report.html: %v\n%s", err, page)
	}
	if _, stderr, code := bench(t, "report", dir, "--format", "xml"); code != 2 || !strings.Contains(stderr, `--format: unknown format "xml" (did you mean "html"?) (valid: `+strings.Join(report.Formats(), ", ")+")") {
		t.Errorf("--format xml: exit %d, %q", code, stderr)
	}
}

// TestCompareGateAtSpecAlpha: the gate of compare runs at the ablation spec's alpha when run A is an ablation. Run B
// fails 7 of 12 tasks run A passes (one rep): Δ = −7/12, p_paired = 2/2^7 = 0.0156 (exact sign-flip), interval
// [−82.8, −17.2] — below 0.05 (exit 1), not below 0.01.
func TestCompareGateAtSpecAlpha(t *testing.T) {
	a := writeRun(t, runSpec{tasks: 12, reps: 1, seed: 1, variant: "baseline"})
	b := writeRun(t, runSpec{tasks: 12, reps: 1, seed: 1, fail: func(i int) bool { return i < 7 }})
	if out, stderr, code := bench(t, "compare", a, b, "--variant-b", "default", "--fail-if-worse", "0.05"); code != 1 ||
		!strings.Contains(strings.Join(strings.Fields(out), " "), "p = 0.0156 is below 0.05") || !strings.Contains(stderr, "(variant default) against run A "+a+" (variant baseline)") {
		t.Errorf("plain run A: exit %d, %q; want exit 1 at α 0.05", code, stderr)
	}
	m, err := results.ReadManifest(a)
	if err != nil {
		t.Fatal(err)
	}
	m.Plan.Baseline, m.Plan.Ablation = "baseline", &results.Ablation{Alpha: 0.01}
	if err := results.WriteManifest(a, m); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := bench(t, "compare", a, b, "--variant-b", "default", "--fail-if-worse", "0.05")
	if one := strings.Join(strings.Fields(out), " "); code != 0 || !strings.Contains(one, "passed: "+b+" (variant default) is not shown worse than "+a) ||
		!strings.Contains(one, "Inconclusive, not evidence of no harm: "+b+" (variant default): Δ = -58.3 pts") ||
		!strings.Contains(one, "looks worse, but p = 0.0156 is not below 0.01") { // the terminal report wraps lines
		t.Errorf("ablation run A (α 0.01): exit %d\n%s%s", code, out, stderr)
	}
}

// TestCompareFourOfForty is the four-of-forty case through the CLI on run directories written in the README's record
// format: 40 tasks, one rep, run B fails 4 tasks run A passes. The exact sign-flip p is 2/2^4 = 0.125 (the t test
// said 0.044 and failed the gate), the interval is not a point, and --fail-if-worse 0.05 does not fail (exit 0).
func TestCompareFourOfForty(t *testing.T) {
	a := writeRun(t, runSpec{tasks: 40, reps: 1, seed: 3})
	b := writeRun(t, runSpec{tasks: 40, reps: 1, seed: 3, fail: func(i int) bool { return i < 4 }})
	c := compareJSON(t, a, b)
	if !near(c.Delta, -0.1, 1e-12) || !near(c.P, 0.125, 1e-12) || c.Method != "paired_signflip" ||
		c.DeltaCI[0] >= c.Delta || c.DeltaCI[1] <= c.Delta || c.DeltaCI[1] < 0 {
		t.Errorf("4 of 40: Δ %v, p %v (%s), interval %v; want −0.1, 0.125, an interval around Δ reaching 0", c.Delta, c.P, c.Method, c.DeltaCI)
	}
	if out, stderr, code := bench(t, "compare", a, b, "--fail-if-worse", "0.05"); code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), "): passed: ") {
		t.Errorf("4 of 40 with --fail-if-worse 0.05: exit %d\n%s%s", code, out, stderr)
	}
}

// TestCompareOneArmErrors is the one-arm error case through the CLI: 40 tasks × 2 reps, run B's attempts on
// 8 tasks are infrastructure errors (16 of 80), run A has none, the judged pairs agree. The comparison must warn
// with both counts, name infra as a differential error class, and the gate must not pass B: with its errors counted
// as failures Δ is −20 pts (8 of 40 tasks), exact p 2/2^8 = 0.0078.
func TestCompareOneArmErrors(t *testing.T) {
	a := writeRun(t, runSpec{tasks: 40, reps: 2, seed: 5})
	b := writeRun(t, runSpec{tasks: 40, reps: 2, seed: 5, infra: func(i int) bool { return i < 8 }})
	c := compareJSON(t, a, b)
	if !slices.Contains(c.DifferentialErrors, "infra") {
		t.Errorf("differential_errors = %v, want infra", c.DifferentialErrors)
	}
	var warned bool
	for _, w := range c.Warnings {
		warned = warned || (strings.Contains(w, "infra errors run B 16/80") && strings.Contains(w, "run A 0/80"))
	}
	if !warned {
		t.Errorf("no warning with both error counts: %q", c.Warnings)
	}
	if out, stderr, code := bench(t, "compare", a, b, "--fail-if-worse", "0.05"); code != 1 {
		t.Errorf("one-arm errors with --fail-if-worse 0.05: exit %d, want 1 (errors could hide a failure)\n%s%s", code, out, stderr)
	}
}

// TestJUnitReportAndCompare: `--format junit` of bench report (a plain run: the single variant's failing tasks)
// and of bench compare (run B's new failures against run A) exit 0 and print JUnit XML with those counts.
func TestJUnitReportAndCompare(t *testing.T) {
	firstSix := func(i int) bool { return i < 6 }
	a := writeRun(t, runSpec{tasks: 10, reps: 2, seed: 100, baseSeed: 1})
	b := writeRun(t, runSpec{tasks: 10, reps: 2, seed: 100, baseSeed: 1, fail: firstSix})
	type suites struct {
		Suites []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Errors   int    `xml:"errors,attr"`
		} `xml:"testsuite"`
	}
	for _, c := range []struct {
		args            []string
		tests, failures int
	}{
		{[]string{"report", b, "--format", "junit"}, 10, 6},
		{[]string{"compare", a, b, "--format", "junit"}, 10, 6},
		{[]string{"compare", a, a, "--format", "junit"}, 10, 0},
	} {
		out, errOut, code := bench(t, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", c.args, code, errOut)
		}
		var s suites
		if err := xml.Unmarshal([]byte(out), &s); err != nil || !strings.HasPrefix(out, "<?xml") {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
		if len(s.Suites) != 1 || s.Suites[0].Tests != c.tests || s.Suites[0].Failures != c.failures || s.Suites[0].Errors != 0 {
			t.Errorf("%v: %+v, want %d tests %d failures", c.args, s.Suites, c.tests, c.failures)
		}
	}
}
