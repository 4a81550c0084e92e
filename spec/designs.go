package spec

import (
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"webbench/agent"
	"webbench/agent/guard"
	"webbench/results"
	"webbench/runner"
	"webbench/srcerr"
	"webbench/suites"
)

// Arms is the expanded spec: the baseline first, then the variants, each with its target task set.
type Arms struct {
	Variants []runner.Variant
	// Switched maps a variant name to the guards it switches relative to the baseline.
	Switched map[string][]string
	// Warnings found while expanding (e.g. a variant equal to the baseline).
	Warnings []results.SpecWarning
	// AA lists the other-seeds A/A arms (Config.AA: results.AAOtherSeeds), in spec order.
	AA []string
	// Replays lists the same-seed A/A arms (Config.AA: results.AASameSeed), in spec order.
	Replays []string
}

// Expand turns the spec into runner variants over tasks. Generated designs: leave-one-out (baseline all guards
// on; one arm per guard with it off), add-one (baseline all off; one arm per guard with it on). With scope
// target a variant runs only on the tasks tagged with a guard it switches; the baseline runs on the union.
func (s *Spec) Expand(tasks []suites.Task) (*Arms, error) {
	base := s.Baseline
	baseGuards := guard.Default()
	if s.Design == "add-one" {
		for k := range baseGuards {
			baseGuards[k] = false
		}
	}
	for k, v := range base.Guards {
		baseGuards[k] = v
	}
	configs := s.configs()
	narrowed, err := s.narrowedTargets(tasks)
	if err != nil {
		return nil, err
	}
	out := &Arms{Switched: map[string][]string{}}
	bv := toVariant(base, baseGuards, *base.Model)
	bv.Name = base.Name
	union := map[string]bool{}
	allTasks := false
	var vs []runner.Variant
	for _, c := range configs {
		if c.Name == base.Name {
			return nil, fmt.Errorf("%s: variant %q has the baseline's name", s.file, c.Name)
		}
		switch results.AAMode(c.AA) {
		case results.AAOtherSeeds:
			out.AA = append(out.AA, c.Name)
			out.Switched[c.Name] = nil
			vs = append(vs, aaVariant(bv, c.Name, len(out.AA)))
			allTasks = true
			continue
		case results.AASameSeed:
			out.Replays = append(out.Replays, c.Name)
			out.Switched[c.Name] = nil
			vs = append(vs, replayVariant(bv, c.Name))
			allTasks = true
			continue
		}
		v, g := configVariant(base, baseGuards, c)
		var switched []string
		for _, k := range guard.Names() {
			if g[k] != baseGuards[k] {
				switched = append(switched, k)
			}
		}
		out.Switched[v.Name] = switched
		scope := c.Scope
		if scope == "" {
			scope = s.Scope
		}
		v.Scope = "all"
		if scope == "target" && len(switched) > 0 {
			v.Scope = "target"
			v.TaskIDs = map[string]bool{}
			for _, t := range tasks {
				for _, sw := range switched {
					if keep, ok := narrowed[sw]; t.HasTag(sw) && (!ok || keep[t.ID]) {
						v.TaskIDs[t.ID] = true
						union[t.ID] = true
					}
				}
			}
			if len(v.TaskIDs) == 0 {
				out.Warnings = append(out.Warnings, results.SpecWarning{Kind: results.SpecVariantNoTask, Variant: v.Name,
					Guards: switched, Tasks: len(tasks)})
			}
		} else {
			allTasks = true
		}
		if reflect.DeepEqual(stripName(v), stripName(bv)) {
			out.Warnings = append(out.Warnings, results.SpecWarning{Kind: results.SpecVariantIdentical, Variant: v.Name})
		}
		vs = append(vs, v)
	}
	if !allTasks {
		bv.TaskIDs = union
		bv.Scope = "union of variant targets"
	}
	out.Variants = append([]runner.Variant{bv}, vs...)
	return out, nil
}

// narrowedTargets returns, for each guard target_tasks names, the ids among tasks its globs select
// (suites.Match: a glob may match none of tasks when they were narrowed first; Plan checks each matches some
// task of the suite).
func (s *Spec) narrowedTargets(tasks []suites.Task) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	for g, globs := range s.TargetTasks {
		kept, _, err := suites.Match(tasks, globs)
		if err != nil {
			at := s.targetAt[g]
			return nil, srcerr.At(s.file, at[0], at[1], "target_tasks", "%s: %v", g, err)
		}
		out[g] = map[string]bool{}
		for _, t := range kept {
			out[g][t.ID] = true
		}
	}
	return out, nil
}

