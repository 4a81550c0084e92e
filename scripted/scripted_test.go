package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"webbench/agent/guard"
	"webbench/browser"
	"webbench/suites"

	openai "github.com/sashabaranov/go-openai"
)

func TestModelsAndBadRequests(t *testing.T) {
	srv := New(nil, Clean())
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/v1") {
		t.Fatalf("base URL %q", base)
	}
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = base
	client := openai.NewClientWithConfig(cfg)
	models, err := client.ListModels(context.Background())
	if err != nil || len(models.Models) != 1 || models.Models[0].ID != ModelName {
		t.Fatalf("models: %+v %v", models.Models, err)
	}

	// No messages: go-openai sees a 400 APIError in OpenAI's shape.
	_, err = client.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "scripted"})
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 400 || apiErr.Type != "invalid_request_error" ||
		!strings.Contains(apiErr.Message, "messages") {
		t.Fatalf("empty messages: %v", err)
	}
	// Malformed JSON and a wrong method, over plain HTTP.
	resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(`{"messages": [`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var e struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		} `json:"error"`
	}
	if resp.StatusCode != 400 || json.Unmarshal(body, &e) != nil || !strings.Contains(e.Error.Message, "invalid JSON") {
		t.Fatalf("bad JSON: %d %s", resp.StatusCode, body)
	}
	resp, err = http.Get(base + "/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET chat: %d", resp.StatusCode)
	}
	// A tool message without tool_call_id is refused.
	_, err = client.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "scripted",
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Task: x"}, {Role: "tool", Content: "y"}}})
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 400 || !strings.Contains(apiErr.Message, "tool_call_id") {
		t.Fatalf("tool without id: %v", err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := client.ListModels(context.Background()); err == nil {
		t.Fatal("server still answers after Close")
	}
}

func TestUnknownTask(t *testing.T) {
	h := newHarness(t, []suites.Task{shopTask()}, Clean())
	h.begin("Buy two Yoga Mats.", obs("/", "Shop", snapHome))
	f := wantFinal(t, h.ask())
	if f.OK || f.Error == nil || *f.Error != "unknown task" || f.Page != origin+"/" {
		t.Fatalf("unknown task: %+v", f)
	}
	// A known task without a solution (a live-site suite) is refused the same way.
	h = newHarness(t, []suites.Task{{ID: "Allrecipes--0", Goal: "Find a vegetarian lasagna recipe."}}, Clean())
	h.begin("Find a vegetarian lasagna recipe.", obs("/", "Allrecipes", snapHome))
	if f := wantFinal(t, h.ask()); f.OK || *f.Error != "no scripted solution for this task" {
		t.Fatalf("no solution: %+v", f)
	}
}

// TestFullSolution plays a checkout from the first observation to the final answer, feeding each action's
// resulting page back, and checks every call, the finish reasons, ids and usage.
func TestFullSolution(t *testing.T) {
	h := newHarness(t, []suites.Task{qaTask(), shopTask()}, Clean())
	h.begin(goalShop, obs("/", "Shop", snapHome))
	ids := map[string]bool{}
	check := func(m openai.ChatCompletionMessage, name, target, element string) {
		t.Helper()
		a := wantCall(t, m, name)
		if a["target"] != target || a["element"] != element {
			t.Fatalf("%s: want target %s element %s, got %v", name, target, element, a)
		}
		if h.last.Choices[0].FinishReason != openai.FinishReasonToolCalls {
			t.Fatalf("finish reason %q", h.last.Choices[0].FinishReason)
		}
		id := m.ToolCalls[0].ID
		if !strings.HasPrefix(id, "call_") || ids[id] {
			t.Fatalf("tool call id %q not fresh", id)
		}
		ids[id] = true
	}
	m := h.ask()
	check(m, "browser_click", "e6", `link "Yoga Mat"`)
	if u := h.last.Usage; u.PromptTokens < 100 || u.CompletionTokens < 5 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		t.Fatalf("usage %+v", u)
	}
	m = h.results(obs("/product/ym-01", "Yoga Mat", snapProduct))
	check(m, "browser_click", "e5", `radio "Blue"`)
	m = h.results(obs("/product/ym-01", "Yoga Mat", strings.Replace(snapProduct, `radio "Blue" [ref=e5]`, `radio "Blue" [checked] [ref=e5]`, 1)))
	check(m, "browser_click", "e8", `button "Add to cart"`)
	m = h.results(obs("/checkout", "Checkout", snapCheckout))
	check(m, "browser_type", "e3", `textbox "Email"`)
	if a := args(t, m.ToolCalls[0]); a["text"] != "ana@example.test" {
		t.Fatalf("type text %v", a)
	}
	m = h.results(obs("/checkout", "Checkout", snapCheckout))
	check(m, "browser_select_option", "e4", `combobox "Shipping"`)
	if a := args(t, m.ToolCalls[0]); !reflect.DeepEqual(a["values"], []any{"Express"}) {
		t.Fatalf("select values %v", a)
	}
	// A detour that fails does not advance the plan: the same step is asked again.
	m = h.results("### Error\nTimeout 5000ms exceeded.\n" + obs("/checkout", "Checkout", snapCheckout))
	check(m, "browser_select_option", "e4", `combobox "Shipping"`)
	m = h.results(obs("/checkout", "Checkout", snapCheckout))
	check(m, "browser_click", "e5", `button "Place order"`)
	m = h.results(obs("/confirmation", "Order placed", snapConfirm))
	f := wantFinal(t, m)
	if !f.OK || f.Final != "12345" || f.Page != origin+"/confirmation" || f.Error != nil {
		t.Fatalf("final %+v", f)
	}
	if h.last.Choices[0].FinishReason != openai.FinishReasonStop || h.last.Model != "scripted" {
		t.Fatalf("finish %q model %q", h.last.Choices[0].FinishReason, h.last.Model)
	}
}

