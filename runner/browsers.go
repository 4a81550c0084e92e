package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"webbench/browser"
	"webbench/results"
	"webbench/suites"
)

// BrowserError is what Run returns when the remote browser server (Options.BrowserEndpoint) cannot serve the
// run: before it starts, the connect failed or the remote browser could not load the suite's start page
// (nothing is written then: no manifest, no record); during it, the server stayed unreachable for the whole
// reconnect window (Options.BrowserReconnect) — the run stops, the records so far are kept, and the attempts
// not recorded run again on resume.
type BrowserError struct {
	// Err is browser.Driver.Launch's error (the redacted endpoint, what went wrong and the fix; it wraps
	// browser.ErrVersionMismatch when the server runs another Playwright version), or the failed page load,
	// wrapping ErrBrowserUnreachable.
	Err error
	// Running is true when the run had started (the server went away for good during it).
	Running bool
}

// Error says why, and whether the run did not start or stopped.
func (e *BrowserError) Error() string {
	if e.Running {
		return "remote browser server: " + e.Err.Error() + "\nthe run stopped: the records so far are kept; " +
			"run the same command again once the server is back to resume"
	}
	return "remote browser server: " + e.Err.Error() + "\nthe run did not start: nothing was written"
}

// Unwrap returns Err.
func (e *BrowserError) Unwrap() error { return e.Err }

// ErrBrowserUnreachable is wrapped by the BrowserError of a remote browser that connected but could not load
// the suite's start page: every attempt would fail the same way.
var ErrBrowserUnreachable = errors.New("the remote browser cannot reach the suite's pages")

// launchOptions are the browser.LaunchOptions of opts for suite's attempts (a local launch, or the connect to
// BrowserEndpoint).
func launchOptions(opts Options, suite suites.Suite) browser.LaunchOptions {
	return browser.LaunchOptions{ExecutablePath: opts.Chromium, Headless: true, Endpoint: opts.BrowserEndpoint,
		Headers: opts.BrowserHeaders, ExposeNetwork: opts.BrowserExposeNetwork,
		ConnectTimeout: opts.BrowserConnectTimeout, Args: SuiteBrowserArgs(opts.BrowserArgs, suite)}
}

// glChoiceFlags are the Chromium flags by which a caller picks a GL implementation itself; with any of them in
// Options.BrowserArgs the runner leaves GL alone (the caller's choice wins).
var glChoiceFlags = []string{"--use-gl", "--use-angle", "--enable-unsafe-swiftshader"}

// SuiteBrowserArgs are the Chromium flags of the runner's launches for suite's attempts, after
// browser.DefaultLaunchArgs: user (Options.BrowserArgs, in their order, not modified), then
// browser.NoSoftwareGLFlag when suite's pages need no WebGL (suites.NeedsWebGL; 9–10 MiB less anonymous memory
// per worker), unless user already has it or chose a GL implementation (glChoiceFlags). A nil suite adds
// nothing.
func SuiteBrowserArgs(user []string, suite suites.Suite) []string {
	args := slices.Clone(user)
	if suite == nil || suites.NeedsWebGL(suite) {
		return args
	}
	for _, a := range user {
		name, _, _ := strings.Cut(a, "=")
		if name == browser.NoSoftwareGLFlag || slices.Contains(glChoiceFlags, name) {
			return args
		}
	}
	return append(args, browser.NoSoftwareGLFlag)
}

// checkRemoteID is the attempt id of the environment checkRemote opens.
const checkRemoteID = "remote-browser-check"

// checkRemote connects once to opts.BrowserEndpoint (when set) and, when task t's start page is on loopback
// (the Zoo, a suite's own fixture server), loads it there in an environment of its own (opened and closed as
// an attempt's is): a browser server that is up but cannot reach this machine's loopback — one on another
// machine without --browser-expose-network, or a launch-server one, which ignores exposeNetwork — would fail
// every attempt. A start page elsewhere (a live site) is not loaded: a site that is slow, down or blocks the
// browser is each attempt's infrastructure error, as in a local run, not a reason to refuse the run; neither
// is an environment that does not open (a live site's probe). Only a failed connect or a loopback page the
// remote browser cannot load refuse the run (a BrowserError, nothing written).
func checkRemote(ctx context.Context, drv *browser.Driver, opts Options, suite suites.Suite, t *suites.Task) error {
	if opts.BrowserEndpoint == "" {
		return nil
	}
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	notChecked := func(start string) {
		fmt.Fprintf(log, "remote browser check: connected; task %s's start page %s is not on loopback: its load is "+
			"not checked (a page the remote browser cannot reach is each attempt's infrastructure error)\n", t.ID, start)
	}
	lo := launchOptions(opts, suite)
	b, err := drv.Launch(lo)
	if err != nil {
		return &BrowserError{Err: err}
	}
	defer b.Close()
	// An absolute start URL off loopback needs no environment to know the page is not checked (a WebVoyager
	// live site's Open probes the site).
	if u, err := url.Parse(t.Start); err == nil && u.IsAbs() && u.Host != "" && !loopbackHost(u.Hostname()) {
		notChecked(t.Start)
		return nil
	}
	env, err := suite.Open(ctx, *t, checkRemoteID)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(log, "remote browser check: connected; task %s's environment did not open (%s): its start "+
			"page is not checked\n", t.ID, lo.Redact(firstLine(err.Error())))
		return nil
	}
	defer env.Close(context.Background())
	start := env.StartURL()
	su, err := url.Parse(start)
	if err != nil || !loopbackHost(su.Hostname()) {
		notChecked(start)
		return nil
	}
	sess, err := b.NewSession(browser.SessionOptions{ActionTimeout: opts.ActionTimeout, Allowed: env.Allowed})
	if err != nil {
		return &BrowserError{Err: errors.New(lo.Redact("new browser context: " + err.Error()))}
	}
	defer sess.Close()
	if err := sess.Navigate(start); err != nil {
		host := su.Hostname()
		hint := "the server runs on another machine and this machine's loopback (where the suite listens, host " +
			host + ") is not exposed to it: pass --browser-expose-network '<loopback>' (it covers localhost, " +
			"127.0.0.1 and [::1]) with a server in 'playwright run-server' mode"
		if opts.BrowserExposeNetwork != "" {
			hint = "--browser-expose-network " + opts.BrowserExposeNetwork + " was given, but a rule must match the " +
				"start page's host as written (" + host + ": a rule for 127.0.0.1 does not match localhost, nor " +
				"localhost 127.0.0.1; '<loopback>' matches both), and a server started with launchServer (the " +
				"driver's launch-server) ignores exposeNetwork: start it with 'playwright run-server' instead, or " +
				"run it on this machine"
		}
		return &BrowserError{Err: fmt.Errorf("%w: the remote browser at %s could not load task %s's start page "+
			"%s (%s). Likely cause: %s; or a firewall or proxy between the browser and the page",
			ErrBrowserUnreachable, browser.RedactEndpoint(opts.BrowserEndpoint), t.ID, start,
			lo.Redact(firstLine(err.Error())), hint)}
	}
	return nil
}

