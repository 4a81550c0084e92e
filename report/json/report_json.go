package json

import (
	"io"
	"math"

	"webbench/analysis"
	"webbench/report"
)

// JSONSchemaVersion is the schema_version of JSONReport's document. It is
// raised only when a field is removed, renamed or changes meaning; new fields
// may be added without raising it.
const JSONSchemaVersion = 1

// JSONReport writes the analysis as one indented JSON document, the
// machine-readable report of `bench ablate` / `bench report --format json`.
// Field names are stable within a schema_version. Rates, deltas, intervals
// and MDEs are proportions in [0, 1] (or [−1, 1] for differences), never
// percentages. A value that is undefined is null, never NaN.
//
// Top level:
//
//	schema_version  int      JSONSchemaVersion (1).
//	baseline        string   name of the baseline arm.
//	alpha           number   two-sided significance level of every test and of the power analysis.
//	power           number   target power of the MDEs and of the planning clause.
//	min_effect      number   drop in pass rate asked about by "power" (0 = all failures fixed).
//	attempts        int      final records analysed (one per attempt id); errors: those with status error.
//	errors          int
//	warnings        [object] plain-words warnings, in print order:
//	    kind        string   stable code: no_baseline, empty_arm, extra, unpaired, not_comparable,
//	                         infra_errors, judge_errors, judge_uncertain, underpowered, few_tasks, perm_floor,
//	                         no_discordant, no_target_tasks, differential_errors, unequal_reps, holm_floor,
//	                         cost_holm_floor, noise_floor (an A/A arm's Δ), flake_rate (a same-seed A/A arm that
//	                         differs from the baseline on some pair).
//	    variants    [string] the variants it concerns ([] for the whole run).
//	    text        string   the warning as printed.
//	arms            [object] per arm, baseline first, then the variants in order:
//	    name        string
//	    model       string   what the arm evaluated: "scripted:PROFILE" or "openai:NAME@HOST" (the base URL's host).
//	    attempts    int      final records of the arm; n: judged (pass or fail); passes; errors: status error
//	    n, passes, errors int
//	    errors_by_class {string: int}  errors by error_class (infra, judge, dataset, …).
//	    rate        number|null  passes/n (null when n = 0: undefined).
//	    wilson      [lo, hi]|null  Wilson 95% score interval of rate (null when n = 0).
//	    clustered_se number|null  cluster-robust SE of rate, tasks (or the suite's cluster) as clusters
//	                         (Miller 2024 eq. 4 with C/(C−1)); null with fewer than 2 clusters.
//	    tasks       int      distinct tasks.
//	    mean_steps, mean_tokens, mean_wall_ms number  means over judged attempts (tokens = prompt + completion).
//	    mean_tokens_passed number|null  mean tokens over passed attempts (the "tokens per pass" column); null
//	                         with no pass.
//	    cost_usd    number   total cost of the arm.
//	    failure_modes {string: int}    failed attempts by failure_mode.
//	    guard_events  {string: int}    guard events summed over attempts, by guard.
//	    guard_fired   {string: int}    judged attempts in which each guard acted at least once;
//	    guard_fired_pass {string: int} … and how many of those passed.
//	    recovered   int      attempts whose final answer was recovered.
//	variants        [object] one per variant, in order; the comparison fields (below) are those of the
//	                         comparison on ALL common tasks, flattened into the variant object:
//	    name        string
//	    switched    [string] guards the variant switches relative to the baseline.
//	    scope       [string]|null  task ids of the variant's scope (null = all tasks).
//	    n, passes, errors int  the variant arm's judged attempts, passes, errors (as in arms).
//	    rate        number|null, wilson [lo, hi]|null  the variant arm's pass rate and Wilson interval (null when n = 0).
//	    p_holm      number   Holm-adjusted p over all variants' primary p ("p").
//	    p_bh        number|null  Benjamini–Hochberg-adjusted p (null unless requested).
//	    aa          bool     an A/A arm (an other-seeds copy, `aa: true`, or a same-seed replay, `aa: same-seed`):
//	                         a control, left out of Holm's family and the gate.
//	    aa_kind     string|null  "other-seeds" or "same-seed" for an A/A arm, null otherwise.
//	    gate_failed bool|null whether the variant fails the --fail-if-worse gate (null when the run has no
//	                         gate, for every arm; with a gate, false for an A/A arm).
//	    errors_could_hide bool  the gate fails (or would) only because the variant's differential
//	                         errors, counted as failures, fail its rule (ErrorsCouldHide; false
//	                         without a gate and for an A/A arm).
//	    verdict     string   the primary comparison in the terminal report's words (Verdict): "worse than the
//	                         baseline", "better than the baseline", "no difference shown" with why, an A/A
//	                         control's words, or "nothing to compare".
//	    guard_events, guard_fired, guard_fired_pass, failure_modes  as in arms, for the variant.
//	    targets     [comparison]  the same comparison on the target tasks (tagged with the guard) of
//	                         each switched guard; left out when identical to the all-tasks one.
//	  comparison fields:
//	    guard       string   "" for all common tasks, else the guard whose target tasks are compared.
//	    method      string   paired_signflip (paired; the paired p is always the exact
//	                         sign-flip p, so paired_t is no longer produced) | fisher (no common pair:
//	                         unpaired) | none (an arm has no judged attempt).
//	    ci_method   string|null  interval of Δ when paired: "t" (t on df, from 12 moved tasks, clusters when clustered, and SE > 0),
//	                         "adjusted" (Laplace-adjusted Wald over tasks, AdjustedInterval), "none"
//	                         (one task: [−1, 1]); null when unpaired.
//	    moved_tasks int      tasks whose mean difference d_t ≠ 0 (the sign-flip test's G').
//	    reps_min, reps_max int  fewest and most matched pairs of one task.
//	    tasks       int      tasks compared; informative_tasks: those that carry information on Δ
//	    informative_tasks int  (paired: the arms differ in ≥ 1 rep; unpaired: mixed outcomes).
//	    task_ids    [string] the tasks compared.
//	    pairs       int      usable matched (task, rep) pairs.
//	    dropped_pairs int    common pairs dropped because either side ended in an error;
//	    dropped_by_class {string: int}  … by error class of the errored side(s).
//	    unmatched_baseline, unmatched_variant int  judged attempts in scope without a counterpart.
//	    baseline, variant {n, passes, rate, wilson}  the counts entering the comparison (the pairs'
//	                         outcomes when paired, all judged attempts in scope when unpaired).
//	    delta       number   Δ = p_variant − p_baseline: mean over tasks of the per-task mean paired
//	                         difference (paired), or the difference of rates (unpaired).
//	    delta_ci    [lo, hi] 95% interval of Δ by ci_method (paired; never a point) or Newcombe hybrid
//	                         score (unpaired).
//	    se          number|null  SE of Δ (paired only).
//	    df          int|null degrees of freedom of se (G−1, or clusters−1 when clustered); those of the
//	                         interval when ci_method is "t".
//	    clustered   bool     SE and df use the suite's coarser cluster; clusters: their number.
//	    clusters    int
//	    p           number   the primary two-sided p (p_paired when paired, p_fisher when not, 1 for none).
//	    p_paired    number|null  paired p: the exact sign-flip (randomization) p of the per-task
//	                         differences over tasks, or over clusters when clustered; exact at every
//	                         size (no t approximation).
//	    p_perm      number|null  exact sign-flip permutation p over tasks; p_perm_floor its smallest
//	    p_perm_floor number|null attainable value 2/2^G' (G' = tasks with a non-zero difference).
//	    p_mcnemar   number|null  exact McNemar p on the pairs pooled over reps: a diagnostic that
//	                         assumes independent attempts (too small with correlated reps); not in
//	                         the main table.
//	    p_mcnemar_clustered number|null  cluster-adjusted McNemar (Durkalski 2003, tasks as clusters)
//	                         from its exact sign-flip reference (= p_perm); the main table's McNemar.
//	    mcnemar_clustered_chi2 number|null  Durkalski's statistic (Σd_t)²/Σd_t².
//	    p_holm_targets number|null  on target comparisons: Holm-adjusted p within the family of all
//	                         variants' target rows (null on the all-tasks comparison).
//	    common_pairs int     (task, rep) pairs in scope with a record in both arms.
//	    errors_baseline, errors_variant {string: int}  errored records of those pairs, by class.
//	    differential_errors [string]  classes whose error rates differ by more than 5 points or with
//	                         Fisher p < 0.05 (DifferentialErrorPoints, DifferentialErrorP).
//	    error_bounds object|null  Δ redone with the pairs where the variant errored (baseline judged)
//	                         counted as variant failures and as passes: pairs, as_fail and as_pass
//	                         {delta, delta_ci, p}, and as_fail_both (every errored attempt of either
//	                         side a failure: the gate's check); null when there is no such pair.
//	    rescued     int      pairs with baseline fail / variant pass (McNemar b).
//	    broke       int      pairs with baseline pass / variant fail (McNemar c).
//	    p_fisher    number|null  two-sided Fisher exact p (unpaired only).
//	    cmh         object|null  Cochran–Mantel–Haenszel across tasks with continuity correction (on
//	                         request: bench report --cmh; a diagnostic assuming independent attempts): chi2, p, odds_ratio (Mantel–Haenszel odds(baseline)/odds(variant);
//	                         null when infinite), strata (tasks used).
//	    mde         number|null  minimum detectable pass-rate drop of the test power.test names: the
//	                         primary paired test as run (MDEPrimary on the run's tasks, reps, per-task
//	                         rates, pairing) when paired, else mde_unpaired; null on target-task
//	                         rows when paired (their power is computed, their MDE is not).
//	    mde_unpaired number|null minimum detectable pass-rate change at the observed baseline rate and
//	                         n per arm (unpaired normal approximation, alpha, power).
//	    mde_paired  number|null  the same for McNemar at the observed discordance (b+c)/pairs.
//	    mde_tasks   number|null  the same for the paired t test at the observed SE over tasks.
//	    power       object   post-hoc power for the planned change in FAILURE rate:
//	        n           int      attempts per arm (pairs; the smaller arm when unpaired).
//	        base_fail   number   observed baseline failure rate in the comparison.
//	        from, to    number   planned change in failure rate (from = base_fail to a whole percent).
//	        tasks, reps int, number  tasks and mean pairs per task (reps 0 when unpaired).
//	        test        string   the test power and mde are for: the primary paired task-level test
//	                         (analysis.PairedTestName) when paired, one-sided Fisher (unpaired) otherwise.
//	        method      string   "simulation" (the exact sign-flip test of PairedDiff on simulated runs
//	                         of the design; designs up to 1,000 pairs, or larger ones where < 40 tasks
//	                         move), "normal approximation" (larger designs) or "exact enumeration" (Fisher).
//	        power       number|null  power of that test at alpha for from → to.
//	        pair_share  number|null  estimated same-seed pairing share of the design (paired only).
//	        rep_share   number|null  estimated sticky-reps share (reps of one arm sharing a draw; clustered: a family's instances in one rep).
//	        tasks_for   int|null     tasks (same reps and rate mix) at which power reaches "power".
//	        power_at_tasks_for number|null  the power there.
//	        exact_fisher_unpaired number|null  exact one-sided Fisher power with n per arm (unpaired
//	                         figure; null above n = 2000).
//	        p_zero      number|null  (1−from)^n: P(0 failures by chance with no improvement).
//	        min_runs_zero int|null   smallest n at which a clean 0/n is significant at alpha.
//	        holm_m      int      the smallest multiplier Holm's adjustment over the variants can apply to this
//	                         p (the variants whose exact floor 2/2^tasks is at least its own); 1 when none.
//	        mde_holm    number|null  the MDE at alpha/holm_m, what the verdict (p_holm against alpha) can
//	                         detect; null when no drop is detectable (or none was computed).
//	        power_holm  number|null  power at alpha/holm_m for from → to.
//	    note        string   plain-words note of any statistical fallback (may be empty).
//	    costs       [object] the paired cost outcomes on the variant's matched pairs (STATS.md "Cost
//	                         outcomes"): per outcome (steps, tokens, usd when priced, wall in ms, repeated_calls,
//	                         tool_bytes: on the pairs whose records hold them) the view
//	                         "all" (every judged pair: primary) then "passed" (pairs both arms passed):
//	        outcome, view, unit string  unit: "task", or "family" when the records carry task families.
//	        units, moved_units, pairs int  units compared, those whose arm means differ, matched pairs.
//	        mean_baseline, mean_variant number  means over units of the per-unit arm means.
//	        diff        number   mean_variant − mean_baseline (per attempt); diff_ci [lo, hi] its 95%
//	        diff_ci     [lo|null, hi|null]  interval (null: unbounded).
//	        ratio       number|null  mean_variant / mean_baseline (null when the baseline's is 0);
//	        ratio_ci    [lo|null, hi|null]  its 95% interval (null: unbounded or undefined).
//	        ci_method   string   "signflip_inversion" (the values the sign-flip test does not reject)
//	                         or "none" (one unit).
//	        p           number   exact sign-flip p of the per-unit differences; p_floor its smallest value.
//	        p_floor     number
//	        p_holm      number|null  Holm over the variants for this outcome (view all; null for passed).
//	        verdict     string|null  the decision in words (view all); verdict_kind its code: gate_fails,
//	        verdict_kind string|null costlier, cheaper, perm_floor, holm_floor, no_difference.
//	        gate_failed bool|null    whether the cost gate fails it (null: no gate on this outcome).
//	        per_unit    [object] {unit, pairs, baseline, variant, diff}: the per-unit means.
//	gate            object|null  present when a --fail-if-worse margin is set:
//	    margin      number   the margin (proportion);
//	    failed      bool     whether any variant failed;
//	    why         [string] one line per failing variant.
//	cost_gate       object|null  present when a cost gate (fail_if_costlier) is set: margins {outcome:
//	                         relative increase tolerated}, failed bool, why [string] per failing outcome.
//	flake_rates     [object] one per same-seed A/A arm (spec `aa: same-seed`; [] without one): the
//	                         environment's flake rate, the share of pairs the replay does not reproduce:
//	    variant     string   the same-seed A/A arm.
//	    pairs       int      pairs with a finished (pass or fail) final record in both arms; differ: those
//	    differ      int      whose status, failure mode or verdict differ.
//	    errors      int      pairs left out because either arm's attempt ended in an error.
//	    rate        number|null  differ/pairs (null when pairs = 0: undefined); wilson [lo, hi]|null its
//	    wilson      [lo, hi]|null  Wilson 95% interval (null when pairs = 0).
//	    examples    [string] the first differing pairs ("task rep 1: pass vs fail (gave_up)").
//	sequential      object|null  a sequential run's outcome (null for a fixed-size run; STATS.md "Sequential
//	                         ablations"); the comparisons above are then diagnostics:
//	    alpha, min_effect number  the design's level and futility margin; unit string the unit's noun.
//	    units, looked int    units planned, and complete in plan order at the last look.
//	    planned, saved int   all arms' planned attempts and those the stops left unrun; saved_tokens,
//	    saved_tokens, saved_cost_usd number|null  saved_cost_usd their estimates (null: unknown).
//	    budget      string|null  the budget the run stopped on (max_cost, max_attempts).
//	    budgets     object|null  the budgets the run ran under: max_attempts, max_cost_usd (absent: none), each
//	                         counted over its own run directory's records; in a merged run the shards' sum (a
//	                         budget some shard ran without is absent).
//	    shard_budgets [object] a merged run's per-shard budgets: shard "i/n", max_attempts, max_cost_usd.
//	    shard_stops [object] a merged run's attempts that a shard's own stop left unrun where the merged looks
//	                         still needed them (they count as pairs without an outcome): variant, stop, unit (the
//	                         shard's), attempts, shard "i/n".
//	    header      string   the outcome's first sentence in words.
//	    variants    [object] per monitored variant: name; stop "worse", "better", "futile" or "" (undecided);
//	                         decision in words; at int|null the unit decided at (1-based, of the plan's units);
//	                         own_at int|null how many of the variant's own planned units came up to it; units
//	                         planned for it (its design's size);
//	                         looked_units the units in its look; mean, repeated_ci [lo, hi], repeated_p the
//	                         look's mean paired Δ, repeated confidence interval (level 1 − alpha/variants) and
//	                         repeated p (null without a unit); planned, saved attempts and saved_tokens,
//	                         saved_cost_usd estimates (null: none).
//	    baseline    object   the baseline's planned and saved attempts (stop, at, mean, repeated_ci,
//	                         repeated_p null).
func JSONReport(w io.Writer, a *analysis.Analysis) error { return ablationJSON(w, a, nil, nil) }