func TestNavigatePressAndDoneWithoutAnswer(t *testing.T) {
	task := suites.Task{ID: "nav", Goal: "Open the cart and submit the search.", Start: "/search?q=mat",
		Solution: []suites.Step{
			{Kind: "navigate", URL: "/cart"},
			{Kind: "press", Key: "Enter"},
		}}
	h := newHarness(t, []suites.Task{task}, Clean())
	h.begin(task.Goal, obs("/search?q=mat", "Search", snapHome))
	a := wantCall(t, h.ask(), "browser_navigate")
	if a["url"] != origin+"/cart" {
		t.Fatalf("navigate url %v (app root %s)", a["url"], origin)
	}
	a = wantCall(t, h.results(obs("/cart", "Cart", snapCheckout)), "browser_press_key")
	if a["key"] != "Enter" {
		t.Fatalf("press %v", a)
	}
	f := wantFinal(t, h.results(obs("/cart", "Cart", snapCheckout)))
	if !f.OK || !strings.Contains(f.Final, task.Goal) {
		t.Fatalf("final %+v", f)
	}
}

// conversationReplies plays the same conversation prefix and returns the raw reply.
func TestDeterminismUnderSeed(t *testing.T) {
	p := profileWith(func(p *Profile) { p.ProseFinal = 0.5; p.PostAnswerLoop = 0.5 })
	play := func(seed int) []string {
		h := newHarness(t, []suites.Task{qaTask()}, p)
		h.seed = &seed
		h.begin(goalQA, obs("/search?q=soup", "Results", snapResults))
		var out []string
		m := h.ask()
		out = append(out, describe(m))
		m = h.results(obs("/recipe/tomato", "Tomato Soup", snapRecipe))
		out = append(out, describe(m))
		for i := 0; i < 3 && len(m.ToolCalls) > 0; i++ {
			m = h.results("### Result\n\"ok\"")
			out = append(out, describe(m))
		}
		return out
	}
	distinct := map[string]bool{}
	for seed := 0; seed < 16; seed++ {
		a, b := play(seed), play(seed)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: replies differ:\n%q\n%q", seed, a, b)
		}
		distinct[strings.Join(a, "|")] = true
	}
	if len(distinct) < 4 {
		t.Fatalf("16 seeds at p=0.5 gave only %d distinct conversations", len(distinct))
	}
	// Tool call ids repeat under the same seed and step.
	seed := 3
	h1, h2 := newHarness(t, []suites.Task{qaTask()}, p), newHarness(t, []suites.Task{qaTask()}, p)
	h1.seed, h2.seed = &seed, &seed
	h1.begin(goalQA, obs("/search?q=soup", "Results", snapResults))
	h2.begin(goalQA, obs("/search?q=soup", "Results", snapResults))
	if id1, id2 := h1.ask().ToolCalls[0].ID, h2.ask().ToolCalls[0].ID; id1 != id2 || h1.last.ID != h2.last.ID {
		t.Fatalf("ids differ: %s %s", id1, id2)
	}
}

func TestNoSeedIsSeedZero(t *testing.T) {
	ids := map[string]string{}
	for name, seed := range map[string]*int{"none": nil, "zero": new(int), "one": func() *int { x := 1; return &x }()} {
		h := newHarness(t, []suites.Task{qaTask()}, Clean())
		h.seed = seed
		h.begin(goalQA, obs("/search?q=soup", "Results", snapResults))
		m := h.ask()
		ids[name] = h.last.ID + " " + m.ToolCalls[0].ID
	}
	if ids["none"] != ids["zero"] || ids["zero"] == ids["one"] {
		t.Fatalf("ids by seed: %v", ids)
	}
}

const rawInterceptErr = `### Error
TimeoutError: locator.click: Timeout 5000ms exceeded.
Call log:
  - waiting for locator('aria-ref=e5')
    - locator resolved to <input name="c" type="radio" value="blue"/>
  - attempting click action
    2 × waiting for element to be visible, enabled and stable
      - element is visible, enabled and stable
      - scrolling into view if needed
      - done scrolling
      - <div class="onetrust-pc-dark-filter"></div> from <div id="onetrust-consent-sdk">…</div> subtree intercepts pointer events
    - retrying click action
    - waiting 20ms`

