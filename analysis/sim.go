package analysis

// The synthetic-record generator of the calibration suite (CALIBRATION.md)
// and of the primary test's power (power.go): per-task pass
// probabilities, three outcome models, and attempt records built as the
// runner builds them (pair ids, attempt ids and seeds from results.PairID,
// results.AttemptID and results.Seed).

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"webbench/results"
	"webbench/stats"
)

// Outcome models of the simulator (Design.Model).
const (
	// ModelIndependent: every attempt is an independent Bernoulli draw.
	ModelIndependent = "independent"
	// ModelSameSeed: the arms of a (task, rep) share one uniform draw with
	// probability Design.Share (as scripted same-seed runs do); otherwise
	// each arm draws its own. A shared draw U gives pass iff U < rate, so two
	// arms agree unless U falls between their rates.
	ModelSameSeed = "same_seed"
	// ModelSticky: one arm's reps of a task share one uniform draw with
	// probability Design.Share (a deterministic model at temperature 0);
	// otherwise each rep draws its own. Arms are independent.
	ModelSticky = "sticky"
	// ModelMixed nests the three (the post-hoc power's model,
	// DesignFromPairs): each arm's reps of a task share one draw with
	// probability Design.Sticky, and the variant's attempt of a (task, rep)
	// uses the baseline's draw with probability Design.Share, else its own.
	// Only the power simulation (simPairs, two arms) supports it.
	ModelMixed = "mixed"
)

// Design is a planned or observed paired design: the baseline's per-task
// pass probabilities, the reps per task and the outcome model.
type Design struct {
	// Rates are the baseline pass probabilities in [0, 1], one per task.
	Rates []float64
	// Reps are the reps per task (len(Rates) entries, each ≥ 1); a nil
	// Reps with Rep > 0 means Rep reps on every task.
	Reps []int
	// Rep is the common number of reps when Reps is nil.
	Rep int
	// Model is ModelIndependent, ModelSameSeed or ModelSticky ("" is
	// independent); Share is its shared-draw probability in [0, 1].
	Model string
	Share float64
	// Sticky is ModelMixed's within-arm shared-draw probability.
	Sticky float64
	// Block, when > 0, makes ModelMixed's within-arm shared draw one per
	// block of Block consecutive reps of a task (a fresh share decision and
	// draw per block) instead of one per task: a family analysed as one unit
	// whose reps are its instances, Block instances per rep, shares draws
	// among the instances of one rep, not across reps.
	Block int
	// Sizes, when set, makes each unit a cluster of tasks analysed as one (a task family): unit t stands for
	// Sizes[t mod len(Sizes)] tasks, its reps are its tasks' attempts rep by rep (RepsOf: size × Rep unless
	// Reps is set), ModelMixed's within-arm shared draw is one per block of size reps (one rep of every task of
	// the family, instead of Block), and its difference in the test is the sum of its tasks' mean differences
	// (its mean difference × size): the cluster sum PairedDiff's sign flip takes, so that a large family
	// weighs more than a small one as it does in the analysis.
	Sizes []int
	// Mix, when set, draws the task rates afresh for every simulated run
	// (e.g. IssueMix) instead of using Rates; Tasks is then the number of
	// tasks.
	Mix   func(rng *rand.Rand, g int) []float64
	Tasks int
}

// G returns the number of tasks.
func (d Design) G() int {
	if d.Mix != nil {
		return d.Tasks
	}
	return len(d.Rates)
}

// RepsOf returns the reps of task t (of unit t: its tasks' attempts, when Sizes is set). Reps and Sizes are
// indexed cyclically (t mod their length), so a Mix design's units repeat their pattern.
func (d Design) RepsOf(t int) int {
	if d.Reps != nil {
		return d.Reps[t%len(d.Reps)]
	}
	return max(1, d.Rep) * d.sizeOf(t)
}

// sizeOf returns the number of tasks unit t stands for (Sizes; 1 without).
func (d Design) sizeOf(t int) int {
	if len(d.Sizes) == 0 {
		return 1
	}
	return d.Sizes[t%len(d.Sizes)]
}

