package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"webbench/agent"
	"webbench/browser"
	"webbench/browser/cassette"
	"webbench/llm"
	"webbench/results"
	"webbench/suites"

	playwright "github.com/mxschmitt/playwright-go"
)

// player is one way an attempt is played: the built-in agent in the worker's browser (agentPlayer), the
// built-in agent on a Playwright MCP tool backend (mcpPlayer) or an external command (externalPlayer). The
// worker opens the environment (and, unless the player brings its own browser, a session on the start page),
// calls Play, and concludes the record from what it returns by the one status rule (worker.conclude).
type player interface {
	// ownBrowser reports whether the player opens its own browser: the worker then opens no session.
	ownBrowser() bool
	// play plays attempt st.a and returns its trajectory with the screenshots kept for the judge. Errors: a
	// *setupError when the attempt could not start (an infrastructure error recorded without a duration); an
	// *llm.Error of a class that stops runs (llm.ErrorClass.Fatal: the run stops, the attempt unrecorded,
	// EndpointError); any other error is an infrastructure error of the attempt (recorded, retried).
	play(ctx context.Context, st *stage) (played, error)
}

// playerFor is the player of variant v's attempts: the built-in agent on its MCP tool backend, else its
// external command, else the built-in agent in the worker's browser.
func playerFor(v *Variant) player {
	switch {
	case v.Tools != nil:
		return mcpPlayer{}
	case v.Agent != nil:
		return externalPlayer{}
	}
	return agentPlayer{}
}

// stage is what a player plays an attempt on: the attempt, its variant's agent, the run directory, the open
// environment, and (unless the player brings its own browser) the worker's browser and a session on the start
// page.
type stage struct {
	wk   *worker
	a    Attempt
	af   *agentFor
	w    *results.Writer
	env  suites.Env
	b    *browser.Browser
	sess *browser.Session
	// cas is the attempt's cassette view when the run records or replays (Options.Cassette), else nil.
	cas *cassette.Attempt
}

// played is a played attempt: its trajectory, and the screenshots kept for the judge with the step of each
// (-1 when unknown).
type played struct {
	tr        *results.Trajectory
	shots     [][]byte
	shotSteps []int
}

// setupError is an error before the agent ran (a server that did not start, a command not found): an
// infrastructure error recorded without a duration.
type setupError struct{ err error }

func (e *setupError) Error() string { return e.err.Error() }
func (e *setupError) Unwrap() error { return e.err }

// agentPlayer is the built-in agent in the worker's browser session.
type agentPlayer struct{}

func (agentPlayer) ownBrowser() bool { return false }

func (agentPlayer) play(ctx context.Context, st *stage) (played, error) {
	t := st.a.Task
	tr, err := agent.New(st.wk.agentConfig(st.a, st.af, st.env), st.af.client).Run(ctx, agent.Task{ID: t.ID, Goal: t.Goal},
		st.sess)
	return played{tr: tr, shots: st.sess.Screenshots(), shotSteps: st.sess.ScreenshotSteps()}, err
}

// play runs the attempt once with its variant's player and builds its record, setting *fatal when the agent
// met an endpoint error that stops the run.
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
	st := &stage{wk: wk, a: a, af: af, w: w, env: env}
	if !af.player.ownBrowser() {
		closeSession, err := wk.openSession(ctx, st, &rec)
		defer closeSession()
		if err != nil {
			return infra(err)
		}
	}
	p, err := af.player.play(ctx, st)
	if ctx.Err() != nil {
		return rec
	}
	if le := (*llm.Error)(nil); errors.As(err, &le) && le.Class.Fatal() {
		*fatal = le
		return rec
	}
	if se := (*setupError)(nil); errors.As(err, &se) {
		return infra(se.err)
	}
	rec.DurationMS = time.Since(start).Milliseconds()
	if err != nil {
		return infra(err)
	}
	if st.b != nil && !st.b.IsConnected() {
		wk.b = nil
		return infra(errors.New("browser disconnected during the attempt (crashed or killed)"))
	}
	noteCassette(p.tr, st.cas)
	// Assigned to rec before returning: the trace's deferred stop keeps the trace of an attempt that did not pass.
	rec = wk.conclude(ctx, rec, a, af, w, env, p.shots, p.shotSteps, p.tr)
	return rec
}

// openSession opens st's browser session on the environment's start page in the worker's browser (st.b,
// st.sess), tracing it when Options.Trace asks (the trace is kept when *rec, read when the returned close runs,
// did not pass). The returned close is to be deferred whatever the error.
func (wk *worker) openSession(ctx context.Context, st *stage, rec *results.Attempt) (closeSession func(), err error) {
	var closers []func()
	closeSession = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	b, err := wk.browser(ctx)
	if err != nil {
		return closeSession, fmt.Errorf("launch browser: %w", err)
	}
	if c := wk.opts.Cassette; c != nil {
		st.cas = c.Attempt(st.a.Task.ID, st.a.AttemptID)
		// Closed after the session (closers run last first): a recording's tape holds every request it made.
		closers = append(closers, func() {
			if err := st.cas.Close(); err != nil {
				fmt.Fprintf(wk.opts.Log, "cassette: %v\n", err)
			}
		})
	}
	so := browser.SessionOptions{ActionTimeout: wk.opts.ActionTimeout, Allowed: st.env.Allowed,
		AskOnly: suites.AskOnly(st.env), DisableEvaluate: wk.opts.DisableEvaluate, Cassette: st.cas}
	if replaying(st.cas) {
		// The allow-list keeps an attempt off other tenants and off the web; a replay reaches neither, and its
		// recorded pages name the recording's tenant (the Zoo's /t/<id>/), which the list would refuse.
		so.Allowed, so.AskOnly = nil, nil
	}
	sess, err := b.NewSession(so)
	if err != nil {
		wk.b = nil
		_ = b.Close()
		return closeSession, fmt.Errorf("new browser context: %w", err)
	}
	closers = append(closers, func() {
		// A context that does not close means the browser is hung or gone: relaunch it for the next attempt.
		if err := sess.Close(); errors.Is(err, browser.ErrUnresponsive) && wk.b == b {
			wk.b = nil
			_ = b.Close()
		}
	})
	if wk.opts.Trace {
		if err := sess.Context().Tracing().Start(playwright.TracingStartOptions{Screenshots: playwright.Bool(true),
			Snapshots: playwright.Bool(true), Title: playwright.String(st.a.Task.ID)}); err == nil {
			closers = append(closers, func() {
				if rec.Status == results.StatusPass {
					_ = sess.Context().Tracing().Stop()
					return
				}
				p := filepath.Join(st.w.Dir(), "traces", st.a.AttemptID+".zip")
				_ = os.MkdirAll(filepath.Dir(p), 0o755)
				_ = sess.Context().Tracing().Stop(p)
			})
		}
	}
	if err := sess.Navigate(st.env.StartURL()); err != nil {
		return closeSession, fmt.Errorf("open start page: %w", err)
	}
	st.b, st.sess = b, sess
	return closeSession, nil
}

// agentConfig is the built-in agent's configuration for attempt a in environment env: the variant's, with the
// task's budgets where the variant sets none, the attempt's seed, the run's screenshot setting and the
// attempt's model-cache session.
func (wk *worker) agentConfig(a Attempt, af *agentFor, env suites.Env) agent.Config {
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
	cfg.Cache = af.cacheSession(a, env)
	return cfg
}
