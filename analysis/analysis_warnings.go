package analysis

// The warnings of STATS.md §5, printed above the tables: which ones a run gets and the facts each names
// (report words them).

import (
	"math"
	"slices"

	"webbench/results"
)

// WarningKind is the stable code of a kind of warning (the Warn* constants), as the JSON reports print it.
type WarningKind string

// Warning is one warning of STATS.md §5 as data: its kind, the variant it concerns and the facts its sentence
// names. report words every kind (report.WarningText), the same in every format, and prints identical sentences
// about several variants once.
type Warning struct {
	// Kind is a stable code: underpowered, few_tasks, perm_floor,
	// no_discordant, not_comparable, unpaired, infra_errors, judge_errors, judge_uncertain,
	// no_target_tasks, empty_arm, no_baseline, extra, variant_no_task,
	// variant_identical, differential_errors,
	// unequal_reps, holm_floor, cost_holm_floor, noise_floor (the Δ of an A/A arm, aa.go),
	// flake_rate (flake.go), same_dir and seed_mismatch (compare.go), sequential_fixed_p, sequential_budget
	// and sequential_shard_stop (sequential_result.go), cassette_misses (cassette.go).
	Kind WarningKind
	// Variants are the variants it concerns: one, or none for the whole run.
	Variants []string
	// Alpha and Power are the analysis' level and target power, which the
	// sentences compare with.
	Alpha, Power float64
	// Comparison is the primary comparison (VariantResult.All) of the
	// variant a warning is about: unpaired, not_comparable, underpowered,
	// few_tasks, differential_errors, unequal_reps, perm_floor,
	// no_discordant, noise_floor, seed_mismatch; nil for the others.
	Comparison *Comparison
	// Records counts the records of an arm without a judged attempt
	// (no_baseline, empty_arm); 0 when it has none at all.
	Records int
	// Moved is a number of units (tasks, or clusters when the comparison is
	// clustered) that changed outcome and Floor the floor 2/2^Moved (at most
	// 1) they leave the exact sign-flip p_paired: few_tasks and perm_floor
	// (Comparison.Paired.MovedUnits and PFloor).
	Moved int
	Floor float64
	// Holm is the bound of a holm_floor warning (HolmFloorOf).
	Holm HolmFloor
	// Costs are the bounds of a cost_holm_floor warning, in results.CostOutcomes order (CostHolmFloorOf).
	Costs []CostFloor
	// Arms are the arms' counts of the warning's error class, in report
	// order: infra_errors (the arms above InfraWarnFraction), judge_errors
	// and judge_uncertain (the arms with any).
	Arms []ArmErrors
	// Dropped is the number of pairs an infra error on either side dropped
	// from the paired comparisons (infra_errors).
	Dropped int
	// Guard is the guard a variant switches that no compared task is tagged
	// with (no_target_tasks).
	Guard string
	// Flake is the same-seed A/A arm's disagreement (flake_rate).
	Flake FlakeRate
	// SeedMismatches counts the matched pairs that ran with different seeds
	// (seed_mismatch; of Comparison.Pairs).
	SeedMismatches int
	// Guards are the guards a variant that runs on no task switches, and
	// Tasks the number of selected tasks, none tagged with them
	// (variant_no_task).
	Guards []string
	Tasks  int
	// Note is an extra warning's sentence as given (Inputs.ExtraWarnings).
	Note string
	// Budget is the budget a sequential run stopped on (sequential_budget: results.BudgetCost or
	// BudgetAttempts).
	Budget string
	// ShardSkip is a merged run's shard stop the merged looks had not made (sequential_shard_stop).
	ShardSkip *results.SeqSkip
	// Misses are the baseline's and the variant's cassette misses, in that order (cassette_misses,
	// cassette.go).
	Misses []ArmMisses
}

// ArmErrors is one arm's count of errors of a class: Errors of its Attempts
// records.
type ArmErrors struct {
	Arm              string
	Errors, Attempts int
}