// configs are the spec's variant configs: the explicit variants, or the generated ones of a design
// (leave-one-out: one no_GUARD arm per guard with it off; add-one: one only_GUARD arm per guard with it on).
func (s *Spec) configs() []Config {
	if s.Design != "leave-one-out" && s.Design != "add-one" {
		return s.Variants
	}
	return append(s.generatedConfigs(), s.Variants...) // beside a design, only A/A arms (ParseSpec)
}

// generatedConfigs are the arms a design generates (leave-one-out: no_GUARD; add-one: only_GUARD), one per
// guard; none without a design.
func (s *Spec) generatedConfigs() []Config {
	if s.Design != "leave-one-out" && s.Design != "add-one" {
		return nil
	}
	var configs []Config
	for _, g := range guard.Names() {
		on := s.Design == "add-one"
		prefix := "no_"
		if on {
			prefix = "only_"
		}
		configs = append(configs, Config{Name: prefix + g, Guards: map[string]bool{g: on}, Scope: s.Scope})
	}
	return configs
}

// configVariant is the runner variant of config c over the baseline base (whose guards are baseGuards): the
// baseline's guards with c's switched, its model merged with c's, and c's prompt, budgets and seed where set. It
// returns the variant and its guards.
func configVariant(base Config, baseGuards map[string]bool, c Config) (runner.Variant, map[string]bool) {
	g := maps.Clone(baseGuards)
	maps.Copy(g, c.Guards)
	m := *base.Model
	if c.Model != nil {
		m = variantModel(m, *c.Model)
		_ = normModel(&m) // checked in ParseSpec
	}
	v := toVariant(base, g, m)
	v.Name = c.Name
	if c.Prompt != "" {
		v.PromptFile = c.Prompt
	}
	if c.MaxSteps != 0 {
		v.MaxSteps = c.MaxSteps
	}
	if c.Timeout != 0 {
		v.Timeout = c.Timeout
	}
	if c.Seed != "" {
		v.Seed = c.Seed
	}
	if c.agent != nil {
		v.Agent = c.agent
	}
	if c.builtin {
		v.Agent = nil
	}
	if c.tools != nil {
		v.Tools = c.tools
	}
	if c.Observation != nil {
		v.Observation = observationOf(c)
	}
	return v, g
}

// aaVariant returns the i-th A/A arm (1-based): the baseline bv named name, on all tasks, with seeds derived from
// the base seed + i·AASeedOffset.
func aaVariant(bv runner.Variant, name string, i int) runner.Variant {
	bv.Name = name
	bv.Seed = results.AASeed(i)
	bv.Scope, bv.TaskIDs = "all", nil
	return bv
}

// replayVariant returns a same-seed A/A arm: the baseline bv named name, on all tasks, with the baseline's seeds
// (its seed mode unchanged: every arm of a pair gets the same derived seed).
func replayVariant(bv runner.Variant, name string) runner.Variant {
	bv.Name = name
	bv.Scope, bv.TaskIDs = "all", nil
	return bv
}

func stripName(v runner.Variant) runner.Variant {
	v.Name, v.Scope, v.TaskIDs = "", "", nil
	return v
}

func toVariant(base Config, g map[string]bool, m runner.Model) runner.Variant {
	return runner.Variant{Model: m, Guards: g, PromptFile: base.Prompt, MaxSteps: base.MaxSteps, Timeout: base.Timeout,
		Seed: base.Seed, Agent: base.agent, Tools: base.tools, Observation: observationOf(base)}
}

// observationOf is the runner's observation mode of config c: "" for none given or full (so a full arm records
// as an arm without the key), else the mode's name.
func observationOf(c Config) string {
	if c.Observation == nil {
		return ""
	}
	o, _ := agent.ParseObservation(c.Observation.Snapshot) // checked in ParseSpec
	if o == agent.ObserveFull {
		return ""
	}
	return string(o)
}

// variantModel is the model of a variant whose model block is o on a baseline with model base: o overlaid on
// base (mergeModel), or, when o names another kind, o alone — a scripted baseline's name and profile must not
// carry into an openai arm, which then needs its own name (else `{kind: openai,
// base_url: …}` on a scripted baseline would request the model "scripted").
func variantModel(base, o runner.Model) runner.Model {
	if o.Kind != "" && o.Kind != base.Kind {
		return o
	}
	return mergeModel(base, o)
}

