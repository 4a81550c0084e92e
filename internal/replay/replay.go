// Package replay is a loopback HTTP server that speaks the OpenAI chat-completions protocol with the exact
// response shapes of real model servers (vLLM, Ollama, llama.cpp, LM Studio, OpenRouter, Together, Groq,
// Cerebras, DeepSeek, Azure OpenAI, OpenAI, HF TGI, and the Anthropic and Gemini compatibility layers), recorded
// from their public documentation, source code and issue threads (testdata/shapes/*.json, each with its source).
//
// It serves a recorded Shape (status, headers, body byte for byte) chosen by the request's model name or by the
// Nth call (Route), with "then" sequences (a 429 followed by a 200) to exercise retries. A request that matches no
// shape is proxied to an upstream OpenAI-compatible server (webbench's scripted policy) and its reply rewritten
// by a named Transform into a provider's shape (reasoning in reasoning_content, <think> blocks, object tool
// arguments, no usage, Gemini thought signatures, …); the next request is checked for what that provider needs
// echoed back (DeepSeek's reasoning_content, Gemini's extra_content), and answered with the provider's own 400
// when it is missing. It keeps a log of received requests and counts concurrent requests, for tests.
//
// Routes: POST /v1/chat/completions, GET /v1/models. Any path outside /v1 is answered as a server whose base URL
// was given without /v1 answers it (Go/Gin's plain-text "404 page not found").
package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Shape is one recorded reply of a real server: what it sends (status, headers, body exactly as documented)
// and what webbench's client must make of it (Expect). Shapes are stored one per JSON file.
type Shape struct {
	// Name identifies the shape; a request whose model is Name is answered with it.
	Name string `json:"name"`
	// Provider is the server or service the shape comes from ("vllm", "ollama", "openai", …).
	Provider string `json:"provider"`
	// Source is where the exact body and headers come from: a URL, "owner/repo path" (with commit when known),
	// or an issue thread.
	Source string `json:"source"`
	// SourceNote says what of the shape is not verbatim from Source (filled-in ids, a model name, a reconstruction
	// from the code that builds the body), or why the exact text could not be found.
	SourceNote string `json:"source_note,omitempty"`
	// Status is the HTTP status sent (default 200).
	Status int `json:"status,omitempty"`
	// Headers are sent as given (e.g. Retry-After). Content-Type defaults to application/json when Body is
	// JSON, text/plain; charset=utf-8 when BodyText is used.
	Headers map[string]string `json:"headers,omitempty"`
	// Body is a JSON body, sent byte for byte as it appears in the file.
	Body json.RawMessage `json:"body,omitempty"`
	// BodyText is a body sent verbatim when it is not JSON or its bytes matter (an HTML page, a plain string,
	// an empty body); used instead of Body when Body is absent.
	BodyText *string `json:"body_text,omitempty"`
	// ServeAt "root" marks the shape a request outside /v1 gets (a base URL configured without /v1); such a
	// shape is not served by model name. "" = served under /v1.
	ServeAt string `json:"serve_at,omitempty"`
	// Then names the shapes served on the following calls with the same model (the last one repeats): a 429
	// then a 200 tests a retry.
	Then []string `json:"then,omitempty"`
	// Expect is what webbench's client must make of the reply (of the last shape of a Then sequence when the
	// client retries through it).
	Expect Expect `json:"expect"`
}

// Expect is the outcome llm.Client.Chat must give for a shape.
type Expect struct {
	// Class is "ok" for a successful reply, otherwise the llm.ErrorClass: config, auth, quota, rate_limit,
	// context_overflow, infra.
	Class string `json:"class"`
	// Status is the HTTP status the client's *llm.Error must carry (0 for ok shapes).
	Status int `json:"status,omitempty"`
	// Message is a substring the error's Message must contain (the server's own words).
	Message string `json:"message,omitempty"`
	// Type and Code are the body's error.type / error.code as the client must report them ("" when absent).
	Type string `json:"type,omitempty"`
	// Code is the body's error.code rendered as a string.
	Code string `json:"code,omitempty"`
	// Hint is a substring the error's Hint must contain ("" = not checked).
	Hint string `json:"hint,omitempty"`
	// Content is the message content after reasoning is removed (nil = not checked).
	Content *string `json:"content,omitempty"`
	// Reasoning is the reasoning text the client must extract ("" = none).
	Reasoning string `json:"reasoning,omitempty"`
	// ReasoningFrom is where the reasoning must come from: "reasoning_content", "reasoning", "content_array",
	// "think_tag" ("" when there is none).
	ReasoningFrom string `json:"reasoning_from,omitempty"`
	// Refusal is the refusal text (message.refusal).
	Refusal string `json:"refusal,omitempty"`
	// ToolCalls are the tool calls after normalisation (arguments a JSON string, "" → "{}", missing id →
	// generated "call_wb_…").
	ToolCalls []ExpectCall `json:"tool_calls,omitempty"`
	// FinishReason is the finish_reason as sent.
	FinishReason string `json:"finish_reason,omitempty"`
	// UsageEstimated: the reply has no usage, so the client must estimate it and mark it estimated.
	UsageEstimated bool `json:"usage_estimated,omitempty"`
	// Usage is the usage the client must report when the reply has one (nil = not checked).
	Usage *ExpectUsage `json:"usage,omitempty"`
	// Extra: the response must carry something to send back next turn ("reasoning_content" when a
	// reasoning_content key must be echoed, "tool_call_fields" for per-call fields such as Gemini's
	// thought_signature).
	Extra []string `json:"extra,omitempty"`
	// Retries is the number of retries the client must report (for Then sequences), -1 = not checked.
	Retries *int `json:"retries,omitempty"`
	// WaitMS is the wait, ms, the client honours before retrying this reply (llm.RetryWait of its status, headers
	// and body); nil = not checked.
	WaitMS *int64 `json:"wait_ms,omitempty"`
	// ExitCode is the exit code a bench run stopped by this reply gives: 2 config, 3 auth/quota, 0 otherwise.
	ExitCode int `json:"exit_code"`
}

