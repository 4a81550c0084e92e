package results

import (
	"strconv"
	"strings"
)

// Completeness is how much of its plan a run holds (Run.Completeness).
type Completeness struct {
	// Planned is the plan's attempts; a shard's (IsShard) is its share, as its summary records.
	Planned int
	// Missing is how many of them have no final record, those a sequential design left unrun
	// (Summary.SeqSkips) not counted.
	Missing int
	// Stopped is the manifest summary's stop reason ("" when none).
	Stopped string
	// IsShard is whether the run is one shard (--shard i/n, n > 1) rather than a whole or merged run.
	IsShard bool
}

// Completeness says how much of its plan r holds. A shard's planned attempts are its share of the plan, as its
// summary records; an unsharded or merged run's are the whole plan's (a merged manifest carries its first
// shard's summary).
func (r *Run) Completeness() Completeness {
	m := r.Manifest
	c := Completeness{Planned: m.Plan.Attempts, IsShard: isShard(m.Shard)}
	if c.IsShard && m.Summary != nil {
		c.Planned = m.Summary.Planned // this shard's share of the plan
	}
	c.Missing = max(c.Planned-len(r.Final())-m.Summary.SeqSkipped(), 0)
	if m.Summary != nil {
		c.Stopped = m.Summary.Stopped
	}
	return c
}

// isShard reports whether a manifest's shard field names one shard of several: "i/n" with n > 1, as the runner
// records it (merged runs record "merged from N shards").
func isShard(s string) bool {
	is, ns, ok := strings.Cut(s, "/")
	i, ierr := strconv.Atoi(is)
	n, nerr := strconv.Atoi(ns)
	return ok && ierr == nil && nerr == nil && n > 1 && i >= 1 && i <= n
}

// ShardPairs is the pair test of r's shard when r is one shard of several (InShard over its manifest's "i/n"),
// nil for a whole or merged run (every pair of the plan).
func (r *Run) ShardPairs() func(pairID string) bool {
	if !isShard(r.Manifest.Shard) {
		return nil
	}
	is, ns, _ := strings.Cut(r.Manifest.Shard, "/")
	i, _ := strconv.Atoi(is)
	n, _ := strconv.Atoi(ns)
	return func(pairID string) bool { return InShard(pairID, i, n) }
}
