package analysis

// The analysis of an ablation run (STATS.md): every variant against the
// baseline on the same (task, rep) pairs, on all common tasks and on the
// target tasks of each guard it switches, with power, MDE, Holm/BH, the
// plain-words warnings and the mechanism evidence. The statistics themselves
// live in stats.go, stats_paired.go and power.go; this file only matches
// records, calls them and collects the results.

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"webbench/results"
	"webbench/stats"
)

// Defaults of Inputs.
const (
	// DefaultAlpha is the two-sided significance level when Inputs.Alpha is 0.
	DefaultAlpha = 0.05
	// DefaultPower is the target power when Inputs.Power is 0.
	DefaultPower = 0.8
	// FewTasks is the number of tasks (or clusters) below which the "few
	// tasks" warning is printed (STATS.md §5: G < 10).
	FewTasks = 10
	// InfraWarnFraction is the share of an arm's attempts lost to infra
	// errors above which a warning is printed (STATS.md §5: 10%).
	InfraWarnFraction = 0.10
	// MaxPlanTasks bounds the task-count search of PowerAnalysis.TasksFor:
	// beyond it the underpowered warning says "more than MaxPlanTasks tasks".
	MaxPlanTasks = 2000
	// maxFisherPowerN bounds the N at which the unpaired exact Fisher power
	// (O(N²)) is computed.
	maxFisherPowerN = 2000
)

// Inputs configures Analyze.
type Inputs struct {
	// Baseline names the baseline arm (results.Attempt.Variant). Empty means
	// the first variant appearing in the records.
	Baseline string
	// Variants lists the variants to compare with the baseline, in report
	// order. Empty means every other variant in the records, in order of
	// first appearance.
	Variants []string
	// Switched maps a variant to the guards it switches relative to the
	// baseline (Arms.Switched); each gets a target-task comparison.
	Switched map[string][]string
	// Targets maps a variant to the task ids of its scope (Arms.TargetTasks);
	// a missing or nil entry means all tasks. Baseline attempts outside a
	// variant's scope are not counted as "unmatched".
	Targets map[string][]string
	// TaskTags maps a task id to its tags (suites.Task.Tags). A guard's
	// target tasks are those tagged with its name. Nil disables the
	// target-task comparisons.
	TaskTags map[string][]string
	// ClusterUnit is the singular noun for what the records' cluster groups
	// tasks by (results.Plan.ClusterUnit: "family", "site"); "" is "cluster".
	ClusterUnit string
	// Alpha (default DefaultAlpha) is the two-sided level of every test and
	// the level of the power analysis; Power (default DefaultPower) the
	// target power of the MDE and of the planning clause.
	Alpha, Power float64
	// MinEffect is the drop in pass rate the power analysis asks about (an
	// ablation looks for harm): failure rate base → base+MinEffect (or
	// base−MinEffect when that would exceed 1). 0 means "all failures
	// fixed": base → 0 (STATS.md §5's example).
	MinEffect float64
	// BH adds Benjamini–Hochberg adjusted p-values next to Holm's.
	BH bool
	// CMH adds the Cochran–Mantel–Haenszel test across tasks to every
	// comparison (`bench report --cmh`): the reports' p_cmh column and the
	// JSON's cmh object.
	CMH bool
	// FailIfWorse is the gate margin the reports show (see Analysis.Gate);
	// 0 means no gate is shown.
	FailIfWorse float64
	// FailIfCostlier is the cost gate the reports show and CostGate applies: per outcome, the relative increase
	// tolerated (nil: none).
	FailIfCostlier map[results.CostOutcome]float64
	// SpecWarnings are the problems found while expanding the spec
	// (results.Ablation.SpecWarnings), printed with the others (SpecWarning).
	SpecWarnings []results.SpecWarning
	// ExtraWarnings are sentences printed with the others as given, each as a
	// WarnExtra warning: the spec's warnings of manifests written before
	// results.Ablation.SpecWarnings.
	ExtraWarnings []string
	// Replays names the same-seed A/A arms (spec `aa: same-seed`; results.Ablation.Replays): their
	// disagreement with the baseline is reported as the environment's flake rate (Analysis.Flake).
	Replays []string
	// Copies names the other-seeds A/A arms (spec `aa: true`), as the plan shows them (AACopies): the
	// report prints their noise floor. Replays and Copies are the A/A arms (VariantResult.AA).
	Copies []string

	// power limits the power analysis (calibrate.go): powerFull (zero),
	// powerOnly (no MDE, no planning search) or powerNone.
	power powerLevel
}