const rawIconErr = `### Error
TimeoutError: locator.click: Timeout 5000ms exceeded.
Call log:
  - waiting for locator('aria-ref=e5')
    - locator resolved to <input name="c" type="radio" value="blue"/>
  - attempting click action
      - <span class="icon"></span> intercepts pointer events
    - retrying click action`

const hintErr = `### Error
Click not delivered: input[name=c][type=radio] is covered by div.onetrust-pc-dark-filter (inside div#onetrust-consent-sdk). This is a cookie-consent dialog: close it first (prefer 'Reject all' / 'Close'). Then retry the action (take a fresh browser_snapshot if the page changed).`

// toBlockedClick plays the shop task up to the click on "Blue", on a product page with a consent dialog.
func toBlockedClick(t *testing.T, p Profile, seed int, productSnap string) *harness {
	h := newHarness(t, []suites.Task{shopTask()}, p)
	h.seed = &seed
	h.begin(goalShop, obs("/", "Shop", snapHome))
	h.ask()
	a := wantCall(t, h.results(obs("/product/ym-01", "Yoga Mat", productSnap)), "browser_click")
	if a["target"] != "e5" {
		t.Fatalf("click %v", a)
	}
	return h
}

func TestBlockedClick(t *testing.T) {
	understood := profileWith(func(p *Profile) { p.BlockedClickRawUnderstood, p.BlockedClickHintUnderstood = 1, 1 })
	confused := profileWith(func(p *Profile) { p.BlockedClickRawUnderstood, p.BlockedClickHintUnderstood = 0, 0 })
	for _, tc := range []struct{ name, err string }{{"raw", rawInterceptErr}, {"hint", hintErr}} {
		t.Run(tc.name+"/understood", func(t *testing.T) {
			h := toBlockedClick(t, understood, 1, snapProductConsent)
			a := wantCall(t, h.results(tc.err), "browser_click")
			if a["target"] != "e12" || a["element"] != `button "Reject all"` {
				t.Fatalf("dismiss: %v", a)
			}
			// The dismissal is a detour: next the blocked click is retried, then the plan goes on.
			a = wantCall(t, h.results(obs("/product/ym-01", "Yoga Mat", snapProduct)), "browser_click")
			if a["target"] != "e5" {
				t.Fatalf("retry: %v", a)
			}
			a = wantCall(t, h.results(obs("/product/ym-01", "Yoga Mat", snapProduct)), "browser_click")
			if a["element"] != `button "Add to cart"` {
				t.Fatalf("after retry: %v", a)
			}
		})
		t.Run(tc.name+"/not-understood", func(t *testing.T) {
			kinds := map[string]int{}
			for seed := 0; seed < 12; seed++ {
				h := toBlockedClick(t, confused, seed, snapProductConsent)
				m := h.results(tc.err)
				if len(m.ToolCalls) != 1 {
					t.Fatalf("seed %d: %s", seed, describe(m))
				}
				switch c := m.ToolCalls[0]; {
				case c.Function.Name == "browser_snapshot":
					kinds["snapshot"]++
				case c.Function.Name == "browser_click" && args(t, c)["target"] == "e5":
					kinds["retry"]++
				default:
					t.Fatalf("seed %d: neither a retry nor a snapshot: %s", seed, describe(m))
				}
			}
			if kinds["snapshot"] == 0 || kinds["retry"] == 0 {
				t.Fatalf("fallbacks over 12 seeds: %v", kinds)
			}
		})
	}
	t.Run("icon-over-input", func(t *testing.T) {
		h := toBlockedClick(t, understood, 1, snapProduct)
		a := wantCall(t, h.results(rawIconErr), "browser_click")
		if a["target"] != "e4" || a["element"] != `label of radio "Blue"` {
			t.Fatalf("label click: %v", a)
		}
		// The label click performs the step: next is "Add to cart".
		a = wantCall(t, h.results(obs("/product/ym-01", "Yoga Mat", snapProduct)), "browser_click")
		if a["element"] != `button "Add to cart"` {
			t.Fatalf("after label: %v", a)
		}
	})
}

func toAnswer(t *testing.T, p Profile, seed int) (*harness, openai.ChatCompletionMessage) {
	h := newHarness(t, []suites.Task{qaTask()}, p)
	h.seed = &seed
	h.begin(goalQA, obs("/search?q=soup", "Results", snapResults))
	a := wantCall(t, h.ask(), "browser_click")
	if a["element"] != `link "Tomato Soup"` {
		t.Fatalf("click %v", a)
	}
	return h, h.results(obs("/recipe/tomato", "Tomato Soup", snapRecipe))
}

