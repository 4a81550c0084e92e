package spec

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"webbench/agent"
	"webbench/agent/guard"
	"webbench/llm"
	"webbench/results"
	"webbench/runner"
	"webbench/srcerr"
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
	c := specCheck{name: name, data: b, line: lineFinder(b), at: nodeLines(&root), root: &root}
	s.top = map[string][2]int{}
	if len(root.Content) > 0 {
		for i := 0; i+1 < len(root.Content[0].Content); i += 2 {
			k, v := root.Content[0].Content[i], root.Content[0].Content[i+1]
			s.top[k.Value] = [2]int{v.Line, v.Column}
		}
	}
	for _, step := range []func(specCheck) error{s.setDefaults, s.checkBaseline, s.parseVariantBackends,
		s.checkGuardsAndObservation, s.checkDesign, s.checkVariants, s.checkSequential} {
		if err := step(c); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// specCheck is what the checks of ParseSpec need to name a spec's mistakes: the file name and its contents, and
// the line of a key (line: the first line holding a text; at: of a section's item's field, i -1 for the
// baseline).
type specCheck struct {
	name string
	data []byte
	line func(string) int
	at   func(section string, i int, field string) int
	// root is the parsed document (nodeAt finds a value's node in it).
	root *yaml.Node
}

// errValue is a spec error at the value of field in section (nodeAt's arguments; at the key's line when the value
// is absent), field named in the error's field part.
func (c specCheck) errValue(section string, i int, field, name, format string, args ...any) error {
	k, v := nodeAt(c.root, section, i, field)
	if v == nil {
		v = k
	}
	return srcerr.AtNode(c.name, v, name, format, args...)
}

// errKey is a spec error (srcerr's format) at the first occurrence of the text key; the message names the field.
func (c specCheck) errKey(key, format string, args ...any) error {
	line := c.line(key)
	return srcerr.At(c.name, line, srcerr.Col(c.data, line, key), "", format, args...)
}

// errAt is a spec error (srcerr's format) at line, at the column of the line's key; the message names the field.
func (c specCheck) errAt(line int, format string, args ...any) error {
	return srcerr.At(c.name, line, srcerr.Col(c.data, line, ""), "", format, args...)
}

// checkCostGate checks fail_if_costlier (results.CheckCostMargins) entry by entry in document order, so that the
// error stands where the mistake is: an unknown outcome at its name, a bad margin at its value.
func (c specCheck) checkCostGate(m map[results.CostOutcome]float64) error {
	if results.CheckCostMargins(m) == nil {
		return nil
	}
	_, v := nodeAt(c.root, "fail_if_costlier", -1, "")
	for i := 0; v != nil && v.Kind == yaml.MappingNode && i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		o := results.CostOutcome(k.Value)
		if err := results.CheckCostOutcome(o); err != nil {
			return srcerr.AtNode(c.name, k, "fail_if_costlier", "%v", err)
		}
		if err := results.CheckCostMargins(map[results.CostOutcome]float64{o: m[o]}); err != nil {
			return srcerr.AtNode(c.name, val, "fail_if_costlier", "%v", err)
		}
	}
	return c.errKey("fail_if_costlier", "fail_if_costlier: %v", results.CheckCostMargins(m))
}

