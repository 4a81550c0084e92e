package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"webbench/analysis"
	"webbench/report"
	"webbench/results"
	"webbench/srcerr"
	"webbench/stats"
	"webbench/suites"
	"webbench/suites/zoo"
)

func init() { extraCommands = append(extraCommands, powerCmd) }

func powerCmd() *cobra.Command {
	var u analysis.UnpairedInputs
	var alpha, power float64
	var pf planFlags
	c := &cobra.Command{
		Use:   "power",
		Short: "Plan tasks × reps for the primary paired test; or the unpaired/McNemar sample size and MDE",
		Long: "With --tasks, --mix or --from: the power of the primary test (the paired task-level test the analysis\n" +
			"runs, stats.PairedDiff, simulated on the design) for G tasks × R reps, its MDE, and the smallest G × R\n" +
			"combinations that reach --power. The effect is a change in mean pass rate, a drop by default\n" +
			"(--effect -0.1: an ablation looks for harm), spread over tasks proportionally (analysis.ShiftRates).\n" +
			"--pairing same-seed (arms of a (task, rep) share one outcome draw with probability --share: the scripted\n" +
			"policy replays its seed), independent (arms share only the task's rate: a real endpoint, which replays no\n" +
			"seed; the default with --from a run of a real model), or sticky (one arm's reps of a task share one draw\n" +
			"with probability --share). The output says which, and gives the design's figures at independent too.\n\n" +
			"Unpaired figures (legacy): rates are pass rates in [0,1]. With --target: the runs per arm needed to detect\n" +
			"base→target (normal approximation) and the exact one-sided Fisher power at that N; with --paired and\n" +
			"--discordant ψ the number of pairs (McNemar, Connor 1987). With --n: the MDE at that N.",
		Example: "  bench power --tasks 40 --reps 5 --mix seeds --pairing same-seed   # primary test, the built-in mix\n" +
			"  bench power --from runs/demo --pairing same-seed                   # baseline rates of a run\n" +
			"  bench power --from runs/demo --outcome tokens --effect 0.15        # a 15% token increase, from the run's spread\n" +
			"  bench power --tasks 12 --reps 2 --mix 0.4:1,0.2:0,0.4:0.2-0.9 --effect -0.15\n" +
			"  bench power --base 0.82 --target 1.0           # unpaired: runs per arm for 82%→100%\n" +
			"  bench power --paired --discordant 0.2 --base 0.8 --target 0.9",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			pf.pairingSet, pf.suiteSet = c.Flags().Changed("pairing"), c.Flags().Changed("suite")
			if pf.mix == deprecatedMix {
				fmt.Fprintf(c.ErrOrStderr(), "bench power: --mix %s is deprecated: it is --mix %s now (the same mix)\n",
					deprecatedMix, analysis.SeedsMix)
				pf.mix = analysis.SeedsMix
			}
			pf.suiteOptsSet = c.Flags().Changed("suite-option")
			if alpha <= 0 || alpha >= 1 || power <= 0 || power >= 1 {
				return usageErr("--alpha and --power must be in (0,1)")
			}
			if err := checkPowerModes(c); err != nil {
				return err
			}
			if pf.sequential {
				return planSequential(c, pf, alpha)
			}
			if pf.outcome != "" {
				if !c.Flags().Changed("effect") {
					pf.effect = 0.15
				}
				return planCost(c, pf, alpha, power)
			}
			if pf.tasks > 0 || pf.mix != "" || pf.from != "" || c.Flags().Changed("tasks") || c.Flags().Changed("reps") {
				return planPrimary(c, pf, alpha, power)
			}
			if u.Base < 0 || u.Base > 1 || u.Target < 0 || u.Target > 1 {
				return usageErr("--base and --target are pass rates in [0,1]")
			}
			u.HasTarget = c.Flags().Changed("target")
			if u.HasTarget && u.Target == u.Base {
				return usageErr("--base and --target are both %v: there is no effect to detect; give a --target other than --base", u.Base)
			}
			if !u.HasTarget && u.N <= 0 {
				return usageErr("give --target (for a sample size) or --n (for the MDE)")
			}
			u.Alpha, u.Power = alpha, power
			return unpairedFigures(c, u)
		},
	}
	c.Flags().Float64Var(&u.Base, "base", 0.8, "baseline pass rate")
	c.Flags().Float64Var(&u.Target, "target", 0, "variant pass rate to detect")
	c.Flags().Float64Var(&alpha, "alpha", 0.05, "significance level")
	c.Flags().Float64Var(&power, "power", 0.8, "power")
	c.Flags().IntVar(&u.N, "n", 0, "runs per arm (or pairs) → MDE")
	c.Flags().BoolVar(&u.Paired, "paired", false, "paired design (McNemar)")
	c.Flags().Float64Var(&u.Discordant, "discordant", 0, "expected share of discordant pairs ψ for the paired design")
	addPlanFlags(c, &pf)
	return c
}

