package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"strings"

	"webbench/analysis"
	"webbench/results"
	"webbench/stats"
)

// PowerPlan writes bench power's primary-test plan p: the answer in one sentence (PlanConclusionText), the test, the baseline and outcome model, a table of the
// design with its power and MDE, and a table of the smallest designs reaching the target power (a reps count no
// design of at most p.MaxTasks tasks reaches is "> MaxTasks").
func PowerPlan(w io.Writer, p analysis.PrimaryPlan) error {
	d, b := p.Design, p.Baseline
	unit, units := analysis.UnitTask, "tasks"
	src := "mix " + b.Mix
	switch {
	case b.Dir != "" && b.Unit != "":
		unit, units = b.Unit, unitWord(2, b.Unit)
		src = fmt.Sprintf("per-%s rates of arm %s in %s (%d %s, %d tasks, shrunk toward the mean; the tasks of a %s "+
			"correlate within a rep at ICC %.2f, the ANOVA estimate of Donner & Klar, the plan's shared draw within a "+
			"%s's rep)", b.Unit, b.Arm, b.Dir, b.Units, units, b.Tasks, b.Unit, b.ICC, b.Unit)
	case b.Dir != "":
		src = fmt.Sprintf("per-task rates of arm %s in %s (%d tasks, shrunk toward the mean)", b.Arm, b.Dir, b.Tasks)
	}
	model := fmt.Sprintf("pairing %s (share %.2f)", d.Model, d.Share)
	if b.Unit != "" {
		model = fmt.Sprintf("pairing share %.2f across arms", d.Share)
	}
	fmt.Fprintf(w, "%s\n\n", strings.Join(wrap("Answer: "+PlanConclusionText(p), "", "  ", 116), "\n"))
	fmt.Fprintf(w, "Primary test: %s.\nBaseline: %s; %s; α = %.3g, target power %.3g.\n%s\n", analysis.PairedTestName(unit),
		src, model, p.Alpha, p.Target, strings.Join(wrap(pairingNote(p), "", "", 116), "\n"))
	if b.Widest > 0 && b.Widest < b.Attempts {
		fmt.Fprintf(w, "Arm %s played %d attempts and the run's other arms at most %d: they were compared on fewer "+
			"tasks (scope target), so this plan is for the full arm's %s, not for the pairs the run compared.\n",
			b.Arm, b.Attempts, b.Widest, units)
	}
	fmt.Fprintln(w)
	design := fmt.Sprintf("%d %s × %d reps", d.G(), units, d.Rep)
	if d.Reps != nil {
		design = fmt.Sprintf("%d %s × the run's reps (%d attempts per arm)", d.G(), units, d.Attempts())
	} else if b.Unit != "" {
		design = fmt.Sprintf("%d %s × %d reps per task (%d attempts per arm)", d.G(), units, d.Rep, d.Attempts())
	}
	t := results.Table{Header: []string{"quantity", "value"}}
	add := func(k, v string) { t.Rows = append(t.Rows, []string{k, v}) }
	add("design", design)
	add(fmt.Sprintf("power for Δ %+.1f pts (%s)", 100*p.Effect, p.Method), fmt.Sprintf("%.3f", p.Power))
	if math.IsNaN(p.MDE) {
		add(fmt.Sprintf("MDE (%.0f%% power)", 100*p.Target), "none reachable")
	} else {
		dir := "rise"
		if p.Effect < 0 {
			dir = "drop"
		}
		add(fmt.Sprintf("MDE at power %.2g (%s)", p.Target, dir), fmt.Sprintf("%.1f pts", 100*p.MDE))
	}
	if err := t.Render(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nSmallest designs reaching power %.2g for Δ %+.1f pts (%s with the same rate mix):\n", p.Target,
		100*p.Effect, units)
	head := []string{"reps R", "tasks G", "G × R attempts per arm", "power"}
	if b.Unit != "" {
		head = []string{"reps R (per task)", units + " C", "attempts per arm (the run's sizes)", "power"}
	}
	g := results.Table{Header: head}
	for _, r := range p.Unreachable {
		g.Rows = append(g.Rows, []string{fmt.Sprint(r), fmt.Sprintf("> %d", p.MaxTasks), "-", "-"})
	}
	over := 0
	for _, x := range p.Smallest {
		tasks := fmt.Sprint(x.Tasks)
		if n, _ := b.Bounds(); b.Unit == "" && n > 0 && x.Tasks > n {
			tasks += " *"
			over++
		}
		n := x.Tasks * x.Reps
		if b.Unit != "" {
			sd := analysis.ScaleTasks(d, x.Tasks)
			sd.Reps, sd.Rep = nil, x.Reps
			n = sd.Attempts()
		}
		g.Rows = append(g.Rows, []string{fmt.Sprint(x.Reps), tasks, fmt.Sprint(n), fmt.Sprintf("%.3f", x.Power)})
	}
	if err := g.Render(w); err != nil {
		return err
	}
	return suiteBound(w, p, over)
}

