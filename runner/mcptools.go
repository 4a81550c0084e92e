package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"webbench/agent"
	"webbench/browser/mcptools"
	"webbench/llm"
	"webbench/results"
	"webbench/suites"
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

// playMCP plays one attempt of a variant whose tools are a Playwright MCP server (issue 15 item 4): it starts
// the server (mcptools.Start: the pinned install, its own isolated headless Chromium behind a proxy applying
// env.Allowed), opens the start page with browser_navigate, runs the built-in agent on it (the first
// observation and the refreshed snapshots are browser_snapshot calls, the judge's screenshots
// browser_take_screenshot calls), closes the server and concludes the attempt as play does.
func (wk *worker) playMCP(ctx context.Context, a Attempt, af *agentFor, w *results.Writer, env suites.Env,
	rec results.Attempt, start time.Time, infra func(error) results.Attempt, fatal **llm.Error) results.Attempt {
	t := a.Task
	sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	c, err := mcptools.Start(sctx, mcptools.Options{Command: af.v.Tools.Command, Chromium: wk.opts.Chromium,
		Allowed: env.Allowed, ActionTimeout: wk.opts.ActionTimeout})
	cancel()
	if err != nil {
		return infra(fmt.Errorf("start Playwright MCP server: %w", err))
	}
	defer c.Close()
	args, _ := json.Marshal(map[string]string{"url": env.StartURL()})
	nctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	nav := c.Call(nctx, "browser_navigate", args)
	cancel()
	if nav.Error != "" {
		return infra(fmt.Errorf("open start page (browser_navigate): %s", firstLine(nav.Error)))
	}
	var ag Agent = agent.New(wk.agentConfig(a, af), af.client)
	tr, runErr := ag.Run(ctx, agent.Task{ID: t.ID, Goal: t.Goal}, c)
	if ctx.Err() != nil {
		return rec
	}
	if le := (*llm.Error)(nil); errors.As(runErr, &le) && le.Class.Fatal() {
		*fatal = le
		return rec
	}
	rec.DurationMS = time.Since(start).Milliseconds()
	if runErr != nil {
		return infra(runErr)
	}
	return wk.conclude(ctx, rec, a, af, w, env, c.Screenshots(), c.ScreenshotSteps(), tr)
}
