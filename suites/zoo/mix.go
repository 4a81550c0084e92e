package zoo

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"webbench/suites"
)

// The realistic mix (ZOO.md "A realistic mix"): a selection of the Zoo's tasks in which each page failure mode
// has the share of tasks the seeds report on real sites, so that a whole-suite ablation (scope all) estimates a
// guard's effect at a realistic prevalence instead of on its target tasks only. The suite option `mix:
// realistic` selects it from every task and instance (instances=all); `mix_seed` (default 1) varies which
// instances are drawn, never how many.

// MixShare is one failure mode's share of the realistic mix: the guard whose mutations cause it, the seed that
// reports it, and the count over the denominator it reports (Count/Of = the share of tasks). Assumed marks a
// failure mode whose seed gives no rate: it gets the rarest rate the seeds do give (MixFloor), so that the
// mix still holds it; the docs say so.
type MixShare struct {
	// Guard is the guard (GUARDS.md) whose failure mode this is; the mix counts a task to it when one of the
	// task's mutations has this guard.
	Guard string
	// Mode is the failure mode's name in attempt records (results.FailureMode).
	Mode string
	// Seed is the seed file that reports the rate.
	Seed string
	// Count and Of are the seed's numbers: Count of Of tasks (or runs) hit the failure.
	Count, Of int
	// Where says what Of counts (the run the seed measured).
	Where string
	// Assumed is true when the seed gives no rate and Count/Of is MixFloor.
	Assumed bool
}

// Share is Count/Of.
func (m MixShare) Share() float64 { return float64(m.Count) / float64(m.Of) }

// MixFloor is the rate given to a failure mode whose seed gives none: the rarest rate the seeds report, one
// stale-ref failure among 30 WebVoyagerX tasks (seed 002).
var MixFloor = [2]int{1, 30}

// RealisticMix is the mix's table, one row per page failure mode. repeat_guard and final_recovery act on any
// task and are not page conditions: their prevalence is the scripted profile's (the `observed` profile's
// post-answer loop and prose-final rates, ZOO.md "The scripted policy"), not the selection's.
var RealisticMix = []MixShare{
	{"intercept_hint", "intercepted", "000_3424b9a9f1455e74.txt", 12, 90,
		"WebVoyager tasks that hit \"element intercepts pointer events\"", false},
	{"stale_ref_refresh", "stale_ref_deadlock", "002_3387392b86907d54.txt", 1, 30,
		"WebVoyagerX tasks that failed on stale element refs (Booking--0)", false},
	{"snapshot_ready", "empty_snapshot", "002_3387392b86907d54.txt", MixFloor[0], MixFloor[1],
		"no rate: \"a rare tail\" (a Mattermost login)", true},
	{"evaluate_isolation", "hung_evaluate", "003_9cc4dcec694efa94.txt", MixFloor[0], MixFloor[1],
		"no rate: a design note on hung evaluates", true},
	{"visual_progress", "stalled", "004_d7415215723c8575.txt", MixFloor[0], MixFloor[1],
		"no rate: one traced session", true},
}

// MixRealistic is the value of the suite option `mix` that selects the realistic mix.
const MixRealistic = "realistic"

// SelectMix returns the realistic mix drawn from tasks (every task and instance): the largest selection in
// which every failure mode of RealisticMix has its share of the tasks (rounded to whole tasks) and the rest are
// clean tasks (no mutation). Within a failure mode, and among the clean tasks, it takes one instance of each
// family in turn, alternating between the apps (spreadOver), so the mix spreads over families and apps. Adding families or instances only lets the mix grow; the shares stay. Tasks are returned
// in the order of tasks. Errors when a failure mode has no task.
func SelectMix(tasks []suites.Task, seed uint64) ([]suites.Task, error) {
	pools := map[string][]suites.Task{}
	for _, t := range tasks {
		pools[mixPool(t)] = append(pools[mixPool(t)], t)
	}
	clean := 1.0
	for _, m := range RealisticMix {
		clean -= m.Share()
	}
	// The total is bounded by every pool: n·share ≤ len(pool), n·clean ≤ len(clean pool).
	total := math.Floor(float64(len(pools[""])) / clean)
	for _, m := range RealisticMix {
		if len(pools[m.Guard]) == 0 {
			return nil, fmt.Errorf("zoo: mix %s: no task exercises %s (failure mode %s)", MixRealistic, m.Guard, m.Mode)
		}
		total = math.Min(total, math.Floor(float64(len(pools[m.Guard]))/m.Share()))
	}
	keep := map[string]bool{}
	taken := 0
	for _, m := range RealisticMix {
		n := max(1, int(math.Round(total*m.Share())))
		for _, t := range spreadOver(pools[m.Guard], n, seed) {
			keep[t.ID] = true
		}
		taken += n
	}
	for _, t := range spreadOver(pools[""], int(total)-taken, seed) {
		keep[t.ID] = true
	}
	var out []suites.Task
	for _, t := range tasks {
		if keep[t.ID] {
			out = append(out, t)
		}
	}
	return out, nil
}

// mixPool is the pool a task belongs to: the guard of its first mutation that the mix counts, or "" (clean)
// when it has no mutation; a task whose mutations the mix does not count belongs to no pool ("-").
func mixPool(t suites.Task) string {
	if len(t.Mutations) == 0 {
		return ""
	}
	for _, name := range t.Mutations {
		mu, _ := LookupMutation(name)
		if slices.ContainsFunc(RealisticMix, func(m MixShare) bool { return m.Guard == mu.Guard }) {
			return mu.Guard
		}
	}
	return "-"
}

// spreadOver takes n tasks of pool, one per family in turn. The families alternate between the apps (apps in
// name order, each app's families in an order shuffled by seed), so a few tasks come from as many apps as the
// pool has; each family's tasks are in an order shuffled by seed and the family id.
func spreadOver(pool []suites.Task, n int, seed uint64) []suites.Task {
	byFam := map[string][]suites.Task{}
	byApp := map[string][]string{}
	for _, t := range pool {
		f := Family(t)
		if byFam[f] == nil {
			byApp[t.App] = append(byApp[t.App], f)
		}
		byFam[f] = append(byFam[f], t)
	}
	for _, f := range slices.Sorted(maps.Keys(byFam)) {
		ts := byFam[f]
		slices.SortFunc(ts, func(a, b suites.Task) int { return cmp.Compare(a.ID, b.ID) })
		rng := rand.New(rand.NewPCG(seed, uint64(staysHash("mix", f))))
		rng.Shuffle(len(ts), func(i, j int) { ts[i], ts[j] = ts[j], ts[i] })
	}
	apps := slices.Sorted(maps.Keys(byApp))
	for _, a := range apps {
		fs := byApp[a]
		slices.Sort(fs)
		rng := rand.New(rand.NewPCG(seed, uint64(staysHash("mix-app", a))))
		rng.Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
	}
	var fams []string
	for i := 0; len(fams) < len(byFam); i++ {
		for _, a := range apps {
			if i < len(byApp[a]) {
				fams = append(fams, byApp[a][i])
			}
		}
	}
	var out []suites.Task
	for round := 0; len(out) < n; round++ {
		added := false
		for _, f := range fams {
			if round < len(byFam[f]) && len(out) < n {
				out = append(out, byFam[f][round])
				added = true
			}
		}
		if !added {
			break
		}
	}
	return out
}

// parseMixSeed reads the suite option mix_seed: a non-negative integer, 1 when empty.
func parseMixSeed(s string) (uint64, error) {
	if s == "" {
		return 1, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("zoo: mix_seed: want an integer ≥ 0, got %q", s)
	}
	return n, nil
}
