package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"webbench/agent"
	"webbench/agent/guard"
	"webbench/browser"
	"webbench/browser/cassette"
	"webbench/llm"
	"webbench/results"
	"webbench/scripted"
	"webbench/suites"

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
	// MaxCostUSD stops starting attempts once the spend recorded in the run directory (earlier invocations'
	// records included: a shard counts its own) reaches it (0 = no limit); the attempts in flight finish and are
	// recorded, and the summary names the budget (Summary.Budget). Both budgets are recorded (Summary.Budgets).
	MaxCostUSD float64
	// MaxAttempts stops starting attempts once the run's attempts across all arms — those with a record before
	// this invocation and those it started — reach it (0 = no limit); the attempts in flight finish.
	MaxAttempts int
	// Sequential is the stopping rule of a plan with a sequential design (Plan.Ablation.Sequential; required
	// then): the attempts it no longer needs are never started, and the plan's attempts start in the design's
	// unit order.
	Sequential Sequencer
	// RunID names the run (default: the run directory's base name).
	RunID string
	// DisableEvaluate removes browser_evaluate from the agent's tools.
	DisableEvaluate bool
	// BrowserArgs are extra Chromium command-line arguments for local launches, after browser.DefaultLaunchArgs;
	// the runner appends browser.NoSoftwareGLFlag for a suite whose pages need no WebGL (SuiteBrowserArgs).
	BrowserArgs []string
	// Trace records a Playwright trace of every attempt and keeps it as traces/<attempt_id>.zip in the run
	// directory when the attempt did not pass (open with `npx playwright show-trace`).
	Trace bool
	// ModelCache is the model-call cache directory (--model-cache; "" = none, llm.Cache): the built-in agent's
	// calls replay from it until an attempt's first request it has not stored, and every response the
	// endpoint gives is stored. With it the endpoints' preflight is skipped, so a replayed run sends nothing;
	// an endpoint error then stops the run at the first call that misses, as any mid-run endpoint error does.
	ModelCache string
	// Cassette, when set, records every attempt's network traffic into its task's tape (a cassette from
	// cassette.Create: --record) or answers it from the tape (cassette.Open: --replay), each replayed
	// attempt's misses in its record (results.Attempt.CassetteMisses) and trajectory. Variants whose tools run
	// in a browser of their own (a Playwright MCP tool backend) are refused: their traffic does not pass
	// through the worker's browser context.
	Cassette *cassette.Cassette
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
	all, err := expandChecked(plan, opts)
	if err != nil {
		return nil, err
	}
	atts := opts.Shard.Select(all)
	prev, err := previous(opts.OutDir, plan, sourcesOf(opts))
	if err != nil {
		return nil, err
	}
	sum := &Summary{Planned: len(atts), Budgets: budgetsOf(opts)}
	todo, retriesSoFar := remaining(atts, prev, sum, opts.Sequential != nil)
	todo, err = startOrder(plan, opts, todo)
	if err != nil {
		return nil, err
	}
	g := newGate(plan, opts, prev)
	todo, _ = g.dropSkipped(todo)
	if len(todo) == 0 && len(prev.Records) > 0 && manifestVersion(opts.OutDir) >= results.SchemaVersion {
		// A finished run run again: its manifest (start time, endpoints, the summary of the invocation that
		// recorded the attempts) stays as it is. (An older schema's manifest is rewritten below, its times and
		// summary kept.)
		fmt.Fprintf(opts.Log, "%s in %s: nothing to run\n", nothingLeft(sum.Planned, g), opts.OutDir)
		sum.SeqSkips = g.summary()
		return sum, nil
	}
	var agents map[string]*agentFor
	var endpoints []results.Endpoint
	var drv *browser.Driver
	if len(todo) > 0 {
		var stop func()
		if agents, endpoints, drv, stop, err = prepare(ctx, plan, suite, opts, todo); err != nil {
			return nil, err
		}
		defer stop()
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
		fmt.Fprintf(opts.Log, "%s in %s: nothing to run\n", nothingLeft(sum.Planned, g), opts.OutDir)
		sum.SeqSkips = g.summary()
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
		prog: prog, cancel: cancel, g: g}
	sc.countPriorSpend(prev.Records)
	perr := sc.run(ctx, todo)
	endSummary(ctx, sum, g)
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

// budgetsOf is the summary's record of opts' budgets (nil: none), counted over this run directory's records.
func budgetsOf(opts Options) *results.Budgets {
	if opts.MaxAttempts <= 0 && opts.MaxCostUSD <= 0 {
		return nil
	}
	return &results.Budgets{MaxAttempts: max(opts.MaxAttempts, 0), MaxCostUSD: max(opts.MaxCostUSD, 0)}
}