func TestPostAnswerLoop(t *testing.T) {
	t.Run("off", func(t *testing.T) {
		_, m := toAnswer(t, Clean(), 1)
		if f := wantFinal(t, m); !f.OK || f.Final != "4.6" {
			t.Fatalf("final %+v", f)
		}
	})
	loopNoHeed := profileWith(func(p *Profile) { p.PostAnswerLoop, p.HeedRepeatNote = 1, 0 })
	loopHeed := profileWith(func(p *Profile) { p.PostAnswerLoop, p.HeedRepeatNote = 1, 1 })
	t.Run("loop-ignores-notes", func(t *testing.T) {
		h, m := toAnswer(t, loopNoHeed, 1)
		var funcs []string
		for i := 0; i < 6; i++ {
			a := wantCall(t, m, "browser_evaluate")
			fn := a["function"].(string)
			if !loopFuncRe.MatchString(fn) {
				t.Fatalf("loop body %q is not a no-op", fn)
			}
			funcs = append(funcs, fn)
			res := "### Result\n\"ok\""
			if i >= 2 {
				res += "\n### Repeated call\nThis call repeats the previous ones with the same result."
			}
			m = h.results(res)
		}
		wantCall(t, m, "browser_evaluate")
		t.Logf("loop: %q", funcs)
	})
	t.Run("heeds-note", func(t *testing.T) {
		h, m := toAnswer(t, loopHeed, 1)
		for i := 0; i < 2; i++ {
			wantCall(t, m, "browser_evaluate")
			m = h.results("### Result\n\"ok\"")
		}
		wantCall(t, m, "browser_evaluate")
		m = h.results("### Result\n\"ok\"\n### Repeated call\nYou called this 3 times; answer now.")
		if f := wantFinal(t, m); !f.OK || f.Final != "4.6" {
			t.Fatalf("final %+v", f)
		}
	})
	t.Run("patterns", func(t *testing.T) {
		seen := map[string]bool{}
		for seed := 0; seed < 24; seed++ {
			h, m := toAnswer(t, loopNoHeed, seed)
			m = h.results("### Result\n\"x\"")
			m = h.results("### Result\n\"x\"")
			seen[args(t, m.ToolCalls[0])["function"].(string)] = true
		}
		for _, want := range []string{"() => 'ok'", "() => document.title", "() => 'done21'", "() => 'done19'"} {
			if !seen[want] {
				t.Errorf("third loop call %q never seen over 24 seeds: %v", want, seen)
			}
		}
	})
}

func TestToolsWithheld(t *testing.T) {
	for _, tc := range []struct {
		name  string
		empty float64
	}{{"empty", 1}, {"json", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			p := profileWith(func(p *Profile) { p.PostAnswerLoop, p.HeedRepeatNote, p.WithheldNoUserTurnEmpty = 1, 0, tc.empty })
			h, m := toAnswer(t, p, 1)
			for i := 0; i < 5; i++ {
				m = h.results("### Result\n\"ok\"\n### Repeated call\nRepeated.")
			}
			// repeat_guard: no tools, one extra system section, no user turn after the last tool result.
			h.feed("### Result\n\"ok\"\n### Repeated call\nRepeated.")
			h.msgs = append(h.msgs, openai.ChatCompletionMessage{Role: "system",
				Content: "You are repeating a call. Tools are withheld: reply with the final JSON now."})
			m = h.askWith(nil)
			if tc.empty == 1 {
				if m.Content != "" || len(m.ToolCalls) != 0 || h.last.Choices[0].FinishReason != openai.FinishReasonStop {
					t.Fatalf("want empty content, got %s", describe(m))
				}
				return
			}
			if f := wantFinal(t, m); !f.OK || f.Final != "4.6" {
				t.Fatalf("final %+v", f)
			}
		})
	}
}

func TestFinalRecovery(t *testing.T) {
	recoveryTurn := "The step limit has been reached. Tools are disabled now. Using only what you have already seen, reply with the final JSON object."
	t.Run("json", func(t *testing.T) {
		p := profileWith(func(p *Profile) { p.PostAnswerLoop, p.HeedRepeatNote, p.WithheldUserTurnJSON = 1, 0, 1 })
		h, m := toAnswer(t, p, 1)
		h.feed("### Result\n\"ok\"")
		h.msgs = append(h.msgs, openai.ChatCompletionMessage{Role: "user", Content: recoveryTurn})
		m = h.askWith(nil)
		if f := wantFinal(t, m); !f.OK || f.Final != "4.6" {
			t.Fatalf("final %+v", f)
		}
	})
	t.Run("not-json", func(t *testing.T) {
		p := profileWith(func(p *Profile) { p.PostAnswerLoop, p.HeedRepeatNote, p.WithheldUserTurnJSON = 1, 0, 0 })
		kinds := map[string]int{}
		for seed := 0; seed < 24; seed++ {
			h, _ := toAnswer(t, p, seed)
			h.feed("### Result\n\"ok\"")
			h.msgs = append(h.msgs, openai.ChatCompletionMessage{Role: "user", Content: recoveryTurn})
			m := h.askWith(nil)
			var f finalAnswer
			switch {
			case len(m.ToolCalls) > 0:
				kinds["tool"]++
			case json.Unmarshal([]byte(m.Content), &f) == nil:
				t.Fatalf("seed %d: valid JSON at p=0: %q", seed, m.Content)
			case strings.Contains(m.Content, "4.6"):
				kinds["prose"]++
			default:
				t.Fatalf("seed %d: prose without the answer: %q", seed, m.Content)
			}
		}
		if kinds["prose"] < kinds["tool"] || kinds["tool"] == 0 {
			t.Fatalf("over 24 seeds: %v (want mostly prose, some tool calls)", kinds)
		}
	})
	t.Run("unfinished", func(t *testing.T) {
		h := newHarness(t, []suites.Task{shopTask()}, Clean())
		h.begin(goalShop, obs("/", "Shop", snapHome))
		h.ask()
		h.feed(obs("/product/ym-01", "Yoga Mat", snapProduct))
		h.msgs = append(h.msgs, openai.ChatCompletionMessage{Role: "user", Content: recoveryTurn})
		f := wantFinal(t, h.askWith(nil))
		if f.OK || f.Error == nil || !strings.Contains(*f.Error, `radio "Blue"`) {
			t.Fatalf("final %+v", f)
		}
	})
}

