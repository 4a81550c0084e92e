package guard

import (
	"encoding/json"
	"strings"
	"testing"

	"webbench/agent"
	"webbench/results"

	openai "github.com/sashabaranov/go-openai"
)

func evalCall(fn string) agent.ToolCall {
	b, _ := jsonMarshal(map[string]string{"function": fn})
	return agent.ToolCall{Name: "browser_evaluate", Args: string(b)}
}

func okResult(text string) *agent.ToolResult { return textResult(text) }

const pageTail = "\n### Page\n- Page URL: https://www.allrecipes.com/recipe/1\n- Page Title: Vegan Brownies"

// The seed's loop: browser_evaluate("() => 'ok'") again and again after the answer was found.
func TestRepeatGuardOkLoop(t *testing.T) {
	a := newAttempt(t)
	g := RepeatGuard{}
	tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "browser_evaluate"}}}
	msgs := []agent.Message{agent.TextMessage("system", "s"), agent.TextMessage("user", "u")}
	for req := 1; req <= 6; req++ {
		r := agent.ModelRequest{Messages: msgs, Tools: tools}
		g.BeforeModelCall(a, &r)
		if req < 6 {
			if r.Tools == nil || len(r.SystemSections) != 0 {
				t.Fatalf("request %d: tools %v sections %v", req, r.Tools, r.SystemSections)
			}
		} else {
			if r.Tools != nil {
				t.Fatal("6th request still carries tools")
			}
			if len(r.SystemSections) != 1 || r.SystemSections[0] != RepeatSystemSection {
				t.Fatalf("6th request sections %q", r.SystemSections)
			}
			if len(r.Messages) != len(msgs) || r.Messages[len(r.Messages)-1].Role != "tool" {
				t.Fatal("the instruction must not be a new user turn")
			}
			break
		}
		res := okResult("### Result\n\"ok\"" + pageTail)
		g.AfterToolCall(a, evalCall("() => 'ok'"), res)
		notes := strings.Count(res.Result.Format(), "### Repeated call")
		if want := map[bool]int{true: 1, false: 0}[req >= 3]; notes != want {
			t.Fatalf("call %d: %d notes in %q", req, notes, res.Result.Format())
		}
		if req >= 3 && !strings.HasPrefix(res.Result.Format(), "### Result\n\"ok\""+pageTail+"\n### Repeated call\n") {
			t.Fatalf("call %d: note not appended to the same text: %q", req, res.Result.Format())
		}
		if res.Raw.Format() != "### Result\n\"ok\""+pageTail {
			t.Fatal("raw changed")
		}
		obs := res.Result
		msgs = append(msgs, agent.Message{ChatCompletionMessage: openai.ChatCompletionMessage{Role: "tool"}, Observation: &obs})
	}
	var notes, withheld int
	for _, e := range a.Events() {
		switch e.Action {
		case "note":
			notes++
		case "withhold_tools":
			withheld++
		}
	}
	if notes != 3 || withheld != 1 {
		t.Fatalf("events %+v", a.Events())
	}
	// The 7th request (no new repeated call) has tools again.
	r := agent.ModelRequest{Tools: tools}
	g.BeforeModelCall(a, &r)
	if r.Tools == nil {
		t.Fatal("tools withheld twice")
	}
	// State is per attempt: a fresh attempt starts at zero.
	b := newAttempt(t)
	res := okResult("### Result\n\"ok\"")
	g.AfterToolCall(b, evalCall("() => 'ok'"), res)
	if strings.Contains(res.Result.Format(), "Repeated") {
		t.Fatal("state leaked across attempts")
	}
}

func TestRepeatGuardNeverTwiceInOneMessage(t *testing.T) {
	a := newAttempt(t)
	g := RepeatGuard{}
	for i := 0; i < 2; i++ {
		g.AfterToolCall(a, evalCall("() => 1"), okResult("### Result\n1"))
	}
	res := okResult("### Result\n1")
	g.AfterToolCall(a, evalCall("() => 1"), res)
	g.AfterToolCall(a, evalCall("() => 1"), res) // the same message seen again
	if n := strings.Count(res.Result.Format(), RepeatNoteHeading); n != 1 {
		t.Fatalf("%d notes: %q", n, res.Result.Format())
	}
}