// ablationJSON writes JSONReport's document with the judges part's keys (judges, judge_agreement,
// zoo_qa_ground_truth) after its own when js is not nil, and the divergence analysis when why is not nil: key
// "why", analysis.Why as encoded (every examined pair's first divergence and the cause groups), and
// "why_lines", the groups in the other formats' words (report.WhyPart: moved, cost, noise, note).
func ablationJSON(w io.Writer, a *analysis.Analysis, js *analysis.Judges, why *analysis.Why) error {
	doc := newJSONDoc(a)
	doc.Judges = js
	if why != nil {
		doc.Why = why
		p := report.NewWhyPart(why, a.Baseline)
		doc.WhyLines = &jsonWhyLines{Unread: p.Unread, Noise: p.Noise, Note: p.Note, Moved: lineTexts(p.Moved), Cost: lineTexts(p.Cost)}
	}
	return encodeJSON(w, doc, false)
}

// jsonDoc is the document JSONReport writes; see JSONReport for every field.
type jsonDoc struct {
	SchemaVersion int           `json:"schema_version"`
	Baseline      string        `json:"baseline"`
	Alpha         float64       `json:"alpha"`
	Power         float64       `json:"power"`
	MinEffect     float64       `json:"min_effect"`
	Attempts      int           `json:"attempts"`
	Errors        int           `json:"errors"`
	Warnings      []jsonWarning `json:"warnings"`
	Arms          []jsonArmDoc  `json:"arms"`
	Variants      []jsonVariant `json:"variants"`
	Gate          *jsonGate     `json:"gate"`
	CostGate      *jsonCostGate `json:"cost_gate"`
	FlakeRates    []jsonFlake   `json:"flake_rates"`
	Sequential    *jsonSeq      `json:"sequential"`
	// Judges is the judges part (AblationReport.Judges); its keys are absent without one.
	*analysis.Judges
	// Why and WhyLines are the divergence analysis and its words (ablationJSON); absent without a run.
	Why      *analysis.Why `json:"why,omitempty"`
	WhyLines *jsonWhyLines `json:"why_lines,omitempty"`
}