func TestProseFinal(t *testing.T) {
	_, m := toAnswer(t, profileWith(func(p *Profile) { p.ProseFinal = 1 }), 1)
	var f finalAnswer
	if len(m.ToolCalls) != 0 || json.Unmarshal([]byte(m.Content), &f) == nil || !strings.Contains(m.Content, "**Answer:** 4.6") {
		t.Fatalf("want Markdown prose, got %q", m.Content)
	}
	if strings.Contains(m.Content, "{") {
		t.Fatalf("prose holds a JSON object: %q", m.Content)
	}
	_, m = toAnswer(t, profileWith(func(p *Profile) { p.ProseFinal = 0 }), 1)
	if f := wantFinal(t, m); f.Final != "4.6" {
		t.Fatalf("final %+v", f)
	}
}

const goalChat = "Log in to the chat as ana and post hello in Town Square."

const (
	snapShell = `- generic [ref=e1]:
  - img [ref=e2]
  - generic "button" [ref=e3]`
	snapLogin = `- generic [ref=e1]:
  - heading "Log in" [level=1] [ref=e2]
  - textbox "Username" [ref=e3]
  - button "Log in" [ref=e4]`
)

func chatTask() suites.Task {
	return suites.Task{ID: "chat-login", App: "chat", Start: "/login", Goal: goalChat, Mutations: []string{"late_hydration"},
		Solution: []suites.Step{
			{Kind: "fill", Target: &suites.Target{Role: "textbox", Name: "Username"}, Text: "ana"},
			{Kind: "click", Target: &suites.Target{Role: "button", Name: "Log in"}},
		}}
}