// blockOf returns the reps of unit t that share ModelMixed's within-arm draw: its size when Sizes is set,
// else Block (0: all its reps).
func (d Design) blockOf(t int) int {
	if len(d.Sizes) > 0 {
		return d.sizeOf(t)
	}
	return d.Block
}

// IssueMix returns g task pass probabilities drawn from the calibration suite's realistic
// mix: with probability 0.4 a task always passes (1), with 0.2 it always
// fails (0), otherwise its rate is uniform in [0.2, 0.9]. Its mean is 0.62.
func IssueMix(rng *rand.Rand, g int) []float64 {
	out := make([]float64, g)
	for i := range out {
		switch u := rng.Float64(); {
		case u < 0.4:
			out[i] = 1
		case u < 0.6:
			out[i] = 0
		default:
			out[i] = 0.2 + 0.7*rng.Float64()
		}
	}
	return out
}

// ShiftRates returns the per-task rates of an arm whose mean pass rate
// differs from that of rates by delta (a proportion, negative for a drop),
// by the proportional model the power analysis assumes: a drop multiplies
// every task's pass probability by 1 + delta/m (m the mean of rates), an
// increase multiplies every failure probability by 1 − delta/(1 − m). The
// mean then moves by exactly delta, tasks that always fail (for a drop) or
// always pass (for a rise) stay so, and no rate leaves [0, 1]. It panics if
// the requested change is impossible (|delta| above m or 1 − m).
func ShiftRates(rates []float64, delta float64) []float64 {
	m := 0.0
	for _, p := range rates {
		m += p
	}
	m /= float64(max(1, len(rates)))
	out := make([]float64, len(rates))
	switch {
	case delta < 0:
		if -delta > m+1e-12 {
			panic(fmt.Sprintf("analysis.ShiftRates: drop %v above the mean rate %v", -delta, m))
		}
		f := 1 + delta/m
		for i, p := range rates {
			out[i] = max(0, p*f)
		}
	case delta > 0:
		if delta > 1-m+1e-12 {
			panic(fmt.Sprintf("analysis.ShiftRates: rise %v above the mean failure rate %v", delta, 1-m))
		}
		f := 1 - delta/(1-m)
		for i, p := range rates {
			out[i] = min(1, 1-(1-p)*f)
		}
	default:
		copy(out, rates)
	}
	return out
}

// SimOutcomes draws one run of the design for the given arms (each a slice
// of per-task pass probabilities, len d.G()): out[arm][task][rep] is true
// when that attempt passed. The draws follow d.Model (see the Model
// constants).
func SimOutcomes(rng *rand.Rand, d Design, arms [][]float64) [][][]bool {
	out := make([][][]bool, len(arms))
	for a := range arms {
		out[a] = make([][]bool, d.G())
	}
	for t := range d.G() {
		r := d.RepsOf(t)
		for a := range arms {
			out[a][t] = make([]bool, r)
		}
		switch d.Model {
		case ModelSameSeed:
			for k := range r {
				shared := rng.Float64() < d.Share
				u := rng.Float64()
				for a := range arms {
					if !shared {
						u = rng.Float64()
					}
					out[a][t][k] = u < arms[a][t]
				}
			}
		case ModelSticky:
			for a := range arms {
				shared := rng.Float64() < d.Share
				u := rng.Float64()
				for k := range r {
					if !shared {
						u = rng.Float64()
					}
					out[a][t][k] = u < arms[a][t]
				}
			}
		default:
			for a := range arms {
				for k := range r {
					out[a][t][k] = rng.Float64() < arms[a][t]
				}
			}
		}
	}
	return out
}

// SimTaskID is the task id of task t in simulated records: "t000", "t001", …
func SimTaskID(t int) string { return fmt.Sprintf("t%03d", t) }

// SimSuite is the suite name of simulated records.
const SimSuite = "sim"

