package runner

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"webbench/agent/guard"
	"webbench/results"
	"webbench/suites"
)

// The manifest's plan records the suite options, the task filter and tags, each variant's switched guards and
// sorted target tasks ([] for a target scope matching no task), and the ablation parameters.
func TestPlanRecord(t *testing.T) {
	tasks := []suites.Task{{ID: "b", Tags: []string{"repeat_guard"}}, {ID: "a", Tags: []string{"repeat_guard", "qa"}}, {ID: "c"}}
	base := Variant{Name: "baseline", Model: Model{Kind: "scripted", Name: "scripted", Profile: "clean"}, Guards: guard.Default(),
		TaskIDs: map[string]bool{"b": true, "a": true}, Scope: "union of variant targets"}
	off := base
	off.Name, off.Scope, off.Switched = "no_repeat_guard", "target", []string{"repeat_guard"}
	off.Guards = guard.Default()
	off.Guards["repeat_guard"] = false
	none := off
	none.Name, none.TaskIDs = "no_nothing", map[string]bool{}
	all := Variant{Name: "all", Model: base.Model, Guards: guard.Default()}
	p := Plan{Suite: "zoo", SuiteOptions: suites.Options{"tasks_file": "x.jsonl"}, TaskFilter: "*", Tasks: tasks, Reps: 2,
		Variants: []Variant{base, off, none, all}, BaseSeed: 3, Ablation: &results.Ablation{Spec: "s.yaml", Alpha: 0.05}}
	r := p.Record()
	if r.Suite != "zoo" || r.SuiteOptions["tasks_file"] != "x.jsonl" || r.TaskFilter != "*" || r.Baseline != "baseline" ||
		r.BaseSeed != 3 || r.Reps != 2 || r.Ablation.Spec != "s.yaml" || !reflect.DeepEqual(r.Tasks, []string{"b", "a", "c"}) {
		t.Fatalf("plan = %+v", r)
	}
	if r.Attempts != 2*(2+2+0+3) {
		t.Errorf("attempts = %d", r.Attempts)
	}
	if !reflect.DeepEqual(r.TaskTags["a"], []string{"repeat_guard", "qa"}) || r.TaskTags["c"] != nil {
		t.Errorf("task tags = %v", r.TaskTags)
	}
	v := r.Variants[1]
	if !reflect.DeepEqual(v.TargetTasks, []string{"a", "b"}) || !reflect.DeepEqual(v.Switched, []string{"repeat_guard"}) ||
		v.Guards["repeat_guard"] || len(v.PromptSHA256) != 64 {
		t.Errorf("variant = %+v", v)
	}
	if r.Variants[2].TargetTasks == nil || len(r.Variants[2].TargetTasks) != 0 || r.Variants[3].TargetTasks != nil {
		t.Errorf("target tasks: none %v, all %v", r.Variants[2].TargetTasks, r.Variants[3].TargetTasks)
	}
	// The written manifest reads back as the same plan.
	dir := t.TempDir()
	if err := results.WriteManifest(dir, &results.Manifest{RunID: "x", Plan: r}); err != nil {
		t.Fatal(err)
	}
	m, err := results.ReadManifest(dir)
	if err != nil || !reflect.DeepEqual(m.Plan, r) {
		t.Fatalf("read back %+v, %v", m, err)
	}
}

// Resuming refuses another suite, base seed or variant configuration, and allows more tasks and reps.
func TestCheckSamePlan(t *testing.T) {
	tasks := []suites.Task{{ID: "a"}}
	v := Variant{Name: "default", Model: Model{Kind: "scripted", Name: "scripted", Profile: "clean"}, Guards: guard.Default()}
	p := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: []Variant{v}, BaseSeed: 1}
	old := p.Record()
	more := p
	more.Tasks, more.Reps = append(tasks, suites.Task{ID: "b"}), 3
	if err := checkSamePlan("d", old, more.Record()); err != nil {
		t.Errorf("more tasks and reps: %v", err)
	}
	other := p
	other.Variants = []Variant{v}
	other.Variants[0].Guards = guard.Default()
	other.Variants[0].Guards["repeat_guard"] = false
	other.Variants[0].Model.Profile = "observed"
	err := checkSamePlan("d", old, other.Record())
	want := "d was run with another plan (variant default: guards.repeat_guard: true → false; variant default: " +
		"model.profile: clean → observed); resuming would mix configurations — use another --out"
	if !errors.Is(err, ErrPlanMismatch) || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("other guards and profile: %v\nwant …%s", err, want)
	}
	extra := p
	extra.Variants = []Variant{v, {Name: "hot", Model: v.Model, Guards: guard.Default()}}
	if err := checkSamePlan("d", old, extra.Record()); err == nil || !strings.Contains(err.Error(), "variant hot: not in the earlier run") {
		t.Errorf("another variant: %v", err)
	}
	seed := p
	seed.BaseSeed = 9
	if err := checkSamePlan("d", old, seed.Record()); err == nil || !strings.Contains(err.Error(), "base seed: 1 → 9") {
		t.Errorf("other seed: %v", err)
	}
	// A bad manifest in the run directory is a plan mismatch naming the file.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, results.ManifestFile), []byte(`{"schema_version": 2, "plan": {"reps": "x"}}`), 0o644)
	if _, err := previous(dir, p, &results.Sources{}); !errors.Is(err, ErrPlanMismatch) || !strings.Contains(err.Error(), "field plan.reps") {
		t.Errorf("bad manifest: %v", err)
	}
}
