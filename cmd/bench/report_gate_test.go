package main

import (
	"strings"
	"testing"

	"webbench/results"
)

// setManifest rewrites the manifest of the run directory dir with edit applied.
func setManifest(t *testing.T, dir string, edit func(*results.Manifest)) {
	t.Helper()
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	edit(m)
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
}

// The planned attempts bench report counts missing ones against: a shard's share as its summary records (an
// empty share gets a note, not "N of N planned attempts have no record"), an unsharded or merged run's whole
// plan (a merged manifest carries its first shard's summary, which must not hide a missing shard).
func TestReportPlannedOfShardsAndMerged(t *testing.T) {
	empty := writeRun(t, runSpec{tasks: 0, reps: 1, seed: 1})
	setManifest(t, empty, func(m *results.Manifest) {
		m.Shard, m.Plan.Attempts, m.EndedAt, m.Summary = "3/3", 4, "2026-12-01T00:00:00Z", &results.Summary{Planned: 0}
	})
	_, stderr, code := bench(t, "report", empty)
	if code != 0 || !strings.Contains(stderr, "note: shard 3/3 holds 0 of the plan's 4 attempts: its share is empty") ||
		strings.Contains(stderr, "have no record") {
		t.Errorf("empty shard: exit %d, stderr %q", code, stderr)
	}

	shard := writeRun(t, runSpec{tasks: 2, reps: 2, seed: 1})
	setManifest(t, shard, func(m *results.Manifest) {
		m.Shard, m.Plan.Attempts, m.EndedAt, m.Summary = "1/3", 12, "2026-12-01T00:00:00Z", &results.Summary{Planned: 4, Ran: 4}
	})
	if _, stderr, code := bench(t, "report", shard); code != 0 || strings.Contains(stderr, "warning") || strings.Contains(stderr, "note:") {
		t.Errorf("finished shard (4 of its 4): exit %d, stderr %q", code, stderr)
	}

	merged := writeRun(t, runSpec{tasks: 2, reps: 2, seed: 1})
	setManifest(t, merged, func(m *results.Manifest) {
		m.Shard, m.Plan.Attempts, m.EndedAt, m.Summary = "merged from 3 shards", 8, "2026-12-01T00:00:00Z", &results.Summary{Planned: 4, Ran: 4}
	})
	if _, stderr, _ := bench(t, "report", merged); !strings.Contains(stderr, "4 of 8 planned attempts have no record") {
		t.Errorf("merged run missing a shard: stderr %q, want 4 of 8 missing", stderr)
	}
	// --gate does not pass a merged run missing a shard (the second review: two of three shards merged gave
	// "gate: passed", exit 0): exit 3, naming what is missing, and no pass line.
	if _, stderr, code := bench(t, "report", merged, "--gate"); code != exitInfra ||
		!strings.Contains(stderr, "gate: not applied") || !strings.Contains(stderr, "holds 4 of its 8 planned attempts") ||
		strings.Contains(stderr, "passed: no variant is shown worse") {
		t.Errorf("merged run missing a shard, --gate: exit %d, stderr %q; want exit 3, not applied", code, stderr)
	}
	// A finished shard gates on its share; a run that stopped is not gated.
	if _, stderr, code := bench(t, "report", shard, "--gate"); code != 0 {
		t.Errorf("finished shard, --gate: exit %d, %s", code, stderr)
	}
	stopped := writeRun(t, runSpec{tasks: 2, reps: 2, seed: 1})
	setManifest(t, stopped, func(m *results.Manifest) {
		m.Plan.Attempts, m.Summary = 4, &results.Summary{Planned: 4, Ran: 4, Stopped: "quota: insufficient_quota"}
	})
	if _, stderr, code := bench(t, "report", stopped, "--gate"); code != exitInfra ||
		!strings.Contains(stderr, "stopped (quota: insufficient_quota)") {
		t.Errorf("stopped run, --gate: exit %d, stderr %q; want exit 3", code, stderr)
	}
}

// bench report --gate on a plain run applies bench run's end gate: exit 3 when more than 10% of the attempts
// ended in infrastructure errors, 0 otherwise; without --gate the same report exits 0. (The ablation gate, exit 1
// on the recorded fail_if_worse, is tested on a real merged run: TestK8sMergePodGateFails.)
func TestReportGatePlainRun(t *testing.T) {
	ok := writeRun(t, runSpec{tasks: 10, reps: 1, seed: 1})
	if _, stderr, code := bench(t, "report", ok, "--gate"); code != 0 {
		t.Errorf("all pass, --gate: exit %d, %s", code, stderr)
	}
	bad := writeRun(t, runSpec{tasks: 10, reps: 1, seed: 1, infra: func(i int) bool { return i < 2 }})
	if _, stderr, code := bench(t, "report", bad); code != 0 {
		t.Errorf("2 of 10 infra, no --gate: exit %d, %s", code, stderr)
	}
	if _, stderr, code := bench(t, "report", bad, "--gate"); code != exitInfra ||
		!strings.Contains(stderr, "2 of 10 attempts ended in infrastructure errors after retries (> 10%)") {
		t.Errorf("2 of 10 infra, --gate: exit %d, stderr %q; want exit 3", code, stderr)
	}
}
