// Package runner expands a plan of (variant × task × rep) attempts, schedules them on a sourcegraph/conc pool
// where each worker owns one browser and opens a fresh context per attempt, enforces deadlines, retries
// infrastructure errors, resumes interrupted runs, partitions plans into shards, and reports progress.
package runner

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"webbench/agent"
	"webbench/llm"
	"webbench/results"
	"webbench/suites"
)

// Model selects the model of a variant (results.Model: the same type is recorded in the manifest).
type Model = results.Model

// ParseModel parses the --model flag: "scripted", "scripted:PROFILE", "openai:NAME".
func ParseModel(s, baseURL, profile string) (Model, error) {
	kind, name, _ := strings.Cut(s, ":")
	switch kind {
	case "scripted":
		if name != "" {
			profile = name
		}
		if profile == "" {
			profile = "clean"
		}
		return Model{Kind: "scripted", Name: "scripted", Profile: profile}, nil
	case "openai":
		if name == "" {
			return Model{}, fmt.Errorf("--model openai:NAME needs a model name")
		}
		if baseURL == "" {
			baseURL = "https://api.openai.com/v1"
		}
		return Model{Kind: "openai", Name: name, BaseURL: baseURL}, nil
	}
	return Model{}, fmt.Errorf("--model %q: expected scripted[:PROFILE] or openai:NAME", s)
}

// LLMConfig converts m to the model client's config; baseURL overrides m.BaseURL (the scripted server's
// address).
func LLMConfig(m Model, baseURL string) llm.Config {
	if baseURL == "" {
		baseURL = m.BaseURL
	}
	return llm.Config{Model: m.Name, BaseURL: baseURL, APIKeyEnv: m.APIKeyEnv, Temperature: m.Temp, TopP: m.TopP,
		MaxTokens: m.MaxTokens, PricePerMTokIn: m.PriceIn, PricePerMTokOut: m.PriceOut, CallTimeout: m.CallTimeout,
		MaxConnections: m.MaxConnections, Omit: m.Omit, MaxTokensField: m.MaxTokensField}
}

// Variant is one arm: a name and the agent configuration it runs.
type Variant struct {
	Name   string          `json:"name"`
	Model  Model           `json:"model"`
	Guards map[string]bool `json:"guards"`
	// PromptFile is a system prompt file ("" = the default prompt).
	PromptFile string `json:"prompt,omitempty"`
	// MaxSteps, Timeout override the agent's defaults (0 = task or agent default).
	MaxSteps int           `json:"max_steps,omitempty"`
	Timeout  time.Duration `json:"timeout,omitempty"`
	// Seed: "" derives the seed from pair_id and the base seed; "+N" derives it from pair_id and the base seed + N
	// (an A/A copy of an arm with other seeds); "none" sends none; a number fixes it.
	Seed string `json:"seed,omitempty"`
	// TaskIDs, when non-nil, restricts the variant to these tasks (scope: target).
	TaskIDs map[string]bool `json:"-"`
	// Scope is "all" or "target" (documentation of TaskIDs for manifests).
	Scope string `json:"scope,omitempty"`
	// Switched lists the guards the variant switches relative to the baseline (ablations; recorded only).
	Switched []string `json:"-"`
	// Agent is the external agent the variant runs instead of the built-in one (nil: the built-in agent);
	// recorded in the manifest, so resuming with another agent command is refused. DESIGN.md "External agents".
	Agent *AgentCmd `json:"agent,omitempty"`
	// Tools is the built-in agent's tool backend when it is not webbench's own browser session: a Playwright
	// MCP server per attempt (kind mcp, runner/mcptools.go); nil: webbench's tools. Recorded in the manifest, so
	// resuming with other tools is refused. Not with Agent (an external agent has the webbench MCP server).
	Tools *ToolsBackend `json:"tools,omitempty"`
	// Observation is the built-in agent's observation mode (agent.Observation: full, diff or none; "" is full).
	// Recorded in the manifest.
	Observation string `json:"observation,omitempty"`
}

// Plan is what to run.
type Plan struct {
	Suite string
	// SuiteOptions and TaskFilter are how the suite was opened and its tasks chosen (recorded in the manifest
	// for bench judge and re-runs).
	SuiteOptions suites.Options
	TaskFilter   string
	Tasks        []suites.Task
	Reps         int
	// Variants are the arms, the baseline first.
	Variants []Variant
	// BaseSeed is the spec's base seed; attempt seeds derive from it and pair_id.
	BaseSeed int64
	// Ablation is the analysis parameters of an ablation (recorded in the manifest); nil for bench run.
	Ablation *results.Ablation
}

