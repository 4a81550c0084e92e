package scripted

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"webbench/browser"
	"webbench/suites"

	openai "github.com/sashabaranov/go-openai"
)

// harness drives the policy over real HTTP with go-openai, playing the agent loop by hand: the test feeds
// tool results (hand-written snapshots) and reads the calls the policy makes.
type harness struct {
	t      *testing.T
	client *openai.Client
	msgs   []openai.ChatCompletionMessage
	tools  []openai.Tool
	seed   *int
	last   openai.ChatCompletionResponse
}

const origin = "http://127.0.0.1:9999/t/abc123/shop"

func newHarness(t *testing.T, tasks []suites.Task, p Profile) *harness {
	t.Helper()
	srv := New(tasks, p)
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = base
	seed := 7
	return &harness{t: t, client: openai.NewClientWithConfig(cfg), tools: toolDefs(), seed: &seed}
}

func toolDefs() []openai.Tool {
	var out []openai.Tool
	for _, n := range []string{"browser_navigate", "browser_navigate_back", "browser_snapshot", "browser_click",
		"browser_type", "browser_hover", "browser_select_option", "browser_fill_form", "browser_press_key",
		"browser_evaluate", "browser_wait_for", "browser_take_screenshot", "browser_mouse_click_xy"} {
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: n, Description: n, Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}})
	}
	return out
}

// obs renders a page observation as the browser tools do.
func obs(path, title, snapshot string) string {
	return browser.Result{URL: origin + path, Title: title, Snapshot: browser.Snapshot{YAML: snapshot}}.Format()
}

// begin starts a conversation: system prompt, then the task turn with the first observation.
func (h *harness) begin(goal, observation string) {
	h.msgs = []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "You are a browser agent. End with the final JSON."},
		{Role: openai.ChatMessageRoleUser, Content: "Task: " + goal + "\n\n" + observation},
	}
}

// ask sends the conversation (with tools unless withheld) and appends the reply.
func (h *harness) ask() openai.ChatCompletionMessage {
	h.t.Helper()
	return h.askWith(h.tools)
}

func (h *harness) askWith(tools []openai.Tool) openai.ChatCompletionMessage {
	h.t.Helper()
	resp, err := h.client.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "scripted", Messages: h.msgs, Tools: tools, Seed: h.seed})
	if err != nil {
		h.t.Fatalf("chat: %v", err)
	}
	if len(resp.Choices) != 1 {
		h.t.Fatalf("want 1 choice, got %d", len(resp.Choices))
	}
	h.last = resp
	m := resp.Choices[0].Message
	h.msgs = append(h.msgs, m)
	return m
}

// results answers the last assistant message's tool calls, in order, with the given texts, then asks.
func (h *harness) results(texts ...string) openai.ChatCompletionMessage {
	h.t.Helper()
	h.feed(texts...)
	return h.ask()
}

func (h *harness) feed(texts ...string) {
	h.t.Helper()
	calls := h.msgs[len(h.msgs)-1].ToolCalls
	if len(calls) != len(texts) {
		h.t.Fatalf("last message has %d tool calls (%s), test gave %d results", len(calls), describe(h.msgs[len(h.msgs)-1]), len(texts))
	}
	for i, c := range calls {
		h.msgs = append(h.msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: c.ID,
			Content: texts[i]})
	}
}

func describe(m openai.ChatCompletionMessage) string {
	if len(m.ToolCalls) == 0 {
		return "content " + m.Content
	}
	var parts []string
	for _, c := range m.ToolCalls {
		parts = append(parts, c.Function.Name+c.Function.Arguments)
	}
	return strings.Join(parts, "; ")
}

// wantCall asserts that m holds exactly one tool call of tool name and returns its arguments.
func wantCall(t *testing.T, m openai.ChatCompletionMessage, name string) map[string]any {
	t.Helper()
	if len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Name != name {
		t.Fatalf("want one %s call, got %s", name, describe(m))
	}
	return args(t, m.ToolCalls[0])
}

func args(t *testing.T, c openai.ToolCall) map[string]any {
	t.Helper()
	var a map[string]any
	if err := json.Unmarshal([]byte(c.Function.Arguments), &a); err != nil {
		t.Fatalf("arguments of %s are not JSON: %v", c.Function.Name, err)
	}
	return a
}

