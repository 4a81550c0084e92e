package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"webbench/results"
)

// layoutCopies copies the results fixtures v2ablate (trajectories as plain JSON, the layout written before
// compression) and v2ablate-gz (the same run, trajectories compressed by GNU gzip) to directories of the same
// base name, so that outputs naming the directory differ only by the temporary parent.
func layoutCopies(t *testing.T) (plain, gz string) {
	t.Helper()
	for _, c := range []struct {
		name string
		dst  *string
	}{{"v2ablate", &plain}, {"v2ablate-gz", &gz}} {
		*c.dst = filepath.Join(t.TempDir(), "run")
		if err := os.CopyFS(*c.dst, os.DirFS(filepath.Join("..", "..", "results", "testdata", c.name))); err != nil {
			t.Fatal(err)
		}
	}
	return plain, gz
}

// readRel reads dir/rel with dir replaced by RUN in the text.
func readRel(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), dir, "RUN")
}

// bench report (every format, the HTML report and its attempt pages included) and bench judge give the same
// output on a run directory whose trajectories are compressed as on the same run stored plain; the attempt pages
// show the trajectory (the goal and the steps), not "no trajectory".
func TestCompressedLayoutReportsAndJudgesTheSame(t *testing.T) {
	plain, gz := layoutCopies(t)
	for _, format := range []string{"table", "md", "json", "html"} {
		var outs [2]string
		for i, dir := range []string{plain, gz} {
			out, stderr, code := bench(t, "report", dir, "--format", format)
			if code != 0 {
				t.Fatalf("report %s --format %s: exit %d: %s", dir, format, code, stderr)
			}
			outs[i] = strings.ReplaceAll(out, dir, "RUN")
		}
		if outs[0] != outs[1] || outs[0] == "" {
			t.Errorf("report --format %s: plain\n%s\ncompressed\n%s", format, outs[0], outs[1])
		}
	}
	if a, b := readRel(t, plain, "report.html"), readRel(t, gz, "report.html"); a != b {
		t.Errorf("report.html differs between the layouts")
	}
	pages, _ := filepath.Glob(filepath.Join(plain, "attempts", "*.html"))
	if len(pages) != 2 {
		t.Fatalf("attempt pages %v, want 2", pages)
	}
	for _, p := range pages {
		rel, _ := filepath.Rel(plain, p)
		a, b := readRel(t, plain, rel), readRel(t, gz, rel)
		if a != b {
			t.Errorf("%s differs between the layouts", rel)
		}
		if strings.Contains(b, "No trajectory file") || strings.Contains(b, "malformed") || !strings.Contains(b, "browser_") {
			t.Errorf("%s of the compressed run does not show the trajectory", rel)
		}
	}
	// The state judge reads each trajectory's final state.
	for _, j := range []string{"state", "answer"} {
		var outs [2]string
		for i, dir := range []string{plain, gz} {
			os.Remove(filepath.Join(dir, "verdicts-"+j+".jsonl"))
			out, stderr, code := bench(t, "judge", dir, "--judge", j)
			if code != 0 {
				t.Fatalf("judge %s --judge %s: exit %d: %s", dir, j, code, stderr)
			}
			outs[i] = strings.ReplaceAll(out, dir, "RUN")
		}
		if outs[0] != outs[1] || !strings.Contains(outs[0], "2 attempts judged by "+j) {
			t.Errorf("judge --judge %s: plain %q, compressed %q", j, outs[0], outs[1])
		}
		if a, b := readRel(t, plain, "verdicts-"+j+".jsonl"), readRel(t, gz, "verdicts-"+j+".jsonl"); a != b {
			t.Errorf("verdicts-%s.jsonl: plain\n%s\ncompressed\n%s", j, a, b)
		}
	}
}

// bench merge copies a compressed run's trajectories as they are (the records name them) and the merged run
// reads the same records and trajectories as a merge of the plain run, apart from the trajectory file names.
func TestCompressedLayoutMergesTheSame(t *testing.T) {
	plain, gz := layoutCopies(t)
	var runs [2]*results.Run
	for i, dir := range []string{plain, gz} {
		out := filepath.Join(t.TempDir(), "merged")
		if _, stderr, code := bench(t, "merge", "--out", out, dir); code != 0 {
			t.Fatalf("merge %s: exit %d: %s", dir, code, stderr)
		}
		r, err := results.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = r
	}
	a, b := runs[0].Final(), runs[1].Final()
	if len(a) != 2 || len(b) != 2 {
		t.Fatalf("merged %d and %d attempts, want 2", len(a), len(b))
	}
	for i := range a {
		if b[i].Trajectory != results.TrajectoryPath(b[i].AttemptID) {
			t.Errorf("merged compressed record names %q", b[i].Trajectory)
		}
		ta, err := runs[0].Trajectory(a[i].AttemptID)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := runs[1].Trajectory(b[i].AttemptID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ta, tb) {
			t.Errorf("attempt %s: merged trajectories differ", a[i].AttemptID)
		}
		a[i].Trajectory, b[i].Trajectory = "", ""
		if !reflect.DeepEqual(a[i], b[i]) {
			t.Errorf("merged records: plain %+v, compressed %+v", a[i], b[i])
		}
	}
}
