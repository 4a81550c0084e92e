package results

import (
	"strings"
	"testing"
)

func TestParseCostMargins(t *testing.T) {
	m, err := ParseCostMargins("tokens=0.2, wall=0.5")
	if err != nil || len(m) != 2 || m[CostTokens] != 0.2 || m[CostWall] != 0.5 {
		t.Fatalf("%v %v", m, err)
	}
	for in, want := range map[string]string{"tokens": "want OUTCOME=MARGIN", "tokens=x": "the margin is a number",
		"tokens=0.1,tokens=0.2": "given twice", "money=0.1": `unknown cost outcome "money"`, "steps=-1": "margin -1"} {
		if _, err := ParseCostMargins(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	a := Attempt{Steps: 3, Tokens: Tokens{Prompt: 100, Completion: 20}, CostUSD: 0.5, DurationMS: 1500}
	if CostSteps.Value(a) != 3 || CostTokens.Value(a) != 120 || CostUSD.Value(a) != 0.5 || CostWall.Value(a) != 1500 {
		t.Error("Value")
	}
}
