package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"webbench/agent"
	"webbench/agent/guard"
	"webbench/browser"
	"webbench/llm"
	"webbench/results"
	"webbench/scripted"
	"webbench/suites"

	playwright "github.com/mxschmitt/playwright-go"
	"github.com/sourcegraph/conc/pool"
)

// Options control execution.
type Options struct {
	// OutDir is the run directory (created; resumed when it holds records).
	OutDir string
	// Workers is the number of parallel workers, each owning one browser (default: number of cores).
	Workers int
	// Retries of an attempt after infrastructure errors (default 2).
	Retries int
	// Shard selects part of the plan.
	Shard Shard
	// Browser settings: the driver folder and Chromium binary (browser.DriverOptions, LaunchOptions), or
	// BrowserEndpoint, a remote Playwright browser server's ws:// or wss:// URL (nothing is launched locally then).
	DriverDir, Chromium, BrowserEndpoint string
	// BrowserHeaders are HTTP headers sent with every connect to BrowserEndpoint (an Authorization token of a
	// hosted pool). Their values are secrets: the manifest records their names only, and they appear in no
	// record, log line or error the runner writes.
	BrowserHeaders map[string]string
	// BrowserExposeNetwork is Playwright's connect option exposeNetwork (browser.LaunchOptions.ExposeNetwork):
	// "<loopback>" lets a browser server on another machine reach the Zoo on this machine's loopback, through
	// the connection (servers in `playwright run-server` mode; launchServer ignores it).
	BrowserExposeNetwork string
	// BrowserConnectTimeout bounds one connect to BrowserEndpoint (0: browser.DefaultConnectTimeout, 30 s).
	BrowserConnectTimeout time.Duration
	// BrowserReconnect is how long BrowserEndpoint may stay unreachable during a run — one window shared by all
	// workers, from the start of the first failed connect (its connect timeout included) to the next that
	// succeeds — while workers reconnect (a server restarting, a pool scaling), waiting 0.25 s, 0.5 s, … up to
	// 5 s between tries, each try bounded by the time left. When it expires the run stops with a *BrowserError (Running): the attempts in flight are not
	// recorded and run again on resume. 0: DefaultBrowserReconnect; negative: the first failed connect stops
	// the run.
	BrowserReconnect time.Duration
	// ActionTimeout per browser action (default 5 s).
	ActionTimeout time.Duration
	// Screenshots keeps screenshots after each step (for the llm judge) and writes the last ones to the run dir.
	Screenshots bool
	// Log receives progress lines and the model endpoints' connection-limiter lines (llm.SetLimiterLog; default
	// os.Stderr); Progress draws a bar when Log is a terminal.
	Log io.Writer
	// MaxCostUSD stops scheduling new attempts once recorded spend reaches it (0 = no limit).
	MaxCostUSD float64
	// RunID names the run (default: the run directory's base name).
	RunID string
	// DisableEvaluate removes browser_evaluate from the agent's tools.
	DisableEvaluate bool
	// BrowserArgs are extra Chromium command-line arguments.
	BrowserArgs []string
	// Trace records a Playwright trace of every attempt and keeps it as traces/<attempt_id>.zip in the run
	// directory when the attempt did not pass (open with `npx playwright show-trace`).
	Trace bool
}

// DefaultBrowserReconnect is Options.BrowserReconnect's default: how long a remote browser server may stay
// unreachable during a run before the run stops.
const DefaultBrowserReconnect = 60 * time.Second

