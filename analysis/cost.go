package analysis

// Cost outcomes (STATS.md "Cost outcomes"): steps, tokens, USD, wall time,
// repeated calls and tool-result bytes of a variant against the baseline on the same matched pairs as its pass
// rate, compared per unit (the task, or the task's family when the suite
// declares one), with the exact sign-flip p over units, intervals by
// inverting it, Holm per outcome over the variants, typed verdicts and a gate.

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"webbench/results"
	"webbench/stats"
)

// RecPair is one usable matched (task, rep) pair: the baseline's record A and the variant's B, both judged.
type RecPair struct{ A, B *results.Attempt }

// Units of analysis (CostComparison.Unit).
const (
	// UnitTask: each task is a unit.
	UnitTask = "task"
	// UnitCluster: tasks are grouped by the records' cluster; a comparison names the suite's noun for it
	// instead when the run records one (results.Plan.ClusterUnit: "family", "site").
	UnitCluster = "cluster"
)

// UnitOf is the unit of analysis of a record: its cluster when it has one other than the task, else the task.
func UnitOf(r results.Attempt) string {
	if r.Cluster != "" && r.Cluster != r.TaskID {
		return r.Cluster
	}
	return r.TaskID
}

// UnitMeans is one unit's side of a paired comparison of an outcome: the means A (baseline) and B (variant) of
// the outcome over the unit's Pairs matched pairs, and Diff = B − A.
type UnitMeans struct {
	Unit  string
	Pairs int
	A, B  float64
	Diff  float64
}

// PerUnit groups pairs by unit (of the baseline's record) and returns, per unit in sorted order, the mean of
// value over the unit's pairs on each side. It is the layer every paired outcome goes through: pass (0/1)
// gives the per-task differences of the primary test, a cost the rows of CostComparison.
func PerUnit(pairs []RecPair, value func(results.Attempt) float64, unit func(results.Attempt) string) []UnitMeans {
	by := map[string]*UnitMeans{}
	for _, p := range pairs {
		k := unit(*p.A)
		u := by[k]
		if u == nil {
			u = &UnitMeans{Unit: k}
			by[k] = u
		}
		u.Pairs++
		u.A += value(*p.A)
		u.B += value(*p.B)
	}
	out := make([]UnitMeans, 0, len(by))
	for _, k := range slices.Sorted(maps.Keys(by)) {
		u := by[k]
		u.A /= float64(u.Pairs)
		u.B /= float64(u.Pairs)
		u.Diff = u.B - u.A
		out = append(out, *u)
	}
	return out
}

// CostView says which pairs a cost comparison counts.
type CostView string

// The views of a cost outcome.
const (
	// ViewAll: every matched judged pair, passed or failed — the primary view: the cost of running the variant,
	// on the same pairs as its pass rate (a failed attempt is spent too).
	ViewAll CostView = "all"
	// ViewPassed: the pairs both arms passed — secondary: what a success costs, conditional on an outcome the
	// variant may change.
	ViewPassed CostView = "passed"
)

// CostComparison is one cost outcome of a variant against the baseline on the variant's scope, in one view.
type CostComparison struct {
	Outcome results.CostOutcome
	View    CostView
	// Unit is UnitTask, or the clusters' noun (UnitCluster when the run names none); Units the per-unit means (PerUnit), Pairs the pairs they cover.
	Unit  string
	Units []UnitMeans
	Pairs int
	// UnitReason says why Unit is UnitTask although the run names a cluster unit: stats.ReasonOneCluster when
	// every task of the pairs is in one cluster (nothing to compare across clusters); empty otherwise. The reports
	// word it.
	UnitReason stats.PairedReason
	// Means is the comparison over units (stats.PairedMeans): means, difference and ratio with their 95 %
	// intervals, the exact sign-flip p.
	Means stats.MeansResult
	// PHolm is Holm's adjustment of Means.P over the variants (A/A arms apart) for this outcome in the primary
	// view; Means.P for an A/A arm; NaN in the passed view (not a decision).
	PHolm float64
}

