package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"webbench/browser"
)

// MCPVersion is the @playwright/mcp release the benchmarks compare against; `make bench` installs it into
// bench/mcp (npm install --prefix bench/mcp @playwright/mcp@MCPVersion).
const MCPVersion = "0.0.83"

// MCPProtocolVersion is the MCP protocol revision the client asks for in initialize (the server answers with
// the revision it speaks; 0.0.83 speaks this one).
const MCPProtocolVersion = "2025-06-18"

// MCPOptions locate and configure the Playwright MCP server process.
type MCPOptions struct {
	// Dir is the npm install folder holding node_modules/@playwright/mcp/cli.js (default: bench/mcp found
	// upward from the working directory, or $WEBBENCH_MCP_DIR).
	Dir string
	// Node is the Node.js executable (default `node` on PATH).
	Node string
	// Chromium is the browser executable passed as --executable-path (default browser.DefaultChromium).
	Chromium string
	// WorkDir is the server's working directory, where it writes its .playwright-mcp output files (snapshots
	// of actions, console logs). Default: a fresh temporary directory, removed by Close.
	WorkDir string
}

// MCPClient is a minimal Model Context Protocol client over stdio (JSON-RPC 2.0, one message per line, as the
// MCP specification's stdio transport defines): it starts the server, runs initialize +
// notifications/initialized, and calls tools with tools/call. Server-to-client requests are answered with
// JSON-RPC error -32601; notifications are ignored. Calls are serialised (one in flight).
//
// The server is started as `node cli.js --headless --isolated --no-sandbox --caps vision --executable-path
// CHROMIUM --viewport-size 1280x720 --config CONFIG` where CONFIG passes browser.DefaultLaunchArgs as
// launchOptions.args, so both sides launch Chromium with the same flags.
type MCPClient struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	out     *bufio.Reader
	workDir string
	ownDir  bool
	errw    *lockedWriter

	mu     sync.Mutex
	nextID int64
	closed bool

	// ServerVersion is the server's serverInfo "name version" from initialize ("Playwright 1.64.0-…");
	// ProtocolVersion the MCP revision it answered with.
	ServerVersion, ProtocolVersion string
}

// MCPCLIPath returns cli.js of @playwright/mcp inside dir (or the default install folder when dir is "").
func MCPCLIPath(dir string) (string, error) {
	cands := []string{}
	if dir != "" {
		cands = append(cands, dir)
	} else {
		if env := os.Getenv("WEBBENCH_MCP_DIR"); env != "" {
			cands = append(cands, env)
		}
		if wd, err := os.Getwd(); err == nil {
			for d := wd; ; d = filepath.Dir(d) {
				cands = append(cands, filepath.Join(d, "bench", "mcp"))
				if filepath.Dir(d) == d {
					break
				}
			}
		}
	}
	for _, c := range cands {
		p := filepath.Join(c, "node_modules", "@playwright", "mcp", "cli.js")
		if _, err := os.Stat(p); err == nil {
			return filepath.Abs(p)
		}
	}
	return "", fmt.Errorf("bench: @playwright/mcp not found in %s; run `npm install --prefix bench/mcp "+
		"@playwright/mcp@%s` (make bench does)", strings.Join(cands, ", "), MCPVersion)
}

// StartMCP starts the server and completes the MCP handshake. The browser starts lazily on the first tool
// call, as Playwright MCP does.
func StartMCP(ctx context.Context, o MCPOptions) (*MCPClient, error) {
	cli, err := MCPCLIPath(o.Dir)
	if err != nil {
		return nil, err
	}
	node := o.Node
	if node == "" {
		if node, err = exec.LookPath("node"); err != nil {
			return nil, errors.New("bench: node not found on PATH")
		}
	}
	chromium := o.Chromium
	if chromium == "" {
		chromium = chromiumPath()
	}
	c := &MCPClient{workDir: o.WorkDir}
	if c.workDir == "" {
		if c.workDir, err = os.MkdirTemp("", "bench-mcp-"); err != nil {
			return nil, err
		}
		c.ownDir = true
	}
	cfg, _ := json.Marshal(map[string]any{"browser": map[string]any{
		"launchOptions": map[string]any{"args": browser.DefaultLaunchArgs}}})
	cfgPath := filepath.Join(c.workDir, "mcp-config.json")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		c.cleanup()
		return nil, err
	}
	cmd := exec.Command(node, cli, "--headless", "--isolated", "--no-sandbox", "--caps", "vision",
		"--executable-path", chromium, "--viewport-size", "1280x720", "--config", cfgPath)
	if err := c.start(ctx, cmd); err != nil {
		return nil, err
	}
	return c, nil
}