// mergeModel overlays the set fields of o on m.
func mergeModel(m, o runner.Model) runner.Model {
	if o.Kind != "" {
		m.Kind = o.Kind
	}
	if o.Name != "" {
		m.Name = o.Name
	}
	if o.BaseURL != "" {
		m.BaseURL = o.BaseURL
	}
	if o.Profile != "" {
		m.Profile = o.Profile
	}
	if o.APIKeyEnv != "" {
		m.APIKeyEnv = o.APIKeyEnv
	}
	if o.Temp != nil {
		m.Temp = o.Temp
	}
	if o.TopP != nil {
		m.TopP = o.TopP
	}
	if o.MaxTokens != nil {
		m.MaxTokens = o.MaxTokens
	}
	if o.PriceIn != 0 {
		m.PriceIn = o.PriceIn
	}
	if o.PriceOut != 0 {
		m.PriceOut = o.PriceOut
	}
	if o.CallTimeout != 0 {
		m.CallTimeout = o.CallTimeout
	}
	if o.MaxConnections != 0 {
		m.MaxConnections = o.MaxConnections
	}
	if o.Omit != nil {
		m.Omit = o.Omit
	}
	if o.MaxTokensField != "" {
		m.MaxTokensField = o.MaxTokensField
	}
	return m
}

// TargetTasks maps each variant to its scope's task ids (nil = all tasks).
func (a *Arms) TargetTasks() map[string][]string {
	out := map[string][]string{}
	for _, v := range a.Variants {
		if v.TaskIDs == nil {
			continue
		}
		out[v.Name] = slices.Sorted(maps.Keys(v.TaskIDs))
	}
	return out
}

// Open opens the spec's suite with its suite_options and expands the spec over the suite's tasks into the
// runner's plan of an ablation (Plan). The caller closes the suite. Errors are the suite's (prefixed with path) and
// Plan's; on an error the suite is closed.
func (s *Spec) Open(path string, failIfWorse float64) (runner.Plan, suites.Suite, error) {
	opts := suites.Options{}
	maps.Copy(opts, s.SuiteOptions)
	if err := srcerr.OneOf("suite", s.Suite, suites.Names()); err != nil {
		return runner.Plan{}, nil, srcerr.At(path, s.top["suite"][0], s.top["suite"][1], "suite", "%v", err)
	}
	suite, err := suites.Open(s.Suite, opts)
	if err != nil {
		// What the suite refuses is its options (an unknown option, a file that does not load).
		return runner.Plan{}, nil, srcerr.At(path, s.top["suite_options"][0], s.top["suite_options"][1], "suite_options", "%v", err)
	}
	plan, err := s.Plan(path, suite, opts, failIfWorse)
	if err != nil {
		suite.Close()
		return runner.Plan{}, nil, err
	}
	return plan, suite, nil
}

// OutDir is the run directory of the spec file path when none is given: runs/NAME, NAME the spec's name, else the
// file's base name without its extension.
func (s *Spec) OutDir(path string) string {
	name := s.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return filepath.Join("runs", name)
}

// Plan selects the spec's tasks of suite (opened with opts) and expands the spec over them into the runner's
// plan of an ablation: the arms with their switched guards, and the ablation's parameters, warnings and A/A arms
// recorded for the analysis (results.Ablation; path names the spec file, failIfWorse is the gate margin).
// Errors are the task filter's (prefixed with path) and Expand's.
func (s *Spec) Plan(path string, suite suites.Suite, opts suites.Options, failIfWorse float64) (runner.Plan, error) {
	tasks, err := suites.Filter(suite.Tasks(), s.Tasks)
	if err != nil {
		if s.tasksFlag {
			return runner.Plan{}, fmt.Errorf("--tasks: %v", err)
		}
		return runner.Plan{}, srcerr.At(path, s.top["tasks"][0], s.top["tasks"][1], "tasks", "%v", err)
	}
	for _, g := range slices.Sorted(maps.Keys(s.TargetTasks)) {
		// Against the whole suite: a typo is an error, while a --tasks that leaves a glob nothing is not.
		if _, err := suites.Filter(suite.Tasks(), s.TargetTasks[g]); err != nil {
			at := s.targetAt[g]
			return runner.Plan{}, srcerr.At(path, at[0], at[1], "target_tasks", "%s: %v", g, err)
		}
	}
	arms, err := s.Expand(tasks)
	if err != nil {
		return runner.Plan{}, err
	}
	for i := range arms.Variants {
		arms.Variants[i].Switched = arms.Switched[arms.Variants[i].Name]
	}
	return runner.Plan{Suite: suite.Name(), SuiteOptions: opts, TaskFilter: s.Tasks, Tasks: tasks, Reps: s.Reps,
		Variants: arms.Variants, BaseSeed: s.Seed, Ablation: &results.Ablation{Spec: path, Alpha: s.Alpha,
			Power: s.Power, MinEffect: s.MinEffect, FailIfWorse: failIfWorse, FailIfCostlier: s.FailIfCostlier,
			SpecWarnings: arms.Warnings,
			Replays:      arms.Replays, Copies: arms.AA, Sequential: s.seqDesign(tasks)}}, nil
}
