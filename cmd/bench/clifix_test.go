package main

import (
	"os"
	"path/filepath"
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
