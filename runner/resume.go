package runner

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"webbench/browser/cassette"
	"webbench/results"
)

// remaining lists the attempts of atts still to run (no pass/fail record in prev), counting the others in
// sum.Skipped, and how many records each already has (its retries so far). With final (a sequential design)
// every recorded attempt counts as done, an infra error included: the looks already used its record, and
// running it again would change a decision the log replays (attempts abandoned unrecorded still run).
func remaining(atts []Attempt, prev *results.ReadResult, sum *Summary, final bool) ([]Attempt, map[string]int) {
	records := map[string]int{}
	for _, r := range prev.Records {
		records[r.AttemptID]++
	}
	var todo []Attempt
	retriesSoFar := map[string]int{}
	for _, a := range atts {
		if r, ok := prev.Latest[a.AttemptID]; ok && (final || r.Judged()) {
			sum.Skipped++
			continue
		}
		if n := records[a.AttemptID]; n > 0 {
			retriesSoFar[a.AttemptID] = n
		}
		todo = append(todo, a)
	}
	return todo, retriesSoFar
}

// ErrPlanMismatch is returned when the run directory holds a run of another plan: resuming it would report
// the old records under the new configuration.
var ErrPlanMismatch = errors.New("run directory holds a different plan")

// previous reads the records already in dir for resuming, after checking that dir holds a run of the same
// plan (checkSamePlan), through results.Open. A directory without a manifest is a new run (refused when it
// holds records all the same); so is one whose manifest is there but no attempt was recorded.
func previous(dir string, plan Plan, src *results.Sources) (*results.ReadResult, error) {
	run, err := results.Open(dir)
	switch {
	case errors.Is(err, results.ErrNoManifest):
		// A new run: the manifest is written before any record, so records without one are no run of this bench.
		if st, err := os.Stat(filepath.Join(dir, results.AttemptsFile)); err == nil && st.Size() > 0 {
			return nil, fmt.Errorf("%w: %s holds records but no %s", ErrPlanMismatch, dir, results.ManifestFile)
		}
		return &results.ReadResult{Latest: map[string]results.Attempt{}}, nil
	case errors.Is(err, results.ErrBadManifest):
		return nil, fmt.Errorf("%w: %v", ErrPlanMismatch, err)
	case err != nil:
		return nil, err
	}
	if len(run.Records) == 0 && !run.TornTail {
		// A run that recorded nothing (stopped by the preflight's or its first attempt's endpoint error, or
		// interrupted early) has nothing to mix with: the fixed command starts it afresh.
		return &results.ReadResult{Latest: map[string]results.Attempt{}}, nil
	}
	if err := checkSamePlan(dir, run.Manifest.Plan, plan.Record()); err != nil {
		return nil, err
	}
	if err := checkSameSources(dir, run.Manifest.Sources, src); err != nil {
		return nil, err
	}
	rr := &results.ReadResult{Records: run.Records, Latest: map[string]results.Attempt{}, TornTail: run.TornTail}
	for _, a := range run.Final() {
		rr.Order = append(rr.Order, a.AttemptID)
		rr.Latest[a.AttemptID] = a
	}
	return rr, nil
}

// checkSamePlan refuses a run directory whose manifest records other variants (model, profile, guards, prompt
// file, budgets, seed mode, scope), another suite, another base seed or another sequential design (its units
// included: extending a sequential run's tasks is refused). Other tasks or more reps extend a fixed-size run
// and are allowed (so the variants' target tasks and prompt hashes are not compared); a sequential run's reps
// and target tasks define its units' differences, so changing them after a look is refused too.
func checkSamePlan(dir string, old, cur results.Plan) error {
	why := ""
	switch {
	case old.Suite != cur.Suite:
		why = fmt.Sprintf("suite: %s → %s", old.Suite, cur.Suite)
	case old.BaseSeed != cur.BaseSeed:
		why = fmt.Sprintf("base seed: %d → %d", old.BaseSeed, cur.BaseSeed)
	case seqJSON(old) != seqJSON(cur):
		why = seqMismatch(old, cur)
	case seqJSON(cur) != "null" && old.Reps != cur.Reps:
		why = fmt.Sprintf("reps: %d → %d (a sequential run's units would change after its looks)", old.Reps, cur.Reps)
	case seqJSON(cur) != "null" && !sameTargets(old.Variants, cur.Variants):
		why = "other target tasks (a sequential run's units would change after its looks)"
	default:
		diffs := variantDiffs(old.Variants, cur.Variants)
		if len(diffs) == 0 {
			return nil
		}
		why = strings.Join(diffs, "; ")
	}
	return fmt.Errorf("%w: %s was run with another plan (%s); resuming would mix configurations — use another --out",
		ErrPlanMismatch, dir, why)
}

