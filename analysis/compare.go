package analysis

// The comparison of two runs (`bench compare`): one variant of run A as the
// baseline arm against one variant of run B, through the same analysis as an
// ablation (analyzeArms: paired test over tasks, Holm, power, warnings), plus
// what only two runs have: per-task changes, what differs between their
// records, and seeds that do not match.

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"webbench/results"
	"webbench/stats"
)

// Labels of the two sides of a comparison of two runs, as `bench compare`
// names them in its warnings and tables.
const (
	LabelRunA = "run A"
	LabelRunB = "run B"
)

// Task changes (TaskDiff.Change).
const (
	ChangeNewFailure = "new_failure" // every attempt of A passed, not every one of B
	ChangeFixed      = "fixed"       // not every attempt of A passed, every one of B
	ChangeBetter     = "better"      // B's pass rate is higher otherwise
	ChangeWorse      = "worse"       // B's pass rate is lower otherwise
	ChangeSame       = "same"        // the same pass rate
	ChangeOnlyA      = "only_a"      // the task has judged attempts in A only
	ChangeOnlyB      = "only_b"      // … in B only
)

// RunSide is one side of a comparison of two runs.
type RunSide struct {
	// Label names the side in warnings and tables (LabelRunA, LabelRunB);
	// Name is the run as the user gave it (its directory).
	Label, Name string
	// Attempts are the run's final records (results.ReadResult.Final),
	// optionally with a re-judge's verdicts applied (results.Run.Attempts).
	Attempts []results.Attempt
	// BaseSeed is the base seed of the run's plan, Suite its suite.
	BaseSeed int64
	Suite    string
	// Variant is the variant compared; "" means, for side A, the variant of
	// its first record, and for side B the variant of side A.
	Variant string
	// Trajectories reads the run's trajectories (RunTrajectories); nil: the comparison has no Why.
	Trajectories TrajectoryReader
}

// CompareOptions configures CompareRuns.
type CompareOptions struct {
	// Alpha is the two-sided level of the tests, the power analysis and the
	// gate (0: DefaultAlpha); `bench compare` passes an ablation spec's alpha
	// (CompareParams). Power is the target power of
	// the MDE (0: DefaultPower); MinEffect as in Inputs.
	Alpha, Power, MinEffect float64
	// FailIfWorse is the gate margin, a proportion in (0, 1); 0 means no
	// gate.
	FailIfWorse float64
	// FailIfCostlier is the cost gate (Analysis.CostGate): per outcome, the relative increase tolerated; nil:
	// none.
	FailIfCostlier map[results.CostOutcome]float64
	// SameDir says that both sides are the same directory (a warning).
	SameDir bool
}

// CompareParams returns the options of a comparison of run A with run B
// with only the analysis parameters set: Alpha, Power and MinEffect of an
// ablation spec (ablA, ablB the runs' manifests' Ablation, nil when the run is
// not an ablation), as `bench ablate` analyses with them. The spec is run
// A's when it is an ablation with an alpha, else run B's when it is an
// ablation, else run A's; with neither an ablation the fields are 0 (the
// defaults: DefaultAlpha, DefaultPower, Inputs.MinEffect's 0).
func CompareParams(ablA, ablB *results.Ablation) CompareOptions {
	var o CompareOptions
	for _, abl := range []*results.Ablation{ablA, ablB} {
		if abl != nil && o.Alpha == 0 {
			o.Alpha, o.Power, o.MinEffect = abl.Alpha, abl.Power, abl.MinEffect
		}
	}
	return o
}

// TaskDiff is one task's change between two runs: PassesA of NA judged
// attempts in A, PassesB of NB in B, Delta = PassesB/NB − PassesA/NA (0 for
// only_a, only_b).
type TaskDiff struct {
	Task    string
	PassesA int
	NA      int
	PassesB int
	NB      int
	// Change is one of the Change constants.
	Change string
	Delta  float64
	// ModesB counts the failure modes of side B's failed judged attempts on the task (results.FailureMode;
	// "unclassified" when a fail has none) and FailedB lists their attempt ids, in record order.
	ModesB  map[string]int
	FailedB []string
}

// RunGate is the verdict of the gate of a comparison of two runs (Gate's
// rule on its one comparison): Failed when Δ < −Margin, the interval's upper
// end is below 0 and the (Holm-adjusted) p is below alpha, or when the
// errors could hide such a failure; Reason is which condition decided
// (Analysis.GateReasonOf on the one variant).
type RunGate struct {
	Margin float64
	Failed bool
	Reason GateReason
}

