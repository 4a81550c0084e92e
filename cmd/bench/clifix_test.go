package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"webbench/results"
)

// twoVariantRun writes one run directory holding variants "a" (every task passes) and "b" (tasks 0–5 fail).
func twoVariantRun(t *testing.T) string {
	t.Helper()
	a := writeRun(t, runSpec{tasks: 10, reps: 1, seed: 1, variant: "a"})
	b := writeRun(t, runSpec{tasks: 10, reps: 1, seed: 1, variant: "b", fail: firstSix})
	m := &results.Manifest{SchemaVersion: results.SchemaVersion, RunID: "two", Plan: results.Plan{Suite: "zoo", Reps: 1,
		Baseline: "a", Variants: []results.Variant{{Name: "a"}, {Name: "b"}}}}
	if err := results.WriteManifest(a, m); err != nil {
		t.Fatal(err)
	}
	la, err := os.ReadFile(filepath.Join(a, results.AttemptsFile))
	if err != nil {
		t.Fatal(err)
	}
	lb, err := os.ReadFile(filepath.Join(b, results.AttemptsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a, results.AttemptsFile), append(la, lb...), 0o644); err != nil {
		t.Fatal(err)
	}
	return a
}

// Item 8: comparing two variants of one directory is not an A/A comparison; only the same directory and the same
// variant are.
func TestCompareSameDirOtherVariant(t *testing.T) {
	d := twoVariantRun(t)
	out, stderr, code := bench(t, "compare", d, d, "--variant", "a", "--variant-b", "b")
	if code != 0 || strings.Contains(out, "same directory") || !strings.Contains(out, "broke 6") {
		t.Errorf("a vs b in one dir: exit %d\n%s%s", code, out, stderr)
	}
	out, _, code = bench(t, "compare", d, d, "--variant", "b")
	if code != 0 || !strings.Contains(out, "same directory") {
		t.Errorf("b vs b in one dir: exit %d, want the same-directory warning\n%s", code, out)
	}
}

// Items 9 and 11: bench power refuses equal rates, mixed modes and a plan below one task or rep (exit 2, naming
// the flags); each mode alone still works.
func TestPowerRefusesBadModes(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--base", "0.8", "--target", "0.8"}, []string{"--base", "--target", "no effect"}},
		{[]string{"--mix", "seeds", "--base", "0.5", "--target", "0.3"}, []string{"--mix", "--base, --target", "different modes"}},
		{[]string{"--tasks", "10", "--n", "50"}, []string{"--tasks", "--n", "different modes"}},
		{[]string{"--tasks", "0"}, []string{"--tasks 0", "at least 1"}},
		{[]string{"--mix", "seeds", "--reps", "0"}, []string{"--reps 0", "at least 1"}},
	} {
		out, stderr, code := bench(t, append([]string{"power"}, c.args...)...)
		if code != 2 {
			t.Errorf("power %v: exit %d, want 2\n%s%s", c.args, code, out, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("power %v: stderr %q lacks %q", c.args, stderr, w)
			}
		}
	}
	if out, stderr, code := bench(t, "power", "--base", "0.8", "--target", "0.9"); code != 0 || !strings.Contains(out, "runs per arm") {
		t.Errorf("unpaired alone: exit %d\n%s%s", code, out, stderr)
	}
}

// Item 10: negative counts, budgets and spend limits, and a zero --timeout given explicitly, are usage errors
// naming the flag (checked before any browser starts); --workers 0 stays the "number of cores" default.
func TestRunRefusesBadNumbers(t *testing.T) {
	run := []string{"run", "--suite", "zoo", "--tasks", "shop-qa-yoga-mat-thickness", "--dry-run"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(run, "--max-steps", "-3"), "--max-steps -3"},
		{append(run, "--retries", "-1"), "--retries -1"},
		{append(run, "--max-cost", "-1"), "--max-cost -1"},
		{append(run, "--max-attempts", "-1"), "--max-attempts -1"},
		{append(run, "--timeout", "0s"), "--timeout 0s"},
		{append(run, "--timeout", "-5s"), "--timeout -5s"},
		{append(run, "--workers", "-1"), "--workers -1"},
		{[]string{"ablate", "suites/zoo/ablations/demo.yaml", "--dry-run", "--workers", "-1"}, "--workers -1"},
	} {
		out, stderr, code := bench(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %s\n%s", c.args, code, stderr, c.want, out)
		}
	}
	if out, stderr, code := bench(t, append(run, "--workers", "0")...); code != 0 || !strings.Contains(out, "shop-qa-yoga-mat-thickness") {
		t.Errorf("--workers 0: exit %d\n%s%s", code, out, stderr)
	}
}