// ExpectCall is one normalised tool call.
type ExpectCall struct {
	// ID is the call id; "generated" means any id starting "call_wb_" (the server sent none).
	ID string `json:"id"`
	// Name is the function name.
	Name string `json:"name"`
	// Arguments is the arguments JSON string after normalisation, compared as JSON; "*" = not checked (the
	// arguments of a call cut by finish_reason "length").
	Arguments string `json:"arguments"`
}

// ExpectUsage is a token count pair (prompt, completion).
type ExpectUsage struct {
	// Prompt tokens.
	Prompt int `json:"prompt"`
	// Completion tokens.
	Completion int `json:"completion"`
}

// Classes of Expect.Class ("ok" plus the llm.ErrorClass values of the contract).
const (
	// ClassOK is a successful reply.
	ClassOK = "ok"
)

// LoadDir reads every *.json shape in dir (sorted by file name). Each shape needs a name, a source and an
// expected class; names are unique and Then names must exist.
func LoadDir(dir string) ([]Shape, error) {
	return load(os.DirFS(dir), "*.json", dir)
}

// load reads the shapes of fsys matching pattern (sorted by file name), each decoded strictly (unknown fields
// are errors), and validates them. prefix names fsys in errors.
func load(fsys fs.FS, pattern, prefix string) ([]Shape, error) {
	names, err := fs.Glob(fsys, pattern)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Shape
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		var s Shape
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("replay: %s: %w", path.Join(prefix, n), err)
		}
		out = append(out, s)
	}
	return out, Validate(out)
}

// Validate checks shapes: names non-empty and unique, a source and an expected class on each, Then names
// known, Body valid JSON when present.
func Validate(shapes []Shape) error {
	seen := map[string]bool{}
	for _, s := range shapes {
		if s.Name == "" {
			return errors.New("replay: a shape has no name")
		}
		if seen[s.Name] {
			return fmt.Errorf("replay: shape %q twice", s.Name)
		}
		seen[s.Name] = true
		if s.Source == "" {
			return fmt.Errorf("replay: shape %q has no source", s.Name)
		}
		if s.Expect.Class == "" {
			return fmt.Errorf("replay: shape %q has no expect.class", s.Name)
		}
		if len(s.Body) > 0 && !json.Valid(s.Body) {
			return fmt.Errorf("replay: shape %q: body is not JSON (use body_text)", s.Name)
		}
	}
	for _, s := range shapes {
		for _, t := range s.Then {
			if !seen[t] {
				return fmt.Errorf("replay: shape %q: then %q is not a shape", s.Name, t)
			}
		}
	}
	return nil
}

// Route answers matching chat requests with a shape or a proxied, transformed upstream reply. The first
// route that matches wins; requests no route matches are answered by the shape named like the request's model,
// else proxied to Options.Upstream (when the model is one of Options.UpstreamModels, or that list is empty),
// else with OpenAI's 404 model_not_found ("The model `<name>` does not exist or you do not have access to it.").
type Route struct {
	// Model matches the request's model name ("" = any).
	Model string
	// Call matches the Nth chat request (1-based) with this Model (of all requests when Model is ""); 0 = any.
	Call int
	// Shape is the shape served (its Then sequence followed on later matches); "" = proxy to the upstream.
	Shape string
	// Transform applies to the proxied reply when Shape is "" (default Options.Transform).
	Transform string
}

