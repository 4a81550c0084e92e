package html

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"webbench/browser"
	"webbench/results"
)

// An attempt page shows a tool result whole up to PageTextCap bytes; a longer one is cut at a rune start with
// a note of its full length and the trajectory file that holds it. "é" is the two bytes C3 A9 in UTF-8 (RFC 3629
// §3), placed so the cap falls between them: the cut backs off one byte.
func TestPageTextCap(t *testing.T) {
	traj := results.TrajectoryPath("abc")
	short := strings.Repeat("x", PageTextCap)
	if got := pageText(short, traj); got != short {
		t.Errorf("a text of exactly the cap was changed")
	}
	long := strings.Repeat("x", PageTextCap-1) + "é" + strings.Repeat("y", 5000)
	got := pageText(long, traj)
	head, note, ok := strings.Cut(got, "\n… [")
	if !ok || head != strings.Repeat("x", PageTextCap-1) || !utf8.ValidString(got) {
		t.Fatalf("cut to %d bytes (valid UTF-8 %v), want the %d x before the é", len(head), utf8.ValidString(got), PageTextCap-1)
	}
	want := "the page shows the first 4095 of 9097 bytes; the whole text is in trajectories/abc.json.gz (gzip-compressed JSON: zcat it)]"
	if note != want {
		t.Errorf("note %q, want %q", note, want)
	}
	// On a page: the step's result as the model saw it and its raw form are both cut. The texts are those of
	// results whose Result section is long less its heading's bytes, so the cut falls where it fell for long.
	body := long[len("### Result\n"):]
	tr := &results.Trajectory{Steps: []*results.Step{{Results: []*results.ToolRecord{{
		Shown: &browser.Result{Result: body}, Raw: browser.Result{Result: body + "!"}}}}}}
	tr.FirstObservation = &browser.Result{Result: body + "!!"}
	head = ("### Result\n" + body)[:len(head)]
	res := resultOf(t, tr)
	if !strings.HasPrefix(res.Text, head) || len(res.Text) > PageTextCap+200 || !strings.Contains(res.Raw, "of 9098 bytes") {
		t.Errorf("page result: text %d bytes, raw %q…", len(res.Text), res.Raw[len(res.Raw)-80:])
	}
	// The first observation (the whole first snapshot, ≈ 19 KB of the 52 KB of a demo page) is cut alike.
	if fo := lastPage.FirstObs; !strings.HasPrefix(fo, head) || !strings.Contains(fo, "of 9099 bytes") {
		t.Errorf("first observation: %d bytes, ends %q", len(fo), fo[max(0, len(fo)-80):])
	}
}

// resultOf is the first tool result of the attempt page of the results fixture v2ablate-gz's attempt
// b997634ce72945f6 with its trajectory replaced by tr.
func resultOf(t *testing.T, tr *results.Trajectory) resultVM {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "results", "testdata", "v2ablate-gz"))); err != nil {
		t.Fatal(err)
	}
	const id = "b997634ce72945f6"
	orig, err := results.ReadTrajectory(filepath.Join(dir, results.TrajectoryPath(id)))
	if err != nil {
		t.Fatal(err)
	}
	orig.Steps = tr.Steps
	if tr.FirstObservation != nil {
		orig.FirstObservation = tr.FirstObservation
	}
	if err := results.WriteTrajectory(filepath.Join(dir, results.TrajectoryPath(id)), orig); err != nil {
		t.Fatal(err)
	}
	run, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := run.Latest(id)
	vm := attemptPage(rec, nil, run, filepath.Join(dir, "attempts"))
	if vm.TrajErr != "" || len(vm.Steps) != 1 || len(vm.Steps[0].Results) != 1 {
		t.Fatalf("page: %q, %d steps", vm.TrajErr, len(vm.Steps))
	}
	lastPage = vm
	return vm.Steps[0].Results[0]
}

// lastPage is the attempt page resultOf built last.
var lastPage attemptVM
