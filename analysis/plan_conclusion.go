package analysis

// The conclusion of a primary-test plan (bench power): is the planned design enough, and if not, which design
// to use within the tasks the chosen suite selection has.

// PlanAdviceKind is what a plan concludes (PlanConclusion.Kind).
type PlanAdviceKind string

// The conclusions, in the order PrimaryPlan.Conclusion tries them.
const (
	// AdviceEnough: the planned design reaches the target power within the selection's units.
	AdviceEnough PlanAdviceKind = "enough"
	// AdviceUnreachable: no design of up to MaxTasks units reaches it at any reps tried.
	AdviceUnreachable PlanAdviceKind = "unreachable"
	// AdviceUse: a design within the selection's units reaches it (Use; Same the one at the planned reps).
	AdviceUse PlanAdviceKind = "use"
	// AdviceWider: none within the selection does, one within the wider selection (Baseline.Wider) does.
	AdviceWider PlanAdviceKind = "wider"
	// AdviceBeyondSuite: none within the suite's units does (nor the wider selection's).
	AdviceBeyondSuite PlanAdviceKind = "beyond_suite"
)

// PlanConclusion is what a plan concludes, as data for one sentence: Kind; Reaches, whether the planned design
// reaches the target power (then not Enough only because it has more units than Bound); Same, the smallest
// design at the planned reps reaching the target (nil: none); Use, the design to use within Bound units (the
// selection's, 0: unknown, no bound): Same when it fits, else the one of fewest attempts per arm that does;
// Wider, the same within the wider selection's WiderBound units when Use is nil or needs more reps (nil
// otherwise).
type PlanConclusion struct {
	Kind              PlanAdviceKind
	Reaches           bool
	Same, Use, Wider  *DesignPower
	Bound, WiderBound int
}

// Conclusion concludes p: enough when its design reaches the target power, else the design to use within the
// units the planned suite selection has (Baseline.Bounds), and the
// wider selection's when that one needs fewer reps or is the only one.
func (p PrimaryPlan) Conclusion() PlanConclusion {
	c := PlanConclusion{Reaches: p.Power >= p.Target}
	c.Bound, c.WiderBound = p.Baseline.Bounds()
	if c.Reaches && (c.Bound <= 0 || p.Design.G() <= c.Bound) {
		c.Kind = AdviceEnough
		return c
	}
	for i := range p.Smallest {
		// A design of the run's own reps per task (Design.Reps) has no single reps count to keep.
		if x := &p.Smallest[i]; p.Design.Reps == nil && x.Reps == p.Design.Rep && c.Same == nil {
			c.Same = x
		}
	}
	fits := func(bound int) *DesignPower {
		// Smallest is sorted by attempts per arm: the first that fits is the cheapest.
		for i := range p.Smallest {
			if x := &p.Smallest[i]; bound <= 0 || x.Tasks <= bound {
				return x
			}
		}
		return nil
	}
	c.Use = fits(c.Bound)
	if c.Same != nil && (c.Bound <= 0 || c.Same.Tasks <= c.Bound) {
		c.Use = c.Same
	}
	switch {
	case len(p.Smallest) == 0:
		c.Kind = AdviceUnreachable
		return c
	case c.Use != nil:
		c.Kind = AdviceUse
	case c.WiderBound > c.Bound:
		c.Kind = AdviceBeyondSuite
		if c.Wider = fits(c.WiderBound); c.Wider != nil {
			c.Kind = AdviceWider
		}
		return c
	default:
		c.Kind = AdviceBeyondSuite
		return c
	}
	if c.WiderBound > c.Bound {
		if w := fits(c.WiderBound); w != nil && w.Reps < c.Use.Reps {
			c.Wider = w
		}
	}
	return c
}

// Bounds are the units the plan's suite selection has and the wider selection's (0: not known): its clusters
// for a plan by cluster; else its tasks, or its clusters when they are fewer (Independent).
func (b PlanBaseline) Bounds() (bound, wider int) {
	if b.Unit != "" {
		return b.SuiteUnits, b.WiderUnits
	}
	return Independent(b.SuiteTasks, b.SuiteUnits), Independent(b.WiderTasks, b.WiderUnits)
}

// Independent is how many independent tasks a selection of tasks tasks in units clusters (0: not known) can
// give a plan that counts independent tasks: one per cluster when the clusters are fewer, since a run of such a
// suite is analysed by cluster and a cluster's tasks are correlated.
func Independent(tasks, units int) int {
	if units > 0 && units < tasks {
		return units
	}
	return tasks
}