func TestRepeatGuardCountersAndClicks(t *testing.T) {
	// 'done19', 'done20', 'done21': one streak (masked digits; also no-op literals).
	a := newAttempt(t)
	g := RepeatGuard{}
	var last *agent.ToolResult
	for _, n := range []string{"19", "20", "21"} {
		last = okResult("### Result\n\"done" + n + "\"")
		g.AfterToolCall(a, evalCall("() => 'done"+n+"'"), last)
	}
	if !strings.Contains(last.Result.Format(), RepeatNoteHeading) {
		t.Fatalf("counter loop not caught: %q", last.Result.Format())
	}
	if results.CallKey(evalCall("() => 'done19'")) != results.CallKey(evalCall("()=>'done20'")) {
		t.Fatal("evaluate keys should mask digits and whitespace")
	}

	// Clicking e12 then e13 alternately with identical results is not a streak.
	a = newAttempt(t)
	same := "### Page\n- Page URL: u\n- Page Title: t\n### Snapshot\n```yaml\n- button \"A\" [ref=e12]\n```"
	for i := 0; i < 6; i++ {
		ref := []string{"e12", "e13"}[i%2]
		res := okResult(same)
		g.AfterToolCall(a, agent.ToolCall{Name: "browser_click", Args: `{"target":"` + ref + `"}`}, res)
		if strings.Contains(res.Result.Format(), RepeatNoteHeading) {
			t.Fatalf("call %d: e12/e13 treated as repeats", i)
		}
	}
	if results.CallKey(agent.ToolCall{Name: "browser_click", Args: `{"target":"e12"}`}) ==
		results.CallKey(agent.ToolCall{Name: "browser_click", Args: `{"target":"e13"}`}) {
		t.Fatal("e12 and e13 must differ")
	}

	// The same click (MCP prefix, key order and spacing aside) with the same result three times is a streak;
	// only the Events section and console counts differ.
	a = newAttempt(t)
	calls := []agent.ToolCall{
		{Name: "browser_click", Args: `{"target":"e12","element":"Next"}`},
		{Name: "mcp__playwright__browser_click", Args: `{"element": "Next", "target": "e12"}`},
		{Name: "browser_click", Args: `{ "element":"Next","target":"e12" }`},
	}
	for i, c := range calls {
		res := okResult(same + "\n### Events\n- [ERROR] tick " + strings.Repeat("x", i) + "\n")
		if i == 1 {
			res = okResult(same + "\nNew console entries: 4")
		}
		g.AfterToolCall(a, c, res)
		if got := strings.Contains(res.Result.Format(), RepeatNoteHeading); got != (i == 2) {
			t.Fatalf("call %d: note=%v", i, got)
		}
	}

	// The same click with a changed page is progress, not a repeat.
	a = newAttempt(t)
	for i := 0; i < 4; i++ {
		res := okResult(strings.TrimSuffix(same, "\n```") + strings.Repeat("\n- text: more", i) + "\n```")
		g.AfterToolCall(a, agent.ToolCall{Name: "browser_click", Args: `{"target":"e12"}`}, res)
		if strings.Contains(res.Result.Format(), RepeatNoteHeading) {
			t.Fatalf("call %d: a changing result is not a repeat", i)
		}
	}
}

func TestIsNoopEvaluate(t *testing.T) {
	noop := []string{
		"() => 'ok'", "() => 1", "()=>34", "() => -1.5", "() => document.title", "() => location.href",
		"() => window.location.href", "() => document.URL", "() => document.location.href", "() => true",
		"() => null", "() => undefined", "() => `done`", "() => ({ok: true, title: document.title})",
		"() => ({'a': 1, \"b\": location.href,})", "() => [1, 'a', location.href]", "async () => { return 'done'; }",
		"function () { return \"x\" }", "(el) => 'ok'", "el => 'ok'", "() => {}", "() => { return; }", "document.title",
		"'ok'", "() => ('ok')", "() => 'a;b'",
	}
	for _, fn := range noop {
		if !results.IsNoopEvaluate(fn) {
			t.Errorf("%q should be a no-op", fn)
		}
	}
	reads := []string{
		"() => document.body.innerText", "() => document.querySelector('h1').textContent", "el => el.textContent",
		"(el) => el.value", "() => ({t: document.title, body: document.body.innerText})",
		"() => [document.title, document.querySelectorAll('a').length]", "() => `${document.title}`",
		"() => { const x = 1; return x; }", "() => ({a: {b: 1}})", "() => 'a' + document.body.innerText",
		"() => { return 'ok'; document.body.click() }", "() => window.scrollY", "() => { while(true){} }",
		"() => new Promise(() => {})", "() => 'a' + 'b'", "() => document.title.length", "",
	}
	for _, fn := range reads {
		if results.IsNoopEvaluate(fn) {
			t.Errorf("%q is not a no-op", fn)
		}
	}
}

// No-op evaluates form a streak whatever their text: title, then a literal, then the URL.
func TestRepeatGuardNoopStreak(t *testing.T) {
	a := newAttempt(t)
	g := RepeatGuard{}
	fns := []string{"() => document.title", "() => 1", "() => location.href", "() => ({t: document.title})", "() => 'ok'"}
	var res *agent.ToolResult
	for i, fn := range fns {
		res = okResult("### Result\n" + strings.Repeat("r", i+1))
		g.AfterToolCall(a, evalCall(fn), res)
	}
	if !strings.Contains(res.Result.Format(), RepeatNoteHeading) {
		t.Fatal("no-op streak not noted")
	}
	r := agent.ModelRequest{Tools: []openai.Tool{{}}}
	g.BeforeModelCall(a, &r)
	if r.Tools != nil {
		t.Fatal("tools not withheld after 5 no-op evaluates")
	}
	// A content read breaks the no-op streak.
	a = newAttempt(t)
	for i, fn := range []string{"() => 1", "() => 2", "() => document.body.innerText", "() => 3"} {
		res = okResult("### Result\n" + strings.Repeat("r", i+1))
		g.AfterToolCall(a, evalCall(fn), res)
	}
	if strings.Contains(res.Result.Format(), RepeatNoteHeading) {
		t.Fatal("a content read must break the streak")
	}
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
