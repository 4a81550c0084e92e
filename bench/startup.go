package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"webbench/browser"
)

// StartupOptions size the attempt start-up measurement.
type StartupOptions struct {
	// Reps per variant, alternating (default 5).
	Reps int
	// MCP locates @playwright/mcp for the third variant; SkipMCP leaves it out.
	MCP     MCPOptions
	SkipMCP bool
	Log     func(format string, args ...any)
}

// StartupFigures are the costs of starting one attempt until its start page has loaded, ms.
type StartupFigures struct {
	// Context: a fresh context + page in a running browser, the start page, context closed (webbench's way).
	Context Dist
	// Browser: a fresh Chromium launch, context + page, the start page, browser closed (driver running).
	Browser Dist
	// MCP: a fresh @playwright/mcp server per attempt (process, handshake, its browser launch on the first
	// call, the start page, shutdown) — what isolating attempts costs a harness built on the MCP server.
	MCP Dist
	// BrowserRatio and MCPRatio are medians over reps of Browser/Context and MCP/Context.
	BrowserRatio, MCPRatio float64
}

// MeasureStartup times attempt start-up on the Zoo shop home page (a fresh tenant per rep, created before the
// clock starts) for a context in a running browser, a browser per attempt, and an MCP server per attempt.
func MeasureStartup(ctx context.Context, o StartupOptions) (StartupFigures, error) {
	if o.Reps <= 0 {
		o.Reps = 5
	}
	logf := o.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var f StartupFigures
	suite, err := openZoo()
	if err != nil {
		return f, err
	}
	defer suite.Close()
	srv, err := suite.Server()
	if err != nil {
		return f, err
	}
	drv, err := browser.StartDriver(browser.DriverOptions{})
	if err != nil {
		return f, err
	}
	defer drv.Stop()
	warm, err := drv.Launch(browser.LaunchOptions{ExecutablePath: chromiumPath(), Headless: true})
	if err != nil {
		return f, err
	}
	defer warm.Close()
	newURL := func() (string, func(), error) {
		t, err := srv.NewTenant("shop", nil)
		if err != nil {
			return "", nil, err
		}
		return t.URL("/"), t.Close, nil
	}
	// One untimed warm-up of each path (page cache, first-launch effects).
	if u, done, err := newURL(); err == nil {
		_ = openStart(warm, u)
		done()
	}
	var ctxS, brS, mcpS, brR, mcpR []float64
	for i := 0; i < o.Reps; i++ {
		logf("startup: rep %d/%d", i+1, o.Reps)
		c, err := timeStart(newURL, func(u string) error { return openStart(warm, u) })
		if err != nil {
			return f, fmt.Errorf("startup (context): %w", err)
		}
		ctxS = append(ctxS, c)
		d, err := timeStart(newURL, func(u string) error { return launchStart(drv, u) })
		if err != nil {
			return f, fmt.Errorf("startup (browser): %w", err)
		}
		brS, brR = append(brS, d), append(brR, d/c)
		if o.SkipMCP {
			continue
		}
		if d, err = timeStart(newURL, func(u string) error { return mcpStart(ctx, o.MCP, u) }); err != nil {
			return f, fmt.Errorf("startup (mcp): %w", err)
		}
		mcpS, mcpR = append(mcpS, d), append(mcpR, d/c)
	}
	f.Context, f.Browser, f.BrowserRatio = NewDist(ctxS), NewDist(brS), Median(brR)
	if !o.SkipMCP {
		f.MCP, f.MCPRatio = NewDist(mcpS), Median(mcpR)
	}
	return f, nil
}

// timeStart makes a fresh tenant (untimed), times start(url) in ms and closes the tenant.
func timeStart(newURL func() (string, func(), error), start func(url string) error) (float64, error) {
	u, done, err := newURL()
	if err != nil {
		return 0, err
	}
	defer done()
	t0 := time.Now()
	err = start(u)
	return ms(time.Since(t0)), err
}

// openStart opens a fresh context and page in b, loads url and closes the context.
func openStart(b *browser.Browser, url string) error {
	s, err := b.NewSession(browser.SessionOptions{})
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Navigate(url)
}

// launchStart launches a fresh browser, loads url in a new context and closes the browser.
func launchStart(drv *browser.Driver, url string) error {
	b, err := drv.Launch(browser.LaunchOptions{ExecutablePath: chromiumPath(), Headless: true})
	if err != nil {
		return err
	}
	err = openStart(b, url)
	_ = b.Close()
	return err
}

// mcpStart starts an MCP server, navigates to url and shuts the server down.
func mcpStart(ctx context.Context, mo MCPOptions, url string) error {
	mc, err := StartMCP(ctx, mo)
	if err != nil {
		return err
	}
	r, err := mcpSide{mc}.call(ctx, browser.ToolNavigate, map[string]any{"url": url})
	_ = mc.Close()
	if err == nil && r.isErr {
		err = errors.New(r.text)
	}
	return err
}
