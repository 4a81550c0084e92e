package analysis_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"webbench/analysis"
	"webbench/results"
	"webbench/stats"
)

// seqPlan is a sequential plan over n single-task units (task t01 … tn), one rep: the baseline and the variants
// named, each switching a guard off so none is an A/A copy.
func seqPlan(n int, variants ...string) results.Plan {
	p := results.Plan{Suite: "zoo", Reps: 1, Baseline: "baseline", Variants: []results.Variant{{Name: "baseline"}},
		Ablation: &results.Ablation{Alpha: 0.05, MinEffect: 0.25,
			Sequential: &results.Sequential{Alpha: 0.05, MinEffect: 0.25}}}
	for _, v := range variants {
		p.Variants = append(p.Variants, results.Variant{Name: v, Guards: map[string]bool{v: false}, Switched: []string{v}})
	}
	for i := range n {
		t := fmt.Sprintf("t%02d", i+1)
		p.Tasks = append(p.Tasks, t)
		p.Ablation.Sequential.Units = append(p.Ablation.Sequential.Units, results.SeqUnit{Name: t, Tasks: []string{t}})
	}
	return p
}

// seqRec is the record of variant's attempt on task (rep 1), pass or fail.
func seqRec(p results.Plan, variant, task string, pass bool) results.Attempt {
	pid := results.PairID(p.Suite, task, 1)
	st := results.StatusFail
	if pass {
		st = results.StatusPass
	}
	return results.Attempt{AttemptID: results.AttemptID(variant, pid), PairID: pid, Variant: variant, TaskID: task,
		Rep: 1, Status: st, Tokens: results.Tokens{Prompt: 900, Completion: 100}}
}

// simulate runs plan p as the runner does with one worker: attempts in unit order, each started only when the
// rule does not skip it given the records so far; outcome says whether an attempt passes. It returns the final
// records in the order they were recorded.
func simulate(t *testing.T, p results.Plan, outcome func(variant, task string) bool) []results.Attempt {
	return resume(t, p, outcome, nil, 0)
}