// sourcesOf is the run's cassette and model cache as the manifest records them (results.Sources).
func sourcesOf(opts Options) *results.Sources {
	s := &results.Sources{}
	if c := opts.Cassette; c != nil {
		s.Cassette, s.CassetteDir = string(results.CassetteReplay), absDir(c.Dir())
		if c.Mode() == cassette.Record {
			s.Cassette = string(results.CassetteRecord)
		}
		s.RecordSecrets = c.Mode() == cassette.Record && c.Manifest().Secrets
		s.RecordMissing = c.Fills()
	}
	if opts.ModelCache != "" {
		s.ModelCache = absDir(opts.ModelCache)
	}
	return s
}

// absDir is dir as an absolute path, so that a resume from another working directory, or with the same directory
// given relative instead of absolute, compares the same place; dir cleaned when it has no absolute form.
func absDir(dir string) string {
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return filepath.Clean(dir)
}

// checkSameSources refuses to resume a run (its manifest's sources old; nil: written before they were
// recorded, not compared) with another cassette or model cache (cur), naming each differing field with both
// values. What the agent sees would change between the attempts already recorded and the rest: a replay
// answers with the recorded pages at the record time, a live run with today's; another recording or another
// cache holds other pages and replies; and a recording resumed into another directory, or without one, leaves
// neither cassette complete. The secrets mode is compared for the record it keeps (the cassette refuses a mixed
// directory itself). Adding or dropping --record-missing is allowed: it changes only what a miss gets (a live
// fetch instead of a 404), and every attempt's record counts its misses (cassette_misses), so the attempts it
// touched stay named.
func checkSameSources(dir string, old, cur *results.Sources) error {
	if old == nil || cur == nil {
		return nil
	}
	o, n := *old, *cur
	o.RecordMissing, n.RecordMissing = false, false
	diffs := fieldDiffs("", o, n)
	if len(diffs) == 0 {
		return nil
	}
	for i, d := range diffs {
		diffs[i] = strings.TrimSpace(d)
	}
	return fmt.Errorf("%w: %s was run with another cassette or model cache (%s); resuming would mix attempts "+
		"that saw different pages or replies — run it again as it was, or use another --out", ErrPlanMismatch, dir,
		strings.Join(diffs, "; "))
}

// sameTargets reports whether the variants of old and cur (the same names, checked after) have the same target
// tasks.
func sameTargets(old, cur []results.Variant) bool {
	return slices.EqualFunc(old, cur, func(a, b results.Variant) bool { return slices.Equal(a.TargetTasks, b.TargetTasks) })
}

// seqMismatch words how two plans' sequential designs differ: present in one only, another α or min effect, or
// other units (the tasks selected, or their families, changed).
func seqMismatch(old, cur results.Plan) string {
	o, n := seqOf(old), seqOf(cur)
	switch {
	case o == nil || n == nil:
		return "another sequential design (or none): its looks would not replay"
	case o.Alpha != n.Alpha || o.MinEffect != n.MinEffect:
		return "a sequential design with " + strings.Join(fieldDiffs("sequential", map[string]float64{"alpha": o.Alpha,
			"min_effect": o.MinEffect}, map[string]float64{"alpha": n.Alpha, "min_effect": n.MinEffect}), ", ") +
			": its looks would not replay"
	}
	return fmt.Sprintf("a sequential design over %d units, now %d other or reordered ones (the tasks changed): its looks "+
		"would not replay", len(o.Units), len(n.Units))
}

// seqOf is plan p's sequential design (nil: none).
func seqOf(p results.Plan) *results.Sequential {
	if p.Ablation == nil {
		return nil
	}
	return p.Ablation.Sequential
}

// seqJSON is plan p's sequential design as JSON ("null" when it has none).
func seqJSON(p results.Plan) string {
	b, _ := json.Marshal(seqOf(p))
	return string(b)
}

