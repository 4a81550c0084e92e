package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"webbench/agent/guard"
	"webbench/results"
	"webbench/runner"
	"webbench/srcerr"
)

// Spec is an ablation spec (YAML). Unknown keys are errors naming the line.
//
//	name: guards-demo
//	suite: zoo
//	tasks: "*"                 # comma-separated id globs
//	reps: 3
//	workers: 2
//	seed: 1
//	baseline:
//	  model: {kind: scripted, profile: observed}
//	  guards: {}               # all on unless switched off
//	design: leave-one-out      # or add-one, or explicit `variants:`
//	scope: target              # generated variants run on their guard's target tasks
//	alpha: 0.05
//	power: 0.8
//	min_effect: 0.15
//	sequential: true           # or {alpha: 0.05, min_effect: 0.10}
type Spec struct {
	Name     string `yaml:"name"`
	Suite    string `yaml:"suite"`
	Tasks    string `yaml:"tasks"`
	Reps     int    `yaml:"reps"`
	Workers  int    `yaml:"workers"`
	Seed     int64  `yaml:"seed"`
	Baseline Config `yaml:"baseline"`
	Design   string `yaml:"design"`
	Scope    string `yaml:"scope"`
	// TargetTasks narrows a guard's targets under scope target: guard → comma-separated task id globs
	// (suites.Filter's); the arms switching that guard run on the tasks tagged with it that match one (a glob may
	// match no target). Guards not named keep all their tagged tasks. E.g. `target_tasks: {final_recovery:
	// "news-*/*"}`.
	TargetTasks map[string]string `yaml:"target_tasks"`
	Variants    []Config          `yaml:"variants"`
	// Alpha (default 0.05), Power (default 0.8) and MinEffect (default 0.1: a drop of 10 points in pass rate, since
	// an ablation looks for harm) size the power analysis.
	Alpha     float64 `yaml:"alpha"`
	Power     float64 `yaml:"power"`
	MinEffect float64 `yaml:"min_effect"`
	// Sequential makes the ablation sequential (SeqSetting): each variant is tested after every unit and its
	// remaining attempts are left unrun once it is decided.
	Sequential *SeqSetting `yaml:"sequential"`
	// FailIfWorse is the default --fail-if-worse margin (0 = no gate).
	FailIfWorse float64 `yaml:"fail_if_worse"`
	// FailIfCostlier is the default cost gate (--fail-if-costlier): per cost outcome (results.CostOutcomes:
	// steps, tokens, usd, wall, repeated_calls, tool_bytes), the relative increase tolerated, e.g. `fail_if_costlier: {tokens: 0.20}` (analysis.CostGateFails).
	FailIfCostlier map[results.CostOutcome]float64 `yaml:"fail_if_costlier"`
	// SuiteOptions are passed to the suite (e.g. tasks_file for webvoyager).
	SuiteOptions map[string]string `yaml:"suite_options"`
	// Notes is free text (e.g. the predicted power of a nightly spec).
	Notes string `yaml:"notes"`
	// ModelCache is the default model-call cache directory (--model-cache replaces it; a relative path is from
	// the spec file's folder, ModelCacheDir): the arms' model calls replay from it until an attempt's first
	// request not stored.
	ModelCache string `yaml:"model_cache"`
	// Record and Replay are the spec's cassette (docs/CASSETTES.md): record every attempt's traffic into the
	// directory, or answer it from there; RecordSecrets keeps secrets in a recording. Relative paths are from
	// the spec file's folder (CassetteDirs); --record, --replay and --record-secrets replace them.
	Record        string `yaml:"record"`
	Replay        string `yaml:"replay"`
	RecordSecrets bool   `yaml:"record_secrets"`

	file string
	// top are the line and column of each top-level key's value in file (absent keys: none), for the errors
	// of Open and Plan and for At; tasksFlag is set when --tasks replaced the spec's tasks (OverrideTasks), so a
	// glob error names the flag rather than the file.
	top       map[string][2]int
	tasksFlag bool
	// targetAt are the line and column of target_tasks' guards in file, for Plan's errors.
	targetAt map[string][2]int
}

// Designs are the values of a spec's `design:` key (Expand: explicit variants, or a generated design).
var Designs = []string{"leave-one-out", "add-one", "explicit"}

// Scopes are the values of a spec's or a variant's `scope:` key.
var Scopes = []string{"all", "target"}

// OverrideTasks replaces the spec's task globs with those of --tasks; Plan's glob errors then name the flag.
func (s *Spec) OverrideTasks(globs string) {
	s.Tasks, s.tasksFlag = globs, true
}

