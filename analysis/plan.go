package analysis

// The primary-test planner of bench power: a design from the planner's
// inputs, and the power, MDE and smallest designs on it.

// PlanDefaultTasks is the number of tasks of a planned design drawn from a
// rate mix when none is given.
const PlanDefaultTasks = 40

// PlanBaseline says where a planned design's baseline pass rates come from:
// the per-task rates of arm Arm of the run in Dir (Tasks of them, ArmRates),
// or the rate mix Mix (ParseMix's syntax) when Dir is "".
type PlanBaseline struct {
	Mix, Arm, Dir string
	Tasks         int
	// Suite is the suite the plan is for and SuiteTasks how many tasks its selection has (with its options and
	// the run's task globs; 0: not known), SuiteUnits how many clusters those tasks form, so a plan needing more
	// than it has can say so. Selection words the selection's options ("instances=all, tasks shop-*"; "" for
	// the suite's default). Wider is a suite option that selects more tasks ("instances=all"; "" for none),
	// with WiderTasks and WiderUnits its counts. SuiteUnit is the noun of the suite's clusters ("family"; "" when
	// it has none).
	Suite, SuiteUnit       string
	SuiteTasks, SuiteUnits int
	Selection              string
	Wider                  string
	WiderTasks, WiderUnits int
	// RealModel is set when the rates come from a run of a real model endpoint (not the scripted policy).
	RealModel bool
	// Unit, when set, is the run's cluster noun ("family"): its tasks share clusters, so the plan's units are
	// the Units clusters (FamilyDesign) with the intracluster correlation ICC (ICCAnova).
	Unit  string
	Units int
	ICC   float64
	// Attempts are the arm's judged attempts, and Widest the most any other arm of the run played (0: none):
	// when Widest < Attempts the run compared its arms on fewer tasks than the plan's (scope target).
	Attempts, Widest int
}

// PlanDesign completes the planned design d, whose Rates (with Reps, the
// judged attempts per task of the run they come from, or nil) or Mix, Model
// and Share are set, to tasks tasks of reps reps. tasks 0 is the run's
// (len(Rates)), or PlanDefaultTasks with a Mix; reps 0 is the run's Reps,
// else 1. Rates of another number of tasks, or without the run's reps, are
// cycled over the tasks (ScaleTasks) at reps reps each.
func PlanDesign(d Design, tasks, reps int) Design {
	if reps > 0 {
		d.Reps = nil
	}
	g := tasks
	if g <= 0 {
		g = len(d.Rates)
		if d.Mix != nil {
			g = PlanDefaultTasks
		}
	}
	d.Rep = max(reps, 1)
	if d.Mix != nil {
		d.Tasks = g
	} else if g != len(d.Rates) || d.Reps == nil {
		d = ScaleTasks(d, g)
		d.Reps = nil
	}
	return d
}

// PrimaryPlan is the primary-test planner's answer (PlanPrimary).
type PrimaryPlan struct {
	// Design is the planned design and Baseline where its rates come from.
	Design   Design
	Baseline PlanBaseline
	// Effect is the change in mean pass rate planned for (a proportion,
	// negative for a drop); Alpha the level; Target the power to reach.
	Effect, Alpha, Target float64
	// Power is the primary test's power for Effect on Design, computed by
	// Method (PowerPrimary).
	Power  float64
	Method string
	// MDE is the smallest change in Effect's direction detected with power
	// Target (MDEPrimary, a positive proportion); NaN when none is.
	MDE float64
	// Smallest are the fewest tasks of Design's rate mix reaching Target for
	// 1, 2, 3, 5 and 10 reps, by attempts per arm; Unreachable the reps at
	// which MaxTasks tasks do not (SmallestDesigns).
	Smallest    []DesignPower
	Unreachable []int
	MaxTasks    int
	// Independent is the power and MDE of Design with independent pairing (arms share the task's rate, no
	// outcome draw), the plan for an endpoint that does not replay a seed; nil when Design is independent.
	Independent *PairingAlt
}

// PairingAlt is a design's power for the planned effect and its MDE under another pairing.
type PairingAlt struct {
	Power, MDE float64
}

// PlanPrimary plans the primary test on d for the change effect at alpha
// and the target power: its power, its MDE in effect's direction and the
// smallest designs reaching the target.
func PlanPrimary(d Design, baseline PlanBaseline, effect, alpha, power float64) PrimaryPlan {
	p := PrimaryPlan{Design: d, Baseline: baseline, Effect: effect, Alpha: alpha, Target: power, MaxTasks: MaxPlanTasks}
	p.Power, p.Method = PowerPrimary(d, effect, alpha)
	p.MDE = MDEPrimary(d, alpha, power, effect < 0)
	p.Smallest, p.Unreachable = SmallestDesigns(d, effect, alpha, power, MaxPlanTasks)
	if d.Model != ModelIndependent {
		ind := d
		ind.Model, ind.Share = ModelIndependent, 0
		pw, _ := PowerPrimary(ind, effect, alpha)
		p.Independent = &PairingAlt{Power: pw, MDE: MDEPrimary(ind, alpha, power, effect < 0)}
	}
	return p
}
