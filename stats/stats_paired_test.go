package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
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

func TestPairedDiffSmall(t *testing.T) {
	// d = [1, 0.5, 0, 1]; task t4 has a single rep and weighs like the others;
	// t3 differs in both reps but cancels to 0.
	r := mustPaired(t, join(
		mkPairs("t1", "", "01", "01"),
		mkPairs("t2", "", "01", "11"),
		mkPairs("t3", "", "10", "01"),
		mkPairs("t4", "", "01"),
	))
	near(t, "Delta", r.Delta, 0.625, 1e-15)
	near(t, "SE", r.SE, 0.23935677693908453, 1e-14)
	// 3 moved tasks (< TIntervalMinInformative): the adjusted interval,
	// (Σd ± z·√(((Σd²+2)/6 − (Σd/6)²)/6))/… with Σd = 2.5, Σd² = 2.25.
	near(t, "CI lo", r.CI[0], -0.16844207387960836, 1e-12)
	if r.CI[1] != 1 || r.CIMethod != CIMethodAdjusted {
		t.Errorf("CI hi = %v (%s), want clamped to 1 (unclamped 1.0018), adjusted", r.CI[1], r.CIMethod)
	}
	if r.DF != 3 || r.G != 4 || r.C != 4 || r.Clustered || r.Method != "signflip" || r.Moved != 3 {
		t.Errorf("DF/G/C/Clustered/Method/Moved = %d/%d/%d/%v/%q/%d", r.DF, r.G, r.C, r.Clustered, r.Method, r.Moved)
	}
	if r.Informative != 4 || r.Pairs != 7 || r.Rescued != 5 || r.Broke != 1 || r.RepsMin != 1 || r.RepsMax != 2 {
		t.Errorf("Informative/Pairs/Rescued/Broke/Reps = %d/%d/%d/%d/%d-%d", r.Informative, r.Pairs, r.Rescued, r.Broke, r.RepsMin, r.RepsMax)
	}
	// Sign-flip over the non-zero d = [1, .5, 1]: only the all-same-sign
	// assignments reach |2.5|, p = 2/8; it is the primary p.
	near(t, "PPerm", r.PPerm, 0.25, 1e-15)
	near(t, "P", r.P, 0.25, 1e-15)
	near(t, "PermFloor", r.PermFloor, 0.25, 1e-15)
	// Durkalski's statistic (Σd)²/Σd² = 6.25/2.25.
	near(t, "chi2 clustered", r.Chi2Clustered, 6.25/2.25, 1e-15)
}

func TestPairedDiffTInterval(t *testing.T) {
	// 16 tasks, one rep: 9 rescued, 5 broke, 2 unchanged; 14 moved ≥ 12, so
	// the t interval on 15 df. Δ = 4/16; s_d² = (14 − 16·Δ²)/15.
	var p []Pair
	for i := range 16 {
		ab := "01"
		switch {
		case i >= 14:
			ab = "11"
		case i >= 9:
			ab = "10"
		}
		p = append(p, mkPairs(string(rune('a'+i)), "", ab)...)
	}
	r := mustPaired(t, p)
	if r.CIMethod != CIMethodT || r.DF != 15 || r.Moved != 14 {
		t.Fatalf("CIMethod/DF/Moved = %s/%d/%d", r.CIMethod, r.DF, r.Moved)
	}
	se := math.Sqrt((14-16*0.25*0.25)/15) / 4
	near(t, "SE", r.SE, se, 1e-15)
	// t_{0.975, 15} = 2.131450 (any t table).
	near(t, "CI lo", r.CI[0], 0.25-2.1314495455*se, 1e-9)
	near(t, "CI hi", r.CI[1], 0.25+2.1314495455*se, 1e-9)
	// With ±1 differences the exact sign-flip p is the exact McNemar p of
	// b = 9, c = 5: 2·Σ_{k≤5} C(14, k)/2^14 = 6946/16384 = 0.42395 (R:
	// binom.test(5, 14)$p.value = 0.424).
	near(t, "P", r.P, 6946.0/16384, 1e-15)
	near(t, "P = McNemar", r.P, McNemarExact(9, 5), 1e-15)
}

