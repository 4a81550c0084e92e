package analysis

import (
	"slices"
	"testing"

	"webbench/results"
)

// An arm played by an external agent is named with its agent in reports, and two runs that differ in the agent
// say so in bench compare's "differ in" line: a Node-agent run and a built-in run are never shown as the same
// configuration.
func TestAgentInLabelsAndDifferences(t *testing.T) {
	m := results.Model{Kind: "scripted", Profile: "clean", Name: "scripted"}
	arms := []Arm{{Name: "node"}, {Name: "builtin"}}
	LabelModels(arms, []results.Variant{
		{Name: "node", Model: m, Agent: &results.AgentCmd{Kind: "command", Run: []string{"node", "node/dist/agent.js"}}},
		{Name: "builtin", Model: m},
	})
	if arms[0].Model != "scripted:clean (agent: node node/dist/agent.js)" || arms[1].Model != "scripted:clean" {
		t.Errorf("labels %q, %q", arms[0].Model, arms[1].Model)
	}
	rec := func(agent string) results.Attempt {
		return results.Attempt{TaskID: "t", Model: "scripted:clean", Agent: agent, Guards: map[string]bool{"repeat_guard": true}}
	}
	a, b := RunSide{BaseSeed: 1}, RunSide{BaseSeed: 1}
	d := differences(a, b, []results.Attempt{rec("")}, []results.Attempt{rec("command: node node/dist/agent.js")})
	if !slices.Equal(d, []string{"agent built-in → command: node node/dist/agent.js"}) {
		t.Errorf("differences %q", d)
	}
	if d := differences(a, b, []results.Attempt{rec("")}, []results.Attempt{rec("")}); len(d) != 0 {
		t.Errorf("same agent: differences %q", d)
	}
}
