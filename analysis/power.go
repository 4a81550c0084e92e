package analysis

// The power of the primary paired test (PairedDiff) for a design, by simulation or normal approximation, its
// minimum detectable effect, and the design estimated from a run's pairs (STATS.md §4).

import (
	"cmp"
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"webbench/stats"
)

// PairedTestName names the test the power figures of a paired comparison are for (PowerAnalysis.Test): the
// primary test, PairedDiff, over its unit — UnitTask, or the clusters' singular noun (e.g. "family") when the
// test flips the clusters' sums.
func PairedTestName(unit string) string {
	over := "tasks"
	if unit != UnitTask {
		over = "the " + unit + " sums"
	}
	return "paired " + unit + "-level test (mean of per-task differences; exact sign-flip over " + over + ")"
}

// Power methods (PowerAnalysis.Method).
const (
	// PowerSimulated: Monte Carlo over simulated runs of the design, each
	// analysed by PairedDiff (PowerPrimarySim).
	PowerSimulated = "simulation"
	// PowerNormal: the normal approximation of PowerPrimaryApprox, used when
	// the design is too large to simulate within the time budget.
	PowerNormal = "normal approximation"
)

// Defaults of the primary test's power simulation.
const (
	// PowerSims is the number of simulated runs per power evaluation (the
	// Monte Carlo SE of a power near 0.8 is ≈0.02).
	PowerSims = 400
	// PowerSeed is the fixed seed of the power simulation, so that reports
	// are reproducible.
	PowerSeed uint64 = 11
	// powerSimBudget bounds the simulated pairs of one power evaluation
	// (PowerSims × pairs of the design); larger designs use PowerNormal.
	powerSimBudget = 400_000
	// mdeSims is the number of simulated runs per step of MDEPrimary's
	// bisection.
	mdeSims = 200
	// movedSims is the number of runs expectedMoved simulates.
	movedSims = 20
)

// ApproxMinMoved is the smallest expected number of moved tasks (d_t ≠ 0)
// at which PowerPrimary uses the normal approximation for a design too large
// to simulate: chosen so that the approximation is within 0.05 of the
// simulated sign-flip power (TestPowerPrimaryApproxMatchesSimulation).
const ApproxMinMoved = 40

// taskMoments returns, for task t of d with baseline rate p and variant rate
// q, the mean and variance of d_t = mean over its n reps of (B − A) under
// d's outcome model. With c = min(p, q) − pq (the covariance of two
// indicators of one uniform draw), ρ the cross-arm share and s the
// within-arm (sticky) share — (ρ, 0) for same-seed pairs, (0, s) for sticky
// reps, (Share, Sticky) for ModelMixed:
//
//	n²·Var(d_t) = n·(p(1−p) + q(1−q) − 2ρc)
//	            + w·(s·p(1−p) + s·(ρ² + (1−ρ)²)·q(1−q) − 2ρ·s·c),
//
// w the ordered pairs of reps that can share a draw: n(n−1), or with
// blocks of b reps (Design.Block, Sizes) the pairs within a block,
// Σ b_j(b_j − 1). With Design.Sizes the unit's statistic is its size m
// times d_t (simDiffs), so the mean is m·(q − p) and the variance m²·Var(d_t).
func taskMoments(d Design, t int, p, q float64) (mean, variance float64) {
	n := float64(d.RepsOf(t))
	va, vb := p*(1-p), q*(1-q)
	c := min(p, q) - p*q
	rho, s := 0.0, 0.0
	switch d.Model {
	case ModelSameSeed:
		rho = d.Share
	case ModelSticky:
		s = d.Share
	case ModelMixed:
		rho, s = d.Share, d.Sticky
	}
	w := n * (n - 1)
	if b := d.blockOf(t); b > 0 && d.Model == ModelMixed {
		full, rem := d.RepsOf(t)/b, d.RepsOf(t)%b
		w = float64(full*b*(b-1) + rem*(rem-1))
	}
	v := n*(va+vb-2*rho*c) + w*(s*va+s*(rho*rho+(1-rho)*(1-rho))*vb-2*rho*s*c)
	m := float64(d.sizeOf(t))
	return m * (q - p), m * m * v / (n * n)
}