// Counts is one arm's side of a comparison: Passes of N judged attempts,
// Rate = Passes/N (0 when N = 0) and its Wilson 95% interval.
type Counts struct {
	N, Passes int
	Rate      float64
	Wilson    [2]float64
}

func mkCounts(k, n int) Counts {
	c := Counts{N: n, Passes: k}
	if n > 0 {
		c.Rate = float64(k) / float64(n)
	}
	c.Wilson[0], c.Wilson[1] = stats.Wilson(k, n, stats.Z95)
	return c
}

// Comparison methods (Comparison.Method).
const (
	// MethodPairedT was the paired t test on per-task differences. No
	// comparison has it any more: the paired p is always the exact
	// sign-flip p (MethodPairedSignFlip), and the interval's method is
	// PairedResult.CIMethod.
	MethodPairedT = "paired_t"
	// MethodPairedSignFlip: per-task paired differences (primary); p is the
	// exact sign-flip p over tasks (PairedDiff), the interval t or adjusted
	// (PairedResult.CIMethod).
	MethodPairedSignFlip = "paired_signflip"
	// MethodFisher: no common (task, rep) pair; Fisher exact p and the
	// Newcombe interval.
	MethodFisher = "fisher"
	// MethodNone: an arm has no judged attempt in scope.
	MethodNone = "none"
)

