package runner

import (
	"testing"
	"time"

	"webbench/browser"
	"webbench/llm"
	"webbench/results"
)

// TestMergeExternal: model-call steps (the proxy's) and tool-call steps (the MCP server's) merge in time order;
// a tool call joins the latest model step whose tool_calls still hold an unanswered call of that name (taking
// its id); the others stay steps of their own; indexes, events' step numbers and usage follow.
func TestMergeExternal(t *testing.T) {
	origin := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	tool := func(old int, ms int64, name string, ev ...results.Event) *results.Step {
		call := results.ToolCall{ID: "call_x", Name: name, Args: "{}"}
		return &results.Step{Index: old - 1, StartedMS: ms, ToolCalls: []results.ToolCall{call}, Events: ev,
			Results: []*results.ToolRecord{{Call: call, Raw: browser.Result{Result: name + " raw"},
				Shown: &browser.Result{Result: name + " text"}, Action: name == "browser_click", StartedMS: ms}}}
	}
	ev := results.Event{Guard: "intercept_hint", Action: "condensed", Step: 3}
	tools := &results.Trajectory{SchemaVersion: results.TrajectorySchemaVersion, TaskID: "t", Steps: []*results.Step{
		tool(1, 5, "browser_snapshot"), // before any model call: its own step
		tool(2, 110, "browser_snapshot"),
		tool(3, 120, "browser_click", ev),
		tool(4, 130, "browser_snapshot"), // the model step's one snapshot is answered: its own step
		tool(5, 260, "browser_type"),
		tool(6, 270, "browser_evaluate"), // asked by the first reply only, not the latest: its own step
	}, Events: []results.Event{ev}}
	model := func(ms int64, u int, calls ...string) modelCallStep {
		st := results.Step{Usage: llm.Usage{Prompt: u, Completion: 1}}
		for i, c := range calls {
			st.ToolCalls = append(st.ToolCalls, results.ToolCall{ID: c + "-id" + string(rune('0'+i)), Name: c})
		}
		return modelCallStep{Start: origin.Add(time.Duration(ms) * time.Millisecond), Step: st}
	}
	calls := []modelCallStep{model(50, 10, "browser_snapshot", "browser_click", "browser_evaluate"), model(200, 20, "browser_type")}
	tr := mergeExternal(tools, calls, origin)
	type want struct {
		ms      int64
		calls   int
		results []string
		ids     []string
	}
	wants := []want{
		{5, 1, []string{"browser_snapshot text"}, []string{"call_x"}},
		{50, 3, []string{"browser_snapshot text", "browser_click text"}, []string{"browser_snapshot-id0", "browser_click-id1"}},
		{130, 1, []string{"browser_snapshot text"}, []string{"call_x"}},
		{200, 1, []string{"browser_type text"}, []string{"browser_type-id0"}},
		{270, 1, []string{"browser_evaluate text"}, []string{"call_x"}},
	}
	if len(tr.Steps) != len(wants) {
		t.Fatalf("%d steps, want %d", len(tr.Steps), len(wants))
	}
	for i, w := range wants {
		st := tr.Steps[i]
		if st.Index != i || st.StartedMS != w.ms || len(st.ToolCalls) != w.calls || len(st.Results) != len(w.results) {
			t.Fatalf("step %d: %+v, want %+v", i, st, w)
		}
		for j, r := range st.Results {
			if r.ShownResult().Result != w.results[j] || r.Call.ID != w.ids[j] {
				t.Errorf("step %d result %d: %q %q, want %q %q", i, j, r.ShownResult().Result, r.Call.ID, w.results[j], w.ids[j])
			}
		}
	}
	// The click (old tool step 3) is now in step 2 (1-based), its event with it.
	if !tr.Steps[1].Progress || len(tr.Steps[1].Events) != 1 || tr.Steps[1].Events[0].Step != 2 || tr.Events[0].Step != 2 {
		t.Errorf("merged step %+v, events %+v", tr.Steps[1], tr.Events)
	}
	if tr.Usage.Prompt != 30 || tr.Usage.Completion != 2 {
		t.Errorf("usage %+v, want the model calls' sum", tr.Usage)
	}
	if tools.Events[0].Step != 3 {
		t.Error("the input trajectory's events were changed")
	}
}
