package spec

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"webbench/results"
	"webbench/runner"
	"webbench/suites"
)

func TestParseSpecErrors(t *testing.T) {
	cases := map[string]string{
		"name: x\nreps: 2\nbogus: 1\ndesign: leave-one-out\n":                          `spec.yaml:3:1: unknown key "bogus"`,
		"name: x\nreps: 0\ndesign: leave-one-out\n":                                    "reps must be at least 1",
		"name: x\ndesign: leave-one-out\n":                                             "",
		"name: x\nreps: -1\ndesign: leave-one-out\n":                                   "reps must be at least 1",
		"name: x\nbaseline:\n  guards: {repeat_gaurd: false}\ndesign: leave-one-out\n": "unknown guard \"repeat_gaurd\"",
		"name: x\ndesign: sideways\n":                                                  "design \"sideways\"",
		"name: x\nvariants:\n  - name: a\n    temprature: 1\n":                         `spec.yaml:4:5: unknown key "temprature"`,
		// These named no line.
		"name: x\nvariants:\n  - guards: {repeat_guard: false}\n":                                                                "spec.yaml:3:5: variants[0] has no name",
		"name: x\nvariants:\n  - name: a\n    guards: {repeat_guard: false}\n  - name: a\n    guards: {final_recovery: false}\n": "spec.yaml:5:5: variant a: name: the name is an earlier variant's (line 3); arm names must be unique",
		"name: x\nvariants:\n  - name: baseline\n    guards: {repeat_guard: false}\n":                                            "spec.yaml:3:5: variant baseline: name: the name is the baseline's",
		"name: x\ndesign: leave-one-out\nvariants:\n  - name: no_repeat_guard\n    aa: true\n":                                   "spec.yaml:4:5: variant no_repeat_guard: name: the name is a generated arm's (design: leave-one-out)",
		"name: x\nbaseline:\n  seed: none\nvariants:\n  - name: floor\n    aa: true\n":                                           `spec.yaml:6:5: variant floor: aa: an other-seeds A/A arm runs with seed "+1000003"`,
		"name: x\nbaseline:\n  seed: \"+2000006\"\nvariants:\n  - name: f1\n    aa: true\n  - name: f2\n    aa: true\n":          `spec.yaml:8:5: variant f2: aa: an other-seeds A/A arm runs with seed "+2000006"`,
		"name: x\nbaseline:\n  seed: \"7\"\nvariants:\n  - name: floor\n    aa: true\n":                                          "",
		"name: x\n": "no variants",
	}
	for src, want := range cases {
		_, err := ParseSpec("spec.yaml", []byte(src))
		if want == "" {
			if err != nil {
				t.Errorf("%q: unexpected error %v", src, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "spec.yaml") {
			t.Errorf("%q: error %v, want one naming spec.yaml and %q", src, err, want)
		}
	}
}

func TestExpandLeaveOneOutTargets(t *testing.T) {
	s, err := ParseSpec("s.yaml", []byte("name: demo\nreps: 2\ndesign: leave-one-out\nscope: target\n"))
	if err != nil {
		t.Fatal(err)
	}
	tasks := []suites.Task{{ID: "a", Tags: []string{"repeat_guard", "final_recovery"}}, {ID: "b", Tags: []string{"intercept_hint"}},
		{ID: "c"}}
	arms, err := s.Expand(tasks)
	if err != nil {
		t.Fatal(err)
	}
	if len(arms.Variants) != 8 || arms.Variants[0].Name != "baseline" {
		t.Fatalf("want baseline + 7 arms, got %d", len(arms.Variants))
	}
	byName := map[string]int{}
	for i, v := range arms.Variants {
		byName[v.Name] = i
	}
	rg := arms.Variants[byName["no_repeat_guard"]]
	if rg.Guards["repeat_guard"] || !rg.Guards["intercept_hint"] || !rg.TaskIDs["a"] || rg.TaskIDs["b"] {
		t.Errorf("no_repeat_guard: %+v", rg)
	}
	base := arms.Variants[0]
	if !base.TaskIDs["a"] || !base.TaskIDs["b"] || base.TaskIDs["c"] {
		t.Errorf("baseline must run on the union of targets: %v", base.TaskIDs)
	}
	// Guards with no tagged task get a warning that speaks of the selected tasks (the spec's or --tasks').
	want := results.SpecWarning{Kind: results.SpecVariantNoTask, Variant: "no_visual_progress", Guards: []string{"visual_progress"}, Tasks: 3}
	if !slices.ContainsFunc(arms.Warnings, func(w results.SpecWarning) bool { return reflect.DeepEqual(w, want) }) {
		t.Errorf("want the warning %+v, got %v", want, arms.Warnings)
	}
	one, err := s.Expand(tasks[1:2])
	if err != nil {
		t.Fatal(err)
	}
	want.Tasks = 1
	if !slices.ContainsFunc(one.Warnings, func(w results.SpecWarning) bool { return reflect.DeepEqual(w, want) }) {
		t.Errorf("one task: want the warning %+v, got %v", want, one.Warnings)
	}
}

func TestExpandWarnsIdenticalVariant(t *testing.T) {
	s, err := ParseSpec("s.yaml", []byte("name: x\nvariants:\n  - name: same\n    guards: {repeat_guard: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	arms, err := s.Expand([]suites.Task{{ID: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []results.SpecWarning{{Kind: results.SpecVariantIdentical, Variant: "same"}}; !reflect.DeepEqual(arms.Warnings, want) {
		t.Errorf("warnings: %v", arms.Warnings)
	}
}

// FuzzParseSpec: the spec loader never panics on arbitrary input.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"name: x\ndesign: leave-one-out\n", "variants: [{name: a, guards: {repeat_guard: false}}]",
		"reps: -3", "baseline: {model: {kind: openai}}", ":", "- - -", "design: add-one\nscope: target\nalpha: 2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpec("fuzz.yaml", []byte(s))
		if err == nil {
			_, _ = sp.Expand([]suites.Task{{ID: "t", Tags: []string{"repeat_guard"}}})
		}
	})
}