// start runs cmd as the server (in c.workDir, in its own process group) and completes the handshake:
// initialize, then notifications/initialized.
func (c *MCPClient) start(ctx context.Context, cmd *exec.Cmd) error {
	var err error
	c.cmd = cmd
	c.cmd.Dir = c.workDir
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group, so Close can end its Chromium too
	c.errw = &lockedWriter{}
	c.cmd.Stderr = c.errw
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		c.cleanup()
		return err
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		c.cleanup()
		return err
	}
	c.out = bufio.NewReaderSize(stdout, 1<<20)
	if err := c.cmd.Start(); err != nil {
		c.cleanup()
		return fmt.Errorf("bench: start %s: %w", strings.Join(cmd.Args, " "), err)
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if err := c.request(ctx, "initialize", map[string]any{
		"protocolVersion": MCPProtocolVersion, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "webbench-bench", "version": "1"},
	}, &init); err != nil {
		c.Close()
		return fmt.Errorf("bench: MCP initialize: %w (stderr: %s)", err, c.Stderr())
	}
	c.ServerVersion = init.ServerInfo.Name + " " + init.ServerInfo.Version
	c.ProtocolVersion = init.ProtocolVersion
	if err := c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		c.Close()
		return err
	}
	return nil
}

// lockedWriter serialises writes to a buffer shared with Stderr.
type lockedWriter struct {
	mu sync.Mutex
	w  bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Stderr returns what the server wrote to stderr so far (for error messages).
func (c *MCPClient) Stderr() string {
	if c.errw == nil {
		return ""
	}
	c.errw.mu.Lock()
	defer c.errw.mu.Unlock()
	return strings.TrimSpace(c.errw.w.String())
}

// MCPResult is the outcome of one tools/call: the concatenated text contents and the isError flag.
type MCPResult struct {
	Text    string
	IsError bool
	// Images counts image contents (vision screenshots), not included in Text.
	Images int
}

// CallTool calls a tool with arguments and returns its result. JSON-RPC errors (unknown tool, bad
// arguments rejected by the protocol layer) are Go errors; tool failures are IsError results.
func (c *MCPClient) CallTool(ctx context.Context, name string, args map[string]any) (MCPResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := c.request(ctx, "tools/call", map[string]any{"name": name, "arguments": args}, &res); err != nil {
		return MCPResult{}, err
	}
	out := MCPResult{IsError: res.IsError}
	var parts []string
	for _, ct := range res.Content {
		switch ct.Type {
		case "text":
			parts = append(parts, ct.Text)
		case "image":
			out.Images++
		}
	}
	out.Text = strings.Join(parts, "\n")
	return out, nil
}

// rpcMsg is any JSON-RPC 2.0 message from the server.
type rpcMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (c *MCPClient) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = c.stdin.Write(append(b, '\n'))
	return err
}

// request sends a request and reads messages until its response; ctx cancellation kills the server (the
// read cannot be interrupted otherwise).
func (c *MCPClient) request(ctx context.Context, method string, params any, out any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("bench: MCP client closed")
	}
	c.nextID++
	id := c.nextID
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return fmt.Errorf("bench: MCP %s: write: %w", method, err)
	}
	stop := context.AfterFunc(ctx, c.kill)
	defer stop()
	want := fmt.Sprint(id)
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("bench: MCP %s: read: %w", method, err)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var m rpcMsg
		if err := json.Unmarshal(line, &m); err != nil {
			return fmt.Errorf("bench: MCP %s: bad message %.200q: %w", method, line, err)
		}
		if m.Method != "" {
			if len(m.ID) > 0 && string(m.ID) != "null" { // a request from the server: refuse it
				_ = c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID,
					"error": map[string]any{"code": -32601, "message": "method not supported by this client"}})
			}
			continue
		}
		if string(m.ID) != want {
			continue
		}
		if m.Error != nil {
			return fmt.Errorf("bench: MCP %s: error %d: %s", method, m.Error.Code, m.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	}
}

// Close ends the session (closes stdin, which makes the server close its browser and exit), waits up to 5 s,
// then kills it, and removes the working directory if StartMCP created it. Playwright starts Chromium in a
// process group of its own, so the Chromium processes below the server are noted first and any still alive
// afterwards are killed by pid.
func (c *MCPClient) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	var leftovers []proc
	if procs, err := readProcs(); err == nil && c.cmd.Process != nil {
		byPID := map[int]proc{}
		for _, p := range procs {
			byPID[p.pid] = p
		}
		for _, pid := range descendants(procs, c.cmd.Process.Pid)[1:] {
			if isChromium(byPID[pid].comm) {
				leftovers = append(leftovers, byPID[pid])
			}
		}
	}
	_ = c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		c.kill()
		<-done
	}
	c.kill()
	for _, p := range leftovers {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.pid)); err == nil {
			if q, ok := parseStat(p.pid, b); ok && q.comm == p.comm {
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
			}
		}
	}
	c.cleanup()
	return nil
}

func (c *MCPClient) cleanup() {
	if c.ownDir {
		_ = os.RemoveAll(c.workDir)
	}
}

// kill ends the server's process group (the server and any helper it started in its group).
func (c *MCPClient) kill() {
	if c.cmd != nil && c.cmd.Process != nil {
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	}
}