// PowerPrimaryApprox returns the normal approximation to the power of the
// primary paired test (PairedDiff at two-sided level alpha, rejecting in the
// direction of delta) when the variant's per-task rates are
// ShiftRates(d.Rates, delta). With μ_t, σ²_t the moments of the per-task
// difference d_t (taskMoments), Δ̂ = mean d_t has variance V = Σσ²_t/G²
// and the t test's SE² has expectation
// S² = [Σ(μ_t − μ̄)² + (1 − 1/G)Σσ²_t]/((G−1)G); then
//
//	power ≈ Φ((|Δ| − t_{1−α/2, G−1}·S)/√V)
//
// (the paired t test's power with the SE at its expectation; Chow, Shao &
// Wang 2008, "Sample Size Calculations in Clinical Research", §3.1, with
// the variance of d_t derived from the design instead of assumed). It is
// validated against PowerPrimarySim in power_primary_test.go. It returns 0
// for G < 2 and panics when ShiftRates does.
func PowerPrimaryApprox(d Design, delta, alpha float64) float64 {
	g := d.G()
	if g < 2 || delta == 0 {
		return 0
	}
	rates := d.Rates
	if d.Mix != nil {
		// The expected moments of the mix: a large fixed realisation.
		rates = d.Mix(rand.New(rand.NewPCG(PowerSeed, 1)), 20000)
	}
	alt := ShiftRates(rates, clampDelta(rates, delta))
	mu := make([]float64, len(rates))
	sumVar, mean := 0.0, 0.0
	for t := range rates {
		m, v := taskMoments(d, t%g, rates[t], alt[t])
		mu[t] = m
		mean += m
		sumVar += v
	}
	mean /= float64(len(rates))
	ss := 0.0
	for _, m := range mu {
		ss += (m - mean) * (m - mean)
	}
	// Per-task averages scaled to the design's g tasks.
	scale := float64(g) / float64(len(rates))
	ss *= scale
	sumVar *= scale
	gf := float64(g)
	v := sumVar / (gf * gf)
	s := math.Sqrt((ss + (1-1/gf)*sumVar) / ((gf - 1) * gf))
	if v <= 0 {
		if math.Ldexp(2, -g) < alpha {
			return 1
		}
		return 0
	}
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: gf - 1}.Quantile(1 - alpha/2)
	return distuv.UnitNormal.CDF((math.Abs(mean) - tq*s) / math.Sqrt(v))
}

// PowerPrimarySim returns the power of the primary paired test by
// simulation: nsim runs of the design (baseline rates d.Rates, variant
// rates ShiftRates(d.Rates, delta), delta clamped to what ShiftRates can
// make; outcomes by d.Model) drawn from a PCG
// generator seeded with seed, each tested as PairedDiff tests it: p_paired
// is SignFlip over the per-task differences d_t with PairedDiff's settings
// (the simulated tasks are unclustered; TestPowerSimMatchesPairedDiff checks
// that this is PairedDiff's P and Δ̂ on the same draws). The power is the
// share of runs with P < alpha and Δ̂ in the direction of delta (for
// delta = 0, the two-sided rejection rate, i.e. the size). nsim ≤ 0 means
// PowerSims. The same seed gives the same uniform draws for every delta
// (common random numbers), so power is close to monotone in |delta|.
func PowerPrimarySim(d Design, delta, alpha float64, nsim int, seed uint64) float64 {
	if nsim <= 0 {
		nsim = PowerSims
	}
	if d.G() == 0 {
		return 0
	}
	rates := d.Rates
	alt := ShiftRates(rates, clampDelta(rates, delta))
	rng := rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d))
	var buf []float64
	hits := 0
	for range nsim {
		if d.Mix != nil {
			rates = d.Mix(rng, d.Tasks)
			alt = ShiftRates(rates, clampDelta(rates, delta))
		}
		buf = simDiffs(rng, d, rates, alt, buf)
		sum := 0.0
		for _, v := range buf {
			sum += v
		}
		if sum == 0 || delta != 0 && (delta < 0) != (sum < 0) {
			continue // Δ̂ = 0 never rejects (p = 1); wrong direction is no hit
		}
		if p, _ := stats.SignFlip(buf, stats.DefaultSignFlipMaxExact, stats.DefaultSignFlipSamples, stats.DefaultSignFlipSeed); p < alpha {
			hits++
		}
	}
	return float64(hits) / float64(nsim)
}

