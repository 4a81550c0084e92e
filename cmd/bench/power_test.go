package main

import (
	"encoding/json"
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
	out, stderr, code := bench(t, "power", "--tasks", "40", "--reps", "5", "--mix", "issue", "--pairing", "same-seed")
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
	dir := t.TempDir()
	d := analysis.Design{Rates: []float64{1, 1, 0, 0.5, 0.8, 0.3, 1, 0.6}, Rep: 3, Model: analysis.ModelSameSeed, Share: 0.8}
	recs := analysis.SimRecords(d, []string{"base", "v"}, analysis.SimOutcomes(newRandForTest(), d, [][]float64{d.Rates, d.Rates}), 1)
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
	// The run directory's manifest (schema version 1, which results.Open converts).
	man := `{"schema_version": 1, "run_id": "t", "spec": {}, "plan": {"suite": "synthetic", "reps": 3,
		"variants": [{"name": "base"}, {"name": "v"}]}, "webbench_version": "t", "go_version": "",
		"system_prompt_sha256": {}, "host": "", "started_at": "2026-01-01T00:00:00Z", "shard": ""}`
	if err := os.WriteFile(filepath.Join(dir, results.ManifestFile), []byte(man), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := bench(t, "power", "--from", dir, "--effect", "-0.2")
	if code != 0 || !strings.Contains(out, "per-task rates of arm base in "+dir+" (8 tasks") || !strings.Contains(out, "8 tasks × the run's reps (24 attempts per arm)") {
		t.Errorf("exit %d:\n%s%s", code, out, stderr)
	}
}

func newRandForTest() *rand.Rand { return rand.New(rand.NewPCG(4, 2)) }

// bench power --sequential gives the expected and maximum attempts of a sequential design against the fixed one's,
// and refuses what it cannot honour.
func TestPowerSequential(t *testing.T) {
	out, stderr, code := bench(t, "power", "--sequential", "--tasks", "20", "--reps", "2", "--mix", "issue",
		"--variants", "2", "--effect", "-0.5", "--sims", "40")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// 3 arms × 20 tasks × 2 reps = 120 attempts at most; a 50-point drop stops both variants well before.
	for _, want := range []string{"Kim–DeMets α·t^3 spending on the share of the 20 units, a look after every unit that moved; Holm across 2 variant(s)",
		"attempts (all arms), maximum │ 120   │ 120", "40 simulated runs (seed 13)",
		"futility stop when a drop of 10.0 pts or more is excluded"} { // the spec's default margin
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
	out, stderr, code := bench(t, "power", "--tasks", "40", "--mix", "issue")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Pairing same-seed: the two arms of a (task, rep) share one outcome draw with probability 0.80",
		"so plan one with --pairing independent. Independent, this design has power 0.150",
		"│ 1      │ 101 *   │", "*: more tasks than zoo has (40)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = bench(t, "power", "--tasks", "40", "--mix", "issue", "--suite", "-", "--pairing", "independent")
	if strings.Contains(out, "*") || strings.Contains(out, "Independent, this design") ||
		!strings.Contains(out, "Pairing independent: the arms of a pair share the task") {
		t.Errorf("--suite - --pairing independent:\n%s", out)
	}
	if _, stderr, code := bench(t, "power", "--tasks", "4", "--mix", "issue", "--suite", "zooo"); code != 2 ||
		!strings.Contains(stderr, `--suite: unknown suite "zooo" (did you mean "zoo"?)`) {
		t.Errorf("--suite zooo: exit %d, %s", code, stderr)
	}
}
