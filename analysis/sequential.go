package analysis

// The sequential ablation (STATS.md "Sequential ablations"): the looks replayed from the records in the plan's
// unit order, the per-variant stops, and what the stops left unrun. One rule serves the runner (which attempts
// not to start), a resume, bench merge and every report, so they all reach the same decisions from the same
// records.

import (
	"fmt"
	"slices"
	"sync"

	"webbench/results"
	"webbench/stats"
)

// SeqRule is the sequential design of one ablation plan laid out over its pairs: the units in look order,
// each unit's pairs and the arms that run on each.
type SeqRule struct {
	design   results.Sequential
	baseline string
	// monitored are the variants the design tests and stops (every variant but the A/A arms), in plan order;
	// the A/A arms run in full.
	monitored []string
	units     [][]seqPair
	// shardLeft are the attempts shards' own rules left unrun where the merged replay still needed them
	// (results.ShardSkips of a merged run's manifest), by attempt id: pairs without an outcome, not missing.
	shardLeft map[string]results.SeqSkip
	// mu guards cache: the looks after each unit so far, so that a replay after one more record recomputes
	// only from the first unit whose records changed.
	mu    sync.Mutex
	cache []seqStep
}

// seqStep is the replay's state after one unit: the records of the unit it was computed from (unitKey), the
// variants' monitoring states and the decisions.
type seqStep struct {
	key       string
	states    []*stats.SeqState
	decisions []SeqDecision
}

// seqPair is one (task, rep) pair of a unit and the arms that run on it, baseline included.
type seqPair struct {
	id   string
	arms []string
}

// NewSeqRule lays out plan p's sequential design (p.Ablation.Sequential) over the pairs keep keeps (a shard's:
// runner.Shard.Has; nil keeps all). It is an error when p has no sequential design or its units name a task
// the plan does not hold.
func NewSeqRule(p results.Plan, keep func(pairID string) bool) (*SeqRule, error) {
	if p.Ablation == nil || p.Ablation.Sequential == nil {
		return nil, fmt.Errorf("the plan has no sequential design")
	}
	in := PlanInputs(p, false, 0)
	r := &SeqRule{design: *p.Ablation.Sequential, baseline: p.Baseline}
	for _, v := range in.Variants {
		if !slices.Contains(in.Copies, v) && !slices.Contains(in.Replays, v) {
			r.monitored = append(r.monitored, v)
		}
	}
	for _, u := range r.design.Units {
		var pairs []seqPair
		for _, t := range u.Tasks {
			if !slices.Contains(p.Tasks, t) {
				return nil, fmt.Errorf("sequential unit %s: task %s is not in the plan", u.Name, t)
			}
			for rep := 1; rep <= p.Reps; rep++ {
				sp := seqPair{id: results.PairID(p.Suite, t, rep)}
				if keep != nil && !keep(sp.id) {
					continue
				}
				for _, v := range p.Variants {
					if v.TargetTasks == nil || slices.Contains(v.TargetTasks, t) {
						sp.arms = append(sp.arms, v.Name)
					}
				}
				pairs = append(pairs, sp)
			}
		}
		r.units = append(r.units, pairs)
	}
	return r, nil
}

// WithShardSkips makes r replay a merged run: the attempts of skips (the merged manifest's Summary.SeqSkips) that
// name a shard were left unrun by that shard's own stop, so they count as recorded without an outcome (their
// pairs add nothing to a look) instead of holding the looks as missing attempts would. It returns r.
func (r *SeqRule) WithShardSkips(skips []results.SeqSkip) *SeqRule {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shardLeft, r.cache = results.ShardSkips(skips), nil
	return r
}

// SeqDecision is one monitored variant's state at the last look: its stop ("" undecided), the unit it was
// decided at (1-based, of the design's units; 0 undecided) and its look then (the repeated interval and
// p of the mean paired difference, over N units).
type SeqDecision struct {
	Variant string
	Stop    stats.SeqStop
	At      int
	Look    stats.SeqLook
}

// seqReplay is the looks replayed over a run's records: the decisions and the number of units looked at.
type seqReplay struct {
	decisions []SeqDecision
	looked    int
}

// replay runs the looks over latest (each attempt id's final record), until every monitored variant is decided:
// after unit k, once every needed attempt of units 1..k has a record, each undecided variant adds the unit's mean
// paired difference over its pairs where both its attempt and the baseline's are pass or fail (variant pass −
// baseline pass), then stats.SeqDecide decides across the monitored variants; a decision is final. Needed: a
// monitored variant's attempts until it is decided, an A/A arm's always, the baseline's on the pairs of an arm
// still needed. The steps of the previous replay are reused up to the first unit whose records differ
// (unitKey): a unit's step depends only on its own records and the steps before it.
func (r *SeqRule) replay(latest map[string]results.Attempt) seqReplay {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := 0
	for j < len(r.cache) && r.cache[j].key == r.unitKey(j, latest) {
		j++
	}
	r.cache = r.cache[:j]
	var cur seqStep
	if j == 0 {
		cur = r.initialStep()
	} else {
		cur = r.cache[j-1].clone()
	}
	for k := j; k < len(r.units); k++ {
		pairs := r.units[k]
		if !r.complete(pairs, k+1, cur.decisions, latest) || !slices.ContainsFunc(cur.decisions, undecided) {
			break
		}
		r.step(&cur, k, latest)
		cur.key = r.unitKey(k, latest)
		r.cache = append(r.cache, cur)
		cur = cur.clone()
	}
	return seqReplay{decisions: slices.Clone(cur.decisions), looked: len(r.cache)}
}

