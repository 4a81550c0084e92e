// Package modelproxy is a recording reverse proxy for an OpenAI chat-completions endpoint, one per attempt of
// an external agent: the runner gives the agent the proxy's URL as its model base URL
// (WEBBENCH_BASE_URL), the proxy forwards every request to the variant's real endpoint — the in-process
// scripted policy (scripted) or an OpenAI-compatible base URL — and records each
// POST …/chat/completions as a Call: the request summary, the reply's content, tool calls, reasoning, finish
// reason and token usage, in the trajectory's Step shape (results.Step).
//
// Forwarding is net/http/httputil.ReverseProxy: the agent gets upstream's status, headers and body bytes
// unchanged (hop-by-hop headers aside, RFC 9110 §7.6.1), streamed as they arrive. The proxy reads a copy of
// the request body and tees the response body for recording.
//
// Protocols read:
//   - the request: OpenAI's Create chat completion body, https://platform.openai.com/docs/api-reference/chat/create
//     ("messages", "tools"[].function.name);
//   - a non-stream reply: the chat.completion object,
//     https://platform.openai.com/docs/api-reference/chat/object, decoded by llm.DecodeResponse (the built-in
//     agent's own decoder: reasoning_content, reasoning, thinking parts, <think> tags, tool-call
//     normalisation);
//   - a streamed reply (Content-Type text/event-stream): server-sent events whose data lines are
//     chat.completion.chunk objects, https://platform.openai.com/docs/api-reference/chat-streaming, ended by
//     "data: [DONE]"; choices[0].delta.content (and reasoning_content, reasoning, refusal) fragments are
//     concatenated, delta.tool_calls[] are merged by their "index" (id, type and function.name from the
//     fragments that carry them, function.arguments concatenated), finish_reason is the last non-null one, and
//     usage comes from the final chunk sent under stream_options.include_usage (choices empty),
//     https://platform.openai.com/docs/guides/function-calling#streaming;
//   - an error reply: OpenAI's {"error": {"message", "type", "param", "code"}},
//     https://platform.openai.com/docs/guides/error-codes, read by llm.ClassifyResponse.
//
// Secrets: request headers are never recorded (a Call holds no header at all); error texts go through
// llm.RedactString; the proxy logs nothing.
package modelproxy

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"webbench/llm"
	"webbench/results"
)

// maxRecord caps the bytes of one request or response body kept for recording (32 MiB, as llm's maxBody); a
// longer response is still passed through whole but its Call has an Error saying it was not recorded.
const maxRecord = 32 << 20

// Options configure a Proxy.
type Options struct {
	// APIKey, when set, is sent upstream as "Authorization: Bearer KEY" on requests that carry no
	// Authorization header. It is never recorded or logged.
	APIKey string
	// Client is the upstream HTTP client; only its Transport (nil: http.DefaultTransport) and Timeout (0: none,
	// the agent's own request context bounds calls; otherwise it bounds each forwarded request including its
	// response body, as http.Client.Timeout does) are used. Nil: http.DefaultTransport, no timeout.
	Client *http.Client
}

// Call is one recorded POST …/chat/completions.
type Call struct {
	// Start is when the request arrived at the proxy.
	Start time.Time `json:"start"`
	// DurationMS is the wall time from arrival until the response body was passed through, ms.
	DurationMS int64 `json:"duration_ms"`
	// Done is false while the call is in flight (its other fields then hold only Start and Step.Request).
	Done bool `json:"done"`
	// Status is upstream's HTTP status (0: upstream was not reached; the agent then got 502).
	Status int `json:"status"`
	// Error is "" on success; otherwise the transport error, the error body's message (non-2xx, or a 2xx
	// carrying an "error" object or an error event in a stream), or why the reply could not be read; redacted
	// with llm.RedactString.
	Error string `json:"error,omitempty"`
	// Endpoint is the endpoint's error as the built-in client classifies it (llm.ClassifyResponse: class
	// config, auth, quota, rate_limit, … with status, type, code and hint), for a non-2xx reply or an error event
	// in a stream; nil otherwise (a transport failure or an unreadable reply has only Error). The runner stops
	// the run on one whose class is fatal (llm.ErrorClass.Fatal), as it does for the built-in agent.
	Endpoint *llm.Error `json:"-"`
	// Step is the call as a trajectory step: Index (0-based, in start order), Request (message count, tool
	// names offered, ToolsWithheld when the request offered none), Content, ToolCalls, Reasoning and
	// ReasoningFrom, Refusal, FinishReason, Extra, Usage (the reply's usage; estimated from bytes and marked
	// Estimated when the endpoint sent none, llm.EstimateUsage) and ModelMS (= DurationMS). Results and guard
	// fields stay empty: the agent's tool calls are recorded elsewhere (agent/mcpserver).
	Step results.Step `json:"step"`
}

