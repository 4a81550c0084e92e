package analysis_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"webbench/analysis"
	"webbench/results"
)

// The rule replays incrementally (reusing its steps up to the first unit whose records changed): after every
// record, arriving in a random order and now and then replacing an earlier record (a re-judged attempt), its
// skips and outcome equal those of a fresh rule over the same records.
func TestSeqRuleIncrementalMatchesFromScratch(t *testing.T) {
	p := seqPlan(24, "broken", "same", "half")
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 99))
		var recs []results.Attempt
		for _, task := range p.Tasks {
			for _, v := range p.VariantNames() {
				pass := rng.Float64() < 0.7
				switch v {
				case "broken":
					pass = rng.Float64() < 0.1
				case "half":
					pass = rng.Float64() < 0.4
				}
				recs = append(recs, seqRec(p, v, task, pass))
			}
		}
		rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
		inc, err := analysis.NewSeqRule(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		latest := map[string]results.Attempt{}
		var seen []results.Attempt
		for i, r := range recs {
			if i > 0 && rng.IntN(8) == 0 {
				// Re-judge an earlier record: its status flips.
				old := seen[rng.IntN(len(seen))]
				rj := seqRec(p, old.Variant, old.TaskID, latest[old.AttemptID].Status != results.StatusPass)
				latest[rj.AttemptID] = rj
				seen = append(seen, rj)
			}
			latest[r.AttemptID] = r
			seen = append(seen, r)
			fresh, _ := analysis.NewSeqRule(p, nil)
			if got, want := inc.Skips(latest), fresh.Skips(latest); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, record %d: incremental skips %v, from scratch %v", seed, i, got, want)
			}
			var all []results.Attempt
			for _, a := range latest {
				all = append(all, a)
			}
			if got, want := inc.Result(all, nil), fresh.Result(all, nil); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, record %d: incremental result %+v, from scratch %+v", seed, i, got, want)
			}
		}
	}
}