// suiteBound writes the footnote of a plan needing more tasks than its suite selection has (the design above, or
// over of the smallest designs, marked "*"); nothing when it fits or the suite's size is unknown. A plan by family is
// not held against the suite's task count.
func suiteBound(w io.Writer, p analysis.PrimaryPlan, over int) error {
	b := p.Baseline
	n, _ := b.Bounds()
	more := "more tasks than the selection has"
	if n < b.SuiteTasks {
		more = "more tasks than the selection has " + unitWord(2, cmp.Or(b.SuiteUnit, "cluster"))
	}
	switch {
	case b.Unit != "":
		return nil
	case n > 0 && p.Design.G() > n:
		_, err := fmt.Fprintf(w, "* and the design above: %s (%s; the answer says what to use)\n", more,
			selectionWords(b, n, 0))
		return err
	case over > 0:
		_, err := fmt.Fprintf(w, "*: %s (%s; the answer says what to use)\n", more, selectionWords(b, n, 0))
		return err
	}
	return nil
}

// pairingNote says in words what the plan's pairing assumes and, for a shared draw, what it is for (the scripted
// policy replays a seed) and the same design's figures without it: a real endpoint does not replay a seed —
// OpenAI documents `seed` as best effort, determinism not guaranteed (API reference, "seed"; cookbook
// "Reproducible outputs with the seed parameter", 2023) — and reruns of an agent at temperature 0 diverge within
// the first few percent of tokens, moving single-run pass@1 by 2.2 to 6.0 pts ("On Randomness
// in Agentic Evals", arXiv:2602.07150, SWE-bench Verified).
func pairingNote(p analysis.PrimaryPlan) string {
	d := p.Design
	switch d.Model {
	case analysis.ModelIndependent:
		why := "the choice for a real endpoint, which does not replay a seed"
		if p.Baseline.RealModel {
			why = "the default for a run of a real endpoint, which does not replay a seed"
		}
		return "Pairing independent: the arms of a pair share the task (its pass rate), not an outcome draw — " + why + "."
	case analysis.ModelSticky:
		return fmt.Sprintf("Pairing sticky: one arm's reps of a task share one outcome draw with probability %.2f.",
			d.Share) + independentFigures(p)
	}
	return fmt.Sprintf("Pairing same-seed: the two arms of a (task, rep) share one outcome draw with probability %.2f "+
		"(--share), as the scripted policy's seeded replay gives; a real endpoint does not replay a seed (OpenAI's "+
		"seed is best effort; reruns at temperature 0 diverge early), so plan one with --pairing independent.",
		d.Share) + independentFigures(p)
}

// independentFigures is the plan's design's power and MDE under independent pairing, as a sentence.
func independentFigures(p analysis.PrimaryPlan) string {
	if p.Independent == nil {
		return ""
	}
	mde := "no MDE reachable"
	if !math.IsNaN(p.Independent.MDE) {
		mde = fmt.Sprintf("MDE %.1f pts", 100*p.Independent.MDE)
	}
	return fmt.Sprintf(" Independent, this design has power %.3f for Δ %+.1f pts, %s.", p.Independent.Power,
		100*p.Effect, mde)
}

