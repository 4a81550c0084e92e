package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"webbench/analysis"
	"webbench/results"
)

func init() { extraCommands = append(extraCommands, powerCmd) }

func powerCmd() *cobra.Command {
	var u unpairedOpts
	var alpha, power float64
	var pf planFlags
	c := &cobra.Command{
		Use:   "power",
		Short: "Plan tasks × reps for the primary paired test; or the unpaired/McNemar sample size and MDE",
		Long: "With --tasks, --mix or --from: the power of the primary test (the paired task-level test the analysis\n" +
			"runs, stats.PairedDiff, simulated on the design) for G tasks × R reps, its MDE, and the smallest G × R\n" +
			"combinations that reach --power. The effect is a change in mean pass rate, a drop by default\n" +
			"(--effect -0.1: an ablation looks for harm), spread over tasks proportionally (analysis.ShiftRates).\n" +
			"--pairing same-seed (arms of a (task, rep) share one outcome draw with probability --share), independent,\n" +
			"or sticky (one arm's reps of a task share one draw with probability --share).\n\n" +
			"Unpaired figures (legacy): rates are pass rates in [0,1]. With --target: the runs per arm needed to detect\n" +
			"base→target (normal approximation) and the exact one-sided Fisher power at that N; with --paired and\n" +
			"--discordant ψ the number of pairs (McNemar, Connor 1987). With --n: the MDE at that N.",
		Example: "  bench power --tasks 40 --reps 5 --mix issue --pairing same-seed   # primary test, issue 11's mix\n" +
			"  bench power --from runs/demo --pairing same-seed                   # baseline rates of a run\n" +
			"  bench power --tasks 12 --reps 2 --mix 0.4:1,0.2:0,0.4:0.2-0.9 --effect -0.15\n" +
			"  bench power --base 0.82 --target 1.0           # unpaired: runs per arm for 82%→100%\n" +
			"  bench power --paired --discordant 0.2 --base 0.8 --target 0.9",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if alpha <= 0 || alpha >= 1 || power <= 0 || power >= 1 {
				return usageErr("--alpha and --power must be in (0,1)")
			}
			if err := checkPowerModes(c); err != nil {
				return err
			}
			if pf.tasks > 0 || pf.mix != "" || pf.from != "" || c.Flags().Changed("tasks") || c.Flags().Changed("reps") {
				return planPrimary(c, pf, alpha, power)
			}
			if u.base < 0 || u.base > 1 || u.target < -1 || u.target > 1 {
				return usageErr("--base and --target are pass rates in [0,1]")
			}
			hasTarget := c.Flags().Changed("target")
			if hasTarget && u.target == u.base {
				return usageErr("--base and --target are both %v: there is no effect to detect; give a --target other than --base", u.base)
			}
			if !hasTarget && u.n <= 0 {
				return usageErr("give --target (for a sample size) or --n (for the MDE)")
			}
			u.alpha, u.power = alpha, power
			return unpairedFigures(c, u, hasTarget)
		},
	}
	c.Flags().Float64Var(&u.base, "base", 0.8, "baseline pass rate")
	c.Flags().Float64Var(&u.target, "target", 0, "variant pass rate to detect")
	c.Flags().Float64Var(&alpha, "alpha", 0.05, "significance level")
	c.Flags().Float64Var(&power, "power", 0.8, "power")
	c.Flags().IntVar(&u.n, "n", 0, "runs per arm (or pairs) → MDE")
	c.Flags().BoolVar(&u.paired, "paired", false, "paired design (McNemar)")
	c.Flags().Float64Var(&u.psi, "discordant", 0, "expected share of discordant pairs ψ for the paired design")
	addPlanFlags(c, &pf)
	return c
}

// plannerFlags are bench power's primary-test planner flags and unpairedFlags its unpaired (legacy) ones: the two
// modes cannot be mixed.
var (
	plannerFlags  = []string{"tasks", "reps", "mix", "from", "pairing", "share", "effect"}
	unpairedFlags = []string{"base", "target", "n", "paired", "discordant"}
)

// checkPowerModes refuses flags of both bench power modes on one command line (a usage error naming them) and a
// --tasks or --reps below 1 given explicitly.
func checkPowerModes(c *cobra.Command) error {
	changed := func(names []string) []string {
		return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !c.Flags().Changed(n) })
	}
	p, u := changed(plannerFlags), changed(unpairedFlags)
	if len(p) > 0 && len(u) > 0 {
		return usageErr("--%s (primary-test planner) and --%s (unpaired figures) belong to different modes of bench power: give one mode's flags",
			strings.Join(p, ", --"), strings.Join(u, ", --"))
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
	share, effect               float64
}

// addPlanFlags registers the primary-test planner's flags on c.
func addPlanFlags(c *cobra.Command, pf *planFlags) {
	c.Flags().IntVar(&pf.tasks, "tasks", 0, "number of tasks G (primary test; default: the run's with --from, else 40)")
	c.Flags().IntVar(&pf.reps, "reps", 0, "reps per task R (primary test; default: the run's with --from, else 1)")
	c.Flags().StringVar(&pf.mix, "mix", "", "baseline pass-rate mix: issue | W:RATE,W:LO-HI,… | a list of per-task rates")
	c.Flags().StringVar(&pf.from, "from", "", "take the per-task baseline rates (and G, R) from RUN_DIR's baseline arm")
	c.Flags().StringVar(&pf.variant, "variant", "", "with --from: the arm to take (default: the run's baseline (manifest), else the first)")
	c.Flags().StringVar(&pf.pairing, "pairing", "same-seed", "outcome model: same-seed | independent | sticky")
	c.Flags().Float64Var(&pf.share, "share", 0.8, "shared-draw probability of --pairing same-seed or sticky")
	c.Flags().Float64Var(&pf.effect, "effect", -0.1, "change in mean pass rate to detect (negative: a drop)")
}

