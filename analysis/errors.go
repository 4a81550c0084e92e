package analysis

import (
	"maps"
	"math"
	"slices"

	"webbench/stats"
)

// erroredPair is a common pair with an error on side A (errA), side B
// (errB) or both; A and B hold the judged side's outcome.
type erroredPair struct {
	stats.Pair
	errA, errB bool
}

// DifferentialErrorPoints is the difference in error rate (a proportion of
// the common pairs) above which the arms' errors of one class count as
// differential. 5 points is the scale of the effects the gate guards against
// (a --fail-if-worse margin of a few points): errors on one arm at that rate
// can hide such an effect entirely (10 % infra errors on the
// variant turned Δ −20 pts, p 0.003 into Δ −11 pts, p 0.125).
const DifferentialErrorPoints = 0.05

// DifferentialErrorP is the two-sided Fisher exact p below which the arms'
// errors of one class count as differential even within
// DifferentialErrorPoints (large runs).
const DifferentialErrorP = 0.05

// differentialErrors returns the error classes whose counts on the n common
// pairs differ materially between the arms: a rate difference above
// DifferentialErrorPoints or a two-sided Fisher exact p (FisherExact on
// errors of n per arm) below DifferentialErrorP, sorted, and each returned
// class's Fisher p.
func differentialErrors(errA, errB map[string]int, n int) ([]string, map[string]float64) {
	if n == 0 {
		return nil, nil
	}
	classes := map[string]bool{}
	for k := range errA {
		classes[k] = true
	}
	for k := range errB {
		classes[k] = true
	}
	var out []string
	var ps map[string]float64
	for _, k := range slices.Sorted(maps.Keys(classes)) {
		ka, kb := errA[k], errB[k]
		if ka == kb {
			continue
		}
		diff := math.Abs(float64(kb-ka)) / float64(n)
		if p := stats.FisherExact(ka, n, kb, n); diff > DifferentialErrorPoints+1e-12 || p < DifferentialErrorP {
			out = append(out, k)
			if ps == nil {
				ps = map[string]float64{}
			}
			ps[k] = p
		}
	}
	return out, ps
}

// ErrorBounds bounds what the errors could hide: the comparison redone with
// the pairs where the variant errored and the baseline was judged counted as
// variant failures (AsFail) and as variant passes (AsPass); pairs where the
// baseline errored stay dropped in both (a baseline error cannot hide a harm
// of the variant). AsFailBoth counts every errored attempt, on either side,
// as a failure: the gate's check (ErrorsCouldHide), which keeps the two arms
// exchangeable under A/A (errors at like rates then cancel in distribution).
type ErrorBounds struct {
	// Pairs is the number of pairs where only the variant errored.
	Pairs int
	// AsFail and AsPass are the imputed comparisons; AsFailBoth the one with
	// every error a failure.
	AsFail, AsPass, AsFailBoth BoundResult
}

// BoundResult is Δ, its interval and the primary p of an imputed comparison
// (PairedDiff on the imputed pairs).
type BoundResult struct {
	Delta float64
	CI    [2]float64
	P     float64
}

// errorBounds redoes the paired comparison with errored pairs imputed: the
// pairs where only the variant errored with its outcome set to fail
// (AsFail) and to pass (AsPass); and every errored pair with each errored
// side counted as a failure (AsFailBoth, the gate's).
func errorBounds(pairs []stats.Pair, errored []erroredPair) *ErrorBounds {
	n := 0
	for _, e := range errored {
		if e.errB && !e.errA {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	eb := &ErrorBounds{Pairs: n}
	run := func(impute func(e erroredPair) (stats.Pair, bool)) BoundResult {
		all := slices.Clone(pairs)
		for _, e := range errored {
			if p, ok := impute(e); ok {
				all = append(all, p)
			}
		}
		pr, err := stats.PairedDiff(all)
		if err != nil {
			panic(err) // cannot happen: (task, rep) unique across pairs and errored
		}
		return BoundResult{Delta: pr.Delta, CI: pr.CI, P: pr.P}
	}
	for _, pass := range []bool{false, true} {
		br := run(func(e erroredPair) (stats.Pair, bool) {
			e.B = pass
			return e.Pair, e.errB && !e.errA
		})
		if pass {
			eb.AsPass = br
		} else {
			eb.AsFail = br
		}
	}
	eb.AsFailBoth = run(func(e erroredPair) (stats.Pair, bool) {
		e.A, e.B = e.A && !e.errA, e.B && !e.errB
		return e.Pair, true
	})
	return eb
}