// Comparison is variant B against baseline A on one set of tasks.
type Comparison struct {
	// ClusterUnit is the singular noun for the units Paired.C counts when the comparison is clustered
	// (Inputs.ClusterUnit: "family", "site"; "cluster" when the run names none).
	ClusterUnit string
	// Guard is empty for the comparison on all common tasks, else the guard
	// whose target tasks (tasks tagged with it) the comparison is limited to.
	Guard string
	// TaskIDs are the tasks compared (sorted): those with a usable pair, or
	// in the unpaired fallback those with a judged attempt in either arm.
	TaskIDs []string
	// Matched is true when at least one (task, rep) pair was judged in both
	// arms; the comparison is then paired, on those pairs only.
	Matched bool
	// Method is one of MethodPairedSignFlip, MethodFisher,
	// MethodNone.
	Method string
	// A (baseline) and B (variant) are the counts entering the comparison:
	// the matched pairs' outcomes, or every judged attempt in scope when
	// unmatched.
	A, B Counts
	// Delta = p_B − p_A and CI its 95% interval: from PairedDiff (mean of
	// per-task differences; t interval) when matched, else p_B − p_A with
	// the Newcombe hybrid score interval.
	Delta float64
	CI    [2]float64
	// P is the primary two-sided p-value: Paired.P when matched, PFisher
	// otherwise, 1 for MethodNone. Holm and BH adjust it.
	P float64
	// Paired is the full paired result (zero when not Matched).
	Paired stats.PairedResult
	// PMcNemar is the exact McNemar p on the matched pairs pooled over reps
	// (secondary); Rescued (A fail, B pass) = b, Broke (A pass, B fail) = c.
	PMcNemar        float64
	Rescued, Broke  int
	PFisher         float64 // two-sided Fisher exact p; NaN when matched (not computed)
	PFisherComputed bool    // whether PFisher is set
	// Informative is the number of compared tasks that carry information on
	// Δ: when matched, tasks where the arms differ in at least one rep
	// (PairedResult.Informative); when unmatched, tasks whose pooled
	// outcomes are mixed (not all pass, not all fail).
	Informative int
	// Pairs is the number of usable matched pairs; DroppedPairs the common
	// pairs dropped because either side ended in an error (infra, judge, …),
	// by error class of the errored side(s) in DroppedByClass.
	Pairs          int
	DroppedPairs   int
	DroppedByClass map[string]int
	// UnmatchedA and UnmatchedB count judged attempts in the variant's scope
	// without a counterpart in the other arm (different task sets or reps).
	UnmatchedA, UnmatchedB int
	// CMH is the Cochran–Mantel–Haenszel test over tasks (nil unless
	// Inputs.CMH). It tests the baseline-vs-variant odds (arm 1 = baseline)
	// and, like PMcNemar, treats the reps of a task as independent: a
	// diagnostic, not shown in the main table.
	CMH *stats.CMHResult
	// PMcNemarClustered is the cluster-adjusted McNemar p with tasks as
	// clusters (Durkalski et al. 2003; statistic Paired.Chi2Clustered) from
	// its exact sign-flip reference distribution (= Paired.PPerm); NaN when
	// unmatched. It is the McNemar shown in the main table.
	PMcNemarClustered float64
	// CommonPairs is the number of (task, rep) pairs in scope with a record
	// in both arms (judged or errored); ErrorsA and ErrorsB count, by error
	// class, those pairs whose baseline (variant) record is an error.
	CommonPairs      int
	ErrorsA, ErrorsB map[string]int
	// Differential lists the error classes whose rates on the common pairs
	// differ materially between the arms (differentialErrors), sorted.
	Differential []string
	// DifferentialP is the two-sided Fisher exact p (FisherExact, n =
	// CommonPairs per arm) of each class in Differential: the p the decision
	// was taken on, which the differential_errors warning prints.
	DifferentialP map[string]float64
	// Bounds is the comparison with the variant's errored pairs imputed
	// (nil when no pair has a variant error and a judged baseline).
	Bounds *ErrorBounds
	// PHolm is Holm's adjustment of P within the family of target-task rows
	// of all variants (target comparisons only; NaN on All, whose Holm
	// adjustment is VariantResult.PHolm).
	PHolm float64
	// Power is the post-hoc power analysis for this comparison's N and G.
	Power PowerAnalysis

	// recPairs are the usable matched pairs' records (the cost outcomes' input).
	recPairs []RecPair
	// design is the matched pairs' design the post-hoc power was simulated on (nil when none was).
	design *Design
}

// G returns the number of compared tasks.
func (c *Comparison) G() int { return len(c.TaskIDs) }

// Unit returns the singular noun of the units the primary test flips: ClusterUnit when the comparison is
// clustered (Paired.Clustered), else "task".
func (c *Comparison) Unit() string {
	if c.Paired.Clustered {
		return c.ClusterUnit
	}
	return "task"
}