// Record is the plan as the manifest holds it: task ids and tags, the variants as data (prompt hashes
// included when the prompt files load), Baseline the first variant, and the planned attempt count.
func (p Plan) Record() results.Plan {
	rp := results.Plan{Suite: p.Suite, TaskFilter: p.TaskFilter, Reps: p.Reps, BaseSeed: p.BaseSeed,
		Ablation: p.Ablation, TaskTags: map[string][]string{}, ClusterUnit: suites.ClusterUnit(p.Suite)}
	if len(p.SuiteOptions) > 0 {
		rp.SuiteOptions = maps.Clone(map[string]string(p.SuiteOptions))
	}
	for _, t := range p.Tasks {
		rp.Tasks = append(rp.Tasks, t.ID)
		rp.TaskTags[t.ID] = t.Tags
	}
	for _, v := range p.Variants {
		rv := results.Variant{Name: v.Name, Model: v.Model, Guards: v.Guards, PromptFile: v.PromptFile,
			MaxSteps: v.MaxSteps, Timeout: v.Timeout, Seed: v.Seed, Scope: v.Scope, Switched: v.Switched, Agent: v.Agent,
			Tools: v.Tools, Observation: v.Observation}
		if v.TaskIDs != nil {
			rv.TargetTasks = slices.Sorted(maps.Keys(v.TaskIDs))
			if rv.TargetTasks == nil {
				rv.TargetTasks = []string{}
			}
		}
		if prompt, err := agent.LoadPrompt(v.PromptFile); err == nil {
			rv.PromptSHA256 = agent.PromptSHA256(prompt)
		}
		rp.Variants = append(rp.Variants, rv)
	}
	if len(p.Variants) > 0 {
		rp.Baseline = p.Variants[0].Name
	}
	if atts, err := p.Expand(); err == nil {
		rp.Attempts = len(atts)
	}
	return rp
}

// Attempt is one planned attempt.
type Attempt struct {
	AttemptID string       `json:"attempt_id"`
	PairID    string       `json:"pair_id"`
	Variant   string       `json:"variant"`
	TaskID    string       `json:"task_id"`
	Rep       int          `json:"rep"`
	Seed      *int         `json:"seed"`
	Task      *suites.Task `json:"-"`
	V         *Variant     `json:"-"`
}

// Expand lists the attempts of the plan: pairs in task order × rep, and within each pair the arms in an order
// shuffled deterministically per pair (STATS.md "Pairing": arms of one pair run next to each other).
func (p Plan) Expand() ([]Attempt, error) {
	if p.Reps < 1 {
		return nil, fmt.Errorf("reps must be at least 1 (got %d)", p.Reps)
	}
	if len(p.Variants) == 0 {
		return nil, fmt.Errorf("plan has no variants")
	}
	seen := map[string]bool{}
	for _, v := range p.Variants {
		if v.Name == "" || seen[v.Name] {
			return nil, fmt.Errorf("variant names must be unique and non-empty (%q)", v.Name)
		}
		seen[v.Name] = true
	}
	var out []Attempt
	for ti := range p.Tasks {
		t := &p.Tasks[ti]
		for rep := 1; rep <= p.Reps; rep++ {
			pid := results.PairID(p.Suite, t.ID, rep)
			base := results.Seed(pid, p.BaseSeed)
			var arms []Attempt
			for vi := range p.Variants {
				v := &p.Variants[vi]
				if v.TaskIDs != nil && !v.TaskIDs[t.ID] {
					continue
				}
				var seed *int
				switch v.Seed {
				case "":
					s := base
					seed = &s
				case "none":
				default:
					if off, ok := strings.CutPrefix(v.Seed, "+"); ok {
						n, err := strconv.ParseInt(off, 10, 64)
						if err != nil {
							return nil, fmt.Errorf("variant %s: seed offset %q is not a number", v.Name, v.Seed)
						}
						s := results.Seed(pid, p.BaseSeed+n)
						seed = &s
						break
					}
					n, err := strconv.Atoi(v.Seed)
					if err != nil {
						return nil, fmt.Errorf("variant %s: seed %q is not a number or \"none\"", v.Name, v.Seed)
					}
					seed = &n
				}
				arms = append(arms, Attempt{AttemptID: results.AttemptID(v.Name, pid), PairID: pid, Variant: v.Name,
					TaskID: t.ID, Rep: rep, Seed: seed, Task: t, V: v})
			}
			r := rand.New(rand.NewPCG(uint64(base), 0x9e3779b97f4a7c15))
			r.Shuffle(len(arms), func(i, j int) { arms[i], arms[j] = arms[j], arms[i] })
			out = append(out, arms...)
		}
	}
	return out, nil
}