// jsonWhyLines is report.WhyPart in jsonDoc: the lines of the discordant pairs' causes (moved) and of the
// cost groups (cost), the noise line and the note on what is material.
type jsonWhyLines struct {
	Unread string   `json:"unread,omitempty"`
	Moved  []string `json:"moved"`
	Cost   []string `json:"cost"`
	Noise  string   `json:"noise,omitempty"`
	Note   string   `json:"note"`
}

// lineTexts are the texts of ls.
func lineTexts(ls []report.WhyLine) []string {
	out := make([]string, 0, len(ls))
	for _, l := range ls {
		out = append(out, l.Text)
	}
	return out
}

// jsonFlake is one same-seed A/A arm's flake rate (FlakeRate) in jsonDoc.
type jsonFlake struct {
	Variant  string      `json:"variant"`
	Pairs    int         `json:"pairs"`
	Differ   int         `json:"differ"`
	Errors   int         `json:"errors"`
	Rate     *float64    `json:"rate"`
	Wilson   *[2]float64 `json:"wilson"`
	Examples []string    `json:"examples"`
}

// jsonWarning is one warning of jsonDoc.
type jsonWarning struct {
	Kind     analysis.WarningKind `json:"kind"`
	Variants []string             `json:"variants"`
	Text     string               `json:"text"`
}