// resume is simulate continued from the records prior (an earlier invocation's), stopping after limit new
// records (0: none), as a run killed there.
func resume(t *testing.T, p results.Plan, outcome func(variant, task string) bool, prior []results.Attempt, limit int) []results.Attempt {
	t.Helper()
	rule, err := analysis.NewSeqRule(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	latest := latestOf(prior)
	out := slices.Clone(prior)
	for _, u := range p.Ablation.Sequential.Units {
		for _, task := range u.Tasks {
			for _, v := range p.VariantNames() {
				r := seqRec(p, v, task, outcome(v, task))
				if _, done := latest[r.AttemptID]; done {
					continue
				}
				if _, skip := rule.Skips(latest)[r.AttemptID]; skip || limit > 0 && len(out)-len(prior) >= limit {
					continue
				}
				latest[r.AttemptID] = r
				out = append(out, r)
			}
		}
	}
	return out
}

// A variant that fails where the baseline passes is decided worse early and its remaining attempts are never
// started; one that matches the baseline is decided futile (no drop of min_effect) later; once both are
// decided the baseline's remaining attempts are left unrun too. The outcome's counts add up to the plan.
func TestSeqRuleStopsAndSkips(t *testing.T) {
	const n = 40
	p := seqPlan(n, "bad", "same")
	recs := simulate(t, p, func(v, _ string) bool { return v != "bad" })
	rule, _ := analysis.NewSeqRule(p, nil)
	res := rule.Result(recs, nil)
	bad, same := res.Variants[0], res.Variants[1]
	if bad.Stop != stats.SeqWorse || same.Stop != stats.SeqFutile {
		t.Fatalf("stops %q, %q; want worse, futile", bad.Stop, same.Stop)
	}
	if !(bad.At > 1 && bad.At < same.At && same.At < n) {
		t.Fatalf("decided at units %d (bad) and %d (same) of %d: want 1 < bad < same < %d", bad.At, same.At, n, n)
	}
	count := func(v string) int {
		return len(slices.DeleteFunc(slices.Clone(recs), func(r results.Attempt) bool { return r.Variant != v }))
	}
	// Every attempt up to its decision ran, none after it: a variant's unit is a look.
	if count("bad") != bad.At || bad.Saved != n-bad.At || count("same") != same.At || same.Saved != n-same.At {
		t.Errorf("bad ran %d (saved %d), same ran %d (saved %d); decided at %d and %d", count("bad"), bad.Saved,
			count("same"), same.Saved, bad.At, same.At)
	}
	if count("baseline") != same.At || res.Baseline.Saved != n-same.At {
		t.Errorf("baseline ran %d (saved %d): want until the last decision, unit %d", count("baseline"), res.Baseline.Saved, same.At)
	}
	if res.Planned != 3*n || res.Saved != res.Planned-len(recs) || res.Looked != same.At {
		t.Errorf("planned %d, saved %d, looked %d; want %d, %d, %d", res.Planned, res.Saved, res.Looked, 3*n,
			3*n-len(recs), same.At)
	}
	if bad.Look.Hi >= 0 || bad.Look.Mean != -1 || bad.Look.P > 0.05 {
		t.Errorf("bad's look %+v: want mean −1, interval below 0, p ≤ α", bad.Look)
	}
	if want := 1000.0 * float64(res.Saved); res.SavedTokens != want || !res.TokensKnown {
		t.Errorf("saved tokens %v, want %v (1,000 per attempt)", res.SavedTokens, want)
	}
	if len(rule.Skips(latestOf(recs))) != res.Saved {
		t.Errorf("Skips lists %d attempts, the result saved %d", len(rule.Skips(latestOf(recs))), res.Saved)
	}
}

// The decisions are a function of the records in plan order: the same records arriving in any order give the
// same decisions and skips, and a unit whose needed attempts are not all recorded holds the looks before it,
// whatever later units hold.
func TestSeqRuleDeterministicAndInPlanOrder(t *testing.T) {
	p := seqPlan(30, "bad", "same")
	recs := simulate(t, p, func(v, _ string) bool { return v != "bad" })
	rule, _ := analysis.NewSeqRule(p, nil)
	want := rule.Result(recs, nil)
	for seed := range uint64(5) {
		shuffled := slices.Clone(recs)
		rand.New(rand.NewPCG(seed, 1)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if got := rule.Result(shuffled, nil); !reflect.DeepEqual(got, want) {
			t.Fatalf("order %d: %+v, want %+v", seed, got, want)
		}
	}
	// Killed after 20 records, 3 of them lost in flight, then resumed: the same records and decisions.
	killed := resume(t, p, func(v, _ string) bool { return v != "bad" }, nil, 23)
	killed = slices.Delete(killed, 10, 13)
	resumed := resume(t, p, func(v, _ string) bool { return v != "bad" }, killed, 0)
	if got := rule.Result(resumed, nil); len(resumed) != len(recs) || !reflect.DeepEqual(got, want) {
		t.Errorf("killed and resumed: %d records, %+v; uninterrupted: %d, %+v", len(resumed), got, len(recs), want)
	}
	// Remove the baseline's record of unit 2: the looks stop after unit 1, nothing is decided, and only the
	// attempts of no arm are skipped (every arm is still needed).
	gap := slices.DeleteFunc(slices.Clone(recs), func(r results.Attempt) bool {
		return r.Variant == "baseline" && r.TaskID == p.Ablation.Sequential.Units[1].Tasks[0]
	})
	got := rule.Result(gap, nil)
	if got.Looked != 1 || got.Variants[0].Stop != "" || got.Variants[1].Stop != "" || got.Saved != 0 {
		t.Errorf("with unit 2 incomplete: looked %d, stops %q %q, saved %d; want 1, undecided, 0", got.Looked,
			got.Variants[0].Stop, got.Variants[1].Stop, got.Saved)
	}
}

// A variant's last planned unit whose pairs all ended in infrastructure errors still takes the final look and
// spends the rest of α: 8 units where the variant fails and the baseline passes, 11 ties, and a unit 20 with no
// judged pair decide the variant worse at unit 20 (19 units alone leave its repeated p at 0.2).
func TestSeqRuleSkippedLastUnitTakesFinalLook(t *testing.T) {
	p := seqPlan(20, "bad")
	var recs []results.Attempt
	for i, task := range p.Tasks {
		b, v := seqRec(p, "baseline", task, true), seqRec(p, "bad", task, i >= 8)
		if i == 19 {
			b.Status, b.ErrorClass = results.StatusError, results.ClassInfra
			v.Status, v.ErrorClass = results.StatusError, results.ClassInfra
		}
		recs = append(recs, b, v)
	}
	rule, _ := analysis.NewSeqRule(p, nil)
	bad := rule.Result(recs, nil).Variants[0]
	if bad.Stop != stats.SeqWorse || bad.At != 20 || bad.Look.P != 0.05 || bad.Look.N != 19 {
		t.Fatalf("with the last unit all errors: stop %q at unit %d, look %+v; want worse at 20, P 0.05 over 19 units",
			bad.Stop, bad.At, bad.Look)
	}
	if res := rule.Result(recs[:38], nil); res.Variants[0].Stop != "" || res.Variants[0].Look.P != 0.2 {
		t.Fatalf("19 units: stop %q, look %+v; want undecided, P 0.2", res.Variants[0].Stop, res.Variants[0].Look)
	}
}

// A shard's rule looks only at the shard's pairs, and a plan without a design, or whose units name a task it
// does not hold, has no rule.
func TestSeqRuleShardAndErrors(t *testing.T) {
	p := seqPlan(10, "bad")
	keep := func(pid string) bool { return pid == results.PairID("zoo", "t03", 1) }
	rule, err := analysis.NewSeqRule(p, keep)
	if err != nil {
		t.Fatal(err)
	}
	if res := rule.Result(nil, nil); res.Planned != 2 || res.Baseline.Units != 1 {
		t.Errorf("one pair kept: planned %d, baseline units %d; want 2, 1", res.Planned, res.Baseline.Units)
	}
	bare := p
	bare.Ablation = &results.Ablation{Alpha: 0.05}
	if _, err := analysis.NewSeqRule(bare, nil); err == nil {
		t.Error("a plan without a sequential design has a rule")
	}
	wrong := seqPlan(2, "bad")
	wrong.Ablation.Sequential.Units[1].Tasks = []string{"nope"}
	if _, err := analysis.NewSeqRule(wrong, nil); err == nil {
		t.Error("a unit naming a task outside the plan was accepted")
	}
}

func latestOf(recs []results.Attempt) map[string]results.Attempt {
	m := map[string]results.Attempt{}
	for _, r := range recs {
		m[r.AttemptID] = r
	}
	return m
}

// A target-scoped variant's design has its own units: decided at unit k of the plan's order, it is at its own
// j-th of its K planned units (SeqVariant.OwnAt, Units), j counting only the units it runs on.
func TestSeqRuleOwnUnits(t *testing.T) {
	p := seqPlan(40, "bad")
	for i, task := range p.Tasks {
		if i%2 == 0 {
			p.Variants[1].TargetTasks = append(p.Variants[1].TargetTasks, task)
		}
	}
	recs := simulate(t, p, func(v, _ string) bool { return v != "bad" })
	rule, _ := analysis.NewSeqRule(p, nil)
	bad := rule.Result(recs, nil).Variants[0]
	if bad.Stop != stats.SeqWorse || bad.Units != 20 || bad.OwnAt != (bad.At+1)/2 || bad.OwnAt != bad.Look.N {
		t.Errorf("bad: %s at unit %d, its %d of %d (look over %d); want worse, its (At+1)/2-th of 20, every one judged",
			bad.Stop, bad.At, bad.OwnAt, bad.Units, bad.Look.N)
	}
}