// Config is the baseline or a variant: a change to the baseline. Unset fields inherit from the baseline.
type Config struct {
	Name   string          `yaml:"name"`
	Model  *runner.Model   `yaml:"model"`
	Guards map[string]bool `yaml:"guards"`
	Prompt string          `yaml:"prompt"`
	// MaxSteps and Timeout override the agent budgets.
	MaxSteps int           `yaml:"max_steps"`
	Timeout  time.Duration `yaml:"timeout"`
	// Seed: "" (derived per pair), "none", or a fixed number.
	Seed string `yaml:"seed"`
	// Scope: "all" (default for explicit variants) or "target" (only tasks tagged with a switched guard).
	Scope string `yaml:"scope"`
	// Agent is an external agent run instead of the built-in one, `agent: {kind: command, run: [COMMAND,
	// ARGS…], env: {NAME: VALUE}}` (runner.AgentCmd; a relative command path and the working directory are the
	// spec file's folder); a variant without one inherits the baseline's. `agent: builtin` is the built-in agent
	// (a variant of a baseline that names a command goes back to it). ParseSpec checks its shape (parseAgent)
	// and refuses a prompt beside an external agent (it has its own prompt).
	// (The raw node; Kind 0 when the key is absent.)
	Agent yaml.Node `yaml:"agent"`
	// agent is Agent parsed (nil: the built-in agent, or the baseline's when the key is absent).
	agent *runner.AgentCmd
	// builtin is `agent: builtin`: the built-in agent whatever the baseline's.
	builtin bool
	// Tools is the built-in agent's tool backend, `tools: {kind: mcp, command: [npx, @playwright/mcp@VERSION,
	// FLAGS…]}` (runner.ToolsBackend: a real Playwright MCP server per attempt instead of webbench's own browser
	// tools; the pinned installs of `make setup` are used, so npx does not reach the registry); a variant
	// without one inherits the baseline's. ParseSpec checks its shape (parseTools) and refuses it beside an
	// agent (an external agent is not run on it). (The raw node; Kind 0 when the key is absent.)
	Tools yaml.Node `yaml:"tools"`
	// tools is Tools parsed (nil: webbench's own tools).
	tools *runner.ToolsBackend
	// AA makes the variant an A/A arm, a copy of the baseline on every task (an A/A arm may set nothing else but
	// name). `aa: true` (or `aa: other-seeds`, results.AAOtherSeeds): the baseline with other seeds (the i-th such arm
	// derives its seeds from pair_id and the base seed + AASeedOffset·i); its Δ is the run's observed noise
	// floor (the report's noise_floor warning). `aa: same-seed` (results.AASameSeed): the baseline replayed with the
	// baseline's own seeds; the share of pairs whose outcome differs is the environment's flake rate (the
	// report's flake-rate line, and a flake_rate warning when it is above zero).
	AA AASetting `yaml:"aa"`
	// Observation is the built-in agent's observation mode, `observation: {snapshot: full|diff|none}`
	// (agent.Observation; DESIGN.md "Observation modes"); a variant without one inherits the baseline's, a
	// baseline without one is full. ParseSpec checks the value and refuses it beside an external agent.
	Observation *ObservationSpec `yaml:"observation"`
}

// ObservationSpec is the `observation:` block of a baseline or variant.
type ObservationSpec struct {
	// Snapshot is full, diff or none (agent.ParseObservation).
	Snapshot string `yaml:"snapshot"`
}

// AASetting is a variant's `aa:` key as written in a spec; its value is a results.AAMode ("" when the variant is
// not an A/A arm).
type AASetting results.AAMode

// UnmarshalYAML reads `aa:` as a boolean (true: results.AAOtherSeeds, false: not an A/A arm) or one of the kinds'
// names; anything else is an *aaError, which ParseSpec turns into "file:line: variant V: aa …".
func (m *AASetting) UnmarshalYAML(n *yaml.Node) error {
	var b bool
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" && n.Decode(&b) == nil {
		*m = ""
		if b {
			*m = AASetting(results.AAOtherSeeds)
		}
		return nil
	}
	switch v := results.AAMode(n.Value); {
	case n.Kind == yaml.ScalarNode && (v == results.AAOtherSeeds || v == results.AASameSeed):
		*m = AASetting(v)
		return nil
	case n.Kind == yaml.ScalarNode && strings.EqualFold(n.Value, "true"):
		*m = AASetting(results.AAOtherSeeds) // a quoted "true" means what the error message lists
		return nil
	case n.Kind == yaml.ScalarNode && strings.EqualFold(n.Value, "false"):
		*m = ""
		return nil
	}
	return &aaError{val: n}
}

// aaError is an `aa:` value that is neither a boolean nor a kind's name (AAMode.UnmarshalYAML); val is its node.
type aaError struct{ val *yaml.Node }