// The Laplace-adjusted Wald interval with one rep per task is the Bonett–Price
// interval as R's contingencytables::Wald_CI_BonettPrice_paired_2x2 computes
// it ((n12 + 1)/(N + 2), (n21 + 1)/(N + 2), SE √((π̃12 + π̃21 − (π̃12 −
// π̃21)²)/(N + 2))), here on its documented example, Bentur et al. 2009:
// n = [[1, 1], [7, 12]]; that function reports p1 − p2 (rows minus columns),
// so ours, B − A with A the rows, is its mirror: [0.013380, 0.508359].
func TestAdjustedIntervalBonettPrice(t *testing.T) {
	var d []float64
	for range 1 + 12 {
		d = append(d, 0)
	}
	d = append(d, -1) // n12: A pass, B fail
	for range 7 {     // n21: A fail, B pass
		d = append(d, 1)
	}
	ci := AdjustedInterval(d, Z95)
	near(t, "lo", ci[0], 0.013379821816175724, 1e-12)
	near(t, "hi", ci[1], 0.5083593086186069, 1e-12)
	// All six differences 0: not a point, ±z·√(2/8/8).
	ci = AdjustedInterval(make([]float64, 6), Z95)
	near(t, "all-zero half width", ci[1], 0.3464759588203776, 1e-12)
	near(t, "all-zero symmetric", ci[0], -ci[1], 1e-15)
	if ci := AdjustedInterval(nil, Z95); ci != [2]float64{-1, 1} {
		t.Errorf("no tasks: %v", ci)
	}
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
	// p_paired flips the 3 cluster sums (2, 1.5, 1.5): 2/2^3; p_perm flips
	// the 6 tasks: 2/2^6.
	near(t, "P", r.P, 0.25, 1e-15)
	near(t, "PPerm", r.PPerm, 2.0/64, 1e-15)
	if want := []PairedReason{ReasonClusterFlip, ReasonFewMoved}; r.CIMethod != CIMethodAdjusted || !slices.Equal(r.Reasons, want) {
		t.Errorf("6 moved tasks: CIMethod %s Reasons %v, want adjusted %v", r.CIMethod, r.Reasons, want)
	}
	// The adjusted interval is over the clusters: their sums (2, 1.5, 1.5)
	// scaled by C/G = 1/2, the cluster means, not the six task differences.
	if want := AdjustedInterval([]float64{1, 0.75, 0.75}, Z95); r.CI != want {
		t.Errorf("clustered adjusted interval %v, want %v over the cluster means", r.CI, want)
	}
	if tasks := AdjustedInterval([]float64{1, 1, 1, 0.5, 1, 0.5}, Z95); r.CI == tasks {
		t.Errorf("clustered adjusted interval %v is the one over tasks", r.CI)
	}

	// 15 tasks moved in 3 clusters: the t interval needs 12 moved clusters.
	var many []Pair
	for i := range 15 {
		outcome := "01"
		if i%5 == 0 {
			outcome = "10"
		}
		many = append(many, mkPairs(fmt.Sprintf("t%02d", i), fmt.Sprintf("c%d", i/5), outcome)...)
	}
	r = mustPaired(t, many)
	if r.Moved != 15 || r.MovedUnits != 3 || r.CIMethod != CIMethodAdjusted {
		t.Errorf("15 tasks in 3 clusters: Moved %d MovedUnits %d CIMethod %s, want 15 3 adjusted", r.Moved, r.MovedUnits, r.CIMethod)
	}

	// Every task in its own cluster is the unclustered test.
	r = mustPaired(t, join(mkPairs("a", "a", "01"), mkPairs("b", "b", "00"), mkPairs("c", "c", "01", "11")))
	if r.Clustered || r.DF != 2 {
		t.Errorf("singleton clusters: Clustered=%v DF=%d, want false 2", r.Clustered, r.DF)
	}
	// One cluster for all tasks: fall back to tasks, say so.
	r = mustPaired(t, join(mkPairs("a", "s", "01"), mkPairs("b", "s", "00"), mkPairs("c", "s", "01", "11")))
	if want := []PairedReason{ReasonOneCluster, ReasonFewMoved}; r.Clustered || r.DF != 2 || !slices.Equal(r.Reasons, want) {
		t.Errorf("one cluster: Clustered=%v DF=%d Reasons=%v, want false 2 %v", r.Clustered, r.DF, r.Reasons, want)
	}
	sd := math.Sqrt(((1-0.5)*(1-0.5) + 0.25 + 0) / 2)
	near(t, "one-cluster SE", r.SE, sd/math.Sqrt(3), 1e-15)
}

// Families of unequal sizes: 3 families of 1, 1 and 6 tasks, the large one broken on every task (d = −1), the
// others unmoved; Δ = −6/8. The adjusted interval is over the families' means (0, 0, −1) weighted by their sizes
// ×C/G (3/8, 3/8, 9/4), with pseudo-families of weight 1 at ±1: m = −2.25/5 = −0.45 and
// half-width z·√(Σw²(x − m)²)/5 = z·√(3.9928…)/5, so [−1, 0.3333]. The sums scaled by C/G as plain units
// (0, 0, −2.25) leave [−1, 1] and gave [−1, 0.51].
func TestPairedDiffClusteredUnequalSizes(t *testing.T) {
	ps := join(mkPairs("a", "s1", "00"), mkPairs("b", "s2", "11"))
	for i := range 6 {
		ps = append(ps, mkPairs(fmt.Sprintf("big%d", i), "big", "10")...)
	}
	r := mustPaired(t, ps)
	if !r.Clustered || r.C != 3 || r.G != 8 || r.CIMethod != CIMethodAdjusted {
		t.Fatalf("Clustered/C/G/CIMethod = %v/%d/%d/%s, want true/3/8/adjusted", r.Clustered, r.C, r.G, r.CIMethod)
	}
	near(t, "Delta", r.Delta, -0.75, 1e-15)
	w := []float64{3.0 / 8, 3.0 / 8, 9.0 / 4, 1, 1}
	x := []float64{0, 0, -1, 1, -1}
	v := 0.0
	for i := range x {
		v += w[i] * w[i] * (x[i] + 0.45) * (x[i] + 0.45)
	}
	near(t, "CI high", r.CI[1], -0.45+Z95*math.Sqrt(v)/5, 1e-12)
	near(t, "CI high (value)", r.CI[1], 0.33333, 1e-4)
	if r.CI[0] != -1 {
		t.Errorf("CI low %v, want -1 (clamped)", r.CI[0])
	}
	// Equal sizes: the weights are 1 and it is AdjustedInterval over the means.
	if got, want := AdjustedIntervalClustered([]float64{2, 1.5, 1.5}, []int{2, 2, 2}, Z95), AdjustedInterval([]float64{1, 0.75, 0.75}, Z95); math.Abs(got[0]-want[0]) > 1e-15 || math.Abs(got[1]-want[1]) > 1e-15 {
		t.Errorf("equal sizes: %v, want %v", got, want)
	}
}