// RunComparison is the comparison of two runs: the analysis of side A as the
// baseline arm against side B as its one variant (arms named by the sides'
// labels), and what only two runs have.
type RunComparison struct {
	// A and B are the sides as given, with Variant filled in.
	A, B RunSide
	// Analysis is the two-arm analysis, the same that `bench ablate` reports;
	// Result() is its one variant, Result().All the comparison.
	Analysis *Analysis
	// PFisher is the two-sided Fisher exact p over every judged attempt of
	// both sides (unpaired), 1 when a side has none.
	PFisher float64
	// SeedMismatches counts matched pairs whose two attempts ran with
	// different seeds (still paired over tasks, without shared randomness).
	SeedMismatches int
	// Tasks are the per-task changes, sorted by task id; NewFailures and
	// Fixed the ids of the tasks with those changes.
	Tasks       []TaskDiff
	NewFailures []string
	Fixed       []string
	// Differences says what differs between the sides' records of their
	// variants (model, guards, base seed, tasks), in plain words; empty for
	// an A/A comparison.
	Differences []string
	// Warnings are the comparison's own warnings (same directory, seed
	// mismatches) followed by the analysis' warnings.
	Warnings []Warning
	// Gate is the gate verdict, nil without CompareOptions.FailIfWorse or when Ungated.
	Gate *RunGate
	// Overlap is what the two sides' judged records have in common.
	Overlap Overlap
	// Ungated says that a gate was asked for (FailIfWorse or FailIfCostlier) on runs that share no (task, rep)
	// pair judged in both: there is no gate verdict, and GateError says why.
	Ungated bool
	// Why is the divergence analysis of the new failures, fixes and materially costlier or cheaper pairs
	// (Explain, run B's variant against run A's), nil unless both sides have Trajectories.
	Why *Why
}

// Overlap is what the compared variants of two runs have in common, counted over judged attempts: tasks
// judged in run A, in run B and in both (at any reps), and (task, rep) pairs judged in both (the paired test's
// pairs; 0 when none is, and then the comparison has no verdict), with DroppedPairs the common pairs dropped
// because either side ended in an error.
type Overlap struct {
	TasksA, TasksB, CommonTasks int
	CommonPairs, DroppedPairs   int
}

// None reports whether the runs share no (task, rep) pair judged in both.
func (o Overlap) None() bool { return o.CommonPairs == 0 }

// Partial reports whether some judged task of either run is not judged in the other (the comparison covers
// fewer tasks than a run has).
func (o Overlap) Partial() bool {
	return o.CommonTasks < o.TasksA || o.CommonTasks < o.TasksB
}

// overlapOf counts the overlap of a comparison from its per-task changes and its primary comparison all.
func overlapOf(diffs []TaskDiff, all *Comparison) Overlap {
	o := Overlap{DroppedPairs: all.DroppedPairs}
	if all.Matched {
		o.CommonPairs = all.Pairs
	}
	for _, d := range diffs {
		if d.Change != ChangeOnlyB {
			o.TasksA++
		}
		if d.Change != ChangeOnlyA {
			o.TasksB++
		}
		if d.Change != ChangeOnlyA && d.Change != ChangeOnlyB {
			o.CommonTasks++
		}
	}
	return o
}

// Verdict is the comparison's verdict: VerdictNoCommonPairs when the runs share no judged pair (an unpaired Δ
// over different tasks is no answer), else the analysis' verdict of run B at the gate's margin
// (Analysis.VerdictOf).
func (c *RunComparison) Verdict() Verdict {
	if c.Overlap.None() {
		return Verdict{Kind: VerdictNoCommonPairs, Alpha: c.Analysis.Alpha}
	}
	return c.Analysis.VerdictOf(c.Result(), c.Analysis.FailIfWorse)
}

// Headline is the comparison's headline (Analysis.Headlines of its one variant) with its Verdict and its
// Overlap, so the wording can say how much of the runs the answer covers.
func (c *RunComparison) Headline() Headline {
	h := c.Analysis.Headlines(c.Why)[0]
	h.Verdict = c.Verdict()
	o := c.Overlap
	h.Overlap = &o
	return h
}

// GateError is the error of a gate asked for on runs without a common judged pair (Ungated), nil otherwise.
func (c *RunComparison) GateError() error {
	if !c.Ungated {
		return nil
	}
	return &NoCommonTaskError{A: c.A.Name, B: c.B.Name, Differences: c.Differences, Dropped: c.Overlap.DroppedPairs}
}

