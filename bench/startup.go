package bench

import (
	"context"
	"fmt"
	"time"

	"webbench/agent/browser"
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
	open := func(b *browser.Browser, url string) error {
		s, err := b.NewSession(browser.SessionOptions{})
		if err != nil {
			return err
		}
		defer s.Close()
		return s.Navigate(url)
	}
	newURL := func() (string, func(), error) {
		t, err := srv.NewTenant("shop", nil)
		if err != nil {
			return "", nil, err
		}
		return t.URL("/"), t.Close, nil
	}
	// One untimed warm-up of each path (page cache, first-launch effects).
	if u, done, err := newURL(); err == nil {
		_ = open(warm, u)
		done()
	}
	var ctxS, brS, mcpS, brR, mcpR []float64
	for i := 0; i < o.Reps; i++ {
		logf("startup: rep %d/%d", i+1, o.Reps)
		u, done, err := newURL()
		if err != nil {
			return f, err
		}
		t0 := time.Now()
		if err := open(warm, u); err != nil {
			done()
			return f, fmt.Errorf("startup (context): %w", err)
		}
		c := ms(time.Since(t0))
		done()
		ctxS = append(ctxS, c)

		if u, done, err = newURL(); err != nil {
			return f, err
		}
		t0 = time.Now()
		b, err := drv.Launch(browser.LaunchOptions{ExecutablePath: chromiumPath(), Headless: true})
		if err != nil {
			done()
			return f, err
		}
		err = open(b, u)
		_ = b.Close()
		d := ms(time.Since(t0))
		done()
		if err != nil {
			return f, fmt.Errorf("startup (browser): %w", err)
		}
		brS, brR = append(brS, d), append(brR, d/c)

		if o.SkipMCP {
			continue
		}
		if u, done, err = newURL(); err != nil {
			return f, err
		}
		t0 = time.Now()
		mc, err := StartMCP(ctx, o.MCP)
		if err != nil {
			done()
			return f, err
		}
		text, isErr, err := mcpSide{mc}.call(ctx, "browser_navigate", map[string]any{"url": u})
		_ = mc.Close()
		d = ms(time.Since(t0))
		done()
		if err != nil {
			return f, err
		}
		if isErr {
			return f, fmt.Errorf("startup (mcp): %s", text)
		}
		mcpS, mcpR = append(mcpS, d), append(mcpR, d/c)
	}
	f.Context, f.Browser, f.BrowserRatio = NewDist(ctxS), NewDist(brS), Median(brR)
	if !o.SkipMCP {
		f.MCP, f.MCPRatio = NewDist(mcpS), Median(mcpR)
	}
	return f, nil
}