// SimRecords returns the final attempt records of one simulated run, built
// as runner.Plan.Expand and the runner build them: per (task, rep) a pair id
// results.PairID(SimSuite, task, rep), per arm the attempt id
// results.AttemptID(arm, pair) and the same seed results.Seed(pair, baseSeed);
// status pass or fail (error class agent), model "sim:<model>". names[a] is
// the arm of outcomes[a] (as from SimOutcomes); reps are numbered from 1.
func SimRecords(d Design, names []string, outcomes [][][]bool, baseSeed int64) []results.Attempt {
	var recs []results.Attempt
	for t := range d.G() {
		task := SimTaskID(t)
		for k := range d.RepsOf(t) {
			rep := k + 1
			pid := results.PairID(SimSuite, task, rep)
			seed := results.Seed(pid, baseSeed)
			for a, name := range names {
				r := results.Attempt{SchemaVersion: results.SchemaVersion, AttemptID: results.AttemptID(name, pid),
					PairID: pid, Variant: name, TaskID: task, Suite: SimSuite, Rep: rep, Seed: &seed,
					Model: "sim:" + d.Model, Status: results.StatusPass, Steps: 1}
				if !outcomes[a][t][k] {
					r.Status, r.ErrorClass, r.FailureMode = results.StatusFail, results.ClassAgent, "wrong_answer"
				}
				recs = append(recs, r)
			}
		}
	}
	return recs
}

// simPairs draws one run of baseline rates a against variant rates b under
// d and returns its matched pairs, reusing buf;
// names[t] is task t's id.
func simPairs(rng *rand.Rand, d Design, names []string, a, b []float64, buf []stats.Pair) []stats.Pair {
	buf = buf[:0]
	for t := range d.G() {
		task := names[t]
		simTask(rng, d, t, a[t], b[t], func(k int, pa, pb bool) {
			buf = append(buf, stats.Pair{Task: task, Rep: k + 1, A: pa, B: pb})
		})
	}
	return buf
}

// simDiffs draws the same run as simPairs (the same generator stream) and
// returns only the per-task differences d_t = (passes of b − passes of a)/n_t
// in task order, reusing buf: what PairedDiff's primary p is computed from.
func simDiffs(rng *rand.Rand, d Design, a, b []float64, buf []float64) []float64 {
	buf = buf[:0]
	for t := range d.G() {
		k := 0
		simTask(rng, d, t, a[t], b[t], func(_ int, pa, pb bool) {
			switch {
			case pb && !pa:
				k++
			case pa && !pb:
				k--
			}
		})
		buf = append(buf, float64(k*d.sizeOf(t))/float64(d.RepsOf(t)))
	}
	return buf
}

// simTask draws task t's reps of one run (baseline rate pa, variant rate
// pb) under d.Model and passes each rep's outcomes to emit.
func simTask(rng *rand.Rand, d Design, t int, pa, pb float64, emit func(k int, a, b bool)) {
	r := d.RepsOf(t)
	var ua, ub float64
	sharedA, sharedB := false, false
	switch d.Model {
	case ModelSticky:
		sharedA, sharedB = rng.Float64() < d.Share, rng.Float64() < d.Share
		ua, ub = rng.Float64(), rng.Float64()
	case ModelMixed:
		sharedA, sharedB = rng.Float64() < d.Sticky, rng.Float64() < d.Sticky
		ua, ub = rng.Float64(), rng.Float64()
	}
	ub0 := ub
	block := d.blockOf(t)
	for k := range r {
		if d.Model == ModelMixed && block > 0 && k > 0 && k%block == 0 {
			sharedA, sharedB = rng.Float64() < d.Sticky, rng.Float64() < d.Sticky
			ua, ub0 = rng.Float64(), rng.Float64()
		}
		switch d.Model {
		case ModelSameSeed:
			ua = rng.Float64()
			ub = ua
			if rng.Float64() >= d.Share {
				ub = rng.Float64()
			}
		case ModelSticky:
			if !sharedA {
				ua = rng.Float64()
			}
			if !sharedB {
				ub = rng.Float64()
			}
		case ModelMixed:
			if !sharedA {
				ua = rng.Float64()
			}
			ub = ub0
			if !sharedB {
				ub = rng.Float64()
			}
			if rng.Float64() < d.Share {
				ub = ua
			}
		default:
			ua, ub = rng.Float64(), rng.Float64()
		}
		emit(k, ua < pa, ub < pb)
	}
}

