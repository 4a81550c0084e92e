package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"webbench/agent"
	"webbench/agent/browser"
	"webbench/agent/guard"
	"webbench/agent/llm"
	"webbench/agent/llm/scripted"
	"webbench/judge"
	"webbench/results"
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
	// Browser settings.
	DriverDir, Chromium, BrowserEndpoint string
	// ActionTimeout per browser action (default 5 s).
	ActionTimeout time.Duration
	// Judges override the default judge choice (state when the task has a state check, else answer).
	Judges []judge.Judge
	// Screenshots keeps screenshots after each step (for the llm judge) and writes the last ones to the run dir.
	Screenshots bool
	// Log receives progress lines (default os.Stderr); Progress draws a bar when Log is a terminal.
	Log io.Writer
	// MaxCostUSD stops scheduling new attempts once recorded spend reaches it (0 = no limit).
	MaxCostUSD float64
	// Manifest extras recorded as given.
	Spec any
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

// Summary is what Run did.
type Summary struct {
	Planned, Skipped, Ran, Passed, Failed, Errors int
	// Stopped is set when the run stopped early (quota, cost limit, interrupt) and why.
	Stopped string
}

// ErrQuota is returned when the model endpoint refused for credit or key reasons; the run stops early.
var ErrQuota = errors.New("model endpoint refused: out of credit/quota or invalid key")

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
	all, err := plan.Expand()
	if err != nil {
		return nil, err
	}
	atts := opts.Shard.Select(all)
	w, err := results.OpenWriter(opts.OutDir)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	prev, err := results.ReadAttempts(opts.OutDir)
	if err != nil {
		return nil, err
	}
	sum := &Summary{Planned: len(atts)}
	var todo []Attempt
	retriesSoFar := map[string]int{}
	for _, a := range atts {
		if r, ok := prev.Latest[a.AttemptID]; ok && r.Done() {
			sum.Skipped++
			continue
		}
		for _, r := range prev.Records {
			if r.AttemptID == a.AttemptID {
				retriesSoFar[a.AttemptID]++
			}
		}
		todo = append(todo, a)
	}
	if err := checkSamePlan(opts.OutDir, plan); err != nil {
		return nil, err
	}
	man, err := startManifest(w, plan, opts)
	if err != nil {
		return nil, err
	}
	if len(todo) == 0 {
		fmt.Fprintf(opts.Log, "all %d planned attempt(s) already recorded in %s: nothing to run\n", sum.Planned, opts.OutDir)
		finishManifest(w, man, sum)
		return sum, nil
	}

	// Model endpoints: one scripted server per profile, started in-process.
	endpoints := map[string]string{}
	for _, v := range plan.Variants {
		if v.Model.Kind != "scripted" {
			continue
		}
		if _, ok := endpoints[v.Model.Profile]; ok {
			continue
		}
		prof, err := scripted.LoadProfile(v.Model.Profile)
		if err != nil {
			return nil, err
		}
		srv := scripted.New(suite.Tasks(), prof)
		url, err := srv.Start("127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("start scripted policy: %w", err)
		}
		defer srv.Close()
		endpoints[v.Model.Profile] = url
	}
	agents := map[string]*agentFor{}
	for i := range plan.Variants {
		v := &plan.Variants[i]
		af, err := newAgentFor(v, endpoints[v.Model.Profile])
		if err != nil {
			return nil, fmt.Errorf("variant %s: %w", v.Name, err)
		}
		agents[v.Name] = af
	}

	drv, err := browser.StartDriver(browser.DriverOptions{DriverDir: opts.DriverDir})
	if err != nil {
		return nil, err
	}
	defer drv.Stop()

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	prog := newProgress(opts.Log, len(todo), sum.Skipped)
	defer prog.close()
	jobs := make(chan Attempt)
	var spent atomic.Uint64 // micro-dollars
	var mu sync.Mutex
	p := pool.New().WithErrors().WithContext(ctx)
	workers := opts.Workers
	if workers > len(todo) {
		workers = len(todo)
	}
	for wi := 0; wi < workers; wi++ {
		p.Go(func(ctx context.Context) error {
			wk := &worker{drv: drv, opts: opts}
			defer wk.close()
			for a := range jobs {
				if ctx.Err() != nil {
					continue
				}
				rec, ok := wk.attempt(ctx, a, suite, agents[a.Variant], w, retriesSoFar[a.AttemptID])
				if !ok {
					continue
				}
				mu.Lock()
				sum.Ran++
				switch rec.Status {
				case results.StatusPass:
					sum.Passed++
				case results.StatusFail:
					sum.Failed++
				default:
					sum.Errors++
				}
				mu.Unlock()
				prog.done(rec)
				spent.Add(uint64(rec.CostUSD * 1e6))
				if isQuota(rec) {
					cancel(ErrQuota)
				}
				if opts.MaxCostUSD > 0 && float64(spent.Load())/1e6 >= opts.MaxCostUSD {
					cancel(fmt.Errorf("cost limit $%.2f reached", opts.MaxCostUSD))
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
	perr := p.Wait()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		sum.Stopped = cause.Error()
	} else if ctx.Err() != nil {
		sum.Stopped = "interrupted"
	}
	finishManifest(w, man, sum)
	if errors.Is(context.Cause(ctx), ErrQuota) {
		return sum, ErrQuota
	}
	if perr != nil && !errors.Is(perr, context.Canceled) {
		return sum, perr
	}
	if sum.Stopped == "interrupted" {
		return sum, context.Canceled
	}
	return sum, nil
}

// agentFor holds one variant's agent and model client.
type agentFor struct {
	v      *Variant
	client *llm.Client
	cfg    agent.Config
	prompt string
}

func newAgentFor(v *Variant, scriptedURL string) (*agentFor, error) {
	client, err := llm.New(v.Model.LLMConfig(scriptedURL))
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
	return &agentFor{v: v, client: client, prompt: prompt,
		cfg: agent.Config{MaxSteps: v.MaxSteps, Timeout: v.Timeout, SystemPrompt: prompt, Hooks: hooks}}, nil
}

// worker owns one browser; it relaunches it after a crash.
type worker struct {
	drv  *browser.Driver
	b    *browser.Browser
	opts Options
}

func (wk *worker) browser() (*browser.Browser, error) {
	if wk.b != nil && wk.b.IsConnected() {
		return wk.b, nil
	}
	if wk.b != nil {
		_ = wk.b.Close()
	}
	b, err := wk.drv.Launch(browser.LaunchOptions{ExecutablePath: wk.opts.Chromium, Headless: true,
		Endpoint: wk.opts.BrowserEndpoint, Args: wk.opts.BrowserArgs})
	if err != nil {
		return nil, err
	}
	wk.b = b
	return b, nil
}

func (wk *worker) close() {
	if wk.b != nil {
		_ = wk.b.Close()
	}
}

// attempt runs one attempt with infra retries; ok is false when it was abandoned (interrupt).
func (wk *worker) attempt(ctx context.Context, a Attempt, suite suites.Suite, af *agentFor, w *results.Writer, prior int) (results.Attempt, bool) {
	var rec results.Attempt
	for try := 0; ; try++ {
		rec = wk.once(ctx, a, suite, af, w)
		if ctx.Err() != nil {
			return rec, false
		}
		rec.Retries = prior + try
		if rec.Status != results.StatusError || isQuota(rec) || try >= wk.opts.Retries {
			break
		}
		// Record the failed try (the last line of an attempt id is its record), back off, retry.
		if err := w.Append(rec); err != nil {
			fmt.Fprintf(wk.opts.Log, "warning: %v\n", err)
		}
		select {
		case <-time.After(time.Duration(500*(1<<try)) * time.Millisecond):
		case <-ctx.Done():
			return rec, false
		}
	}
	if err := w.Append(rec); err != nil {
		fmt.Fprintf(wk.opts.Log, "error: %v\n", err)
	}
	return rec, true
}

// once runs the attempt a single time and builds its record.
func (wk *worker) once(ctx context.Context, a Attempt, suite suites.Suite, af *agentFor, w *results.Writer) results.Attempt {
	t := a.Task
	rec := results.Attempt{AttemptID: a.AttemptID, PairID: a.PairID, Variant: a.Variant, TaskID: t.ID,
		Suite: t.Suite, Cluster: t.Cluster, Rep: a.Rep, Seed: a.Seed, Model: af.v.Model.String(),
		Guards: guardMap(af.v.Guards), StartedAt: time.Now().UTC().Format(time.RFC3339), Meta: t.Meta}
	if rec.Cluster == "" {
		rec.Cluster = t.ID
	}
	infra := func(err error) results.Attempt {
		rec.Status, rec.ErrorClass, rec.Error = results.StatusError, results.ClassInfra, llm.RedactString(err.Error())
		rec.FailureMode = "infra"
		return rec
	}
	start := time.Now()
	env, err := suite.Open(ctx, *t, a.AttemptID)
	if err != nil {
		return infra(fmt.Errorf("open environment: %w", err))
	}
	defer env.Close(context.Background())
	b, err := wk.browser()
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
	cfg := af.cfg
	if t.MaxSteps > 0 && af.v.MaxSteps == 0 {
		cfg.MaxSteps = t.MaxSteps
	}
	if t.Timeout > 0 && af.v.Timeout == 0 {
		cfg.Timeout = t.Timeout
	}
	cfg.Seed = a.Seed
	cfg.Screenshots = wk.opts.Screenshots
	tr, runErr := agent.New(cfg, af.client).Run(ctx, agent.Task{ID: t.ID, Goal: t.Goal}, sess)
	if ctx.Err() != nil {
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
	if st, err := env.State(context.Background()); err == nil {
		tr.State = st
	}
	rec.Steps = len(tr.Steps)
	rec.Tokens = results.Tokens{Prompt: tr.Usage.Prompt, Completion: tr.Usage.Completion}
	rec.CostUSD = af.client.Cost(tr.Usage)
	rec.GuardEvents = tr.GuardCounts
	rec.FinishReason = results.FinishReason(tr.Finish.Reason)
	rec.RecoveredFrom = tr.Finish.RecoveredFrom
	if f := tr.Finish.Final; f != nil {
		rec.Final, rec.OK = f.Final, f.OK
	} else {
		rec.Final = tr.Finish.Output
	}
	// Screenshots for the judge.
	shots := sess.Screenshots()
	for i, png := range shots {
		rel := filepath.Join(results.ScreenshotsDir, a.AttemptID, fmt.Sprintf("%02d.png", i+1))
		if err := w.WriteFile(rel, png); err == nil {
			tr.Screenshots = append(tr.Screenshots, rel)
		}
	}
	rel := filepath.Join(results.TrajectoriesDir, a.AttemptID+".json")
	rec.Trajectory = rel
	defer func() {
		if err := w.WriteJSON(rel, tr); err != nil {
			fmt.Fprintf(wk.opts.Log, "warning: trajectory %s: %v\n", rel, err)
		}
	}()
	if ec := tr.Finish.ErrorClass; ec == "infra" || ec == "quota" {
		rec.Status, rec.ErrorClass, rec.Error, rec.FailureMode = results.StatusError, results.ClassInfra, tr.Finish.Error, "infra"
		if ec == "quota" {
			rec.Error = quotaPrefix + tr.Finish.Error
		}
		return rec
	}
	v := Judge(ctx, wk.opts.Judges, judge.Input{Task: *t, Final: rec.Final, OK: rec.OK, State: tr.State, Screenshots: shots})
	rec.Verdict = v
	switch {
	case v.Error != "":
		rec.Status, rec.ErrorClass = results.StatusError, results.ClassJudge
		rec.Error = v.Error
	case v.Pass:
		rec.Status = results.StatusPass
	default:
		rec.Status, rec.ErrorClass = results.StatusFail, results.ClassAgent
		rec.FailureMode = agent.FailureMode(tr, false)
	}
	return rec
}

// Judge applies the judges to in: explicit judges if given (all must pass), else `state` when the task has a
// state check and `answer` when it has an answer rule (both must pass when both exist).
func Judge(ctx context.Context, judges []judge.Judge, in judge.Input) judge.Verdict {
	if len(judges) == 0 {
		if in.Task.Check.State != nil {
			judges = append(judges, judge.State{})
		}
		if a := in.Task.Check.Answer; a != nil && (a.Exact != "" || len(a.MustInclude) > 0 || a.Number != nil) {
			judges = append(judges, judge.Answer{})
		}
		if len(judges) == 0 {
			return judge.Verdict{Judge: "none", Error: "task has no check a local judge can decide (use --judge llm)"}
		}
	}
	var names, reasons []string
	out := judge.Verdict{Pass: true}
	for _, j := range judges {
		v, err := j.Judge(ctx, in)
		names = append(names, j.Name())
		if err != nil {
			v.Error = err.Error()
		}
		if v.Error != "" {
			return judge.Verdict{Judge: strings.Join(names, "+"), Error: v.Error, Reason: v.Reason}
		}
		reasons = append(reasons, v.Reason)
		if !v.Pass {
			out.Pass = false
			out.Reason = v.Reason
		}
	}
	out.Judge = strings.Join(names, "+")
	if out.Pass {
		out.Reason = strings.Join(reasons, "; ")
	}
	return out
}

func guardMap(g map[string]bool) map[string]bool {
	out := guard.Default()
	for k, v := range g {
		out[k] = v
	}
	return out
}

const quotaPrefix = "quota: "

// isQuota reports an attempt that ended on an out-of-credit / invalid-key answer: the run stops early.
func isQuota(r results.Attempt) bool { return strings.HasPrefix(r.Error, quotaPrefix) }

// ErrPlanMismatch is returned when the run directory holds a run of another plan: resuming it would report
// the old records under the new configuration.
var ErrPlanMismatch = errors.New("run directory holds a different plan")

// checkSamePlan refuses a run directory whose manifest records other variants (model, profile, guards, prompt,
// budgets, seed mode), another suite or another base seed. Other tasks or more reps extend the run and are
// allowed.
func checkSamePlan(dir string, plan Plan) error {
	var old Manifest
	b, err := os.ReadFile(filepath.Join(dir, results.ManifestFile))
	if err != nil {
		return nil
	}
	if json.Unmarshal(b, &old) != nil {
		return fmt.Errorf("%w: %s/%s is unreadable", ErrPlanMismatch, dir, results.ManifestFile)
	}
	cur := planManifest(plan)
	why := ""
	switch {
	case old.Plan.Suite != cur.Suite:
		why = fmt.Sprintf("suite %q, now %q", old.Plan.Suite, cur.Suite)
	case old.Plan.BaseSeed != cur.BaseSeed:
		why = fmt.Sprintf("base seed %d, now %d", old.Plan.BaseSeed, cur.BaseSeed)
	default:
		o, _ := json.Marshal(old.Plan.Variants)
		n, _ := json.Marshal(cur.Variants)
		if string(o) != string(n) {
			why = "other variants (model, profile, guards, prompt, budgets or seed mode differ)"
			for i := range cur.Variants {
				if i < len(old.Plan.Variants) {
					x, _ := json.Marshal(old.Plan.Variants[i])
					y, _ := json.Marshal(cur.Variants[i])
					if string(x) != string(y) {
						why = fmt.Sprintf("variant %s was %s, now %s", cur.Variants[i].Name, x, y)
						break
					}
				}
			}
		}
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("%w: %s was run with %s; resuming would mix configurations — use another --out", ErrPlanMismatch, dir, why)
}
