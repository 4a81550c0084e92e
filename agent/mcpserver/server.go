// Package mcpserver serves webbench's browser tools (browser) to an external agent as an MCP server,
// bound to one attempt (README "Bring your own agent"). It is built on the official Go SDK,
// github.com/modelcontextprotocol/go-sdk/mcp (v1.8.0): the SDK speaks JSON-RPC and the transports, this package
// only adds the tools.
//
// The tools are the built-in agent's: the same names, descriptions and input schemas as Session.ToolDefs
// (tools/list), dispatched to Session.Call with the arguments as sent (the tool decodes them and reports bad
// arguments as the built-in agent's model sees them), and the same result text: the model-facing
// browser.Result's Format(), after the guards. Each call runs through agent.ExternalAttempt, i.e. through
// agent.CallTool, the code path of the agent loop itself, with the variant's tool-level guards
// (guard.BuildToolLevel: intercept_hint, snapshot_ready, stale_ref_refresh, evaluate_isolation) as the hooks;
// every call and result, raw and model-facing, is a step of the attempt's trajectory with its guard events
// (Server.Trajectory, Server.Close).
//
// Transports: Streamable HTTP on 127.0.0.1 at path /mcp (StartHTTP, a random port), stdio or any pair of
// streams (ServeStdio), or any SDK transport (Serve, e.g. mcp.NewInMemoryTransports in tests). Specification:
// https://modelcontextprotocol.io/specification/2025-06-18 (tools: server/tools; transports: basic/transports).
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"webbench/agent"
	"webbench/agent/guard"
	"webbench/browser"
	"webbench/results"
)

// ImplementationName is the server name the MCP initialize handshake reports (serverInfo.name).
const ImplementationName = "webbench-browser"

// Path is the URL path of the Streamable HTTP endpoint.
const Path = "/mcp"

// Options bind a server to one attempt.
type Options struct {
	// TaskID and Goal identify the attempt's task in the trajectory.
	TaskID, Goal string
	// Deadline is the attempt's wall-clock deadline: a call still running then returns "attempt deadline
	// reached while <tool> was running", a call made after it is not executed and returns an MCP tool error
	// (isError, agent.DeadlineError's text). Zero: no deadline but the parent context's.
	Deadline time.Time
	// Guards are the variant's guard switches (guard.Parse's map; nil: all on). Only the tool-level guards
	// apply (guard.BuildToolLevel); the model-level ones are the external agent's to honour.
	Guards map[string]bool
	// Version is the serverInfo.version reported at initialize ("" = "dev").
	Version string
}

// Server is an MCP server of one attempt's browser tools. Create it with New; end it with Close, which
// returns the attempt's trajectory.
type Server struct {
	mcp     *mcp.Server
	attempt *agent.ExternalAttempt
	sess    *browser.Session

	mu     sync.Mutex
	http   *http.Server
	url    string
	closed bool
}

// New builds the server of one attempt on sess: the attempt's fresh browser context (with its tenant
// allow-list, already on the start page, as the runner opens it for the built-in agent). ctx bounds the
// attempt (with o.Deadline). The error is an unknown guard name in o.Guards.
func New(ctx context.Context, sess *browser.Session, o Options) (*Server, error) {
	hooks, err := guard.BuildToolLevel(o.Guards)
	if err != nil {
		return nil, err
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	s := &Server{sess: sess,
		mcp:     mcp.NewServer(&mcp.Implementation{Name: ImplementationName, Version: o.Version}, nil),
		attempt: agent.NewExternalAttempt(ctx, agent.Task{ID: o.TaskID, Goal: o.Goal}, sess, o.Deadline, hooks)}
	for _, t := range Tools(sess) {
		s.mcp.AddTool(t, s.handle)
	}
	return s, nil
}

// Tools returns the MCP tool definitions of the tools sess offers, from Session.ToolDefs (the list the
// built-in agent's model gets, in its order): the same name, description and input schema (the JSON schema
// value itself), plus the annotation readOnlyHint from the tool table (browser.Tool.ReadOnly). The SDK's
// tools/list returns them sorted by name.
func Tools(sess *browser.Session) []*mcp.Tool {
	var out []*mcp.Tool
	for _, d := range sess.ToolDefs() {
		f := d.Function
		def, _ := browser.LookupTool(f.Name)
		out = append(out, &mcp.Tool{Name: f.Name, Description: f.Description, InputSchema: f.Parameters,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: def.ReadOnly}})
	}
	return out
}