// SeedsMix names IssueMix on the command line (bench power --mix seeds): the
// mix the calibration (CALIBRATION.md) and the seed write-ups report.
const SeedsMix = "seeds"

// ParseMix parses a baseline pass-rate mix for planning (bench power
// --mix): SeedsMix is IssueMix; "W:R,W:LO-HI,…" is a mixture in which a task
// has pass rate R (or a rate uniform in [LO, HI]) with weight W (weights are
// normalised), e.g. "0.4:1,0.2:0,0.4:0.2-0.9" (IssueMix's shape); a plain
// list "0.9,0.5,1" gives fixed per-task rates (cycled over the tasks).
// Exactly one of mix and rates is non-nil.
func ParseMix(s string) (mix func(rng *rand.Rand, g int) []float64, rates []float64, err error) {
	s = strings.TrimSpace(s)
	if s == SeedsMix {
		return IssueMix, nil, nil
	}
	type comp struct{ w, lo, hi float64 }
	var comps []comp
	total := 0.0
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		w, r, isMix := strings.Cut(part, ":")
		if !isMix {
			x, err := strconv.ParseFloat(part, 64)
			if err != nil || x < 0 || x > 1 {
				return nil, nil, fmt.Errorf("mix %q: %q is not a pass rate in [0, 1]", s, part)
			}
			rates = append(rates, x)
			continue
		}
		wf, err1 := strconv.ParseFloat(w, 64)
		lo, hi, isRange := strings.Cut(r, "-")
		if !isRange {
			hi = lo
		}
		lf, err2 := strconv.ParseFloat(lo, 64)
		hf, err3 := strconv.ParseFloat(hi, 64)
		if err1 != nil || err2 != nil || err3 != nil || wf <= 0 || lf < 0 || hf > 1 || lf > hf {
			return nil, nil, fmt.Errorf("mix %q: %q is not WEIGHT:RATE or WEIGHT:LO-HI", s, part)
		}
		comps = append(comps, comp{wf, lf, hf})
		total += wf
	}
	if len(comps) > 0 && len(rates) > 0 {
		return nil, nil, fmt.Errorf("mix %q: give either weighted components or a list of rates", s)
	}
	if len(rates) > 0 {
		return nil, rates, nil
	}
	if len(comps) == 0 {
		return nil, nil, fmt.Errorf("mix %q is empty", s)
	}
	return func(rng *rand.Rand, g int) []float64 {
		out := make([]float64, g)
		for i := range out {
			u := rng.Float64() * total
			c := comps[len(comps)-1]
			for _, x := range comps {
				if u < x.w {
					c = x
					break
				}
				u -= x.w
			}
			out[i] = c.lo
			if c.hi > c.lo {
				out[i] = c.lo + (c.hi-c.lo)*rng.Float64()
			}
		}
		return out
	}, nil, nil
}

// ArmRates returns the per-task pass rates of one arm of a run (the tasks
// in sorted order, judged attempts only, errors excluded), shrunk toward
// the arm's mean as DesignFromPairs does, and the judged attempts per task.
// It is the baseline mix of `bench power --from RUN_DIR`.
func ArmRates(recs []results.Attempt, variant string) (tasks []string, rates []float64, reps []int) {
	k, n := map[string]int{}, map[string]int{}
	for _, r := range recs {
		if r.Variant != variant || !r.Done() {
			continue
		}
		n[r.TaskID]++
		if r.Status == results.StatusPass {
			k[r.TaskID]++
		}
	}
	tasks = slices.Sorted(maps.Keys(n))
	ks := make([]int, len(tasks))
	reps = make([]int, len(tasks))
	for i, t := range tasks {
		ks[i], reps[i] = k[t], n[t]
	}
	return tasks, shrunkRates(ks, reps), reps
}
