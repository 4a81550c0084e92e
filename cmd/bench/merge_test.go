package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"webbench/judge"
	"webbench/results"
)

// fixtureCopy copies the results package's fixture name into a temporary directory.
func fixtureCopy(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "..", "results", "testdata", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// countLines counts the non-empty lines of path.
func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return len(strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' }))
}

// Merging schema version 1 shards again adds nothing: their records equal the version 2 ones already written.
func TestMergeTwiceAddsNothing(t *testing.T) {
	shard := fixtureCopy(t, "v1ablate")
	merged := filepath.Join(t.TempDir(), "merged")
	for i, want := range []string{"merged 2 records", "merged 0 records"} {
		out, stderr, code := bench(t, "merge", "--out", merged, shard)
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("merge %d: exit %d, %q %q; want %q", i+1, code, out, stderr, want)
		}
		if n := countLines(t, filepath.Join(merged, results.AttemptsFile)); n != 2 {
			t.Fatalf("after merge %d: %d lines in %s, want 2", i+1, n, results.AttemptsFile)
		}
	}
	// Another plan in --out is refused.
	other := fixtureCopy(t, "v1run")
	if _, stderr, code := bench(t, "merge", "--out", merged, other); code != 2 || !strings.Contains(stderr, "another plan") {
		t.Errorf("merge of another plan into %s: exit %d: %s", merged, code, stderr)
	}
}

// Re-judged verdicts and traces of the shards reach the merged run.
func TestMergeKeepsVerdictsAndTraces(t *testing.T) {
	shard := fixtureCopy(t, "v2ablate")
	trace := filepath.Join(results.TracesDir, "b997634ce72945f6.zip")
	if err := os.MkdirAll(filepath.Join(shard, results.TracesDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shard, trace), []byte("PK"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := results.Open(shard)
	if err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	for range 2 {
		if _, stderr, code := bench(t, "merge", "--out", merged, shard); code != 0 {
			t.Fatalf("merge: exit %d: %s", code, stderr)
		}
	}
	m, err := results.Open(merged)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.Judges(), ","); got != "answer,state" {
		t.Fatalf("merged judges = %q, want answer,state", got)
	}
	for _, j := range m.Judges() {
		want, _ := src.Verdicts(j)
		got, _ := m.Verdicts(j)
		if len(got) != len(want) || len(got) == 0 {
			t.Errorf("judge %s: %d verdicts merged, shard has %d", j, len(got), len(want))
		}
		for id, v := range want {
			if !reflect.DeepEqual(got[id], v) {
				t.Errorf("judge %s attempt %s: merged %+v, shard %+v", j, id, got[id], v)
			}
		}
		a, err := m.Attempts(j)
		b, _ := src.Attempts(j)
		if err != nil || len(a) != len(b) {
			t.Fatalf("Attempts(%s) = %d records, %v", j, len(a), err)
		}
		for i := range a {
			if a[i].Status != b[i].Status || !reflect.DeepEqual(a[i].Verdict, b[i].Verdict) {
				t.Errorf("judge %s: merged %s %s/%+v, shard %s/%+v", j, a[i].AttemptID, a[i].Status, a[i].Verdict, b[i].Status, b[i].Verdict)
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(merged, trace)); err != nil || string(b) != "PK" {
		t.Errorf("trace not copied: %q %v", b, err)
	}
}

// bench report and bench judge decide what a run directory is by its manifest: one without attempts yet is a
// run (an empty report, nothing to judge), one without a manifest is not.
func TestRunDirectoryIsItsManifest(t *testing.T) {
	fix := fixtureCopy(t, "v2ablate")
	run := filepath.Join(t.TempDir(), "fresh")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(fix, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, results.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := bench(t, "report", run, "--format", "json")
	if code != 0 || !strings.Contains(out, `"baseline": "baseline"`) {
		t.Errorf("report of a run without attempts: exit %d: %s%s", code, stderr, out)
	}
	out, stderr, code = bench(t, "judge", run, "--judge", "answer")
	if code != 0 || !strings.Contains(out, "0 attempts judged by answer") {
		t.Errorf("judge of a run without attempts: exit %d: %s%s", code, stderr, out)
	}
	empty := t.TempDir()
	if _, stderr, code := bench(t, "report", empty); code != 2 || !strings.Contains(stderr, "not a run directory (no manifest.json)") {
		t.Errorf("report of a directory without a manifest: exit %d: %s", code, stderr)
	}
	if _, stderr, code := bench(t, "judge", empty, "--judge", "answer"); code != 2 ||
		!strings.Contains(stderr, "neither a run directory (manifest.json) nor WebVoyager result folders") {
		t.Errorf("judge of a directory without a manifest: exit %d: %s", code, stderr)
	}
	// The judges come from the registry; "original" is the run's own verdicts and cannot be re-judged.
	if _, stderr, code := bench(t, "judge", fix, "--judge", "original"); code != 2 || !strings.Contains(stderr, strings.Join(judge.Names(), ", ")) {
		t.Errorf("--judge original: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(results.VerdictsPath(fix, results.OriginalJudge)); !os.IsNotExist(err) {
		t.Errorf("verdicts-original.jsonl written: %v", err)
	}
	if _, stderr, code := bench(t, "judge", fix, "--judge", "nope"); code != 2 || !strings.Contains(stderr, `--judge: unknown judge "nope" (valid: `+strings.Join(judge.Names(), ", ")+")") {
		t.Errorf("--judge nope: exit %d: %s", code, stderr)
	}
	out, _, _ = bench(t, "judge", "--help")
	if !strings.Contains(out, "judge: "+strings.Join(judge.Names(), ", ")) {
		t.Errorf("judge --help does not list the registered judges:\n%s", out)
	}
}