// loopbackHost reports whether host (a URL's Hostname) is this machine's loopback: localhost (or a name under
// .localhost), 127.0.0.0/8 or ::1.
func loopbackHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}

// remoteDown is what the workers of a run know of a remote browser server that cannot be reached: since when
// (zero while the last connect succeeded), how many connects failed since, and the last one's error.
type remoteDown struct {
	mu    sync.Mutex
	since time.Time
	tries int
	last  error
}

// left is the time left in the reconnect window (window itself while the server is up).
func (r *remoteDown) left(window time.Duration) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.since.IsZero() {
		return window
	}
	return time.Until(r.since.Add(window))
}

// failed notes a failed connect, tried at start, and returns the time left in the window it started or is part
// of. The window starts when the first failed connect was tried, not when it failed: a black-holed server's
// connect timeout is part of the window, not added to it.
func (r *remoteDown) failed(err error, start time.Time, window time.Duration) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.since.IsZero() {
		r.since = start
	}
	r.tries++
	r.last = err
	return time.Until(r.since.Add(window))
}

// up notes a connect that succeeded: the window closes.
func (r *remoteDown) up() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.since, r.tries, r.last = time.Time{}, 0, nil
}

// gaveUp is the error that stops the run once the window expired.
func (r *remoteDown) gaveUp(window time.Duration) *BrowserError {
	r.mu.Lock()
	defer r.mu.Unlock()
	if window < 0 {
		return &BrowserError{Running: true, Err: fmt.Errorf("unreachable: the first failed connect stops the run "+
			"(--browser-reconnect 0): %w", r.last)}
	}
	return &BrowserError{Running: true, Err: fmt.Errorf("unreachable for the whole reconnect window, %s "+
		"(--browser-reconnect), %s by the workers failed: %w", window, results.Count(r.tries, "connect", "connects"), r.last)}
}

// browser returns the worker's browser, launching or connecting a new one when there is none or it is no
// longer connected (a crash, a lost server). A remote connect that fails is tried again while the run's
// reconnect window (Options.BrowserReconnect, shared by the workers) lasts, or until ctx ends; when it expires,
// or the server answers with another Playwright version, wk.stop is set (the caller stops the run).
func (wk *worker) browser(ctx context.Context) (*browser.Browser, error) {
	if wk.b != nil && wk.b.IsConnected() {
		return wk.b, nil
	}
	if wk.b != nil {
		_ = wk.b.Close()
		wk.b = nil
	}
	lo := launchOptions(wk.opts, wk.suite)
	if lo.Endpoint == "" {
		b, err := wk.drv.Launch(lo)
		if err != nil {
			return nil, err
		}
		wk.got(b)
		return b, nil
	}
	if wk.down == nil {
		wk.down = &remoteDown{}
	}
	window := wk.opts.BrowserReconnect
	if window == 0 {
		window = DefaultBrowserReconnect
	}
	timeout := lo.ConnectTimeout
	if timeout <= 0 {
		timeout = browser.DefaultConnectTimeout
	}
	wait := 250 * time.Millisecond
	for {
		left := wk.down.left(window)
		if window < 0 {
			left = timeout // one try
		}
		if left <= 0 {
			wk.stop = wk.down.gaveUp(window)
			return nil, wk.stop
		}
		lo.ConnectTimeout = max(min(timeout, left).Truncate(10*time.Millisecond), 10*time.Millisecond)
		tried := time.Now()
		b, err := wk.drv.Launch(lo)
		if err == nil {
			wk.down.up()
			wk.got(b)
			return b, nil
		}
		if errors.Is(err, browser.ErrVersionMismatch) {
			wk.stop = &BrowserError{Running: true, Err: err}
			return nil, err
		}
		left = wk.down.failed(err, tried, window)
		if left <= 0 || window < 0 {
			wk.stop = wk.down.gaveUp(window)
			return nil, wk.stop
		}
		select {
		case <-time.After(min(wait, left)):
		case <-ctx.Done():
			return nil, err
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// got makes b the worker's browser and counts it.
func (wk *worker) got(b *browser.Browser) {
	wk.b = b
	if wk.launched != nil {
		wk.launched(b)
	}
}

func (wk *worker) close() {
	if wk.b != nil {
		_ = wk.b.Close()
	}
}