// Warning kinds (Warning.Kind), in the order the reports print them.
const (
	WarnNoBaseline WarningKind = "no_baseline"
	WarnEmptyArm   WarningKind = "empty_arm"
	WarnExtra      WarningKind = "extra"
	// WarnVariantNoTask: the spec's target-scoped variant runs on no task
	// (results.SpecVariantNoTask; Guards, Tasks).
	WarnVariantNoTask WarningKind = "variant_no_task"
	// WarnVariantIdentical: the spec's variant is identical to the baseline
	// (results.SpecVariantIdentical).
	WarnVariantIdentical WarningKind = "variant_identical"
	WarnUnpaired         WarningKind = "unpaired"
	WarnNotComparable    WarningKind = "not_comparable"
	WarnInfraErrors      WarningKind = "infra_errors"
	WarnJudgeErrors      WarningKind = "judge_errors"
	// WarnJudgeUncertain: attempts whose verdict is uncertain (results.ClassUncertain).
	WarnJudgeUncertain WarningKind = "judge_uncertain"
	WarnUnderpowered   WarningKind = "underpowered"
	WarnFewTasks       WarningKind = "few_tasks"
	WarnPermFloor      WarningKind = "perm_floor"
	WarnNoDiscordant   WarningKind = "no_discordant"
	WarnNoTargetTasks  WarningKind = "no_target_tasks"
	// WarnDifferentialErrors: the arms' error rates on the common pairs
	// differ materially (Comparison.Differential).
	WarnDifferentialErrors WarningKind = "differential_errors"
	// WarnUnequalReps: tasks have different numbers of matched reps, or the
	// task-weighted Δ and the pooled rates disagree in sign.
	WarnUnequalReps WarningKind = "unequal_reps"
	// WarnHolmFloor: a variant whose exact p cannot go below 2/2^G (G tasks)
	// and whose Holm multiplier is at least m cannot reach p_holm < α when
	// m·2/2^G ≥ α, whatever the reps (HolmFloorOf).
	WarnHolmFloor WarningKind = "holm_floor"
	// WarnCostHolmFloor: a variant's cost outcomes (Costs) whose exact p cannot go below 2/2^k (k moved units)
	// and whose Holm multiplier over the variants is at least m, so that m·2/2^k ≥ α (CostHolmFloorOf).
	WarnCostHolmFloor WarningKind = "cost_holm_floor"
)

// CostFloor is one cost outcome's bound in a cost_holm_floor warning.
type CostFloor struct {
	Outcome results.CostOutcome
	Holm    HolmFloor
}

// SpecWarning is the warning of a problem found while expanding the spec: variant_identical or
// variant_no_task about w.Variant (extra, with the kind as its note, for a kind it does not know).
func SpecWarning(w results.SpecWarning) Warning {
	out := Warning{Variants: []string{w.Variant}}
	switch w.Kind {
	case results.SpecVariantIdentical:
		out.Kind = WarnVariantIdentical
	case results.SpecVariantNoTask:
		out.Kind, out.Guards, out.Tasks = WarnVariantNoTask, w.Guards, w.Tasks
	default:
		out.Kind, out.Note = WarnExtra, string(w.Kind)
	}
	return out
}

