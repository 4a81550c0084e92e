// Package mcptools is a tool backend of the built-in agent (browser.Backend) on a real Playwright MCP server
// (@playwright/mcp, https://github.com/microsoft/playwright-mcp): one server process per attempt, started
// over stdio with the official MCP Go SDK's client (mcp.NewClient + mcp.CommandTransport), with its own
// isolated headless browser whose every request goes through a filtering proxy that applies the attempt's
// allow-list (suites.Env.Allowed). Results are Playwright MCP's text, read with browser.ParseResult (webbench's
// own tools follow that format); a snapshot the server links to a file (0.0.7x–0.0.8x write the snapshot taken
// after an action to `.playwright-mcp/page-….yml` and return "- [Snapshot](path)") is read from that file, so
// the model sees the snapshot inline either way.
//
// Sources: the server's flags (--headless, --isolated, --no-sandbox, --executable-path, --config with
// browser.launchOptions, --proxy-server, --caps) are those of the project's README, "Configuration"
// (https://github.com/microsoft/playwright-mcp/blob/main/README.md), checked against each pinned release's
// `node cli.js --help`; the result layout (sections "Error", "Result", "Ran Playwright code", "Open tabs",
// "Page", "Modal state", "Snapshot" — a file link unless the snapshot was asked for explicitly, i.e. by
// browser_snapshot) is the release's response serializer (node_modules/playwright-core/lib/coreBundle.js of
// 0.0.78 and 0.0.83), and the tests assert it against the servers' own output.
package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"webbench/browser"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	openai "github.com/sashabaranov/go-openai"
)

// Options start one Playwright MCP server.
type Options struct {
	// Command is the server command as a variant gives it: [npx, @playwright/mcp@VERSION, FLAGS…] (resolved to
	// the pinned install's cli.js by Resolve when present) or any other command and arguments. Start appends
	// the flags the harness owns (HarnessFlags).
	Command []string
	// Chromium is the browser executable passed as --executable-path when Command does not give one (default:
	// browser.FindChromium's search).
	Chromium string
	// Allowed, when set, is asked for every request the server's browser makes (through a proxy the server is
	// started with, --proxy-server); a refused request gets HTTP 403. Nil: no proxy, everything allowed.
	Allowed func(url string) bool
	// CacheDir holds the pinned installs, CacheDir/VERSION/node_modules/@playwright/mcp/cli.js (default:
	// $WEBBENCH_MCP_CACHE, else the first .cache/mcp found upward from the working directory; `make setup`
	// installs 0.0.83 and 0.0.78 there).
	CacheDir string
	// WorkDir is the server's working directory (its workspace root, where it writes .playwright-mcp/); default
	// a fresh temporary directory, removed by Close.
	WorkDir string
	// CallTimeout bounds the calls made without a context (Snapshot, Observe, CaptureForJudge); default 60 s.
	CallTimeout time.Duration
	// KeepScreenshots is how many judge screenshots to keep (default browser.DefaultKeepScreenshots).
	KeepScreenshots int
	// ActionTimeout, when set and the command gives no --timeout-action, is passed as --timeout-action (ms);
	// zero leaves the server's default (5 s, as webbench's own tools).
	ActionTimeout time.Duration
}

// EnvCache names the environment variable that overrides the pinned installs' folder (Options.CacheDir).
const EnvCache = "WEBBENCH_MCP_CACHE"

// OwnedFlags are flags the harness owns: a command that gives one is refused (they would take the server's
// browser off the attempt's proxy or out of its isolated instance).
var OwnedFlags = []string{"--proxy-server", "--proxy-bypass", "--cdp-endpoint", "--extension", "--endpoint",
	"--shared-browser-context", "--user-data-dir", "--port"}

// HarnessFlags are the flags Start appends unless the command gives them: a headless browser, an in-memory
// profile, no sandbox; and (added separately) --executable-path, --config (a file with
// browser.launchOptions.args = browser.DefaultLaunchArgs and browser.contextOptions viewport 1280×720, locale
// en-US, time zone UTC: Chromium and the context as webbench's own sessions have them)
// and --proxy-server (always, when Options.Allowed is set).
var HarnessFlags = []string{"--headless", "--isolated", "--no-sandbox"}

