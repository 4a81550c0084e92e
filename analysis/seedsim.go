package analysis

// Seed robustness of a planned ablation or PR gate: over many base seeds, the share at which the real analysis
// (Analyze, VerdictOf, GateFails) reaches the verdict a design was sized for. The scripted policy draws its faults
// from the attempt's seed (results.Seed of the pair id and the base seed), so a run at another base seed is
// another draw of the same design; outcomes here are drawn per attempt from a SeedModel the same way.

import (
	"hash/fnv"
	"math/rand/v2"
	"slices"

	"webbench/results"
)

// SeedTask is one task of a SeedDesign: its id, its cluster (the family: the unit of the primary test) and its
// tags (a guard's targets carry the guard's name).
type SeedTask struct {
	ID, Cluster string
	Tags        []string
}

// SeedArm is one variant of a SeedDesign: its name, the guards it switches off and the ids of the tasks it plays
// (its scope; each is paired with the baseline's attempt of the same task and rep).
type SeedArm struct {
	Name   string
	Guards []string
	Tasks  []string
}

// SeedDesign is an ablation (Demo: every arm analysed together, Holm over the arms) or a PR gate (each arm
// compared alone with the baseline, as `bench compare base head` does) at Reps reps of each task, on Suite (the
// pair ids' suite). The baseline plays every task of Tasks.
type SeedDesign struct {
	Suite    string
	Baseline string
	Tasks    []SeedTask
	Arms     []SeedArm
	Reps     int
}

// SeedModel is the per-attempt outcome model: with its base seed's draw below BaseFail an attempt fails in every
// arm (the same seed gives the same fault in both arms of a pair); otherwise an arm with guard g off fails on a
// task tagged g with probability Break[g] (a draw of its own per attempt and guard, as the scripted policy's
// per-attempt coins are), and passes elsewhere.
type SeedModel struct {
	BaseFail float64
	Break    map[string]float64
}

// SeedFigures is, per arm (in SeedDesign.Arms order), the share of Seeds base seeds (1..Seeds) at which the
// design reached its verdict — the ablation's "worse than the baseline" (VerdictWorse: p_holm < α, Δ < 0) or the
// gate's failure (GateFails at Margin) — and the first seeds at which it did not (at most 10).
type SeedFigures struct {
	Seeds int
	Held  []float64
	Lost  [][]int64
}

// SeedRobustness runs d at base seeds 1..seeds under m through Analyze (no power analysis): as one ablation when
// margin is 0, else as one gate per arm at that margin. alpha ≤ 0 is DefaultAlpha. Clusters are the unit as in
// a real run (ClusterUnit "family").
func SeedRobustness(d SeedDesign, m SeedModel, seeds int, margin, alpha float64) SeedFigures {
	if alpha <= 0 {
		alpha = DefaultAlpha
	}
	out := SeedFigures{Seeds: seeds, Held: make([]float64, len(d.Arms)), Lost: make([][]int64, len(d.Arms))}
	tags := map[string][]string{}
	for _, t := range d.Tasks {
		tags[t.ID] = t.Tags
	}
	for s := int64(1); s <= int64(seeds); s++ {
		held := d.held(m, s, margin, alpha, tags)
		for i, ok := range held {
			if ok {
				out.Held[i]++
			} else if len(out.Lost[i]) < 10 {
				out.Lost[i] = append(out.Lost[i], s)
			}
		}
	}
	for i := range out.Held {
		out.Held[i] /= float64(max(seeds, 1))
	}
	return out
}

// held reports, per arm, whether base seed s reaches the design's verdict.
func (d SeedDesign) held(m SeedModel, s int64, margin, alpha float64, tags map[string][]string) []bool {
	in := Inputs{Baseline: d.Baseline, Alpha: alpha, power: powerNone, ClusterUnit: "family",
		Switched: map[string][]string{}, Targets: map[string][]string{}, TaskTags: tags}
	for _, a := range d.Arms {
		in.Switched[a.Name], in.Targets[a.Name] = a.Guards, a.Tasks
	}
	base := d.records(m, s, SeedArm{Name: d.Baseline}, tags)
	out := make([]bool, len(d.Arms))
	if margin == 0 {
		recs := base
		for _, a := range d.Arms {
			recs = append(recs, d.records(m, s, a, tags)...)
			in.Variants = append(in.Variants, a.Name)
		}
		an := Analyze(recs, in)
		for i, a := range d.Arms {
			v := variantNamed(an, a.Name)
			out[i] = v != nil && an.VerdictOf(v, 0).Kind == VerdictWorse
		}
		return out
	}
	for i, a := range d.Arms {
		in.Variants = []string{a.Name}
		an := Analyze(append(slices.Clip(base), d.records(m, s, a, tags)...), in)
		v := variantNamed(an, a.Name)
		out[i] = v != nil && v.GateFails(margin, alpha)
	}
	return out
}

// variantNamed returns the comparison of variant name in an (nil when it has none).
func variantNamed(an *Analysis, name string) *VariantResult {
	for i := range an.Variants {
		if an.Variants[i].Name == name {
			return &an.Variants[i]
		}
	}
	return nil
}

// records are arm a's attempt records at base seed s: the baseline (a.Tasks nil) on every task.
func (d SeedDesign) records(m SeedModel, s int64, a SeedArm, tags map[string][]string) []results.Attempt {
	var recs []results.Attempt
	for _, t := range d.Tasks {
		if a.Tasks != nil && !slices.Contains(a.Tasks, t.ID) {
			continue
		}
		for rep := 1; rep <= max(d.Reps, 1); rep++ {
			pid := results.PairID(d.Suite, t.ID, rep)
			seed := results.Seed(pid, s)
			pass := !(seedDraw(seed, "base") < m.BaseFail)
			for _, g := range a.Guards {
				if slices.Contains(tags[t.ID], g) && seedDraw(seed, g) < m.Break[g] {
					pass = false
				}
			}
			r := results.Attempt{SchemaVersion: results.SchemaVersion, AttemptID: results.AttemptID(a.Name, pid),
				PairID: pid, Variant: a.Name, TaskID: t.ID, Suite: d.Suite, Cluster: t.Cluster, Rep: rep,
				Seed: &seed, Model: "sim:seeds", Status: results.StatusPass, Steps: 1}
			if !pass {
				r.Status, r.ErrorClass, r.FailureMode = results.StatusFail, results.ClassAgent, "wrong_answer"
			}
			recs = append(recs, r)
		}
	}
	return recs
}

// seedDraw is a uniform draw in [0, 1) from an attempt seed and a purpose: the same in every arm of a pair.
func seedDraw(seed int, purpose string) float64 {
	h := fnv.New64a()
	h.Write([]byte{byte(seed), byte(seed >> 8), byte(seed >> 16), byte(seed >> 24)})
	h.Write([]byte(purpose))
	s1 := h.Sum64()
	h.Write([]byte{0x5c})
	return rand.New(rand.NewPCG(s1, h.Sum64())).Float64()
}
