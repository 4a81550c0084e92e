package results

import (
	"strings"
	"testing"

	"webbench/browser"
	"webbench/llm"
)

// traj builds a trajectory with one step per tool record.
func traj(reason string, final *FinalAnswer, recs ...*ToolRecord) *Trajectory {
	t := &Trajectory{Finish: FinishRecord{Reason: FinishReason(reason), Final: final},
		FirstObservation: observed("### Page\n- Page URL: u\n- Page Title: t\n### Snapshot\n```yaml\n- button \"Go\" [ref=e1]\n```")}
	for i, r := range recs {
		t.Steps = append(t.Steps, &Step{Index: i, ToolCalls: []ToolCall{r.Call}, Results: []*ToolRecord{r}})
	}
	return t
}

// observed is the result a test gives in its text form.
func observed(text string) *browser.Result {
	r := browser.ParseResult(text)
	return &r
}

func rec(name, args, raw string, failed bool) *ToolRecord {
	def, _ := browser.LookupTool(name)
	return &ToolRecord{Call: ToolCall{Name: name, Args: args}, Raw: browser.ParseResult(raw), Failed: failed,
		Action: !failed && def.Progress}
}

func stale(ref string) *ToolRecord {
	return rec("browser_click", `{"target":"`+ref+`"}`, "### Error\n"+browser.StaleRefMessage(ref), true)
}

const snapOK = "### Page\n- Page URL: u\n- Page Title: t\n### Snapshot\n```yaml\n- button \"Go\" [ref=e2]\n```"
const snapEmpty = "### Page\n- Page URL: u\n- Page Title: t\n### Snapshot\n```yaml\n- generic [ref=e1]:\n  - img [ref=e2]\n```"
const interceptErr = "### Error\nTimeout 5000ms exceeded.\nCall log:\n  - locator resolved to <button>Go</button>\n  - <div id=\"onetrust-consent-sdk\"></div> intercepts pointer events"

