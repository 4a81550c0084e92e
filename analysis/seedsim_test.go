package analysis

import (
	"fmt"
	"math"
	"testing"
)

// seedDesign is c families of one task tagged g plus c untagged ones, one arm with g off on the tagged tasks.
func seedDesign(c int, g string) SeedDesign {
	d := SeedDesign{Suite: "sim", Baseline: "baseline", Reps: 1}
	arm := SeedArm{Name: "no_" + g, Guards: []string{g}}
	for i := range 2 * c {
		t := SeedTask{ID: fmt.Sprintf("f%02d/a", i), Cluster: fmt.Sprintf("f%02d", i)}
		if i < c {
			t.Tags = []string{g}
			arm.Tasks = append(arm.Tasks, t.ID)
		}
		d.Tasks = append(d.Tasks, t)
	}
	d.Arms = []SeedArm{arm}
	return d
}

// A guard whose removal breaks all of its 12 families is shown worse at every seed (sign-flip p 2/2^12) and one
// that breaks none at no seed; one that breaks each family with probability ½ is shown worse when 6 or more of
// the 12 move (2/2^6 < 0.05 < 2/2^5): P(Bin(12, ½) ≥ 6) = 0.613. A failure shared by both arms of a pair (the
// base's) moves no family: at BaseFail 1 nothing is shown. The gate over all 24 families fails when the 12 broken
// ones put Δ at −0.5.
func TestSeedRobustness(t *testing.T) {
	d := seedDesign(12, "g")
	for _, c := range []struct {
		m    SeedModel
		want float64
		tol  float64
	}{
		{SeedModel{Break: map[string]float64{"g": 1}}, 1, 0},
		{SeedModel{Break: map[string]float64{"g": 0}}, 0, 0},
		{SeedModel{BaseFail: 1, Break: map[string]float64{"g": 1}}, 0, 0},
		{SeedModel{Break: map[string]float64{"g": 0.5}}, 0.613, 0.06},
	} {
		f := SeedRobustness(d, c.m, 300, 0, 0.05)
		if math.Abs(f.Held[0]-c.want) > c.tol {
			t.Errorf("%+v: held at %.3f of seeds, want %.3f ± %.2f", c.m, f.Held[0], c.want, c.tol)
		}
		if (f.Held[0] == 1) != (len(f.Lost[0]) == 0) || len(f.Lost[0]) > 10 {
			t.Errorf("%+v: lost seeds %v with held %.3f", c.m, f.Lost[0], f.Held[0])
		}
	}
	gate := d
	gate.Arms = []SeedArm{{Name: "no_g", Guards: []string{"g"}}}
	for _, task := range d.Tasks {
		gate.Arms[0].Tasks = append(gate.Arms[0].Tasks, task.ID)
	}
	if f := SeedRobustness(gate, SeedModel{Break: map[string]float64{"g": 1}}, 50, 0.05, 0.05); f.Held[0] != 1 {
		t.Errorf("gate with every target broken: fails at %.3f of seeds, want 1", f.Held[0])
	}
	if f := SeedRobustness(gate, SeedModel{Break: map[string]float64{"g": 0}}, 50, 0.05, 0.05); f.Held[0] != 0 {
		t.Errorf("gate with nothing broken: fails at %.3f of seeds, want 0", f.Held[0])
	}
}
