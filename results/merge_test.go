package results

import (
	"reflect"
	"strings"
	"testing"
)

// The merged manifest spans its shards: the earliest start, the latest end (none while a shard has none), the
// summaries added up and every shard's stop reason — not the first shard's alone (a fresh user's merged run of
// three shards showed shard 1's 10 planned of the plan's 28, so a report of a run missing a shard looked whole) —
// and each shard's budgets with their sum (a budget one shard ran without has no sum). The shards' sequential
// skips are not added up: the merged rule recomputes them (Merge's SeqMerger).
func TestMergeSpanAddsShards(t *testing.T) {
	shard := func(name, start, end string, s *Summary) *Run {
		return &Run{Manifest: &Manifest{Shard: name, StartedAt: start, EndedAt: end, Summary: s}}
	}
	shards := []*Run{
		shard("1/3", "2026-12-01T10:05:00Z", "2026-12-01T10:20:00Z", &Summary{Planned: 10, Ran: 10, Passed: 9, Failed: 1,
			Budgets: &Budgets{MaxAttempts: 10, MaxCostUSD: 2}}),
		shard("2/3", "2026-12-01T10:01:00Z", "2026-12-01T10:30:00Z", &Summary{Planned: 10, Ran: 8, Passed: 6, Failed: 1, Errors: 1, Skipped: 2,
			Budgets: &Budgets{MaxAttempts: 10}}),
		shard("3/3", "2026-12-01T10:03:00Z", "2026-12-01T10:25:00Z", &Summary{Planned: 8, Ran: 5, Passed: 5, Stopped: "quota",
			Budget: BudgetAttempts, SeqSkips: []SeqSkip{{Variant: "v", Stop: "worse", Unit: 2, Attempts: 3}},
			Budgets: &Budgets{MaxAttempts: 5, MaxCostUSD: 1}}),
	}
	start, end, sum := mergeSpan(shards)
	if start != "2026-12-01T10:01:00Z" || end != "2026-12-01T10:30:00Z" {
		t.Errorf("span %s – %s, want 10:01 – 10:30", start, end)
	}
	want := Summary{Planned: 28, Skipped: 2, Ran: 23, Passed: 20, Failed: 2, Errors: 1, Stopped: "shard 3/3: quota",
		Budget: BudgetAttempts, Budgets: &Budgets{MaxAttempts: 25},
		ShardBudgets: []ShardBudget{{"1/3", Budgets{10, 2}}, {"2/3", Budgets{MaxAttempts: 10}}, {"3/3", Budgets{5, 1}}}}
	if sum == nil || !reflect.DeepEqual(*sum, want) {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	// A shard with no end time (killed, or running) leaves the merged run without one.
	shards[1].Manifest.EndedAt = ""
	if _, end, _ := mergeSpan(shards); end != "" {
		t.Errorf("end %q with an unfinished shard, want none", end)
	}
	// No shard with a summary: none.
	if _, _, sum := mergeSpan([]*Run{shard("1/2", "2026-12-01T10:00:00Z", "", nil)}); sum != nil {
		t.Errorf("summary %+v from shards without one", sum)
	}
}

// TestMergeBrowserSection: bench merge's manifest keeps the first shard's browser section (remote, endpoint,
// headers) with the shards' launches added up and their versions joined.
func TestMergeBrowserSection(t *testing.T) {
	bi := func(launches int, versions ...string) *Run {
		return &Run{Manifest: &Manifest{Browser: &BrowserInfo{Remote: true,
			Endpoint: "ws://h:3000/REDACTED", Headers: []string{"Authorization"}, Launches: launches, Versions: versions}}}
	}
	got := mergeBrowser([]*Run{bi(3, "156.0.1"), {Manifest: &Manifest{}}, bi(4, "156.0.1", "157.0.2")})
	if got == nil || !got.Remote || got.Endpoint != "ws://h:3000/REDACTED" || got.Launches != 7 ||
		strings.Join(got.Versions, ",") != "156.0.1,157.0.2" || len(got.Headers) != 1 {
		t.Errorf("merged browser section %+v", got)
	}
	if got := mergeBrowser([]*Run{{Manifest: &Manifest{}}}); got != nil {
		t.Errorf("no shard with a browser section: %+v", got)
	}
}