// variantDiffs names each field in which the variants of two plans differ, with both values (`variant
// baseline: model.profile: clean → observed`), leaving out what extending the run may change (target tasks,
// prompt hashes, switched guards) and what changes no result (the connection cap); variants present in one plan
// only are named as such.
func variantDiffs(old, cur []results.Variant) []string {
	norm := func(vs []results.Variant) map[string]results.Variant {
		m := map[string]results.Variant{}
		for _, v := range vs {
			v.TargetTasks, v.PromptSHA256, v.Switched = nil, "", nil
			v.Model.MaxConnections = 0 // a connection cap changes no result: resuming with another one is allowed
			m[v.Name] = v
		}
		return m
	}
	o, n := norm(old), norm(cur)
	var out []string
	for _, v := range old {
		if _, ok := n[v.Name]; !ok {
			out = append(out, fmt.Sprintf("variant %s: only in the earlier run", v.Name))
		}
	}
	for _, v := range cur {
		ov, ok := o[v.Name]
		if !ok {
			out = append(out, fmt.Sprintf("variant %s: not in the earlier run", v.Name))
			continue
		}
		out = append(out, fieldDiffs("variant "+v.Name+":", ov, n[v.Name])...)
	}
	return out
}

// fieldDiffs lists `prefix path: old → new` for each leaf of a's and b's JSON forms that differs (a path in one
// only reads "(none)" on the other side), in path order.
func fieldDiffs(prefix string, a, b any) []string {
	fa, fb := map[string]string{}, map[string]string{}
	flattenJSON("", a, fa)
	flattenJSON("", b, fb)
	keys := slices.Sorted(maps.Keys(fa))
	for k := range fb {
		if _, ok := fa[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		va, vb := cmp.Or(fa[k], "(none)"), cmp.Or(fb[k], "(none)")
		if va != vb {
			out = append(out, fmt.Sprintf("%s %s: %s → %s", prefix, k, va, vb))
		}
	}
	return out
}

// flattenJSON puts v's JSON form into out as dotted path → value text (strings bare, others as JSON; a list is
// one leaf).
func flattenJSON(path string, v any, out map[string]string) {
	b, _ := json.Marshal(v)
	var x any
	_ = json.Unmarshal(b, &x)
	var walk func(p string, x any)
	walk = func(p string, x any) {
		switch t := x.(type) {
		case map[string]any:
			for k, c := range t {
				walk(strings.TrimPrefix(p+"."+k, "."), c)
			}
		case string:
			out[p] = t
		case nil:
		default:
			j, _ := json.Marshal(t)
			out[p] = string(j)
		}
	}
	walk(path, x)
}

// shufflePairs returns todo with its pairs (runs of consecutive attempts with the same PairID, as Plan.Expand
// lists them) in an order shuffled deterministically by seed, then stably sorted by the pair's number of
// attempts, most first; each pair's arms stay next to each other and in their order (STATS.md "Pairing").
//
// The shuffle: in task order the pairs of one app come together, and one app's attempts mostly wait (hung
// fetches, intercepted clicks: timeouts) while another's load the CPU (2,000-ref pages), so the workers were idle
// in some stretches and starved in others; spread out, they overlap. Measured on the demo spec (2 cores, workers
// 6, 2026-12-03): 246 s in task order, 228 s shuffled, the same outcome in every arm.
//
// The sort is longest-processing-time-first list scheduling (Graham, "Bounds on multiprocessing timing
// anomalies", SIAM J. Appl. Math. 17(2), 1969), a pair's work counted in attempts of its task. It matters when
// pairs have different numbers of arms (an ablation with scope: target, where an arm runs only its guard's
// tasks): the pairs of tasks that several guards target start first, with them the guard-off attempts that wait
// out a budget (a hung evaluate waits 30 or 60 s), so the run no longer ends on one of those started late, the
// CPU idle. The budget is no estimate: most attempts end long before it, and sorting by it started the demo's
// hung evaluates after its 90 s-budget pairs, at 120-163 s. Replaying six demo runs' recorded attempt durations
// on 6 workers: 191-224 s shuffled, 156-209 s most arms first, within 3 s of the order by the recorded durations.
// A plan whose pairs all have the same arms (bench run, scope: all) keeps the shuffled order.
//
// The order changes no attempt's seed or outcome; only when each runs, and so the Zoo's sequence numbers (order
// and confirmation numbers) an attempt's final answer may hold.
func shufflePairs(todo []Attempt, seed int64) []Attempt {
	var groups [][]Attempt
	for i, a := range todo {
		if i == 0 || todo[i-1].PairID != a.PairID {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], a)
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x51ed270b))
	r.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	slices.SortStableFunc(groups, func(x, y []Attempt) int { return cmp.Compare(len(y), len(x)) })
	return slices.Concat(groups...)
}

// allPlanned is the subject of the nothing-to-run line: "the 1 planned attempt is", "all 8 planned attempts are".
func allPlanned(n int) string {
	if n == 1 {
		return "the 1 planned attempt is"
	}
	return fmt.Sprintf("all %d planned attempts are", n)
}
