package spec

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"webbench/agent"
	"webbench/agent/guard"
	"webbench/llm"
	"webbench/results"
	"webbench/runner"
	"webbench/suites"
)

// ParseSpec parses spec YAML; name is used in error messages.
func ParseSpec(name string, b []byte) (*Spec, error) {
	s, err := decodeSpec(name, b)
	if err != nil {
		return nil, err
	}
	s.file = name
	var root yaml.Node
	_ = yaml.Unmarshal(b, &root) // decoded above, so it parses
	c := specCheck{name: name, line: lineFinder(b), at: nodeLines(&root)}
	for _, step := range []func(specCheck) error{s.setDefaults, s.checkBaseline, s.parseVariantBackends,
		s.checkGuardsAndObservation, s.checkDesign, s.checkVariants, s.checkSequential} {
		if err := step(c); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// specCheck is what the checks of ParseSpec need to name a spec's mistakes: the file name, and the line of a
// key (line: the first line holding a text; at: of a section's item's field, i -1 for the baseline).
type specCheck struct {
	name string
	line func(string) int
	at   func(section string, i int, field string) int
}

// decodeSpec decodes spec YAML strictly (unknown keys are errors), every error as "name:line: …".
func decodeSpec(name string, b []byte) (*Spec, error) {
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
	return &s, nil
}

// setDefaults fills the spec's defaults (suite zoo, one rep, α 0.05, power 0.8, min effect 0.1, the baseline's
// name and scripted model) and checks the reps, α and power.
func (s *Spec) setDefaults(c specCheck) error {
	if s.Suite == "" {
		s.Suite = "zoo"
	}
	if s.Reps == 0 && c.line("reps:") == 0 {
		s.Reps = 1
	}
	if s.Reps < 1 {
		return fmt.Errorf("%s:%d: reps must be at least 1 (got %d)", c.name, c.line("reps"), s.Reps)
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
		return fmt.Errorf("%s:%d: alpha and power must be in (0, 1)", c.name, c.line("alpha"))
	}
	if err := results.CheckCostMargins(s.FailIfCostlier); err != nil {
		return fmt.Errorf("%s:%d: fail_if_costlier: %v", c.name, c.line("fail_if_costlier"), err)
	}
	if s.Baseline.Name == "" {
		s.Baseline.Name = "baseline"
	}
	if s.Baseline.Model == nil {
		s.Baseline.Model = &runner.Model{Kind: "scripted", Name: "scripted", Profile: "clean"}
	}
	return nil
}

// checkBaseline checks the baseline: not an A/A arm, a valid model, and its agent and tools parsed and
// compatible (an external agent has its own prompt and tools).
func (s *Spec) checkBaseline(c specCheck) error {
	if s.Baseline.AA != "" {
		return fmt.Errorf("%s:%d: baseline: aa marks a variant as an A/A arm (a copy of the baseline); the baseline "+
			"cannot be one: remove it", c.name, c.at("baseline", -1, "aa"))
	}
	if err := normModel(s.Baseline.Model); err != nil {
		return fmt.Errorf("%s:%d: baseline.model: %v", c.name, c.line("model"), err)
	}
	dir := filepath.Dir(c.name)
	var err error
	if s.Baseline.Agent.Kind != 0 {
		if s.Baseline.agent, s.Baseline.builtin, err = parseAgent(c.name, "baseline: ", &s.Baseline.Agent, dir); err != nil {
			return err
		}
		if s.Baseline.agent != nil && s.Baseline.Prompt != "" {
			return fmt.Errorf("%s:%d: baseline: prompt: cannot apply to an external agent (agent: line %d; it "+
				"has its own prompt): remove it", c.name, c.at("baseline", -1, "prompt"), s.Baseline.Agent.Line)
		}
	}
	if s.Baseline.Tools.Kind != 0 {
		if s.Baseline.tools, err = parseTools(c.name, "baseline: ", &s.Baseline.Tools); err != nil {
			return err
		}
		if s.Baseline.agent != nil {
			return fmt.Errorf("%s:%d: baseline: tools: %v", c.name, s.Baseline.Tools.Line, runner.ErrToolsWithAgent)
		}
	}
	return nil
}

// parseVariantBackends parses every variant's agent and tools and refuses the tools or a prompt beside an
// external agent.
func (s *Spec) parseVariantBackends(c specCheck) error {
	dir := filepath.Dir(c.name)
	var err error
	for i := range s.Variants {
		v := &s.Variants[i]
		if v.Tools.Kind != 0 {
			if v.tools, err = parseTools(c.name, "variant "+cmpOr(v.Name, "(no name)")+": ", &v.Tools); err != nil {
				return err
			}
		}
		if v.Agent.Kind != 0 {
			if v.agent, v.builtin, err = parseAgent(c.name, "variant "+cmpOr(v.Name, "(no name)")+": ", &v.Agent, dir); err != nil {
				return err
			}
		}
		external := (v.agent != nil || s.Baseline.agent != nil && v.Agent.Kind == 0) && !v.builtin
		if v.AA == "" && external && (v.tools != nil || s.Baseline.tools != nil && v.Tools.Kind == 0) {
			l := c.at("variants", i, "tools")
			if v.Tools.Kind == 0 {
				l = c.at("variants", i, "agent")
			}
			return fmt.Errorf("%s:%d: variant %s: tools: %v", c.name, l, v.Name, runner.ErrToolsWithAgent)
		}
		if external && v.AA == "" && (v.Prompt != "" || s.Baseline.Prompt != "") {
			l := c.at("variants", i, "prompt")
			if v.Prompt == "" {
				l = c.at("variants", i, "agent")
			}
			return fmt.Errorf("%s:%d: variant %s: prompt: cannot apply to an external agent (it has its own "+
				"prompt): remove the prompt or the agent", c.name, l, v.Name)
		}
	}
	return nil
}

// checkGuardsAndObservation checks every arm's guard names and observation mode (built-in agents only).
func (s *Spec) checkGuardsAndObservation(c specCheck) error {
	for _, cf := range append([]Config{s.Baseline}, s.Variants...) {
		for g := range cf.Guards {
			if !knownGuard(g) {
				return fmt.Errorf("%s:%d: unknown guard %q (valid: %s)", c.name, c.line(g+":"), g,
					strings.Join(guard.Names(), ", "))
			}
		}
	}
	checkObs := func(cf Config, what string, l int, external bool) error {
		if cf.Observation == nil {
			return nil
		}
		if _, err := agent.ParseObservation(cf.Observation.Snapshot); err != nil || cf.Observation.Snapshot == "" {
			return fmt.Errorf("%s:%d: %sobservation: snapshot %q: expected full, diff or none", c.name, l, what,
				cf.Observation.Snapshot)
		}
		if external {
			return fmt.Errorf("%s:%d: %sobservation: the built-in agent's observation mode cannot apply to an "+
				"external agent (it sees what the webbench MCP server returns): remove it", c.name, l, what)
		}
		return nil
	}
	if err := checkObs(s.Baseline, "baseline: ", c.at("baseline", -1, "observation"), s.Baseline.agent != nil); err != nil {
		return err
	}
	for i, v := range s.Variants {
		external := (v.agent != nil || s.Baseline.agent != nil && v.Agent.Kind == 0) && !v.builtin
		if err := checkObs(v, "variant "+cmpOr(v.Name, "(no name)")+": ", c.at("variants", i, "observation"),
			external && v.AA == ""); err != nil {
			return err
		}
	}
	return nil
}

// checkDesign checks the design (explicit with variants, or a generated one beside only A/A arms) and scope.
func (s *Spec) checkDesign(c specCheck) error {
	switch s.Design {
	case "", "explicit":
		if len(s.Variants) == 0 {
			return fmt.Errorf("%s: no variants: give `variants:` or `design: leave-one-out|add-one`", c.name)
		}
	case "leave-one-out", "add-one":
		// Beside a generated design, variants may only add A/A arms (aa: true or aa: same-seed).
		for i, v := range s.Variants {
			if v.AA == "" {
				return fmt.Errorf("%s:%d: give either design: %s or variants, not both (beside a design, "+
					"variants may only be A/A arms: aa: true or aa: same-seed)", c.name, c.at("variants", i, ""), s.Design)
			}
		}
	default:
		return fmt.Errorf("%s:%d: design %q: expected leave-one-out, add-one or explicit", c.name, c.line("design"), s.Design)
	}
	switch s.Scope {
	case "", "all", "target":
	default:
		return fmt.Errorf("%s:%d: scope %q: expected all or target", c.name, c.line("scope"), s.Scope)
	}
	return s.checkTargetTasks(c)
}

// checkTargetTasks checks target_tasks: known guards, valid globs, and a scope that has targets to narrow.
func (s *Spec) checkTargetTasks(c specCheck) error {
	if len(s.TargetTasks) > 0 && s.Scope != "target" {
		return fmt.Errorf("%s:%d: target_tasks narrows the targets of scope target, but the scope is %q",
			c.name, c.line("target_tasks"), cmpOr(s.Scope, "all"))
	}
	for _, g := range slices.Sorted(maps.Keys(s.TargetTasks)) {
		if !knownGuard(g) {
			return fmt.Errorf("%s:%d: target_tasks: unknown guard %q (valid: %s)", c.name, c.line(g+":"), g,
				strings.Join(guard.Names(), ", "))
		}
		if strings.TrimSpace(s.TargetTasks[g]) == "" {
			return fmt.Errorf("%s:%d: target_tasks: %s: no glob", c.name, c.line(g+":"), g)
		}
		if _, err := suites.Globs(s.TargetTasks[g]); err != nil {
			return fmt.Errorf("%s:%d: target_tasks: %s: %v", c.name, c.line(g+":"), g, err)
		}
		if s.targetLines == nil {
			s.targetLines = map[string]int{}
		}
		s.targetLines[g] = c.line(g + ":")
	}
	return nil
}

// checkVariants checks every variant: a unique name, a valid merged model, its scope and, for an A/A arm, its
// seeds and that it sets nothing but its name.
func (s *Spec) checkVariants(c specCheck) error {
	seen := map[string]int{s.Baseline.Name: c.at("baseline", -1, "name")}
	generated := map[string]bool{}
	if s.Design == "leave-one-out" || s.Design == "add-one" {
		for _, c := range s.generatedConfigs() {
			generated[c.Name] = true
		}
	}
	nAA := 0
	for i, v := range s.Variants {
		if v.Name == "" {
			return fmt.Errorf("%s:%d: variants[%d] has no name", c.name, c.at("variants", i, ""), i)
		}
		if generated[v.Name] {
			return fmt.Errorf("%s:%d: variant %s: name: the name is a generated arm's (design: %s); arm names "+
				"must be unique", c.name, c.at("variants", i, "name"), v.Name, s.Design)
		}
		if l, dup := seen[v.Name]; dup {
			what := fmt.Sprintf("an earlier variant's (line %d)", l)
			if v.Name == s.Baseline.Name {
				what = "the baseline's"
			}
			return fmt.Errorf("%s:%d: variant %s: name: the name is %s; arm names must be unique", c.name,
				c.at("variants", i, "name"), v.Name, what)
		}
		seen[v.Name] = c.at("variants", i, "name")
		if v.Model != nil {
			// A variant's model block overlays the baseline's (configVariant): only the merged model is checked
			// and normalised — normalising the block alone made a partial one ({temperature: 1}) a scripted
			// model with the clean profile that then overwrote the baseline's.
			if v.Model.Kind == "" && v.Model.BaseURL != "" {
				v.Model.Kind = "openai" // as normModel infers it for a whole model
			}
			merged := variantModel(*s.Baseline.Model, *v.Model)
			if err := normModel(&merged); err != nil {
				return fmt.Errorf("%s:%d: variant %s: model: %v", c.name, c.at("variants", i, "model"), v.Name, err)
			}
		}
		switch v.Scope {
		case "", "all", "target":
		default:
			return fmt.Errorf("%s:%d: variant %s: scope %q: expected all or target", c.name, c.line("name: "+v.Name), v.Name, v.Scope)
		}
		if err := s.checkAAArm(c, i, v, &nAA); err != nil {
			return err
		}
	}
	return nil
}

// checkAAArm checks variant i, v, when it is an A/A arm: an other-seeds arm (the *nAA-th so far) needs a
// baseline that sends other seeds than its own, and an A/A arm of either kind sets nothing but its name.
func (s *Spec) checkAAArm(c specCheck, i int, v Config, nAA *int) error {
	if results.AAMode(v.AA) == results.AAOtherSeeds {
		// The arm's seeds must be other seeds than the baseline's: not the same offset, and not "none" (no
		// seed sent: the arm would send seeds the baseline does not).
		*nAA++
		if aaSeed := results.AASeed(*nAA); s.Baseline.Seed == "none" || s.Baseline.Seed == aaSeed {
			return fmt.Errorf("%s:%d: variant %s: aa: an other-seeds A/A arm runs with seed %q (the base seed "+
				"+ %s), which needs a baseline that sends other seeds; the baseline's seed is %q: leave it out "+
				"(derived seeds), fix a number, or choose another offset", c.name, c.at("variants", i, "aa"), v.Name,
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
				return fmt.Errorf("%s:%d: variant %s: %s: an aa (A/A) arm is a copy of the baseline: give it only a name",
					c.name, c.at("variants", i, f.key), v.Name, f.key)
			}
		}
	}
	return nil
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