// TestSpecAgentKey: the `agent:` key's errors name the file, the line and the field; a variant inherits the
// baseline's agent or sets its own (so two agents run on the same pairs), or goes back to the built-in agent
// with `agent: builtin`; the command's folder is the spec's.
func TestSpecAgentKey(t *testing.T) {
	errs := map[string]string{
		"name: x\nbaseline:\n  agent: {kind: docker, run: [a]}\nvariants:\n  - name: v\n    guards: {repeat_guard: false}\n":                   `dir/spec.yaml:3:11: baseline: agent.kind: "docker": expected command`,
		"name: x\nbaseline:\n  agent: {kind: command, run: []}\nvariants:\n  - name: v\n    guards: {repeat_guard: false}\n":                   "dir/spec.yaml:3:26: baseline: agent.run: expected a non-empty list",
		"name: x\nbaseline:\n  agent: {kind: command}\nvariants:\n  - name: v\n    guards: {repeat_guard: false}\n":                            "dir/spec.yaml:3:10: baseline: agent.run: missing",
		"name: x\nbaseline:\n  agent: {run: [a]}\nvariants:\n  - name: v\n    guards: {repeat_guard: false}\n":                                 "dir/spec.yaml:3:10: baseline: agent.kind: missing",
		"name: x\nbaseline:\n  agent: ./a.py\nvariants:\n  - name: v\n    guards: {repeat_guard: false}\n":                                     `dir/spec.yaml:3:10: baseline: agent: "./a.py": expected builtin (the built-in agent) or a mapping {kind: command, run: [COMMAND, ARGS…], env: {…}}`,
		"name: x\nvariants:\n  - name: v\n    agent:\n      kind: command\n      run: [a]\n      env:\n        PORT: 8080\n":                   `dir/spec.yaml:8:9: variant v: agent.env.PORT: "8080" is not a string: quote it`,
		"name: x\nvariants:\n  - name: v\n    agent:\n      kind: command\n      run: [a]\n      env: {A: {b: c}}\n":                           "dir/spec.yaml:7:13: variant v: agent.env.A: (a mapping) is not a string",
		"name: x\nvariants:\n  - name: v\n    agent: {kind: command, run: [a], cmd: b}\n":                                                      `dir/spec.yaml:4:38: variant v: agent: unknown key "cmd"`,
		"name: x\nvariants:\n  - name: v\n    agent: {kind: command, run: [a, [b]]}\n":                                                         "dir/spec.yaml:4:37: variant v: agent.run[1]: (a sequence): expected a string",
		"name: x\nvariants:\n  - name: v\n    agent: {kind: command, run: [a], env: {WEBBENCH_GOAL: x}}\n":                                     "dir/spec.yaml:4:12: variant v: agent: agent env WEBBENCH_GOAL: set by webbench",
		"name: x\nbaseline:\n  prompt: p.txt\n  agent: {kind: command, run: [a]}\nvariants:\n  - name: v\n    guards: {repeat_guard: false}\n": "dir/spec.yaml:3:3: baseline: prompt: cannot apply to an external agent",
		"name: x\nbaseline:\n  prompt: p.txt\nvariants:\n  - name: v\n    agent: {kind: command, run: [a]}\n":                                  "dir/spec.yaml:6:5: variant v: prompt: cannot apply to an external agent",
		"name: x\nbaseline:\n  agent: {kind: command, run: [a]}\nvariants:\n  - name: v\n    prompt: p.txt\n":                                  "dir/spec.yaml:6:5: variant v: prompt: cannot apply to an external agent",
		"name: x\nvariants:\n  - name: v\n    aa: true\n    agent: {kind: command, run: [a]}\n":                                                "dir/spec.yaml:5:5: variant v: agent: an aa (A/A) arm is a copy of the baseline",
		"name: x\nbaseline:\n  agent: {kind: command, run: [a]}\nvariants:\n  - name: v\n    agent: built-in\n":                                `dir/spec.yaml:6:12: variant v: agent: "built-in": expected builtin (the built-in agent) or a mapping`,
		"name: x\nbaseline:\n  agent: {kind: command, run: [a]}\nvariants:\n  - name: v\n    agent: null\n":                                    `dir/spec.yaml:6:12: variant v: agent: "null": expected builtin (the built-in agent) or a mapping`,
		"name: x\nbaseline:\n  agent: {kind: command, run: [a]}\nvariants:\n  - name: v\n    agent: [builtin]\n":                               "dir/spec.yaml:6:12: variant v: agent: (a sequence): expected builtin (the built-in agent) or a mapping",
		"name: x\nbaseline:\n  agent: {kind: command, run: [a]}\nvariants:\n  - name: v\n    aa: true\n    agent: builtin\n":                   "dir/spec.yaml:7:5: variant v: agent: an aa (A/A) arm is a copy of the baseline",
	}
	for src, want := range errs {
		_, err := ParseSpec("dir/spec.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", src, err, want)
		}
	}
	src := "name: x\nbaseline:\n  agent: {kind: command, run: [./agent.py, --fast], env: {TOKEN: \"${MY_TOKEN}\", N: \"3\"}}\n" +
		"variants:\n  - name: off\n    guards: {repeat_guard: false}\n  - name: v2\n    agent: {kind: command, run: [agent-v2]}\n" +
		"  - name: floor\n    aa: true\n"
	s, err := ParseSpec("dir/spec.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	arms, err := s.Expand([]suites.Task{{ID: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	base := &runner.AgentCmd{Kind: "command", Run: []string{"./agent.py", "--fast"}, Dir: "dir",
		Env: map[string]string{"TOKEN": "${MY_TOKEN}", "N": "3"}}
	want := map[string]*runner.AgentCmd{"baseline": base, "off": base, "floor": base,
		"v2": {Kind: "command", Run: []string{"agent-v2"}, Dir: "dir"}}
	for _, v := range arms.Variants {
		w := want[v.Name]
		if v.Agent == nil || v.Agent.Kind != w.Kind || !slices.Equal(v.Agent.Run, w.Run) || v.Agent.Dir != w.Dir ||
			!maps.Equal(v.Agent.Env, w.Env) {
			t.Errorf("variant %s: agent %+v, want %+v", v.Name, v.Agent, w)
		}
	}
	// `agent: builtin` takes a variant back to the built-in agent (nil) beside a command baseline, and a prompt
	// is then the variant's own again; on the baseline it is the default (nil).
	src = "name: x\nbaseline:\n  agent: {kind: command, run: [./agent.py]}\nvariants:\n  - name: builtin\n    agent: builtin\n" +
		"    prompt: p.txt\n  - name: same\n    guards: {repeat_guard: false}\n"
	if s, err = ParseSpec("dir/spec.yaml", []byte(src)); err != nil {
		t.Fatal(err)
	}
	if arms, err = s.Expand([]suites.Task{{ID: "a"}}); err != nil {
		t.Fatal(err)
	}
	got := map[string]*runner.AgentCmd{}
	for _, v := range arms.Variants {
		got[v.Name] = v.Agent
	}
	if len(got) != 3 || got["builtin"] != nil || got["baseline"] == nil || got["same"] == nil ||
		!slices.Equal(got["same"].Run, []string{"./agent.py"}) {
		t.Errorf("agents by variant %v: want builtin nil, baseline and same the command", got)
	}
	for _, v := range arms.Variants {
		if v.Name == "builtin" && v.PromptFile != "p.txt" {
			t.Errorf("builtin arm prompt %q, want p.txt", v.PromptFile)
		}
	}
	if s, err = ParseSpec("spec.yaml", []byte("name: x\nbaseline:\n  agent: builtin\ndesign: leave-one-out\n")); err != nil {
		t.Fatal(err)
	}
	if arms, _ := s.Expand(nil); arms.Variants[0].Agent != nil {
		t.Errorf("baseline agent: builtin gave %+v, want the built-in agent (nil)", arms.Variants[0].Agent)
	}
	// Without an agent key every arm runs the built-in agent.
	s, err = ParseSpec("spec.yaml", []byte("name: x\ndesign: leave-one-out\n"))
	if err != nil {
		t.Fatal(err)
	}
	if arms, _ := s.Expand(nil); arms.Variants[0].Agent != nil {
		t.Errorf("baseline agent %+v, want the built-in one (nil)", arms.Variants[0].Agent)
	}
}