// CheckCommand checks a server command's shape: non-empty, no flag of OwnedFlags. The error names the flag.
func CheckCommand(cmd []string) error {
	if len(cmd) == 0 || cmd[0] == "" {
		return errors.New("no command (expected [npx, @playwright/mcp@VERSION, FLAGS…] or [COMMAND, ARGS…])")
	}
	for _, a := range cmd[1:] {
		name, _, _ := strings.Cut(a, "=")
		if slices.Contains(OwnedFlags, name) {
			return fmt.Errorf("%s: set by webbench for each attempt (its own isolated browser behind the attempt's "+
				"allow-list); remove it", name)
		}
	}
	return nil
}

var pkgRE = regexp.MustCompile(`^@playwright/mcp@(\d+\.\d+\.\d+)$`)

// Resolve turns a server command into the argv to run: [npx, (-y|--yes)…, @playwright/mcp@VERSION, REST…]
// becomes [node, CACHE/VERSION/node_modules/@playwright/mcp/cli.js, REST…] when that pinned install exists (so
// npx does not reach the registry); any other command, or a version not installed, is returned as written.
// version is the pinned VERSION ("" when the command names none).
func Resolve(cmd []string, cacheDir string) (argv []string, version string) {
	if len(cmd) == 0 || filepath.Base(cmd[0]) != "npx" {
		return slices.Clone(cmd), ""
	}
	i := 1
	for i < len(cmd) && (cmd[i] == "-y" || cmd[i] == "--yes") {
		i++
	}
	if i >= len(cmd) {
		return slices.Clone(cmd), ""
	}
	m := pkgRE.FindStringSubmatch(cmd[i])
	if m == nil {
		return slices.Clone(cmd), ""
	}
	version = m[1]
	if cacheDir == "" {
		cacheDir = DefaultCacheDir()
	}
	cli := filepath.Join(cacheDir, version, "node_modules", "@playwright", "mcp", "cli.js")
	if _, err := os.Stat(cli); err != nil || cacheDir == "" {
		return slices.Clone(cmd), version
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return slices.Clone(cmd), version
	}
	return append([]string{node, cli}, cmd[i+1:]...), version
}