func TestEmptySnapshot(t *testing.T) {
	t.Run("give-up", func(t *testing.T) {
		h := newHarness(t, []suites.Task{chatTask()}, profileWith(func(p *Profile) { p.EmptySnapshotGiveUp = 1 }))
		h.begin(goalChat, obs("/login", "Chat", snapShell))
		f := wantFinal(t, h.ask())
		if f.OK || f.Error == nil || !strings.Contains(*f.Error, "the accessibility tree is incomplete") {
			t.Fatalf("final %+v", f)
		}
	})
	t.Run("looks-again", func(t *testing.T) {
		h := newHarness(t, []suites.Task{chatTask()}, profileWith(func(p *Profile) { p.EmptySnapshotGiveUp = 0 }))
		h.begin(goalChat, obs("/login", "Chat", snapShell))
		m := h.ask()
		if len(m.ToolCalls) != 2 || m.ToolCalls[0].Function.Name != "browser_wait_for" ||
			m.ToolCalls[1].Function.Name != "browser_snapshot" {
			t.Fatalf("want wait + snapshot, got %s", describe(m))
		}
		// Hydrated: the plan goes on.
		a := wantCall(t, h.results("### Result\nWaited 1 s", obs("/login", "Chat", snapLogin)), "browser_type")
		if a["target"] != "e3" || a["text"] != "ana" {
			t.Fatalf("type %v", a)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		h := newHarness(t, []suites.Task{chatTask()}, profileWith(func(p *Profile) { p.EmptySnapshotGiveUp = 0 }))
		h.begin(goalChat, obs("/login", "Chat", snapShell))
		m := h.ask()
		for i := 0; i < maxEmptyLooks; i++ {
			if len(m.ToolCalls) != 2 {
				t.Fatalf("look %d: %s", i, describe(m))
			}
			m = h.results("### Result\nWaited 1 s", obs("/login", "Chat", snapShell))
		}
		if f := wantFinal(t, m); f.OK || !strings.Contains(*f.Error, "incomplete") {
			t.Fatalf("final %+v", f)
		}
	})
}

const goalCart = "Check out the cart."

func cartTask() suites.Task {
	return suites.Task{ID: "shop-cart", App: "shop", Start: "/cart", Goal: goalCart, Mutations: []string{"ref_churn"},
		Solution: []suites.Step{
			{Kind: "click", Target: &suites.Target{Role: "button", Name: "Update"}},
			{Kind: "click", Target: &suites.Target{Role: "button", Name: "Checkout"}},
		}}
}

const (
	snapCart1 = `- generic [ref=e1]:
  - spinbutton "Qty" [ref=e2]: "1"
  - button "Update" [ref=e3]
  - button "Checkout" [ref=e4]`
	snapCart2 = `- generic [ref=e1]:
  - spinbutton "Qty" [ref=e7]: "1"
  - button "Update" [ref=e8]
  - button "Checkout" [ref=e9]`
)

func TestStaleRef(t *testing.T) {
	toStale := func(t *testing.T, p Profile) *harness {
		h := newHarness(t, []suites.Task{cartTask()}, p)
		h.begin(goalCart, obs("/cart", "Cart", snapCart1))
		if a := wantCall(t, h.ask(), "browser_click"); a["target"] != "e3" {
			t.Fatalf("click %v", a)
		}
		// The update succeeded, but the snapshot captured was taken before the re-render.
		a := wantCall(t, h.results(obs("/cart", "Cart", snapCart1)), "browser_click")
		if a["target"] != "e4" || a["element"] != `button "Checkout"` {
			t.Fatalf("click %v", a)
		}
		return h
	}
	stale := "### Error\n" + browser.StaleRefMessage("e4")
	t.Run("old-view", func(t *testing.T) {
		h := toStale(t, profileWith(func(p *Profile) { p.StaleRefWithoutRefresh = 1 }))
		m := h.results(stale)
		for i := 0; i < 4; i++ {
			if a := wantCall(t, m, "browser_click"); a["target"] != "e4" {
				t.Fatalf("retry %d: %v", i, a)
			}
			m = h.results(stale)
		}
	})
	t.Run("asks-snapshot", func(t *testing.T) {
		h := toStale(t, profileWith(func(p *Profile) { p.StaleRefWithoutRefresh = 0 }))
		wantCall(t, h.results(stale), "browser_snapshot")
		a := wantCall(t, h.results(obs("/cart", "Cart", snapCart2)), "browser_click")
		if a["target"] != "e9" {
			t.Fatalf("after snapshot: %v", a)
		}
	})
	t.Run("fresh-snapshot", func(t *testing.T) {
		h := toStale(t, profileWith(func(p *Profile) { p.StaleRefWithoutRefresh = 1 }))
		m := h.results(stale + "\n" + obs("/cart", "Cart", snapCart2))
		if a := wantCall(t, m, "browser_click"); a["target"] != "e9" {
			t.Fatalf("with refresh: %v", a)
		}
		if f := wantFinal(t, h.results(obs("/order", "Order", snapConfirm))); !f.OK {
			t.Fatalf("final %+v", f)
		}
	})
}

const goalReport = "Report the total sales shown on the dashboard."

const snapDash = `- generic [ref=e1]:
  - heading "Dashboard" [level=1] [ref=e2]
  - paragraph [ref=e3]: "Total sales: 1,234"
  - link "Refresh" [ref=e4]`

func reportTask() suites.Task {
	total := 1234.0
	return suites.Task{ID: "hung", App: "shop", Start: "/dashboard", Goal: goalReport, Mutations: []string{"hung_fetch"},
		Check: suites.Check{Answer: &suites.AnswerRule{Number: &total}},
		Solution: []suites.Step{
			{Kind: "evaluate", Function: "async () => (await fetch('/api/sales')).json()"},
			{Kind: "answer", Target: &suites.Target{Role: "paragraph", NameRegex: `Total sales: ([\d,]+)`}},
		}}
}

func TestEvaluateOnHungPages(t *testing.T) {
	t.Run("taken", func(t *testing.T) {
		h := newHarness(t, []suites.Task{reportTask()}, profileWith(func(p *Profile) { p.EvaluateOnHungPages = 1 }))
		h.begin(goalReport, obs("/dashboard", "Dashboard", snapDash))
		a := wantCall(t, h.ask(), "browser_evaluate")
		if a["function"] != reportTask().Solution[0].Function {
			t.Fatalf("evaluate %v", a)
		}
		// evaluate_isolation's error: the policy moves on to the next step.
		m := h.results("### Error\nevaluate timed out after 5000 ms; page script was terminated")
		if f := wantFinal(t, m); !f.OK || f.Final != "1,234" {
			t.Fatalf("final %+v", f)
		}
	})
	t.Run("skipped", func(t *testing.T) {
		h := newHarness(t, []suites.Task{reportTask()}, profileWith(func(p *Profile) { p.EvaluateOnHungPages = 0 }))
		h.begin(goalReport, obs("/dashboard", "Dashboard", snapDash))
		if f := wantFinal(t, h.ask()); !f.OK || f.Final != "1,234" {
			t.Fatalf("final %+v", f)
		}
	})
}

const goalPlan = "Create a manual plan named Pilot with Run Automated as Manual disabled."

const snapPlanForm = `- generic [ref=e1]:
  - heading "New plan" [level=1] [ref=e2]
  - textbox "Title" [ref=e3]
  - generic [ref=e4]:
    - text: Run automated as manual
    - switch [checked] [ref=e5]
  - button "Save" [ref=e6]`

const snapPlanBoxes = `- generic [ref=e1] [box=0,0,1280,400]:
  - heading "New plan" [level=1] [ref=e2] [box=8,21,400,37]
  - textbox "Title" [ref=e3] [box=8,80,300,21]
  - generic [ref=e4] [box=8,135,400,18]:
    - text: Run automated as manual
    - switch [checked] [ref=e5] [box=178,146,16,6]
  - button "Save" [ref=e6] [box=8,200,60,21]`

func planTask() suites.Task {
	return suites.Task{ID: "planner-switch", App: "planner", Start: "/plans/new", Goal: goalPlan,
		Mutations: []string{"nameless_switch"},
		Solution: []suites.Step{
			{Kind: "fill", Target: &suites.Target{Role: "textbox", Name: "Title"}, Text: "Pilot"},
			{Kind: "visual_click", Target: &suites.Target{Role: "switch"}},
			{Kind: "click", Target: &suites.Target{Role: "button", Name: "Save"}},
		}}
}

func TestVisualClickSequence(t *testing.T) {
	for _, refresh := range []bool{false, true} {
		name := "no-refresh"
		if refresh {
			name = "stale-ref-refresh"
		}
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, []suites.Task{planTask()}, Clean())
			h.begin(goalPlan, obs("/plans/new", "New plan", snapPlanForm))
			wantCall(t, h.ask(), "browser_type")
			present := browser.Refs(snapPlanForm)
			guessErr := func(c openai.ToolCall) string {
				t.Helper()
				a := args(t, c)
				ref, _ := a["target"].(string)
				for _, r := range present {
					if r == ref {
						t.Fatalf("guessed ref %s is in the snapshot", ref)
					}
				}
				if a["element"] != "switch" {
					t.Fatalf("guess element %v", a)
				}
				s := "### Error\n" + browser.StaleRefMessage(ref)
				if refresh {
					s += "\n" + obs("/plans/new", "New plan", snapPlanForm)
				}
				return s
			}
			seen := map[string]bool{}
			names := func(m openai.ChatCompletionMessage) []string {
				var out []string
				for _, c := range m.ToolCalls {
					out = append(out, c.Function.Name)
					if c.Function.Name == "browser_click" {
						ref := args(t, c)["target"].(string)
						if seen[ref] {
							t.Fatalf("guess %s repeated", ref)
						}
						seen[ref] = true
					}
				}
				return out
			}
			// (1) two failed guesses and a snapshot with boxes.
			m := h.results(obs("/plans/new", "New plan", snapPlanForm))
			if got := names(m); !reflect.DeepEqual(got, []string{"browser_click", "browser_click", "browser_snapshot"}) {
				t.Fatalf("(1): %s", describe(m))
			}
			if args(t, m.ToolCalls[2])["boxes"] != true {
				t.Fatalf("(1) snapshot without boxes: %s", describe(m))
			}
			// (2) snapshot with boxes, one more failed guess, the visual click at the box centre.
			m = h.results(guessErr(m.ToolCalls[0]), guessErr(m.ToolCalls[1]), obs("/plans/new", "New plan", snapPlanBoxes))
			if got := names(m); !reflect.DeepEqual(got, []string{"browser_snapshot", "browser_click", "browser_mouse_click_xy"}) {
				t.Fatalf("(2): %s", describe(m))
			}
			if a := args(t, m.ToolCalls[2]); a["x"] != 186.0 || a["y"] != 149.0 {
				t.Fatalf("(2) visual click at %v, want the centre 186,149", a)
			}
			// (3) a failed verification guess and a snapshot.
			toggled := strings.Replace(snapPlanBoxes, "switch [checked]", "switch", 1)
			m = h.results(obs("/plans/new", "New plan", snapPlanBoxes), guessErr(m.ToolCalls[1]), "### Result\nClicked at (186, 149)")
			if got := names(m); !reflect.DeepEqual(got, []string{"browser_click", "browser_snapshot"}) {
				t.Fatalf("(3): %s", describe(m))
			}
			// (4) Save.
			m = h.results(guessErr(m.ToolCalls[0]), obs("/plans/new", "New plan", toggled))
			if a := wantCall(t, m, "browser_click"); a["target"] != "e6" || a["element"] != `button "Save"` {
				t.Fatalf("(4): %v", a)
			}
			if f := wantFinal(t, h.results(obs("/plans", "Plans", snapHome))); !f.OK {
				t.Fatalf("final %+v", f)
			}
		})
	}
}