// unitsOf returns the unit of a cost comparison of pairs — its noun (UnitTask, or clusterUnit, UnitCluster when
// empty) and a record's unit — by the pass rate's rule (stats.UseClusters), so that both name the same units for
// the same pairs, and why it is the task when every task is in one cluster (stats.ReasonOneCluster).
func unitsOf(pairs []RecPair, clusterUnit string) (string, func(results.Attempt) string, stats.PairedReason) {
	tasks, clusters := map[string]bool{}, map[string]bool{}
	for _, p := range pairs {
		tasks[p.A.TaskID], clusters[UnitOf(*p.A)] = true, true
	}
	if stats.UseClusters(len(clusters), len(tasks)) {
		return cmp.Or(clusterUnit, UnitCluster), UnitOf, ""
	}
	var why stats.PairedReason
	if len(clusters) == 1 && len(tasks) > 1 {
		why = stats.ReasonOneCluster
	}
	return UnitTask, func(r results.Attempt) string { return r.TaskID }, why
}

// costOutcomes returns the cost comparisons of the matched pairs in one view: one per outcome that some
// record of the pairs has (USD only when priced; an outcome nonzero on no pair, e.g. no repeated call in
// either arm, has nothing to compare), in results.CostOutcomes order, each over the pairs whose two records
// hold it (recordedPairs); none without pairs.
func costOutcomes(pairs []RecPair, view CostView, clusterUnit string) []CostComparison {
	if view == ViewPassed {
		pairs = slices.DeleteFunc(slices.Clone(pairs), func(p RecPair) bool {
			return p.A.Status != results.StatusPass || p.B.Status != results.StatusPass
		})
	}
	if len(pairs) == 0 {
		return nil
	}
	unit, unitOf, why := unitsOf(pairs, clusterUnit)
	var out []CostComparison
	for _, o := range results.CostOutcomes {
		ps := recordedPairs(pairs, o)
		if !slices.ContainsFunc(ps, func(p RecPair) bool { return o.Value(*p.A) != 0 || o.Value(*p.B) != 0 }) {
			continue // unpriced, not recorded, or 0 throughout
		}
		us := PerUnit(ps, o.Value, unitOf)
		a, b := make([]float64, len(us)), make([]float64, len(us))
		for i, u := range us {
			a[i], b[i] = u.A, u.B
		}
		out = append(out, CostComparison{Outcome: o, View: view, Unit: unit, Units: us, Pairs: len(ps),
			UnitReason: why, Means: stats.PairedMeans(a, b), PHolm: math.NaN()})
	}
	return out
}

// recordedPairs are the pairs whose two records both hold outcome o (results.CostOutcome.Recorded): a record
// of a run made before o was recorded is left out of o, not counted as 0.
func recordedPairs(pairs []RecPair, o results.CostOutcome) []RecPair {
	return slices.DeleteFunc(slices.Clone(pairs), func(p RecPair) bool { return !o.Recorded(*p.A) || !o.Recorded(*p.B) })
}

// costViews returns the cost comparisons of the pairs in the primary view and in the passed view; when every pair
// passed in both arms the passed view is the primary one's figures (the same pairs), not computed twice.
// clusterUnit is the noun of a clustered comparison's unit (Comparison.ClusterUnit).
func costViews(pairs []RecPair, clusterUnit string) (all, passed []CostComparison) {
	all = costOutcomes(pairs, ViewAll, clusterUnit)
	if !slices.ContainsFunc(pairs, func(p RecPair) bool {
		return p.A.Status != results.StatusPass || p.B.Status != results.StatusPass
	}) {
		for _, c := range all {
			c.View, c.PHolm = ViewPassed, math.NaN()
			passed = append(passed, c)
		}
		return all, passed
	}
	return all, costOutcomes(pairs, ViewPassed, clusterUnit)
}

// holmCosts sets CostComparison.PHolm of the primary view: per outcome, Holm over the variants that are not
// A/A arms (an A/A arm's is its own p). Each outcome is its own family, as the pass rate is: a new outcome
// leaves the others' p_holm, and the pass rate's, as they were.
func holmCosts(vs []VariantResult) {
	for _, o := range results.CostOutcomes {
		var ps []float64
		var at []*CostComparison
		for vi := range vs {
			for ci := range vs[vi].Costs {
				c := &vs[vi].Costs[ci]
				if c.Outcome != o {
					continue
				}
				if vs[vi].AA {
					c.PHolm = c.Means.P
					continue
				}
				ps = append(ps, c.Means.P)
				at = append(at, c)
			}
		}
		for i, p := range stats.Holm(ps) {
			at[i].PHolm = p
		}
	}
}

// Cost returns the variant's primary-view comparison of outcome o, nil when it has none.
func (v *VariantResult) Cost(o results.CostOutcome) *CostComparison {
	for i := range v.Costs {
		if v.Costs[i].Outcome == o {
			return &v.Costs[i]
		}
	}
	return nil
}