// DefaultCacheDir is $WEBBENCH_MCP_CACHE, else the first .cache/mcp folder found upward from the working
// directory (the repository's, where `make setup` installs), else "".
func DefaultCacheDir() string {
	if d := os.Getenv(EnvCache); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		c := filepath.Join(d, ".cache", "mcp")
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			return c
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// Client is one Playwright MCP server and its MCP client session: an browser.Backend. Calls are serialised by the
// caller (the loop runs an attempt's tool calls in order); the accessors are safe for concurrent use.
type Client struct {
	opts    Options
	argv    []string
	version string
	cmd     *exec.Cmd
	session *mcp.ClientSession
	proxy   *proxy
	workDir string
	ownDir  bool
	tools   []*mcp.Tool
	stderr  *lockedBuffer
	base    context.Context
	cancel  context.CancelFunc

	mu          sync.Mutex
	filter      func(string) string
	url, title  string
	screenshots [][]byte
	// shotSteps[i] is the step index screenshots[i] was captured after (ScreenshotSteps).
	shotSteps []int
	closed    bool
}

var _ browser.Backend = (*Client)(nil)

// Start starts the server (Resolve'd command + the harness's flags) in its working directory, in a process
// group of its own, connects the SDK client over stdio (initialize), and lists its tools. The browser starts
// lazily on the first tool call, as Playwright MCP does. ctx bounds the start only; Close ends the server.
func Start(ctx context.Context, o Options) (*Client, error) {
	if err := CheckCommand(o.Command); err != nil {
		return nil, fmt.Errorf("mcptools: %w", err)
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 60 * time.Second
	}
	if o.KeepScreenshots <= 0 {
		o.KeepScreenshots = browser.DefaultKeepScreenshots
	}
	c := &Client{opts: o, workDir: o.WorkDir, stderr: &lockedBuffer{}}
	c.argv, c.version = Resolve(o.Command, o.CacheDir)
	var err error
	if c.workDir == "" {
		if c.workDir, err = os.MkdirTemp("", "webbench-mcp-"); err != nil {
			return nil, err
		}
		c.ownDir = true
	}
	has := func(flag string) bool {
		return slices.ContainsFunc(c.argv[1:], func(a string) bool { return a == flag || strings.HasPrefix(a, flag+"=") })
	}
	for _, f := range HarnessFlags {
		if !has(f) {
			c.argv = append(c.argv, f)
		}
	}
	if !has("--executable-path") && !has("--browser") {
		chromium, _, err := browser.FindChromium(o.Chromium, true)
		if err != nil {
			if c.ownDir {
				os.RemoveAll(c.workDir)
			}
			return nil, err
		}
		c.argv = append(c.argv, "--executable-path", chromium)
	}
	if o.ActionTimeout > 0 && !has("--timeout-action") {
		c.argv = append(c.argv, "--timeout-action", strconv.FormatInt(o.ActionTimeout.Milliseconds(), 10))
	}
	if !has("--config") {
		// Chromium's flags and the context's viewport, locale and time zone as webbench's own sessions have them
		// (browser.DefaultLaunchArgs, DefaultViewport*, DefaultLocale, DefaultTimezoneID), in a config file (the
		// CLI has no flag for launch arguments; README "Configuration file": browser.launchOptions, contextOptions).
		cfg, _ := json.Marshal(map[string]any{"browser": map[string]any{
			"launchOptions": map[string]any{"args": browser.DefaultLaunchArgs},
			"contextOptions": map[string]any{
				"viewport": map[string]int{"width": browser.DefaultViewportWidth, "height": browser.DefaultViewportHeight},
				"locale":   browser.DefaultLocale, "timezoneId": browser.DefaultTimezoneID}}})
		p := filepath.Join(c.workDir, "webbench-mcp-config.json")
		if err := os.WriteFile(p, cfg, 0o644); err != nil {
			c.cleanup()
			return nil, err
		}
		c.argv = append(c.argv, "--config", p)
	}
	if o.Allowed != nil {
		if c.proxy, err = startProxy(o.Allowed); err != nil {
			c.cleanup()
			return nil, fmt.Errorf("mcptools: proxy: %w", err)
		}
		c.argv = append(c.argv, "--proxy-server", c.proxy.URL())
	}
	c.cmd = exec.Command(c.argv[0], c.argv[1:]...)
	c.cmd.Dir = c.workDir
	c.cmd.Stderr = c.stderr
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.base, c.cancel = context.WithCancel(context.Background())
	cl := mcp.NewClient(&mcp.Implementation{Name: "webbench", Version: "1"}, nil)
	tr := &mcp.CommandTransport{Command: c.cmd, TerminateDuration: 3 * time.Second}
	if c.session, err = cl.Connect(ctx, tr, nil); err != nil {
		c.kill()
		c.cleanup()
		return nil, fmt.Errorf("mcptools: start %s: %w (stderr: %s)", strings.Join(c.argv, " "), err, c.Stderr())
	}
	lt, err := c.session.ListTools(ctx, nil)
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("mcptools: tools/list: %w (stderr: %s)", err, c.Stderr())
	}
	c.tools = lt.Tools
	return c, nil
}

// Argv is the command line the server was started with (after Resolve and the harness's flags).
func (c *Client) Argv() []string { return slices.Clone(c.argv) }

// PinnedVersion is the @playwright/mcp version the command names ("" when none).
func (c *Client) PinnedVersion() string { return c.version }