// wantFinal asserts that m is a final JSON answer and returns it.
func wantFinal(t *testing.T, m openai.ChatCompletionMessage) finalAnswer {
	t.Helper()
	if len(m.ToolCalls) != 0 {
		t.Fatalf("want a final answer, got calls %s", describe(m))
	}
	var f finalAnswer
	dec := json.NewDecoder(strings.NewReader(m.Content))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("final is not the JSON object: %v: %q", err, m.Content)
	}
	return f
}

func profileWith(mod func(p *Profile)) Profile {
	p := Clean()
	mod(&p)
	return p
}

// Hand-written snapshots of a small shop (Playwright AI mode, as captured on this machine).
const (
	snapHome = `- generic [ref=e1]:
  - banner [ref=e2]:
    - link "Home" [ref=e3] [cursor=pointer]:
      - /url: /
  - main [ref=e4]:
    - heading "Featured" [level=2] [ref=e5]
    - link "Yoga Mat" [ref=e6] [cursor=pointer]:
      - /url: /product/ym-01
    - link "Foam Roller" [ref=e7] [cursor=pointer]:
      - /url: /product/fr-02`
	snapProduct = `- generic [ref=e1]:
  - heading "Yoga Mat" [level=1] [ref=e2]
  - group "Colour" [ref=e3]:
    - generic [ref=e4]:
      - radio "Blue" [ref=e5]
      - text: Blue
    - generic [ref=e6]:
      - radio "Red" [ref=e7]
      - text: Red
  - button "Add to cart" [ref=e8] [cursor=pointer]`
	snapProductConsent = snapProduct + `
  - dialog "Cookie consent" [ref=e9]:
    - paragraph [ref=e10]: We use cookies
    - button "Accept all" [ref=e11]
    - button "Reject all" [ref=e12]
    - button "Close" [ref=e13]: x`
	snapCheckout = `- generic [ref=e1]:
  - heading "Checkout" [level=1] [ref=e2]
  - textbox "Email" [ref=e3]
  - combobox "Shipping" [ref=e4]:
    - option "Standard" [selected]
    - option "Express"
  - button "Place order" [ref=e5] [cursor=pointer]`
	snapConfirm = `- generic [ref=e1]:
  - 'heading "Order #12345 confirmed" [level=1] [ref=e2]'
  - link "Continue shopping" [ref=e3] [cursor=pointer]`
)

const goalShop = "Buy one blue Yoga Mat as a guest (email ana@example.test), ship it by express, and report the order number."

func shopTask() suites.Task {
	return suites.Task{ID: "shop-yoga", Suite: "zoo", App: "shop", Start: "/", Goal: goalShop,
		Check: suites.Check{State: map[string]any{"orders": []any{map[string]any{"email": "ana@example.test"}}}},
		Solution: []suites.Step{
			{Kind: "click", Target: &suites.Target{Role: "link", Name: "Yoga Mat"}},
			{Kind: "click", Target: &suites.Target{Role: "radio", Name: "Blue"}},
			{Kind: "click", Target: &suites.Target{Role: "button", Name: "Add to cart"}},
			{Kind: "fill", Target: &suites.Target{Role: "textbox", Name: "Email"}, Text: "ana@example.test"},
			{Kind: "select", Target: &suites.Target{Role: "combobox", Name: "Shipping"}, Values: []string{"Express"}},
			{Kind: "click", Target: &suites.Target{Role: "button", Name: "Place order"}},
			{Kind: "answer", Target: &suites.Target{Role: "heading", NameRegex: `Order #(\d+)`}},
		}}
}

const goalQA = "What is the rating of the Tomato Soup recipe?"

const (
	snapResults = `- generic [ref=e1]:
  - heading "Results for soup" [level=1] [ref=e2]
  - link "Tomato Soup" [ref=e3] [cursor=pointer]
  - link "Onion Soup" [ref=e4] [cursor=pointer]`
	snapRecipe = `- generic [ref=e1]:
  - heading "Tomato Soup" [level=1] [ref=e2]
  - paragraph [ref=e3]: "Rating: 4.6 stars (117 ratings)"
  - button "Save recipe" [ref=e4]`
)

func qaTask() suites.Task {
	n := 4.6
	return suites.Task{ID: "recipes-rating", Suite: "zoo", App: "recipes", Start: "/search?q=soup", Goal: goalQA,
		Check: suites.Check{Answer: &suites.AnswerRule{Number: &n, Tolerance: 0.05}},
		Solution: []suites.Step{
			{Kind: "click", Target: &suites.Target{Role: "link", Name: "Tomato Soup"}},
			{Kind: "answer", Target: &suites.Target{Role: "paragraph", NameRegex: `Rating: ([\d.]+)`}},
		}}
}