// endSummary records in sum why the run stopped early, if it did (ctx's cause, an interrupt, or a budget the gate
// g reached), and what a sequential design left unrun.
func endSummary(ctx context.Context, sum *Summary, g *gate) {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		sum.Stopped = cause.Error()
	} else if ctx.Err() != nil {
		sum.Stopped = "interrupted"
	} else if g.stopped != "" {
		sum.Stopped, sum.Budget = g.stopped, g.budget
	}
	sum.SeqSkips = g.summary()
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
// the run (cancel) on an endpoint error that stops runs (EndpointError), and starts no attempt its gate refuses
// (a sequential design's skips, a budget reached).
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

	// mu guards sum and g.
	mu    sync.Mutex
	g     *gate
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
	return browserInfo(sc.opts, sc.suite, sc.launches, sc.versions)
}

// browserInfo is the manifest's browser section of opts after launches launches or connects that reported
// versions, for suite's attempts (the local launches' flags; suite is not asked with a remote browser).
func browserInfo(opts Options, suite suites.Suite, launches int, versions []string) *results.BrowserInfo {
	bi := &results.BrowserInfo{Launches: launches, Versions: slices.Clone(versions)}
	if opts.BrowserEndpoint == "" {
		bi.Args = browser.RedactArgs(SuiteBrowserArgs(opts.BrowserArgs, suite))
	} else {
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
			wk := &worker{drv: sc.drv, opts: sc.opts, suite: sc.suite, launched: sc.launched, down: &sc.down}
			defer wk.close()
			for a := range jobs {
				if ctx.Err() != nil || !sc.admit(a) {
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
		if sc.refused(a) {
			continue
		}
		select {
		case jobs <- a:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	return p.Wait()
}

// countPriorSpend adds the spend of a resumed run's earlier records (every record, retries included) to the
// cost budget, which is the run's, not the invocation's, as --max-attempts is; a budget already spent starts
// nothing.
func (sc *scheduler) countPriorSpend(recs []results.Attempt) {
	for _, r := range recs {
		sc.spent.Add(uint64(r.PaidUSD() * 1e6))
	}
	sc.checkCost()
}

// checkCost halts new starts once the spend reaches --max-cost (callers hold sc.mu or run before the workers).
func (sc *scheduler) checkCost() {
	if sc.opts.MaxCostUSD > 0 && float64(sc.spent.Load())/1e6 >= sc.opts.MaxCostUSD {
		sc.g.halt(fmt.Sprintf("cost limit $%.2f reached", sc.opts.MaxCostUSD), results.BudgetCost)
	}
}

// record counts a finished attempt and applies the cost stop. The spend counts what was paid (PaidUSD: CostUSD
// less the model cache's replays) whatever the tokens' origin: estimated usage (an endpoint that sends none) is
// priced like reported usage.
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
	sc.spent.Add(uint64(rec.PaidUSD() * 1e6))
	sc.mu.Lock()
	lines := sc.g.record(rec)
	sc.checkCost()
	sc.mu.Unlock()
	for _, l := range lines {
		fmt.Fprintln(sc.opts.Log, l)
	}
}

// admit reports whether the worker may start a (the gate's admit), dropping it from the progress total when not.
func (sc *scheduler) admit(a Attempt) bool {
	sc.mu.Lock()
	ok := sc.g.admit(a)
	sc.mu.Unlock()
	if !ok {
		sc.prog.drop()
	}
	return ok
}

// refused reports whether the gate would refuse a now (a budget reached, or the design no longer needs it), so
// the feeder need not hand it to a worker; it drops a refused attempt from the progress total.
func (sc *scheduler) refused(a Attempt) bool {
	sc.mu.Lock()
	no := sc.g.stopped != "" || sc.g.skipped(a)
	sc.mu.Unlock()
	if no {
		sc.prog.drop()
	}
	return no
}

// agentFor holds one variant's agent and model client.
type agentFor struct {
	v      *Variant
	client *llm.Client
	cfg    agent.Config
	prompt string
	// player plays the variant's attempts (playerFor).
	player player
	// cache is the run's model cache (nil: none, Options.ModelCache).
	cache *llm.Cache
	// baseSeed is the plan's base seed: an attempt that sends no seed is keyed by its pair's seed from it.
	baseSeed int64
}

// ErrModelCacheUnused refuses --model-cache on a run none of whose variants is played by the built-in agent:
// the cache would do nothing, and the user expects calls to be replayed.
var ErrModelCacheUnused = errors.New("--model-cache caches the built-in agent's model calls, and no variant of " +
	"this run uses it (external agents' calls go through the recording proxy, which does not replay): drop --model-cache")

// useCache opens the model cache dir for the variants played by the built-in agent (an external agent's calls
// go through the recording proxy, which does not replay). Errors: ErrModelCacheUnused, the directory's.
func useCache(agents map[string]*agentFor, dir string, baseSeed int64) error {
	builtin := false
	for _, af := range agents {
		builtin = builtin || af.v.Agent == nil
	}
	if !builtin {
		return ErrModelCacheUnused
	}
	c, err := llm.OpenCache(dir)
	if err != nil {
		return err
	}
	for _, af := range agents {
		if af.v.Agent == nil {
			af.cache, af.baseSeed = c, baseSeed
		}
	}
	return nil
}

// cacheSession is attempt a's session on its variant's model cache in environment env (nil without a cache):
// keyed by the attempt's rep and seed (the pair's seed in seed mode none, so that runs with other base seeds
// stay other samples), the endpoint (the scripted policy by its profile, as its loopback port changes
// every run) and env's strings that change between runs (suites.Volatile).
func (af *agentFor) cacheSession(a Attempt, env suites.Env) *llm.CacheSession {
	if af.cache == nil {
		return nil
	}
	seed := a.Seed
	if seed == nil {
		s := results.Seed(a.PairID, af.baseSeed)
		seed = &s
	}
	scope := llm.CacheScope{Rep: a.Rep, Seed: seed, Volatile: suites.Volatile(env)}
	if af.v.Model.Kind == "scripted" {
		scope.Endpoint = af.v.Model.String()
	}
	return af.cache.Session(scope)
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
	return &agentFor{v: v, client: client, prompt: prompt, player: playerFor(v),
		cfg: agent.Config{MaxSteps: v.MaxSteps, Timeout: v.Timeout, SystemPrompt: prompt, Hooks: hooks,
			Observation: obs}}, nil
}

// worker owns one browser; it relaunches it after a crash, or reconnects to a remote server that went away.
type worker struct {
	drv      *browser.Driver
	b        *browser.Browser
	opts     Options
	suite    suites.Suite // what the launches are for (launchOptions)
	launched func(*browser.Browser)
	// down is the remote server's state shared by the run's workers (nil: the worker's own).
	down *remoteDown
	// stop, once set, is the error that stops the run: the remote server stayed unreachable for the whole
	// reconnect window, or came back with another Playwright version.
	stop *BrowserError
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

func guardMap(g map[string]bool) map[string]bool {
	out := guard.Default()
	for k, v := range g {
		out[k] = v
	}
	return out
}

// startDriver starts the Playwright driver of a run (browser.StartDriver with driverDir) and returns it with
// the function that stops it. The package's tests replace it to share one driver among their runs: a driver
// start costs two Node.js start-ups, more than most test attempts.
var startDriver = func(driverDir string) (*browser.Driver, func(), error) {
	drv, err := browser.StartDriver(browser.DriverOptions{DriverDir: driverDir})
	if err != nil {
		return nil, nil, err
	}
	return drv, func() { _ = drv.Stop() }, nil
}

// prepare checks and starts what the attempts todo need, before anything is written: the external agents'
// commands and the MCP tool backends (a mistyped command is a clear error now, never N attempts of 0 %), the
// scripted policies and the variants' agents (startAgents), the model endpoints (preflight: a run stopped by
// it leaves no record, no manifest and no new directory, so the fixed command starts afresh there), the
// Playwright driver, and a remote browser server (checkRemote: a wrong URL, header or Playwright version, or a
// browser that cannot reach the suite, would fail every attempt). stop stops what was started.
func prepare(ctx context.Context, plan Plan, suite suites.Suite, opts Options, todo []Attempt) (
	map[string]*agentFor, []results.Endpoint, *browser.Driver, func(), error) {
	if err := checkAgents(plan, opts); err != nil {
		return nil, nil, nil, nil, err
	}
	if err := checkTools(plan, opts); err != nil {
		return nil, nil, nil, nil, err
	}
	agents, stopAgents, err := startAgents(plan, suite)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	var endpoints []results.Endpoint
	if opts.ModelCache != "" {
		err = useCache(agents, opts.ModelCache, plan.BaseSeed)
	}
	if err == nil {
		endpoints, err = preflight(ctx, plan, agents, todo, opts.Log)
	}
	if err != nil {
		stopAgents()
		return nil, nil, nil, nil, err
	}
	drv, stopDriver, err := startDriver(opts.DriverDir)
	if err != nil {
		stopAgents()
		return nil, nil, nil, nil, err
	}
	stop := func() {
		stopDriver()
		stopAgents()
	}
	if err := checkRemote(ctx, drv, opts, suite, todo[0].Task); err != nil {
		stop()
		return nil, nil, nil, nil, err
	}
	return agents, endpoints, drv, stop, nil
}