// ServerInfo is the server's initialize answer, "name version" (Playwright MCP reports its Playwright build).
func (c *Client) ServerInfo() string {
	if r := c.session.InitializeResult(); r != nil && r.ServerInfo != nil {
		return r.ServerInfo.Name + " " + r.ServerInfo.Version
	}
	return ""
}

// Stderr is what the server wrote to stderr so far.
func (c *Client) Stderr() string { return strings.TrimSpace(c.stderr.String()) }

// Blocked lists the URLs the proxy refused so far (the attempt's allow-list), in order.
func (c *Client) Blocked() []string {
	if c.proxy == nil {
		return nil
	}
	return c.proxy.blockedURLs()
}

// ToolDefs implements browser.Backend: the server's tools as OpenAI function tools, in the server's order, with
// their descriptions and input schemas (the "$schema" key removed).
func (c *Client) ToolDefs() []openai.Tool {
	out := make([]openai.Tool, 0, len(c.tools))
	for _, t := range c.tools {
		var params map[string]any
		if b, err := json.Marshal(t.InputSchema); err == nil {
			_ = json.Unmarshal(b, &params)
		}
		delete(params, "$schema")
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: params}})
	}
	return out
}

func (c *Client) hasTool(name string) *mcp.Tool {
	for _, t := range c.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Call implements browser.Backend: one tools/call with the model's arguments (empty means {}), its text read with
// ParseResult (see parseText), its image (browser_take_screenshot) in Result.Image, the snapshot filter applied
// to its snapshot. A protocol error (unknown tool, arguments the server's schema refuses) is the result's
// error, with the server's words; a server that is gone is "Browser has been closed: …" (agent.BrowserGone).
func (c *Client) Call(ctx context.Context, name string, args json.RawMessage) browser.Result {
	if len(strings.TrimSpace(string(args))) == 0 || strings.TrimSpace(string(args)) == "null" {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) {
		return browser.Result{Error: fmt.Sprintf("%s: arguments are not valid JSON: %.200s", name, args)}
	}
	res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: string(browser.BaseName(name)), Arguments: args})
	if err != nil {
		return browser.Result{Error: c.callError(ctx, err)}
	}
	var texts []string
	var image []byte
	for _, ct := range res.Content {
		switch x := ct.(type) {
		case *mcp.TextContent:
			texts = append(texts, x.Text)
		case *mcp.ImageContent:
			image = x.Data
		}
	}
	r := parseText(strings.Join(texts, "\n"), c.workDir)
	if res.IsError && r.Error == "" {
		r.Error = strings.TrimSpace(stripANSI(strings.Join(texts, "\n")))
		if r.Error == "" {
			r.Error = name + " failed (the server sent no text)"
		}
	}
	r.Image = image
	c.mu.Lock()
	f := c.filter
	if r.URL != "" {
		c.url, c.title = r.URL, r.Title
	}
	c.mu.Unlock()
	if f != nil && r.Snapshot.YAML != "" {
		r.Snapshot.YAML = f(r.Snapshot.YAML)
	}
	return r
}

// callError is the result error of a failed tools/call.
func (c *Client) callError(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return err.Error()
	}
	if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || strings.HasSuffix(err.Error(), ": EOF") ||
		c.exited() {
		msg := "Browser has been closed: the Playwright MCP server is gone (" + err.Error() + ")"
		if s := c.Stderr(); s != "" {
			msg += "; stderr: " + lastLines(s, 5)
		}
		return msg
	}
	return err.Error()
}

func (c *Client) exited() bool { return c.cmd.ProcessState != nil }

// Snapshot implements browser.Backend: a browser_snapshot call (boxes: true when asked; the server must support
// it), the snapshot unfiltered.
func (c *Client) Snapshot(boxes bool) (string, error) {
	ctx, cancel := context.WithTimeout(c.base, c.opts.CallTimeout)
	defer cancel()
	args := "{}"
	if boxes {
		args = `{"boxes":true}`
	}
	c.mu.Lock()
	f := c.filter
	c.filter = nil
	c.mu.Unlock()
	r := c.Call(ctx, string(browser.ToolSnapshot), json.RawMessage(args))
	c.mu.Lock()
	c.filter = f
	c.mu.Unlock()
	if r.Error != "" {
		return "", errors.New(r.Error)
	}
	if r.Snapshot.YAML == "" {
		return "", errors.New("browser_snapshot returned no snapshot")
	}
	return r.Snapshot.YAML, nil
}