// NewFailureModes counts the failure modes of side B's failed attempts on the new failures (TaskDiff.ModesB
// summed over the tasks that passed every attempt in A and not in B), most first, then by name.
func (c *RunComparison) NewFailureModes() []Count {
	m := map[string]int{}
	for _, d := range c.Tasks {
		if d.Change == ChangeNewFailure {
			for k, n := range d.ModesB {
				m[k] += n
			}
		}
	}
	return counts(m)
}

// Result returns the analysis' one variant: side B against side A.
func (c *RunComparison) Result() *VariantResult { return &c.Analysis.Variants[0] }

// MDE returns the smallest pass-rate drop (a proportion) the comparison
// detects with the analysis' power at its alpha: PowerAnalysis.MDE, the
// primary paired test's as run (the unpaired one when the runs share no
// pair), as bench ablate reports it. ok is false when undefined; over when it
// exceeds 1 (no change is detectable at this size).
func (c *RunComparison) MDE() (mde float64, ok, over bool) {
	mde = c.Result().All.Power.MDE
	if math.IsNaN(mde) || math.IsInf(mde, 0) {
		return 0, false, false
	}
	return mde, true, mde > 1
}

// Warning kinds of a comparison of two runs (beside the analysis' own).
const (
	WarnSameDir      WarningKind = "same_dir"
	WarnSeedMismatch WarningKind = "seed_mismatch"
)

// MissingVariantError is returned by CompareRuns when a side has no record of
// the variant asked for.
type MissingVariantError struct {
	// Side is "a" or "b"; Run the side's Name; Have its variants, sorted.
	Side, Run, Variant string
	Have               []string
}

// Error says which run lacks which variant and lists the ones it has.
func (e *MissingVariantError) Error() string {
	return fmt.Sprintf("%s has no variant %q (it has: %s)", e.Run, e.Variant, strings.Join(e.Have, ", "))
}

// ErrNothingToCompare is returned (wrapped) by CompareRuns when a side has no
// judged attempt of its variant.
var ErrNothingToCompare = errors.New("nothing to compare")

// NoCommonTaskError is RunComparison.GateError: a gate asked for on runs that share no (task, rep) pair judged in
// both, where Δ would compare different tasks.
type NoCommonTaskError struct {
	// A and B are the runs' names; Differences what differs between them
	// (RunComparison.Differences); Dropped the common pairs dropped because
	// either side ended in an error.
	A, B        string
	Differences []string
	Dropped     int
}

// Error says that the runs share no judged task, what differs between them, and what a gate needs.
func (e *NoCommonTaskError) Error() string {
	return fmt.Sprintf("%s and %s share no task judged in both (%s; %s dropped for errors), so Δ would "+
		"compare different tasks; a gate needs runs of the same tasks (same suite, --tasks and --reps)",
		e.A, e.B, strings.Join(e.Differences, "; "), results.Count(e.Dropped, "common pair", "common pairs"))
}