// handle is the tools/call handler of every tool: one ExternalAttempt call, its model-facing result as the
// MCP result. (A name that is not listed never gets here: the SDK answers it with a protocol error.)
func (s *Server) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	out := s.attempt.Call(ctx, req.Params.Name, req.Params.Arguments)
	return CallResult(out.Result), nil
}

// CallResult is the MCP result of a tool call: one text content, the model-facing result's text
// (res.Result.Format(), what the built-in agent's model reads), then, for a screenshot, the PNG as an image
// content; isError when the tool failed (a tool error, not a protocol error, so the model sees it).
func CallResult(res *agent.ToolResult) *mcp.CallToolResult {
	r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Result.Format()}},
		IsError: res.Failed()}
	if len(res.Result.Image) > 0 {
		r.Content = append(r.Content, &mcp.ImageContent{Data: res.Result.Image, MIMEType: "image/png"})
	}
	return r
}

// MCP returns the SDK server, to connect a transport this package does not wrap.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Serve runs the server on one SDK transport until the client disconnects or ctx ends (mcp.Server.Run).
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error { return s.mcp.Run(ctx, t) }

// ServeStdio runs the server over newline-delimited JSON-RPC on r and w (the MCP stdio transport: pass
// os.Stdin and os.Stdout, or a child process's pipes) until r ends or ctx does. Neither stream is closed.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	return s.Serve(ctx, &mcp.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// StartHTTP serves the Streamable HTTP transport on 127.0.0.1 at a random port, path Path, and returns the
// endpoint URL ("http://127.0.0.1:PORT/mcp", for WEBBENCH_MCP_URL). The SDK's handler keeps one MCP session per
// client (Mcp-Session-Id) and refuses requests whose Host is not a loopback name (DNS rebinding protection).
// Calling it again returns the same URL. Close stops it.
func (s *Server) StartHTTP() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", errors.New("mcpserver: server closed")
	}
	if s.http != nil {
		return s.url, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("mcpserver: listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle(Path, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil))
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.url = "http://" + ln.Addr().String() + Path
	go func() { _ = s.http.Serve(ln) }()
	return s.url, nil
}

// URL is the Streamable HTTP endpoint's URL ("" before StartHTTP).
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Trajectory returns a copy of the attempt's trajectory so far (agent.ExternalAttempt.Trajectory): one step per
// tools/call with the call, its raw and model-facing result and its guard events.
func (s *Server) Trajectory() *results.Trajectory { return s.attempt.Trajectory() }

// BrowserGone is the error of the first tool call that found the browser, context or page gone, "" when none
// did (agent.ExternalAttempt.BrowserGone).
func (s *Server) BrowserGone() string { return s.attempt.BrowserGone() }

// Start is when the attempt began (agent.ExternalAttempt.Start): the origin of its steps' StartedMS.
func (s *Server) Start() time.Time { return s.attempt.Start() }

// Close ends the attempt and the server: the HTTP listener and its connections are closed, later calls on
// any transport still open are refused with the deadline error, the guards are removed from the session (which
// stays open: it is the caller's). It returns the final trajectory. Safe to call more than once.
func (s *Server) Close() *results.Trajectory {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		if s.http != nil {
			_ = s.http.Close()
		}
	}
	s.mu.Unlock()
	return s.attempt.End()
}
