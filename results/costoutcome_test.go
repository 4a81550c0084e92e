package results

import (
	"encoding/json"
	"strings"
	"testing"

	"webbench/browser"
	"webbench/judge"
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

// The waste outcomes from a trajectory: a call repeating an earlier one (the same key and shown result, however
// far back, a guard's note aside) counts, a repeat whose result differs or whose evaluate differs in more than
// digits does not; the tool bytes are the shown texts' lengths. Conclude records both; a record without them
// (an older run) is not recorded, not 0.
func TestWasteOutcomes(t *testing.T) {
	call := func(name, args string) ToolCall { return ToolCall{Name: name, Args: args} }
	rec := func(c ToolCall, text string, notes ...browser.Note) *ToolRecord {
		r := NewToolRecord(c, browser.Result{Result: text})
		if len(notes) > 0 {
			r.SetShown(browser.Result{Result: text, Notes: notes})
		}
		return r
	}
	eval := func(fn string) ToolCall { return call("browser_evaluate", `{"function":"`+fn+`"}`) }
	snap := call("mcp__playwright__browser_snapshot", `{}`)
	tr := &Trajectory{Steps: []*Step{
		{Results: []*ToolRecord{rec(eval("() => done1"), "x"), rec(eval("() => done2"), "x")}}, // repeat 1 (digits)
		{Results: []*ToolRecord{rec(snap, "page A")}},
		{Results: []*ToolRecord{rec(eval("() => done3"), "x", browser.Note{Heading: "Repeated call", Body: "b"})}}, // repeat 2 (note aside)
		{Results: []*ToolRecord{rec(call("browser_snapshot", "{}"), "page B")}},                                    // same call, new page
		{Results: []*ToolRecord{rec(call("browser_snapshot", "{}"), "page A")}},                                    // repeat 3, not consecutive
		{Results: []*ToolRecord{rec(eval("() => other"), "x")}},
	}}
	if got := RepeatedCalls(tr); got != 3 {
		t.Errorf("RepeatedCalls = %d, want 3", got)
	}
	var want int64
	for _, st := range tr.Steps {
		for _, r := range st.Results {
			want += int64(len(r.ShownText()))
		}
	}
	if got := ToolResultBytes(tr); got != want || want <= int64(len("xxpage A")) {
		t.Errorf("ToolResultBytes = %d, want %d", got, want)
	}
	a := Conclude(Attempt{AttemptID: "a"}, tr, func(Attempt) judge.Verdict { return judge.Verdict{Pass: true} })
	if a.RepeatedCalls == nil || *a.RepeatedCalls != 3 || a.ToolBytes == nil || *a.ToolBytes != want {
		t.Errorf("Conclude: repeated %v, bytes %v", a.RepeatedCalls, a.ToolBytes)
	}
	if !CostRepeatedCalls.Recorded(a) || CostRepeatedCalls.Value(a) != 3 || CostToolBytes.Value(a) != float64(want) {
		t.Error("Value of a concluded record")
	}
	var old Attempt
	if err := json.Unmarshal([]byte(`{"attempt_id":"a","steps":3,"duration_ms":5}`), &old); err != nil {
		t.Fatal(err)
	}
	if CostRepeatedCalls.Recorded(old) || CostToolBytes.Recorded(old) || !CostSteps.Recorded(old) {
		t.Error("an older record reads as holding the waste outcomes")
	}
	zero := 0
	if line, _ := json.Marshal(Attempt{RepeatedCalls: &zero}); !strings.Contains(string(line), `"repeated_calls":0`) ||
		strings.Contains(string(line), "tool_bytes") {
		t.Errorf("a recorded 0 is written, an absent field is not: %s", line)
	}
}