// deprecatedMix is the former name of analysis.SeedsMix, still accepted (with a notice on stderr) so that
// scripts written with it keep working; --help names only the new one.
const deprecatedMix = "issue"

// plannerFlags are bench power's primary-test planner flags and unpairedFlags its unpaired (legacy) ones: the two
// modes cannot be mixed.
var (
	plannerFlags = []string{"tasks", "reps", "mix", "from", "pairing", "share", "suite", "suite-option", "effect", "outcome", "sequential",
		"variants", "min-effect", "sims", "seed"}
	unpairedFlags = []string{"base", "target", "n", "paired", "discordant"}
	// sequentialFlags are the planner flags only --sequential reads.
	sequentialFlags = []string{"variants", "min-effect", "sims", "seed"}
)

// checkPowerModes refuses flags of both bench power modes on one command line (a usage error naming them), flags of
// --sequential without it, and a --tasks or --reps below 1 given explicitly.
func checkPowerModes(c *cobra.Command) error {
	changed := func(names []string) []string {
		return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !c.Flags().Changed(n) })
	}
	p, u := changed(plannerFlags), changed(unpairedFlags)
	if len(p) > 0 && len(u) > 0 {
		return usageErr("--%s (primary-test planner) and --%s (unpaired figures) belong to different modes of bench power: give one mode's flags",
			strings.Join(p, ", --"), strings.Join(u, ", --"))
	}
	if seq, _ := c.Flags().GetBool("sequential"); !seq {
		for _, n := range sequentialFlags {
			if c.Flags().Changed(n) {
				return usageErr("--%s belongs to --sequential", n)
			}
		}
	}
	for _, n := range []string{"tasks", "reps"} {
		if v, _ := c.Flags().GetInt(n); c.Flags().Changed(n) && v < 1 {
			return usageErr("--%s %d: must be at least 1", n, v)
		}
	}
	return nil
}

// planFlags are the inputs of the primary-test planner.
type planFlags struct {
	tasks, reps                 int
	mix, from, variant, pairing string
	// pairingSet, suiteSet and suiteOptsSet are --pairing, --suite and --suite-option given; suite, suiteOpts
	// and taskFilter (the --from run's task globs) the selection whose task count bounds the plan.
	pairingSet, suiteSet, suiteOptsSet bool
	suite, taskFilter                  string
	suiteOpts                          suites.Options
	outcome                            string
	share, effect                      float64
	// The sequential planner's (--sequential).
	sequential     bool
	variants, sims int
	minEffect      float64
	seed           uint64
}

