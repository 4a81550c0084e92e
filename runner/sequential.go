package runner

// Sequential ablations and budgets in the scheduler: the units in look order, attempts started in that order,
// the attempts a sequential design no longer needs never started, and a budget that stops new starts.

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"webbench/results"
	"webbench/suites"
)

// Sequencer is a sequential design's stopping rule over a run's records (analysis.SeqRule, which cmd/bench
// passes in Options.Sequential: the rule is the analysis', the runner only applies it).
type Sequencer interface {
	// Skips maps the planned attempt ids the design no longer needs and that have no record in latest (each
	// attempt id's final record so far) to why; the runner starts none of them.
	Skips(latest map[string]results.Attempt) map[string]results.SeqSkip
}

// SeqUnits are the units of a sequential design over tasks (in plan order) in look order: the tasks grouped by
// their cluster (suites.Task.Cluster; a task without one is its own unit), each unit's tasks in plan order, the
// units shuffled deterministically by seed, so the looks do not follow the suite's listing (one app's families
// after another's).
func SeqUnits(tasks []suites.Task, seed int64) []results.SeqUnit {
	var units []results.SeqUnit
	at := map[string]int{}
	for _, t := range tasks {
		name := t.Cluster
		if name == "" {
			name = t.ID
		}
		i, ok := at[name]
		if !ok {
			i = len(units)
			at[name] = i
			units = append(units, results.SeqUnit{Name: name})
		}
		units[i].Tasks = append(units[i].Tasks, t.ID)
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x5e9a11ce))
	r.Shuffle(len(units), func(i, j int) { units[i], units[j] = units[j], units[i] })
	return units
}

// seqOrder returns todo (as Plan.Expand lists it: pairs of consecutive attempts, each pair's arms in their
// shuffled order) ordered by the units' look order, a unit's pairs in plan order: attempts start in the order
// the looks need them, so a variant can be decided, and its remaining attempts left unrun, early. Attempts of
// tasks no unit names (none, when the units are the plan's) come last, in their order.
func seqOrder(todo []Attempt, units []results.SeqUnit) []Attempt {
	rank := map[string]int{}
	for i, u := range units {
		for _, t := range u.Tasks {
			rank[t] = i
		}
	}
	of := func(a Attempt) int {
		if r, ok := rank[a.TaskID]; ok {
			return r
		}
		return len(units)
	}
	out := slices.Clone(todo)
	slices.SortStableFunc(out, func(x, y Attempt) int { return of(x) - of(y) })
	return out
}

// startOrder is the order todo's attempts start in: a sequential design's unit order (seqOrder; the design needs
// its rule, opts.Sequential), else the pairs shuffled, most arms first (shufflePairs).
func startOrder(plan Plan, opts Options, todo []Attempt) ([]Attempt, error) {
	d := plan.seqDesign()
	if d == nil {
		return shufflePairs(todo, plan.BaseSeed), nil
	}
	if opts.Sequential == nil {
		return nil, fmt.Errorf("the plan has a sequential design but no stopping rule was given (Options.Sequential)")
	}
	return seqOrder(todo, d.Units), nil
}

// seqDesign is the plan's sequential design (nil when it has none).
func (p Plan) seqDesign() *results.Sequential {
	if p.Ablation == nil {
		return nil
	}
	return p.Ablation.Sequential
}

// gate is what decides whether the scheduler starts an attempt: the sequential design's skips over the
// records so far, and the budgets (Options.MaxCostUSD, MaxAttempts), which stop new starts once reached while
// the attempts in flight finish and are recorded.
type gate struct {
	seq    Sequencer
	arms   []string
	latest map[string]results.Attempt
	skips  map[string]results.SeqSkip
	// decided are the arms some of whose attempts the design left unrun so far (logged once each).
	decided map[string]bool
	// recorded is the number of attempt ids with a record before this invocation; started those started in it.
	recorded, started int
	maxAttempts       int
	// stopped and budget are the stop reason and the budget reached ("" none).
	stopped, budget string
}

// newGate is the gate of a run of plan with opts, prev its records before this invocation.
func newGate(plan Plan, opts Options, prev *results.ReadResult) *gate {
	g := &gate{seq: opts.Sequential, arms: plan.VariantNames(), latest: map[string]results.Attempt{},
		decided: map[string]bool{}, recorded: len(prev.Latest), maxAttempts: opts.MaxAttempts}
	for id, a := range prev.Latest {
		g.latest[id] = a
	}
	g.update()
	for _, s := range g.skips {
		g.decided[s.Variant] = true
	}
	return g
}

// update recomputes the skips from the records (no sequential design: none).
func (g *gate) update() {
	if g.seq != nil {
		g.skips = g.seq.Skips(g.latest)
	}
}

// skipped reports whether the design no longer needs a.
func (g *gate) skipped(a Attempt) bool {
	_, ok := g.skips[a.AttemptID]
	return ok
}

// admit reports whether a may start now, counting it as started; false once a budget is reached or the
// design no longer needs a.
func (g *gate) admit(a Attempt) bool {
	if g.stopped != "" || g.skipped(a) {
		return false
	}
	if g.maxAttempts > 0 && g.recorded+g.started >= g.maxAttempts {
		g.halt(fmt.Sprintf("attempt limit %d reached", g.maxAttempts), results.BudgetAttempts)
		return false
	}
	g.started++
	return true
}

// halt stops new starts for reason, a budget reached ("" when another cause); the first reason stays.
func (g *gate) halt(reason, budget string) {
	if g.stopped == "" {
		g.stopped, g.budget = reason, budget
	}
}

// record adds a final record and returns the lines to log for arms the design has just decided.
func (g *gate) record(rec results.Attempt) []string {
	g.latest[rec.AttemptID] = rec
	if g.seq == nil {
		return nil
	}
	g.update()
	var lines, base []string
	for _, s := range results.SumSkips(g.skips, g.arms) {
		if g.decided[s.Variant] {
			continue
		}
		g.decided[s.Variant] = true
		if s.Stop != "" {
			lines = append(lines, fmt.Sprintf("sequential: %s decided %s at unit %d: its remaining attempts will not start",
				s.Variant, s.Stop, s.Unit))
		} else {
			base = append(base, fmt.Sprintf("sequential: %s's attempts on pairs no undecided variant runs on will not start", s.Variant))
		}
	}
	return append(lines, base...)
}

// summary is the skips as the manifest records them (Summary.SeqSkips); nil without a design.
func (g *gate) summary() []results.SeqSkip {
	if g.seq == nil {
		return nil
	}
	return results.SumSkips(g.skips, g.arms)
}

// dropSkipped returns todo without the attempts the design no longer needs, and how many it dropped.
func (g *gate) dropSkipped(todo []Attempt) ([]Attempt, int) {
	out := slices.DeleteFunc(slices.Clone(todo), g.skipped)
	return out, len(todo) - len(out)
}

// nothingLeft is the subject of the nothing-to-run line of planned attempts, g the run's gate: "all 8 planned
// attempts are already recorded", or with a sequential design's skips "5 of the 8 planned attempts are recorded,
// the sequential design left 3 unrun".
func nothingLeft(planned int, g *gate) string {
	n := 0
	for _, s := range g.summary() {
		n += s.Attempts
	}
	if n == 0 {
		return allPlanned(planned) + " already recorded"
	}
	return fmt.Sprintf("%d of the %d planned attempts are recorded, the sequential design left %d unrun", planned-n, planned, n)
}