func TestTargetMissingGivesUp(t *testing.T) {
	h := newHarness(t, []suites.Task{cartTask()}, Clean())
	h.begin(goalCart, obs("/cart", "Cart", snapLogin))
	for i := 0; i < maxLooks; i++ {
		wantCall(t, h.ask(), "browser_snapshot")
		h.feed(obs("/cart", "Cart", snapLogin))
	}
	f := wantFinal(t, h.ask())
	if f.OK || f.Error == nil || !strings.Contains(*f.Error, `button "Update"`) {
		t.Fatalf("final %+v", f)
	}
}

func TestElidedSnapshotsAndLatency(t *testing.T) {
	p := profileWith(func(p *Profile) { p.LatencyMS = Latency{Mean: 60, Jitter: 10} })
	h := newHarness(t, []suites.Task{cartTask()}, p)
	// The first observation's snapshot was elided by the loop: only the latest is whole.
	h.begin(goalCart, "### Page\n- Page URL: "+origin+"/cart\n- Page Title: Cart\n### Snapshot\n[snapshot elided]")
	h.msgs = append(h.msgs,
		openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "call_x", Type: "function",
			Function: openai.FunctionCall{Name: "browser_snapshot", Arguments: "{}"}}}},
		openai.ChatCompletionMessage{Role: "tool", ToolCallID: "call_x", Content: obs("/cart", "Cart", snapCart2)})
	start := time.Now()
	a := wantCall(t, h.ask(), "browser_click")
	if a["target"] != "e8" {
		t.Fatalf("click %v", a)
	}
	if d := time.Since(start); d < 45*time.Millisecond {
		t.Fatalf("latency %v, want ≥ 50 ms", d)
	}
}