// The tools: key: its shape errors name the file, the line and the field; it is refused beside
// an agent (in the same arm or inherited); a variant without one inherits the baseline's, and a variant's own
// replaces it.
func TestSpecToolsKey(t *testing.T) {
	errs := map[string]string{
		"name: x\nbaseline:\n  tools: {kind: stdio, command: [a]}\nvariants:\n  - name: v\n    guards: {repeat_guard: false}\n":                                     `dir/spec.yaml:3:11: baseline: tools.kind: "stdio": expected mcp`,
		"name: x\nbaseline:\n  tools: {kind: mcp}\nvariants:\n  - name: v\n    guards: {repeat_guard: false}\n":                                                     "dir/spec.yaml:3:10: baseline: tools.command: missing",
		"name: x\nbaseline:\n  tools: {command: [npx]}\nvariants:\n  - name: v\n    guards: {repeat_guard: false}\n":                                                "dir/spec.yaml:3:10: baseline: tools.kind: missing",
		"name: x\nbaseline:\n  tools: npx\nvariants:\n  - name: v\n    guards: {repeat_guard: false}\n":                                                             "dir/spec.yaml:3:10: baseline: tools: expected a mapping",
		"name: x\nvariants:\n  - name: v\n    tools:\n      kind: mcp\n      command: []\n":                                                                         "dir/spec.yaml:6:7: variant v: tools.command: expected a non-empty list",
		"name: x\nvariants:\n  - name: v\n    tools:\n      kind: mcp\n      command: [npx, [b]]\n":                                                                 "dir/spec.yaml:6:22: variant v: tools.command[1]: (a sequence): expected a string",
		"name: x\nvariants:\n  - name: v\n    tools: {kind: mcp, command: [npx], port: 3}\n":                                                                        `dir/spec.yaml:4:40: variant v: tools: unknown key "port"`,
		"name: x\nvariants:\n  - name: v\n    tools:\n      kind: mcp\n      command: [npx, \"@playwright/mcp@0.0.83\", --cdp-endpoint, ws://x]\n":                  "dir/spec.yaml:6:16: variant v: tools.command: tools command: --cdp-endpoint: set by webbench",
		"name: x\nbaseline:\n  agent: {kind: command, run: [a]}\n  tools: {kind: mcp, command: [npx]}\nvariants:\n  - name: v\n    guards: {repeat_guard: false}\n": "dir/spec.yaml:4:3: baseline: tools: tools: {kind: mcp} is the built-in agent's tool backend and cannot be combined with agent: {kind: command}",
		"name: x\nbaseline:\n  agent: {kind: command, run: [a]}\nvariants:\n  - name: v\n    tools: {kind: mcp, command: [npx]}\n":                                  "dir/spec.yaml:6:5: variant v: tools: tools: {kind: mcp} is the built-in agent's tool backend and cannot be combined",
		"name: x\nbaseline:\n  tools: {kind: mcp, command: [npx]}\nvariants:\n  - name: v\n    agent: {kind: command, run: [a]}\n":                                  "dir/spec.yaml:6:5: variant v: tools: tools: {kind: mcp} is the built-in agent's tool backend and cannot be combined",
		"name: x\nvariants:\n  - name: v\n    aa: true\n    tools: {kind: mcp, command: [npx]}\n":                                                                   "dir/spec.yaml:5:5: variant v: tools: an aa (A/A) arm is a copy of the baseline",
	}
	for src, want := range errs {
		_, err := ParseSpec("dir/spec.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", src, err, want)
		}
	}
	src := "name: x\nbaseline:\n  tools: {kind: mcp, command: [npx, \"@playwright/mcp@0.0.83\", --caps, vision]}\n" +
		"variants:\n  - name: off\n    guards: {repeat_guard: false}\n  - name: old\n    tools: {kind: mcp, command: [npx, \"@playwright/mcp@0.0.78\"]}\n" +
		"  - name: floor\n    aa: true\n"
	s, err := ParseSpec("dir/spec.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	arms, err := s.Expand([]suites.Task{{ID: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	base := "mcp npx @playwright/mcp@0.0.83 --caps vision"
	want := map[string]string{"baseline": base, "off": base, "floor": base, "old": "mcp npx @playwright/mcp@0.0.78"}
	for _, v := range arms.Variants {
		if v.Tools == nil || v.Agent != nil || v.Tools.Kind+" "+strings.Join(v.Tools.Command, " ") != want[v.Name] {
			t.Errorf("variant %s: tools %+v, want %q", v.Name, v.Tools, want[v.Name])
		}
	}
	s, err = ParseSpec("spec.yaml", []byte("name: x\ndesign: leave-one-out\n"))
	if err != nil {
		t.Fatal(err)
	}
	if arms, _ := s.Expand(nil); arms.Variants[0].Tools != nil {
		t.Errorf("baseline tools %+v, want webbench's own (nil)", arms.Variants[0].Tools)
	}
}