// Options configure a Server.
type Options struct {
	// Addr is the listen address (default "127.0.0.1:0").
	Addr string
	// Routes are checked in order before the by-model-name lookup.
	Routes []Route
	// Upstream is an OpenAI-compatible base URL including /v1 (the scripted policy's) to proxy requests no
	// shape answers; "" = none.
	Upstream string
	// UpstreamModels, when non-empty, are the only model names proxied; a request naming another model that no
	// route or shape answers gets OpenAI's 404 model_not_found (a mistyped model name in a full run).
	UpstreamModels []string
	// Transform is the default transform applied to proxied replies: a name of Transforms, or several joined
	// with "+" ("deepseek+no_usage"); "" = none.
	Transform string
	// Latency delays every reply (to make concurrency visible).
	Latency time.Duration
}

// Received is one request the server got.
type Received struct {
	// N is the request's 1-based sequence number among chat requests (0 for other paths).
	N int
	// Method is the request's HTTP method.
	Method string
	// Path is the request's URL path.
	Path string
	// Model is the request body's model.
	Model string
	// Body is the raw request body.
	Body []byte
	// Header is the request's headers (Authorization included: tests check which key a client sent).
	Header http.Header
	// Served is the shape name served, or "proxy:<transform>" for a proxied reply, or "echo:<provider>" for
	// the 400 answering a missing echo.
	Served string
	// Status is the HTTP status answered.
	Status int
}

// Server is a running replay server. Safe for concurrent use.
type Server struct {
	shapes map[string]*Shape
	opts   Options
	ln     net.Listener
	srv    *http.Server
	client *http.Client

	mu       sync.Mutex
	log      []Received
	total    int
	byModel  map[string]int // chat requests per model
	seqPos   map[string]int // position in a Then sequence per model
	routeHit map[int]int    // matches per route index
	inflight int
	peak     int
	echoes   map[string]echoWant // tool call id → what must come back
	echoErrs []string
	nextID   int
	// strict: a transformed reply asked for strict_history checks of later requests.
	strict bool
}

// Start validates the shapes and serves them on opts.Addr (default a random loopback port) in the background.
func Start(shapes []Shape, opts Options) (*Server, error) {
	if err := Validate(shapes); err != nil {
		return nil, err
	}
	for _, r := range opts.Routes {
		if r.Shape != "" && !containsShape(shapes, r.Shape) {
			return nil, fmt.Errorf("replay: route to unknown shape %q", r.Shape)
		}
		if err := checkTransform(r.Transform); err != nil {
			return nil, err
		}
	}
	if err := checkTransform(opts.Transform); err != nil {
		return nil, err
	}
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	s := &Server{shapes: map[string]*Shape{}, opts: opts, byModel: map[string]int{}, seqPos: map[string]int{},
		routeHit: map[int]int{}, echoes: map[string]echoWant{}, client: &http.Client{Timeout: 5 * time.Minute}}
	for i := range shapes {
		sh := shapes[i]
		s.shapes[sh.Name] = &sh
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("replay: listen %s: %w", opts.Addr, err)
	}
	s.ln = ln
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

func containsShape(shapes []Shape, name string) bool {
	for _, s := range shapes {
		if s.Name == name {
			return true
		}
	}
	return false
}

// URL is the base URL including /v1, for llm.Config.BaseURL.
func (s *Server) URL() string { return s.RootURL() + "/v1" }

// RootURL is the base URL without /v1 (what a user who forgot /v1 configures).
func (s *Server) RootURL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server, cutting open requests. Safe to call twice.
func (s *Server) Close() error {
	err := s.srv.Close()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Requests returns a copy of the log of received requests, in arrival order.
func (s *Server) Requests() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.log...)
}

// Count is the number of chat requests received.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Peak is the highest number of requests (any path) in flight at once.
func (s *Server) Peak() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

// EchoErrors lists the requests that failed to send back what a transformed reply required (DeepSeek's
// reasoning_content, Gemini's thought_signature), one line each; they were answered with the provider's 400.
func (s *Server) EchoErrors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.echoErrs...)
}

// Shape returns the named shape (nil when unknown).
func (s *Server) Shape(name string) *Shape { return s.shapes[name] }