// PowerAnalysis is the post-hoc power and minimum detectable effect of a
// comparison (STATS.md §4): for a paired comparison, of the primary test as
// run (PairedDiff) with the run's own tasks, reps per task, per-task
// baseline rates and pairing (DesignFromPairs); for an unpaired one, of the
// one-sided Fisher test. Rates here are FAILURE rates unless named
// otherwise; NaN means undefined.
type PowerAnalysis struct {
	// N is the number of attempts per arm (the pairs when matched, the
	// smaller arm when unmatched); G the units and Reps the mean pairs per
	// unit (0 when unmatched). Unit is the singular noun of the unit: "task",
	// or the comparison's ClusterUnit when it is clustered — the primary test
	// then flips cluster sums, so its power and MDE are simulated with each
	// cluster as one unit whose pairs are its reps (the instances of a family
	// pooled), and TasksFor counts clusters.
	N    int
	G    int
	Reps float64
	Unit string
	// BaseFail is the baseline's observed failure rate in the comparison.
	BaseFail float64
	// From → To is the planned change in failure rate (Inputs.MinEffect:
	// a drop in pass rate of MinEffect, From → From+MinEffect; 0 means "all
	// failures fixed", From → 0) evaluated at the displayed precision: From
	// is BaseFail rounded to a whole percent (so the printed arithmetic
	// checks out). HasEffect is false when there is none to test.
	From, To  float64
	HasEffect bool
	// Test names the test Power and MDE are for: PairedTestName(Unit) when
	// matched, "one-sided Fisher exact (unpaired)" when not. Method is
	// PowerSimulated or PowerNormal for the primary test (PowerPrimary),
	// "exact enumeration" for Fisher.
	Test, Method string
	// Power is the power of Test at level Alpha for From → To: for the
	// primary test PowerPrimary on the observed design with the pass-rate
	// change applied by ShiftRates; unmatched, ExactFisherUnpaired.
	Power float64
	// TaskReps is the mean matched pairs per task (its reps; 0 when unmatched): a clustered unit's Reps are its
	// tasks × their reps.
	TaskReps float64
	// PairShare and RepShare are the estimated cross-arm (same-seed) and within-arm (sticky reps; clustered:
	// a family's instances in one rep) shared-draw shares of the design (DesignFromPairs; NaN when unmatched).
	PairShare, RepShare float64
	// TasksFor is the smallest number of tasks (same reps, same per-task
	// rate mix, PowerPrimary's method) at which the primary test's power
	// reaches the target power, and PowerAtTasksFor its power there; 0 when
	// not found up to 2000 tasks or unmatched.
	TasksFor        int
	PowerAtTasksFor float64
	// ExactFisherUnpaired is the exact power of the one-sided Fisher test
	// with N attempts per arm (ExactPowerFisher(From, To, N, Alpha)): an
	// unpaired figure, NaN when N > 2000 (not computed).
	ExactFisherUnpaired float64
	// PZero = (1−From)^N is the probability of a clean 0/N by chance with no
	// improvement (ProbZeroFailures); MinRunsZero the smallest N at which a
	// clean 0/N is significant at Alpha (MinRunsZeroFailures; −1 if never).
	PZero       float64
	MinRunsZero int
	// MDE is the minimum detectable drop in pass rate (a proportion) of the
	// primary test (MDEPrimary on the observed design) when matched, and
	// MDEUnpaired when not. MDEUnpaired is the unpaired one at the observed
	// baseline pass rate and N per arm; MDEPaired the McNemar one for the
	// observed discordance ψ = (b+c)/pairs (NaN when unmatched or ψ = 0);
	// MDETasks the paired-t one on the observed per-task SE,
	// (t_{1−α/2,df} + t_{power,df})·SE (NaN unless paired with SE > 0).
	MDE, MDEUnpaired, MDEPaired, MDETasks float64
	// HolmM is the smallest multiplier Holm's adjustment over the variants can apply to this comparison's p (the
	// variants whose exact floor 2/2^G is at least its own, itself included); 1 when it is not adjusted (one
	// variant, an A/A arm, a target row, an unmatched comparison). MDEHolm and PowerHolm are MDE and Power at
	// α/HolmM: what the verdict, which compares p_holm with α, can detect (NaN MDEHolm: no drop up to the whole
	// pass rate reaches the target power; PowerHolm 0 when HolmM times the floor is at least α). They equal MDE
	// and Power when HolmM is 1.
	HolmM              int
	MDEHolm, PowerHolm float64
}