// addPlanFlags registers the primary-test planner's flags on c.
func addPlanFlags(c *cobra.Command, pf *planFlags) {
	c.Flags().IntVar(&pf.tasks, "tasks", 0, "number of tasks G (primary test; default: the run's with --from, else 40)")
	c.Flags().IntVar(&pf.reps, "reps", 0, "reps per task R (primary test; default: the run's with --from, else 1)")
	c.Flags().StringVar(&pf.mix, "mix", "", "baseline pass-rate mix: "+analysis.SeedsMix+
		" (the mix the calibration and the seed write-ups use: 40 % of tasks always pass, 20 % always fail, 40 % "+
		"uniform in 0.2-0.9; the default) | W:RATE,W:LO-HI,… | a list of per-task rates")
	c.Flags().StringVar(&pf.from, "from", "", "take the per-task baseline rates (and G, R) from RUN_DIR's baseline arm (per family, with their sizes and ICC, when its tasks share families)")
	c.Flags().StringVar(&pf.variant, "variant", "", "with --from: the arm whose per-task rates to take (default: the run's baseline (manifest), else the first); "+
		"with --outcome: the variant whose cost to compare with the run's baseline (default: the run's first variant, in its spec's order, with judged pairs)")
	c.Flags().StringVar(&pf.pairing, "pairing", "same-seed", "outcome model: same-seed | independent | sticky")
	c.Flags().Float64Var(&pf.share, "share", 0.8, "shared-draw probability of --pairing same-seed or sticky")
	c.Flags().StringVar(&pf.suite, "suite", "", "the suite planned for, whose task count the plan is held against "+
		"(default: the run's with --from, else zoo; - for none)")
	c.Flags().StringToStringVar((*map[string]string)(&pf.suiteOpts), "suite-option", nil, "option of the suite planned "+
		"for, key=value, repeatable (default: the run's with --from; zoo: instances=all counts every family instance)")
	c.Flags().Float64Var(&pf.effect, "effect", -0.1, "change in mean pass rate to detect (negative: a drop); with --outcome, the relative change in cost (0.15 unless given: 15% more)")
	c.Flags().StringVar(&pf.outcome, "outcome", "", "with --from: plan a cost outcome's comparison instead ("+results.CostOutcomeList()+") from the run's per-unit spread")
	c.Flags().BoolVar(&pf.sequential, "sequential", false, "plan a sequential ablation: expected and maximum attempts against the fixed design's, by simulation")
	c.Flags().IntVar(&pf.variants, "variants", 1, "with --sequential: variants monitored together (each at --effect; Holm across them)")
	c.Flags().Float64Var(&pf.minEffect, "min-effect", 0.1, "with --sequential: futility margin (0.1 = stop a variant once a drop of 10 pts or more is excluded; the default, as a spec's min_effect); 0: off")
	c.Flags().IntVar(&pf.sims, "sims", analysis.SeqPlanSims, "with --sequential: simulated runs")
	c.Flags().Uint64Var(&pf.seed, "seed", analysis.SeqPlanSeed, "with --sequential: PCG seed of the simulation")
}

// planDesign builds the planner's design from the flags (analysis.PlanDesign) and says where its baseline rates
// come from.
func planDesign(pf planFlags) (analysis.Design, analysis.PlanBaseline, error) {
	d := analysis.Design{Share: pf.share}
	var src analysis.PlanBaseline
	switch pf.pairing {
	case "same-seed", "same_seed":
		d.Model = analysis.ModelSameSeed
	case "independent":
		d.Model = analysis.ModelIndependent
	case "sticky":
		d.Model = analysis.ModelSticky
	default:
		return d, src, usageErr("--pairing: %v", srcerr.OneOf("pairing", pf.pairing, []string{"same-seed", "independent", "sticky"}))
	}
	if pf.share < 0 || pf.share > 1 {
		return d, src, usageErr("--share must be in [0,1]")
	}
	switch {
	case pf.from != "" && pf.mix != "":
		return d, src, usageErr("give --from or --mix, not both")
	case pf.from != "":
		run, err := results.Open(pf.from)
		if err != nil {
			return d, src, usageErr("--from: %v", err)
		}
		src = analysis.PlanBaseline{Arm: cmp.Or(pf.variant, run.Manifest.Plan.Baseline), Dir: pf.from}
		for _, v := range run.Manifest.Plan.Variants {
			if v.Name == src.Arm {
				src.RealModel = v.Model.Kind == "openai"
			}
		}
		if src.RealModel && !pf.pairingSet {
			// A real endpoint does not replay a seed: no shared draw to count on (report.pairingNote).
			d.Model, d.Share = analysis.ModelIndependent, 0
		}
		if pf.suite == "" {
			pf.suite, pf.taskFilter = run.Manifest.Plan.Suite, run.Manifest.Plan.TaskFilter
			if !pf.suiteOptsSet {
				pf.suiteOpts = run.Manifest.Plan.SuiteOptions
			}
		}
		recs := run.Final()
		_, d.Rates, d.Reps = analysis.ArmRates(recs, src.Arm)
		if len(d.Rates) == 0 {
			return d, src, usageErr("--from %s: arm %q has no judged attempt", pf.from, src.Arm)
		}
		src.Tasks = len(d.Rates)
		if u, ok := analysis.ArmClusters(recs, src.Arm); ok {
			// The primary test flips the clusters' sums: plan over them (the family as the unit).
			d = analysis.FamilyDesign(d, u)
			src.Unit, src.Units, src.ICC = cmp.Or(run.Manifest.Plan.ClusterUnit, "cluster"), len(u.Units), u.ICC
		}
		src.Attempts, src.Widest = analysis.ArmAttempts(recs, src.Arm)
	default:
		src.Mix = cmp.Or(pf.mix, analysis.SeedsMix)
		mix, rates, err := analysis.ParseMix(src.Mix)
		if err != nil {
			return d, src, usageErr("%v", err)
		}
		d.Mix, d.Rates = mix, rates
	}
	if src.Suite = cmp.Or(pf.suite, "zoo"); src.Suite != "-" {
		if err := suiteBounds(&src, pf); err != nil {
			return d, src, err
		}
	} else if pf.suiteOptsSet {
		return d, src, usageErr("--suite-option: --suite - plans no suite to take it; name the suite or leave out --suite-option")
	}
	return analysis.PlanDesign(d, pf.tasks, pf.reps), src, nil
}