func TestPairedDiffZeroVariance(t *testing.T) {
	// Five tasks, B rescues every one: all d_t = 1, t undefined; the exact
	// sign-flip p is 2/2^5.
	var p []Pair
	for _, task := range []string{"a", "b", "c", "d", "e"} {
		p = append(p, mkPairs(task, "", "01")...)
	}
	r := mustPaired(t, p)
	// No spread: not the point [1, 1] but the adjusted interval.
	if r.Method != "signflip" || r.SE != 0 || r.CIMethod != CIMethodAdjusted || r.CI[1] != 1 ||
		!slices.Equal(r.Reasons, []PairedReason{ReasonNoSpread}) {
		t.Errorf("zero variance: %+v", r)
	}
	near(t, "CI lo", r.CI[0], 0.19583598113411171, 1e-12)
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
	if r.Method != "none" || r.G != 0 || r.P != 1 || r.CI != [2]float64{-1, 1} || r.PPerm != 1 ||
		!slices.Equal(r.Reasons, []PairedReason{ReasonNoPairs}) {
		t.Errorf("no pairs: %+v", r)
	}
	r = mustPaired(t, mkPairs("only", "", "01", "01", "00"))
	if r.Method != "signflip" || r.G != 1 || r.P != 1 || r.CI != [2]float64{-1, 1} || r.DF != 0 || r.Informative != 1 ||
		!slices.Equal(r.Reasons, []PairedReason{ReasonOneTask}) {
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
	if !reflect.DeepEqual(r1, r2) {
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
	// Off any lattice (scaled by √2) with maxExact 5: Monte Carlo.
	scaled := make([]float64, len(d))
	for i, v := range d {
		scaled[i] = v * math.Sqrt2
	}
	mc, floorMC := SignFlip(scaled, 5, 100000, 7)
	near(t, "Monte Carlo vs exact", mc, exact, 0.004) // ≈5 SE
	if floorMC != floor {
		t.Errorf("floor differs between exact and MC: %v %v", floorMC, floor)
	}
	again, _ := SignFlip(scaled, 5, 100000, 7)
	if again != mc {
		t.Error("Monte Carlo p not reproducible with the same seed")
	}
	// 30 equal differences: no random flip reaches |30| except with
	// probability 2^-29, so p = 1/(samples+1).
	ones := make([]float64, 30)
	for i := range ones {
		ones[i] = math.Sqrt2
	}
	p, f := SignFlip(ones, 0, 1000, 3)
	near(t, "MC floor p", p, 1.0/1001, 1e-15)
	near(t, "floor 30", f, math.Ldexp(1, -29), 1e-24)
	// On the lattice the convolution is exact at any size: 30 equal
	// differences give 2/2^30, 100 give 2/2^100.
	for i := range ones {
		ones[i] = 1
	}
	p, _ = SignFlip(ones, 0, 1000, 3)
	near(t, "exact 30", p, math.Ldexp(1, -29), 1e-24)
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = 0.2
	}
	p, _ = SignFlip(hundred, 0, 0, 1)
	near(t, "exact 100", p/math.Ldexp(1, -99), 1, 1e-9)
}

// Durkalski's cluster-adjusted McNemar statistic on the example of
// clust.bin.pair's durkalski.test (ak, bk, ck, dk per cluster; its formula
// sum((bk−ck)/nk)² / sum(((bk−ck)/nk)²)), with each cluster a task.
func TestChi2ClusteredDurkalski(t *testing.T) {
	ak, bk := []int{1, 3, 0, 1, 2}, []int{51, 67, 44, 58, 47}
	ck, dk := []int{18, 26, 43, 21, 28}, []int{0, 2, 1, 3, 4}
	var p []Pair
	for k := range ak {
		task := string(rune('a' + k))
		rep := 0
		for _, cell := range []struct {
			n    int
			a, b bool
		}{{ak[k], true, true}, {bk[k], true, false}, {ck[k], false, true}, {dk[k], false, false}} {
			for range cell.n {
				p = append(p, Pair{Task: task, Rep: rep, A: cell.a, B: cell.b})
				rep++
			}
		}
	}
	r := mustPaired(t, p)
	near(t, "chi2", r.Chi2Clustered, 3.8411669533932216, 1e-12)
}