// planDesign builds the planner's design from the flags.
func planDesign(pf planFlags) (analysis.Design, string, error) {
	d := analysis.Design{Share: pf.share}
	switch pf.pairing {
	case "same-seed", "same_seed":
		d.Model = analysis.ModelSameSeed
	case "independent":
		d.Model = analysis.ModelIndependent
	case "sticky":
		d.Model = analysis.ModelSticky
	default:
		return d, "", usageErr("--pairing %q: expected same-seed, independent or sticky", pf.pairing)
	}
	if pf.share < 0 || pf.share > 1 {
		return d, "", usageErr("--share must be in [0,1]")
	}
	g, r := pf.tasks, pf.reps
	var src string
	switch {
	case pf.from != "" && pf.mix != "":
		return d, "", usageErr("give --from or --mix, not both")
	case pf.from != "":
		run, err := results.Open(pf.from)
		if err != nil {
			return d, "", usageErr("--from: %v", err)
		}
		recs := run.Final()
		arm := pf.variant
		if arm == "" {
			arm = run.Manifest.Plan.Baseline
		}
		_, rates, reps := analysis.ArmRates(recs, arm)
		if len(rates) == 0 {
			return d, "", usageErr("--from %s: arm %q has no judged attempt", pf.from, arm)
		}
		d.Rates = rates
		if r <= 0 {
			d.Reps = reps
		}
		src = fmt.Sprintf("per-task rates of arm %s in %s (%d tasks, shrunk toward the mean)", arm, pf.from, len(rates))
	default:
		if pf.mix == "" {
			pf.mix = "issue"
		}
		mix, rates, err := analysis.ParseMix(pf.mix)
		if err != nil {
			return d, "", usageErr("%v", err)
		}
		d.Mix, d.Rates = mix, rates
		src = "mix " + pf.mix
	}
	if g <= 0 {
		g = max(len(d.Rates), 40*btoi(d.Mix != nil))
	}
	if r <= 0 {
		r = 1
	}
	d.Rep = r
	if d.Mix != nil {
		d.Tasks = g
	} else if g != len(d.Rates) || d.Reps == nil {
		d = analysis.ScaleTasks(d, g)
		d.Reps = nil
	}
	return d, src, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// planPrimary prints the primary test's power and MDE for the planned design and the smallest tasks × reps
// reaching the target power.
func planPrimary(c *cobra.Command, pf planFlags, alpha, power float64) error {
	d, src, err := planDesign(pf)
	if err != nil {
		return err
	}
	if pf.effect == 0 || pf.effect <= -1 || pf.effect >= 1 {
		return usageErr("--effect must be a non-zero change in pass rate in (-1, 1)")
	}
	out := c.OutOrStdout()
	fmt.Fprintf(out, "Primary test: %s.\nBaseline: %s; pairing %s (share %.2f); α = %.3g, target power %.3g.\n\n",
		analysis.PrimaryTestName, src, d.Model, d.Share, alpha, power)
	design := fmt.Sprintf("%d tasks × %d reps", d.G(), d.Rep)
	if d.Reps != nil {
		n := 0
		for _, r := range d.Reps {
			n += r
		}
		design = fmt.Sprintf("%d tasks × the run's reps (%d attempts per arm)", d.G(), n)
	}
	pw, method := analysis.PowerPrimary(d, pf.effect, alpha)
	mde := analysis.MDEPrimary(d, alpha, power, pf.effect < 0)
	t := results.Table{Header: []string{"quantity", "value"}}
	add := func(k, v string) { t.Rows = append(t.Rows, []string{k, v}) }
	add("design", design)
	add(fmt.Sprintf("power for Δ %+.1f pts (%s)", 100*pf.effect, method), fmt.Sprintf("%.3f", pw))
	if math.IsNaN(mde) {
		add("MDE (80% power)", "none reachable")
	} else {
		add(fmt.Sprintf("MDE at power %.2g (%s)", power, dirWord(pf.effect)), fmt.Sprintf("%.1f pts", 100*mde))
	}
	if err := t.Render(out); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nSmallest designs reaching power %.2g for Δ %+.1f pts (tasks with the same rate mix):\n", power, 100*pf.effect)
	g := results.Table{Header: []string{"reps R", "tasks G", "G × R attempts per arm", "power"}}
	found, unreachable := analysis.SmallestDesigns(d, pf.effect, alpha, power, 2000)
	for _, r := range unreachable {
		g.Rows = append(g.Rows, []string{fmt.Sprint(r), "> 2000", "-", "-"})
	}
	for _, x := range found {
		g.Rows = append(g.Rows, []string{fmt.Sprint(x.Reps), fmt.Sprint(x.Tasks), fmt.Sprint(x.Tasks * x.Reps), fmt.Sprintf("%.3f", x.Power)})
	}
	return g.Render(out)
}

func dirWord(effect float64) string {
	if effect < 0 {
		return "drop"
	}
	return "rise"
}