// Item 22: bench power --variant's help names the manifest's baseline, not ablation.json.
func TestPowerVariantHelp(t *testing.T) {
	out, _, code := bench(t, "power", "--help")
	if code != 0 || !strings.Contains(out, "the run's baseline (manifest)") || strings.Contains(out, "ablation.json") {
		t.Errorf("power --help: exit %d\n%s", code, out)
	}
}

// Item 23: an unregistered --judge is refused as such, listing the registered judges and the run's re-judges,
// instead of suggesting to re-judge with it; a registered judge the run lacks keeps the bench judge hint.
func TestReportUnknownJudge(t *testing.T) {
	d := writeRun(t, runSpec{tasks: 3, reps: 1, seed: 1, rejudge: func(int) bool { return true }})
	for _, cmd := range [][]string{{"report", d, "--judge", "bogus"}, {"compare", d, d, "--judge", "bogus"}} {
		_, stderr, code := bench(t, cmd...)
		if code != 2 || !strings.Contains(stderr, `--judge "bogus" is not a registered judge`) ||
			!strings.Contains(stderr, "registered: ") || !strings.Contains(stderr, "original, llm") ||
			strings.Contains(stderr, "run bench judge") {
			t.Errorf("%v: exit %d, %q", cmd, code, stderr)
		}
	}
	if out, stderr, code := bench(t, "report", d, "--judge", "llm"); code != 0 {
		t.Errorf("report --judge llm: exit %d\n%s%s", code, out, stderr)
	}
}

// Item 21: the manifest's summary is written with snake_case keys, and a manifest written with the old Go-named
// keys (Planned, Passed, …) still reads.
func TestManifestSummaryKeys(t *testing.T) {
	dir := t.TempDir()
	m := &results.Manifest{RunID: "s", Plan: results.Plan{Suite: "zoo", Reps: 1, Baseline: "default",
		Variants: []results.Variant{{Name: "default"}}}, Summary: &results.Summary{Planned: 4, Skipped: 1, Ran: 3, Passed: 2, Failed: 1, Stopped: "cost"}}
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"planned": 4`, `"skipped": 1`, `"ran": 3`, `"passed": 2`, `"failed": 1`, `"errors": 0`, `"stopped": "cost"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("manifest lacks %s:\n%s", k, b)
		}
	}
	if strings.Contains(string(b), `"Planned"`) {
		t.Errorf("manifest still has Go-named summary keys:\n%s", b)
	}
	old := strings.NewReplacer(`"planned"`, `"Planned"`, `"skipped"`, `"Skipped"`, `"ran"`, `"Ran"`, `"passed"`, `"Passed"`,
		`"failed"`, `"Failed"`, `"errors"`, `"Errors"`, `"stopped"`, `"Stopped"`).Replace(string(b))
	if err := os.WriteFile(filepath.Join(dir, results.ManifestFile), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary == nil || !reflect.DeepEqual(*got.Summary, *m.Summary) {
		t.Errorf("old summary keys read as %+v, want %+v", got.Summary, m.Summary)
	}
}

// setSuite rewrites the suite of dir's manifest plan.
func setSuite(t *testing.T, dir, suite string) {
	t.Helper()
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Plan.Suite = suite
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
}

// Item 7: compare's "differs in" line (and the no-common-task refusal of --fail-if-worse) names differing suites.
func TestCompareDiffersInSuite(t *testing.T) {
	a := writeRun(t, runSpec{tasks: 4, reps: 1, seed: 1})
	b := writeRun(t, runSpec{tasks: 4, reps: 1, seed: 1})
	setSuite(t, b, "webvoyager")
	if out, stderr, code := bench(t, "compare", a, b); code != 0 || !strings.Contains(out, "The runs differ in: suite zoo → webvoyager.") {
		t.Errorf("other suite: exit %d\n%s%s", code, out, stderr)
	}
	c := writeRun(t, runSpec{first: 20, tasks: 4, reps: 1, seed: 1})
	setSuite(t, c, "webvoyager")
	if out, stderr, code := bench(t, "compare", a, c); code != 0 || !strings.Contains(out, "suite zoo → webvoyager") {
		t.Errorf("no common task, no gate: exit %d (want 0: only --fail-if-worse refuses)\n%s%s", code, out, stderr)
	}
	if _, stderr, code := bench(t, "compare", a, c, "--fail-if-worse", "0.05"); code != 2 || !strings.Contains(stderr, "share no task") ||
		!strings.Contains(stderr, "suite zoo → webvoyager") {
		t.Errorf("no common task with a gate: exit %d, %q; want exit 2 naming the suites", code, stderr)
	}
	if out, _, _ := bench(t, "compare", a, a); strings.Contains(out, "suite zoo") {
		t.Errorf("same suite reported as a difference:\n%s", out)
	}
}
