package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// AblationV1File is the file schema version 1 wrote beside manifest.json for bench ablate runs; version 2
// keeps its content in Manifest.Plan (Baseline, the variants' Switched and TargetTasks, TaskTags, Ablation).
const AblationV1File = "ablation.json"

// schemaV1 is the schema version before the typed manifest.
const schemaV1 = 1

// manifestV1 is schema version 1's manifest.json: the spec as given (untyped) beside the plan.
type manifestV1 struct {
	SchemaVersion int             `json:"schema_version"`
	RunID         string          `json:"run_id"`
	Spec          json.RawMessage `json:"spec"`
	Plan          struct {
		Suite    string    `json:"suite"`
		Tasks    []string  `json:"tasks"`
		Reps     int       `json:"reps"`
		BaseSeed int64     `json:"base_seed"`
		Variants []Variant `json:"variants"`
		Attempts int       `json:"attempts"`
	} `json:"plan"`
	Webbench      string            `json:"webbench_version"`
	GitSHA        string            `json:"git_sha,omitempty"`
	GoVersion     string            `json:"go_version"`
	Playwright    string            `json:"playwright_version,omitempty"`
	Chromium      string            `json:"chromium_version,omitempty"`
	SystemPrompts map[string]string `json:"system_prompt_sha256"`
	Host          string            `json:"host"`
	StartedAt     string            `json:"started_at"`
	EndedAt       string            `json:"ended_at,omitempty"`
	Shard         string            `json:"shard"`
	Summary       *Summary          `json:"summary,omitempty"`
}

// ablationV1 is schema version 1's ablation.json.
type ablationV1 struct {
	SchemaVersion int                 `json:"schema_version"`
	Spec          string              `json:"spec"`
	Baseline      string              `json:"baseline"`
	Variants      []string            `json:"variants"`
	Switched      map[string][]string `json:"switched"`
	Targets       map[string][]string `json:"targets"`
	TaskTags      map[string][]string `json:"task_tags"`
	Alpha         float64             `json:"alpha"`
	Power         float64             `json:"power"`
	MinEffect     float64             `json:"min_effect"`
	Warnings      []string            `json:"warnings,omitempty"`
	FailIfWorse   float64             `json:"fail_if_worse,omitempty"`
}

// specV1 is what version 1 recorded as "spec": bench run wrote snake_case keys (tasks, tasks_file, answers,
// stale_dates); bench ablate wrote spec.Spec with its Go field names (Tasks, SuiteOptions).
type specV1 struct {
	Tasks        string            `json:"tasks"`
	TasksFile    string            `json:"tasks_file"`
	Answers      string            `json:"answers"`
	StaleDates   string            `json:"stale_dates"`
	SpecTasks    string            `json:"Tasks"`
	SuiteOptions map[string]string `json:"SuiteOptions"`
}

// readV1 converts a version 1 manifest (and dir/ablation.json, when present) into a version 2 Manifest.
func readV1(dir, path string, b []byte) (*Manifest, error) {
	var old manifestV1
	if err := json.Unmarshal(b, &old); err != nil {
		return nil, badManifest(path, b, err)
	}
	m := &Manifest{SchemaVersion: SchemaVersion, RunID: old.RunID, Webbench: old.Webbench, GitSHA: old.GitSHA,
		GoVersion: old.GoVersion, Playwright: old.Playwright, Chromium: old.Chromium, Host: old.Host,
		StartedAt: old.StartedAt, EndedAt: old.EndedAt, Shard: old.Shard, Summary: old.Summary,
		Plan: Plan{Suite: old.Plan.Suite, Tasks: old.Plan.Tasks, Reps: old.Plan.Reps, BaseSeed: old.Plan.BaseSeed,
			Variants: old.Plan.Variants, Attempts: old.Plan.Attempts}}
	for i := range m.Plan.Variants {
		m.Plan.Variants[i].PromptSHA256 = old.SystemPrompts[m.Plan.Variants[i].Name]
	}
	if len(old.Spec) > 0 && string(old.Spec) != "null" {
		var s specV1
		// The spec was free-form: keep what matches, ignore the rest.
		_ = json.Unmarshal(old.Spec, &s)
		m.Plan.TaskFilter = s.Tasks
		if s.SpecTasks != "" {
			m.Plan.TaskFilter = s.SpecTasks
		}
		opts := map[string]string{}
		for k, v := range map[string]string{"tasks_file": s.TasksFile, "answers": s.Answers, "stale_dates": s.StaleDates} {
			if v != "" {
				opts[k] = v
			}
		}
		for k, v := range s.SuiteOptions {
			opts[k] = v
		}
		if len(opts) > 0 {
			m.Plan.SuiteOptions = opts
		}
	}
	if len(m.Plan.Variants) > 0 {
		m.Plan.Baseline = m.Plan.Variants[0].Name
	}
	apath := filepath.Join(dir, AblationV1File)
	ab, err := os.ReadFile(apath)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if err := applyAblationV1(m, apath, ab); err != nil {
			return nil, err
		}
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("%w: %s (schema_version 1): %v", ErrBadManifest, path, err)
	}
	return m, nil
}

// applyAblationV1 moves ablation.json's content into the plan.
func applyAblationV1(m *Manifest, path string, b []byte) error {
	var a ablationV1
	if err := json.Unmarshal(b, &a); err != nil {
		return badManifest(path, b, err)
	}
	if a.Baseline == "" {
		return fmt.Errorf("%w: %s: field baseline is empty", ErrBadManifest, path)
	}
	m.Plan.Baseline = a.Baseline
	m.Plan.TaskTags = a.TaskTags
	m.Plan.Ablation = &Ablation{Spec: a.Spec, Alpha: a.Alpha, Power: a.Power, MinEffect: a.MinEffect,
		FailIfWorse: a.FailIfWorse, Warnings: a.Warnings}
	for i := range m.Plan.Variants {
		v := &m.Plan.Variants[i]
		v.Switched = a.Switched[v.Name]
		if t, ok := a.Targets[v.Name]; ok {
			v.TargetTasks = slices.Sorted(slices.Values(t))
			if v.TargetTasks == nil {
				v.TargetTasks = []string{}
			}
		}
	}
	return nil
}