// Proxy is a running recording proxy. Safe for concurrent use.
type Proxy struct {
	url    string
	prefix string
	srv    *http.Server
	ln     net.Listener
	rp     *httputil.ReverseProxy
	// timeout is Options.Client.Timeout.
	timeout time.Duration
	// apiKey is Options.APIKey, redacted from every recorded text.
	apiKey string

	mu     sync.Mutex
	calls  []Call
	closed bool
}

// Start starts the proxy on 127.0.0.1:0 in front of upstream, a base URL like "http://127.0.0.1:41234/v1" or
// "https://api.openai.com/v1" (http or https, with a host; no query). Errors: a malformed upstream, or the
// listen error.
func Start(upstream string, opts Options) (*Proxy, error) {
	u, err := url.Parse(strings.TrimSpace(upstream))
	if err != nil {
		return nil, fmt.Errorf("modelproxy: upstream %q: %v", llm.RedactString(upstream), err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.User != nil {
		return nil, fmt.Errorf("modelproxy: upstream %q: want an http(s) base URL with a host, no query or user info",
			llm.RedactString(upstream))
	}
	prefix := strings.TrimRight(u.Path, "/")
	transport := http.DefaultTransport
	p := &Proxy{prefix: prefix, apiKey: opts.APIKey}
	if opts.Client != nil {
		if opts.Client.Transport != nil {
			transport = opts.Client.Transport
		}
		p.timeout = opts.Client.Timeout
	}
	key := opts.APIKey
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// The proxy's path prefix is upstream's, so the inbound path is the upstream path as is.
			pr.Out.URL.Scheme, pr.Out.URL.Host = u.Scheme, u.Host
			pr.Out.Host = u.Host
			if key != "" && pr.Out.Header.Get("Authorization") == "" {
				pr.Out.Header.Set("Authorization", "Bearer "+key)
			}
		},
		Transport:      transport,
		ModifyResponse: modifyResponse,
		ErrorHandler:   errorHandler,
		// Nothing is logged (a log line could carry what an agent sent); failures are in the Calls.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("modelproxy: listen: %w", err)
	}
	p.ln = ln
	p.url = "http://" + ln.Addr().String() + prefix
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// URL is the proxy's base URL, "http://127.0.0.1:PORT" followed by upstream's path ("/v1"): give it to the
// agent as its base URL; paths after it are forwarded to the same paths after upstream's
// (…/chat/completions, …/models).
func (p *Proxy) URL() string { return p.url }

// Calls returns copies of the recorded calls in the order they started (arrived), in-flight ones included
// (Done false). Safe while the proxy runs.
func (p *Proxy) Calls() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Call, len(p.calls))
	copy(out, p.calls) // a finished Call is replaced whole, never mutated in place: sharing slices is safe
	return out
}

// Close stops listening and cuts open requests. Safe to call twice.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	err := p.srv.Close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// ctxKey keys the per-request recording state in the request context.
type ctxKey struct{}

// exchange is what ModifyResponse and ErrorHandler learn about one recorded call.
type exchange struct {
	status   int
	header   http.Header
	transErr error
}