func TestPrefixedToolNames(t *testing.T) {
	h := newHarness(t, []suites.Task{shopTask()}, Clean())
	for i := range h.tools {
		h.tools[i].Function.Name = "mcp__playwright__" + h.tools[i].Function.Name
	}
	h.begin(goalShop, obs("/", "Shop", snapHome))
	wantCall(t, h.ask(), "mcp__playwright__browser_click")
	// The prefixed call in the history is recognised: the plan moves on to the colour.
	if a := wantCall(t, h.results(obs("/product/ym-01", "Yoga Mat", snapProduct)), "mcp__playwright__browser_click"); a["element"] != `radio "Blue"` {
		t.Fatalf("second call %v", a)
	}
}

func TestSectionHeaders(t *testing.T) {
	for text, want := range map[string]bool{
		"### Result\n\"ok\"\n### Repeated call\nStop.":   true,
		"### Result\nok\n### Repeated call (3rd)\nStop.": true,
		"### Result\nthe text ### Repeated call":         false,
		"### Repeated calls":                             false,
	} {
		if got := browser.ParseResult(text).HasNote(guard.RepeatNote); got != want {
			t.Errorf("HasNote(%q) = %v", text, got)
		}
	}
}

// A click that "succeeded" but left the page where it was (a click lost to a re-render), with the
// next step's target missing and the clicked link still there: the policy clicks it again once, on its ref in
// the latest snapshot, as a model that sees the page did not change would; a second unchanged click is followed
// by the usual looks and the give-up. A click that moved the page on is never repeated.
func TestUnchangedClickRetried(t *testing.T) {
	churned := strings.ReplaceAll(strings.ReplaceAll(snapResults, "ref=e3", "ref=e13"), "ref=e4", "ref=e14")
	h := newHarness(t, []suites.Task{qaTask()}, Clean())
	h.begin(goalQA, obs("/search?q=soup", "Results", snapResults))
	if a := wantCall(t, h.ask(), "browser_click"); a["target"] != "e3" {
		t.Fatalf("first click %v", a)
	}
	// The click's result: no error, same URL, the results re-rendered (fresh refs), no recipe.
	again := h.results(obs("/search?q=soup", "Results", churned))
	if a := wantCall(t, again, "browser_click"); a["target"] != "e13" || a["element"] != `link "Tomato Soup"` {
		t.Fatalf("retry %v", a)
	}
	// Unchanged again: no more retries; look, then give up.
	wantCall(t, h.results(obs("/search?q=soup", "Results", churned)), "browser_snapshot")

	// The same click taking the page to the recipe goes straight on.
	h2 := newHarness(t, []suites.Task{qaTask()}, Clean())
	h2.begin(goalQA, obs("/search?q=soup", "Results", snapResults))
	wantCall(t, h2.ask(), "browser_click")
	if f := wantFinal(t, h2.results(obs("/recipe/tomato-soup", "Tomato Soup", snapRecipe))); !f.OK || f.Final != "4.6" {
		t.Fatalf("final %+v", f)
	}
	// A click that navigated elsewhere (the recipe page without the rating) is not retried: the policy looks.
	h3 := newHarness(t, []suites.Task{qaTask()}, Clean())
	h3.begin(goalQA, obs("/search?q=soup", "Results", snapResults))
	wantCall(t, h3.ask(), "browser_click")
	wantCall(t, h3.results(obs("/recipe/tomato-soup", "Tomato Soup", snapResults)), "browser_snapshot")
	// Same URL, but the page changed beyond its refs (a line added): the click did something, so the policy
	// reads the page (a snapshot) instead of clicking again.
	h4 := newHarness(t, []suites.Task{qaTask()}, Clean())
	h4.begin(goalQA, obs("/search?q=soup", "Results", snapResults))
	wantCall(t, h4.ask(), "browser_click")
	changed := churned + "\n- status: Filters applied"
	wantCall(t, h4.results(obs("/search?q=soup", "Results", changed)), "browser_snapshot")
}