// target_tasks narrows a guard's targets: the arm switching it runs on its tagged tasks that match a glob, the
// baseline on the union of what is left; other guards keep all their tagged tasks.
func TestExpandTargetTasks(t *testing.T) {
	s, err := ParseSpec("s.yaml", []byte("name: demo\nreps: 1\ndesign: leave-one-out\nscope: target\n"+
		"target_tasks: {repeat_guard: \"shop-*,code-*/*\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	qa := []string{"repeat_guard", "final_recovery"}
	tasks := []suites.Task{{ID: "shop-qa", Tags: qa}, {ID: "stays-qa", Tags: qa}, {ID: "code-qa/x", Tags: qa},
		{ID: "stays-consent", Tags: []string{"intercept_hint"}}}
	arms, err := s.Expand(tasks)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string][]string{}
	for _, v := range arms.Variants {
		ids[v.Name] = slices.Sorted(maps.Keys(v.TaskIDs))
	}
	for arm, want := range map[string][]string{
		"no_repeat_guard":   {"code-qa/x", "shop-qa"},
		"no_final_recovery": {"code-qa/x", "shop-qa", "stays-qa"},
		"no_intercept_hint": {"stays-consent"},
		"baseline":          {"code-qa/x", "shop-qa", "stays-consent", "stays-qa"},
	} {
		if !slices.Equal(ids[arm], want) {
			t.Errorf("%s runs on %v, want %v", arm, ids[arm], want)
		}
	}
	for src, want := range map[string]string{
		"name: x\ndesign: leave-one-out\nscope: target\ntarget_tasks: {repeat_gard: \"a*\"}\n": `s.yaml:4:16: target_tasks: unknown guard "repeat_gard"`,
		"name: x\ndesign: leave-one-out\nscope: target\ntarget_tasks: {repeat_guard: \"[\"}\n": `target_tasks: repeat_guard: bad glob "["`,
		"name: x\ndesign: leave-one-out\ntarget_tasks: {repeat_guard: \"a*\"}\n":               `s.yaml:3:1: target_tasks narrows the targets of scope target, but the scope is "all"`,
	} {
		if _, err := ParseSpec("s.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", src, err, want)
		}
	}
}