// jsonArmDoc is one arm of jsonDoc: Arm's fields (the same JSON names), with clustered_se null when undefined.
type jsonArmDoc struct {
	analysis.Arm
	// ClusteredSE shadows Arm.ClusteredSE: null with fewer than two clusters instead of 0.
	ClusteredSE *float64 `json:"clustered_se"`
	// Rate and Wilson shadow Arm's: null when no attempt was judged (n = 0), where the rate is undefined.
	Rate   *float64    `json:"rate"`
	Wilson *[2]float64 `json:"wilson"`
}

// rateOrNull is rate, or nil (JSON null) when n = 0.
func rateOrNull(n int, rate float64) *float64 {
	if n == 0 {
		return nil
	}
	return &rate
}

// wilsonOrNull is w, or nil (JSON null) when n = 0.
func wilsonOrNull(n int, w [2]float64) *[2]float64 {
	if n == 0 {
		return nil
	}
	return &w
}

// jsonCountsDoc is one side of a jsonComparisonDoc.
type jsonCountsDoc struct {
	N      int        `json:"n"`
	Passes int        `json:"passes"`
	Rate   float64    `json:"rate"`
	Wilson [2]float64 `json:"wilson"`
}

// jsonCMH is the Cochran–Mantel–Haenszel result of a jsonComparisonDoc
// (CMHResult with an infinite odds ratio as null).
type jsonCMH struct {
	Chi2      float64  `json:"chi2"`
	P         float64  `json:"p"`
	OddsRatio *float64 `json:"odds_ratio"`
	Strata    int      `json:"strata"`
}