// expectedMoved returns the mean number of tasks with d_t ≠ 0 (the tasks
// the sign-flip test sees) over movedSims simulated runs of d at effect
// delta, from a fixed seed.
func expectedMoved(d Design, delta float64) float64 {
	rates := d.Rates
	rng := rand.New(rand.NewPCG(PowerSeed, 2))
	var buf []float64
	moved := 0
	for range movedSims {
		if d.Mix != nil {
			rates = d.Mix(rng, d.Tasks)
		}
		buf = simDiffs(rng, d, rates, ShiftRates(rates, clampDelta(rates, delta)), buf)
		for _, v := range buf {
			if v != 0 {
				moved++
			}
		}
	}
	return float64(moved) / movedSims
}

// meanRate returns the mean baseline pass rate of d (of a large fixed
// realisation of d.Mix when set).
func meanRate(d Design) float64 {
	rates := d.Rates
	if d.Mix != nil {
		rates = d.Mix(rand.New(rand.NewPCG(PowerSeed, 1)), 20000)
	}
	m := 0.0
	for _, p := range rates {
		m += p
	}
	return m / float64(max(1, len(rates)))
}

// clampDelta limits delta to the change ShiftRates can make on rates.
func clampDelta(rates []float64, delta float64) float64 {
	m := 0.0
	for _, p := range rates {
		m += p
	}
	m /= float64(max(1, len(rates)))
	return math.Max(-m, math.Min(1-m, delta))
}

// Attempts returns the attempts per arm of one run of d: its pairs (a unit's, with Sizes, all its tasks').
func (d Design) Attempts() int { return designPairs(d) }

// designPairs returns the number of pairs of one run of d.
func designPairs(d Design) int {
	n := 0
	for t := range d.G() {
		n += d.RepsOf(t)
	}
	return n
}

// PowerPrimary returns the power of the primary paired test for d at
// effect delta (see PowerPrimarySim) and the method used: simulation with
// PowerSims runs and PowerSeed when PowerSims × pairs ≤ 400,000; for larger
// designs the normal approximation (PowerPrimaryApprox) when the runs are
// expected to move at least ApproxMinMoved tasks (expectedMoved), else
// simulation with as many runs as the budget allows (at least 100). The
// approximation models a t test; the exact sign-flip test is more
// conservative where few tasks move (independent G = 40, R = 2: 0.24
// simulated, 0.31 approximated), so it is used only where it agrees with
// the simulation within 0.05 (TestPowerPrimaryApproxMatchesSimulation).
func PowerPrimary(d Design, delta, alpha float64) (float64, string) {
	return powerPrimaryN(d, delta, alpha, PowerSims)
}

func powerPrimaryN(d Design, delta, alpha float64, nsim int) (float64, string) {
	pairs := designPairs(d)
	if pairs*PowerSims <= powerSimBudget {
		return PowerPrimarySim(d, delta, alpha, nsim, PowerSeed), PowerSimulated
	}
	if expectedMoved(d, delta) >= ApproxMinMoved {
		return PowerPrimaryApprox(d, delta, alpha), PowerNormal
	}
	n := max(100, min(nsim, powerSimBudget/max(1, pairs)))
	return PowerPrimarySim(d, delta, alpha, n, PowerSeed), PowerSimulated
}

