package analysis_test

import (
	"math/rand/v2"
	"testing"

	"webbench/analysis"
	"webbench/results"
)

// BenchmarkSeqRuleAfterEachRecord is the runner's cost per record of a sequential run of 3,500 attempts (875
// single-task units, a baseline and three variants that change nothing, so none is decided): one more record,
// then the rule's skips over all records so far, from record 3,400 on.
func BenchmarkSeqRuleAfterEachRecord(b *testing.B) {
	p := seqPlan(875, "v1", "v2", "v3")
	rng := rand.New(rand.NewPCG(1, 2))
	var recs []results.Attempt
	for _, task := range p.Tasks {
		for _, v := range p.VariantNames() {
			recs = append(recs, seqRec(p, v, task, rng.Float64() < 0.7))
		}
	}
	rule, err := analysis.NewSeqRule(p, nil)
	if err != nil {
		b.Fatal(err)
	}
	const from = 3400
	latest := map[string]results.Attempt{}
	for _, r := range recs[:from] {
		latest[r.AttemptID] = r
	}
	rule.Skips(latest)
	i := from
	for b.Loop() {
		latest[recs[i].AttemptID] = recs[i]
		rule.Skips(latest)
		if i++; i == len(recs) {
			for _, r := range recs[from:] {
				delete(latest, r.AttemptID)
			}
			i = from
		}
	}
}