// jsonPower is the post-hoc power of a jsonComparisonDoc.
type jsonPower struct {
	N                   int      `json:"n"`
	BaseFail            float64  `json:"base_fail"`
	From                float64  `json:"from"`
	To                  float64  `json:"to"`
	Tasks               int      `json:"tasks"`
	Reps                float64  `json:"reps"`
	Test                string   `json:"test"`
	Method              string   `json:"method"`
	Power               *float64 `json:"power"`
	PairShare           *float64 `json:"pair_share"`
	RepShare            *float64 `json:"rep_share"`
	TasksFor            *int     `json:"tasks_for"`
	PowerAtTasksFor     *float64 `json:"power_at_tasks_for"`
	ExactFisherUnpaired *float64 `json:"exact_fisher_unpaired"`
	PZero               *float64 `json:"p_zero"`
	MinRunsZero         *int     `json:"min_runs_zero"`
	HolmM               int      `json:"holm_m"`
	MDEHolm             *float64 `json:"mde_holm"`
	PowerHolm           *float64 `json:"power_holm"`
	// MayOverstateBy is analysis.PowerOverstatement where PowerAnalysis.MayOverstate holds (a clustered
	// comparison's post-hoc power that calibration found too high by up to that much), else null.
	MayOverstateBy *float64 `json:"may_overstate_by"`
}

