package analysis

import (
	"fmt"

	"webbench/results"
	"webbench/stats"
)

// clusters maps each task to its cluster, from the baseline first so both
// arms agree; tasks that are their own cluster are left out.
func clusters(aRecs, bRecs []results.Attempt) map[string]string {
	cluster := map[string]string{}
	for _, rs := range [][]results.Attempt{aRecs, bRecs} {
		for _, r := range rs {
			if _, ok := cluster[r.TaskID]; !ok && r.Cluster != "" && r.Cluster != r.TaskID {
				cluster[r.TaskID] = r.Cluster
			}
		}
	}
	return cluster
}

// indexed is one arm's records in scope by pair key, and the keys in order
// of first appearance.
type indexed struct {
	recs map[string]*results.Attempt
	keys []string
}

func newIndexed(rs []results.Attempt, keep func(results.Attempt) bool) indexed {
	m, keys := index(rs, keep)
	return indexed{m, keys}
}

// matchPairs returns the usable (task, rep) pairs of a and b, counting in c
// the unmatched attempts, the common pairs and their errors by arm and class,
// and the pairs dropped for errors (by class) or as duplicates of a (task,
// rep). errored are the common pairs with an error on either side, for
// ErrorBounds.
func matchPairs(c *Comparison, a, b indexed, cluster map[string]string) (pairs []stats.Pair, errored []erroredPair) {
	usedTR := map[string]bool{}
	c.ErrorsA, c.ErrorsB = map[string]int{}, map[string]int{}
	for _, k := range b.keys {
		rb := b.recs[k]
		ra, ok := a.recs[k]
		if !ok {
			if rb.Done() {
				c.UnmatchedB++
			}
			continue
		}
		c.CommonPairs++
		if !ra.Done() {
			c.ErrorsA[errClass(*ra)]++
		}
		if !rb.Done() {
			c.ErrorsB[errClass(*rb)]++
		}
		tr := fmt.Sprintf("%s\x00%d", ra.TaskID, ra.Rep)
		if !ra.Done() || !rb.Done() {
			c.DroppedPairs++
			if !ra.Done() {
				c.DroppedByClass[errClass(*ra)]++
			}
			if !rb.Done() && (ra.Done() || errClass(*rb) != errClass(*ra)) {
				c.DroppedByClass[errClass(*rb)]++
			}
			if !usedTR[tr] {
				usedTR[tr] = true
				errored = append(errored, erroredPair{Pair: stats.Pair{Task: ra.TaskID, Cluster: cluster[ra.TaskID], Rep: ra.Rep,
					A: ra.Status == results.StatusPass, B: rb.Status == results.StatusPass}, errA: !ra.Done(), errB: !rb.Done()})
			}
			continue
		}
		if usedTR[tr] {
			// Two pair ids with the same task and rep (e.g. the same task
			// id in two suites): keep the first so PairedDiff stays valid.
			c.DroppedPairs++
			c.DroppedByClass["duplicate"]++
			continue
		}
		usedTR[tr] = true
		c.recPairs = append(c.recPairs, RecPair{A: ra, B: rb})
		pairs = append(pairs, stats.Pair{Task: ra.TaskID, Cluster: cluster[ra.TaskID], Rep: ra.Rep,
			A: ra.Status == results.StatusPass, B: rb.Status == results.StatusPass})
	}
	for _, k := range a.keys {
		if _, ok := b.recs[k]; !ok && a.recs[k].Done() {
			c.UnmatchedA++
		}
	}
	return pairs, errored
}
