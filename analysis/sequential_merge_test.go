package analysis_test

import (
	"fmt"
	"reflect"
	"testing"

	"webbench/analysis"
	"webbench/results"
	"webbench/stats"
)

// simulateShard runs shard i of n of plan p as the runner does: its own rule over its own pairs
// (results.InShard), attempts in unit order, each started only when the shard's rule does not skip it. It returns
// the shard as its run directory holds it: its records, and a manifest naming the shard with its rule's skips.
func simulateShard(t *testing.T, p results.Plan, i, n int, outcome func(variant, task string) bool) *results.Run {
	t.Helper()
	keep := func(pid string) bool { return results.InShard(pid, i, n) }
	rule, err := analysis.NewSeqRule(p, keep)
	if err != nil {
		t.Fatal(err)
	}
	latest := map[string]results.Attempt{}
	var recs []results.Attempt
	for _, u := range p.Ablation.Sequential.Units {
		for _, task := range u.Tasks {
			for _, v := range p.VariantNames() {
				r := seqRec(p, v, task, outcome(v, task))
				if _, skip := rule.Skips(latest)[r.AttemptID]; skip || !keep(r.PairID) {
					continue
				}
				latest[r.AttemptID] = r
				recs = append(recs, r)
			}
		}
	}
	return &results.Run{Records: recs, Manifest: &results.Manifest{Shard: fmt.Sprintf("%d/%d", i, n), Plan: p,
		Summary: &results.Summary{SeqSkips: results.SumSkips(rule.Skips(latest), p.VariantNames())}}}
}

// mergedResult is the outcome bench merge's manifest gives shards: the merged skips (MergedSeqSkips) over the
// union of their records, and the rule replayed with them, as bench report replays it.
func mergedResult(t *testing.T, p results.Plan, shards ...*results.Run) (*analysis.SeqResult, []results.Attempt, []results.SeqSkip) {
	t.Helper()
	var union []results.Attempt
	for _, s := range shards {
		union = append(union, s.Records...)
	}
	skips, err := analysis.MergedSeqSkips(p, shards, union)
	if err != nil {
		t.Fatal(err)
	}
	rule, _ := analysis.NewSeqRule(p, nil)
	sum := &results.Summary{SeqSkips: skips}
	return rule.WithShardSkips(skips).Result(union, sum), union, skips
}

// Two shards whose own rules stop later than the whole plan's (each looks at half the pairs): their records hold
// every attempt the unsharded run looks at, so the merged replay reaches the unsharded run's decisions, at the
// same units, and leaves no shard's stop standing.
func TestMergedSeqMatchesUnsharded(t *testing.T) {
	p := seqPlan(40, "bad", "same")
	outcome := func(v, _ string) bool { return v != "bad" }
	rule, _ := analysis.NewSeqRule(p, nil)
	want := rule.Result(simulate(t, p, outcome), nil)
	got, union, skips := mergedResult(t, p, simulateShard(t, p, 1, 2, outcome), simulateShard(t, p, 2, 2, outcome))
	for i, w := range want.Variants {
		g := got.Variants[i]
		if g.Stop != w.Stop || g.At != w.At || g.Look != w.Look {
			t.Errorf("%s: merged %s at unit %d (%+v), unsharded %s at %d (%+v)", w.Variant, g.Stop, g.At, g.Look, w.Stop,
				w.At, w.Look)
		}
	}
	if want.Variants[0].Stop != stats.SeqWorse || want.Variants[1].Stop != stats.SeqFutile {
		t.Fatalf("unsharded stops %q, %q; want worse, futile", want.Variants[0].Stop, want.Variants[1].Stop)
	}
	sum := &results.Summary{SeqSkips: skips}
	if len(got.ShardStops) != 0 || len(union)+sum.SeqSkipped() != 3*40 || got.Saved != sum.SeqSkipped() {
		t.Errorf("shard stops %+v, %d records + %d skipped, saved %d; want none, 120 in all", got.ShardStops,
			len(union), sum.SeqSkipped(), got.Saved)
	}
}