// VariantResult is everything computed for one variant.
type VariantResult struct {
	// Name of the variant; Switched the guards it switches; Scope the task
	// ids of its scope (nil = all tasks).
	Name     string
	Switched []string
	Scope    []string
	// Arm summarises all of the variant's final records (SummarizeArm).
	Arm Arm
	// All compares it with the baseline on all common tasks.
	All Comparison
	// Targets holds one comparison per switched guard on that guard's target
	// tasks, omitted when it would be the same task set as All or when no
	// task tags are known.
	Targets []Comparison
	// PHolm is Holm's adjustment of All.P over all variants but the A/A
	// arms; PBH the Benjamini–Hochberg one (NaN unless Inputs.BH). An A/A
	// arm is a family of its own: PHolm = All.P.
	PHolm, PBH float64
	// AA marks an A/A arm (an other-seeds copy of the baseline in
	// Inputs.Copies, or a same-seed replay in Inputs.Replays; both from the
	// plan, never guessed from the records): it is reported (noise floor, flake rate) but
	// left out of Holm's family, the gate and the underpowered and holm_floor
	// warnings, which are about the variants under test (STATS.md).
	AA bool
	// AAKind is the kind of an A/A arm: results.AASameSeed (a replay) or results.AAOtherSeeds (a copy); "" otherwise.
	AAKind results.AAMode
	// Costs are the cost outcomes on All's matched pairs, all attempts (ViewAll, the primary view); CostsPassed
	// the same on the pairs both arms passed (ViewPassed).
	Costs, CostsPassed []CostComparison
}

// Analysis is the result of Analyze (and, over two runs, of CompareRuns):
// the input of every ablation and comparison report.
type Analysis struct {
	// ClusterUnit is the singular noun of the records' clusters (Inputs.ClusterUnit; "cluster" when none).
	ClusterUnit string
	// Baseline is the baseline's name; BaseArm its summary.
	Baseline string
	BaseArm  Arm
	// Arms are the summaries of the baseline and the variants, in report
	// order (baseline first).
	Arms []Arm
	// Variants are the comparisons, in Inputs.Variants order.
	Variants []VariantResult
	// Warnings are printed above the tables (report.AnalysisWarnings words
	// them), in print order, one per variant they concern.
	Warnings []Warning
	// Alpha, Power, MinEffect, BH, CMH and FailIfWorse echo the inputs after
	// defaults.
	Alpha, Power, MinEffect float64
	BH, CMH                 bool
	FailIfWorse             float64
	FailIfCostlier          map[results.CostOutcome]float64
	// Attempts is the number of final records analysed, Errors those that
	// ended in an error (any class).
	Attempts, Errors int
	// Flake is the environment's flake rate measured by each same-seed A/A
	// arm (Inputs.Replays), in Inputs.Replays order.
	Flake []FlakeRate
	// Sequential is the outcome of a sequential design (AnalyzeRun of a run whose plan has one); nil for a
	// fixed-size ablation.
	Sequential *SeqResult
}

// Analyze compares every variant with the baseline (STATS.md). recs must be
// the final records (the last per attempt id, results.ReadResult.Final).
// Attempts are matched on pair_id (falling back to suite, task and rep when a
// record has no pair_id). Pairs with an error on either side are dropped and
// counted; unmatched arms fall back to Fisher/Newcombe. It never fails: data
// problems become Warnings.
func Analyze(recs []results.Attempt, in Inputs) *Analysis {
	// Count first and allocate each arm's slice once: appending 100k
	// records (a large struct) by doubling allocated ~2× the input.
	count := map[string]int{}
	var seen []string
	for _, r := range recs {
		if _, ok := count[r.Variant]; !ok {
			seen = append(seen, r.Variant)
		}
		count[r.Variant]++
	}
	by := make(map[string][]results.Attempt, len(count))
	for v, n := range count {
		by[v] = make([]results.Attempt, 0, n)
	}
	for _, r := range recs {
		by[r.Variant] = append(by[r.Variant], r)
	}
	if in.Baseline == "" && len(seen) > 0 {
		in.Baseline = seen[0]
	}
	if len(in.Variants) == 0 {
		in.Variants = slices.DeleteFunc(seen, func(v string) bool { return v == in.Baseline })
	}
	return analyzeArms(by, in)
}