// CompareRuns compares variant b.Variant of run b with variant a.Variant of
// run a (STATS.md §2): attempts pair on pair_id, which has no variant in it,
// so any variant of one run can be compared with any of the other. The
// primary test, power, warnings and gate are those of Analyze with a as the
// baseline and b as the one variant (the arms named by the labels);
// with one variant, Holm's p is the p. A gate asked for on runs without a
// common judged pair is not applied (RunComparison.Ungated). It fails with
// *MissingVariantError or an error wrapping ErrNothingToCompare (a side
// without a judged attempt).
func CompareRuns(a, b RunSide, opts CompareOptions) (*RunComparison, error) {
	if a.Label == "" || a.Label == b.Label {
		return nil, fmt.Errorf("compare: the sides need two different labels (got %q, %q)", a.Label, b.Label)
	}
	if a.Variant == "" && len(a.Attempts) > 0 {
		a.Variant = a.Attempts[0].Variant
	}
	if b.Variant == "" {
		b.Variant = a.Variant
	}
	for _, s := range []struct {
		side string
		r    RunSide
	}{{"a", a}, {"b", b}} {
		have := map[string]bool{}
		for _, r := range s.r.Attempts {
			have[r.Variant] = true
		}
		if !have[s.r.Variant] {
			return nil, &MissingVariantError{Side: s.side, Run: s.r.Name, Variant: s.r.Variant, Have: slices.Sorted(maps.Keys(have))}
		}
	}
	recsA, recsB := VariantRecords(a.Attempts, a.Variant), VariantRecords(b.Attempts, b.Variant)
	c := &RunComparison{A: a, B: b, SeedMismatches: seedMismatches(recsA, recsB),
		Differences: differences(a, b, recsA, recsB)}
	c.Analysis = analyzeArms(map[string][]results.Attempt{a.Label: recsA, b.Label: recsB}, Inputs{Baseline: a.Label,
		Variants: []string{b.Label}, Alpha: opts.Alpha, Power: opts.Power, MinEffect: opts.MinEffect,
		FailIfWorse: opts.FailIfWorse, FailIfCostlier: opts.FailIfCostlier})
	armA, armB := c.Analysis.BaseArm, c.Result().Arm
	c.PFisher = 1
	if armA.N > 0 && armB.N > 0 {
		c.PFisher = stats.FisherExact(armA.Passes, armA.N, armB.Passes, armB.N)
	}
	c.Tasks, c.NewFailures, c.Fixed = TaskDiffs(recsA, recsB)
	c.Overlap = overlapOf(c.Tasks, &c.Result().All)
	if opts.SameDir {
		c.Warnings = append(c.Warnings, Warning{Kind: WarnSameDir, Alpha: c.Analysis.Alpha, Power: c.Analysis.Power})
	}
	if c.SeedMismatches > 0 {
		all := c.Result().All
		c.Warnings = append(c.Warnings, Warning{Kind: WarnSeedMismatch, Alpha: c.Analysis.Alpha, Power: c.Analysis.Power,
			Comparison: &all, SeedMismatches: c.SeedMismatches})
	}
	c.Warnings = append(c.Warnings, c.Analysis.Warnings...)
	c.Ungated = (opts.FailIfWorse > 0 || len(opts.FailIfCostlier) > 0) && c.Overlap.None()
	if opts.FailIfWorse > 0 && !c.Ungated {
		c.Gate = runGate(c, opts.FailIfWorse)
	}
	if armA.N == 0 || armB.N == 0 {
		side := b
		if armA.N == 0 {
			side = a
		}
		return nil, fmt.Errorf("variant %q has no judged attempt in %s: %w", side.Variant, side.Name, ErrNothingToCompare)
	}
	if a.Trajectories != nil && b.Trajectories != nil {
		c.Why = Explain(c.Analysis, a.Trajectories, b.Trajectories)
	}
	return c, nil
}

// VariantRecords returns the records of variant v.
func VariantRecords(recs []results.Attempt, v string) []results.Attempt {
	var out []results.Attempt
	for _, r := range recs {
		if r.Variant == v {
			out = append(out, r)
		}
	}
	return out
}

// seedMismatches counts judged attempts of b whose pair has an attempt in a
// with another seed (STATS.md §2: still a pair, without shared randomness).
func seedMismatches(a, b []results.Attempt) int {
	seedA := map[string]string{}
	for _, r := range a {
		seedA[r.PairID] = seedKey(r.Seed)
	}
	n := 0
	for _, r := range b {
		if s, ok := seedA[r.PairID]; ok && s != seedKey(r.Seed) && r.Done() {
			n++
		}
	}
	return n
}

func seedKey(s *int) string {
	if s == nil {
		return "none"
	}
	return fmt.Sprint(*s)
}