// Shards that disagree: "bad" fails every task of shard 1 (where the baseline passes) and passes every task of
// shard 2 (where the baseline fails). Shard 1's own rule decides it worse, shard 2's futile (no drop), and each
// leaves its remaining pairs, and the baseline's there, unrun; the merged looks (a mean near 0) had decided
// neither by then, so those attempts are kept as each shard's skips, named, and count as pairs without an
// outcome: the merged decisions equal a single replay over the union of the records in plan order with those
// attempts recorded as errors (no outcome).
func TestMergedSeqKeepsShardStops(t *testing.T) {
	p := seqPlan(40, "bad")
	in1 := func(task string) bool { return results.InShard(results.PairID(p.Suite, task, 1), 1, 2) }
	outcome := func(v, task string) bool { return (v == "bad") != in1(task) }
	s1, s2 := simulateShard(t, p, 1, 2, outcome), simulateShard(t, p, 2, 2, outcome)
	if s := s1.Manifest.Summary.SeqSkips; len(s) == 0 || s[0].Variant != "baseline" || s[1].Stop != "worse" {
		t.Fatalf("shard 1's own skips %+v: want the baseline's and bad's after bad was decided worse", s)
	}
	got, union, skips := mergedResult(t, p, s1, s2)
	// The single replay: every attempt shard 1 left unrun recorded as an error.
	filled := append([]results.Attempt(nil), union...)
	left := 0
	for _, s := range skips {
		if s.Shard == "" {
			continue
		}
		if want := map[string]string{"1/2": "worse", "2/2": "futile"}[s.Shard]; want == "" ||
			s.Variant == "bad" && s.Stop != want || len(s.IDs) != s.Attempts {
			t.Errorf("shard skip %+v: want shard 1/2's worse or 2/2's futile stop with its %d attempt ids", s, s.Attempts)
		}
		for _, id := range s.IDs {
			filled = append(filled, results.Attempt{AttemptID: id, Variant: s.Variant, Status: results.StatusError,
				ErrorClass: results.ClassInfra})
		}
		left += s.Attempts
	}
	rule, _ := analysis.NewSeqRule(p, nil)
	want := rule.Result(filled, nil)
	if g, w := got.Variants[0], want.Variants[0]; g.Stop != w.Stop || g.At != w.At || g.Look != w.Look || got.Looked != want.Looked {
		t.Errorf("merged %q at %d (%+v, looked %d); single replay %q at %d (%+v, looked %d)", g.Stop, g.At, g.Look,
			got.Looked, w.Stop, w.At, w.Look, want.Looked)
	}
	if got.Variants[0].Stop == stats.SeqWorse || left == 0 || len(got.ShardStops) != 4 {
		t.Fatalf("merged %q, %d attempts kept as the shards', shard stops %+v; want not worse, some kept, 4 entries",
			got.Variants[0].Stop, left, got.ShardStops)
	}
	sum := &results.Summary{SeqSkips: skips}
	if len(union)+sum.SeqSkipped() != 2*40 || got.Saved != sum.SeqSkipped() {
		t.Errorf("%d records + %d skipped (saved %d); want all 80 planned attempts", len(union), sum.SeqSkipped(), got.Saved)
	}
	// Merging the merged run again with nothing new keeps the same skips and decisions.
	merged := &results.Run{Records: union, Manifest: &results.Manifest{Shard: "merged from 2 shards", Plan: p, Summary: sum}}
	if again, _, skips2 := mergedResult(t, p, merged); !reflect.DeepEqual(skips2, skips) || again.Variants[0] != got.Variants[0] {
		t.Errorf("merged again: %+v, %+v; want %+v, %+v", skips2, again.Variants[0], skips, got.Variants[0])
	}
}