// buildWarnings derives every warning of a from its comparisons and arms, one per variant it concerns, in the
// order the reports print them.
func buildWarnings(a *Analysis, by map[string][]results.Attempt, in Inputs) []Warning {
	var out []Warning
	add := func(w Warning) { out = append(out, w) }
	about := func(kind WarningKind, v *VariantResult) Warning {
		c := v.All
		return Warning{Kind: kind, Variants: []string{v.Name}, Comparison: &c}
	}
	availabilityWarnings(a, by, add)
	for _, w := range in.SpecWarnings {
		add(SpecWarning(w))
	}
	for _, w := range in.ExtraWarnings {
		add(Warning{Kind: WarnExtra, Note: w})
	}
	for i := range a.Variants {
		v := &a.Variants[i]
		switch c := v.All; {
		case c.Method == MethodFisher:
			add(about(WarnUnpaired, v))
		case c.Matched && c.UnmatchedA+c.UnmatchedB > 0:
			add(about(WarnNotComparable, v))
		}
	}
	infraWarning(a, add)
	cassetteWarnings(a, by, add)
	judgeWarnings(a, add)
	for i := range a.Variants {
		if v := &a.Variants[i]; !v.AA && underpowered(&v.All, a.Alpha, a.Power) { // an A/A arm has no effect to find
			add(about(WarnUnderpowered, v))
		}
	}
	fewTasks := map[string]bool{} // variants whose few_tasks warning states the sign-flip floor
	for i := range a.Variants {
		v := &a.Variants[i]
		if v.AA || !fewTasksOf(&v.All) {
			continue // few_tasks, perm_floor and no_discordant are about finding an effect: an A/A arm has none
		}
		w := about(WarnFewTasks, v)
		w.Moved, w.Floor = v.All.Paired.MovedUnits, v.All.Paired.PFloor
		add(w)
		fewTasks[v.Name] = true
	}
	for i := range a.Variants {
		if v := &a.Variants[i]; len(v.All.Differential) > 0 {
			add(about(WarnDifferentialErrors, v))
		}
	}
	for i := range a.Variants {
		if v := &a.Variants[i]; unequalReps(&v.All) {
			add(about(WarnUnequalReps, v))
		}
	}
	for i := range a.Variants {
		v := &a.Variants[i]
		c := v.All
		if v.AA || !c.Matched || c.Rescued+c.Broke == 0 || c.Paired.PFloor <= a.Alpha || fewTasks[v.Name] {
			continue // a few_tasks warning already states the floor and what it means
		}
		w := about(WarnPermFloor, v)
		w.Moved, w.Floor = c.Paired.MovedUnits, c.Paired.PFloor
		add(w)
	}
	hf := HolmFloorOf(a)
	for _, v := range a.Variants {
		if h, ok := hf[v.Name]; ok {
			add(Warning{Kind: WarnHolmFloor, Variants: []string{v.Name}, Holm: h})
		}
	}
	costHolmFloorWarnings(a, add)
	for i := range a.Variants {
		if v := &a.Variants[i]; !v.AA && v.All.Matched && v.All.Rescued+v.All.Broke == 0 {
			add(about(WarnNoDiscordant, v)) // matched arms that agree on every pair cannot be told apart
		}
	}
	noTargetTaskWarnings(a, in, add)
	return out
}

// costHolmFloorWarnings are the cost_holm_floor warnings: per variant, its cost outcomes that cannot reach
// p_holm < α at this size (CostHolmFloorOf), in variant order.
func costHolmFloorWarnings(a *Analysis, add func(Warning)) {
	by := map[string][]CostFloor{}
	for _, o := range results.CostOutcomes {
		for name, h := range CostHolmFloorOf(a, o) {
			by[name] = append(by[name], CostFloor{Outcome: o, Holm: h})
		}
	}
	for _, v := range a.Variants {
		if fs := by[v.Name]; len(fs) > 0 {
			add(Warning{Kind: WarnCostHolmFloor, Variants: []string{v.Name}, Costs: fs})
		}
	}
}

// availabilityWarnings are the warnings about arms without anything to compare: a baseline without records or
// judged attempts (no_baseline), a variant likewise (empty_arm).
func availabilityWarnings(a *Analysis, by map[string][]results.Attempt, add func(Warning)) {
	if len(by[a.Baseline]) == 0 {
		add(Warning{Kind: WarnNoBaseline})
	} else if a.BaseArm.N == 0 {
		add(Warning{Kind: WarnNoBaseline, Records: a.BaseArm.Attempts})
	}
	for _, v := range a.Variants {
		if v.Arm.N == 0 {
			add(Warning{Kind: WarnEmptyArm, Variants: []string{v.Name}, Records: v.Arm.Attempts})
		}
	}
}

