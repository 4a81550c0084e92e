package report

// The one sentence bench power leads with: the planned design's power and what to do about it
// (analysis.PrimaryPlan.Conclusion), for the primary planner, the plan by family and the sequential planner.

import (
	"cmp"
	"fmt"
	"strings"

	"webbench/analysis"
)

// PlanConclusionText words p's conclusion in one sentence the reader can act on: "40 tasks × 2 reps: power
// 0.568 for a 10.0-pt drop — not enough; 62 tasks × 2 reps reach 0.80, but suite zoo has 40 tasks, 535 with
// --suite-option instances=all: use 27 tasks × 5 reps (power 0.823), or --suite-option instances=all with 118
// tasks × 1 rep." The planned reps are kept when a design at them fits the selection; a design that reaches
// the target with more units than the selection has is "enough, but more tasks than the selection has". A plan
// by cluster counts clusters ("31 families × 2 reps per task").
func PlanConclusionText(p analysis.PrimaryPlan) string {
	c := p.Conclusion()
	design := planDesignWords(p, p.Design.G(), p.Design.Rep)
	if p.Design.Reps != nil {
		design = fmt.Sprintf("%s × the run's reps", unitCount(p.Design.G(), planUnitOne(p)))
	}
	head := fmt.Sprintf("%s: power %.3f for %s", design, p.Power, effectWords(p.Effect))
	target := fmt.Sprintf("%.2f", p.Target)
	switch c.Kind {
	case analysis.AdviceEnough:
		return head + " — enough (target " + target + ")."
	case analysis.AdviceUnreachable:
		return fmt.Sprintf("%s — not enough, and no design of up to %d %s reaches %s at up to 10 reps: plan for a "+
			"larger effect (--effect), or a suite whose tasks vary less.", head, p.MaxTasks, planUnits(p), target)
	}
	var b strings.Builder
	if c.Reaches {
		b.WriteString(head + " — enough, but more " + planUnits(p) + " than the selection has")
	} else {
		b.WriteString(head + " — not enough")
	}
	if c.Same != nil && !c.Reaches {
		fmt.Fprintf(&b, "; %s reach %s", planDesignWords(p, c.Same.Tasks, c.Same.Reps), target)
	}
	bound := suiteWords(p, c)
	but := func(s string) string { // a design that reaches the target already said "but more than …"
		if c.Reaches {
			return " (" + s + ")"
		}
		return ", but " + s
	}
	switch {
	case c.Kind == analysis.AdviceUse && c.Use == c.Same:
		if bound != "" {
			b.WriteString(" (" + bound + ")")
		}
		fmt.Fprintf(&b, ": use %s", planDesignWords(p, c.Use.Tasks, c.Use.Reps))
	case c.Kind == analysis.AdviceUse:
		if bound != "" {
			b.WriteString(but(bound))
		}
		fmt.Fprintf(&b, ": use %s (power %.3f)", planDesignWords(p, c.Use.Tasks, c.Use.Reps), c.Use.Power)
	case c.Kind == analysis.AdviceWider:
		fmt.Fprintf(&b, "%s: use --suite-option %s with %s", but(bound), p.Baseline.Wider,
			planDesignWords(p, c.Wider.Tasks, c.Wider.Reps))
	default:
		fmt.Fprintf(&b, "%s, and no design within them reaches %s at up to 10 reps: use a suite with more "+
			"%s, or plan for a larger effect (--effect)", but(bound), target, planUnits(p))
	}
	if c.Kind == analysis.AdviceUse && c.Wider != nil {
		fmt.Fprintf(&b, ", or --suite-option %s with %s", p.Baseline.Wider, planDesignWords(p, c.Wider.Tasks, c.Wider.Reps))
	}
	return b.String() + "."
}

// planUnits is the plural of what a plan counts: "tasks", or its clusters ("families").
func planUnits(p analysis.PrimaryPlan) string { return unitWord(2, planUnitOne(p)) }

// planUnitOne is the singular of what a plan counts: "task", or its cluster noun.
func planUnitOne(p analysis.PrimaryPlan) string { return cmp.Or(p.Baseline.Unit, "task") }