// analyzeArms is the analysis shared by Analyze and CompareRuns: the arm
// in.Baseline of by against every arm of in.Variants, Holm (and BH) over the
// variants' primary p, and the warnings.
func analyzeArms(by map[string][]results.Attempt, in Inputs) *Analysis {
	if in.Alpha <= 0 || in.Alpha >= 1 {
		in.Alpha = DefaultAlpha
	}
	if in.Power <= 0 || in.Power >= 1 {
		in.Power = DefaultPower
	}
	if in.MinEffect < 0 || in.MinEffect >= 1 {
		in.MinEffect = 0
	}
	a := &Analysis{ClusterUnit: cmp.Or(in.ClusterUnit, "cluster"), Baseline: in.Baseline, Alpha: in.Alpha, Power: in.Power, MinEffect: in.MinEffect, BH: in.BH,
		CMH: in.CMH, FailIfWorse: in.FailIfWorse, FailIfCostlier: in.FailIfCostlier}
	for _, recs := range by {
		a.Attempts += len(recs)
		for _, r := range recs {
			if !r.Done() {
				a.Errors++
			}
		}
	}
	base := by[in.Baseline]
	a.BaseArm = SummarizeArm(in.Baseline, base)
	a.Arms = append(a.Arms, a.BaseArm)
	for _, name := range in.Variants {
		v := analyzeVariant(base, by[name], name, in)
		switch {
		case slices.Contains(in.Replays, name):
			v.AA, v.AAKind = true, results.AASameSeed
		case slices.Contains(in.Copies, name):
			v.AA, v.AAKind = true, results.AAOtherSeeds
		}
		a.Variants = append(a.Variants, v)
		a.Arms = append(a.Arms, v.Arm)
	}
	var ps []float64
	var tested []int // indexes of the variants in Holm's family (not A/A arms)
	for i := range a.Variants {
		if a.Variants[i].AA {
			a.Variants[i].PHolm = a.Variants[i].All.P
			if in.BH {
				a.Variants[i].PBH = a.Variants[i].All.P
			}
			continue
		}
		tested = append(tested, i)
		ps = append(ps, a.Variants[i].All.P)
	}
	holm := stats.Holm(ps)
	holmTargets(a.Variants)
	holmCosts(a.Variants)
	holmPower(a, in)
	var bh []float64
	if in.BH {
		bh = stats.BH(ps)
	}
	for j, i := range tested {
		a.Variants[i].PHolm = holm[j]
		if in.BH {
			a.Variants[i].PBH = bh[j]
		}
	}
	// A flake rate above zero undermines every paired result: its warning comes first.
	a.Flake = flakeRates(by, in.Baseline, in.Replays)
	a.Warnings = flakeWarnings(a.Flake)
	a.Warnings = append(a.Warnings, buildWarnings(a, by, in)...)
	a.Warnings = append(a.Warnings, noiseFloorWarnings(a, in.Copies)...)
	for i := range a.Warnings {
		a.Warnings[i].Alpha, a.Warnings[i].Power = a.Alpha, a.Power
	}
	return a
}

// holmTargets sets Comparison.PHolm of every target-task row: Holm's
// adjustment within the family of all variants' target rows (unadjusted, 29 %
// of 7-variant A/A runs had some target row below 0.05). The
// all-tasks rows are a separate family (VariantResult.PHolm, the gate's).
func holmTargets(vs []VariantResult) {
	var ps []float64
	for _, v := range vs {
		if v.AA {
			continue
		}
		for _, c := range v.Targets {
			ps = append(ps, c.P)
		}
	}
	adj := stats.Holm(ps)
	i := 0
	for vi := range vs {
		for ci := range vs[vi].Targets {
			if vs[vi].AA {
				vs[vi].Targets[ci].PHolm = vs[vi].Targets[ci].P
				continue
			}
			vs[vi].Targets[ci].PHolm = adj[i]
			i++
		}
	}
}