// decodeSpec decodes spec YAML strictly (srcerr.Decode: unknown keys with a "did you mean" among the keys of
// the block they stand in, values of the wrong type at their field path), every error in srcerr's format.
func decodeSpec(name string, b []byte) (*Spec, error) {
	var s Spec
	if err := srcerr.Decode(name, b, &s); err != nil {
		if ae := (*aaError)(nil); errors.As(err, &ae) {
			var root yaml.Node
			_ = yaml.Unmarshal(b, &root) // decoded as far as the aa value, so it parses
			return nil, aaErrorAt(name, &root, ae)
		}
		return nil, err
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
		return c.errKey("reps", "reps must be at least 1 (got %d)", s.Reps)
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
		return c.errKey("alpha", "alpha and power must be in (0, 1)")
	}
	if err := c.checkCostGate(s.FailIfCostlier); err != nil {
		return err
	}
	switch {
	case s.Record != "" && s.Replay != "":
		return c.errAt(c.at("replay", -1, ""), "replay: and record: give one (record once with network, then replay)")
	case s.RecordSecrets && s.Record == "":
		return c.errAt(c.at("record_secrets", -1, ""), "record_secrets: needs record")
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
		return c.errAt(c.at("baseline", -1, "aa"), "baseline: aa marks a variant as an A/A arm (a copy of the baseline); the baseline "+
			"cannot be one: remove it")
	}
	if err := normModel(s.Baseline.Model); err != nil {
		return c.errKey("model", "baseline.model: %v", err)
	}
	if err := c.checkProfile(*s.Baseline.Model, "baseline"); err != nil {
		return err
	}
	dir := filepath.Dir(c.name)
	var err error
	if s.Baseline.Agent.Kind != 0 {
		if s.Baseline.agent, s.Baseline.builtin, err = parseAgent(c.name, "baseline: ", &s.Baseline.Agent, dir); err != nil {
			return err
		}
		if s.Baseline.agent != nil && s.Baseline.Prompt != "" {
			return c.errAt(c.at("baseline", -1, "prompt"), "baseline: prompt: cannot apply to an external agent (agent: line %d; it "+
				"has its own prompt): remove it", s.Baseline.Agent.Line)
		}
	}
	if s.Baseline.Tools.Kind != 0 {
		if s.Baseline.tools, err = parseTools(c.name, "baseline: ", &s.Baseline.Tools); err != nil {
			return err
		}
		if s.Baseline.agent != nil {
			return c.errAt(s.Baseline.Tools.Line, "baseline: tools: %v", runner.ErrToolsWithAgent)
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
			return c.errAt(l, "variant %s: tools: %v", v.Name, runner.ErrToolsWithAgent)
		}
		if external && v.AA == "" && (v.Prompt != "" || s.Baseline.Prompt != "") {
			l := c.at("variants", i, "prompt")
			if v.Prompt == "" {
				l = c.at("variants", i, "agent")
			}
			return c.errAt(l, "variant %s: prompt: cannot apply to an external agent (it has its own "+
				"prompt): remove the prompt or the agent", v.Name)
		}
	}
	return nil
}

// checkGuardsAndObservation checks every arm's guard names and observation mode (built-in agents only).
func (s *Spec) checkGuardsAndObservation(c specCheck) error {
	for _, cf := range append([]Config{s.Baseline}, s.Variants...) {
		for g := range cf.Guards {
			if !knownGuard(g) {
				return c.errKey(g+":", "%v", srcerr.OneOf("guard", g, guard.Names()))
			}
		}
	}
	checkObs := func(cf Config, what string, l int, external bool) error {
		if cf.Observation == nil {
			return nil
		}
		if err := srcerr.OneOf("snapshot mode", cf.Observation.Snapshot, agent.ObservationNames()); err != nil {
			return c.errAt(l, "%sobservation: %v", what, err)
		}
		if external {
			return c.errAt(l, "%sobservation: the built-in agent's observation mode cannot apply to an "+
				"external agent (it sees what the webbench MCP server returns): remove it", what)
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
			return srcerr.At(c.name, 0, 0, "", "no variants: give `variants:` or `design: leave-one-out|add-one`")
		}
	case "leave-one-out", "add-one":
		// Beside a generated design, variants may only add A/A arms (aa: true or aa: same-seed).
		for i, v := range s.Variants {
			if v.AA == "" {
				return c.errAt(c.at("variants", i, ""), "give either design: %s or variants, not both (beside a design, "+
					"variants may only be A/A arms: aa: true or aa: same-seed)", s.Design)
			}
		}
	default:
		return c.errValue("design", -1, "", "design", "%v", srcerr.OneOf("design", s.Design, Designs))
	}
	if s.Scope != "" {
		if err := srcerr.OneOf("scope", s.Scope, Scopes); err != nil {
			return c.errValue("scope", -1, "", "scope", "%v", err)
		}
	}
	return s.checkTargetTasks(c)
}