// planDesignWords words n units × reps: "104 tasks × 2 reps", "31 families × 2 reps per task".
func planDesignWords(p analysis.PrimaryPlan, n, reps int) string {
	u := planUnitOne(p)
	per := ""
	if p.Baseline.Unit != "" {
		per = " per task"
	}
	return fmt.Sprintf("%s × %s%s", unitCount(n, u), unitCount(reps, "rep"), per)
}

// effectWords words a planned change in pass rate: "a 10.0-pt drop", "a 5.0-pt rise".
func effectWords(e float64) string {
	if e < 0 {
		return fmt.Sprintf("a %.1f-pt drop", -100*e)
	}
	return fmt.Sprintf("a %.1f-pt rise", 100*e)
}

// suiteWords says how many units the plan's suite selection has, with the wider selection's count: "suite zoo
// has 40 tasks (320 with --suite-option instances=all)"; "" when the suite's size is unknown.
func suiteWords(p analysis.PrimaryPlan, c analysis.PlanConclusion) string {
	return selectionWords(p.Baseline, c.Bound, c.WiderBound)
}

// selectionWords says how many units (bound, the wider selection's wider) a plan's suite selection b has:
// "suite zoo has 40 tasks, 535 with --suite-option instances=all", "suite zoo has 535 tasks with
// instances=all".
func selectionWords(b analysis.PlanBaseline, bound, wider int) string {
	if bound <= 0 {
		return ""
	}
	out := fmt.Sprintf("suite %s has %s", b.Suite, boundWords(b, bound, b.SuiteTasks))
	if b.Selection != "" {
		out += " with " + b.Selection
	}
	if wider > bound {
		w := fmt.Sprint(wider)
		if b.Unit == "" && wider < b.WiderTasks {
			w = boundWords(b, wider, b.WiderTasks)
		}
		out += fmt.Sprintf(", %s with --suite-option %s", w, b.Wider)
	}
	return out
}

// boundWords words a bound of a selection of tasks tasks: "40 tasks", "31 families" for a plan by cluster, and
// "99 families (535 tasks)" for a plan of independent tasks bound by fewer clusters (analysis.Independent).
func boundWords(b analysis.PlanBaseline, bound, tasks int) string {
	if b.Unit == "" && bound < tasks {
		return fmt.Sprintf("%s (%s)", unitCount(bound, cmp.Or(b.SuiteUnit, "cluster")), unitCount(tasks, "task"))
	}
	return unitCount(bound, cmp.Or(b.Unit, "task"))
}

// SeqConclusionText words a sequential plan in one sentence: "40 tasks × 2 reps, sequential: power 0.740 for a
// 10.0-pt drop (fixed design 0.780), expected 620 of the fixed design's 960 attempts (35% fewer, at most 960)",
// then "but suite zoo has 24 tasks: …" when the design needs more units than the selection has.
func SeqConclusionText(p analysis.SeqPlan) string {
	u := cmp.Or(p.Baseline.Unit, "task")
	per := ""
	if p.Baseline.Unit != "" {
		per = " per task"
	}
	g := p.Design.G()
	reps := unitCount(p.Design.Rep, "rep") + per
	if p.Design.Reps != nil {
		reps = "the run's reps"
	}
	s := fmt.Sprintf("%s × %s, sequential: power %.3f for %s (fixed design %.3f), expected %.0f of the fixed "+
		"design's %d attempts (%.0f%% fewer, at most %d)", unitCount(g, u), reps,
		p.PowerSeq, effectWords(p.Effect), p.PowerFixed, p.ExpectedAttempts, p.FixedAttempts,
		100*(1-p.ExpectedAttempts/float64(max(1, p.FixedAttempts))), p.MaxAttempts)
	if bound, wider := p.Baseline.Bounds(); bound > 0 && g > bound {
		s += fmt.Sprintf(", but %s: plan at most %d %s with more reps (bench power without --sequential finds "+
			"the smallest design)", selectionWords(p.Baseline, bound, wider), bound, unitWord(2, u))
	}
	return s + "."
}
