package analysis

import (
	"fmt"
	"slices"

	"webbench/results"
)

// RunOptions are the choices of an ablation run's analysis beyond its manifest's plan: BH and CMH p-values, a
// gate margin (0: the run's own), a cost gate (nil: the run's own), and the re-judge whose verdicts are analysed
// ("": the run's own).
type RunOptions struct {
	BH, CMH        bool
	FailIfWorse    float64
	FailIfCostlier map[results.CostOutcome]float64
	Judge          string
}

// AnalyzeRun analyses the final records of an ablation run, with the verdicts of o.Judge ("" or "original": as
// recorded), and returns the records analysed; a run with a sequential design also gets its outcome
// (Analysis.Sequential, SeqRule over the same records) and its warnings. It is an error when run is not an
// ablation run, the re-judge's verdicts cannot be read or the sequential design does not fit the plan.
func AnalyzeRun(run *results.Run, o RunOptions) (*Analysis, []results.Attempt, error) {
	if run.Manifest.Plan.Ablation == nil {
		return nil, nil, fmt.Errorf("%s is not an ablation run (its manifest has no plan.ablation)", run.Dir)
	}
	recs, err := run.Attempts(o.Judge)
	if err != nil {
		return nil, nil, err
	}
	in := PlanInputs(run.Manifest.Plan, o.BH, o.FailIfWorse)
	in.CMH = o.CMH
	if o.FailIfCostlier != nil {
		in.FailIfCostlier = o.FailIfCostlier
	}
	a := Analyze(recs, in)
	a.LabelModels(run.Manifest.Plan.Variants)
	if run.Manifest.Plan.Ablation.Sequential != nil {
		rule, err := NewSeqRule(run.Manifest.Plan, run.ShardPairs())
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", run.Dir, err)
		}
		if s := run.Manifest.Summary; s != nil {
			rule.WithShardSkips(s.SeqSkips)
		}
		a.Sequential = rule.Result(recs, run.Manifest.Summary)
		a.Warnings = append(seqWarnings(a.Sequential), a.Warnings...)
	}
	return a, recs, nil
}

// PlanInputs are the analysis inputs an ablation's plan records: its baseline, the other arms in plan order,
// their switched guards and target tasks, the task tags, α, power, minimum effect, the spec's warnings and its
// A/A arms (the manifest's ablation.replays and ablation.copies; without copies, AACopies). bh asks for
// Benjamini–Hochberg p-values; failIfWorse 0 takes the margin the run was made with; the cost gate is the one
// the run was made with (ablation.fail_if_costlier).
func PlanInputs(p results.Plan, bh bool, failIfWorse float64) Inputs {
	in := Inputs{Baseline: p.Baseline, Switched: p.Switched(), Targets: p.Targets(), TaskTags: p.TaskTags,
		BH: bh, FailIfWorse: failIfWorse, ClusterUnit: p.ClusterUnit}
	in.Variants = slices.DeleteFunc(p.VariantNames(), func(n string) bool { return n == p.Baseline })
	if a := p.Ablation; a != nil {
		in.Alpha, in.Power, in.MinEffect, in.ExtraWarnings = a.Alpha, a.Power, a.MinEffect, a.Warnings
		in.SpecWarnings = a.SpecWarnings
		in.Replays, in.Copies = a.Replays, a.Copies
		if in.FailIfWorse == 0 {
			in.FailIfWorse = a.FailIfWorse
		}
		in.FailIfCostlier = a.FailIfCostlier
	}
	if in.Copies == nil {
		in.Copies = AACopies(p) // a manifest written before ablation.copies
	}
	return in
}

// HolmFamily is the number of arms of plan p in Holm's family of each outcome: its variants but the A/A arms
// (PlanInputs' Replays and Copies). Holm multiplies the smallest of their p by it, so a variant's p_holm is at
// most that many times its p (and at least its p).
func HolmFamily(p results.Plan) int {
	in := PlanInputs(p, false, 0)
	return len(slices.DeleteFunc(slices.Clone(in.Variants), func(n string) bool {
		return slices.Contains(in.Copies, n) || slices.Contains(in.Replays, n)
	}))
}
