package analysis

import (
	"fmt"
	"reflect"
	"testing"

	"webbench/results"
)

// TestRunWarnings: the run-level warnings decided from a run read back (the v2ablate fixture: 2 planned
// attempts, 2 records, ended), its records and its arms, as the manifest is changed to each case.
func TestRunWarnings(t *testing.T) {
	run, err := results.Open("../results/testdata/v2ablate")
	if err != nil {
		t.Fatal(err)
	}
	if ws := RunWarnings(run, run.Final(), nil); len(ws) != 0 {
		t.Fatalf("a finished run: %+v", ws)
	}
	recs := append(run.Final(), results.Attempt{Tokens: results.Tokens{Estimated: true}},
		// The all-infra arm's errors: one cause on two attempts (ports masked), grouped with an example.
		results.Attempt{Variant: "down", Status: results.StatusError, ErrorClass: results.ClassInfra,
			Error: "site unreachable: dial tcp 127.0.0.1:4431: connect: connection refused"},
		results.Attempt{Variant: "down", Status: results.StatusError, ErrorClass: results.ClassInfra,
			Error: "site unreachable: dial tcp 127.0.0.1:4432: connect: connection refused"})
	arms := []Arm{{Name: "ok", Attempts: 2, N: 2}, {Name: "down", Attempts: 3, ErrorsByClass: map[string]int{"infra": 3}}}
	m := run.Manifest
	run.TornTail, m.Plan.Attempts, m.EndedAt = true, 5, ""
	want := []RunWarning{{Kind: RunTornTail, Dir: run.Dir}, {Kind: RunEstimatedTokens, Count: 1, Of: 5},
		{Kind: RunIncomplete, Missing: 3, Planned: 5, NoEnd: true}, {Kind: RunAllInfra, Variant: "down",
			Causes: []ErrorCause{{Text: "site unreachable: dial tcp N.N.N.N:N: connect: connection refused",
				Example: "site unreachable: dial tcp 127.0.0.1:4431: connect: connection refused", N: 2}}}}
	if ws := RunWarnings(run, recs, arms); !reflect.DeepEqual(ws, want) {
		t.Errorf("torn, estimated, unfinished, all infra:\n got %+v\nwant %+v", ws, want)
	}
	run.TornTail = false
	m.Summary.Stopped = "cost limit $0.01 reached"
	want = []RunWarning{{Kind: RunStopped, Stopped: "cost limit $0.01 reached", Missing: 3, Planned: 5}}
	if ws := RunWarnings(run, run.Final(), nil); !reflect.DeepEqual(ws, want) {
		t.Errorf("stopped:\n got %+v\nwant %+v", ws, want)
	}
	// A shard's planned attempts are its share, as its summary records.
	m.Summary.Stopped, m.Shard, m.Summary.Planned = "", "2/3", 0
	want = []RunWarning{{Kind: RunEmptyShard, Shard: "2/3", Planned: 5}}
	if ws := RunWarnings(run, run.Final(), nil); !reflect.DeepEqual(ws, want) {
		t.Errorf("empty shard:\n got %+v\nwant %+v", ws, want)
	}
	m.Summary.Planned = 4
	want = []RunWarning{{Kind: RunIncomplete, Missing: 2, Planned: 4, NoEnd: true}}
	if ws := RunWarnings(run, run.Final(), nil); !reflect.DeepEqual(ws, want) {
		t.Errorf("unfinished shard:\n got %+v\nwant %+v", ws, want)
	}
	// A merged run's planned attempts are the whole plan's.
	m.Shard = "merged from 3 shards"
	want = []RunWarning{{Kind: RunIncomplete, Missing: 3, Planned: 5, NoEnd: true}}
	if ws := RunWarnings(nil, nil, nil); len(ws) != 0 {
		t.Errorf("no run, no records: %+v", ws)
	}
	if ws := RunWarnings(run, run.Final(), nil); !reflect.DeepEqual(ws, want) {
		t.Errorf("merged run:\n got %+v\nwant %+v", ws, want)
	}
}

// TestDominantCause: the one error that ended more than half of a run's attempts is named (numbers masked in
// grouping, an attempt's own text shown); half or less, or passing attempts' texts, are not.
func TestDominantCause(t *testing.T) {
	crash := func(pid int) results.Attempt {
		return results.Attempt{Status: results.StatusError, Error: fmt.Sprintf("agent exited with status 127 (pid %d): sh: agnet.py: not found", pid)}
	}
	pass := results.Attempt{Status: results.StatusPass, Error: "agent exited with status 127 (pid 1): sh: agnet.py: not found"}
	recs := []results.Attempt{crash(10), crash(11), crash(12), pass, {Status: results.StatusFail}}
	c, ok := DominantCause(recs)
	if !ok || c.N != 3 || c.Example != "agent exited with status 127 (pid 10): sh: agnet.py: not found" {
		t.Errorf("3 of 5 crashed alike: %+v, %v", c, ok)
	}
	if c, ok := DominantCause(recs[1:]); ok {
		t.Errorf("2 of 4 is not most: %+v", c)
	}
}

// TestCassetteMissWarning: replayed attempts with misses are counted among the replayed ones (records without a
// cassette_misses field were not replayed), with the requests missed in all; none missed, no warning.
func TestCassetteMissWarning(t *testing.T) {
	n := func(k int) *int { return &k }
	recs := []results.Attempt{{CassetteMisses: n(2)}, {CassetteMisses: n(0)}, {CassetteMisses: n(1)}, {}}
	want := []RunWarning{{Kind: RunCassetteMisses, Count: 2, Of: 3, Missed: 3}}
	if ws := RunWarnings(nil, recs, nil); !reflect.DeepEqual(ws, want) {
		t.Errorf("got %+v\nwant %+v", ws, want)
	}
	if ws := RunWarnings(nil, recs[1:2], nil); len(ws) != 0 {
		t.Errorf("no miss: %+v", ws)
	}
}