// jsonComparisonDoc is one comparison of a variant with the baseline.
type jsonComparisonDoc struct {
	Guard             string         `json:"guard"`
	Method            string         `json:"method"`
	Tasks             int            `json:"tasks"`
	InformativeTasks  int            `json:"informative_tasks"`
	TaskIDs           []string       `json:"task_ids"`
	Pairs             int            `json:"pairs"`
	DroppedPairs      int            `json:"dropped_pairs"`
	DroppedByClass    map[string]int `json:"dropped_by_class"`
	UnmatchedBaseline int            `json:"unmatched_baseline"`
	UnmatchedVariant  int            `json:"unmatched_variant"`
	BaselineCounts    jsonCountsDoc  `json:"baseline"`
	VariantCounts     jsonCountsDoc  `json:"variant"`
	Delta             float64        `json:"delta"`
	DeltaCI           [2]float64     `json:"delta_ci"`
	SE                *float64       `json:"se"`
	DF                *int           `json:"df"`
	Clustered         bool           `json:"clustered"`
	Clusters          int            `json:"clusters"`
	Unit              string         `json:"unit"`
	MovedUnits        int            `json:"moved_units"`
	PFloor            *float64       `json:"p_floor"`
	P                 float64        `json:"p"`
	PPaired           *float64       `json:"p_paired"`
	PPerm             *float64       `json:"p_perm"`
	PPermFloor        *float64       `json:"p_perm_floor"`
	PMcNemar          *float64       `json:"p_mcnemar"`
	Rescued           int            `json:"rescued"`
	Broke             int            `json:"broke"`
	PFisher           *float64       `json:"p_fisher"`
	CMH               *jsonCMH       `json:"cmh"`
	MDE               *float64       `json:"mde"`
	MDEUnpaired       *float64       `json:"mde_unpaired"`
	MDEPaired         *float64       `json:"mde_paired"`
	MDETasks          *float64       `json:"mde_tasks"`
	Power             jsonPower      `json:"power"`
	Note              string         `json:"note"`
	// Fields added within schema_version 1 (additions only).
	CIMethod           *string        `json:"ci_method"`
	MovedTasks         int            `json:"moved_tasks"`
	RepsMin            int            `json:"reps_min"`
	RepsMax            int            `json:"reps_max"`
	PMcNemarClustered  *float64       `json:"p_mcnemar_clustered"`
	Chi2Clustered      *float64       `json:"mcnemar_clustered_chi2"`
	PHolmTargets       *float64       `json:"p_holm_targets"`
	CommonPairs        int            `json:"common_pairs"`
	ErrorsBaseline     map[string]int `json:"errors_baseline"`
	ErrorsVariant      map[string]int `json:"errors_variant"`
	DifferentialErrors []string       `json:"differential_errors"`
	ErrorBounds        *jsonErrBounds `json:"error_bounds"`
	ErrorsCouldHide    bool           `json:"errors_could_hide"`
}

// jsonErrBounds is the ErrorBounds of a jsonComparisonDoc.
type jsonErrBounds struct {
	Pairs      int       `json:"pairs"`
	AsFail     jsonBound `json:"as_fail"`
	AsPass     jsonBound `json:"as_pass"`
	AsFailBoth jsonBound `json:"as_fail_both"`
}

// jsonBound is one BoundResult.
type jsonBound struct {
	Delta   float64    `json:"delta"`
	DeltaCI [2]float64 `json:"delta_ci"`
	P       float64    `json:"p"`
}

// jsonVariant is one variant of jsonDoc: its arm, the Holm/BH-adjusted p and
// gate, and the all-common-tasks comparison flattened in, plus targets.
type jsonVariant struct {
	Name     string      `json:"name"`
	Switched []string    `json:"switched"`
	Scope    []string    `json:"scope"`
	N        int         `json:"n"`
	Passes   int         `json:"passes"`
	Errors   int         `json:"errors"`
	Rate     *float64    `json:"rate"`
	Wilson   *[2]float64 `json:"wilson"`
	PHolm    float64     `json:"p_holm"`
	PBH      *float64    `json:"p_bh"`
	// AA marks an A/A arm (VariantResult.AA): a control, out of Holm's family and the gate; AAKind its kind.
	AA     bool    `json:"aa"`
	AAKind *string `json:"aa_kind"`
	// GateFailed is null when no gate margin is set.
	GateFailed *bool `json:"gate_failed"`
	// Verdict is the primary comparison in words (Verdict).
	Verdict        string         `json:"verdict"`
	GuardEvents    map[string]int `json:"guard_events"`
	GuardFired     map[string]int `json:"guard_fired"`
	GuardFiredPass map[string]int `json:"guard_fired_pass"`
	FailureModes   map[string]int `json:"failure_modes"`
	jsonComparisonDoc
	Targets []jsonComparisonDoc `json:"targets"`
	// Costs are the paired cost outcomes (jsonCosts).
	Costs []jsonCost `json:"costs"`
}