// ServeHTTP answers /v1/chat/completions and /v1/models; other paths get Gin's plain-text 404.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.inflight++
	if s.inflight > s.peak {
		s.peak = s.inflight
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inflight--
		s.mu.Unlock()
	}()
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	rec := Received{Method: r.Method, Path: r.URL.Path, Body: body, Header: r.Header.Clone()}
	if s.opts.Latency > 0 {
		select {
		case <-time.After(s.opts.Latency):
		case <-r.Context().Done():
			return
		}
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case path == "/v1/chat/completions" && r.Method == http.MethodPost:
		s.chat(w, r, body, &rec)
	case path == "/v1/models" && r.Method == http.MethodGet:
		// Logged before the reply: a list longer than the server's write buffer reaches the client before
		// ServeHTTP returns, and a test reading the log right after must find it.
		rec.Status = 200
		s.mu.Lock()
		s.log = append(s.log, rec)
		s.mu.Unlock()
		s.models(w)
		return
	case strings.HasPrefix(path, "/v1/"):
		writeOpenAIError(w, 404, "invalid_request_error", "unknown_url",
			fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path))
		rec.Status = 404
	default:
		// A base URL missing /v1 lands here: the root shape, else Gin's (Ollama's) plain-text 404.
		if sh := s.rootShape(); sh != nil {
			rec.Served, rec.Status = sh.Name, serveShape(w, sh)
			break
		}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(404)
		io.WriteString(w, "404 page not found")
		rec.Status = 404
	}
	s.mu.Lock()
	s.log = append(s.log, rec)
	s.mu.Unlock()
}

// rootShape is the shape with ServeAt "root" (the first by name), or nil.
func (s *Server) rootShape() *Shape {
	var best *Shape
	for _, sh := range s.shapes {
		if sh.ServeAt == "root" && (best == nil || sh.Name < best.Name) {
			best = sh
		}
	}
	return best
}

func (s *Server) models(w http.ResponseWriter) {
	var data []map[string]any
	names := make([]string, 0, len(s.shapes))
	for n := range s.shapes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		data = append(data, map[string]any{"id": n, "object": "model", "created": 0, "owned_by": s.shapes[n].Provider})
	}
	writeJSON(w, 200, map[string]any{"object": "list", "data": data})
}

// pick decides what answers a chat request: a shape name, or "" with proxy=true (and the transform).
func (s *Server) pick(model string) (shape string, proxy bool, transform string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total++
	s.byModel[model]++
	for i, rt := range s.opts.Routes {
		if rt.Model != "" && rt.Model != model {
			continue
		}
		if rt.Call != 0 {
			n := s.total
			if rt.Model != "" {
				n = s.byModel[model]
			}
			if n != rt.Call {
				continue
			}
		}
		s.routeHit[i]++
		if rt.Shape == "" {
			t := rt.Transform
			if t == "" {
				t = s.opts.Transform
			}
			return "", true, t
		}
		return s.advance(fmt.Sprintf("route%d", i), rt.Shape), false, ""
	}
	if _, ok := s.shapes[model]; ok {
		return s.advance("model:"+model, model), false, ""
	}
	if s.opts.Upstream != "" && (len(s.opts.UpstreamModels) == 0 || slices.Contains(s.opts.UpstreamModels, model)) {
		return "", true, s.opts.Transform
	}
	return "", false, ""
}

// advance returns the shape to serve for the key's next call along first's Then sequence (mu held).
func (s *Server) advance(key, first string) string {
	seq := append([]string{first}, s.shapes[first].Then...)
	i := s.seqPos[key]
	s.seqPos[key] = i + 1
	if i >= len(seq) {
		i = len(seq) - 1
	}
	return seq[i]
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, body []byte, rec *Received) {
	var req struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &req)
	rec.Model = req.Model
	name, proxy, transform := s.pick(req.Model)
	s.mu.Lock()
	rec.N = s.total
	s.mu.Unlock()
	if proxy {
		if msg, status, body := s.checkEcho(body); msg != "" {
			rec.Served, rec.Status = "echo:"+msg, status
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write(body)
			return
		}
		rec.Served = "proxy:" + transform
		rec.Status = s.proxy(w, r, body, transform)
		return
	}
	if name == "" {
		// OpenAI's answer to an unknown model.
		rec.Served, rec.Status = "", 404
		writeOpenAIError(w, 404, "invalid_request_error", "model_not_found",
			fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model))
		return
	}
	sh := s.shapes[name]
	rec.Served = name
	rec.Status = serveShape(w, sh)
}

// serveShape writes sh and returns the status sent.
func serveShape(w http.ResponseWriter, sh *Shape) int {
	status := sh.Status
	if status == 0 {
		status = 200
	}
	var body []byte
	ctype := "application/json"
	switch {
	case len(sh.Body) > 0:
		body = sh.Body
	case sh.BodyText != nil:
		body = []byte(*sh.BodyText)
		ctype = "text/plain; charset=utf-8"
	}
	hasCT := false
	for k, v := range sh.Headers {
		if strings.EqualFold(k, "Content-Type") {
			hasCT = true
		}
		w.Header().Set(k, v)
	}
	if !hasCT && len(body) > 0 {
		w.Header().Set("Content-Type", ctype)
	}
	w.WriteHeader(status)
	w.Write(body)
	return status
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeOpenAIError(w http.ResponseWriter, status int, typ, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}})
}