// noTargetTaskWarnings are the no_target_tasks warnings: a variant switches a guard no compared task is tagged
// with (only with in.TaskTags).
func noTargetTaskWarnings(a *Analysis, in Inputs, add func(Warning)) {
	if in.TaskTags == nil {
		return
	}
	for _, v := range a.Variants {
		for _, g := range v.Switched {
			n := 0
			for _, id := range v.All.TaskIDs {
				if slices.Contains(in.TaskTags[id], g) {
					n++
				}
			}
			if n == 0 && v.All.G() > 0 {
				add(Warning{Kind: WarnNoTargetTasks, Variants: []string{v.Name}, Guard: g})
			}
		}
	}
}

// HolmFloor is the bound HolmFloorOf finds for one variant: compared on G
// tasks (or clusters), its exact p is at least Floor = 2/2^G, and M variants
// (itself included) have a floor at least as high, so p_holm ≥ M·Floor; Need
// is the fewest tasks at which M·2/2^G < α.
type HolmFloor struct {
	G, M, Need int
	Floor      float64
	// Unit is the singular noun of what G counts: "task", or the comparison's ClusterUnit when it is clustered
	// (Paired.Clustered).
	Unit string
}

// HolmFloorOf returns, per matched variant that can never pass Holm's
// adjustment at this size, its bound (HolmFloor). The exact sign-flip p
// of a variant compared on G tasks (or clusters) is at least 2/2^G (its
// floor). Holm (1979) multiplies the p of rank r among K by K−r+1; at best a
// variant is ranked after every variant with a lower floor, so its multiplier
// is at least m = the number of variants whose floor is at least its own. When
// m·2/2^G ≥ α it cannot be shown different (nor fail the gate), however many
// reps. A/A arms are not in Holm's family (VariantResult.AA). m = 1 (no
// multiplicity) is left out: a floor above α alone is the few_tasks and
// perm_floor warnings' to say.
func HolmFloorOf(a *Analysis) map[string]HolmFloor {
	floors, units := map[string]float64{}, map[string]string{}
	for _, v := range a.Variants {
		if !v.All.Matched || v.AA {
			continue
		}
		floors[v.Name], _, units[v.Name] = sizeFloor(&v.All)
	}
	return holmFloors(floors, units, a.Alpha)
}

// unitsNeeded is the fewest units whose exact floor 2/2^g, times m comparisons sharing it, is below alpha.
func unitsNeeded(m int, alpha float64) int { return int(math.Floor(math.Log2(2*float64(m)/alpha))) + 1 }

// sizeFloor is the smallest p c's exact paired test can reach at its size whatever the outcomes, 2/2^g with g its
// independent units (tasks, or clusters when the test is clustered), with g and the unit's name.
func sizeFloor(c *Comparison) (floor float64, g int, unit string) {
	g, unit = c.G(), "task"
	if c.Paired.Clustered {
		g, unit = c.Paired.C, c.ClusterUnit
	}
	return 2 / math.Pow(2, float64(min(g, 1000))), g, unit
}

// holmFloors is HolmFloorOf's rule over any Holm family: per name with a floor f (the smallest p its exact test
// can reach) and m ≥ 2 names whose floor is at least f, its HolmFloor when m·f ≥ alpha; units names what the
// floor's exponent counts.
func holmFloors(floors map[string]float64, units map[string]string, alpha float64) map[string]HolmFloor {
	if len(floors) < 2 {
		return nil
	}
	out := map[string]HolmFloor{}
	for name, f := range floors {
		m := 0
		for _, o := range floors {
			if o >= f {
				m++
			}
		}
		if m < 2 || float64(m)*f < alpha {
			continue
		}
		out[name] = HolmFloor{G: int(math.Round(math.Log2(2 / f))), M: m, Floor: f, Unit: units[name],
			Need: unitsNeeded(m, alpha)}
	}
	return out
}

