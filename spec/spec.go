package spec

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"webbench/agent"
	"webbench/agent/guard"
	"webbench/llm"
	"webbench/results"
	"webbench/runner"
	"webbench/suites"
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
type Spec struct {
	Name     string   `yaml:"name"`
	Suite    string   `yaml:"suite"`
	Tasks    string   `yaml:"tasks"`
	Reps     int      `yaml:"reps"`
	Workers  int      `yaml:"workers"`
	Seed     int64    `yaml:"seed"`
	Baseline Config   `yaml:"baseline"`
	Design   string   `yaml:"design"`
	Scope    string   `yaml:"scope"`
	Variants []Config `yaml:"variants"`
	// Alpha (default 0.05), Power (default 0.8) and MinEffect (default 0.1: a drop of 10 points in pass rate, since
	// an ablation looks for harm) size the power analysis.
	Alpha     float64 `yaml:"alpha"`
	Power     float64 `yaml:"power"`
	MinEffect float64 `yaml:"min_effect"`
	// FailIfWorse is the default --fail-if-worse margin (0 = no gate).
	FailIfWorse float64 `yaml:"fail_if_worse"`
	// SuiteOptions are passed to the suite (e.g. tasks_file for webvoyager).
	SuiteOptions map[string]string `yaml:"suite_options"`
	// Notes is free text (e.g. the predicted power of a nightly spec).
	Notes string `yaml:"notes"`

	file string
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
		*m = AASetting(results.AAOtherSeeds) // a quoted "true" means what the error message lists (fresh-user trial of issue 17)
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

// aaErrorAt is the message of an aaError in spec file name, in the form of the spec's other errors: the line of the
// `aa:` key and the section it is in ("variant V: " or "baseline: "), found in the parsed document root by the
// value's position; else the value's own line.
func aaErrorAt(name string, root *yaml.Node, e *aaError) error {
	line, where := e.val.Line, ""
	find := func(m *yaml.Node) int {
		if m == nil || m.Kind != yaml.MappingNode {
			return 0
		}
		for j := 0; j+1 < len(m.Content); j += 2 {
			if v := m.Content[j+1]; m.Content[j].Value == "aa" && v.Line == e.val.Line && v.Column == e.val.Column {
				return m.Content[j].Line
			}
		}
		return 0
	}
	if root != nil && len(root.Content) > 0 && root.Content[0].Kind == yaml.MappingNode {
		top := root.Content[0].Content
		for j := 0; j+1 < len(top); j += 2 {
			switch k, v := top[j].Value, top[j+1]; {
			case k == "baseline":
				if l := find(v); l > 0 {
					line, where = l, "baseline: "
				}
			case k == "variants" && v.Kind == yaml.SequenceNode:
				for _, item := range v.Content {
					if l := find(item); l > 0 {
						line, where = l, "variant "+itemName(item)+": "
					}
				}
			}
		}
	}
	return fmt.Errorf("%s:%d: %saa %s: expected true, %s or %s", name, line, where, e.what(), results.AAOtherSeeds, results.AASameSeed)
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

// ParseSpec parses spec YAML; name is used in error messages.
func ParseSpec(name string, b []byte) (*Spec, error) {
	var s Spec
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		if ae := (*aaError)(nil); errors.As(err, &ae) {
			var root yaml.Node
			_ = yaml.Unmarshal(b, &root) // decoded as far as the aa value, so it parses
			return nil, aaErrorAt(name, &root, ae)
		}
		if te := (*yaml.TypeError)(nil); errors.As(err, &te) {
			// yaml.v3 lists each field error as "line N: …": one "file:N: …" line each, as the other errors.
			var lines []string
			for _, e := range te.Errors {
				e = unknownFieldRe.ReplaceAllString(e, "unknown key \"$1\"")
				if m := yamlLineRe.FindStringSubmatch(e); m != nil {
					e = m[1] + ": " + m[2]
				} else {
					e = " " + e
				}
				lines = append(lines, name+":"+e)
			}
			return nil, errors.New(strings.Join(lines, "\n"))
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = unknownFieldRe.ReplaceAllString(msg, "unknown key \"$1\"")
		return nil, fmt.Errorf("%s: %s", name, msg)
	}
	s.file = name
	line := lineFinder(b)
	var root yaml.Node
	_ = yaml.Unmarshal(b, &root) // decoded above, so it parses
	at := nodeLines(&root)
	if s.Suite == "" {
		s.Suite = "zoo"
	}
	if s.Reps == 0 && line("reps:") == 0 {
		s.Reps = 1
	}
	if s.Reps < 1 {
		return nil, fmt.Errorf("%s:%d: reps must be at least 1 (got %d)", name, line("reps"), s.Reps)
	}
	if s.Alpha == 0 {
		s.Alpha = 0.05
	}
	if s.Power == 0 {
		s.Power = 0.8
	}
	if s.MinEffect == 0 {
		s.MinEffect = 0.1
	}
	if s.Alpha <= 0 || s.Alpha >= 1 || s.Power <= 0 || s.Power >= 1 {
		return nil, fmt.Errorf("%s:%d: alpha and power must be in (0, 1)", name, line("alpha"))
	}
	if s.Baseline.Name == "" {
		s.Baseline.Name = "baseline"
	}
	if s.Baseline.Model == nil {
		s.Baseline.Model = &runner.Model{Kind: "scripted", Name: "scripted", Profile: "clean"}
	}
	if s.Baseline.AA != "" {
		return nil, fmt.Errorf("%s:%d: baseline: aa marks a variant as an A/A arm (a copy of the baseline); the baseline "+
			"cannot be one: remove it", name, at("baseline", -1, "aa"))
	}
	if err := normModel(s.Baseline.Model); err != nil {
		return nil, fmt.Errorf("%s:%d: baseline.model: %v", name, line("model"), err)
	}
	dir := filepath.Dir(name)
	var err error
	if s.Baseline.Agent.Kind != 0 {
		if s.Baseline.agent, s.Baseline.builtin, err = parseAgent(name, "baseline: ", &s.Baseline.Agent, dir); err != nil {
			return nil, err
		}
		if s.Baseline.agent != nil && s.Baseline.Prompt != "" {
			return nil, fmt.Errorf("%s:%d: baseline: prompt: cannot apply to an external agent (agent: line %d; it "+
				"has its own prompt): remove it", name, at("baseline", -1, "prompt"), s.Baseline.Agent.Line)
		}
	}
	if s.Baseline.Tools.Kind != 0 {
		if s.Baseline.tools, err = parseTools(name, "baseline: ", &s.Baseline.Tools); err != nil {
			return nil, err
		}
		if s.Baseline.agent != nil {
			return nil, fmt.Errorf("%s:%d: baseline: tools: %v", name, s.Baseline.Tools.Line, runner.ErrToolsWithAgent)
		}
	}
	for i := range s.Variants {
		v := &s.Variants[i]
		if v.Tools.Kind != 0 {
			if v.tools, err = parseTools(name, "variant "+cmpOr(v.Name, "(no name)")+": ", &v.Tools); err != nil {
				return nil, err
			}
		}
		if v.Agent.Kind != 0 {
			if v.agent, v.builtin, err = parseAgent(name, "variant "+cmpOr(v.Name, "(no name)")+": ", &v.Agent, dir); err != nil {
				return nil, err
			}
		}
		external := (v.agent != nil || s.Baseline.agent != nil && v.Agent.Kind == 0) && !v.builtin
		if v.AA == "" && external && (v.tools != nil || s.Baseline.tools != nil && v.Tools.Kind == 0) {
			l := at("variants", i, "tools")
			if v.Tools.Kind == 0 {
				l = at("variants", i, "agent")
			}
			return nil, fmt.Errorf("%s:%d: variant %s: tools: %v", name, l, v.Name, runner.ErrToolsWithAgent)
		}
		if external && v.AA == "" && (v.Prompt != "" || s.Baseline.Prompt != "") {
			l := at("variants", i, "prompt")
			if v.Prompt == "" {
				l = at("variants", i, "agent")
			}
			return nil, fmt.Errorf("%s:%d: variant %s: prompt: cannot apply to an external agent (it has its own "+
				"prompt): remove the prompt or the agent", name, l, v.Name)
		}
	}
	for _, c := range append([]Config{s.Baseline}, s.Variants...) {
		for g := range c.Guards {
			if !knownGuard(g) {
				return nil, fmt.Errorf("%s:%d: unknown guard %q (valid: %s)", name, line(g+":"), g,
					strings.Join(guard.Names(), ", "))
			}
		}
	}
	checkObs := func(c Config, what string, l int, external bool) error {
		if c.Observation == nil {
			return nil
		}
		if _, err := agent.ParseObservation(c.Observation.Snapshot); err != nil || c.Observation.Snapshot == "" {
			return fmt.Errorf("%s:%d: %sobservation: snapshot %q: expected full, diff or none", name, l, what,
				c.Observation.Snapshot)
		}
		if external {
			return fmt.Errorf("%s:%d: %sobservation: the built-in agent's observation mode cannot apply to an "+
				"external agent (it sees what the webbench MCP server returns): remove it", name, l, what)
		}
		return nil
	}
	if err := checkObs(s.Baseline, "baseline: ", at("baseline", -1, "observation"), s.Baseline.agent != nil); err != nil {
		return nil, err
	}
	for i, v := range s.Variants {
		external := (v.agent != nil || s.Baseline.agent != nil && v.Agent.Kind == 0) && !v.builtin
		if err := checkObs(v, "variant "+cmpOr(v.Name, "(no name)")+": ", at("variants", i, "observation"),
			external && v.AA == ""); err != nil {
			return nil, err
		}
	}
	switch s.Design {
	case "", "explicit":
		if len(s.Variants) == 0 {
			return nil, fmt.Errorf("%s: no variants: give `variants:` or `design: leave-one-out|add-one`", name)
		}
	case "leave-one-out", "add-one":
		// Beside a generated design, variants may only add A/A arms (aa: true or aa: same-seed).
		for i, v := range s.Variants {
			if v.AA == "" {
				return nil, fmt.Errorf("%s:%d: give either design: %s or variants, not both (beside a design, "+
					"variants may only be A/A arms: aa: true or aa: same-seed)", name, at("variants", i, ""), s.Design)
			}
		}
	default:
		return nil, fmt.Errorf("%s:%d: design %q: expected leave-one-out, add-one or explicit", name, line("design"), s.Design)
	}
	switch s.Scope {
	case "", "all", "target":
	default:
		return nil, fmt.Errorf("%s:%d: scope %q: expected all or target", name, line("scope"), s.Scope)
	}
	seen := map[string]int{s.Baseline.Name: at("baseline", -1, "name")}
	generated := map[string]bool{}
	if s.Design == "leave-one-out" || s.Design == "add-one" {
		for _, c := range s.generatedConfigs() {
			generated[c.Name] = true
		}
	}
	nAA := 0
	for i, v := range s.Variants {
		if v.Name == "" {
			return nil, fmt.Errorf("%s:%d: variants[%d] has no name", name, at("variants", i, ""), i)
		}
		if generated[v.Name] {
			return nil, fmt.Errorf("%s:%d: variant %s: name: the name is a generated arm's (design: %s); arm names "+
				"must be unique", name, at("variants", i, "name"), v.Name, s.Design)
		}
		if l, dup := seen[v.Name]; dup {
			what := fmt.Sprintf("an earlier variant's (line %d)", l)
			if v.Name == s.Baseline.Name {
				what = "the baseline's"
			}
			return nil, fmt.Errorf("%s:%d: variant %s: name: the name is %s; arm names must be unique", name,
				at("variants", i, "name"), v.Name, what)
		}
		seen[v.Name] = at("variants", i, "name")
		if v.Model != nil {
			// A variant's model block overlays the baseline's (configVariant): only the merged model is checked
			// and normalised — normalising the block alone made a partial one ({temperature: 1}) a scripted
			// model with the clean profile that then overwrote the baseline's (third review of issue 17).
			if v.Model.Kind == "" && v.Model.BaseURL != "" {
				v.Model.Kind = "openai" // as normModel infers it for a whole model
			}
			merged := variantModel(*s.Baseline.Model, *v.Model)
			if err := normModel(&merged); err != nil {
				return nil, fmt.Errorf("%s:%d: variant %s: model: %v", name, at("variants", i, "model"), v.Name, err)
			}
		}
		switch v.Scope {
		case "", "all", "target":
		default:
			return nil, fmt.Errorf("%s:%d: variant %s: scope %q: expected all or target", name, line("name: "+v.Name), v.Name, v.Scope)
		}
		if results.AAMode(v.AA) == results.AAOtherSeeds {
			// The arm's seeds must be other seeds than the baseline's: not the same offset, and not "none" (no
			// seed sent: the arm would send seeds the baseline does not). Third review of issue 17.
			nAA++
			if aaSeed := results.AASeed(nAA); s.Baseline.Seed == "none" || s.Baseline.Seed == aaSeed {
				return nil, fmt.Errorf("%s:%d: variant %s: aa: an other-seeds A/A arm runs with seed %q (the base seed "+
					"+ %s), which needs a baseline that sends other seeds; the baseline's seed is %q: leave it out "+
					"(derived seeds), fix a number, or choose another offset", name, at("variants", i, "aa"), v.Name,
					aaSeed, aaSeed[1:], s.Baseline.Seed)
			}
		}
		if v.AA != "" {
			for _, f := range []struct {
				key string
				set bool
			}{{"model", v.Model != nil}, {"guards", len(v.Guards) > 0}, {"prompt", v.Prompt != ""},
				{"max_steps", v.MaxSteps != 0}, {"timeout", v.Timeout != 0}, {"seed", v.Seed != ""}, {"scope", v.Scope != ""},
				{"agent", v.Agent.Kind != 0}, {"tools", v.Tools.Kind != 0}, {"observation", v.Observation != nil}} {
				if f.set {
					return nil, fmt.Errorf("%s:%d: variant %s: %s: an aa (A/A) arm is a copy of the baseline: give it only a name",
						name, at("variants", i, f.key), v.Name, f.key)
				}
			}
		}
	}
	return &s, nil
}

func normModel(m *runner.Model) error {
	switch m.Kind {
	case "", "scripted":
		if m.Kind == "" && m.BaseURL != "" {
			m.Kind = "openai"
			break
		}
		m.Kind = "scripted"
		m.Name = "scripted"
		if m.Profile == "" {
			m.Profile = "clean"
		}
	case "openai":
	default:
		return fmt.Errorf("kind %q: expected scripted or openai", m.Kind)
	}
	if m.MaxConnections < 0 {
		return fmt.Errorf("max_connections %d: must be at least 0 (0: no cap)", m.MaxConnections)
	}
	if m.Kind == "openai" {
		if m.Name == "" {
			return errors.New("openai model needs a name")
		}
		if m.BaseURL == "" {
			m.BaseURL = "https://api.openai.com/v1"
		}
	}
	return llm.Config{Omit: m.Omit, MaxTokensField: m.MaxTokensField}.Validate()
}

// unknownFieldRe rewrites yaml.v3's "field x not found in type pkg.T" into words a spec author knows.
var unknownFieldRe = regexp.MustCompile(`field (\S+) not found in type \S+`)

// yamlLineRe splits a yaml.v3 field error ("line 10: …") into its line and message.
var yamlLineRe = regexp.MustCompile(`^line (\d+): (.*)$`)

// lineFinder returns a function giving the 1-based line of the first occurrence of key in b (0 if absent).
func lineFinder(b []byte) func(string) int {
	lines := strings.Split(string(b), "\n")
	return func(key string) int {
		for i, l := range lines {
			if strings.Contains(l, key) {
				return i + 1
			}
		}
		return 0
	}
}

// nodeLines returns a function giving the line of a spec field from the parsed document root: the value of
// key section (i < 0: the section's mapping; else its i-th sequence item) and, in it, of field (""
// or absent: the section or item's own line); 0 when the section is absent.
func nodeLines(root *yaml.Node) func(section string, i int, field string) int {
	get := func(m *yaml.Node, key string) (k, v *yaml.Node) {
		if m == nil || m.Kind != yaml.MappingNode {
			return nil, nil
		}
		for j := 0; j+1 < len(m.Content); j += 2 {
			if m.Content[j].Value == key {
				return m.Content[j], m.Content[j+1]
			}
		}
		return nil, nil
	}
	return func(section string, i int, field string) int {
		if root == nil || len(root.Content) == 0 {
			return 0
		}
		k, n := get(root.Content[0], section)
		if k == nil {
			return 0
		}
		line := k.Line
		if i >= 0 {
			if n.Kind != yaml.SequenceNode || i >= len(n.Content) {
				return line
			}
			n = n.Content[i]
			line = n.Line
		}
		if fk, _ := get(n, field); fk != nil {
			return fk.Line
		}
		return line
	}
}

// Arms is the expanded spec: the baseline first, then the variants, each with its target task set.
type Arms struct {
	Variants []runner.Variant
	// Switched maps a variant name to the guards it switches relative to the baseline.
	Switched map[string][]string
	// Warnings found while expanding (e.g. a variant equal to the baseline).
	Warnings []string
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
					if t.HasTag(sw) {
						v.TaskIDs[t.ID] = true
						union[t.ID] = true
					}
				}
			}
			if len(v.TaskIDs) == 0 {
				which := fmt.Sprintf("none of the %d selected tasks is", len(tasks))
				if len(tasks) == 1 {
					which = "the one selected task is not"
				}
				out.Warnings = append(out.Warnings, fmt.Sprintf("variant %s: %s tagged with %s; it runs on no task",
					v.Name, which, strings.Join(switched, ", ")))
			}
		} else {
			allTasks = true
		}
		if reflect.DeepEqual(stripName(v), stripName(bv)) {
			out.Warnings = append(out.Warnings, fmt.Sprintf("variant %s is identical to the baseline: it can only measure noise", v.Name))
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
	fail := func(line int, field, msg string, args ...any) error {
		return fmt.Errorf("%s:%d: %sagent%s: %s", name, line, where, field, fmt.Sprintf(msg, args...))
	}
	if n.Kind != yaml.MappingNode {
		return nil, fail(n.Line, "", "%s: expected builtin (the built-in agent) or a mapping {kind: command, run: "+
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
				return nil, fail(k.Line, ".kind", "%s: expected command (the only kind)", nodeText(v))
			}
			a.Kind = v.Value
		case "run":
			run = v
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				return nil, fail(k.Line, ".run", "expected a non-empty list [COMMAND, ARGS…]")
			}
			for i, w := range v.Content {
				if w.Kind != yaml.ScalarNode || w.Tag == "!!null" {
					return nil, fail(w.Line, fmt.Sprintf(".run[%d]", i), "%s: expected a string", nodeText(w))
				}
				a.Run = append(a.Run, w.Value)
			}
			if a.Run[0] == "" {
				return nil, fail(k.Line, ".run[0]", "the command is empty")
			}
		case "env":
			if v.Kind != yaml.MappingNode {
				return nil, fail(k.Line, ".env", "expected a mapping {NAME: VALUE}")
			}
			a.Env = map[string]string{}
			for e := 0; e+1 < len(v.Content); e += 2 {
				ek, ev := v.Content[e], v.Content[e+1]
				if ev.Kind != yaml.ScalarNode || ev.Tag != "!!str" {
					return nil, fail(ek.Line, ".env."+ek.Value, "%s is not a string: quote it", nodeText(ev))
				}
				a.Env[ek.Value] = ev.Value
			}
		default:
			return nil, fail(k.Line, "", "unknown key %q (valid: kind, run, env)", k.Value)
		}
	}
	switch {
	case kind == nil:
		return nil, fail(n.Line, ".kind", "missing: give kind: command")
	case run == nil:
		return nil, fail(n.Line, ".run", "missing: give run: [COMMAND, ARGS…]")
	}
	if err := runner.CheckAgentShape(a); err != nil {
		return nil, fail(n.Line, "", "%v", err)
	}
	return a, nil
}

