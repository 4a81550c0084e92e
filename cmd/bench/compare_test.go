package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"webbench/results"
	"webbench/runner"
)

// writeRun writes a run directory with one record per (task, rep) of variant "default": task i passes unless
// fail(i) is true, and every record carries seed.
func writeRun(t *testing.T, tasks, reps, seed int, fail func(task int) bool) string {
	t.Helper()
	dir := t.TempDir()
	m, _ := json.Marshal(map[string]any{"schema_version": results.SchemaVersion})
	if err := os.WriteFile(filepath.Join(dir, results.ManifestFile), m, 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 0; i < tasks; i++ {
		for r := 0; r < reps; r++ {
			task := fmt.Sprintf("task-%02d", i)
			pid := runner.PairID("zoo", task, r)
			s := seed + i*10 + r
			rec := results.Attempt{SchemaVersion: results.SchemaVersion, AttemptID: runner.AttemptID("default", pid),
				PairID: pid, Variant: "default", TaskID: task, Suite: "zoo", Cluster: task, Rep: r, Seed: &s,
				Status: results.StatusPass}
			if fail(i) {
				rec.Status, rec.ErrorClass = results.StatusFail, results.ClassAgent
			}
			line, _ := json.Marshal(rec)
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	if err := os.WriteFile(filepath.Join(dir, results.AttemptsFile), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestCompare checks bench compare on two runs of 10 tasks × 2 reps where run B fails tasks 0–5 that run A
// passes. Same seeds: the paired analysis of STATS.md §2 over tasks, d = (−1 ×6, 0 ×4): Δ = −0.6, SE =
// 0.1633, t = −3.674 on 9 df, p = 0.00512, CI [−0.969, −0.231]; McNemar broke 12, rescued 0, p = 2·0.5^12 =
// 0.000488. Other seeds: no pair, so unpaired: Fisher exact on 20/20 vs 8/20, p = 2·C(28,20)/C(40,20) =
// 4.51e-5. The gate exits 1 when Δ < −margin with the interval below 0.
func TestCompare(t *testing.T) {
	a := writeRun(t, 10, 2, 100, func(int) bool { return false })
	b := writeRun(t, 10, 2, 100, func(i int) bool { return i < 6 })
	other := writeRun(t, 10, 2, 5000, func(i int) bool { return i < 6 })

	out, stderr, code := bench(t, "compare", a, b, "--format", "json")
	if code != 0 {
		t.Fatalf("compare: exit %d, %s", code, stderr)
	}
	var c comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if c.Method != "paired_t" || c.Pairs != 20 || c.TasksCompared != 10 || c.Informative != 6 ||
		c.PairsPassA != 20 || c.PairsPassB != 8 {
		t.Errorf("paired: method %s, %d pairs (%d→%d) on %d tasks (%d informative); want paired_t, 20 (20→8) on 10 (6)",
			c.Method, c.Pairs, c.PairsPassA, c.PairsPassB, c.TasksCompared, c.Informative)
	}
	if !near(c.Delta, -0.6, 1e-9) || !near(c.P, 0.005121, 5e-6) || !near(c.DeltaCI[0], -0.969409, 5e-6) ||
		!near(c.DeltaCI[1], -0.230591, 5e-6) {
		t.Errorf("paired Δ %v [%v, %v] p %v; want -0.6 [-0.969409, -0.230591] p 0.005121", c.Delta, c.DeltaCI[0], c.DeltaCI[1], c.P)
	}
	if c.Broke != 12 || c.Rescued != 0 || c.PMcNemar == nil || !near(*c.PMcNemar, 0.000488, 5e-7) {
		t.Errorf("McNemar: broke %d rescued %d p %v; want 12, 0, 0.000488", c.Broke, c.Rescued, c.PMcNemar)
	}
	if len(c.NewFailures) != 6 || c.NewFailures[0] != "task-00" || len(c.Fixed) != 0 {
		t.Errorf("new failures %v, fixed %v", c.NewFailures, c.Fixed)
	}

	out, stderr, code = bench(t, "compare", a, other, "--format", "json")
	c = comparison{}
	if err := json.Unmarshal([]byte(out), &c); code != 0 || err != nil {
		t.Fatalf("other seeds: exit %d, %v, %s", code, err, stderr)
	}
	if c.Method != "fisher" || c.Pairs != 0 || c.PMcNemar != nil || !near(c.Delta, -0.6, 1e-9) || !near(c.P, 4.5095e-5, 5e-9) ||
		!near(c.PFisher, c.P, 1e-12) {
		t.Errorf("other seeds: method %s, %d pairs, Δ %v, p %v (Fisher %v); want fisher, 0, -0.6, 4.5095e-5",
			c.Method, c.Pairs, c.Delta, c.P, c.PFisher)
	}
	if !strings.Contains(strings.Join(c.Warnings, "\n"), "compared unpaired") {
		t.Errorf("other seeds: no unpaired warning in %q", c.Warnings)
	}

	table, _, _ := bench(t, "compare", a, b)
	for _, want := range []string{"paired: 20→8 of 20 pairs, 10 tasks (6 informative)", "-60.0 [-96.9, -23.1]",
		"rescued 0, broke 12", "task-05", "new_failure"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}

	if _, stderr, code := bench(t, "compare", a, b, "--fail-if-worse", "0.05"); code != 1 ||
		!strings.Contains(stderr, "worse than") || !strings.Contains(stderr, "paired_t") {
		t.Errorf("gate: exit %d, stderr %q; want exit 1", code, stderr)
	}
	if _, stderr, code := bench(t, "compare", b, a, "--fail-if-worse", "0.05"); code != 0 {
		t.Errorf("gate on an improvement: exit %d, %s", code, stderr)
	}
	if _, stderr, code := bench(t, "compare", a, b, "--variant", "nope"); code != 2 || !strings.Contains(stderr, `no variant "nope"`) {
		t.Errorf("unknown variant: exit %d, %q", code, stderr)
	}
	os.WriteFile(filepath.Join(b, results.ManifestFile), []byte(`{"schema_version": 99}`), 0o644)
	if _, stderr, code := bench(t, "compare", a, b); code != 2 || !strings.Contains(stderr, "schema_version 99") {
		t.Errorf("schema mismatch: exit %d, %q", code, stderr)
	}
}