// UnpairedPlan writes bench power's unpaired (legacy) figures p as a quantity/value table: with a target the
// pairs (paired design) and runs per arm needed, rounded up after the unrounded figure, the exact power there and
// the runs for a clean arm; with n the exact power and the MDEs at n ("none reachable" for an unpaired MDE no
// effect reaches; a paired one is left out then).
func UnpairedPlan(w io.Writer, p analysis.UnpairedPlan) error {
	in := p.In
	t := results.Table{Header: []string{"quantity", "value"}}
	add := func(k, v string) { t.Rows = append(t.Rows, []string{k, v}) }
	add("alpha / power", fmt.Sprintf("%.3g / %.3g", in.Alpha, in.Power))
	add("baseline pass rate", fmt.Sprintf("%.3f", in.Base))
	if in.HasTarget {
		add("target pass rate", fmt.Sprintf("%.3f (effect %+.3f)", in.Target, in.Target-in.Base))
		if in.Paired {
			add("pairs needed (McNemar, Connor 1987)", fmt.Sprintf("%.1f → %d", p.PairsNeeded, int(math.Ceil(p.PairsNeeded))))
		}
		add("runs per arm (unpaired, normal approx.)", fmt.Sprintf("%.1f → %d", p.RunsPerArm, int(math.Ceil(p.RunsPerArm))))
		if p.ExactAt > 0 {
			add(fmt.Sprintf("exact power at %d per arm (one-sided Fisher)", p.ExactAt), fmt.Sprintf("%.3f", p.ExactPower))
		}
		if p.Clean {
			add("runs for a clean 0-failure arm to be significant", fmt.Sprintf("%d ((%.2f)^%d = %.4f)", p.CleanRuns,
				in.Base, p.CleanRuns, p.CleanProb))
		}
	}
	if in.N > 0 {
		if in.HasTarget {
			add(fmt.Sprintf("exact power at n=%d per arm", in.N), fmt.Sprintf("%.3f", p.PowerAtN))
		}
		if math.IsNaN(p.MDE) {
			add(fmt.Sprintf("MDE at n=%d per arm", in.N), "none reachable")
		} else {
			add(fmt.Sprintf("MDE at n=%d per arm (unpaired)", in.N), fmt.Sprintf("%.3f", p.MDE))
		}
		if !math.IsNaN(p.MDEPaired) {
			add(fmt.Sprintf("MDE at %d pairs, ψ=%.2f (McNemar)", in.N, in.Discordant), fmt.Sprintf("%.3f", p.MDEPaired))
		}
	}
	return t.Render(w)
}

// CostPowerPlan writes bench power's plan of a cost outcome (analysis.PlanCost): the test, the pilot it
// resampled, a table of the design with its power and MDE, and what the plan assumes.
func CostPowerPlan(w io.Writer, p analysis.CostPlan) error {
	fmt.Fprintf(w, "Cost outcome %s: the exact sign-flip test of the per-unit differences (two-sided), simulated "+
		"(%d runs).\nPilot: %s, variant %s against %s: %d units, %.1f pairs each; its own change %s divided out; "+
		"α = %.3g, target power %.3g.\n\n", p.Outcome, p.Runs, p.Dir, p.Variant, p.Baseline, p.PilotUnits, p.Reps,
		RatioPct(p.PilotRatio), p.Alpha, p.Target)
	t := results.Table{Header: []string{"quantity", "value"}}
	add := func(k, v string) { t.Rows = append(t.Rows, []string{k, v}) }
	add("design", fmt.Sprintf("%d units × the pilot's pairs per unit", p.G))
	add(fmt.Sprintf("power for a change of %s", RatioPct(1+p.Effect)), fmt.Sprintf("%.3f", p.Power))
	mde := "none up to the search's end"
	if !math.IsNaN(p.MDE) {
		mde = RatioPct(1 + p.MDE)
	}
	add(fmt.Sprintf("MDE (%.0f%% power)", 100*p.Target), mde)
	if err := t.Render(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nEach simulated run takes the pilot's units with the signs of their residuals flipped at random "+
		"(drawn with replacement for another number of units: --tasks N), so the plan holds for the pilot's reps "+
		"and pairing; with fewer than 6 units moving, the exact p cannot go below 2/2^moved (0.03 at 6).\n")
	fmt.Fprintln(w, costPlanAlphaNote(p))
	return nil
}

// costPlanAlphaNote says at which level the cost plan is, against the verdict's: α of one comparison, as the
// pass-rate plan; with K > 1 variants the verdict compares p_holm (Holm over the K, at most K·p) with α, so
// --alpha α/K plans for the verdict whatever the other variants show.
func costPlanAlphaNote(p analysis.CostPlan) string {
	s := fmt.Sprintf("The plan is at α = %s for one comparison, as the pass-rate plan is. ", stats.FmtP(p.Alpha))
	if p.HolmK <= 1 {
		return s + "The run has one variant, so its verdict's p_holm is its p: the same level."
	}
	return s + fmt.Sprintf("The run's verdicts compare p_holm, Holm's adjustment over its %d variants per outcome "+
		"(at most %d × p), with α: for the power of that verdict whatever the other variants show, plan with "+
		"--alpha %s (α/%d).", p.HolmK, p.HolmK, stats.FmtP(p.Alpha/float64(p.HolmK)), p.HolmK)
}