// CostHolmFloorOf is HolmFloorOf for cost outcome o: per variant whose primary-view comparison of o cannot reach
// p_holm < α at this size, its bound. A cost comparison's exact p is at least 2/2^k with k its moved units (units
// whose arms' means differ; MeansResult.PermFloor), and Holm's family is the variants' comparisons of o (A/A arms
// apart): HolmFloor.G is k, Unit the moved units' kind (singular: "task", or the run's cluster unit), Need the moved
// units it takes.
// A floor above α alone (m = 1) is the perm_floor cost verdict's to say.
func CostHolmFloorOf(a *Analysis, o results.CostOutcome) map[string]HolmFloor {
	floors, units := map[string]float64{}, map[string]string{}
	for i := range a.Variants {
		v := &a.Variants[i]
		if c := v.Cost(o); c != nil && !v.AA && c.Means.Moved > 0 {
			floors[v.Name], units[v.Name] = c.Means.PermFloor, c.Unit
		}
	}
	return holmFloors(floors, units, a.Alpha)
}

// fewTasksOf reports whether c gets the few-tasks warning: matched on one task, or on fewer than FewTasks
// tasks (clusters, when clustered).
func fewTasksOf(c *Comparison) bool {
	if !c.Matched {
		return false
	}
	g := c.G()
	if c.Paired.Clustered {
		g = c.Paired.C
	}
	return c.G() == 1 || g < FewTasks
}

// unequalReps reports whether c gets the unequal-reps warning: tasks with different numbers of matched reps, or
// a task-weighted Δ whose sign disagrees with the pooled rates' (PooledDisagrees).
func unequalReps(c *Comparison) bool {
	return c.Matched && (c.Paired.RepsMin != c.Paired.RepsMax || c.PooledDisagrees())
}

// PooledDisagrees reports whether Δ (the mean of per-task differences) and the pooled rates' difference
// B.Rate − A.Rate are both nonzero (beyond 1e-12) with opposite signs.
func (c *Comparison) PooledDisagrees() bool {
	pooled := c.B.Rate - c.A.Rate
	return (c.Delta > 1e-12 && pooled < -1e-12) || (c.Delta < -1e-12 && pooled > 1e-12)
}

// infraWarning warns about arms with more than InfraWarnFraction of their
// attempts lost to infra errors.
func infraWarning(a *Analysis, add func(Warning)) {
	var arms []ArmErrors
	for _, arm := range a.Arms {
		k := arm.ErrorsByClass[string(results.ClassInfra)]
		if arm.Attempts > 0 && float64(k) > InfraWarnFraction*float64(arm.Attempts) {
			arms = append(arms, ArmErrors{Arm: arm.Name, Errors: k, Attempts: arm.Attempts})
		}
	}
	if len(arms) == 0 {
		return
	}
	dropped := 0
	for _, v := range a.Variants {
		dropped += v.All.DroppedByClass[string(results.ClassInfra)]
	}
	add(Warning{Kind: WarnInfraErrors, Arms: arms, Dropped: dropped})
}

// judgeWarnings report the attempts the judge was uncertain about (judge_uncertain), then those it could not
// verify (judge_errors).
func judgeWarnings(a *Analysis, add func(Warning)) {
	for _, k := range []struct {
		kind  WarningKind
		class results.ErrorClass
	}{{WarnJudgeUncertain, results.ClassUncertain}, {WarnJudgeErrors, results.ClassJudge}} {
		var arms []ArmErrors
		for _, arm := range a.Arms {
			if n := arm.ErrorsByClass[string(k.class)]; n > 0 {
				arms = append(arms, ArmErrors{Arm: arm.Name, Errors: n, Attempts: arm.Attempts})
			}
		}
		if len(arms) > 0 {
			add(Warning{Kind: k.kind, Arms: arms})
		}
	}
}

// underpowered reports whether c gets the underpowered warning of STATS.md §5: a planned effect, not
// significant, and less power than asked for.
func underpowered(c *Comparison, alpha, power float64) bool {
	pw := c.Power
	return c.Method != MethodNone && pw.HasEffect && pw.N >= 1 && !(c.P < alpha) && pw.Power < power
}

// Warning returns the analysis's first warning of kind (a Warn* constant), nil when it has none.
func (a *Analysis) Warning(kind WarningKind) *Warning {
	for i := range a.Warnings {
		if a.Warnings[i].Kind == kind {
			return &a.Warnings[i]
		}
	}
	return nil
}
