package analysis

import (
	"math"
	"slices"
	"testing"

	"webbench/results"
)

// PlanDesign's defaults and scaling: a mix gets 40 tasks of 1 rep; a run's rates keep the run's tasks and reps;
// a reps count replaces the run's reps; another task count cycles the rates.
func TestPlanDesign(t *testing.T) {
	d := PlanDesign(Design{Mix: IssueMix}, 0, 0)
	if d.G() != 40 || d.Rep != 1 || d.Reps != nil {
		t.Errorf("mix, no tasks or reps: G %d, Rep %d, Reps %v; want 40, 1, nil", d.G(), d.Rep, d.Reps)
	}
	run := Design{Rates: []float64{0.9, 0.5, 1}, Reps: []int{3, 2, 3}}
	d = PlanDesign(run, 0, 0)
	if !slices.Equal(d.Rates, run.Rates) || !slices.Equal(d.Reps, []int{3, 2, 3}) {
		t.Errorf("run's rates, no tasks or reps: rates %v reps %v; want the run's", d.Rates, d.Reps)
	}
	d = PlanDesign(run, 0, 2)
	if !slices.Equal(d.Rates, run.Rates) || d.Reps != nil || d.Rep != 2 || d.RepsOf(1) != 2 {
		t.Errorf("run's rates, --reps 2: rates %v reps %v rep %d; want the run's rates at 2 reps", d.Rates, d.Reps, d.Rep)
	}
	d = PlanDesign(run, 5, 0)
	if !slices.Equal(d.Rates, []float64{0.9, 0.5, 1, 0.9, 0.5}) || d.Reps != nil || d.Rep != 1 {
		t.Errorf("run's rates, --tasks 5: rates %v reps %v rep %d; want the rates cycled at 1 rep", d.Rates, d.Reps, d.Rep)
	}
}

// PlanPrimary's power is PowerPrimary's, its MDE MDEPrimary's in the effect's direction, and its smallest
// designs SmallestDesigns' within the planner's task bound.
func TestPlanPrimary(t *testing.T) {
	d := PlanDesign(Design{Rates: []float64{0.9, 0.6, 1, 0.8}, Model: ModelSameSeed, Share: 0.8}, 12, 2)
	p := PlanPrimary(d, PlanBaseline{Mix: "0.9,0.6,1,0.8"}, -0.15, 0.05, 0.8)
	pw, method := PowerPrimary(d, -0.15, 0.05)
	if p.Power != pw || p.Method != method || p.MaxTasks != MaxPlanTasks {
		t.Errorf("plan power %v (%s), max tasks %d; want %v (%s), %d", p.Power, p.Method, p.MaxTasks, pw, method, MaxPlanTasks)
	}
	if mde := MDEPrimary(d, 0.05, 0.8, true); p.MDE != mde && !(math.IsNaN(mde) && math.IsNaN(p.MDE)) {
		t.Errorf("plan MDE %v, want the drop's %v", p.MDE, mde)
	}
	found, unreachable := SmallestDesigns(d, -0.15, 0.05, 0.8, MaxPlanTasks)
	if !slices.Equal(p.Smallest, found) || !slices.Equal(p.Unreachable, unreachable) || len(found) == 0 {
		t.Errorf("smallest designs %v / %v, want %v / %v", p.Smallest, p.Unreachable, found, unreachable)
	}
}

// The infrastructure gate fails above 10 % of the attempts in infrastructure errors, not at 10 %; other errors
// (the judge's, the model's config) do not count.
func TestCheckInfra(t *testing.T) {
	recs := func(infra, other, pass int) []results.Attempt {
		var out []results.Attempt
		for range infra {
			out = append(out, results.Attempt{Status: results.StatusError, ErrorClass: results.ClassInfra})
		}
		for range other {
			out = append(out, results.Attempt{Status: results.StatusError, ErrorClass: results.ClassJudge})
		}
		for range pass {
			out = append(out, results.Attempt{Status: results.StatusPass})
		}
		return out
	}
	for _, c := range []struct {
		infra, other, pass int
		failed             bool
	}{{1, 0, 9, false}, {2, 0, 9, true}, {1, 5, 4, false}, {0, 0, 0, false}} {
		g := CheckInfra(recs(c.infra, c.other, c.pass))
		if g.Infra != c.infra || g.Attempts != c.infra+c.other+c.pass || g.Failed != c.failed {
			t.Errorf("%d infra, %d other errors, %d passes: %+v, want failed %v", c.infra, c.other, c.pass, g, c.failed)
		}
	}
}

// ICCAnova on hand-computed groups: two groups all pass, two all fail (n 3 each) is perfectly correlated (1);
// identical mixed groups (2 of 4 each) have less between-group spread than binomial noise (clamped to 0); and
// four groups of 4 with 0, 2, 2, 4 passes: Σy²/n = 6, Y = 8, N = 16, MSB = (6 − 4)/3 = 2/3, MSW = 2/12,
// n0 = 4, ρ = (2/3 − 1/6)/(2/3 + 3/6) = 3/7.
func TestICCAnova(t *testing.T) {
	for _, c := range []struct {
		y, n []int
		want float64
	}{
		{[]int{3, 3, 0, 0}, []int{3, 3, 3, 3}, 1},
		{[]int{2, 2, 2}, []int{4, 4, 4}, 0},
		{[]int{0, 2, 2, 4}, []int{4, 4, 4, 4}, 3.0 / 7},
		{[]int{1}, []int{4}, 0},
	} {
		if got := ICCAnova(c.y, c.n); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ICCAnova(%v, %v) = %v, want %v", c.y, c.n, got, c.want)
		}
	}
}
