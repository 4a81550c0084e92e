package bench

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"webbench/analysis"
	"webbench/runner"
	"webbench/scripted"
	"webbench/spec"
	"webbench/suites"
	_ "webbench/suites/zoo" // registers the zoo suite
)

// The guards whose removal the demo and the PR gate are sized to show: those with a large effect in the seeds
// (docs/ZOO.md "The PR gate").
var LargeEffectGuards = []string{"intercept_hint", "snapshot_ready", "stale_ref_refresh", "evaluate_isolation",
	"visual_progress"}

// ObservedSeedModel is the per-attempt outcome model of the scripted policy under the `observed` profile on the Zoo
// (analysis.SeedModel), for SeedRobustness. From the profile: evaluate_isolation's targets break when the policy
// evaluates on a hung page (evaluate_on_hung_pages, drawn per attempt), snapshot_ready's when it gives up on an empty
// snapshot (empty_snapshot_give_up; 48 of 53 such attempts in the demo's records failed), stale_ref_refresh's when it
// acts on a stale ref (stale_ref_without_refresh), visual_progress's always (a nameless control is never clicked
// without the visual click). Measured from the demo's runs (where and when: docs/ZOO.md "Seed robustness"):
// intercept_hint off fails 46 of 66 target attempts (the raw call log is understood with probability 0.25 per blocked
// step, but an attempt meets several); a baseline attempt fails in 28 of 309 (0.09: loops, prose finals and, under
// load, timeouts), counted as failing in every arm of its pair; repeat_guard off adds about 0.03 (0.121 against 0.091
// on its targets), final_recovery off nothing measurable.
func ObservedSeedModel() (analysis.SeedModel, error) {
	p, err := scripted.LoadProfile("observed")
	if err != nil {
		return analysis.SeedModel{}, err
	}
	return analysis.SeedModel{BaseFail: 0.09, Break: map[string]float64{
		"evaluate_isolation": p.EvaluateOnHungPages,
		"snapshot_ready":     p.EmptySnapshotGiveUp,
		"stale_ref_refresh":  p.StaleRefWithoutRefresh,
		"visual_progress":    1,
		"intercept_hint":     46.0 / 66,
		"repeat_guard":       0.03,
	}}, nil
}

// SpecSeedDesign is the ablation of the spec file path as analysis.SeedDesign: its arms (each with the guards
// it switches and its scope) over its tasks at its reps, the baseline on the union. Errors are the spec's.
func SpecSeedDesign(path string) (analysis.SeedDesign, error) {
	s, err := spec.LoadSpec(path)
	if err != nil {
		return analysis.SeedDesign{}, err
	}
	plan, suite, err := s.Open(path, 0)
	if err != nil {
		return analysis.SeedDesign{}, err
	}
	defer suite.Close()
	return planSeedDesign(plan), nil
}

// planSeedDesign is plan's arms, tasks and reps as a SeedDesign (the baseline is the first variant).
func planSeedDesign(plan runner.Plan) analysis.SeedDesign {
	d := analysis.SeedDesign{Suite: plan.Suite, Baseline: plan.Variants[0].Name, Reps: plan.Reps}
	base := plan.Variants[0].TaskIDs
	for _, t := range plan.Tasks {
		if base == nil || base[t.ID] {
			d.Tasks = append(d.Tasks, analysis.SeedTask{ID: t.ID, Cluster: t.Cluster, Tags: t.Tags})
		}
	}
	for _, v := range plan.Variants[1:] {
		a := analysis.SeedArm{Name: v.Name, Guards: v.Switched, Tasks: []string{}}
		if v.TaskIDs == nil {
			for _, t := range d.Tasks {
				a.Tasks = append(a.Tasks, t.ID)
			}
		} else {
			a.Tasks = slices.Sorted(maps.Keys(v.TaskIDs))
		}
		d.Arms = append(d.Arms, a)
	}
	return d
}

// GateSeedDesign is the PR workflow's gate (the workflow file at path: its env's GATE_OPTIONS, GATE_TASKS and
// REPS; MARGIN is returned) as analysis.SeedDesign: a base run with every guard on and one head per guard of
// guards with that guard off, each over the whole selection.
func GateSeedDesign(path string, guards []string) (analysis.SeedDesign, float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return analysis.SeedDesign{}, 0, err
	}
	var wf struct {
		Env map[string]string `yaml:"env"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		return analysis.SeedDesign{}, 0, fmt.Errorf("%s: %v", path, err)
	}
	var reps int
	var margin float64
	if _, err := fmt.Sscan(wf.Env["REPS"], &reps); err != nil {
		return analysis.SeedDesign{}, 0, fmt.Errorf("%s: env REPS: %v", path, err)
	}
	if _, err := fmt.Sscan(wf.Env["MARGIN"], &margin); err != nil {
		return analysis.SeedDesign{}, 0, fmt.Errorf("%s: env MARGIN: %v", path, err)
	}
	opts := suites.Options{}
	for _, o := range strings.Fields(wf.Env["GATE_OPTIONS"]) {
		k, v, _ := strings.Cut(o, "=")
		opts[k] = v
	}
	suite, err := suites.Open("zoo", opts)
	if err != nil {
		return analysis.SeedDesign{}, 0, err
	}
	defer suite.Close()
	tasks, err := suites.Filter(suite.Tasks(), wf.Env["GATE_TASKS"])
	if err != nil {
		return analysis.SeedDesign{}, 0, err
	}
	d := analysis.SeedDesign{Suite: "zoo", Baseline: "base", Reps: reps}
	var all []string
	for _, t := range tasks {
		d.Tasks = append(d.Tasks, analysis.SeedTask{ID: t.ID, Cluster: t.Cluster, Tags: t.Tags})
		all = append(all, t.ID)
	}
	for _, g := range guards {
		d.Arms = append(d.Arms, analysis.SeedArm{Name: "no_" + g, Guards: []string{g}, Tasks: all})
	}
	return d, margin, nil
}