// suiteBounds counts the tasks and clusters of the plan's suite selection in force (its options, and the task
// globs of the --from run), and of the wider selection "instances=all" when the suite is the Zoo without it. A
// run's suite that no longer opens (another machine's tasks_file) only loses the bound; --suite and
// --suite-option must open.
func suiteBounds(src *analysis.PlanBaseline, pf planFlags) error {
	// A --from run's task globs bound the plan (a family of tasks the user chose); a plain list of task ids does
	// not: it names what was run, and a plan beyond it adds tasks of the same suite selection.
	filter := pf.taskFilter
	if !strings.ContainsAny(filter, "*?[") {
		filter = ""
	}
	count := func(opts suites.Options) (tasks, units int, err error) {
		st, err := suites.Open(src.Suite, opts)
		if err != nil {
			return 0, 0, err
		}
		defer st.Close()
		ts, err := suites.Filter(st.Tasks(), filter)
		if err != nil {
			return 0, 0, err
		}
		seen := map[string]bool{}
		for _, t := range ts {
			seen[cmp.Or(t.Cluster, t.ID)] = true
		}
		return len(ts), len(seen), nil
	}
	var err error
	src.SuiteTasks, src.SuiteUnits, err = count(pf.suiteOpts)
	src.SuiteUnit = suites.ClusterUnit(src.Suite)
	switch {
	case err != nil && pf.suiteOptsSet && slices.Contains(suites.Names(), src.Suite):
		// The options the user gave are what the suite refused: a bound they asked for is never dropped.
		return usageErr("--suite-option: %v", err)
	case err != nil && pf.suiteSet:
		return usageErr("--suite: %v", err)
	case err != nil:
		return nil
	}
	var sel []string
	for _, k := range slices.Sorted(maps.Keys(pf.suiteOpts)) {
		sel = append(sel, k+"="+pf.suiteOpts[k])
	}
	if filter != "" {
		sel = append(sel, "tasks "+filter)
	}
	src.Selection = strings.Join(sel, ", ")
	// The Zoo's families have more instances than its hand-written tasks (docs/ZOO.md "Task families").
	if src.Suite == "zoo" && pf.suiteOpts["instances"] != zoo.SelectAll && pf.suiteOpts["mix"] == "" {
		wider := maps.Clone(pf.suiteOpts)
		if wider == nil {
			wider = suites.Options{}
		}
		wider["instances"] = zoo.SelectAll
		if n, u, err := count(wider); err == nil && n > src.SuiteTasks {
			src.Wider, src.WiderTasks, src.WiderUnits = "instances="+zoo.SelectAll, n, u
		}
	}
	return nil
}

// planPrimary prints the primary test's power and MDE for the planned design and the smallest tasks × reps
// reaching the target power (analysis.PlanPrimary, report.PowerPlan).
func planPrimary(c *cobra.Command, pf planFlags, alpha, power float64) error {
	d, src, err := planDesign(pf)
	if err != nil {
		return err
	}
	if pf.effect == 0 || pf.effect <= -1 || pf.effect >= 1 {
		return usageErr("--effect must be a non-zero change in pass rate in (-1, 1)")
	}
	return report.PowerPlan(c.OutOrStdout(), analysis.PlanPrimary(d, src, pf.effect, alpha, power))
}

