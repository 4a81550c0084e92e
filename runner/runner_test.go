package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"webbench/agent/guard"
	"webbench/results"
	"webbench/suites"
	_ "webbench/suites/zoo"
)

func TestPlanIDsSeedsAndShards(t *testing.T) {
	tasks := []suites.Task{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}, {ID: "e"}}
	vs := []Variant{{Name: "baseline"}, {Name: "no_repeat_guard"}, {Name: "no_intercept_hint"}}
	p := Plan{Suite: "zoo", Tasks: tasks, Reps: 3, Variants: vs, BaseSeed: 7}
	atts, err := p.Expand()
	if err != nil {
		t.Fatal(err)
	}
	if len(atts) != 5*3*3 {
		t.Fatalf("want 45 attempts, got %d", len(atts))
	}
	ids := map[string]bool{}
	seedOf := map[string]int{}
	for i, a := range atts {
		if ids[a.AttemptID] {
			t.Fatalf("duplicate attempt id %s", a.AttemptID)
		}
		ids[a.AttemptID] = true
		if s, ok := seedOf[a.PairID]; ok && s != *a.Seed {
			t.Fatalf("arms of pair %s have different seeds", a.PairID)
		}
		seedOf[a.PairID] = *a.Seed
		// Arms of one pair are adjacent.
		if i%3 != 0 && atts[i-1].PairID != a.PairID {
			t.Fatalf("arms of a pair not adjacent at %d", i)
		}
	}
	// Stable ids: the same plan expands to the same ids.
	again, _ := p.Expand()
	for i := range atts {
		if atts[i].AttemptID != again[i].AttemptID {
			t.Fatal("expansion is not deterministic")
		}
	}
	// Shards partition by pair: disjoint, complete, pairs whole.
	seen := map[string]string{}
	total := 0
	for i := 1; i <= 3; i++ {
		shard := Shard{I: i, N: 3}
		sh := shard.Select(atts)
		total += len(sh)
		for _, a := range sh {
			if s, ok := seen[a.PairID]; ok && s != shard.String() {
				t.Fatalf("pair %s split across shards", a.PairID)
			}
			seen[a.PairID] = shard.String()
		}
	}
	if total != len(atts) {
		t.Fatalf("shards hold %d attempts, plan has %d", total, len(atts))
	}
	if _, err := ParseShard("4/3"); err == nil {
		t.Error("4/3 accepted")
	}
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	if s, err := ParseShard("k8s/3"); err != nil || s.I != 2 {
		t.Errorf("k8s shard: %v %v", s, err)
	}
	if _, err := (Plan{Tasks: tasks, Reps: 0, Variants: vs}).Expand(); err == nil {
		t.Error("reps 0 accepted")
	}
}

// zooShop opens the Zoo suite and picks a few shop tasks.
func zooShop(t *testing.T, glob string) (suites.Suite, []suites.Task) {
	t.Helper()
	s, err := suites.Open("zoo", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	tasks, err := suites.Filter(s.Tasks(), glob)
	if err != nil {
		t.Fatal(err)
	}
	return s, tasks
}

func cleanVariant() Variant {
	return Variant{Name: "default", Model: Model{Kind: "scripted", Name: "scripted", Profile: "clean"}, Guards: guard.Default()}
}

// TestRunResumeAfterInterrupt runs three of the shop's Q&A tasks × 2 reps in real Chromium against the scripted
// policy over HTTP, cancels the run midway (as Ctrl-C does), then re-runs it on the same directory: every attempt
// ends with exactly one pass record, none lost or duplicated. Six attempts on two workers leave, at the interrupt
// after two records, attempts in flight and attempts not yet started.
func TestRunResumeAfterInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s, tasks := zooShop(t, "shop-qa-*")
	if len(tasks) > 3 {
		tasks = tasks[:3]
	}
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 2, Variants: []Variant{cleanVariant()}, BaseSeed: 1}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // interrupt once two attempts are recorded, as Ctrl-C midway would
		for ctx.Err() == nil {
			if rr, err := results.ReadAttempts(dir); err == nil && len(rr.Latest) >= 2 {
				cancel()
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	_, err := Run(ctx, plan, s, Options{OutDir: dir, Workers: 2, Log: os.Stderr})
	if err == nil {
		t.Log("run finished before the interrupt took effect")
	}
	rr, err := results.ReadAttempts(dir)
	if err != nil {
		t.Fatal(err)
	}
	before := len(rr.Latest)
	if before >= len(tasks)*2 {
		t.Logf("interrupt came late: %d/%d recorded", before, len(tasks)*2)
	}
	sum, err := Run(context.Background(), plan, s, Options{OutDir: dir, Workers: 2, Log: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != before {
		t.Errorf("resume skipped %d, want %d already recorded", sum.Skipped, before)
	}
	rr, err = results.ReadAttempts(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := len(tasks) * 2
	if len(rr.Latest) != want {
		t.Fatalf("run holds %d attempt ids, want %d", len(rr.Latest), want)
	}
	perID := map[string]int{}
	for _, r := range rr.Records {
		perID[r.AttemptID]++
	}
	for id, r := range rr.Latest {
		if r.Status != results.StatusPass {
			t.Errorf("attempt %s (%s rep %d): %s %s %s %s", id, r.TaskID, r.Rep, r.Status, r.FailureMode, r.Verdict.Reason, r.Error)
		}
		if perID[id] != 1 {
			t.Errorf("attempt %s has %d records", id, perID[id])
		}
		if _, err := os.Stat(filepath.Join(dir, r.Trajectory)); err != nil {
			t.Errorf("trajectory missing: %v", err)
		}
	}
	run, err := results.Open(dir)
	if err != nil {
		t.Fatalf("manifest: %v", err)
	}
	m := run.Manifest
	if m.SchemaVersion != results.SchemaVersion || m.Plan.Attempts != want || m.Plan.Baseline != "default" ||
		len(m.Plan.Tasks) != len(tasks) || m.Summary == nil || m.Summary.Skipped != before || m.EndedAt == "" {
		t.Errorf("manifest = %+v", m)
	}
	// Resuming with another configuration is refused.
	other := plan
	other.BaseSeed = 2
	if _, err := Run(context.Background(), other, s, Options{OutDir: dir, Workers: 1, Log: os.Stderr}); !errors.Is(err, ErrPlanMismatch) {
		t.Errorf("resume with another base seed: %v", err)
	}
}