// initialStep is the state before the first unit: each monitored variant's design sized to its own units (a
// target-scoped variant runs on fewer), so its last planned unit is its design's last look.
func (r *SeqRule) initialStep() seqStep {
	d := r.statsDesign()
	st := seqStep{states: make([]*stats.SeqState, len(r.monitored)), decisions: make([]SeqDecision, len(r.monitored))}
	for i, v := range r.monitored {
		st.decisions[i] = SeqDecision{Variant: v, Look: stats.SeqLook{P: 1, Lo: -1, Hi: 1}}
		if n := r.plannedUnits(v); n > 0 {
			dv := d
			dv.MaxUnits = n
			st.states[i] = stats.NewSeq(dv)
			st.decisions[i].Look = st.states[i].Look()
		}
	}
	return st
}

// step adds unit k (0-based) to st: each undecided variant's difference (a skipped unit when none of its pairs
// was judged on both arms), then the decisions at the look.
func (r *SeqRule) step(st *seqStep, k int, latest map[string]results.Attempt) {
	pairs := r.units[k]
	for i, v := range r.monitored {
		if st.decisions[i].Stop != "" || st.states[i] == nil {
			continue
		}
		if !slices.ContainsFunc(pairs, func(p seqPair) bool { return slices.Contains(p.arms, v) }) {
			continue // not one of v's planned units
		}
		if diff, ok := r.unitDiff(pairs, v, latest); ok {
			st.states[i].Add(diff)
		} else {
			// Every pair ended without a judged outcome on both arms: the unit still counts toward v's design,
			// so that its last planned unit takes the final look.
			st.states[i].Skip()
		}
	}
	looks := make([]stats.SeqLook, len(r.monitored))
	for i := range r.monitored {
		if st.decisions[i].Stop == "" && st.states[i] != nil {
			st.decisions[i].Look = st.states[i].Look()
		}
		looks[i] = st.decisions[i].Look
	}
	for i, s := range stats.SeqDecide(r.statsDesign(), looks) {
		if st.decisions[i].Stop == "" && s != stats.SeqUndecided {
			st.decisions[i].Stop, st.decisions[i].At = s, k+1
		}
	}
}

// clone is an independent copy of st (its states cloned).
func (st seqStep) clone() seqStep {
	c := seqStep{key: st.key, states: make([]*stats.SeqState, len(st.states)), decisions: slices.Clone(st.decisions)}
	for i, s := range st.states {
		if s != nil {
			c.states[i] = s.Clone()
		}
	}
	return c
}

// unitKey is what unit k's (0-based) step reads of latest: the outcome of every arm's attempt on each of its
// pairs ('-' no record, 'p' pass, 'f' fail, 'x' neither).
func (r *SeqRule) unitKey(k int, latest map[string]results.Attempt) string {
	var b []byte
	for _, p := range r.units[k] {
		for _, a := range p.arms {
			rec, ok := latest[results.AttemptID(a, p.id)]
			switch {
			case !ok:
				b = append(b, '-')
			case !rec.Done():
				b = append(b, 'x')
			case rec.Status == results.StatusPass:
				b = append(b, 'p')
			default:
				b = append(b, 'f')
			}
		}
		b = append(b, '|')
	}
	return string(b)
}

func undecided(d SeqDecision) bool { return d.Stop == stats.SeqUndecided }

// statsDesign is the design as stats.SeqDesign: α and the futility margin over the monitored variants
// (MaxUnits is each variant's own: replay sets it).
func (r *SeqRule) statsDesign() stats.SeqDesign {
	return stats.SeqDesign{Alpha: r.design.Alpha, MinEffect: r.design.MinEffect, Variants: max(1, len(r.monitored)),
		MaxUnits: 1}
}

// plannedUnits is the number of units with a pair variant v runs on.
func (r *SeqRule) plannedUnits(v string) int { return r.unitsUpTo(v, len(r.units)) }

// unitsUpTo is the number of units among the first k with a pair variant v runs on.
func (r *SeqRule) unitsUpTo(v string, k int) int {
	n := 0
	for _, pairs := range r.units[:k] {
		if slices.ContainsFunc(pairs, func(p seqPair) bool { return slices.Contains(p.arms, v) }) {
			n++
		}
	}
	return n
}