// EndpointError is what Run returns when a model endpoint answered with an error class that stops the whole
// run (llm.ErrorClass.Fatal: config — a mistyped model name, a base URL without /v1, an invalid request;
// auth — a bad key; quota — out of credit), in the preflight or in an attempt. Nothing about it is recorded as
// an attempt: the attempt that met it and those in flight are abandoned unrecorded (as on an interrupt) and
// re-run when the same run directory is run again, so nothing already recorded is lost and the run resumes
// once the cause is fixed. The manifest's summary says why the run stopped.
type EndpointError struct {
	// Variant names the arm whose endpoint answered; BaseURL and Model are its endpoint.
	Variant, BaseURL, Model string
	// Preflight is true when the preflight request (llm.Client.Preflight) met it, before any attempt ran.
	Preflight bool
	// Err is the classified endpoint error: the server's message and a hint.
	Err *llm.Error
}

// Error names the variant and endpoint, then the endpoint error (class, HTTP status, the server's message and
// the hint).
func (e *EndpointError) Error() string {
	when := "during the run"
	if e.Preflight {
		when = "at the preflight, before any attempt"
	}
	return fmt.Sprintf("variant %s: %s at %s %s: %v", e.Variant, e.Model, e.BaseURL, when, e.Err)
}

// Unwrap returns the *llm.Error.
func (e *EndpointError) Unwrap() error { return e.Err }

// ExitCode is the exit code of the error's class (llm.ErrorClass.ExitCode: config 2, auth and quota 3).
func (e *EndpointError) ExitCode() int { return e.Err.Class.ExitCode() }

// Run executes plan into opts.OutDir, skipping attempts already recorded as pass/fail, and returns a summary.
// Cancelling ctx stops scheduling, abandons in-flight attempts without recording them (they re-run on resume)
// and returns ctx.Err().
func Run(ctx context.Context, plan Plan, suite suites.Suite, opts Options) (*Summary, error) {
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if opts.Retries < 0 {
		opts.Retries = 0
	}
	if opts.Log == nil {
		opts.Log = os.Stderr
	}
	// The connection limiters' window changes (halved on 429, grown back) go where the run log goes, the
	// preflight's included; the process-wide default (standard error) is back once the run returns.
	llm.SetLimiterLog(opts.Log)
	defer llm.SetLimiterLog(os.Stderr)
	all, err := plan.Expand()
	if err != nil {
		return nil, err
	}
	atts := opts.Shard.Select(all)
	prev, err := previous(opts.OutDir, plan)
	if err != nil {
		return nil, err
	}
	sum := &Summary{Planned: len(atts)}
	todo, retriesSoFar := remaining(atts, prev, sum)
	todo = shufflePairs(todo, plan.BaseSeed)
	if len(todo) == 0 && len(prev.Records) > 0 && manifestVersion(opts.OutDir) >= results.SchemaVersion {
		// A finished run run again: its manifest (start time, endpoints, the summary of the invocation that
		// recorded the attempts) stays as it is. (An older schema's manifest is rewritten below, its times and
		// summary kept.)
		fmt.Fprintf(opts.Log, "%s already recorded in %s: nothing to run\n", allPlanned(sum.Planned), opts.OutDir)
		return sum, nil
	}
	var agents map[string]*agentFor
	var endpoints []results.Endpoint
	var drv *browser.Driver
	if len(todo) > 0 {
		// A mistyped agent command is a clear error now, never N attempts of 0 %.
		if err := checkAgents(plan, opts); err != nil {
			return nil, err
		}
		if err := checkTools(plan, opts); err != nil {
			return nil, err
		}
		var stopAgents func()
		agents, stopAgents, err = startAgents(plan, suite)
		if err != nil {
			return nil, err
		}
		defer stopAgents()
		// The preflight comes before anything is written: a run stopped by it leaves no record, no manifest and
		// no new directory, so the fixed command (another model name, base URL or key) starts afresh there.
		if endpoints, err = preflight(ctx, plan, agents, todo, opts.Log); err != nil {
			return nil, err
		}
		if drv, err = browser.StartDriver(browser.DriverOptions{DriverDir: opts.DriverDir}); err != nil {
			return nil, err
		}
		defer drv.Stop()
		// A remote browser server is checked before anything is written, as a model endpoint is: a wrong URL,
		// header or Playwright version, or a browser that cannot reach the suite, would fail every attempt.
		if err := checkRemote(ctx, drv, opts, suite, todo[0].Task); err != nil {
			return nil, err
		}
	}
	// The manifest as it was before this invocation rewrites it (an older schema's is upgraded below).
	old, oldErr := results.ReadManifest(opts.OutDir)
	w, err := results.OpenWriter(opts.OutDir)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	man, err := startManifest(w, plan, opts, endpoints, prev)
	if err != nil {
		return nil, err
	}
	if len(todo) == 0 {
		fmt.Fprintf(opts.Log, "%s already recorded in %s: nothing to run\n", allPlanned(sum.Planned), opts.OutDir)
		if oldErr == nil && old.Summary != nil && len(prev.Records) > 0 {
			// Upgrading an older schema's manifest: what it says of the run's end stays.
			man.EndedAt, man.Summary = old.EndedAt, old.Summary
			return sum, results.WriteManifest(w.Dir(), man)
		}
		finishManifest(w, man, sum)
		return sum, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	prog := newProgress(opts.Log, len(todo), sum.Skipped)
	defer prog.close()
	sc := &scheduler{drv: drv, opts: opts, suite: suite, agents: agents, w: w, prior: retriesSoFar, sum: sum,
		prog: prog, cancel: cancel}
	perr := sc.run(ctx, todo)
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		sum.Stopped = cause.Error()
	} else if ctx.Err() != nil {
		sum.Stopped = "interrupted"
	}
	man.Browser = sc.browserInfo()
	finishManifest(w, man, sum)
	var ee *EndpointError
	if errors.As(context.Cause(ctx), &ee) {
		return sum, ee
	}
	var be *BrowserError
	if errors.As(context.Cause(ctx), &be) {
		return sum, be
	}
	if perr != nil && !errors.Is(perr, context.Canceled) {
		return sum, perr
	}
	if sum.Stopped == "interrupted" {
		return sum, context.Canceled
	}
	return sum, nil
}

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

