package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/results"
)

// bench power plans tasks × reps for the primary paired test.
func TestPowerPlansTasksTimesReps(t *testing.T) {
	out, stderr, code := bench(t, "power", "--tasks", "40", "--reps", "5", "--mix", "seeds", "--pairing", "same-seed")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Primary test: paired task-level test", "40 tasks × 5 reps", "power for Δ -10.0 pts (simulation)",
		"MDE at power 0.8 (drop)", "Smallest designs reaching power 0.8", "G × R attempts per arm"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, _, code := bench(t, "power", "--tasks", "10", "--pairing", "bogus"); code != 2 {
		t.Errorf("--pairing bogus: exit %d, want 2", code)
	}
}

// bench power --from takes the per-task rates from a run's baseline arm.
func TestPowerFromRun(t *testing.T) {
	d := analysis.Design{Rates: []float64{1, 1, 0, 0.5, 0.8, 0.3, 1, 0.6}, Rep: 3, Model: analysis.ModelSameSeed, Share: 0.8}
	recs := analysis.SimRecords(d, []string{"base", "v"}, analysis.SimOutcomes(newRandForTest(), d, [][]float64{d.Rates, d.Rates}), 1)
	dir := writePowerRun(t, recs, "")
	out, stderr, code := bench(t, "power", "--from", dir, "--effect", "-0.2")
	if code != 0 || !strings.Contains(out, "per-task rates of arm base in "+dir+" (8 tasks") || !strings.Contains(out, "8 tasks × the run's reps (24 attempts per arm)") {
		t.Errorf("exit %d:\n%s%s", code, out, stderr)
	}
}

// On a run whose tasks share families, bench power --from plans over the families (the unit the primary test
// flips), with their sizes (2 and 4 tasks alternating: 6 families, 18 tasks, 54 attempts at 3 reps) and the ICC;
// and it says when the run's other arms played fewer attempts than the planned arm (here v on 9 of the 18 tasks).
func TestPowerFromClusteredRun(t *testing.T) {
	rates := make([]float64, 18)
	for i := range rates {
		rates[i] = []float64{1, 0.5, 0.8}[i%3]
	}
	d := analysis.Design{Rates: rates, Rep: 3, Model: analysis.ModelSameSeed, Share: 0.8}
	recs := analysis.SimRecords(d, []string{"base", "v"}, analysis.SimOutcomes(newRandForTest(), d, [][]float64{rates, rates}), 1)
	fam := func(n int) string { // families of 2 and 4 tasks: t0 t1 | t2…t5 | t6 t7 | …
		return fmt.Sprintf("f%d", 2*(n/6)+min(1, (n%6)/2))
	}
	var kept []results.Attempt
	for _, r := range recs {
		var n int
		fmt.Sscanf(r.TaskID, "t%d", &n)
		r.Cluster = fam(n)
		if r.Variant == "base" || n < 9 {
			kept = append(kept, r)
		}
	}
	dir := writePowerRun(t, kept, "family")
	out, stderr, code := bench(t, "power", "--from", dir, "--effect", "-0.2")
	for _, want := range []string{"Primary test: " + analysis.PairedTestName("family"),
		"per-family rates of arm base in " + dir + " (6 families, 18 tasks", "ICC ",
		"Arm base played 54 attempts and the run's other arms at most 27",
		"6 families × the run's reps (54 attempts per arm)", "families C", "Answer: 6 families × the run's reps: power "} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, output lacks %q:\n%s%s", code, want, out, stderr)
		}
	}
}

// writePowerRun writes recs as a run directory (its attempts and a manifest of arms base and v, with the given
// cluster unit) and returns it.
func writePowerRun(t *testing.T, recs []results.Attempt, unit string) string {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, results.AttemptsFile))
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	m := &results.Manifest{RunID: "t", Webbench: "t", StartedAt: "2026-01-01T00:00:00Z", Plan: results.Plan{
		Suite: "synthetic", Reps: 3, ClusterUnit: unit, Baseline: "base",
		Variants: []results.Variant{{Name: "base"}, {Name: "v"}}}}
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	return dir
}

func newRandForTest() *rand.Rand { return rand.New(rand.NewPCG(4, 2)) }