// modifyResponse notes upstream's status and headers of a recorded call.
func modifyResponse(resp *http.Response) error {
	if ex, ok := resp.Request.Context().Value(ctxKey{}).(*exchange); ok {
		ex.status, ex.header = resp.StatusCode, resp.Header.Clone()
	}
	return nil
}

// errorHandler answers 502 when upstream was not reached and notes the error of a recorded call.
func errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	if ex, ok := r.Context().Value(ctxKey{}).(*exchange); ok {
		ex.transErr = err
	}
	w.WriteHeader(http.StatusBadGateway)
}

// ServeHTTP forwards every request; POST …/chat/completions is recorded.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.timeout > 0 {
		ctx, cancel := context.WithTimeout(r.Context(), p.timeout)
		defer cancel()
		r = r.WithContext(ctx)
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/chat/completions") {
		p.rp.ServeHTTP(w, r)
		return
	}
	start := time.Now()
	reqBody, err := io.ReadAll(io.LimitReader(r.Body, maxRecord+1))
	_ = r.Body.Close()
	idx := p.begin(start, reqBody)
	if err != nil || len(reqBody) > maxRecord {
		msg := "request body over 32 MiB"
		if err != nil {
			msg = "reading the request body: " + err.Error()
		}
		p.finish(idx, Call{Start: start, Error: llm.RedactString(msg)})
		http.Error(w, "modelproxy: "+msg, http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	r.ContentLength = int64(len(reqBody))
	ex := &exchange{}
	r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, ex))
	tee := &teeWriter{ResponseWriter: w}
	red := p.redactor(r.Header)
	defer func() {
		// ReverseProxy panics with http.ErrAbortHandler when the body copy fails (upstream or agent cut):
		// record, then let net/http abort the connection.
		rec := recover()
		c := record(start, reqBody, ex, tee)
		c.Error = red(c.Error)
		if c.Endpoint != nil {
			c.Endpoint.Message = red(c.Endpoint.Message)
		}
		if rec != nil && c.Error == "" {
			c.Error = "response cut while passing it through"
		}
		p.finish(idx, c)
		if rec != nil {
			panic(rec)
		}
	}()
	p.rp.ServeHTTP(tee, r)
}

// secretHeaders are the request headers whose values are credentials: OpenAI's Authorization: Bearer,
// Azure OpenAI's api-key, Anthropic-style x-api-key.
var secretHeaders = []string{"Authorization", "Api-Key", "X-Api-Key"}

// redactor returns the redaction of recorded texts for one request: the values of its credential headers (and
// the token after "Bearer "), Options.APIKey, then llm.RedactString. Upstream error bodies may echo a key.
func (p *Proxy) redactor(h http.Header) func(string) string {
	var secrets []string
	add := func(v string) {
		if v = strings.TrimSpace(v); len(v) >= 6 {
			secrets = append(secrets, v)
		}
	}
	add(p.apiKey)
	for _, k := range secretHeaders {
		for _, v := range h.Values(k) {
			add(v)
			if f := strings.Fields(v); len(f) == 2 && strings.EqualFold(f[0], "bearer") {
				add(f[1])
			}
		}
	}
	return func(s string) string {
		for _, k := range secrets {
			s = strings.ReplaceAll(s, k, "[REDACTED]")
		}
		return llm.RedactString(s)
	}
}

// begin appends an in-flight call and returns its index.
func (p *Proxy) begin(start time.Time, reqBody []byte) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	idx := len(p.calls)
	c := Call{Start: start}
	c.Step.Index = idx
	c.Step.Request = summarize(reqBody)
	p.calls = append(p.calls, c)
	return idx
}

// finish replaces call idx by c, done.
func (p *Proxy) finish(idx int, c Call) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c.Done = true
	c.Step.Index = idx
	c.Step.Request = p.calls[idx].Step.Request
	c.DurationMS = time.Since(c.Start).Milliseconds()
	c.Step.ModelMS = c.DurationMS
	c.Step.Error = c.Error
	p.calls[idx] = c
}

