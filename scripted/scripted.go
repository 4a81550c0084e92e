// Package scripted is the scripted policy: an HTTP server on loopback that speaks the OpenAI chat-completions
// protocol and plays the solutions of known tasks, with the failure modes of the seeds switched on by a fault
// profile (ZOO.md "The scripted policy"). The agent talks to it through go-openai exactly as to a real model;
// it reads only what a model would read — the messages and the tool list — and is reproducible under the
// request's seed.
//
// Endpoints: POST /v1/chat/completions (OpenAI's request and chat.completion response; with "stream": true the
// same reply as OpenAI's documented chunk stream, stream.go) and GET /v1/models. Bad requests get HTTP 400 with OpenAI's error shape
// {"error": {"message", "type", "param", "code"}}.
//
// What the policy reads (the contract with the agent loop):
//   - the task: the first user message starts "Task: <goal>", then a blank line and the first observation;
//     the goal is matched exactly against the tasks' goals (an unknown goal is answered with
//     {"ok": false, …, "error": "unknown task"}); an external agent may instead send a first user
//     message with the goal alone (trimmed, exact) or "Task: <goal>" with no observation: then, while the
//     conversation has shown no page, the policy first asks for browser_snapshot (at most maxEmptyLooks times)
//     and the first page shown stands for the first observation; failing that, the longest task goal found
//     verbatim in a system, developer or user message before the first assistant message (an agent that wraps
//     the goal in its own words or its system prompt) is the task, played the same way;
//   - every user and tool message read back into a result with browser.ParseResult (the inverse of the agent's
//     formatting; the policy has only the text, as a model does): the latest snapshot is the last whole one of
//     any such message, the page URL the last one shown;
//   - a request with no known task that offers the tool llm.PreflightTool is the endpoint preflight
//     (llm.Client.Preflight, bench doctor): it is answered with a call of that tool, {"ok": true};
//   - its own tool calls and their results (role "tool", matched by tool_call_id): a result is a failure when
//     it has an Error. The guards' texts it recognises are the guards' own constants (agent/guard). Element tools carry Playwright MCP's `element` description (`role "name"`),
//     which is how the policy later recognises which solution step a call was for.
//
// Determinism: every draw uses a PRNG seeded from (request seed, step = number of assistant messages so far,
// purpose); "per attempt" draws use step -1. The same conversation and seed give the same reply.
package scripted

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"webbench/suites"

	openai "github.com/sashabaranov/go-openai"
)

// ModelName is the model id GET /v1/models lists. Requests may name any model; the reply echoes it.
const ModelName = "scripted"

// maxBody bounds a request body (a long conversation with whole snapshots stays far below it).
const maxBody = 64 << 20

// Server is the scripted policy's HTTP server. It is an http.Handler; Start serves it on a loopback port.
// Safe for concurrent use: it keeps no per-conversation state.
type Server struct {
	tasks map[string]*suites.Task
	prof  Profile

	mu  sync.Mutex
	srv *http.Server
	ln  net.Listener
}

// New builds a policy server for tasks (recognised by their goal text, trimmed; when two tasks share a goal
// the first wins) playing under fault profile p.
func New(tasks []suites.Task, p Profile) *Server {
	s := &Server{tasks: map[string]*suites.Task{}, prof: p}
	for i := range tasks {
		g := strings.TrimSpace(tasks[i].Goal)
		if _, dup := s.tasks[g]; !dup && g != "" {
			t := tasks[i]
			s.tasks[g] = &t
		}
	}
	return s
}

// Profile returns the server's fault profile.
func (s *Server) Profile() Profile { return s.prof }

// Start listens on addr ("127.0.0.1:0" for a random port) and serves in the background. It returns the base
// URL including /v1, e.g. "http://127.0.0.1:41234/v1", for llm.Config.BaseURL.
func (s *Server) Start(addr string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return "", errors.New("scripted: server already started")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("scripted: listen %s: %w", addr, err)
	}
	s.ln = ln
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func(srv *http.Server) { _ = srv.Serve(ln) }(s.srv)
	return "http://" + ln.Addr().String() + "/v1", nil
}