// bench power --sequential gives the expected and maximum attempts of a sequential design against the fixed one's,
// and refuses what it cannot honour.
func TestPowerSequential(t *testing.T) {
	out, stderr, code := bench(t, "power", "--sequential", "--tasks", "20", "--reps", "2", "--mix", "seeds",
		"--variants", "2", "--effect", "-0.5", "--sims", "40")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// 3 arms × 20 tasks × 2 reps = 120 attempts at most; a 50-point drop stops both variants well before.
	for _, want := range []string{"Kim–DeMets α·t^3 spending on the share of the 20 units, a look after every unit that moved; repeated intervals on O'Brien–Fleming-type boundaries over the units; Holm across 2 variant(s)",
		"attempts (all arms), maximum │ 120   │ 120", "40 simulated runs (seed 13)",
		"futility stop when a drop of 10.0 pts or more is excluded", // the spec's default margin
		"Answer: 20 tasks × 2 reps, sequential: power ", "of the fixed\n  design's 120 attempts"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "expected                   │ 120   │ 120") {
		t.Errorf("no attempts saved at a 50-point drop:\n%s", out)
	}
	for _, args := range [][]string{
		{"power", "--sequential", "--outcome", "tokens", "--from", "x"},
		{"power", "--sequential", "--tasks", "10", "--power", "0.9"},
		{"power", "--sequential", "--tasks", "10", "--variants", "0"},
		{"power", "--sequential", "--tasks", "10", "--min-effect", "1"},
		{"power", "--tasks", "10", "--variants", "3"},
		{"power", "--sequential", "--base", "0.8", "--target", "0.9"},
	} {
		if _, _, code := bench(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// bench power says what its pairing assumes (with the design's figures at independent pairing), marks the
// designs needing more tasks than the suite has, and plans a run of a real endpoint with independent pairing.
func TestPowerPairingAndSuiteBound(t *testing.T) {
	out, stderr, code := bench(t, "power", "--tasks", "40", "--mix", "seeds")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The answer comes first, in one sentence, and bounds the design by the selection in force: the Zoo's
	// hand-written tasks, and every family instance with --suite-option instances=all, each counted by family
	// when the families are fewer (a Zoo run is analysed by family).
	count := func(args ...string) (tasks, fams int) {
		out, _, _ := bench(t, append([]string{"suites", "--suite", "zoo"}, args...)...)
		if _, err := fmt.Sscanf(out, "%d tasks in zoo: %d families", &tasks, &fams); err != nil || fams >= tasks {
			t.Fatalf("zoo %v: %v, %d tasks in %d families:\n%.200s", args, err, tasks, fams, out)
		}
		return tasks, fams
	}
	n, f := count("--suite-option", "instances=all")
	n0, f0 := count()
	for _, want := range []string{"Pairing same-seed: the two arms of a (task, rep) share one outcome draw with probability 0.80",
		"so plan one with --pairing independent. Independent, this design has power 0.150",
		"│ 1      │ 101 *   │", fmt.Sprintf("more tasks than the selection has families (suite zoo has %d families (%d tasks)", f0, n0)} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	flat := strings.Join(strings.Fields(out), " ")
	if want := fmt.Sprintf("40 tasks × 1 rep: power 0.%%d for a 10.0-pt drop — not enough; 101 tasks × 1 rep reach 0.80, but "+
		"suite zoo has %d families (%d tasks), %d families (%d tasks) with --suite-option instances=all: use ", f0, n0, f, n); !strings.HasPrefix(out, "Answer: ") ||
		!strings.Contains(flat, strings.Split(want, "0.%d")[1]) {
		t.Errorf("the answer lacks %q:\n%s", want, out)
	}
	out, _, _ = bench(t, "power", "--tasks", "40", "--mix", "seeds", "--suite-option", "instances=all")
	if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat,
		fmt.Sprintf("101 tasks × 1 rep reach 0.80, but suite zoo has %d families (%d tasks) with instances=all: use 54 tasks × 2 reps", f, n)) {
		t.Errorf("--suite-option instances=all: the answer does not bound 101 tasks by %d families:\n%s", f, out)
	}
	out, _, _ = bench(t, "power", "--tasks", "40", "--mix", "seeds", "--suite", "-", "--pairing", "independent")
	if strings.Contains(out, "*") || strings.Contains(out, "Independent, this design") ||
		!strings.Contains(out, "Pairing independent: the arms of a pair share the task") {
		t.Errorf("--suite - --pairing independent:\n%s", out)
	}
	if _, stderr, code := bench(t, "power", "--tasks", "4", "--mix", "seeds", "--suite", "zooo"); code != 2 ||
		!strings.Contains(stderr, `--suite: unknown suite "zooo" (did you mean "zoo"?)`) {
		t.Errorf("--suite zooo: exit %d, %s", code, stderr)
	}
}

// A --suite-option the suite refuses is a usage error naming the flag and the suite's message, not an answer
// without the bound; --suite - takes no --suite-option.
func TestPowerRefusesBadSuiteOption(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--suite-option", "instances=al"},
			`--suite-option: zoo: instances: unknown selection "al" (did you mean "all"?) (valid: tasks, all, one)`},
		{[]string{"--suite", "zoo", "--suite-option", "instancs=all"}, `--suite-option: zoo: unknown option "instancs" (did you mean "instances"?)`},
		{[]string{"--suite", "-", "--suite-option", "instances=all"}, "--suite-option: --suite - plans no suite to take it"},
	} {
		args := append([]string{"power", "--tasks", "40", "--mix", "seeds"}, c.args...)
		if out, stderr, code := bench(t, args...); code != 2 || !strings.Contains(stderr, c.want) || strings.Contains(out, "Answer") {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q, no answer:\n%s", c.args, code, stderr, c.want, out)
		}
	}
}

// --mix issue, the mix's former name, still plans the same design, with a one-line notice on stderr naming
// the new name; --help names only the new one.
func TestPowerMixIssueAlias(t *testing.T) {
	want, _, code := bench(t, "power", "--tasks", "12", "--reps", "2", "--mix", "seeds", "--suite", "-")
	if code != 0 {
		t.Fatalf("--mix seeds: exit %d", code)
	}
	got, stderr, code := bench(t, "power", "--tasks", "12", "--reps", "2", "--mix", "issue", "--suite", "-")
	if code != 0 || got != want {
		t.Errorf("--mix issue: exit %d, output differs from --mix seeds:\n%s\nwant\n%s", code, got, want)
	}
	if stderr != "bench power: --mix issue is deprecated: it is --mix seeds now (the same mix)\n" {
		t.Errorf("--mix issue: stderr %q, want the one-line notice", stderr)
	}
	help, _, _ := bench(t, "power", "--help")
	if strings.Contains(help, "issue") || !strings.Contains(help, "--mix seeds") {
		t.Errorf("--help names the old mix or not the new one:\n%s", help)
	}
}