// launchOptions are the browser.LaunchOptions of opts (a local launch, or the connect to BrowserEndpoint).
func launchOptions(opts Options) browser.LaunchOptions {
	return browser.LaunchOptions{ExecutablePath: opts.Chromium, Headless: true, Endpoint: opts.BrowserEndpoint,
		Headers: opts.BrowserHeaders, ExposeNetwork: opts.BrowserExposeNetwork,
		ConnectTimeout: opts.BrowserConnectTimeout, Args: opts.BrowserArgs}
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
	lo := launchOptions(opts)
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

// remaining lists the attempts of atts still to run (no pass/fail record in prev), counting the others in
// sum.Skipped, and how many records each already has (its retries so far).
func remaining(atts []Attempt, prev *results.ReadResult, sum *Summary) ([]Attempt, map[string]int) {
	records := map[string]int{}
	for _, r := range prev.Records {
		records[r.AttemptID]++
	}
	var todo []Attempt
	retriesSoFar := map[string]int{}
	for _, a := range atts {
		if r, ok := prev.Latest[a.AttemptID]; ok && r.Judged() {
			sum.Skipped++
			continue
		}
		if n := records[a.AttemptID]; n > 0 {
			retriesSoFar[a.AttemptID] = n
		}
		todo = append(todo, a)
	}
	return todo, retriesSoFar
}

// startAgents starts one in-process scripted policy server per scripted profile of the plan and builds every
// variant's agent; stop closes the servers.
func startAgents(plan Plan, suite suites.Suite) (agents map[string]*agentFor, stop func(), err error) {
	var servers []*scripted.Server
	stop = func() {
		for _, srv := range servers {
			srv.Close()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	endpoints := map[string]string{}
	for _, v := range plan.Variants {
		if v.Model.Kind != "scripted" {
			continue
		}
		if _, ok := endpoints[v.Model.Profile]; ok {
			continue
		}
		srv, url, err := scripted.StartLoopback(suite.Tasks(), v.Model.Profile)
		if err != nil {
			return nil, nil, fmt.Errorf("start scripted policy: %w", err)
		}
		servers = append(servers, srv)
		endpoints[v.Model.Profile] = url
	}
	agents = map[string]*agentFor{}
	for i := range plan.Variants {
		v := &plan.Variants[i]
		af, err := newAgentFor(v, endpoints[v.Model.Profile])
		if err != nil {
			return nil, nil, fmt.Errorf("variant %s: %w", v.Name, err)
		}
		agents[v.Name] = af
	}
	return agents, stop, nil
}

// scheduler feeds attempts to a pool of workers, each owning one browser, and keeps the summary; it stops
// the run (cancel) on an endpoint error that stops runs (EndpointError) or when the cost limit is reached.
type scheduler struct {
	drv    *browser.Driver
	opts   Options
	suite  suites.Suite
	agents map[string]*agentFor
	w      *results.Writer
	prior  map[string]int
	sum    *Summary
	prog   *progress
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	spent atomic.Uint64 // micro-dollars

	bmu      sync.Mutex
	launches int
	versions []string

	// down is the remote browser server's state, shared by the workers (one reconnect window for the run).
	down remoteDown
}

// launched counts a browser a worker launched or connected, and its version.
func (sc *scheduler) launched(b *browser.Browser) {
	v := b.Version()
	sc.bmu.Lock()
	defer sc.bmu.Unlock()
	sc.launches++
	if v != "" && !slices.Contains(sc.versions, v) {
		sc.versions = append(sc.versions, v)
	}
}

// browserInfo is the manifest's browser section for this invocation so far.
func (sc *scheduler) browserInfo() *results.BrowserInfo {
	sc.bmu.Lock()
	defer sc.bmu.Unlock()
	return browserInfo(sc.opts, sc.launches, sc.versions)
}

// browserInfo is the manifest's browser section of opts after launches launches or connects that reported
// versions.
func browserInfo(opts Options, launches int, versions []string) *results.BrowserInfo {
	bi := &results.BrowserInfo{Launches: launches, Versions: slices.Clone(versions)}
	if opts.BrowserEndpoint != "" {
		bi.Remote = true
		bi.Endpoint = browser.RedactEndpoint(opts.BrowserEndpoint)
		bi.ExposeNetwork = opts.BrowserExposeNetwork
		bi.Headers = slices.Sorted(maps.Keys(opts.BrowserHeaders))
	}
	return bi
}

// run schedules todo on min(Workers, len(todo)) workers and waits for them.
func (sc *scheduler) run(ctx context.Context, todo []Attempt) error {
	jobs := make(chan Attempt)
	p := pool.New().WithErrors().WithContext(ctx)
	for range min(sc.opts.Workers, len(todo)) {
		p.Go(func(ctx context.Context) error {
			wk := &worker{drv: sc.drv, opts: sc.opts, launched: sc.launched, down: &sc.down}
			defer wk.close()
			for a := range jobs {
				if ctx.Err() != nil {
					continue
				}
				af := sc.agents[a.Variant]
				rec, ok, fatal := wk.attempt(ctx, a, sc.suite, af, sc.w, sc.prior[a.AttemptID])
				if wk.stop != nil {
					sc.cancel(wk.stop)
					continue
				}
				if fatal != nil {
					cfg := af.client.Config()
					sc.cancel(&EndpointError{Variant: a.Variant, BaseURL: cfg.BaseURL, Model: cfg.Model, Err: fatal})
					continue
				}
				if ok {
					sc.record(rec)
				}
			}
			return nil
		})
	}
feed:
	for _, a := range todo {
		select {
		case jobs <- a:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	return p.Wait()
}

// record counts a finished attempt and applies the cost stop. The spend counts CostUSD whatever the tokens'
// origin: estimated usage (an endpoint that sends none) is priced like reported usage.
func (sc *scheduler) record(rec results.Attempt) {
	sc.mu.Lock()
	sc.sum.Ran++
	switch rec.Status {
	case results.StatusPass:
		sc.sum.Passed++
	case results.StatusFail:
		sc.sum.Failed++
	default:
		if rec.ErrorClass == results.ClassUncertain {
			sc.sum.Uncertain++
		} else {
			sc.sum.Errors++
		}
	}
	sc.mu.Unlock()
	sc.prog.done(rec)
	sc.spent.Add(uint64(rec.CostUSD * 1e6))
	if sc.opts.MaxCostUSD > 0 && float64(sc.spent.Load())/1e6 >= sc.opts.MaxCostUSD {
		sc.cancel(fmt.Errorf("cost limit $%.2f reached", sc.opts.MaxCostUSD))
	}
}

// Agent is what plays one attempt in its prepared browser session (start page open) and produces the attempt's
// trajectory (results.Trajectory, the record the runner completes and writes to trajectories/). A non-nil error
// is an infrastructure error of the attempt (recorded, retried), except an *llm.Error of a class that stops runs
// (llm.ErrorClass.Fatal), which stops the run with the attempt unrecorded (EndpointError). The built-in ReAct
// agent (*agent.Agent) is the one implementation today; the runner depends on this contract only.
type Agent interface {
	Run(ctx context.Context, task agent.Task, tools browser.Backend) (*results.Trajectory, error)
}

var _ Agent = (*agent.Agent)(nil)

// agentFor holds one variant's agent and model client.
type agentFor struct {
	v      *Variant
	client *llm.Client
	cfg    agent.Config
	prompt string
}

func newAgentFor(v *Variant, scriptedURL string) (*agentFor, error) {
	cfg := LLMConfig(v.Model, scriptedURL)
	// Seed mode "none" sends no seed: the client knows it too, so its preflight sends none either.
	cfg.NoSeed = cfg.NoSeed || v.Seed == "none"
	client, err := llm.New(cfg)
	if err != nil {
		return nil, err
	}
	hooks, err := guard.Build(v.Guards)
	if err != nil {
		return nil, err
	}
	prompt, err := agent.LoadPrompt(v.PromptFile)
	if err != nil {
		return nil, err
	}
	obs, err := agent.ParseObservation(v.Observation)
	if err != nil {
		return nil, err
	}
	return &agentFor{v: v, client: client, prompt: prompt,
		cfg: agent.Config{MaxSteps: v.MaxSteps, Timeout: v.Timeout, SystemPrompt: prompt, Hooks: hooks,
			Observation: obs}}, nil
}

// worker owns one browser; it relaunches it after a crash, or reconnects to a remote server that went away.
type worker struct {
	drv      *browser.Driver
	b        *browser.Browser
	opts     Options
	launched func(*browser.Browser)
	// down is the remote server's state shared by the run's workers (nil: the worker's own).
	down *remoteDown
	// stop, once set, is the error that stops the run: the remote server stayed unreachable for the whole
	// reconnect window, or came back with another Playwright version.
	stop *BrowserError
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
	lo := launchOptions(wk.opts)
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

// attempt runs one attempt with infra retries; ok is false when it was abandoned (interrupt, an endpoint
// error that stops the run: fatal, which is never recorded, or a remote browser server gone for good: wk.stop).
func (wk *worker) attempt(ctx context.Context, a Attempt, suite suites.Suite, af *agentFor, w *results.Writer,
	prior int) (rec results.Attempt, ok bool, fatal *llm.Error) {
	for try := 0; ; try++ {
		rec, fatal = wk.once(ctx, a, suite, af, w)
		if fatal != nil {
			return rec, false, fatal
		}
		if wk.stop != nil {
			// The remote browser server is gone for good: the run stops, this attempt runs again on resume.
			return rec, false, nil
		}
		if ctx.Err() != nil {
			return rec, false, nil
		}
		rec.Retries = prior + try
		if rec.Judged() || rec.Status != results.StatusError || try >= wk.opts.Retries {
			break
		}
		// Record the failed try (the last line of an attempt id is its record), back off, retry.
		if err := w.Append(rec); err != nil {
			fmt.Fprintf(wk.opts.Log, "warning: %v\n", err)
		}
		select {
		case <-time.After(time.Duration(500*(1<<try)) * time.Millisecond):
		case <-ctx.Done():
			return rec, false, nil
		}
	}
	if err := w.Append(rec); err != nil {
		fmt.Fprintf(wk.opts.Log, "error: %v\n", err)
	}
	return rec, true, nil
}

// once runs the attempt a single time and builds its record; fatal is the endpoint error that stops the run
// when the agent met one (the record is then not to be written).
func (wk *worker) once(ctx context.Context, a Attempt, suite suites.Suite, af *agentFor, w *results.Writer) (_ results.Attempt, fatal *llm.Error) {
	rec := wk.play(ctx, a, suite, af, w, &fatal)
	return rec, fatal
}

// play runs the attempt once and builds its record, setting *fatal when the agent met an endpoint error that
// stops the run.
func (wk *worker) play(ctx context.Context, a Attempt, suite suites.Suite, af *agentFor, w *results.Writer, fatal **llm.Error) results.Attempt {
	t := a.Task
	rec := results.Attempt{AttemptID: a.AttemptID, PairID: a.PairID, Variant: a.Variant, TaskID: t.ID,
		Suite: t.Suite, Cluster: t.Cluster, Rep: a.Rep, Seed: a.Seed, Model: af.v.Model.String(), Agent: af.v.Agent.String(),
		Guards: guardMap(af.v.Guards), StartedAt: time.Now().UTC().Format(time.RFC3339), Meta: t.Meta}
	if rec.Cluster == "" {
		rec.Cluster = t.ID
	}
	infra := func(err error) results.Attempt {
		rec.Status, rec.ErrorClass, rec.Error = results.StatusError, results.ClassInfra, llm.RedactString(err.Error())
		rec.FailureMode = results.ModeInfra
		return rec
	}
	start := time.Now()
	env, err := suite.Open(ctx, *t, a.AttemptID)
	if err != nil {
		return infra(fmt.Errorf("open environment: %w", err))
	}
	defer env.Close(context.Background())
	if af.v.Tools != nil {
		rec = wk.playMCP(ctx, a, af, w, env, rec, start, infra, fatal)
		return rec
	}
	b, err := wk.browser(ctx)
	if err != nil {
		return infra(fmt.Errorf("launch browser: %w", err))
	}
	sess, err := b.NewSession(browser.SessionOptions{ActionTimeout: wk.opts.ActionTimeout, Allowed: env.Allowed,
		DisableEvaluate: wk.opts.DisableEvaluate})
	if err != nil {
		wk.b = nil
		_ = b.Close()
		return infra(fmt.Errorf("new browser context: %w", err))
	}
	defer func() {
		// A context that does not close means the browser is hung or gone: relaunch it for the next attempt.
		if err := sess.Close(); errors.Is(err, browser.ErrUnresponsive) && wk.b == b {
			wk.b = nil
			_ = b.Close()
		}
	}()
	if wk.opts.Trace {
		if err := sess.Context().Tracing().Start(playwright.TracingStartOptions{Screenshots: playwright.Bool(true),
			Snapshots: playwright.Bool(true), Title: playwright.String(t.ID)}); err == nil {
			defer func() {
				if rec.Status == results.StatusPass {
					_ = sess.Context().Tracing().Stop()
					return
				}
				p := filepath.Join(w.Dir(), "traces", a.AttemptID+".zip")
				_ = os.MkdirAll(filepath.Dir(p), 0o755)
				_ = sess.Context().Tracing().Stop(p)
			}()
		}
	}
	if err := sess.Navigate(env.StartURL()); err != nil {
		return infra(fmt.Errorf("open start page: %w", err))
	}
	if af.v.Agent != nil {
		// Assigned to rec before returning, as below: the trace's deferred stop reads it.
		rec = wk.playExternal(ctx, a, af, w, env, sess, b, rec, start, infra, fatal)
		return rec
	}
	var ag Agent = agent.New(wk.agentConfig(a, af), af.client)
	tr, runErr := ag.Run(ctx, agent.Task{ID: t.ID, Goal: t.Goal}, sess)
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
	if !b.IsConnected() {
		wk.b = nil
		return infra(errors.New("browser disconnected during the attempt (crashed or killed)"))
	}
	// Assigned to rec before returning: the trace's deferred stop keeps the trace of an attempt that did not pass.
	rec = wk.conclude(ctx, rec, a, af, w, env, sess.Screenshots(), sess.ScreenshotSteps(), tr)
	return rec
}

// agentConfig is the built-in agent's configuration for attempt a: the variant's, with the task's budgets where
// the variant sets none, the attempt's seed and the run's screenshot setting.
func (wk *worker) agentConfig(a Attempt, af *agentFor) agent.Config {
	t := a.Task
	cfg := af.cfg
	if t.MaxSteps > 0 && af.v.MaxSteps == 0 {
		cfg.MaxSteps = t.MaxSteps
	}
	if t.Timeout > 0 && af.v.Timeout == 0 {
		cfg.Timeout = t.Timeout
	}
	cfg.Seed = a.Seed
	cfg.Screenshots = wk.opts.Screenshots
	return cfg
}

func guardMap(g map[string]bool) map[string]bool {
	out := guard.Default()
	for k, v := range g {
		out[k] = v
	}
	return out
}

// ErrPlanMismatch is returned when the run directory holds a run of another plan: resuming it would report
// the old records under the new configuration.
var ErrPlanMismatch = errors.New("run directory holds a different plan")

// previous reads the records already in dir for resuming, after checking that dir holds a run of the same
// plan (checkSamePlan), through results.Open. A directory without a manifest is a new run (refused when it
// holds records all the same); so is one whose manifest is there but no attempt was recorded.
func previous(dir string, plan Plan) (*results.ReadResult, error) {
	run, err := results.Open(dir)
	switch {
	case errors.Is(err, results.ErrNoManifest):
		// A new run: the manifest is written before any record, so records without one are no run of this bench.
		if st, err := os.Stat(filepath.Join(dir, results.AttemptsFile)); err == nil && st.Size() > 0 {
			return nil, fmt.Errorf("%w: %s holds records but no %s", ErrPlanMismatch, dir, results.ManifestFile)
		}
		return &results.ReadResult{Latest: map[string]results.Attempt{}}, nil
	case errors.Is(err, results.ErrBadManifest):
		return nil, fmt.Errorf("%w: %v", ErrPlanMismatch, err)
	case err != nil:
		return nil, err
	}
	if len(run.Records) == 0 && !run.TornTail {
		// A run that recorded nothing (stopped by the preflight's or its first attempt's endpoint error, or
		// interrupted early) has nothing to mix with: the fixed command starts it afresh.
		return &results.ReadResult{Latest: map[string]results.Attempt{}}, nil
	}
	if err := checkSamePlan(dir, run.Manifest.Plan, plan.Record()); err != nil {
		return nil, err
	}
	rr := &results.ReadResult{Records: run.Records, Latest: map[string]results.Attempt{}, TornTail: run.TornTail}
	for _, a := range run.Final() {
		rr.Order = append(rr.Order, a.AttemptID)
		rr.Latest[a.AttemptID] = a
	}
	return rr, nil
}

// checkSamePlan refuses a run directory whose manifest records other variants (model, profile, guards, prompt
// file, budgets, seed mode, scope), another suite or another base seed. Other tasks or more reps extend the run
// and are allowed (so the variants' target tasks and prompt hashes are not compared).
func checkSamePlan(dir string, old, cur results.Plan) error {
	why := ""
	switch {
	case old.Suite != cur.Suite:
		why = fmt.Sprintf("suite %q, now %q", old.Suite, cur.Suite)
	case old.BaseSeed != cur.BaseSeed:
		why = fmt.Sprintf("base seed %d, now %d", old.BaseSeed, cur.BaseSeed)
	default:
		o, n := configJSON(old.Variants), configJSON(cur.Variants)
		if slices.Equal(o, n) {
			return nil
		}
		why = "other variants (model, profile, guards, prompt, budgets or seed mode differ)"
		for i := range min(len(o), len(n)) {
			if o[i] != n[i] {
				why = fmt.Sprintf("variant %s was %s, now %s", cur.Variants[i].Name, o[i], n[i])
				break
			}
		}
	}
	return fmt.Errorf("%w: %s was run with %s; resuming would mix configurations — use another --out", ErrPlanMismatch, dir, why)
}

// configJSON is each variant's configuration as JSON, without what extending the run may change.
func configJSON(vs []results.Variant) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		v.TargetTasks, v.PromptSHA256, v.Switched = nil, "", nil
		v.Model.MaxConnections = 0 // a connection cap changes no result: resuming with another one is allowed
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	return out
}

// shufflePairs returns todo with its pairs (runs of consecutive attempts with the same PairID, as Plan.Expand
// lists them) in an order shuffled deterministically by seed, then stably sorted by the pair's number of
// attempts, most first; each pair's arms stay next to each other and in their order (STATS.md "Pairing").
//
// The shuffle: in task order the pairs of one app come together, and one app's attempts mostly wait (hung
// fetches, intercepted clicks: timeouts) while another's load the CPU (2,000-ref pages), so the workers were idle
// in some stretches and starved in others; spread out, they overlap. Measured on the demo spec (2 cores, workers
// 6, 2026-12-03): 246 s in task order, 228 s shuffled, the same outcome in every arm.
//
// The sort is longest-processing-time-first list scheduling (Graham, "Bounds on multiprocessing timing
// anomalies", SIAM J. Appl. Math. 17(2), 1969), a pair's work counted in attempts of its task. It matters when
// pairs have different numbers of arms (an ablation with scope: target, where an arm runs only its guard's
// tasks): the pairs of tasks that several guards target start first, with them the guard-off attempts that wait
// out a budget (a hung evaluate waits 30 or 60 s), so the run no longer ends on one of those started late, the
// CPU idle. The budget is no estimate: most attempts end long before it, and sorting by it started the demo's
// hung evaluates after its 90 s-budget pairs, at 120-163 s. Replaying six demo runs' recorded attempt durations
// on 6 workers: 191-224 s shuffled, 156-209 s most arms first, within 3 s of the order by the recorded durations.
// A plan whose pairs all have the same arms (bench run, scope: all) keeps the shuffled order.
//
// The order changes no attempt's seed or outcome; only when each runs, and so the Zoo's sequence numbers (order
// and confirmation numbers) an attempt's final answer may hold.
func shufflePairs(todo []Attempt, seed int64) []Attempt {
	var groups [][]Attempt
	for i, a := range todo {
		if i == 0 || todo[i-1].PairID != a.PairID {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], a)
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x51ed270b))
	r.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	slices.SortStableFunc(groups, func(x, y []Attempt) int { return cmp.Compare(len(y), len(x)) })
	return slices.Concat(groups...)
}

// allPlanned is the subject of the nothing-to-run line: "the 1 planned attempt is", "all 8 planned attempts are".
func allPlanned(n int) string {
	if n == 1 {
		return "the 1 planned attempt is"
	}
	return fmt.Sprintf("all %d planned attempts are", n)
}