// what names the refused value: a scalar as written (quoted), else its node kind.
func (e *aaError) what() string {
	switch e.val.Kind {
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", e.val.Value)
	case yaml.SequenceNode:
		return "(a sequence)"
	}
	return "(a mapping)" // an alias reaches UnmarshalYAML resolved, a document never
}

func (e *aaError) Error() string {
	return fmt.Sprintf("line %d: aa %s: expected true, %s or %s", e.val.Line, e.what(), results.AAOtherSeeds, results.AASameSeed)
}

// aaErrorAt is the message of an aaError in spec file name, in the form of the spec's other errors: the position of
// the `aa:` key and the section it is in ("variant V: " or "baseline: "), found in the parsed document root by the
// value's position; else the value's own line.
func aaErrorAt(name string, root *yaml.Node, e *aaError) error {
	at, where := e.val, ""
	find := func(m *yaml.Node) *yaml.Node {
		if m == nil || m.Kind != yaml.MappingNode {
			return nil
		}
		for j := 0; j+1 < len(m.Content); j += 2 {
			if v := m.Content[j+1]; m.Content[j].Value == "aa" && v.Line == e.val.Line && v.Column == e.val.Column {
				return m.Content[j]
			}
		}
		return nil
	}
	if root != nil && len(root.Content) > 0 && root.Content[0].Kind == yaml.MappingNode {
		top := root.Content[0].Content
		for j := 0; j+1 < len(top); j += 2 {
			switch k, v := top[j].Value, top[j+1]; {
			case k == "baseline":
				if k := find(v); k != nil {
					at, where = k, "baseline: "
				}
			case k == "variants" && v.Kind == yaml.SequenceNode:
				for _, item := range v.Content {
					if k := find(item); k != nil {
						at, where = k, "variant "+itemName(item)+": "
					}
				}
			}
		}
	}
	return srcerr.AtNode(name, at, "", "%saa %s: expected true, %s or %s", where, e.what(), results.AAOtherSeeds,
		results.AASameSeed)
}

// itemName is the `name:` of a variant's mapping node, or "(no name)".
func itemName(m *yaml.Node) string {
	for j := 0; j+1 < len(m.Content); j += 2 {
		if m.Content[j].Value == "name" && m.Content[j+1].Value != "" {
			return m.Content[j+1].Value
		}
	}
	return "(no name)"
}

// LoadSpec reads and validates a spec file. Errors name the file and line.
func LoadSpec(path string) (*Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseSpec(path, b)
}

// cmpOr is s, or def when s is empty.
func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// parseAgent reads an `agent:` value (node n, in section where: "baseline: " or "variant V: ") of spec file
// name: the scalar builtin (the built-in agent: builtin true, no command), or a runner.AgentCmd run in dir, a
// mapping of kind (command, the only kind), run (a non-empty sequence of strings: the command and its
// arguments) and env (a mapping of names to string values; quote numbers and booleans). Errors name the file,
// the line and the field; another scalar (null included) names the two allowed forms.
func parseAgent(name, where string, n *yaml.Node, dir string) (*runner.AgentCmd, bool, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && n.Value == "builtin" {
		return nil, true, nil
	}
	a, err := parseAgentCmd(name, where, n, dir)
	return a, false, err
}

// parseAgentCmd is parseAgent's command form (any node but the scalar builtin).
func parseAgentCmd(name, where string, n *yaml.Node, dir string) (*runner.AgentCmd, error) {
	fail := func(at *yaml.Node, field, msg string, args ...any) error {
		return srcerr.AtNode(name, at, where+"agent"+field, msg, args...)
	}
	if n.Kind != yaml.MappingNode {
		return nil, fail(n, "", "%s: expected builtin (the built-in agent) or a mapping {kind: command, run: "+
			"[COMMAND, ARGS…], env: {…}}", nodeText(n))
	}
	a := &runner.AgentCmd{Dir: dir}
	var kind, run *yaml.Node
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], n.Content[j+1]
		switch k.Value {
		case "kind":
			kind = v
			if v.Kind != yaml.ScalarNode || v.Value != "command" {
				return nil, fail(k, ".kind", "%s: expected command (the only kind)", nodeText(v))
			}
			a.Kind = v.Value
		case "run":
			run = v
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				return nil, fail(k, ".run", "expected a non-empty list [COMMAND, ARGS…]")
			}
			for i, w := range v.Content {
				if w.Kind != yaml.ScalarNode || w.Tag == "!!null" {
					return nil, fail(w, fmt.Sprintf(".run[%d]", i), "%s: expected a string", nodeText(w))
				}
				a.Run = append(a.Run, w.Value)
			}
			if a.Run[0] == "" {
				return nil, fail(k, ".run[0]", "the command is empty")
			}
		case "env":
			if v.Kind != yaml.MappingNode {
				return nil, fail(k, ".env", "expected a mapping {NAME: VALUE}")
			}
			a.Env = map[string]string{}
			for e := 0; e+1 < len(v.Content); e += 2 {
				ek, ev := v.Content[e], v.Content[e+1]
				if ev.Kind != yaml.ScalarNode || ev.Tag != "!!str" {
					return nil, fail(ek, ".env."+ek.Value, "%s is not a string: quote it", nodeText(ev))
				}
				a.Env[ek.Value] = ev.Value
			}
		default:
			return nil, fail(k, "", "unknown key %q (valid: kind, run, env)", k.Value)
		}
	}
	switch {
	case kind == nil:
		return nil, fail(n, ".kind", "missing: give kind: command")
	case run == nil:
		return nil, fail(n, ".run", "missing: give run: [COMMAND, ARGS…]")
	}
	if err := runner.CheckAgentShape(a); err != nil {
		return nil, fail(n, "", "%v", err)
	}
	return a, nil
}