// TaskDiffs returns the per-task changes from a to b (judged attempts only),
// sorted by task id, and the ids of the new failures and of the fixed tasks.
func TaskDiffs(a, b []results.Attempt) (diffs []TaskDiff, newFailures, fixed []string) {
	type acc struct {
		k, n   int
		modes  map[string]int
		failed []string
	}
	per := [2]map[string]*acc{{}, {}}
	for i, recs := range [2][]results.Attempt{a, b} {
		for _, r := range recs {
			if !r.Done() {
				continue
			}
			x := per[i][r.TaskID]
			if x == nil {
				x = &acc{}
				per[i][r.TaskID] = x
			}
			x.n++
			switch {
			case r.Status == results.StatusPass:
				x.k++
			case i == 1:
				if x.modes == nil {
					x.modes = map[string]int{}
				}
				x.modes[cmp.Or(string(r.FailureMode), "unclassified")]++
				x.failed = append(x.failed, r.AttemptID)
			}
		}
	}
	union := maps.Clone(per[0])
	maps.Copy(union, per[1])
	ids := slices.Sorted(maps.Keys(union))
	newFailures, fixed = []string{}, []string{}
	for _, id := range ids {
		x, y := per[0][id], per[1][id]
		d := TaskDiff{Task: id}
		switch {
		case x == nil:
			d.Change, d.PassesB, d.NB = ChangeOnlyB, y.k, y.n
			d.ModesB, d.FailedB = y.modes, y.failed
		case y == nil:
			d.Change, d.PassesA, d.NA = ChangeOnlyA, x.k, x.n
		default:
			d.PassesA, d.NA, d.PassesB, d.NB = x.k, x.n, y.k, y.n
			d.ModesB, d.FailedB = y.modes, y.failed
			ra, rb := float64(x.k)/float64(x.n), float64(y.k)/float64(y.n)
			d.Delta = rb - ra
			switch {
			case ra == 1 && rb < 1:
				d.Change = ChangeNewFailure
				newFailures = append(newFailures, id)
			case ra < 1 && rb == 1:
				d.Change = ChangeFixed
				fixed = append(fixed, id)
			case rb > ra:
				d.Change = ChangeBetter
			case rb < ra:
				d.Change = ChangeWorse
			default:
				d.Change = ChangeSame
			}
		}
		diffs = append(diffs, d)
	}
	return diffs, newFailures, fixed
}

// differences names what differs between sides a and b, whose compared
// records are recsA and recsB: the plans' suites, model, agent, each guard's
// setting, the plans' base seeds, and tasks only on one side.
func differences(a, b RunSide, recsA, recsB []results.Attempt) []string {
	type conf struct {
		models map[string]bool
		agents map[string]bool
		guards map[string]map[bool]bool
		tasks  map[string]bool
	}
	collect := func(recs []results.Attempt) conf {
		c := conf{models: map[string]bool{}, agents: map[string]bool{}, guards: map[string]map[bool]bool{},
			tasks: map[string]bool{}}
		for _, r := range recs {
			c.models[r.Model] = true
			c.agents[cmp.Or(r.Agent, "built-in")] = true
			c.tasks[r.TaskID] = true
			for g, on := range r.Guards {
				if c.guards[g] == nil {
					c.guards[g] = map[bool]bool{}
				}
				c.guards[g][on] = true
			}
		}
		return c
	}
	ca, cb := collect(recsA), collect(recsB)
	out := []string{}
	if a.Suite != b.Suite {
		out = append(out, fmt.Sprintf("suite %s → %s", a.Suite, b.Suite))
	}
	if ma, mb := joinKeys(ca.models), joinKeys(cb.models); ma != mb {
		out = append(out, fmt.Sprintf("model %s → %s", ma, mb))
	}
	if aa, ab := joinKeys(ca.agents), joinKeys(cb.agents); aa != ab {
		out = append(out, fmt.Sprintf("agent %s → %s", aa, ab))
	}
	names := maps.Clone(ca.guards)
	maps.Copy(names, cb.guards)
	for _, g := range slices.Sorted(maps.Keys(names)) {
		if x, y := onOff(ca.guards[g]), onOff(cb.guards[g]); x != y {
			out = append(out, fmt.Sprintf("guard %s %s → %s", g, x, y))
		}
	}
	if a.BaseSeed != b.BaseSeed {
		out = append(out, fmt.Sprintf("seed %d → %d", a.BaseSeed, b.BaseSeed))
	}
	onlyA, onlyB := 0, 0
	for t := range ca.tasks {
		if !cb.tasks[t] {
			onlyA++
		}
	}
	for t := range cb.tasks {
		if !ca.tasks[t] {
			onlyB++
		}
	}
	if onlyA+onlyB > 0 {
		out = append(out, fmt.Sprintf("tasks: %d only in A, %d only in B", onlyA, onlyB))
	}
	return out
}

// onOff names a guard's settings over a run's records.
func onOff(m map[bool]bool) string {
	switch {
	case m[true] && m[false]:
		return "mixed"
	case m[true]:
		return "on"
	case m[false]:
		return "off"
	}
	return "absent"
}

// joinKeys joins the keys of m, sorted, with ", ".
func joinKeys(m map[string]bool) string { return strings.Join(slices.Sorted(maps.Keys(m)), ", ") }

// runGate applies Gate's rule to the comparison's one variant.
func runGate(c *RunComparison, margin float64) *RunGate {
	v := c.Result()
	return &RunGate{Margin: margin, Failed: v.GateFails(margin, c.Analysis.Alpha), Reason: c.Analysis.GateReasonOf(v, margin)}
}