// jsonGate is the gate verdict of jsonDoc.
type jsonGate struct {
	Margin float64  `json:"margin"`
	Failed bool     `json:"failed"`
	Why    []string `json:"why"`
}

// newJSONDoc converts an Analysis to its JSON document.
func newJSONDoc(a *analysis.Analysis) jsonDoc {
	d := jsonDoc{SchemaVersion: JSONSchemaVersion, Baseline: a.Baseline, Alpha: a.Alpha, Power: a.Power,
		MinEffect: a.MinEffect, Attempts: a.Attempts, Errors: a.Errors, Warnings: []jsonWarning{},
		Arms: []jsonArmDoc{}, Variants: []jsonVariant{}, FlakeRates: []jsonFlake{}}
	for _, f := range a.Flake {
		d.FlakeRates = append(d.FlakeRates, jsonFlake{Variant: f.Variant, Pairs: f.Pairs, Differ: f.Differ, Errors: f.Errors,
			Rate: rateOrNull(f.Pairs, f.Rate), Wilson: wilsonOrNull(f.Pairs, f.Wilson), Examples: nonNil(f.Examples)})
	}
	for _, w := range report.AnalysisWarnings(a) {
		vs := w.Variants
		if vs == nil {
			vs = []string{}
		}
		d.Warnings = append(d.Warnings, jsonWarning{Kind: w.Kind, Variants: vs, Text: w.Text})
	}
	for _, arm := range a.Arms {
		d.Arms = append(d.Arms, jsonArm(arm))
	}
	for _, v := range a.Variants {
		jv := jsonVariant{Name: v.Name, Switched: nonNil(v.Switched), Scope: v.Scope, N: v.Arm.N, Passes: v.Arm.Passes,
			Errors: v.Arm.Errors, Rate: rateOrNull(v.Arm.N, v.Arm.Rate), Wilson: wilsonOrNull(v.Arm.N, v.Arm.Wilson), PHolm: v.PHolm, PBH: fptr(v.PBH),
			GuardEvents: nonNilMap(v.Arm.GuardEvents), GuardFired: nonNilMap(v.Arm.GuardFired),
			GuardFiredPass: nonNilMap(v.Arm.GuardFiredPass), FailureModes: nonNilMap(v.Arm.FailureModes),
			jsonComparisonDoc: jsonComparison(&v.All), Targets: []jsonComparisonDoc{}}
		jv.AA = v.AA
		jv.Verdict = report.Verdict(a, &v)
		if v.AA {
			k := string(v.AAKind)
			jv.AAKind = &k
		}
		if a.FailIfWorse > 0 {
			f := v.GateFails(a.FailIfWorse, a.Alpha)
			jv.GateFailed = &f
			jv.ErrorsCouldHide = !v.AA && analysis.ErrorsCouldHide(&v.All, a.FailIfWorse, a.Alpha)
		}
		for i := range v.Targets {
			jv.Targets = append(jv.Targets, jsonComparison(&v.Targets[i]))
		}
		jv.Costs = jsonCosts(a, &v)
		d.Variants = append(d.Variants, jv)
	}
	if a.FailIfWorse > 0 {
		failed, why := a.Gate(a.FailIfWorse)
		d.Gate = &jsonGate{Margin: a.FailIfWorse, Failed: failed, Why: report.GateReasonTexts(why)}
	}
	d.CostGate = jsonCostGateOf(a)
	d.Sequential = jsonSeqOf(a)
	return d
}

func jsonArm(a analysis.Arm) jsonArmDoc {
	var se *float64
	if a.N > 0 {
		se = fptr(a.ClusteredSE)
	}
	a.ErrorsByClass, a.FailureModes = nonNilMap(a.ErrorsByClass), nonNilMap(a.FailureModes)
	a.GuardEvents, a.GuardFired, a.GuardFiredPass = nonNilMap(a.GuardEvents), nonNilMap(a.GuardFired), nonNilMap(a.GuardFiredPass)
	return jsonArmDoc{Arm: a, ClusteredSE: se, Rate: rateOrNull(a.N, a.Rate), Wilson: wilsonOrNull(a.N, a.Wilson)}
}