// analyzeVariant compares the variant name (records recs) with the baseline
// records base on all common tasks and on each switched guard's target tasks.
func analyzeVariant(base, recs []results.Attempt, name string, in Inputs) VariantResult {
	vr := VariantResult{Name: name, Switched: in.Switched[name], Scope: in.Targets[name],
		Arm: SummarizeArm(name, recs), PBH: math.NaN()}
	var scope map[string]bool
	if vr.Scope != nil {
		scope = setOf(vr.Scope)
	}
	vr.All = compare(base, recs, scope, "", in)
	vr.Costs, vr.CostsPassed = costViews(vr.All.recPairs, vr.All.ClusterUnit)
	if in.TaskTags == nil {
		return vr
	}
	for _, g := range vr.Switched {
		tagged := map[string]bool{}
		for id, tags := range in.TaskTags {
			if (scope == nil || scope[id]) && slices.Contains(tags, g) {
				tagged[id] = true
			}
		}
		// Target rows: the power at the planned effect only (no MDE
		// bisection, no task-count search), to keep Analyze cheap.
		tin := in
		if tin.power == powerFull {
			tin.power = powerOnly
		}
		c := compare(base, recs, tagged, g, tin)
		if slices.Equal(c.TaskIDs, vr.All.TaskIDs) && c.Method == vr.All.Method && c.Pairs == vr.All.Pairs {
			continue
		}
		vr.Targets = append(vr.Targets, c)
	}
	return vr
}

// PairKey identifies the (task, rep) of a record across arms.
func PairKey(r results.Attempt) string {
	if r.PairID != "" {
		return r.PairID
	}
	return fmt.Sprintf("%s\x00%s\x00%d", r.Suite, r.TaskID, r.Rep)
}

// errClass names the error class of a record that is not Done.
func errClass(r results.Attempt) string {
	if r.ErrorClass != "" {
		return string(r.ErrorClass)
	}
	return "unknown"
}

// compare builds the comparison of variant records bRecs with baseline
// records aRecs, restricted to the tasks in scope (nil = all).
func compare(aRecs, bRecs []results.Attempt, scope map[string]bool, guardName string, in Inputs) Comparison {
	c := Comparison{Guard: guardName, DroppedByClass: map[string]int{}, PFisher: math.NaN(), PHolm: math.NaN(),
		PMcNemarClustered: math.NaN(), ClusterUnit: cmp.Or(in.ClusterUnit, "cluster")}
	inScope := func(r results.Attempt) bool { return scope == nil || scope[r.TaskID] }
	a, b := newIndexed(aRecs, inScope), newIndexed(bRecs, inScope)
	pairs, errored := matchPairs(&c, a, b, clusters(aRecs, bRecs))
	if guardName != "" {
		c.recPairs = nil // the cost outcomes are compared on the variant's scope only
	}
	strata := map[string]*stats.Stratum{}
	stratum := func(task string) *stats.Stratum {
		s := strata[task]
		if s == nil {
			s = &stats.Stratum{}
			strata[task] = s
		}
		return s
	}
	c.Differential, c.DifferentialP = differentialErrors(c.ErrorsA, c.ErrorsB, c.CommonPairs)
	if len(pairs) > 0 {
		pairedComparison(&c, pairs, stratum)
		c.Bounds = errorBounds(pairs, errored)
	} else {
		unpairedComparison(&c, a, b, stratum)
	}
	c.TaskIDs = slices.Sorted(maps.Keys(strata))
	if in.CMH {
		ss := make([]stats.Stratum, 0, len(c.TaskIDs))
		for _, t := range c.TaskIDs {
			ss = append(ss, *strata[t])
		}
		r := stats.CMH(ss)
		c.CMH = &r
	}
	c.Power = powerAnalysis(&c, pairs, in)
	return c
}

