package agents_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The contract tests run each reference agent against an MCP server of the official Go SDK with one tool (echo)
// and a fake chat-completions endpoint that plays a script and records every request, so that what the agent
// sends (OpenAI's request body, https://platform.openai.com/docs/api-reference/chat/create: model, messages,
// tools, seed, temperature, top_p, max_tokens; the bearer token) and what it does with MCP results and its guards
// is checked against the documented shapes. No browser is involved.

// Texts of webbench's built-in guards the agents reuse (agent/guard/final_recovery.go, repeat_guard.go).
const (
	recoveryPhrase    = "Tools are disabled now"
	stepLimitPrefix   = "The step limit has been reached. "
	repeatNoteHeading = "### Repeated call"
	repeatSystem      = "You have repeated the same tool call several times"
)

var echoSchema = map[string]any{"type": "object", "properties": map[string]any{
	"text": map[string]any{"type": "string", "description": "what to echo"},
	"fail": map[string]any{"type": "boolean"}}}

// fakeMCP serves the echo tool over Streamable HTTP: it answers two text parts, "echo: TEXT" and "second part",
// and with fail=true an isError result "### Error\nfailed as asked". It counts the calls.
type fakeMCP struct {
	url   string
	mu    sync.Mutex
	calls int
}

func newFakeMCP(t *testing.T) *fakeMCP {
	f := &fakeMCP{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "fake", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", Description: "Echo the text.", InputSchema: echoSchema},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			f.mu.Lock()
			f.calls++
			f.mu.Unlock()
			var a struct {
				Text string `json:"text"`
				Fail bool   `json:"fail"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &a)
			if a.Fail {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "### Error\nfailed as asked"}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + a.Text},
				&mcp.TextContent{Text: "second part"}}}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	f.url = hs.URL + "/mcp"
	return f
}

func (f *fakeMCP) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// chatReq is one recorded chat request: its body and its Authorization header.
type chatReq struct {
	body map[string]any
	auth string
}

func (r chatReq) messages() []map[string]any {
	var out []map[string]any
	for _, m := range r.body["messages"].([]any) {
		out = append(out, m.(map[string]any))
	}
	return out
}

func (r chatReq) last() map[string]any { m := r.messages(); return m[len(m)-1] }

// fakeChat answers POST /v1/chat/completions with script(n, request) as the assistant message (n from 0).
func fakeChat(t *testing.T, script func(n int, r chatReq) map[string]any) (string, *[]chatReq) {
	var mu sync.Mutex
	var reqs []chatReq
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.Error(w, "no such endpoint", http.StatusNotFound)
			return
		}
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		cr := chatReq{body: body, auth: r.Header.Get("Authorization")}
		reqs = append(reqs, cr)
		n := len(reqs) - 1
		mu.Unlock()
		msg := script(n, cr)
		msg["role"] = "assistant"
		finish := "stop"
		if msg["tool_calls"] != nil {
			finish = "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 0,
			"model": body["model"], "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage": map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
	}))
	t.Cleanup(hs.Close)
	return hs.URL + "/v1", &reqs
}

func toolCalls(calls ...[2]string) map[string]any {
	var tc []any
	for i, c := range calls {
		tc = append(tc, map[string]any{"id": "call_" + string(rune('a'+i)), "type": "function",
			"function": map[string]any{"name": c[0], "arguments": c[1]}})
	}
	return map[string]any{"content": nil, "tool_calls": tc}
}

func content(s string) map[string]any { return map[string]any{"content": s} }

// agentCommands are the two reference agents; the Node one needs `make agents`.
func agentCommands(t *testing.T) map[string][]string {
	nodeMain, _ := filepath.Abs(filepath.Join("node", "dist", "agent.js"))
	if _, err := os.Stat(nodeMain); err != nil {
		if testing.Short() {
			t.Skip("examples/agents/node/dist/agent.js is missing (run `make agents`); skipped under -short")
		}
		t.Fatalf("%s is missing: run `make agents` (make test does): %v", nodeMain, err)
	}
	py, _ := filepath.Abs(filepath.Join("python", "agent.py"))
	return map[string][]string{"node": {"node", nodeMain}, "python": {"python3", py}}
}

// runAgent runs an agent with env (on top of a clean environment) and returns its exit code, last stdout line
// parsed as JSON (nil when it is not), and stderr.
func runAgent(t *testing.T, cmd []string, env map[string]string) (int, map[string]any, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, cmd[0], cmd[1:]...)
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range env {
		c.Env = append(c.Env, k+"="+v)
	}
	var out, errb strings.Builder
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", cmd, err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	var final map[string]any
	if json.Unmarshal([]byte(lines[len(lines)-1]), &final) != nil {
		final = nil
	}
	return code, final, errb.String()
}

func baseEnv(mcpURL, chatURL string) map[string]string {
	return map[string]string{"WEBBENCH_MCP_URL": mcpURL, "WEBBENCH_BASE_URL": chatURL, "WEBBENCH_MODEL": "m-1",
		"WEBBENCH_GOAL": "Echo hi.", "WEBBENCH_SEED": "42",
		"WEBBENCH_DEADLINE": time.Now().Add(time.Minute).UTC().Format(time.RFC3339)}
}

func TestAgentContract(t *testing.T) {
	for name, cmd := range agentCommands(t) {
		t.Run(name, func(t *testing.T) {
			// The agents' subtests share nothing (each its own fake servers and agent process): the two agents
			// run side by side.
			t.Parallel()
			t.Run("request-tools-results-final", func(t *testing.T) {
				m := newFakeMCP(t)
				url, reqs := fakeChat(t, func(n int, r chatReq) map[string]any {
					if n == 0 {
						return toolCalls([2]string{"echo", `{"text":"hi"}`}, [2]string{"echo", `{"fail":true}`})
					}
					return content("```json\n{\"ok\": true, \"final\": \"hi\", \"page\": \"http://x/\", \"error\": null, \"extra\": 1}\n```")
				})
				env := baseEnv(m.url, url)
				env["OPENAI_API_KEY"], env["WEBBENCH_TEMPERATURE"], env["WEBBENCH_TOP_P"], env["WEBBENCH_MAX_TOKENS"] = "sk-test", "0.5", "0.9", "256"
				code, final, stderr := runAgent(t, cmd, env)
				if code != 0 || final == nil {
					t.Fatalf("exit %d, final %v\n%s", code, final, stderr)
				}
				// A final JSON reply passes through as the last stdout line, fence removed, keys kept.
				if want := map[string]any{"ok": true, "final": "hi", "page": "http://x/", "error": nil, "extra": 1.0}; !reflect.DeepEqual(final, want) {
					t.Fatalf("final %v, want %v", final, want)
				}
				if strings.Contains(stderr, "sk-test") {
					t.Fatal("the API key reached stderr")
				}
				if len(*reqs) != 2 || m.count() != 2 {
					t.Fatalf("%d chat requests, %d tool calls; want 2, 2", len(*reqs), m.count())
				}
				r0 := (*reqs)[0]
				for k, v := range map[string]any{"model": "m-1", "seed": 42.0, "temperature": 0.5, "top_p": 0.9, "max_tokens": 256.0} {
					if r0.body[k] != v {
						t.Errorf("request %s = %v, want %v", k, r0.body[k], v)
					}
				}
				if r0.auth != "Bearer sk-test" {
					t.Errorf("Authorization %q", r0.auth)
				}
				// The MCP tool offered as an OpenAI function tool: name, description, inputSchema as parameters.
				wantTools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "echo",
					"description": "Echo the text.", "parameters": echoSchema}}}
				if got, _ := json.Marshal(r0.body["tools"]); string(got) != mustJSON(wantTools) {
					t.Errorf("tools %s, want %s", got, mustJSON(wantTools))
				}
				if u := r0.last(); u["role"] != "user" || !strings.Contains(u["content"].(string), "Echo hi.") {
					t.Errorf("first request's last message %v", u)
				}
				// Each call's result is a tool message with its id: text parts joined, an isError result too.
				msgs := (*reqs)[1].messages()
				tm := msgs[len(msgs)-2:]
				if tm[0]["role"] != "tool" || tm[0]["tool_call_id"] != "call_a" || tm[0]["content"] != "echo: hi\nsecond part" ||
					tm[1]["role"] != "tool" || tm[1]["tool_call_id"] != "call_b" || tm[1]["content"] != "### Error\nfailed as asked" {
					t.Errorf("tool messages %v", tm)
				}
				if a := msgs[len(msgs)-3]; a["role"] != "assistant" || len(a["tool_calls"].([]any)) != 2 {
					t.Errorf("assistant message %v", a)
				}
			})

			t.Run("no-key-prose-recovered", func(t *testing.T) {
				m := newFakeMCP(t)
				url, reqs := fakeChat(t, func(n int, r chatReq) map[string]any {
					if n == 0 {
						return content("I echoed it.")
					}
					return content(`{"ok": true, "final": "recovered", "page": "", "error": null}`)
				})
				code, final, stderr := runAgent(t, cmd, baseEnv(m.url, url))
				if code != 0 || final == nil || final["final"] != "recovered" || len(*reqs) != 2 {
					t.Fatalf("exit %d final %v requests %d\n%s", code, final, len(*reqs), stderr)
				}
				if a := (*reqs)[0].auth; a != "" {
					t.Errorf("Authorization %q without OPENAI_API_KEY", a)
				}
				r1 := (*reqs)[1]
				if r1.body["tools"] != nil || r1.last()["role"] != "user" || !strings.HasPrefix(r1.last()["content"].(string), recoveryPhrase) {
					t.Errorf("recovery request: tools %v, last %v", r1.body["tools"], r1.last())
				}
			})

			t.Run("prose-final-recovery-off", func(t *testing.T) {
				m := newFakeMCP(t)
				url, reqs := fakeChat(t, func(int, chatReq) map[string]any { return content("I echoed it.") })
				env := baseEnv(m.url, url)
				env["WEBBENCH_GUARDS"] = "final_recovery=off"
				code, final, stderr := runAgent(t, cmd, env)
				if code != 0 || final == nil || len(*reqs) != 1 {
					t.Fatalf("exit %d final %v requests %d\n%s", code, final, len(*reqs), stderr)
				}
				if final["ok"] != false || final["final"] != "I echoed it." || final["error"] == nil {
					t.Errorf("wrapped prose %v", final)
				}
			})

			t.Run("repeat-guard-failing-call", func(t *testing.T) {
				for _, on := range []bool{true, false} {
					m := newFakeMCP(t)
					url, reqs := fakeChat(t, func(n int, r chatReq) map[string]any {
						if r.body["tools"] == nil {
							return content(`{"ok": false, "final": "", "page": "", "error": "gave up"}`)
						}
						// The failing call, and a successful action that differs each time (no stall, no identical streak).
						return toolCalls([2]string{"echo", `{"fail":true}`}, [2]string{"echo", `{"text":"` + strconv.Itoa(n) + `"}`})
					})
					env := baseEnv(m.url, url)
					env["WEBBENCH_MAX_STEPS"] = "6"
					env["WEBBENCH_GUARDS"] = "repeat_guard=" + map[bool]string{true: "on", false: "off"}[on]
					code, final, stderr := runAgent(t, cmd, env)
					if code != 0 || final == nil || final["error"] != "gave up" {
						t.Fatalf("repeat_guard %v: exit %d final %v\n%s", on, code, final, stderr)
					}
					// 6 steps with tools, then final_recovery's step-limit request without tools.
					if len(*reqs) != 7 || (*reqs)[6].body["tools"] != nil ||
						!strings.HasPrefix((*reqs)[6].last()["content"].(string), stepLimitPrefix+recoveryPhrase) {
						t.Fatalf("repeat_guard %v: %d requests, last %v", on, len(*reqs), (*reqs)[len(*reqs)-1].last())
					}
					var failTexts []string
					for _, msg := range (*reqs)[6].messages() {
						if msg["role"] == "tool" && msg["tool_call_id"] == "call_a" {
							failTexts = append(failTexts, msg["content"].(string))
						}
					}
					want := []string{}
					for i := 0; i < 6; i++ {
						if on && i >= 3 {
							want = append(want, "### Error\nNot run: this identical call failed 3 times in a row. Do something different.")
						} else {
							want = append(want, "### Error\nfailed as asked")
						}
					}
					// On: the failing call runs 3 times, then is not run again; off: all 6 times. The other call
					// runs every time.
					if wantCalls := map[bool]int{true: 9, false: 12}[on]; m.count() != wantCalls || !reflect.DeepEqual(failTexts, want) {
						t.Errorf("repeat_guard %v: %d MCP calls (want %d), failing call's results %q", on, m.count(), wantCalls, failTexts)
					}
				}
			})

			t.Run("repeat-guard-withholds-tools", func(t *testing.T) {
				m := newFakeMCP(t)
				url, reqs := fakeChat(t, func(n int, r chatReq) map[string]any {
					if r.body["tools"] == nil {
						return content(`{"ok": true, "final": "hi", "page": "", "error": null}`)
					}
					return toolCalls([2]string{"echo", `{"text":"hi"}`})
				})
				code, final, stderr := runAgent(t, cmd, baseEnv(m.url, url))
				if code != 0 || final == nil || final["final"] != "hi" {
					t.Fatalf("exit %d final %v\n%s", code, final, stderr)
				}
				// After the 5th identical call with an identical result: one request without tools, the system
				// section last.
				if len(*reqs) != 6 || m.count() != 5 || (*reqs)[5].body["tools"] != nil ||
					(*reqs)[5].last()["role"] != "system" || !strings.HasPrefix((*reqs)[5].last()["content"].(string), repeatSystem) {
					t.Fatalf("%d requests, %d calls, last %v", len(*reqs), m.count(), (*reqs)[len(*reqs)-1].last())
				}
				// The note from the 3rd identical result on, not before.
				var notes []bool
				for _, msg := range (*reqs)[5].messages() {
					if msg["role"] == "tool" {
						notes = append(notes, strings.Contains(msg["content"].(string), repeatNoteHeading+"\nThis call repeats the previous ones"))
					}
				}
				if !reflect.DeepEqual(notes, []bool{false, false, true, true, true}) {
					t.Errorf("notes on the 5 results: %v", notes)
				}
			})

			t.Run("unknown-guard-and-no-server", func(t *testing.T) {
				env := baseEnv("http://127.0.0.1:1/mcp", "http://127.0.0.1:1/v1")
				env["WEBBENCH_GUARDS"] = "no_such_guard=on"
				if code, final, stderr := runAgent(t, cmd, env); code == 0 || final != nil || !strings.Contains(stderr, "no_such_guard") {
					t.Errorf("unknown guard: exit %d final %v stderr %s", code, final, stderr)
				}
				delete(env, "WEBBENCH_GUARDS")
				if code, final, _ := runAgent(t, cmd, env); code == 0 || final != nil {
					t.Errorf("unreachable MCP server: exit %d final %v", code, final)
				}
			})
		})
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