func jsonCounts(c analysis.Counts) jsonCountsDoc {
	return jsonCountsDoc{N: c.N, Passes: c.Passes, Rate: c.Rate, Wilson: c.Wilson}
}

func jsonComparison(c *analysis.Comparison) jsonComparisonDoc {
	j := jsonComparisonDoc{Guard: c.Guard, Method: c.Method, Tasks: c.G(), InformativeTasks: c.Informative,
		TaskIDs: nonNil(c.TaskIDs), Pairs: c.Pairs, DroppedPairs: c.DroppedPairs,
		DroppedByClass: nonNilMap(c.DroppedByClass), UnmatchedBaseline: c.UnmatchedA, UnmatchedVariant: c.UnmatchedB,
		BaselineCounts: jsonCounts(c.A), VariantCounts: jsonCounts(c.B), Delta: c.Delta, DeltaCI: c.CI,
		Clusters: c.G(), P: c.P, Rescued: c.Rescued, Broke: c.Broke, MDE: fptr(c.Power.MDE),
		MDEUnpaired: fptr(c.Power.MDEUnpaired), MDEPaired: fptr(c.Power.MDEPaired), MDETasks: fptr(c.Power.MDETasks), Note: report.PairedNote(&c.Paired, c.ClusterUnit)}
	if c.Matched {
		j.SE = fptr(c.Paired.SE)
		if c.Paired.DF > 0 {
			df := c.Paired.DF
			j.DF = &df
		}
		j.Clustered, j.Clusters, j.Unit = c.Paired.Clustered, c.Paired.C, c.Unit()
		j.MovedUnits, j.PFloor = c.Paired.MovedUnits, fptr(c.Paired.PFloor)
		j.PPaired = fptr(c.Paired.P)
		j.PPerm = fptr(c.Paired.PPerm)
		j.PPermFloor = fptr(c.Paired.PermFloor)
		j.PMcNemar = fptr(c.PMcNemar)
	}
	if c.PFisherComputed {
		j.PFisher = fptr(c.PFisher)
	}
	j.CommonPairs, j.ErrorsBaseline, j.ErrorsVariant = c.CommonPairs, nonNilMap(c.ErrorsA), nonNilMap(c.ErrorsB)
	j.DifferentialErrors, j.PHolmTargets = nonNil(c.Differential), fptr(c.PHolm)
	if c.Matched {
		m := c.Paired.CIMethod
		j.CIMethod = &m
		j.MovedTasks, j.RepsMin, j.RepsMax = c.Paired.Moved, c.Paired.RepsMin, c.Paired.RepsMax
		j.PMcNemarClustered, j.Chi2Clustered = fptr(c.PMcNemarClustered), fptr(c.Paired.Chi2Clustered)
	}
	if b := c.Bounds; b != nil {
		j.ErrorBounds = newJSONErrBounds(b)
	}
	if c.CMH != nil {
		j.CMH = &jsonCMH{Chi2: c.CMH.Chi2, P: c.CMH.P, OddsRatio: fptr(c.CMH.OddsRatio), Strata: c.CMH.Strata}
	}
	p := c.Power
	j.Power = jsonPower{N: p.N, BaseFail: p.BaseFail, From: p.From, To: p.To, Tasks: p.G, Reps: p.Reps,
		Test: p.Test, Method: p.Method, Power: fptr(p.Power), PairShare: fptr(p.PairShare), RepShare: fptr(p.RepShare),
		PowerAtTasksFor: fptr(p.PowerAtTasksFor), ExactFisherUnpaired: fptr(p.ExactFisherUnpaired), PZero: fptr(p.PZero),
		HolmM: p.HolmM, MDEHolm: fptr(p.MDEHolm), PowerHolm: fptr(p.PowerHolm)}
	if p.TasksFor > 0 {
		n := p.TasksFor
		j.Power.TasksFor = &n
	}
	if p.MinRunsZero > 0 {
		n := p.MinRunsZero
		j.Power.MinRunsZero = &n
	}
	if p.MayOverstate() {
		j.Power.MayOverstateBy = fptr(analysis.PowerOverstatement)
	}
	return j
}

// fptr returns &x, or nil when x is NaN or ±Inf (JSON null).
func fptr(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

func nonNilMap(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

// newJSONErrBounds converts ErrorBounds.
func newJSONErrBounds(b *analysis.ErrorBounds) *jsonErrBounds {
	jb := func(r analysis.BoundResult) jsonBound { return jsonBound{Delta: r.Delta, DeltaCI: r.CI, P: r.P} }
	return &jsonErrBounds{Pairs: b.Pairs, AsFail: jb(b.AsFail), AsPass: jb(b.AsPass), AsFailBoth: jb(b.AsFailBoth)}
}