// pairedComparison fills c from the matched pairs (PairedDiff, McNemar) and
// the per-task strata.
func pairedComparison(c *Comparison, pairs []stats.Pair, stratum func(string) *stats.Stratum) {
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].Task != pairs[j].Task {
			return pairs[i].Task < pairs[j].Task
		}
		return pairs[i].Rep < pairs[j].Rep
	})
	c.Matched = true
	c.Pairs = len(pairs)
	pr, err := stats.PairedDiff(pairs)
	if err != nil {
		// Cannot happen: (task, rep) are unique and clusters normalised.
		panic(err)
	}
	c.Paired = pr
	kA, kB := 0, 0
	for _, p := range pairs {
		s := stratum(p.Task)
		s.N1++
		s.N2++
		if p.A {
			kA++
			s.K1++
		}
		if p.B {
			kB++
			s.K2++
		}
	}
	c.A, c.B = mkCounts(kA, len(pairs)), mkCounts(kB, len(pairs))
	c.Delta, c.CI, c.P = pr.Delta, pr.CI, pr.P
	c.Method = MethodPairedSignFlip
	c.Rescued, c.Broke = pr.Rescued, pr.Broke
	c.PMcNemar = stats.McNemarExact(pr.Rescued, pr.Broke)
	c.PMcNemarClustered = pr.PPerm
	c.Informative = pr.Informative
}

// unpairedComparison fills c from every judged attempt in scope of a and b
// (Fisher exact p, Newcombe interval; method none when an arm has none).
func unpairedComparison(c *Comparison, a, b indexed, stratum func(string) *stats.Stratum) {
	kA, nA, kB, nB := 0, 0, 0, 0
	mixed := map[string][2]bool{}
	add := func(r results.Attempt, arm int) {
		s := stratum(r.TaskID)
		m := mixed[r.TaskID]
		pass := r.Status == results.StatusPass
		if pass {
			m[0] = true
		} else {
			m[1] = true
		}
		mixed[r.TaskID] = m
		if arm == 1 {
			nA++
			s.N1++
			if pass {
				kA++
				s.K1++
			}
		} else {
			nB++
			s.N2++
			if pass {
				kB++
				s.K2++
			}
		}
	}
	for arm, x := range []indexed{a, b} {
		for _, k := range x.keys {
			if r := x.recs[k]; r.Done() {
				add(*r, arm+1)
			}
		}
	}
	for _, m := range mixed {
		if m[0] && m[1] {
			c.Informative++
		}
	}
	c.A, c.B = mkCounts(kA, nA), mkCounts(kB, nB)
	c.PMcNemar = math.NaN()
	if nA == 0 || nB == 0 {
		c.Method = MethodNone
		c.P = 1
		c.CI = [2]float64{-1, 1}
		return
	}
	c.Method = MethodFisher
	c.Delta = c.B.Rate - c.A.Rate
	c.CI[0], c.CI[1] = stats.Newcombe(kA, nA, kB, nB, stats.Z95)
	c.PFisher = stats.FisherExact(kA, nA, kB, nB)
	c.PFisherComputed = true
	c.P = c.PFisher
}

// index maps pair keys to records (the last per key wins) and returns the
// keys in order of first appearance.
func index(rs []results.Attempt, keep func(results.Attempt) bool) (map[string]*results.Attempt, []string) {
	m := map[string]*results.Attempt{}
	var keys []string
	for i := range rs {
		if !keep(rs[i]) {
			continue
		}
		k := PairKey(rs[i])
		if _, ok := m[k]; !ok {
			keys = append(keys, k)
		}
		m[k] = &rs[i]
	}
	return m, keys
}

// GateFails is the gate rule of Analysis.Gate for one comparison: method not
// none, and either Delta < −margin, CI[1] < 0 and P < alpha (alpha ≤ 0
// means DefaultAlpha), or ErrorsCouldHide.
func GateFails(c *Comparison, margin, alpha float64) bool {
	if alpha <= 0 {
		alpha = DefaultAlpha
	}
	return c.Method != MethodNone && (gateRule(c.Delta, c.CI, c.P, margin, alpha) || ErrorsCouldHide(c, margin, alpha))
}

// setOf returns the set of xs.
func setOf(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}