func TestFailureMode(t *testing.T) {
	yes := &FinalAnswer{OK: true, Final: "42"}
	no := &FinalAnswer{OK: false, Error: nil}
	ok := func() *ToolRecord { return rec("browser_click", `{"target":"e2"}`, snapOK, false) }
	evalOK := func(fn, out string) *ToolRecord {
		return rec("browser_evaluate", `{"function":"`+fn+`"}`, "### Result\n"+out, false)
	}
	loop := []*ToolRecord{ok()}
	for i := 0; i < 5; i++ {
		loop = append(loop, evalOK("() => 'ok'", `"ok"`))
	}
	counter := []*ToolRecord{ok()}
	for i := 19; i < 24; i++ {
		counter = append(counter, evalOK("() => 'done"+strings.Repeat("1", i%3+1)+"'", `"done"`))
	}
	hung := traj("timeout", nil, ok())
	hung.Steps = append(hung.Steps, &Step{ToolCalls: []ToolCall{{Name: "browser_evaluate", Args: `{"function":"() => new Promise(()=>{})"}`}}})
	cutOff := traj("timeout", nil, ok(), rec("browser_evaluate", `{"function":"() => { while(true){} }"}`,
		"### Error\nattempt deadline reached while browser_evaluate was running", true))
	overflow := traj("model_error", nil, ok())
	overflow.Finish.ErrorClass = "context_overflow"
	overflow.Finish.Reason = "context_overflow"
	infra := traj("model_error", nil, ok())
	infra.Finish.ErrorClass = "infra"
	closed := traj("browser_closed", nil, ok())
	modelErr := traj("model_error", nil, ok())
	modelErr.Finish.ErrorClass = "agent"
	// Issue 13: truncated replies, content filter, refusal, endpoint classes that are not the agent's.
	cutReply := traj("stalled", nil, ok())
	cutReply.Steps = append(cutReply.Steps, &Step{Index: 1, FinishReason: "length", Truncated: true,
		ToolCalls: []ToolCall{{Name: "browser_type", Args: `{"target":"e2","text":"abc`}}, Stalled: true})
	cutRecovered := traj("non_json_output", nil, ok())
	cutRecovered.Steps = append(cutRecovered.Steps, &Step{Index: 1, FinishReason: "length", Truncated: true},
		&Step{Index: 2, Recovery: true, FinishReason: "stop"})
	cutThenTimeout := traj("timeout", nil, ok())
	cutThenTimeout.Steps = append(cutThenTimeout.Steps, &Step{Index: 1, FinishReason: "length", Truncated: true})
	// A model call refused by a moderation layer (llm.ErrorContentFilter), as the loop's modelFailure ends it.
	filtered := traj("content_filter", nil, ok())
	filtered.Finish.ErrorClass = llm.ErrorContentFilter
	endpoint := func(class string) *Trajectory {
		x := traj("model_error", nil, ok())
		x.Finish.ErrorClass = llm.ErrorClass(class)
		return x
	}

	cases := []struct {
		name string
		t    *Trajectory
		pass bool
		want FailureMode
	}{
		{"pass", traj("answered", yes, ok()), true, ""},
		{"stale ref deadlock", traj("error_budget", nil, ok(), stale("e3"), stale("e44"), rec("browser_type", `{}`, "### Error\nboom", true), stale("e45"), rec("browser_click", `{}`, "### Error\nboom", true)), false, "stale_ref_deadlock"},
		{"stale ref deadlock ended by the stall limit", traj("stalled", nil, ok(), stale("e3"), stale("e3"), stale("e3")), false, "stale_ref_deadlock"},
		{"error budget with 2 stale refs", traj("error_budget", nil, ok(), stale("e3"), rec("browser_type", `{}`, "### Error\nboom", true), rec("browser_type", `{}`, "### Error\nboom2", true), stale("e45"), rec("browser_click", `{}`, "### Error\nboom3", true)), false, "error_budget"},
		{"empty snapshot", traj("answered", no, rec("browser_navigate", `{"url":"/login"}`, snapEmpty, false)), false, "empty_snapshot"},
		{"empty first observation", func() *Trajectory {
			t := traj("answered", no)
			t.FirstObservation = observed(snapEmpty)
			return t
		}(), false, "empty_snapshot"},
		{"empty snapshot but ok=true", traj("answered", yes, rec("browser_navigate", `{}`, snapEmpty, false)), false, "wrong_answer"},
		{"intercepted", traj("stalled", nil, ok(), rec("browser_click", `{"target":"e2"}`, interceptErr, true), rec("browser_snapshot", `{}`, snapOK, false), rec("browser_click", `{"target":"e2"}`, interceptErr, true)), false, "intercepted"},
		{"intercept recovered", traj("answered", no, rec("browser_click", `{"target":"e2"}`, interceptErr, true), ok()), false, "gave_up"},
		{"hung evaluate (running at timeout)", hung, false, "hung_evaluate"},
		{"hung evaluate (cut off by the loop)", cutOff, false, "hung_evaluate"},
		{"evaluate timed out last", traj("answered", no, ok(), rec("browser_evaluate", `{"function":"() => { while(true){} }"}`, "### Error\nevaluate timed out after 5000 ms; page script was terminated", true)), false, "hung_evaluate"},
		// An external agent (agent/mcpserver) whose evaluate was cut off at the deadline, answering ok=false after.
		{"evaluate cut off at the deadline, then an answer", traj("answered", no, ok(), rec("browser_evaluate", `{"function":"() => new Promise(()=>{})"}`,
			"### Error\nattempt deadline reached while browser_evaluate was running", true)), false, "hung_evaluate"},
		{"a click cut off at the deadline, then an answer", traj("answered", no, ok(), rec("browser_click", `{"target":"e2"}`,
			"### Error\nattempt deadline reached while browser_click was running", true)), false, "gave_up"},
		{"loop", traj("max_steps", nil, loop...), false, "loop"},
		{"counter loop", traj("answered", yes, counter...), false, "loop"},
		{"4 repeats is not a loop", traj("max_steps", nil, loop[:5]...), false, "max_steps"},
		{"stalled", traj("stalled", nil, ok(), rec("browser_click", `{}`, "### Error\nx", true)), false, "stalled"},
		{"max steps", traj("max_steps", nil, ok()), false, "max_steps"},
		{"timeout", traj("timeout", nil, ok()), false, "timeout"},
		{"context overflow", overflow, false, "context_overflow"},
		{"no json", traj("non_json_output", nil, ok()), false, "no_json"},
		{"empty output", traj("empty_output", nil, ok()), false, "no_json"},
		{"gave up", traj("answered", no, ok()), false, "gave_up"},
		{"wrong answer", traj("answered", yes, ok()), false, "wrong_answer"},
		{"infra", infra, false, "infra"},
		{"browser closed", closed, false, "infra"},
		{"model error", modelErr, false, "model_error"},
		{"refusal", traj("refusal", nil, ok()), false, "refusal"},
		{"refusal inside a loop", traj("refusal", nil, loop...), false, "refusal"},
		{"content filter", traj("content_filter", nil, ok()), false, "content_filter"},
		{"truncated reason", traj("truncated", nil, ok()), false, "truncated"},
		{"stalled on a cut-off reply", cutReply, false, "truncated"},
		{"cut off, recovery found no JSON", cutRecovered, false, "truncated"},
		{"cut off, then the deadline", cutThenTimeout, false, "timeout"},
		{"config error", endpoint("config"), false, "infra"},
		{"auth error", endpoint("auth"), false, "infra"},
		{"quota error", endpoint("quota"), false, "infra"},
		{"rate limit after retries", endpoint("rate_limit"), false, "infra"},
		{"content filter error", filtered, false, "content_filter"},
		{"tool_use_failed (class agent)", endpoint("agent"), false, "model_error"},
	}
	for _, c := range cases {
		if got := ClassifyFailure(c.t, c.pass); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestResultFingerprintAndCallKey(t *testing.T) {
	base := "### Result\n\"ok\"\n### Page\n- Page URL: u\n- Page Title: t"
	same := []string{
		base + "\n### Events\n- [ERROR] a",
		base + "\n### Events\n- [ERROR] b\n- [ERROR] c",
		base + "\n### Repeated call\nThis call repeats …",
		base + "\nNew console entries: 3",
		base + "\nConsole: 2 errors, 1 warning",
		strings.Replace(base, `"ok"`, "\"ok\"\nNew console entries: 4", 1),
	}
	fp := func(text string) string { return ResultFingerprint(browser.ParseResult(text)) }
	for _, s := range same {
		if fp(s) != fp(base) {
			t.Errorf("volatile part not ignored: %q", s)
		}
	}
	if fp(base) == fp(strings.Replace(base, `"ok"`, `"ko"`, 1)) {
		t.Error("content change not seen")
	}
	snap := base + "\n### Snapshot\n```yaml\n- button \"Go\" [ref=e2]\n```"
	if fp(snap) == fp(base) || fp(snap) == fp(strings.Replace(snap, "Go", "Stop", 1)) {
		t.Error("snapshot change not seen")
	}
	if fp(snap) == fp(snap+"\n### Snapshot\n```yaml\n- button \"Go\" [ref=e2]\n```") {
		t.Error("refreshed snapshot not seen")
	}
	if CallKey(ToolCall{Name: "mcp__pw__browser_click", Args: `{"target":"e1","button":"left"}`}) != `browser_click {"button":"left","target":"e1"}` {
		t.Error(CallKey(ToolCall{Name: "mcp__pw__browser_click", Args: `{"target":"e1","button":"left"}`}))
	}
	if CallKey(ToolCall{Name: "browser_evaluate", Args: `{"function":"() =>  34"}`}) != `browser_evaluate {"function":"()=>#"}` {
		t.Error(CallKey(ToolCall{Name: "browser_evaluate", Args: `{"function":"() =>  34"}`}))
	}
	if CallKey(ToolCall{Name: "browser_type", Args: `{"text":"a1"}`}) == CallKey(ToolCall{Name: "browser_type", Args: `{"text":"a2"}`}) {
		t.Error("digits masked outside evaluate")
	}
}
