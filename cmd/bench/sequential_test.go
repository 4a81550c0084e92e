package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/results"
)

// seqSpec is a sequential ablation's spec for the test: the Zoo's hand-written Q&A tasks of three apps (14
// tasks in 10 families), the clean scripted policy, and one variant allowed a single step, which cannot answer
// most of them; α 0.2 so that a few families decide it.
const seqSpec = `name: seq-test
suite: zoo
tasks: "shop-qa-*,stays-qa-*,recipes-qa-*"
reps: 1
seed: 1
alpha: 0.2
baseline:
  model: {kind: scripted, profile: clean}
variants:
  - name: one_step
    max_steps: 1
`

// seqDoc is the sequential part of bench report --format json.
type seqDoc struct {
	Warnings []struct {
		Kind string `json:"kind"`
	} `json:"warnings"`
	Sequential *struct {
		Units, Looked, Planned, Saved int
		Budget                        *string
		Variants                      []struct {
			Name, Decision string
			Stop           *string
			At             *int
			Planned, Saved int
		}
		Baseline struct{ Planned, Saved int }
	} `json:"sequential"`
}

func seqReport(t *testing.T, dir string) (seqDoc, json.RawMessage) {
	t.Helper()
	out, stderr, code := bench(t, "report", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("report %s: exit %d: %s", dir, code, stderr)
	}
	var d seqDoc
	var raw struct {
		Sequential json.RawMessage `json:"sequential"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal([]byte(out), &raw)
	if d.Sequential == nil {
		t.Fatalf("report of %s has no sequential outcome", dir)
	}
	return d, raw.Sequential
}

// A sequential ablation (--sequential) stopped by --max-attempts, then resumed: the budget stop is reported with
// the partial outcome; the resumed run decides the one-step variant worse and leaves its remaining attempts
// (and the baseline's, which no undecided variant needs then) unrun, every arm's attempts recorded or skipped;
// every format says so; bench merge of the run recomputes the same outcome from the records.
func TestAblateSequentialBudgetResumeMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	tmp := t.TempDir()
	spec, dir := filepath.Join(tmp, "seq.yaml"), filepath.Join(tmp, "run")
	if err := os.WriteFile(spec, []byte(seqSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"ablate", spec, "--sequential", "--workers", "2", "--out", dir}
	if _, stderr, code := bench(t, append(args, "--max-attempts", "5")...); code != 0 || !strings.Contains(stderr, "attempt limit 5 reached") {
		t.Fatalf("budget run: exit %d: %s", code, stderr)
	}
	d, _ := seqReport(t, dir)
	s := d.Sequential
	kinds := ""
	for _, w := range d.Warnings {
		kinds += w.Kind + " "
	}
	if s.Budget == nil || *s.Budget != results.BudgetAttempts || s.Looked >= s.Units || s.Planned != 28 ||
		!strings.Contains(kinds, "sequential_budget") || !strings.Contains(kinds, "sequential_fixed_p") {
		t.Fatalf("after the budget: %+v, warnings %s; want the max_attempts stop, a partial look, both warnings", *s, kinds)
	}
	if _, stderr, code := bench(t, args...); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	d, outcome := seqReport(t, dir)
	s = d.Sequential
	v := s.Variants[0]
	if s.Budget != nil || v.Stop == nil || *v.Stop != "worse" || v.At == nil || *v.At > s.Units || v.Saved == 0 {
		t.Fatalf("resumed: %+v; want one_step decided worse with attempts saved", *s)
	}
	run, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]int{}
	for _, r := range run.Final() {
		ran[r.Variant]++
	}
	if ran["one_step"]+v.Saved != v.Planned || ran["baseline"]+s.Baseline.Saved != s.Baseline.Planned ||
		run.Manifest.Summary.SeqSkipped() != s.Saved || run.Completeness().Missing != 0 {
		t.Errorf("ran %v, outcome %+v, summary %+v: every planned attempt is recorded or skipped", ran, *s, run.Manifest.Summary)
	}
	md, _, _ := bench(t, "report", dir, "--format", "md")
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	junit, _, _ := bench(t, "report", dir, "--format", "junit")
	for name, doc := range map[string]string{"md": md, "html": string(html), "junit": junit} {
		if !strings.Contains(doc, "worse than the baseline") || !strings.Contains(doc, "repeated p") {
			t.Errorf("the %s report does not word the sequential decision", name)
		}
	}
	merged := filepath.Join(tmp, "merged")
	if _, stderr, code := bench(t, "merge", "--out", merged, dir); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if _, got := seqReport(t, merged); !reflect.DeepEqual(normJSON(t, got), normJSON(t, outcome)) {
		t.Errorf("merged outcome %s, want the run's %s", got, outcome)
	}
}

func normJSON(t *testing.T, b json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// The fail-if-worse gate applies the fixed-size test, a diagnostic on a sequential run: --fail-if-worse with
// --sequential is refused before anything runs (exit 2), and so is a spec with both.
func TestAblateSequentialRefusesFailIfWorse(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "seq.yaml")
	if err := os.WriteFile(path, []byte(seqSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	_, stderr, code := bench(t, "ablate", path, "--sequential", "--fail-if-worse", "0.05", "--out", out)
	if code != 2 || !strings.Contains(stderr, "--fail-if-worse (or the spec's fail_if_worse) with a sequential ablation") {
		t.Errorf("--sequential --fail-if-worse: exit %d, stderr %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, results.AttemptsFile)); err == nil {
		t.Errorf("a refused ablation recorded attempts in %s", out)
	}
	both := filepath.Join(dir, "both.yaml")
	if err := os.WriteFile(both, []byte(seqSpec+"sequential: true\nfail_if_worse: 0.05\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := bench(t, "ablate", both, "--out", out); code != 2 || !strings.Contains(stderr, "both.yaml:13:1: fail_if_worse:") {
		t.Errorf("spec with sequential and fail_if_worse: exit %d, stderr %s", code, stderr)
	}
}

// writeSeqShard writes shard i of n of the sequential plan p into dir as the runner would: its own rule over its
// own pairs, attempts in the units' order, each recorded (pass when pass(variant, task)) unless the rule skips it,
// the manifest naming the shard, its skips and its --max-attempts budget.
func writeSeqShard(t *testing.T, dir string, p results.Plan, i, n int, pass func(variant, task string) bool) {
	t.Helper()
	keep := func(pid string) bool { return results.InShard(pid, i, n) }
	rule, err := analysis.NewSeqRule(p, keep)
	if err != nil {
		t.Fatal(err)
	}
	m := &results.Manifest{RunID: "seq", Shard: fmt.Sprintf("%d/%d", i, n), Plan: p, StartedAt: "2026-12-05T10:00:00Z",
		EndedAt: "2026-12-05T10:10:00Z", Summary: &results.Summary{Budgets: &results.Budgets{MaxAttempts: 50}}}
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	w, err := results.OpenWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	latest := map[string]results.Attempt{}
	for _, task := range p.Tasks {
		pid := results.PairID(p.Suite, task, 1)
		for _, v := range p.VariantNames() {
			a := results.Attempt{AttemptID: results.AttemptID(v, pid), PairID: pid, Variant: v, TaskID: task, Suite: p.Suite,
				Rep: 1, Status: results.StatusFail}
			if pass(v, task) {
				a.Status = results.StatusPass
			}
			if _, skip := rule.Skips(latest)[a.AttemptID]; skip || !keep(pid) {
				continue
			}
			latest[a.AttemptID] = a
			if err := w.Append(a); err != nil {
				t.Fatal(err)
			}
		}
	}
	m.Summary.Planned = len(latest) + len(rule.Skips(latest))
	m.Summary.SeqSkips = results.SumSkips(rule.Skips(latest), p.VariantNames())
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
}

// bench merge of two shards of a sequential ablation recomputes the decisions over the merged records: the
// variant "bad" fails every task of shard 1, where the baseline passes, and passes every task of shard 2, where
// the baseline fails; each shard's own rule stops it (worse, futile), the merged looks do not. The merged
// manifest's skips are the merged rule's with the shards' own stops kept and named; bench report shows the
// merged decision, a sequential_shard_stop warning per shard stop and the budgets per shard and in all, and
// every planned attempt is recorded or skipped (so merge does not warn of a missing shard).
func TestMergeSequentialShardsRecomputes(t *testing.T) {
	const units = 30
	p := results.Plan{Suite: "zoo", Reps: 1, BaseSeed: 1, Baseline: "baseline",
		Variants: []results.Variant{{Name: "baseline", Guards: map[string]bool{}},
			{Name: "bad", Guards: map[string]bool{"evaluate_isolation": false}, Switched: []string{"evaluate_isolation"}}},
		Ablation: &results.Ablation{Spec: "seq.yaml", Alpha: 0.05, Power: 0.8, MinEffect: 0.25,
			Sequential: &results.Sequential{Alpha: 0.05, MinEffect: 0.25}}}
	for k := range units {
		task := fmt.Sprintf("t%02d", k+1)
		p.Tasks = append(p.Tasks, task)
		p.Ablation.Sequential.Units = append(p.Ablation.Sequential.Units, results.SeqUnit{Name: task, Tasks: []string{task}})
	}
	p.Attempts = 2 * units
	in1 := func(task string) bool { return results.InShard(results.PairID(p.Suite, task, 1), 1, 2) }
	tmp := t.TempDir()
	s1, s2, merged := filepath.Join(tmp, "s1"), filepath.Join(tmp, "s2"), filepath.Join(tmp, "merged")
	writeSeqShard(t, s1, p, 1, 2, func(v, task string) bool { return (v == "bad") != in1(task) })
	writeSeqShard(t, s2, p, 2, 2, func(v, task string) bool { return (v == "bad") != in1(task) })
	if _, stderr, code := bench(t, "merge", "--out", merged, s1, s2); code != 0 || strings.Contains(stderr, "warning") {
		t.Fatalf("merge: exit %d: %s; want no warning (the attempts left unrun are not missing)", code, stderr)
	}
	run, err := results.Open(merged)
	if err != nil {
		t.Fatal(err)
	}
	rule, _ := analysis.NewSeqRule(p, nil)
	want := rule.WithShardSkips(run.Manifest.Summary.SeqSkips).Result(run.Final(), nil)
	d, _ := seqReport(t, merged)
	s := d.Sequential
	v := s.Variants[0]
	if v.Stop == nil || *v.Stop != string(want.Variants[0].Stop) || *v.Stop == "worse" || s.Looked != want.Looked ||
		s.Saved != run.Manifest.Summary.SeqSkipped() || run.Completeness().Missing != 0 {
		t.Errorf("merged report %+v; want the merged replay's %+v, every attempt recorded or skipped", *s, want.Variants[0])
	}
	var stops []string
	for _, k := range run.Manifest.Summary.SeqSkips {
		if k.Shard != "" && k.Variant == "bad" {
			stops = append(stops, k.Shard+" "+k.Stop)
		}
	}
	if !reflect.DeepEqual(stops, []string{"1/2 worse", "2/2 futile"}) {
		t.Errorf("the merged manifest keeps the shards' own stops %v, want 1/2 worse and 2/2 futile", stops)
	}
	md, _, _ := bench(t, "report", merged, "--format", "md")
	for _, want := range []string{"Shard 1/2 stopped bad (worse, at unit", "Shard 2/2 stopped bad (futile, at unit",
		"shard 1/2 --max-attempts 50, shard 2/2 --max-attempts 50; --max-attempts 100 on the whole run"} {
		if !strings.Contains(md, want) {
			t.Errorf("the merged md report lacks %q", want)
		}
	}
}