// Observe implements browser.Backend: Snapshot, then the snapshot filter.
func (c *Client) Observe(boxes bool) (string, error) {
	s, err := c.Snapshot(boxes)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	f := c.filter
	c.mu.Unlock()
	if f != nil {
		s = f(s)
	}
	return s, nil
}

// SetSnapshotFilter implements browser.Backend.
func (c *Client) SetSnapshotFilter(f func(snapshot string) string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.filter = f
}

// PageInfo implements browser.Backend: the URL and title of the last result that named the page (Playwright MCP
// prints "### Page" after navigations, actions and snapshots); no call is made.
func (c *Client) PageInfo() (url, title string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.url, c.title
}

// CaptureForJudge implements browser.Backend: one browser_take_screenshot (viewport PNG; scale "css" when the
// server's schema has that field) after step (0-based results.Step.Index), kept among the last KeepScreenshots
// with that step (ScreenshotSteps). Not a step of the trajectory. The agent's own browser_take_screenshot calls
// are not kept.
func (c *Client) CaptureForJudge(step int) error {
	ctx, cancel := context.WithTimeout(c.base, c.opts.CallTimeout)
	defer cancel()
	args := map[string]any{"type": "png"}
	if t := c.hasTool(string(browser.ToolTakeScreenshot)); t != nil && schemaHas(t.InputSchema, "scale") {
		args["scale"] = "css"
	}
	b, _ := json.Marshal(args)
	r := c.Call(ctx, string(browser.ToolTakeScreenshot), b)
	if r.Error != "" {
		return errors.New(r.Error)
	}
	if len(r.Image) == 0 {
		return errors.New("browser_take_screenshot returned no image")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.screenshots = append(c.screenshots, r.Image)
	c.shotSteps = append(c.shotSteps, step)
	if n := len(c.screenshots) - c.opts.KeepScreenshots; n > 0 {
		c.screenshots = slices.Delete(c.screenshots, 0, n)
		c.shotSteps = slices.Delete(c.shotSteps, 0, n)
	}
	return nil
}

// Screenshots returns the kept judge screenshots, oldest first.
func (c *Client) Screenshots() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.screenshots)
}

// ScreenshotSteps returns, for each of Screenshots (same order and length), the 0-based step index it was
// captured after.
func (c *Client) ScreenshotSteps() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.shotSteps)
}

func schemaHas(s any, prop string) bool {
	b, err := json.Marshal(s)
	if err != nil {
		return false
	}
	var v struct {
		Properties map[string]any `json:"properties"`
	}
	_ = json.Unmarshal(b, &v)
	_, ok := v.Properties[prop]
	return ok
}

// Close ends the session (closes the server's stdin, which makes Playwright MCP close its browser and exit;
// the SDK sends SIGTERM after 3 s), kills what is left of the server's process group and of the browser
// processes below it, stops the proxy and removes the working directory if Start made it. Safe to call twice.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	var below []int
	if c.cmd.Process != nil {
		below = descendants(c.cmd.Process.Pid)
	}
	err := c.session.Close()
	c.cancel()
	c.kill()
	for _, pid := range below {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if c.proxy != nil {
		c.proxy.close()
	}
	c.cleanup()
	if err != nil && (errors.Is(err, mcp.ErrConnectionClosed) || strings.Contains(err.Error(), "signal")) {
		err = nil
	}
	return err
}

func (c *Client) kill() {
	if c.cmd != nil && c.cmd.Process != nil {
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	}
}

func (c *Client) cleanup() {
	if c.ownDir {
		_ = os.RemoveAll(c.workDir)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() < 1<<20 {
		l.b.Write(p)
	}
	return len(p), nil
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
