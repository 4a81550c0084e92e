package ablation

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// mkPairs builds Pairs from "AB" strings per rep, e.g. "01" = A fail, B pass.
func mkPairs(task, cluster string, reps ...string) []Pair {
	var out []Pair
	for i, r := range reps {
		out = append(out, Pair{Task: task, Cluster: cluster, Rep: i, A: r[0] == '1', B: r[1] == '1'})
	}
	return out
}

func join(groups ...[]Pair) []Pair {
	var out []Pair
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func mustPaired(t *testing.T, p []Pair) PairedResult {
	t.Helper()
	r, err := PairedDiff(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("result not JSON-encodable (NaN/Inf?): %v; %+v", err, r)
	}
	return r
}

func TestPairedDiffT(t *testing.T) {
	// d = [1, 0.5, 0, 1]; task t4 has a single rep and weighs like the others;
	// t3 differs in both reps but cancels to 0.
	r := mustPaired(t, join(
		mkPairs("t1", "", "01", "01"),
		mkPairs("t2", "", "01", "11"),
		mkPairs("t3", "", "10", "01"),
		mkPairs("t4", "", "01"),
	))
	near(t, "Delta", r.Delta, 0.625, 1e-15)
	// Expected values computed independently (closed-form t CDF on 3 df).
	near(t, "SE", r.SE, 0.23935677693908453, 1e-14)
	near(t, "P", r.P, 0.07960498081790623, 1e-9)
	near(t, "CI lo", r.CI[0], -0.13674009041453905, 1e-9)
	if r.CI[1] != 1 {
		t.Errorf("CI hi = %v, want clamped to 1 (unclamped 1.387)", r.CI[1])
	}
	if r.DF != 3 || r.G != 4 || r.C != 4 || r.Clustered || r.Method != "t" || r.Note != "" {
		t.Errorf("DF/G/C/Clustered/Method/Note = %d/%d/%d/%v/%q/%q", r.DF, r.G, r.C, r.Clustered, r.Method, r.Note)
	}
	if r.Informative != 4 || r.Pairs != 7 || r.Rescued != 5 || r.Broke != 1 {
		t.Errorf("Informative/Pairs/Rescued/Broke = %d/%d/%d/%d, want 4/7/5/1", r.Informative, r.Pairs, r.Rescued, r.Broke)
	}
	// Sign-flip over the non-zero d = [1, .5, 1]: only the all-same-sign
	// assignments reach |2.5|, p = 2/8.
	near(t, "PPerm", r.PPerm, 0.25, 1e-15)
	near(t, "PermFloor", r.PermFloor, 0.25, 1e-15)
}

func TestPairedDiffClustered(t *testing.T) {
	// Three clusters of two tasks: d = x:[1, 1], y:[1, .5], z:[1, .5].
	// mean 5/6; cluster residual sums 1/3, −1/6, −1/6; SE = √(1.5·1/6)/6 = 1/12;
	// t = 10 on 2 df: p = 1 − t/√(2+t²).
	r := mustPaired(t, join(
		mkPairs("a", "x", "01"), mkPairs("b", "x", "01"),
		mkPairs("c", "y", "01"), mkPairs("d", "y", "01", "11"),
		mkPairs("e", "z", "01"), mkPairs("f", "z", "00", "01"),
	))
	if !r.Clustered || r.C != 3 || r.DF != 2 || r.G != 6 {
		t.Fatalf("Clustered/C/DF/G = %v/%d/%d/%d, want true/3/2/6", r.Clustered, r.C, r.DF, r.G)
	}
	near(t, "Delta", r.Delta, 5.0/6, 1e-15)
	near(t, "SE", r.SE, 1.0/12, 1e-15)
	near(t, "P", r.P, 1-10/math.Sqrt(102), 1e-9)
	near(t, "CI lo", r.CI[0], 0.4747789391740605, 1e-9)

	// Every task in its own cluster is the unclustered test.
	r = mustPaired(t, join(mkPairs("a", "a", "01"), mkPairs("b", "b", "00"), mkPairs("c", "c", "01", "11")))
	if r.Clustered || r.DF != 2 {
		t.Errorf("singleton clusters: Clustered=%v DF=%d, want false 2", r.Clustered, r.DF)
	}
	// One cluster for all tasks: fall back to tasks, say so.
	r = mustPaired(t, join(mkPairs("a", "s", "01"), mkPairs("b", "s", "00"), mkPairs("c", "s", "01", "11")))
	if r.Clustered || r.DF != 2 || !strings.Contains(r.Note, "one cluster") {
		t.Errorf("one cluster: Clustered=%v DF=%d Note=%q", r.Clustered, r.DF, r.Note)
	}
	sd := math.Sqrt(((1-0.5)*(1-0.5) + 0.25 + 0) / 2)
	near(t, "one-cluster SE", r.SE, sd/math.Sqrt(3), 1e-15)
}

func TestPairedDiffZeroVariance(t *testing.T) {
	// Five tasks, B rescues every one: all d_t = 1, t undefined; the exact
	// sign-flip p is 2/2^5.
	var p []Pair
	for _, task := range []string{"a", "b", "c", "d", "e"} {
		p = append(p, mkPairs(task, "", "01")...)
	}
	r := mustPaired(t, p)
	if r.Method != "signflip" || r.SE != 0 || r.CI != [2]float64{1, 1} || r.DF != 0 || r.Note == "" {
		t.Errorf("zero variance: %+v", r)
	}
	near(t, "P", r.P, 0.0625, 1e-15)
	near(t, "floor", r.PermFloor, 0.0625, 1e-15)

	// All pass in both arms (no discordant pairs): Δ = 0, p = 1, nothing
	// informative.
	r = mustPaired(t, join(mkPairs("a", "", "11", "11"), mkPairs("b", "", "11"), mkPairs("c", "", "00")))
	if r.Delta != 0 || r.P != 1 || r.Informative != 0 || r.Rescued+r.Broke != 0 || r.Method != "signflip" || r.PermFloor != 1 {
		t.Errorf("no discordance: %+v", r)
	}
	if McNemarExact(r.Rescued, r.Broke) != 1 {
		t.Error("McNemar of no discordant pairs must be 1")
	}
}

func TestPairedDiffEdges(t *testing.T) {
	r := mustPaired(t, nil)
	if r.Method != "none" || r.G != 0 || r.P != 1 || r.CI != [2]float64{-1, 1} || r.PPerm != 1 {
		t.Errorf("no pairs: %+v", r)
	}
	r = mustPaired(t, mkPairs("only", "", "01", "01", "00"))
	if r.Method != "signflip" || r.G != 1 || r.P != 1 || r.CI != [2]float64{-1, 1} || r.DF != 0 || r.Informative != 1 {
		t.Errorf("one task: %+v", r)
	}
	near(t, "one task delta", r.Delta, 2.0/3, 1e-15)

	if _, err := PairedDiff(join(mkPairs("a", "", "01"), mkPairs("a", "", "11"))); err == nil {
		t.Error("duplicate (task, rep) accepted")
	}
	if _, err := PairedDiff([]Pair{{Task: "a", Cluster: "x", Rep: 0}, {Task: "a", Cluster: "y", Rep: 1}}); err == nil {
		t.Error("task with two clusters accepted")
	}
	// Input order does not matter.
	p := join(mkPairs("t1", "", "01", "01"), mkPairs("t2", "", "01", "11"), mkPairs("t3", "", "10", "01"))
	r1 := mustPaired(t, p)
	rev := make([]Pair, len(p))
	for i := range p {
		rev[len(p)-1-i] = p[i]
	}
	r2 := mustPaired(t, rev)
	if r1 != r2 {
		t.Errorf("order dependence: %+v vs %+v", r1, r2)
	}
}

func TestSignFlipHand(t *testing.T) {
	// d = [.5, .5, −.5, 1, 0]: the zero is ignored (G' = 4). The sum is
	// s4·1 + .5(s1+s2+s3); |sum| ≥ 1.5 in 4 of 8 assignments for each sign of
	// s4, so p = 8/16 = 0.5; floor = 2/16.
	p, floor := SignFlip([]float64{.5, .5, -.5, 1, 0}, 20, 0, 1)
	near(t, "p", p, 0.5, 1e-15)
	near(t, "floor", floor, 0.125, 1e-15)
	// Four ±1: |sum| ≥ 2 unless two of each sign (6 of 16): 10/16.
	p, _ = SignFlip([]float64{1, 1, 1, -1}, 20, 0, 1)
	near(t, "p ±1", p, 0.625, 1e-15)
	// Sign of the effect does not matter (two-sided).
	p2, _ := SignFlip([]float64{-1, -1, -1, 1}, 20, 0, 1)
	near(t, "p mirrored", p2, p, 0)
	if p, f := SignFlip(nil, 20, 0, 1); p != 1 || f != 1 {
		t.Errorf("empty: %v %v", p, f)
	}
	if p, f := SignFlip([]float64{0, 0}, 20, 0, 1); p != 1 || f != 1 {
		t.Errorf("all zero: %v %v", p, f)
	}
}

func TestSignFlipMonteCarlo(t *testing.T) {
	d := []float64{1, .5, -.5, 1, 1, .25, -1, .5, 1, .75, -.25, 1}
	exact, floor := SignFlip(d, 20, 0, 1)
	near(t, "exact", exact, 268.0/4096, 1e-15) // enumerated independently
	near(t, "floor 12", floor, 2.0/4096, 1e-18)
	mc, floorMC := SignFlip(d, 5, 100000, 7)
	near(t, "Monte Carlo vs exact", mc, exact, 0.004) // ≈5 SE
	if floorMC != floor {
		t.Errorf("floor differs between exact and MC: %v %v", floorMC, floor)
	}
	again, _ := SignFlip(d, 5, 100000, 7)
	if again != mc {
		t.Error("Monte Carlo p not reproducible with the same seed")
	}
	// 30 equal differences: no random flip reaches |30| except with
	// probability 2^-29, so p = 1/(samples+1).
	ones := make([]float64, 30)
	for i := range ones {
		ones[i] = 1
	}
	p, f := SignFlip(ones, 0, 1000, 3)
	near(t, "MC floor p", p, 1.0/1001, 1e-15)
	near(t, "floor 30", f, math.Ldexp(1, -29), 1e-24)
	// G = 20 is still exact by default.
	p, _ = SignFlip(ones[:20], 0, 0, 1)
	near(t, "exact 20", p, math.Ldexp(1, -19), 1e-24)
}