// planCost prints the power and MDE of a cost outcome's comparison (analysis.PlanCost) from the per-unit means
// of a run's variant against its baseline (--from, --variant), at --tasks units (default: the run's).
func planCost(c *cobra.Command, pf planFlags, alpha, power float64) error {
	o := results.CostOutcome(pf.outcome)
	if err := results.CheckCostOutcome(o); err != nil {
		return usageErr("--outcome: %v", err)
	}
	if pf.from == "" {
		return usageErr("--outcome needs --from RUN_DIR: the plan resamples that run's per-unit costs")
	}
	if c.Flags().Changed("reps") || c.Flags().Changed("mix") || c.Flags().Changed("pairing") || c.Flags().Changed("share") {
		return usageErr("--outcome plans from the run's own pairs (its reps and pairing): --reps, --mix, --pairing and --share do not apply")
	}
	if pf.effect == 0 || pf.effect <= -1 {
		return usageErr("--effect %v: with --outcome, a non-zero relative change above -1 (0.15: 15%% more)", pf.effect)
	}
	run, err := results.Open(pf.from)
	if err != nil {
		return usageErr("--from: %v", err)
	}
	base := run.Manifest.Plan.Baseline
	if err := checkCostVariant(pf, run.Manifest.Plan); err != nil {
		return err
	}
	candidates := run.Manifest.Plan.VariantNames()
	if pf.variant != "" {
		candidates = []string{pf.variant}
	}
	units, v := analysis.PilotUnits(run.Final(), base, candidates, o)
	if v == "" {
		who := "no variant has a"
		if pf.variant != "" {
			who = "variant " + pf.variant + " has no"
		}
		return usageErr("--from %s: %s judged pair with the baseline %q whose records hold %s, to plan from "+
			"(records written before an outcome was recorded do not hold it)", pf.from, who, base, o)
	}
	plan, err := analysis.PlanCost(units, pf.tasks, pf.effect, alpha, power, 1)
	if err != nil {
		return usageErr("--from %s (variant %q against %q): %v", pf.from, v, base, err)
	}
	plan.Outcome, plan.Dir, plan.Baseline, plan.Variant = o, pf.from, base, v
	plan.HolmK = analysis.HolmFamily(run.Manifest.Plan)
	return report.CostPowerPlan(c.OutOrStdout(), plan)
}

// checkCostVariant refuses a --variant the cost plan cannot take from the run of plan p: an arm the run does not
// have (naming those it has), or its baseline, which is the side every variant is compared with.
func checkCostVariant(pf planFlags, p results.Plan) error {
	if pf.variant == "" {
		return nil
	}
	var others []string
	known := false
	for _, v := range p.Variants {
		known = known || v.Name == pf.variant
		if v.Name != p.Baseline {
			others = append(others, v.Name)
		}
	}
	switch {
	case pf.variant == p.Baseline:
		return usageErr("--variant %s: that is the run's baseline, the side the cost plan compares a variant "+
			"with; give one of its variants: %s", pf.variant, strings.Join(others, ", "))
	case !known:
		return usageErr("--variant %s: %s has no such arm; its variants: %s (baseline %s)", pf.variant, pf.from,
			strings.Join(others, ", "), p.Baseline)
	}
	return nil
}

// planSequential prints the sequential plan (analysis.PlanSequential, report.SeqPowerPlan): the expected and maximum
// attempts of the design monitored after every unit against the fixed design's. It refuses what it cannot honour:
// a cost outcome (the sequential test is of pass rates), --power (the plan gives the power, it does not solve for
// it), and out-of-range variants, margin, effect or runs.
func planSequential(c *cobra.Command, pf planFlags, alpha float64) error {
	switch {
	case pf.outcome != "":
		return usageErr("--sequential plans the pass-rate comparison; --outcome (a cost outcome) has no sequential test")
	case c.Flags().Changed("power"):
		return usageErr("--sequential reports the power of the design it is given; --power (a target to solve for) does not apply")
	case pf.variants < 1:
		return usageErr("--variants %d: must be at least 1", pf.variants)
	case pf.minEffect < 0 || pf.minEffect >= 1:
		return usageErr("--min-effect %v: must be in [0, 1)", pf.minEffect)
	case pf.effect <= -1 || pf.effect >= 1:
		return usageErr("--effect %v: a change in pass rate in (-1, 1) (0: A/A)", pf.effect)
	case pf.sims < 1:
		return usageErr("--sims %d: must be at least 1", pf.sims)
	}
	d, src, err := planDesign(pf)
	if err != nil {
		return err
	}
	seq := stats.SeqDesign{Alpha: alpha, MinEffect: pf.minEffect, Variants: pf.variants}
	return report.SeqPowerPlan(c.OutOrStdout(), analysis.PlanSequential(d, src, seq, pf.effect, pf.sims, pf.seed))
}