// parseTools reads a `tools:` block (node n, in section where: "baseline: " or "variant V: ") of spec file name
// into a runner.ToolsBackend: a mapping of kind (mcp, the only kind) and command (a non-empty sequence of
// strings: [npx, @playwright/mcp@VERSION, FLAGS…] or any server command; runner.CheckToolsShape refuses the
// flags webbench sets itself). Errors name the file, the line and the field.
func parseTools(name, where string, n *yaml.Node) (*runner.ToolsBackend, error) {
	fail := func(line int, field, msg string, args ...any) error {
		return fmt.Errorf("%s:%d: %stools%s: %s", name, line, where, field, fmt.Sprintf(msg, args...))
	}
	if n.Kind != yaml.MappingNode {
		return nil, fail(n.Line, "", "expected a mapping {kind: mcp, command: [npx, @playwright/mcp@VERSION, FLAGS…]}")
	}
	tb := &runner.ToolsBackend{}
	var kind, command *yaml.Node
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], n.Content[j+1]
		switch k.Value {
		case "kind":
			kind = v
			if v.Kind != yaml.ScalarNode || v.Value != "mcp" {
				return nil, fail(k.Line, ".kind", "%s: expected mcp (the only kind: a Playwright MCP server per attempt)", nodeText(v))
			}
			tb.Kind = v.Value
		case "command":
			command = v
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				return nil, fail(k.Line, ".command", "expected a non-empty list [npx, @playwright/mcp@VERSION, FLAGS…]")
			}
			for i, w := range v.Content {
				if w.Kind != yaml.ScalarNode || w.Tag == "!!null" {
					return nil, fail(w.Line, fmt.Sprintf(".command[%d]", i), "%s: expected a string", nodeText(w))
				}
				tb.Command = append(tb.Command, w.Value)
			}
		default:
			return nil, fail(k.Line, "", "unknown key %q (valid: kind, command)", k.Value)
		}
	}
	switch {
	case kind == nil:
		return nil, fail(n.Line, ".kind", "missing: give kind: mcp")
	case command == nil:
		return nil, fail(n.Line, ".command", "missing: give command: [npx, @playwright/mcp@VERSION, FLAGS…]")
	}
	if err := runner.CheckToolsShape(tb); err != nil {
		return nil, fail(command.Line, ".command", "%v", err)
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

// variantModel is the model of a variant whose model block is o on a baseline with model base: o overlaid on
// base (mergeModel), or, when o names another kind, o alone — a scripted baseline's name and profile must not
// carry into an openai arm, which then needs its own name (fresh-user trial of issue 17: `{kind: openai,
// base_url: …}` on a scripted baseline requested the model "scripted").
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

func knownGuard(name string) bool { return slices.Contains(guard.Names(), name) }
