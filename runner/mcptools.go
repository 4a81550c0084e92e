package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"webbench/agent"
	"webbench/browser/mcptools"
	"webbench/results"
)

// ToolsBackend is the built-in agent's tool backend other than webbench's own browser session (the manifest's
// type, results.ToolsBackend): `tools: {kind: mcp, command: [npx, @playwright/mcp@VERSION, FLAGS…]}`.
type ToolsBackend = results.ToolsBackend

// CheckToolsShape checks what a tools backend's description alone can tell: kind "mcp" and a command
// mcptools.CheckCommand accepts (non-empty; no flag the harness owns, such as --proxy-server).
func CheckToolsShape(t *ToolsBackend) error {
	if t.Kind != "mcp" {
		return fmt.Errorf("tools kind %q: expected mcp (a Playwright MCP server per attempt)", t.Kind)
	}
	if err := mcptools.CheckCommand(t.Command); err != nil {
		return fmt.Errorf("tools command: %w", err)
	}
	return nil
}

// ErrToolsWithAgent is the refusal of a variant with both an external agent and a tools backend: the tools
// backend is the built-in agent's; an external agent uses webbench's MCP server (and may start its own
// Playwright MCP itself).
var ErrToolsWithAgent = errors.New("tools: {kind: mcp} is the built-in agent's tool backend and cannot be combined " +
	"with agent: {kind: command} (an external agent gets webbench's MCP server; run Playwright MCP inside the " +
	"agent instead): remove one")

// checkTools refuses, before a run starts, what a Playwright MCP backend cannot honour: a variant with an
// external agent too, and the run options that configure webbench's own browser (a remote browser server,
// --disable-evaluate, traces), which the server's own browser would silently ignore.
func checkTools(plan Plan, opts Options) error {
	for _, v := range plan.Variants {
		if v.Tools == nil {
			continue
		}
		if v.Agent != nil {
			return fmt.Errorf("variant %s: %w", v.Name, ErrToolsWithAgent)
		}
		if err := CheckToolsShape(v.Tools); err != nil {
			return fmt.Errorf("variant %s: %w", v.Name, err)
		}
		for _, o := range []struct {
			set  bool
			flag string
		}{{opts.BrowserEndpoint != "", "--browser-endpoint"}, {opts.DisableEvaluate, "--disable-evaluate"},
			{opts.Trace, "--trace"}} {
			if o.set {
				return fmt.Errorf("variant %s: %s configures webbench's own browser; a Playwright MCP tools "+
					"backend (tools: {kind: mcp}) launches its own: drop the option or the tools", v.Name, o.flag)
			}
		}
	}
	return nil
}

// mcpPlayer is the built-in agent on a Playwright MCP server as its tool backend: it starts the server
// (mcptools.Start: the pinned install, its own isolated headless Chromium behind a proxy applying env.Allowed),
// opens the start page with browser_navigate and runs the built-in agent on it (the first observation and the
// refreshed snapshots are browser_snapshot calls, the judge's screenshots browser_take_screenshot calls).
type mcpPlayer struct{}

func (mcpPlayer) ownBrowser() bool { return true }

func (mcpPlayer) play(ctx context.Context, st *stage) (played, error) {
	t, wk := st.a.Task, st.wk
	sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	c, err := mcptools.Start(sctx, mcptools.Options{Command: st.af.v.Tools.Command, Chromium: wk.opts.Chromium,
		Allowed: st.env.Allowed, ActionTimeout: wk.opts.ActionTimeout})
	cancel()
	if err != nil {
		return played{}, &setupError{fmt.Errorf("start Playwright MCP server: %w", err)}
	}
	defer c.Close()
	args, _ := json.Marshal(map[string]string{"url": st.env.StartURL()})
	nctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	nav := c.Call(nctx, "browser_navigate", args)
	cancel()
	if nav.Error != "" {
		return played{}, &setupError{fmt.Errorf("open start page (browser_navigate): %s", firstLine(nav.Error))}
	}
	tr, err := agent.New(wk.agentConfig(st.a, st.af, st.env), st.af.client).Run(ctx, agent.Task{ID: t.ID, Goal: t.Goal}, c)
	return played{tr: tr, shots: c.Screenshots(), shotSteps: c.ScreenshotSteps()}, err
}