// MDEPrimary returns the minimum detectable effect of the primary paired
// test for d: the smallest change in mean pass rate (a positive proportion)
// in the given direction (drop true: a drop, ShiftRates with −δ; else a
// rise) whose power (PowerPrimary's method, simulating 200 runs per step)
// reaches power at level alpha. It bisects δ to 0.005 over (0, room], room
// the mean rate for a drop and
// the mean failure rate for a rise. It returns NaN when even the largest
// change is not detected with that power.
func MDEPrimary(d Design, alpha, power float64, drop bool) float64 {
	stats.CheckAlphaPower("analysis.MDEPrimary", alpha, power)
	m := meanRate(d)
	room, sign := 1-m, 1.0
	if drop {
		room, sign = m, -1
	}
	if d.G() < 2 || room <= 1e-9 {
		return math.NaN()
	}
	ok := func(x float64) bool { pw, _ := powerPrimaryN(d, sign*x, alpha, mdeSims); return pw >= power }
	if !ok(room) {
		return math.NaN()
	}
	return bisectMDE(0, room, 0.005, ok)
}

// bisectMDE is the search of both minimum detectable effects (MDEPrimary, the cost planner's costMDE): the
// effect between lo, where ok (the power reaches its target) fails, and hi, where it holds, at which ok starts
// to hold, bisected until |hi − lo| ≤ tol; it returns the end where ok holds. lo and hi may be negative (a drop);
// ok is taken monotone in the effect's size (power grows with it).
func bisectMDE(lo, hi, tol float64, ok func(float64) bool) float64 {
	for math.Abs(hi-lo) > tol {
		mid := (lo + hi) / 2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// designAcc counts one task's pairs for DesignFromPairs.
type designAcc struct{ n, ka, kb, disc int }

func (a *designAcc) diff() (int, int) { return a.kb - a.ka, a.n }

// matchSpread adjusts the shares of d so that the model's expected spread of
// the per-task differences, E[s_d²] (see PowerPrimaryApprox) at the observed
// Δ̂, equals the observed s_d² of the run (sums[task] = {Σ(B−A), n}; with
// Design.Sizes each unit's difference times its size, the family sum): the
// spread is what the primary t test divides by. More spread than the model
// raises the sticky share (bisection on [Sticky, 1]); less lowers it, then
// raises the cross-arm share (bisection on [Share, 1]). Nothing changes with
// fewer than 3 tasks or no observed spread. It reports false when even a
// sticky share of 1 gives less spread than observed.
func matchSpread(d *Design, names []string, sums map[string][2]int) bool {
	g := len(names)
	if g < 3 {
		return true
	}
	obs := make([]float64, g)
	mean, shift := 0.0, 0.0
	for i, name := range names {
		x := sums[name]
		shift += float64(x[0]) / float64(x[1]) / float64(g)
		obs[i] = float64(x[0]*d.sizeOf(i)) / float64(x[1]) // the unit's statistic, as simDiffs draws it
		mean += obs[i]
	}
	mean /= float64(g)
	ss := 0.0
	for _, v := range obs {
		ss += (v - mean) * (v - mean)
	}
	target := ss / float64(g-1)
	if target <= 0 {
		return true
	}
	alt := ShiftRates(d.Rates, clampDelta(d.Rates, shift))
	spread := func(x Design) float64 {
		mu := make([]float64, g)
		m, sv := 0.0, 0.0
		for t := range g {
			a, v := taskMoments(x, t, x.Rates[t], alt[t])
			mu[t] = a
			m += a
			sv += v
		}
		m /= float64(g)
		q := 0.0
		for _, a := range mu {
			q += (a - m) * (a - m)
		}
		return (q + (1-1/float64(g))*sv) / float64(g-1)
	}
	bisect := func(set func(float64), lo, hi float64, tooBig func() bool) {
		for range 30 {
			mid := (lo + hi) / 2
			set(mid)
			if tooBig() {
				hi = mid
			} else {
				lo = mid
			}
		}
		set((lo + hi) / 2)
	}
	if spread(*d) < target {
		hi := *d
		hi.Sticky, hi.Share = 1, 0
		if spread(hi) < target {
			return false
		}
		bisect(func(x float64) { d.Sticky = x }, d.Sticky, 1, func() bool { return spread(*d) > target })
		return true
	}
	bisect(func(x float64) { d.Sticky = x }, 0, d.Sticky, func() bool { return spread(*d) > target })
	if spread(*d) > target {
		bisect(func(x float64) { d.Share = x }, d.Share, 1, func() bool { return spread(*d) < target })
	}
	return true
}

// DesignFromPairs estimates the design of an observed paired comparison
// for its post-hoc power, in ModelMixed so that same-seed pairing and sticky
// reps are both represented:
//
//   - per task, the baseline's pass rate, shrunk toward its mean by the
//     beta-binomial method of moments (shrunkRates; Kleinman 1973,
//     Biometrics 29:213), and the observed reps per task;
//   - the shares from three disagreement rates pooled over tasks with ≥ 2
//     reps: S between the arms in the same rep, X between the arms in
//     different reps, W between two reps of one arm. Under ModelMixed with
//     equal arm rates, S = 2v(1−ρ), X = 2v(1−ρs), W ≈ 2v(1−s) (v = p(1−p)),
//     so with a = S/X, b = W/X: u = 1−ρs = (a+b−1)/(ab), ρ = 1−a·u,
//     s = 1−b·u, each clamped to [0, 1] (a method-of-moments estimate that
//     needs no per-task rate; it recovers (0.8, 0) for same-seed pairs and
//     (0, 0.8) for sticky reps);
//   - with one rep per task, s = 0 and ρ = 1 − b_obs/b_ind clamped to
//     [0, 1]: b_obs the discordant pairs, b_ind = Σ_t 2p̃_t(1−p̃_t) the
//     number expected at the shrunk rates with independent arms.
//
// Tasks are in sorted order; pairs must satisfy PairedDiff's conditions.
func DesignFromPairs(pairs []stats.Pair) Design { return designFromPairs(pairs, nil) }

// designFromPairs is DesignFromPairs over units that stand for sizes[unit]
// tasks each (clusterUnits; nil: every unit is a task): Design.Sizes holds
// them, and the disagreement rates S, X and W are pooled within each block
// of size consecutive reps of a unit (Rep 1…size, size+1…2·size, …: one rep
// of each of its tasks), the reps that may share a draw, instead of over all
// the unit's reps.
func designFromPairs(pairs []stats.Pair, sizes map[string]int) Design {
	by, blocks := map[string]*designAcc{}, map[[2]any]*designAcc{}
	add := func(a *designAcc, p stats.Pair) {
		a.n++
		if p.A {
			a.ka++
		}
		if p.B {
			a.kb++
		}
		if p.A != p.B {
			a.disc++
		}
	}
	for _, p := range pairs {
		a := by[p.Task]
		if a == nil {
			a = &designAcc{}
			by[p.Task] = a
		}
		add(a, p)
		if block := sizes[p.Task]; block > 0 {
			k := [2]any{p.Task, (p.Rep - 1) / block}
			if blocks[k] == nil {
				blocks[k] = &designAcc{}
			}
			add(blocks[k], p)
		}
	}
	names := slices.Sorted(maps.Keys(by))
	d := Design{Rates: make([]float64, len(names)), Reps: make([]int, len(names)), Model: ModelMixed}
	k, n := make([]int, len(names)), make([]int, len(names))
	for i, name := range names {
		a := by[name]
		d.Reps[i], k[i], n[i] = a.n, a.ka, a.n
		if sizes != nil {
			d.Sizes = append(d.Sizes, max(1, sizes[name]))
		}
	}
	copy(d.Rates, shrunkRates(k, n))
	var sDis, sN, xDis, xN, wDis, wN, disc1, ind1 float64
	for i, name := range names {
		a, p := by[name], d.Rates[i]
		disc1 += float64(a.disc)
		ind1 += float64(a.n) * 2 * p * (1 - p)
	}
	share := slices.Collect(maps.Values(by))
	if sizes != nil {
		share = slices.Collect(maps.Values(blocks))
	}
	for _, a := range share {
		if a.n < 2 {
			continue
		}
		nn := float64(a.n)
		sDis += float64(a.disc)
		sN += nn
		xDis += float64(a.ka*(a.n-a.kb)+(a.n-a.ka)*a.kb) - float64(a.disc)
		xN += nn * (nn - 1)
		wDis += float64(a.ka*(a.n-a.ka) + a.kb*(a.n-a.kb))
		wN += nn * (nn - 1)
	}
	clamp := func(x float64) float64 { return math.Round(1e9*math.Max(0, math.Min(1, x))) / 1e9 }
	switch {
	case xN > 0 && xDis > 0:
		aa, bb := (sDis/sN)/(xDis/xN), (wDis/wN)/(xDis/xN)
		u := 1.0
		if aa > 0 && bb > 0 {
			u = (aa + bb - 1) / (aa * bb)
		}
		d.Share, d.Sticky = clamp(1-aa*u), clamp(1-bb*u)
	case xN > 0:
		// No disagreement between the arms across reps: nothing varies.
		d.Share = 1
	case ind1 > 0:
		d.Share = clamp(1 - disc1/ind1)
	}
	if !matchSpread(&d, names, by2(by)) {
		// The baseline's per-task rates cannot produce the observed spread
		// (sticky reps make one arm's rates look like 0 or 1): use both arms'.
		for i, name := range names {
			a := by[name]
			k[i], n[i] = a.ka+a.kb, 2*a.n
		}
		copy(d.Rates, shrunkRates(k, n))
		matchSpread(&d, names, by2(by))
	}
	return d
}

// by2 returns the per-task sums of B − A of DesignFromPairs's accumulator.
func by2[T interface{ diff() (int, int) }](by map[string]T) map[string][2]int {
	out := make(map[string][2]int, len(by))
	for k, v := range by {
		s, n := v.diff()
		out[k] = [2]int{s, n}
	}
	return out
}

// shrunkRates returns the per-task rates k[i]/n[i] shrunk toward their mean
// by the beta-binomial method of moments (see DesignFromPairs).
func shrunkRates(k, n []int) []float64 {
	g := len(k)
	out := make([]float64, g)
	if g == 0 {
		return out
	}
	m, nbar := 0.0, 0.0
	raw := make([]float64, g)
	for i := range k {
		raw[i] = float64(k[i]) / float64(n[i])
		m += raw[i]
		nbar += float64(n[i])
	}
	m /= float64(g)
	nbar /= float64(g)
	s2 := 0.0
	for _, r := range raw {
		s2 += (r - m) * (r - m)
	}
	if g > 1 {
		s2 /= float64(g - 1)
	}
	v := 0.0
	if nbar >= 2 {
		v = (s2 - m*(1-m)/nbar) / (1 - 1/nbar)
	}
	if v <= 0 || m <= 0 || m >= 1 {
		for i := range out {
			out[i] = m
		}
		return out
	}
	v = math.Min(v, m*(1-m)*(1-1e-9))
	prior := m*(1-m)/v - 1
	for i := range out {
		out[i] = (float64(k[i]) + prior*m) / (float64(n[i]) + prior)
	}
	return out
}

// TasksFor returns the smallest number of tasks G' ≤ maxG at which the
// primary test reaches the target power for effect delta, keeping d's reps
// per task, model and per-task rate mix (task i of the larger design has
// d's rate and reps of task i mod G), and the power there (PowerPrimary's
// method). The search doubles G' from 2 until the power is reached, then
// bisects (power is close to monotone in G'); it returns (0, NaN) when maxG
// tasks are not enough.
func TasksFor(d Design, delta, alpha, power float64, maxG int) (int, float64) {
	at := func(g int) float64 { pw, _ := PowerPrimary(ScaleTasks(d, g), delta, alpha); return pw }
	lo, hi := 1, 2
	var phi float64
	for {
		if phi = at(hi); phi >= power {
			break
		}
		if hi >= maxG {
			return 0, math.NaN()
		}
		lo, hi = hi, min(maxG, 2*hi)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if pm := at(mid); pm >= power {
			hi, phi = mid, pm
		} else {
			lo = mid
		}
	}
	return hi, phi
}

// ScaleTasks returns d with g tasks, task i taking task i mod G's rate and
// reps (d.Mix designs just change Tasks).
func ScaleTasks(d Design, g int) Design {
	if d.Mix != nil {
		d.Tasks = g
		return d
	}
	n := d.G()
	out := d
	out.Rates = make([]float64, g)
	if d.Reps != nil {
		out.Reps = make([]int, g)
	}
	for i := range g {
		out.Rates[i] = d.Rates[i%n]
		if d.Reps != nil {
			out.Reps[i] = d.Reps[i%n]
		}
	}
	return out
}

// powerAnalysis fills the post-hoc power and MDE of c (PowerAnalysis);
// pairs are its matched pairs (nil when unmatched).
func powerAnalysis(c *Comparison, pairs []stats.Pair, in Inputs) PowerAnalysis {
	nan := math.NaN()
	p := PowerAnalysis{N: c.A.N, G: c.G(), Unit: UnitTask, MDE: nan, MDEUnpaired: nan, MDEPaired: nan, MDETasks: nan, PZero: nan,
		MinRunsZero: -1, Power: nan, HolmM: 1, MDEHolm: nan, PowerHolm: nan, ExactFisherUnpaired: nan, PairShare: nan, RepShare: nan,
		PowerAtTasksFor: nan}
	if c.Method == MethodFisher {
		p.N = min(c.A.N, c.B.N)
	}
	if p.N < 1 || in.power == powerNone {
		return p
	}
	p.BaseFail = 1 - c.A.Rate
	p.MDEUnpaired = stats.MDEUnpaired(c.A.Rate, p.N, in.Alpha, in.Power)
	if c.Matched && c.Pairs > 0 && c.Rescued+c.Broke > 0 {
		psi := float64(c.Rescued+c.Broke) / float64(c.Pairs)
		p.MDEPaired = stats.MDEPaired(psi, c.Pairs, in.Alpha, in.Power)
	}
	if c.Matched && c.Paired.DF > 0 && c.Paired.SE > 0 {
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(c.Paired.DF)}
		p.MDETasks = (t.Quantile(1-in.Alpha/2) + t.Quantile(in.Power)) * c.Paired.SE
	}
	plannedEffect(&p, in.MinEffect)
	if p.From > 0 {
		p.PZero = stats.ProbZeroFailures(p.From, p.N)
		p.MinRunsZero = stats.MinRunsZeroFailures(p.From, in.Alpha)
	}
	if p.HasEffect && p.N <= maxFisherPowerN {
		p.ExactFisherUnpaired = stats.ExactPowerFisher(p.From, p.To, p.N, in.Alpha)
	}
	if !c.Matched {
		p.Test, p.Method = "one-sided Fisher exact (unpaired)", "exact enumeration"
		p.Power, p.MDE = p.ExactFisherUnpaired, p.MDEUnpaired
		return p
	}
	tasks := map[string]bool{}
	for _, pr := range pairs {
		tasks[pr.Task] = true
	}
	p.TaskReps = float64(len(pairs)) / float64(max(1, len(tasks)))
	var sizes map[string]int
	if c.Paired.Clustered {
		pairs, sizes = clusterUnits(pairs)
		p.G, p.Unit = c.Paired.C, c.ClusterUnit
	}
	d := designFromPairs(pairs, sizes)
	c.design = &d
	p.Test, p.PairShare, p.RepShare = PairedTestName(p.Unit), d.Share, d.Sticky
	p.Reps = float64(c.Pairs) / float64(max(1, d.G()))
	if in.power != powerOnly {
		p.MDE = MDEPrimary(d, in.Alpha, in.Power, true)
	}
	if !p.HasEffect {
		return p
	}
	// The planned change in pass rate, on the design's own mean rate.
	delta := clampDelta(d.Rates, p.From-p.To)
	p.Power, p.Method = PowerPrimary(d, delta, in.Alpha)
	if p.Power < in.Power && in.power != powerOnly {
		p.TasksFor, p.PowerAtTasksFor = TasksFor(d, delta, in.Alpha, in.Power, MaxPlanTasks)
	}
	return p
}

// clusterUnits returns pairs with each pair's Task replaced by its cluster, so that DesignFromPairs sees every
// cluster as one unit and its pairs as that unit's reps: the unit the clustered sign-flip test flips. A unit's
// reps are numbered rep by rep (rep 1 of every task of the cluster, then rep 2, …), and sizes are the units'
// numbers of tasks: the instances of a family attempted in one rep are one block of reps that may share a draw
// (Design.Sizes), as a deterministic agent's attempts at near-identical instances do, while different reps do
// not, and a family weighs in the test by its size, as its sum does in PairedDiff's. Pooling a family's
// instances as reps of one rate keeps the unit's mean and its binomial noise over all its pairs; heterogeneity
// among the instances only lowers that noise, so the power it gives is not optimistic on that count.
func clusterUnits(pairs []stats.Pair) (out []stats.Pair, sizes map[string]int) {
	out = slices.Clone(pairs)
	unit := func(p stats.Pair) string { return cmp.Or(p.Cluster, p.Task) }
	slices.SortStableFunc(out, func(a, b stats.Pair) int {
		return cmp.Or(cmp.Compare(unit(a), unit(b)), cmp.Compare(a.Rep, b.Rep), cmp.Compare(a.Task, b.Task))
	})
	n, tasks := map[string]int{}, map[string]bool{}
	sizes = map[string]int{}
	for i, p := range out {
		u := unit(p)
		if !tasks[p.Task] {
			tasks[p.Task] = true
			sizes[u]++
		}
		n[u]++
		p.Task, p.Cluster, p.Rep = u, "", n[u]
		out[i] = p
	}
	return out, sizes
}

// plannedEffect sets p.From, p.To and p.HasEffect from p.BaseFail and the
// minimum effect (a drop in pass rate; 0: all failures fixed).
func plannedEffect(p *PowerAnalysis, minEffect float64) {
	from := math.Round(p.BaseFail*100) / 100
	if from == 0 && p.BaseFail > 0 {
		from = p.BaseFail
	}
	p.From = from
	switch {
	case minEffect > 0 && from+minEffect <= 1+1e-12:
		p.To = math.Min(1, from+minEffect)
		p.HasEffect = true
	case minEffect > 0:
		p.To = math.Max(0, from-minEffect)
		p.HasEffect = true
	case from > 0:
		p.To = 0
		p.HasEffect = true
	}
}

// DesignPower is a design of Reps reps on each of Tasks tasks and the power of the primary test on it.
type DesignPower struct {
	Reps, Tasks int
	Power       float64
}

// SmallestDesigns finds, for 1, 2, 3, 5 and 10 reps, the fewest tasks (at most maxG) of d's rate mix at which
// the primary test reaches power for the effect delta at alpha (TasksFor): found sorted by attempts per arm
// (G × R), and the reps at which no G up to maxG does, in that order. A design of the run's own reps (d.Reps)
// is scaled to its tasks first (ScaleTasks).
func SmallestDesigns(d Design, delta, alpha, power float64, maxG int) (found []DesignPower, unreachable []int) {
	for _, r := range []int{1, 2, 3, 5, 10} {
		dr := d
		dr.Reps, dr.Rep = nil, r
		if dr.Mix == nil && d.Reps != nil {
			dr = ScaleTasks(d, d.G())
			dr.Reps = nil
			dr.Rep = r
		}
		if n, p := TasksFor(dr, delta, alpha, power, maxG); n > 0 {
			found = append(found, DesignPower{Reps: r, Tasks: n, Power: p})
		} else {
			unreachable = append(unreachable, r)
		}
	}
	slices.SortStableFunc(found, func(a, b DesignPower) int { return a.Tasks*a.Reps - b.Tasks*b.Reps })
	return found, unreachable
}