// parseTools reads a `tools:` block (node n, in section where: "baseline: " or "variant V: ") of spec file name
// into a runner.ToolsBackend: a mapping of kind (mcp, the only kind) and command (a non-empty sequence of
// strings: [npx, @playwright/mcp@VERSION, FLAGS…] or any server command; runner.CheckToolsShape refuses the
// flags webbench sets itself). Errors name the file, the line and the field.
func parseTools(name, where string, n *yaml.Node) (*runner.ToolsBackend, error) {
	fail := func(at *yaml.Node, field, msg string, args ...any) error {
		return srcerr.AtNode(name, at, where+"tools"+field, msg, args...)
	}
	if n.Kind != yaml.MappingNode {
		return nil, fail(n, "", "expected a mapping {kind: mcp, command: [npx, @playwright/mcp@VERSION, FLAGS…]}")
	}
	tb := &runner.ToolsBackend{}
	var kind, command *yaml.Node
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], n.Content[j+1]
		switch k.Value {
		case "kind":
			kind = v
			if v.Kind != yaml.ScalarNode || v.Value != "mcp" {
				return nil, fail(k, ".kind", "%s: expected mcp (the only kind: a Playwright MCP server per attempt)", nodeText(v))
			}
			tb.Kind = v.Value
		case "command":
			command = v
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				return nil, fail(k, ".command", "expected a non-empty list [npx, @playwright/mcp@VERSION, FLAGS…]")
			}
			for i, w := range v.Content {
				if w.Kind != yaml.ScalarNode || w.Tag == "!!null" {
					return nil, fail(w, fmt.Sprintf(".command[%d]", i), "%s: expected a string", nodeText(w))
				}
				tb.Command = append(tb.Command, w.Value)
			}
		default:
			return nil, fail(k, "", "unknown key %q (valid: kind, command)", k.Value)
		}
	}
	switch {
	case kind == nil:
		return nil, fail(n, ".kind", "missing: give kind: mcp")
	case command == nil:
		return nil, fail(n, ".command", "missing: give command: [npx, @playwright/mcp@VERSION, FLAGS…]")
	}
	if err := runner.CheckToolsShape(tb); err != nil {
		return nil, fail(command, ".command", "%v", err)
	}
	return tb, nil
}

// nodeText is how a YAML value is named in an error: a scalar quoted, else its kind.
func nodeText(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	case yaml.SequenceNode:
		return "(a sequence)"
	case yaml.MappingNode:
		return "(a mapping)"
	}
	return "(an alias)"
}

func knownGuard(name string) bool { return slices.Contains(guard.Names(), name) }

// At is where the spec sets the top-level key: "FILE:LINE:COL" of its value, or "" when the spec leaves it out
// (a default), so that a refusal of a value can name the line it came from.
func (s *Spec) At(key string) string {
	p, ok := s.top[key]
	if !ok {
		return ""
	}
	return srcerr.Pos(s.file, p[0], p[1])
}

// CassetteDirs are Record and Replay, relative ones resolved against the spec file's folder ("" when unset).
func (s *Spec) CassetteDirs() (record, replay string) {
	return s.fromSpecDir(s.Record), s.fromSpecDir(s.Replay)
}

// ModelCacheDir is ModelCache, a relative path resolved against the spec file's folder ("" when unset).
func (s *Spec) ModelCacheDir() string { return s.fromSpecDir(s.ModelCache) }

// fromSpecDir resolves a path the spec names against the spec file's folder, so a spec means the same
// directories whatever folder bench runs in ("" and absolute paths unchanged).
func (s *Spec) fromSpecDir(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(s.file), p)
}