// checkTargetTasks checks target_tasks: known guards, valid globs, and a scope that has targets to narrow.
func (s *Spec) checkTargetTasks(c specCheck) error {
	if len(s.TargetTasks) > 0 && s.Scope != "target" {
		return c.errKey("target_tasks", "target_tasks narrows the targets of scope target, but the scope is %q", cmpOr(s.Scope, "all"))
	}
	for _, g := range slices.Sorted(maps.Keys(s.TargetTasks)) {
		if !knownGuard(g) {
			return c.errKey(g+":", "target_tasks: %v", srcerr.OneOf("guard", g, guard.Names()))
		}
		if strings.TrimSpace(s.TargetTasks[g]) == "" {
			return c.errKey(g+":", "target_tasks: %s: no glob", g)
		}
		if _, err := suites.Globs(s.TargetTasks[g]); err != nil {
			return c.errKey(g+":", "target_tasks: %s: %v", g, err)
		}
		if s.targetAt == nil {
			s.targetAt = map[string][2]int{}
		}
		line := c.line(g + ":")
		s.targetAt[g] = [2]int{line, srcerr.Col(c.data, line, g+":")}
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
			return c.errAt(c.at("variants", i, ""), "variants[%d] has no name", i)
		}
		if generated[v.Name] {
			return c.errAt(c.at("variants", i, "name"), "variant %s: name: the name is a generated arm's (design: %s); arm names "+
				"must be unique", v.Name, s.Design)
		}
		if l, dup := seen[v.Name]; dup {
			what := fmt.Sprintf("an earlier variant's (line %d)", l)
			if v.Name == s.Baseline.Name {
				what = "the baseline's"
			}
			return c.errAt(c.at("variants", i, "name"), "variant %s: name: the name is %s; arm names must be unique", v.Name, what)
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
				return c.errAt(c.at("variants", i, "model"), "variant %s: model: %v", v.Name, err)
			}
			if err := c.checkProfile(merged, "variant "+v.Name); err != nil {
				return err
			}
		}
		if v.Scope != "" {
			if err := srcerr.OneOf("scope", v.Scope, Scopes); err != nil {
				return c.errValue("variants", i, "scope", "variant "+v.Name+": scope", "%v", err)
			}
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
			return c.errAt(c.at("variants", i, "aa"), "variant %s: aa: an other-seeds A/A arm runs with seed %q (the base seed "+
				"+ %s), which needs a baseline that sends other seeds; the baseline's seed is %q: leave it out "+
				"(derived seeds), fix a number, or choose another offset", v.Name,
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
				return c.errAt(c.at("variants", i, f.key), "variant %s: %s: an aa (A/A) arm is a copy of the baseline: give it only a name", v.Name, f.key)
			}
		}
	}
	return nil
}

// checkProfile refuses a scripted model m (of the arm named where) whose fault profile does not load, at the
// spec's `profile:` line, with the profile's own error (a file's names its file, line and key).
func (c specCheck) checkProfile(m runner.Model, where string) error {
	if m.Kind != "scripted" || m.Profile == "" {
		return nil
	}
	if err := runner.CheckProfile(m.Profile); err != nil {
		key := "profile: " + m.Profile
		if c.line(key) == 0 {
			key = "profile:"
		}
		return c.errKey(key, "%s: model.profile: %v", where, err)
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
		return fmt.Errorf("kind: %w", srcerr.OneOf("model kind", m.Kind, []string{"scripted", "openai"}))
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

// nodeLines returns a function giving the line of a spec field from the parsed document root (nodeAt): the
// field's key, else the section's or item's own line; 0 when the section is absent.
func nodeLines(root *yaml.Node) func(section string, i int, field string) int {
	return func(section string, i int, field string) int {
		k, _ := nodeAt(root, section, i, field)
		if k == nil {
			return 0
		}
		return k.Line
	}
}

// nodeAt finds, in the parsed document root, key section's value (i < 0: the section's mapping; else its i-th
// sequence item) and in it field's key and value nodes (field "" or absent: the section's key, or the item, and
// the section's value or the item). Both are nil when the section is absent.
func nodeAt(root *yaml.Node, section string, i int, field string) (key, val *yaml.Node) {
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
	if root == nil || len(root.Content) == 0 {
		return nil, nil
	}
	k, n := get(root.Content[0], section)
	if k == nil {
		return nil, nil
	}
	if i >= 0 {
		if n.Kind != yaml.SequenceNode || i >= len(n.Content) {
			return k, n
		}
		n = n.Content[i]
		k = n
	}
	if field != "" {
		if fk, fv := get(n, field); fk != nil {
			return fk, fv
		}
	}
	return k, n
}
