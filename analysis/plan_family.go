package analysis

// The family-unit design of `bench power --from RUN` when the run's tasks share clusters (the Zoo's families):
// the primary test then flips the families' sums (PairedDiff), so the plan's units are the families, with the
// run's family sizes and the intracluster correlation of their attempts.

import (
	"maps"
	"math"
	"slices"

	"webbench/results"
	"webbench/stats"
)

// ArmUnits is one arm's attempts grouped by cluster (ArmClusters): per cluster, in sorted order, its tasks,
// its judged attempts, and its pass rate shrunk toward the arm's mean as ArmRates shrinks a task's.
type ArmUnits struct {
	Units []string
	Rates []float64
	// Sizes are the clusters' numbers of tasks; Reps their judged attempts.
	Sizes, Reps []int
	// Tasks and Attempts are the arm's totals.
	Tasks, Attempts int
	// ICC is the intracluster correlation of the arm's outcomes within one cluster and rep (ICCAnova over those
	// groups), in [0, 1].
	ICC float64
}

// ArmClusters groups the judged attempts of one arm of a run by their cluster, the unit of its paired test when
// the tasks share clusters (stats.UseClusters); ok is false when they do not (every task its own cluster, or all
// in one).
func ArmClusters(recs []results.Attempt, arm string) (u ArmUnits, ok bool) {
	type acc struct{ k, n int }
	by, blocks := map[string]*acc{}, map[[2]any]*acc{}
	tasks := map[string]map[string]bool{}
	for _, r := range recs {
		if r.Variant != arm || !r.Done() {
			continue
		}
		c := r.Cluster
		if c == "" {
			c = r.TaskID
		}
		if by[c] == nil {
			by[c], tasks[c] = &acc{}, map[string]bool{}
		}
		bk := [2]any{c, r.Rep}
		if blocks[bk] == nil {
			blocks[bk] = &acc{}
		}
		pass := 0
		if r.Status == results.StatusPass {
			pass = 1
		}
		by[c].k, by[c].n, blocks[bk].k, blocks[bk].n = by[c].k+pass, by[c].n+1, blocks[bk].k+pass, blocks[bk].n+1
		tasks[c][r.TaskID] = true
		u.Attempts++
	}
	u.Units = slices.Sorted(maps.Keys(by))
	ks := make([]int, len(u.Units))
	for i, c := range u.Units {
		ks[i] = by[c].k
		u.Reps = append(u.Reps, by[c].n)
		u.Sizes = append(u.Sizes, len(tasks[c]))
		u.Tasks += len(tasks[c])
	}
	u.Rates = shrunkRates(ks, u.Reps)
	var ys, ns []int
	for _, b := range blocks {
		ys, ns = append(ys, b.k), append(ns, b.n)
	}
	u.ICC = ICCAnova(ys, ns)
	return u, stats.UseClusters(len(u.Units), u.Tasks)
}

// ICCAnova is the analysis-of-variance estimate of the intracluster correlation of binary outcomes over groups
// of n[i] outcomes with y[i] successes (Donner & Klar 2000, "Design and Analysis of Cluster Randomization
// Trials in Health Research", §3.3.1; Fleiss 1981): with N = Σn, k groups, MSB = (Σy²/n − Y²/N)/(k − 1),
// MSW = (Y − Σy²/n)/(N − k) and n0 = (N − Σn²/N)/(k − 1), ρ = (MSB − MSW)/(MSB + (n0 − 1)·MSW), clamped to
// [0, 1]; 0 when it is undefined (fewer than 2 groups, no group of 2, or no variance). With one rep per
// task it also takes in the spread of the clusters' own rates, so as the plan's within-rep shared draw it is
// an upper bound: the plan is conservative.
func ICCAnova(y, n []int) float64 {
	k := len(y)
	var sy, sn, syn, snn float64
	for i := range y {
		sy += float64(y[i])
		sn += float64(n[i])
		syn += float64(y[i]*y[i]) / float64(n[i])
		snn += float64(n[i] * n[i])
	}
	if k < 2 || sn <= float64(k) {
		return 0
	}
	msb := (syn - sy*sy/sn) / float64(k-1)
	msw := (sy - syn) / (sn - float64(k))
	n0 := (sn - snn/sn) / float64(k-1)
	den := msb + (n0-1)*msw
	if den <= 0 {
		return 0
	}
	return math.Max(0, math.Min(1, (msb-msw)/den))
}

// FamilyDesign is the planner's design over u's clusters (Design.Sizes: each unit its cluster's tasks, their
// attempts in blocks of one rep), the within-rep shared draw the ICC (ModelMixed's Sticky) and the cross-arm
// share of d's pairing (same-seed: d.Share; else none).
func FamilyDesign(d Design, u ArmUnits) Design {
	share := 0.0
	if d.Model == ModelSameSeed {
		share = d.Share
	}
	return Design{Rates: u.Rates, Reps: u.Reps, Sizes: u.Sizes, Model: ModelMixed, Share: share, Sticky: u.ICC}
}

// ArmAttempts returns the judged attempts of arm in recs and the most judged attempts of any other arm (0 when
// there is none).
func ArmAttempts(recs []results.Attempt, arm string) (own, widest int) {
	n := map[string]int{}
	for _, r := range recs {
		if r.Done() {
			n[r.Variant]++
		}
	}
	for v, k := range n {
		if v != arm {
			widest = max(widest, k)
		}
	}
	return n[arm], widest
}
