package scripted

import (
	"reflect"
	"testing"

	"webbench/suites"

	openai "github.com/sashabaranov/go-openai"
)

func TestAppRootAndGuesses(t *testing.T) {
	for _, tc := range []struct{ first, start, step, want string }{
		{"http://h:1/t/abc/shop/", "/", "/cart", "http://h:1/t/abc/shop/cart"},
		{"http://h:1/t/abc/shop", "/", "cart", "http://h:1/t/abc/shop/cart"},
		{"http://h:1/t/abc/recipes/search?q=soup", "/search?q=soup", "/recipe/7", "http://h:1/t/abc/recipes/recipe/7"},
		{"http://h:1/t/abc/chat/login?next=%2F", "/channels/town", "/channels/town", "http://h:1/t/abc/chat/channels/town"},
		{"https://www.allrecipes.com/", "https://www.allrecipes.com/", "/search", "https://www.allrecipes.com/search"},
		{"http://h:1/t/abc/shop/", "/", "https://example.test/x", "https://example.test/x"},
	} {
		c := &conv{task: &suites.Task{Start: tc.start}, firstURL: tc.first}
		if got := c.resolveURL(tc.step); got != tc.want {
			t.Errorf("first %s start %s: resolve(%s) = %s, want %s", tc.first, tc.start, tc.step, got, tc.want)
		}
	}
	c := &conv{snapshot: parseSnapshot("- button \"A\" [ref=f1e3]\n- button \"B\" [ref=f1e30]\n- button \"C\" [ref=f1e31]")}
	used := map[string]bool{}
	var got []string
	for i := 0; i < 12; i++ {
		g := c.guessRef("f1e3", used)
		used[g] = true
		got = append(got, g)
	}
	// e30 and e31 exist: the digit typos skip them; then the guesses go past the snapshot's refs.
	want := []string{"f1e32", "f1e33", "f1e34", "f1e35", "f1e36", "f1e37", "f1e38", "f1e39", "f1e40", "f1e41",
		"f1e42", "f1e43"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("guesses %v, want %v", got, want)
	}
}

// TestBareGoalAsksForSnapshotFirst: an external agent's first user message may hold the goal alone, or
// "Task: <goal>" with no observation; the policy asks for a snapshot, then plays the solution
// from the page that snapshot shows, as from a first observation.
func TestBareGoalAsksForSnapshotFirst(t *testing.T) {
	for _, first := range []string{goalShop, "  " + goalShop + "\n", "Task: " + goalShop, "Task: " + goalShop + "\n\n"} {
		h := newHarness(t, []suites.Task{qaTask(), shopTask()}, Clean())
		h.msgs = []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: first}}
		if a := wantCall(t, h.ask(), "browser_snapshot"); len(a) != 0 {
			t.Fatalf("%q: snapshot args %v", first, a)
		}
		a := wantCall(t, h.results(obs("/", "Shop", snapHome)), "browser_click")
		if a["target"] != "e6" || a["element"] != `link "Yoga Mat"` {
			t.Fatalf("%q: first action %v", first, a)
		}
	}

	// A navigate step resolves against the page the first snapshot showed (the app root under the tenant).
	task := suites.Task{ID: "nav", Goal: "Open the cart.", Start: "/search?q=mat",
		Solution: []suites.Step{{Kind: "navigate", URL: "/cart"}}}
	h := newHarness(t, []suites.Task{task}, Clean())
	h.msgs = []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: "An agent."},
		{Role: openai.ChatMessageRoleUser, Content: task.Goal}}
	wantCall(t, h.ask(), "browser_snapshot")
	if a := wantCall(t, h.results(obs("/search?q=mat", "Search", snapHome)), "browser_navigate"); a["url"] != origin+"/cart" {
		t.Fatalf("navigate url %v, want %s", a["url"], origin+"/cart")
	}
	f := wantFinal(t, h.results(obs("/cart", "Cart", snapCheckout)))
	if !f.OK || f.Page != origin+"/cart" || f.Final != "Completed the task: "+task.Goal {
		t.Fatalf("final %+v", f)
	}

	// Snapshots that keep failing: the policy asks maxEmptyLooks times, then gives up as on an empty page.
	h = newHarness(t, []suites.Task{shopTask()}, Clean())
	h.msgs = []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: goalShop}}
	m := h.ask()
	for i := 1; i < maxEmptyLooks; i++ {
		m = h.results("### Error\nbrowser is busy")
		wantCall(t, m, "browser_snapshot")
	}
	if f := wantFinal(t, h.results("### Error\nbrowser is busy")); f.OK || f.Error == nil || *f.Error != giveUpEmpty {
		t.Fatalf("after %d failed looks: %+v", maxEmptyLooks, f)
	}

	// An unknown goal alone is refused like an unknown "Task: " message; the goal alone counts only in the
	// first user message.
	h = newHarness(t, []suites.Task{shopTask()}, Clean())
	h.msgs = []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "Buy two Yoga Mats."}}
	if f := wantFinal(t, h.ask()); f.OK || f.Error == nil || *f.Error != "unknown task" {
		t.Fatalf("unknown bare goal: %+v", f)
	}
	// A goal the agent wraps in its own words, or sends in a later user message or the system prompt before
	// the model's first reply, is found verbatim inside it (conv.goalWithin): the policy asks for a snapshot,
	// then plays the task.
	for _, msgs := range [][]openai.ChatCompletionMessage{
		{{Role: openai.ChatMessageRoleUser, Content: "Hello."}, {Role: openai.ChatMessageRoleUser, Content: goalShop}},
		{{Role: openai.ChatMessageRoleUser, Content: "Your task: " + goalShop + " Use the browser tools, then answer in JSON."}},
		{{Role: openai.ChatMessageRoleSystem, Content: "You are a web agent.\nTASK:\n" + goalShop + "\n"},
			{Role: openai.ChatMessageRoleUser, Content: "Begin."}},
	} {
		h = newHarness(t, []suites.Task{qaTask(), shopTask()}, Clean())
		h.msgs = msgs
		wantCall(t, h.ask(), "browser_snapshot")
		if a := wantCall(t, h.results(obs("/", "Shop", snapHome)), "browser_click"); a["target"] != "e6" {
			t.Fatalf("%q: first action %v", msgs[len(msgs)-1].Content, a)
		}
	}
	// A goal only after the model's first reply is not the task (the conversation began without one).
	h = newHarness(t, []suites.Task{shopTask()}, Clean())
	h.msgs = []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "Hello."},
		{Role: openai.ChatMessageRoleAssistant, Content: "Hi."}, {Role: openai.ChatMessageRoleUser, Content: goalShop}}
	if f := wantFinal(t, h.ask()); f.OK || f.Error == nil || *f.Error != "unknown task" {
		t.Fatalf("goal after the first reply: %+v", f)
	}
}