// StartLoopback loads the fault profile named by profile (a bundled name or a file path, as LoadProfile), builds
// the policy server for tasks and starts it on a random loopback port: the one way the runner (and tests) stand
// the scripted policy up. It returns the server (Close it) and its base URL including /v1; errors are
// LoadProfile's or Start's.
func StartLoopback(tasks []suites.Task, profile string) (*Server, string, error) {
	prof, err := LoadProfile(profile)
	if err != nil {
		return nil, "", err
	}
	srv := New(tasks, prof)
	url, err := srv.Start("127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	return srv, url, nil
}

// Close stops the server (open requests are cut). Safe to call twice or without Start.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		return nil
	}
	err := s.srv.Close()
	s.srv, s.ln = nil, nil
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// ServeHTTP routes /v1/chat/completions and /v1/models (also without the /v1 prefix).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	path = strings.TrimPrefix(path, "/v1")
	switch path {
	case "/chat/completions":
		if r.Method != http.MethodPost {
			writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "use POST for /v1/chat/completions")
			return
		}
		s.chat(w, r)
	case "/models":
		if r.Method != http.MethodGet {
			writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "use GET for /v1/models")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []map[string]any{
			{"id": ModelName, "object": "model", "created": 0, "owned_by": modelsOwner}}})
	default:
		writeError(w, http.StatusNotFound, "invalid_request_error", "unknown endpoint "+r.URL.Path)
	}
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "reading the body: "+err.Error())
		return
	}
	if len(body) > maxBody {
		writeError(w, http.StatusRequestEntityTooLarge, "invalid_request_error", "request body too large")
		return
	}
	var req openai.ChatCompletionRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid JSON body: "+err.Error())
		return
	}
	if err := validate(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	c := readConv(&req, s.tasks, s.prof)
	rep := c.decide()
	if d := c.latency(); d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	if req.Stream {
		writeStream(w, c.response(&req, rep), req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
		return
	}
	writeJSON(w, http.StatusOK, c.response(&req, rep))
}

func validate(req *openai.ChatCompletionRequest) error {
	if len(req.Messages) == 0 {
		return errors.New("'messages' must be a non-empty array")
	}
	for i, m := range req.Messages {
		switch m.Role {
		case openai.ChatMessageRoleSystem, openai.ChatMessageRoleUser, openai.ChatMessageRoleAssistant,
			openai.ChatMessageRoleTool, openai.ChatMessageRoleDeveloper:
		default:
			return fmt.Errorf("messages[%d]: invalid role %q", i, m.Role)
		}
		if m.Role == openai.ChatMessageRoleTool && m.ToolCallID == "" {
			return fmt.Errorf("messages[%d]: a tool message needs tool_call_id", i)
		}
	}
	for i, t := range req.Tools {
		if t.Function == nil || t.Function.Name == "" {
			return fmt.Errorf("tools[%d]: a function tool needs a name", i)
		}
	}
	return nil
}

// latency is the simulated delay of this call (zero unless the profile sets latency_ms).
func (c *conv) latency() time.Duration {
	l := c.prof.LatencyMS
	if l.Mean <= 0 && l.Jitter <= 0 {
		return 0
	}
	ms := l.Mean + (2*c.rng("latency", false).Float64()-1)*l.Jitter
	if ms <= 0 {
		return 0
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// Wire types of the response, so that content is null next to tool calls (as OpenAI sends it) and "" for an
// empty reply.
type respMessage struct {
	Role      string            `json:"role"`
	Content   *string           `json:"content"`
	ToolCalls []openai.ToolCall `json:"tool_calls,omitempty"`
}

type respChoice struct {
	Index        int         `json:"index"`
	Message      respMessage `json:"message"`
	FinishReason string      `json:"finish_reason"`
	Logprobs     any         `json:"logprobs"`
}

type respUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type response struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	Choices           []respChoice `json:"choices"`
	Usage             respUsage    `json:"usage"`
	SystemFingerprint string       `json:"system_fingerprint"`
}

// response builds the chat.completion object. Ids derive from (seed, step); tokens are estimated as bytes/4
// of the messages' text and tool-call arguments plus the tool definitions (prompt) and of the reply's content
// and tool calls (completion).
func (c *conv) response(req *openai.ChatCompletionRequest, rep reply) response {
	msg := respMessage{Role: openai.ChatMessageRoleAssistant}
	completion := len(rep.content)
	for j, tc := range rep.calls {
		args, _ := json.Marshal(tc.args)
		name := c.wireName(tc.name)
		msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{ID: "call_" + c.id(fmt.Sprint("call", j), 12),
			Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: string(args)}})
		completion += len(name) + len(args)
	}
	finish := "stop"
	if len(rep.calls) > 0 {
		finish = "tool_calls"
	} else {
		content := rep.content
		msg.Content = &content
	}
	prompt := 0
	for i, m := range req.Messages {
		prompt += len(c.texts[i])
		for _, tc := range m.ToolCalls {
			prompt += len(tc.Function.Name) + len(tc.Function.Arguments)
		}
	}
	if len(req.Tools) > 0 {
		b, _ := json.Marshal(req.Tools)
		prompt += len(b)
	}
	pt, ct := tokens(prompt), tokens(completion)
	model := req.Model
	if model == "" {
		model = ModelName
	}
	return response{ID: "chatcmpl-" + c.id("response", 24), Object: "chat.completion", Created: time.Now().Unix(),
		Model: model, Choices: []respChoice{{Index: 0, Message: msg, FinishReason: finish}},
		Usage: respUsage{PromptTokens: pt, CompletionTokens: ct, TotalTokens: pt + ct}, SystemFingerprint: "scripted"}
}

func tokens(bytes int) int {
	if bytes <= 0 {
		return 0
	}
	return (bytes + 3) / 4
}

// id is a deterministic hex id of n characters from (seed, step, what).
func (c *conv) id(what string, n int) string {
	h := fnv.New128a()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(c.seed))
	binary.LittleEndian.PutUint64(b[8:], uint64(c.step))
	h.Write(b[:])
	h.Write([]byte(what))
	return hex.EncodeToString(h.Sum(nil))[:n]
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers in OpenAI's error shape.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil,
		"code": nil}})
}

var _ http.Handler = (*Server)(nil)
