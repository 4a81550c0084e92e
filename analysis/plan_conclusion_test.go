package analysis

import (
	"math/rand/v2"
	"testing"
)

// Conclusion keeps the planned reps when a design at them fits the selection, else takes the cheapest that
// fits, offers the wider selection when it saves reps or is the only way, and says when nothing fits or
// reaches the target; a design reaching the target with more tasks than the selection has is not enough.
func TestPlanConclusion(t *testing.T) {
	smallest := []DesignPower{{Reps: 1, Tasks: 101, Power: 0.82}, {Reps: 2, Tasks: 54, Power: 0.805},
		{Reps: 3, Tasks: 37, Power: 0.8}, {Reps: 5, Tasks: 24, Power: 0.85}}
	plan := func(g, rep int, power float64, bound, wider int) PrimaryPlan {
		return PrimaryPlan{Design: Design{Mix: func(*rand.Rand, int) []float64 { return nil }, Tasks: g, Rep: rep}, Power: power, Target: 0.8,
			Smallest: smallest, Baseline: PlanBaseline{SuiteTasks: bound, WiderTasks: wider, Wider: "instances=all"}}
	}
	for _, tc := range []struct {
		name             string
		p                PrimaryPlan
		kind             PlanAdviceKind
		reaches          bool
		same, use, wider int // Tasks of each design (0: nil)
	}{
		{"enough", plan(40, 5, 0.9, 40, 0), AdviceEnough, true, 0, 0, 0},
		{"same reps fit", plan(40, 2, 0.6, 535, 0), AdviceUse, false, 54, 54, 0},
		{"more reps, or wider", plan(40, 2, 0.6, 40, 535), AdviceUse, false, 54, 37, 101},
		{"enough but too many tasks", plan(80, 3, 1, 40, 0), AdviceUse, true, 37, 37, 0},
		{"only wider", plan(20, 2, 0.4, 20, 535), AdviceWider, false, 54, 0, 101},
		{"beyond the suite", plan(20, 2, 0.4, 20, 0), AdviceBeyondSuite, false, 54, 0, 0},
		{"no bound", plan(40, 2, 0.6, 0, 0), AdviceUse, false, 54, 54, 0},
	} {
		c := tc.p.Conclusion()
		tasks := func(d *DesignPower) int {
			if d == nil {
				return 0
			}
			return d.Tasks
		}
		if c.Kind != tc.kind || c.Reaches != tc.reaches || tasks(c.Same) != tc.same || tasks(c.Use) != tc.use ||
			tasks(c.Wider) != tc.wider {
			t.Errorf("%s: %s reaches %v, same %d, use %d, wider %d; want %s %v, %d, %d, %d", tc.name, c.Kind, c.Reaches,
				tasks(c.Same), tasks(c.Use), tasks(c.Wider), tc.kind, tc.reaches, tc.same, tc.use, tc.wider)
		}
	}
	p := plan(40, 2, 0.01, 40, 0)
	p.Smallest = nil
	if c := p.Conclusion(); c.Kind != AdviceUnreachable {
		t.Errorf("no design reaches the target: %s, want unreachable", c.Kind)
	}
}

// A plan of independent tasks is bound by the selection's clusters when they are fewer than its tasks (the
// Zoo's instances: 535 tasks in 99 families, analysed by family), so 101 tasks × 1 rep does not fit; a plan
// by cluster keeps its clusters, and a suite whose every task is its own cluster keeps its tasks.
func TestPlanBoundsByIndependentUnits(t *testing.T) {
	smallest := []DesignPower{{Reps: 1, Tasks: 101, Power: 0.82}, {Reps: 2, Tasks: 54, Power: 0.805}}
	p := PrimaryPlan{Design: Design{Mix: func(*rand.Rand, int) []float64 { return nil }, Tasks: 40, Rep: 1},
		Power: 0.2, Target: 0.8, Smallest: smallest,
		Baseline: PlanBaseline{SuiteTasks: 40, SuiteUnits: 22, WiderTasks: 535, WiderUnits: 99, Wider: "instances=all"}}
	if b, w := p.Baseline.Bounds(); b != 22 || w != 99 {
		t.Errorf("Bounds = %d, %d; want 22 families, 99 families", b, w)
	}
	if c := p.Conclusion(); c.Kind != AdviceWider || c.Wider == nil || c.Wider.Tasks != 54 {
		t.Errorf("conclusion %s, wider %+v; want wider with 54 tasks × 2 reps (101 exceeds 99 families)", c.Kind, c.Wider)
	}
	p.Baseline = PlanBaseline{SuiteTasks: 120, SuiteUnits: 120}
	if b, _ := p.Baseline.Bounds(); b != 120 {
		t.Errorf("every task its own cluster: bound %d, want 120 tasks", b)
	}
	p.Baseline = PlanBaseline{Unit: "family", SuiteTasks: 535, SuiteUnits: 99}
	if b, _ := p.Baseline.Bounds(); b != 99 {
		t.Errorf("a plan by family: bound %d, want 99", b)
	}
}