// needed reports whether arm's attempt on pair p of unit k (1-based) is still needed given the decisions made
// at the looks before k.
func (r *SeqRule) needed(arm string, p seqPair, k int, ds []SeqDecision) bool {
	if arm == r.baseline {
		return slices.ContainsFunc(p.arms, func(a string) bool { return a != r.baseline && r.needed(a, p, k, ds) })
	}
	i := slices.Index(r.monitored, arm)
	return i < 0 || ds[i].Stop == "" || ds[i].At >= k
}

// complete reports whether every needed attempt of unit k (its pairs) has a record in latest.
func (r *SeqRule) complete(pairs []seqPair, k int, ds []SeqDecision, latest map[string]results.Attempt) bool {
	for _, p := range pairs {
		for _, a := range p.arms {
			id := results.AttemptID(a, p.id)
			if _, ok := latest[id]; !ok && r.shardLeft[id].Shard == "" && r.needed(a, p, k, ds) {
				return false
			}
		}
	}
	return true
}

// unitDiff is variant v's mean paired difference over the pairs of a unit where both v's and the baseline's
// records are pass or fail; ok is false when there is none.
func (r *SeqRule) unitDiff(pairs []seqPair, v string, latest map[string]results.Attempt) (float64, bool) {
	sum, n := 0.0, 0
	for _, p := range pairs {
		if !slices.Contains(p.arms, v) {
			continue
		}
		a, okA := latest[results.AttemptID(v, p.id)]
		b, okB := latest[results.AttemptID(r.baseline, p.id)]
		if !okA || !okB || !a.Done() || !b.Done() {
			continue
		}
		sum += pass(a) - pass(b)
		n++
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

func pass(a results.Attempt) float64 {
	if a.Status == results.StatusPass {
		return 1
	}
	return 0
}

// Skips maps the planned attempt ids left unrun that have no record in latest (the final record of each attempt
// id so far) to why (Attempts 1 each): those the design no longer needs, with the variant's stop and the unit it
// was decided at, or for the baseline, that no arm still needed on its pair; and in a merged run
// (WithShardSkips) those a shard's own stop left unrun where the merged looks still needed them, naming the
// shard. The runner starts none of them; a merged manifest records them (results.SumSkips).
func (r *SeqRule) Skips(latest map[string]results.Attempt) map[string]results.SeqSkip {
	return r.skips(latest, r.replay(latest).decisions)
}

func (r *SeqRule) skips(latest map[string]results.Attempt, ds []SeqDecision) map[string]results.SeqSkip {
	out := map[string]results.SeqSkip{}
	for k, pairs := range r.units {
		for _, p := range pairs {
			for _, a := range p.arms {
				id := results.AttemptID(a, p.id)
				if _, ok := latest[id]; ok {
					continue
				}
				if r.needed(a, p, k+1, ds) {
					if s, ok := r.shardLeft[id]; ok {
						out[id] = s
					}
					continue
				}
				s := results.SeqSkip{Variant: a, Attempts: 1}
				if i := slices.Index(r.monitored, a); i >= 0 {
					s.Stop, s.Unit = string(ds[i].Stop), ds[i].At
				}
				out[id] = s
			}
		}
	}
	return out
}

// MergedSeqSkips is the Summary.SeqSkips of the run merged from shards (the run directories bench merge joins,
// of plan p), whose records are recs: the design replayed over recs in plan order, each shard's own stops taken
// as that shard's rule made them (its rule over its own pairs, Run.ShardPairs, and records). An attempt a shard
// left unrun that the merged replay no longer needs is the merged rule's skip; one it still needed is kept as that
// shard's skip (SeqSkip.Shard, the shard's "i/n", with its attempt ids) and counts as a pair without an outcome. A
// shard that is itself a merged run brings its own shard skips. It is an error when p has no sequential design
// or its units do not fit p.
func MergedSeqSkips(p results.Plan, shards []*results.Run, recs []results.Attempt) ([]results.SeqSkip, error) {
	left := map[string]results.SeqSkip{}
	for _, sh := range shards {
		rule, err := NewSeqRule(p, sh.ShardPairs())
		if err != nil {
			return nil, err
		}
		if sum := sh.Manifest.Summary; sum != nil {
			rule.WithShardSkips(sum.SeqSkips)
		}
		for id, s := range rule.Skips(latestRecords(sh.Records)) {
			if s.Shard == "" {
				s.Shard = sh.Manifest.Shard
			}
			left[id] = s
		}
	}
	arms := p.VariantNames()
	merged, err := NewSeqRule(p, nil)
	if err != nil {
		return nil, err
	}
	return results.SumSkips(merged.WithShardSkips(results.SumSkips(left, arms)).Skips(latestRecords(recs)), arms), nil
}

// latestRecords maps each attempt id of recs to its last record (recs in the order they were written).
func latestRecords(recs []results.Attempt) map[string]results.Attempt {
	latest := make(map[string]results.Attempt, len(recs))
	for _, a := range recs {
		latest[a.AttemptID] = a
	}
	return latest
}