// Shard is a deterministic partition of a plan by pair_id: shard I of N (1-based) holds the pairs whose
// pair_id hash mod N is I−1, so every arm of a pair lands on the same shard.
type Shard struct{ I, N int }

// ParseShard parses "i/n". An empty string is the whole plan; "i" alone takes N from the flag and I from
// JOB_COMPLETION_INDEX (0-based) when the index is "$JOB_COMPLETION_INDEX"-style empty.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{1, 1}, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("--shard %q: expected i/n", s)
	}
	n, err := strconv.Atoi(ns)
	if err != nil || n < 1 {
		return Shard{}, fmt.Errorf("--shard %q: n must be a positive integer", s)
	}
	var i int
	if is == "" || is == "k8s" {
		idx := os.Getenv("JOB_COMPLETION_INDEX")
		k, err := strconv.Atoi(idx)
		if err != nil {
			return Shard{}, fmt.Errorf("--shard %q: JOB_COMPLETION_INDEX=%q is not a number", s, idx)
		}
		i = k + 1
	} else if i, err = strconv.Atoi(is); err != nil {
		return Shard{}, fmt.Errorf("--shard %q: i must be an integer", s)
	}
	if i < 1 || i > n {
		return Shard{}, fmt.Errorf("--shard %q: i must be in 1..%d", s, n)
	}
	return Shard{i, n}, nil
}

// String is "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// Select keeps the attempts of this shard.
func (s Shard) Select(atts []Attempt) []Attempt {
	if s.N <= 1 {
		return atts
	}
	var out []Attempt
	for _, a := range atts {
		if s.Has(a.PairID) {
			out = append(out, a)
		}
	}
	return out
}

// Has reports whether the pair pairID is in this shard (every pair is in the whole plan's shard 1/1).
func (s Shard) Has(pairID string) bool {
	return results.InShard(pairID, s.I, s.N)
}

// VariantNames lists variant names in plan order.
func (p Plan) VariantNames() []string {
	var out []string
	for _, v := range p.Variants {
		out = append(out, v.Name)
	}
	return out
}

// UsedTasks counts the plan's tasks that at least one variant runs on (a variant with TaskIDs runs on those only).
func (p Plan) UsedTasks() int {
	n := 0
	for _, t := range p.Tasks {
		if slices.ContainsFunc(p.Variants, func(v Variant) bool { return v.TaskIDs == nil || v.TaskIDs[t.ID] }) {
			n++
		}
	}
	return n
}

// WritePlan writes the attempts atts of plan's shard sh (Expand, then Shard.Select) to w: as one indented JSON
// object {"shard", "attempts", "count"} when asJSON, else a count line and a line per attempt (id, pair, variant,
// task, rep). A sequential plan's attempts are listed in the order they start, its units' look order (a unit's
// pairs in plan order), each with its unit ("unit k/K" after the rep; "unit": k in JSON, 1-based); any other
// plan's in the order given.
func WritePlan(w io.Writer, plan Plan, atts []Attempt, sh Shard, asJSON bool) error {
	type planned struct {
		Attempt
		Unit int `json:"unit,omitempty"`
	}
	rows := make([]planned, len(atts))
	var units []results.SeqUnit
	if d := plan.seqDesign(); d != nil {
		units = d.Units
		atts = seqOrder(atts, units)
	}
	unitOf := map[string]int{}
	for i, u := range units {
		for _, t := range u.Tasks {
			unitOf[t] = i + 1
		}
	}
	for i, a := range atts {
		rows[i] = planned{a, unitOf[a.TaskID]}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"shard": sh.String(), "attempts": rows, "count": len(atts)})
	}
	fmt.Fprintf(w, "%s, shard %s\n", results.Count(len(atts), "attempt", "attempts"), sh)
	for _, r := range rows {
		a := r.Attempt
		fmt.Fprintf(w, "%s  pair %s  %-14s %s rep %d", a.AttemptID, a.PairID, a.Variant, a.TaskID, a.Rep)
		if r.Unit > 0 {
			fmt.Fprintf(w, "  unit %d/%d", r.Unit, len(units))
		}
		fmt.Fprintln(w)
	}
	return nil
}