// teeWriter passes the response through and keeps a copy of up to maxRecord body bytes.
type teeWriter struct {
	http.ResponseWriter
	buf  bytes.Buffer
	over bool
}

func (t *teeWriter) Write(b []byte) (int, error) {
	if !t.over {
		if t.buf.Len()+len(b) > maxRecord {
			t.over = true
		} else {
			t.buf.Write(b)
		}
	}
	return t.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController (ReverseProxy's flushes of event streams) reach the real writer.
func (t *teeWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// record builds the Call of a finished exchange.
func record(start time.Time, reqBody []byte, ex *exchange, tee *teeWriter) Call {
	c := Call{Start: start, Status: ex.status}
	if ex.transErr != nil {
		c.Status = 0
		c.Error = llm.RedactString("upstream not reached: " + ex.transErr.Error())
		return c
	}
	if tee.over {
		c.Error = "response over 32 MiB: not recorded"
		return c
	}
	raw := tee.buf.Bytes()
	if strings.EqualFold(strings.TrimSpace(ex.header.Get("Content-Encoding")), "gzip") {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err == nil {
			raw, err = io.ReadAll(io.LimitReader(zr, maxRecord))
		}
		if err != nil {
			c.Error = llm.RedactString("gzip response: " + err.Error())
			return c
		}
	}
	if ex.status < 200 || ex.status > 299 {
		e := llm.ClassifyResponse(ex.status, raw)
		c.Endpoint = e
		c.Error = e.Message
		if c.Error == "" {
			c.Error = fmt.Sprintf("HTTP %d", ex.status)
		}
		c.Error = llm.RedactString(c.Error)
		return c
	}
	stream := strings.HasPrefix(strings.ToLower(strings.TrimSpace(ex.header.Get("Content-Type"))), "text/event-stream")
	if stream {
		var errBody []byte
		raw, errBody = assembleStream(raw)
		if errBody != nil {
			e := llm.ClassifyResponse(ex.status, errBody)
			c.Endpoint = e
			c.Error = llm.RedactString(e.Message)
			if c.Error == "" {
				c.Error = "error event in the stream"
			}
			return c
		}
	}
	resp, err := llm.DecodeResponse(reqBody, raw)
	if err != nil {
		c.Error = llm.RedactString(err.Error())
		return c
	}
	st := &c.Step
	st.Content = resp.Message.Content
	st.Reasoning, st.ReasoningFrom, st.Refusal = resp.Reasoning, resp.ReasoningFrom, resp.Refusal
	st.FinishReason = resp.FinishReason
	st.Extra = results.ExtraOf(resp.Extra)
	st.Usage = resp.Usage
	for _, tc := range resp.Message.ToolCalls {
		st.ToolCalls = append(st.ToolCalls, results.ToolCall{ID: tc.ID, Name: tc.Function.Name,
			Args: tc.Function.Arguments})
	}
	return c
}

// summarize is the request summary of a chat request body, as agent/loop.go fills it for the built-in agent:
// the number of messages, the function tools' names in order, ToolsWithheld when no tools were sent. An
// unreadable body gives the zero summary with ToolsWithheld.
func summarize(body []byte) results.RequestSummary {
	var req struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    []struct {
			Function *struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	s := results.RequestSummary{Messages: len(req.Messages), ToolsWithheld: len(req.Tools) == 0}
	for _, t := range req.Tools {
		if t.Function != nil {
			s.Tools = append(s.Tools, t.Function.Name)
		}
	}
	return s
}

// chunk is the part of a chat.completion.chunk the assembly reads.
type chunk struct {
	Choices []struct {
		Index        int                        `json:"index"`
		Delta        map[string]json.RawMessage `json:"delta"`
		FinishReason *string                    `json:"finish_reason"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// toolDelta is one delta.tool_calls[] fragment.
type toolDelta struct {
	Index    int    `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// streamedFields are the delta string fields concatenated into the assembled message.
var streamedFields = []string{"content", "reasoning_content", "reasoning", "refusal"}

// streamCall is one tool call assembled from its deltas.
type streamCall struct {
	id, typ, name string
	args          strings.Builder
}

// streamAssembler gathers choice 0 of a stream of chat.completion.chunk payloads: its text fields in the order
// they first came (streamedFields), its tool calls by delta index, the finish reason, the usage, and the first
// payload carrying an "error" object.
type streamAssembler struct {
	texts   map[string]*strings.Builder
	order   []string
	calls   []*streamCall
	byIndex map[int]*streamCall
	finish  *string
	usage   json.RawMessage
	errBody []byte
}

// add takes in one event's data; an empty payload, "[DONE]" and what is not a JSON chunk are skipped.
func (a *streamAssembler) add(payload string) {
	payload = strings.TrimSpace(payload)
	if payload == "" || payload == "[DONE]" {
		return
	}
	var ch chunk
	if json.Unmarshal([]byte(payload), &ch) != nil {
		return
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" && a.errBody == nil {
		a.errBody = []byte(payload)
	}
	if len(ch.Usage) > 0 && string(ch.Usage) != "null" {
		a.usage = ch.Usage
	}
	for _, c := range ch.Choices {
		if c.Index != 0 {
			continue
		}
		if c.FinishReason != nil && *c.FinishReason != "" {
			f := *c.FinishReason
			a.finish = &f
		}
		for _, k := range streamedFields {
			var s string
			if v, ok := c.Delta[k]; ok && json.Unmarshal(v, &s) == nil && s != "" {
				if a.texts[k] == nil {
					a.texts[k] = &strings.Builder{}
					a.order = append(a.order, k)
				}
				a.texts[k].WriteString(s)
			}
		}
		var tds []toolDelta
		if v, ok := c.Delta["tool_calls"]; ok && json.Unmarshal(v, &tds) == nil {
			a.addToolDeltas(tds)
		}
	}
}

// addToolDeltas appends the deltas' argument text to their calls (by index); a call's id, type and name are
// the first ones sent.
func (a *streamAssembler) addToolDeltas(tds []toolDelta) {
	for _, td := range tds {
		tc := a.byIndex[td.Index]
		if tc == nil {
			tc = &streamCall{}
			a.byIndex[td.Index] = tc
			a.calls = append(a.calls, tc)
		}
		if tc.id == "" {
			tc.id = td.ID
		}
		if tc.typ == "" {
			tc.typ = td.Type
		}
		if tc.name == "" {
			tc.name = td.Function.Name
		}
		tc.args.WriteString(td.Function.Arguments)
	}
}

// body is the chat.completion body equivalent to what was added.
func (a *streamAssembler) body() []byte {
	msg := map[string]any{"role": "assistant"}
	for _, k := range a.order {
		msg[k] = a.texts[k].String()
	}
	if len(a.calls) > 0 {
		var tcs []map[string]any
		for _, c := range a.calls {
			tcs = append(tcs, map[string]any{"id": c.id, "type": c.typ,
				"function": map[string]any{"name": c.name, "arguments": c.args.String()}})
		}
		msg["tool_calls"] = tcs
	}
	out := map[string]any{"object": "chat.completion",
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": a.finish}}}
	if a.usage != nil {
		out["usage"] = a.usage
	}
	body, _ := json.Marshal(out)
	return body
}

// assembleStream turns an event stream of chat.completion.chunk objects into the equivalent chat.completion
// body (choice 0 only) for llm.DecodeResponse. errBody is the data of an event carrying an "error" object
// (some servers report a failure inside a 200 stream), nil when none.
func assembleStream(raw []byte) (body, errBody []byte) {
	a := &streamAssembler{texts: map[string]*strings.Builder{}, byIndex: map[int]*streamCall{}}
	var data []string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 64<<10), maxRecord)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case line == "":
			// An event ends at a blank line; its data lines join with "\n" (WHATWG HTML §9.2.6).
			a.add(strings.Join(data, "\n"))
			data = data[:0]
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	a.add(strings.Join(data, "\n"))
	return a.body(), a.errBody
}
