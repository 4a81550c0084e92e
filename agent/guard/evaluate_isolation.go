package guard

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"webbench/agent"
	"webbench/browser"

	playwright "github.com/mxschmitt/playwright-go"
)

// EvaluateIsolation runs browser_evaluate so that it cannot hang the tab (GUARDS.md §6, seed 003). Each call
// gets one budget, min(Cap, the attempt's remaining time, the call context's deadline), shared by the Go-side
// wait, the CDP call and the page-side timeout. The function runs through a dedicated CDP session
// (BrowserContext.NewCDPSession on the current page) with Runtime.evaluate {awaitPromise, returnByValue,
// timeout}, so it does not queue behind Playwright. On timeout or cancellation it sends
// Runtime.terminateExecution, consumes a pending termination with a trivial evaluate, detaches, and returns
// "evaluate timed out after N ms; page script was terminated" (N = the budget). With a target ref the element
// is resolved through Session.Locator (stale refs fail at once as the plain tool does) and handed to the CDP
// session; when that hand-over fails it falls back to a bounded Playwright locator.Evaluate. Without a CDP
// session it falls back to a bounded page.Evaluate. Events: "evaluate" (mode, outcome, duration, budget),
// "timeout", "terminated", "fallback". Off, the tool's plain, unbounded page.Evaluate runs.
//
// On a tool backend without a CDP page (a Playwright MCP server, browser/mcptools: Attempt.Browser is nil) the
// guard cannot isolate anything: the call passes through to the server unchanged (bounded only by the server's
// own action timeout and the attempt's deadline), and each such call records one event "passthrough" with
// detail EvaluatePassthroughDetail, so a trajectory never shows the guard acting where it could not.
type EvaluateIsolation struct {
	// Cap is the per-call budget cap (0 = DefaultEvaluateCap).
	Cap time.Duration
}

// NameEvaluateIsolation is the guard's name in specs, --guards and the records.
const NameEvaluateIsolation = "evaluate_isolation"

func init() {
	register(NameEvaluateIsolation, 60, true, func() agent.Hook { return EvaluateIsolation{} })
}

// EvaluatePassthroughDetail is the detail of evaluate_isolation's "passthrough" event: browser_evaluate on a tool
// backend without a CDP page (Playwright MCP) ran unguarded.
const EvaluatePassthroughDetail = "no CDP page on this tool backend (Playwright MCP server): browser_evaluate " +
	"ran unguarded, bounded only by the server's action timeout and the attempt deadline"

// DefaultEvaluateCap is the per-call budget cap of evaluate_isolation.
const DefaultEvaluateCap = 5 * time.Second

// Name implements agent.Hook.
func (EvaluateIsolation) Name() string { return NameEvaluateIsolation }

// evalHeadroom is how much longer the Go side waits than the page-side timeout, so that the page-side
// termination (a clean CDP error) normally wins.
const evalHeadroom = 150 * time.Millisecond

// pageTimeoutSlack: a CDP error this close to the deadline is the page-side timeout.
const pageTimeoutSlack = 25 * time.Millisecond

// terminateWait bounds the termination (terminateExecution + draining evaluate) and detachWait the detach.
const (
	terminateWait = time.Second
	detachWait    = 500 * time.Millisecond
)

// WrapTool implements agent.ToolWrapper: it replaces browser_evaluate and passes every other tool through.
func (g EvaluateIsolation) WrapTool(a *agent.Attempt, call agent.ToolCall, next agent.ToolFunc) agent.ToolFunc {
	if browser.BaseName(call.Name) != browser.ToolEvaluate {
		return next
	}
	if a.Browser == nil && a.Tools != nil {
		return func(ctx context.Context, c agent.ToolCall) browser.Result {
			a.Event(NameEvaluateIsolation, "passthrough", EvaluatePassthroughDetail)
			return next(ctx, c)
		}
	}
	if a.Browser == nil || a.Browser.Options().DisableEvaluate {
		return next
	}
	return func(ctx context.Context, c agent.ToolCall) browser.Result {
		var args struct {
			Function string `json:"function"`
			Target   string `json:"target"`
		}
		if err := json.Unmarshal([]byte(argsOrEmpty(c.Args)), &args); err != nil || strings.TrimSpace(args.Function) == "" {
			return next(ctx, c) // the tool reports bad arguments without evaluating anything
		}
		return g.evaluate(ctx, a, args.Function, strings.TrimSpace(args.Target))
	}
}

func argsOrEmpty(s string) string {
	if strings.TrimSpace(s) == "" || strings.TrimSpace(s) == "null" {
		return "{}"
	}
	return s
}

// evalRun is one bounded evaluate.
type evalRun struct {
	a        *agent.Attempt
	ctx      context.Context
	budget   time.Duration
	deadline time.Time
	start    time.Time
	mode     string
	quiet    bool // no events once the attempt's context is done (the loop has moved on)
}

func (r *evalRun) event(action, detail string) {
	if r.quiet || r.ctx.Err() != nil {
		return
	}
	r.a.Event(NameEvaluateIsolation, action, detail)
}

// budgetFor is min(cap, attempt remaining, ctx deadline).
func (g EvaluateIsolation) budgetFor(ctx context.Context, a *agent.Attempt) time.Duration {
	b := g.Cap
	if b <= 0 {
		b = DefaultEvaluateCap
	}
	b = min(b, a.Remaining())
	if dl, ok := ctx.Deadline(); ok {
		b = min(b, time.Until(dl))
	}
	return max(b, 0)
}

// reply is one finished asynchronous call.
type reply struct {
	v   any
	err error
}

// async runs f in a goroutine; the channel is buffered so an abandoned call never blocks.
func async(f func() (any, error)) <-chan reply {
	ch := make(chan reply, 1)
	go func() {
		v, err := f()
		ch <- reply{v, err}
	}()
	return ch
}

// errBudget and errCancelled mark a wait that ran out.
var (
	errBudget    = errors.New("budget spent")
	errCancelled = errors.New("cancelled")
)

// wait waits for ch until the run's deadline (+extra) or cancellation.
func (r *evalRun) wait(ch <-chan reply, extra time.Duration) reply {
	t := time.NewTimer(time.Until(r.deadline) + extra)
	defer t.Stop()
	select {
	case x := <-ch:
		return x
	case <-t.C:
		return reply{err: errBudget}
	case <-r.ctx.Done():
		return reply{err: errCancelled}
	}
}

func (g EvaluateIsolation) evaluate(ctx context.Context, a *agent.Attempt, fn, target string) browser.Result {
	budget := g.budgetFor(ctx, a)
	run := &evalRun{a: a, ctx: ctx, budget: budget, start: time.Now(), mode: "cdp"}
	run.deadline = run.start.Add(budget)
	if budget < time.Millisecond {
		run.event("timeout", "budget_ms=0")
		return browser.Result{Error: "evaluate not run: the attempt's time budget is spent"}
	}
	s := a.Browser
	page := s.Page()
	if page == nil {
		return browser.Result{Error: "evaluate: no page"}
	}

	// The dedicated CDP session.
	x := run.wait(async(func() (any, error) { return s.Context().NewCDPSession(page) }), 0)
	var cdp playwright.CDPSession
	if x.err == nil {
		cdp, _ = x.v.(playwright.CDPSession)
	}

	var loc playwright.Locator
	elemExpr := "undefined"
	if target != "" {
		run.mode = "cdp_element"
		y := run.wait(async(func() (any, error) { return s.Locator(target) }), 0)
		if y.err != nil {
			if cdp != nil {
				go func() { _ = cdp.Detach() }()
			}
			if y.err == errBudget || y.err == errCancelled {
				return run.cutOff(nil, y.err)
			}
			run.event("evaluate", fmt.Sprintf("mode=%s outcome=error duration_ms=%d", run.mode, run.elapsedMS()))
			return run.finish(s, browser.Result{Error: y.err.Error()})
		}
		loc = y.v.(playwright.Locator)
		if cdp != nil {
			key := handoffKey()
			z := run.wait(async(func() (any, error) {
				return loc.Evaluate(`(el, key) => { Object.defineProperty(window, key, {value: el, configurable: true}); return true; }`,
					key, playwright.LocatorEvaluateOptions{Timeout: playwright.Float(float64(max(time.Until(run.deadline), time.Millisecond)) / 1e6)})
			}), 0)
			switch {
			case z.err == errBudget || z.err == errCancelled:
				return run.cutOff(cdp, z.err)
			case z.err != nil:
				run.event("fallback", "reason=handoff: "+firstLine(z.err.Error()))
				go func() { _ = cdp.Detach() }()
				cdp = nil // fall back to Playwright below
			default:
				elemExpr = fmt.Sprintf("(() => { const e = window[%q]; delete window[%q]; return e; })()", key, key)
			}
		}
	}
	if cdp == nil {
		return run.fallback(s, page, loc, fn, x.err)
	}

	expr := "(() => { const __webbench_el = " + elemExpr + ";\nconst __webbench_fn = (\n" + strings.TrimRight(strings.TrimSpace(fn), ";") +
		"\n);\nreturn typeof __webbench_fn === 'function' ? __webbench_fn(__webbench_el) : __webbench_fn; })()"
	timeoutMS := max(time.Until(run.deadline).Milliseconds(), 1)
	y := run.wait(async(func() (any, error) {
		return cdp.Send("Runtime.evaluate", map[string]any{
			"expression": expr, "awaitPromise": true, "returnByValue": true, "timeout": timeoutMS,
		})
	}), evalHeadroom)
	if y.err == errBudget || y.err == errCancelled {
		return run.cutOff(cdp, y.err)
	}
	if y.err != nil && (strings.Contains(y.err.Error(), "Execution was terminated") ||
		time.Until(run.deadline) < pageTimeoutSlack) {
		// The page-side timeout fired: V8 terminated the script (CDP reports "Execution was terminated", or
		// "Internal error" when a promise was awaited).
		return run.cutOff(cdp, errBudget)
	}
	go func() { _ = cdp.Detach() }()
	if y.err != nil {
		run.event("evaluate", fmt.Sprintf("mode=%s outcome=error duration_ms=%d budget_ms=%d", run.mode, run.elapsedMS(), budget.Milliseconds()))
		return run.finish(s, browser.Result{Error: y.err.Error()})
	}
	out, err := cdpValue(y.v)
	outcome := "ok"
	r := browser.Result{Result: out}
	if err != nil {
		outcome, r = "exception", browser.Result{Error: err.Error()}
	}
	run.event("evaluate", fmt.Sprintf("mode=%s outcome=%s duration_ms=%d budget_ms=%d", run.mode, outcome, run.elapsedMS(), budget.Milliseconds()))
	return run.finish(s, r)
}

func (r *evalRun) elapsedMS() int64 { return time.Since(r.start).Milliseconds() }

// finish adds the page URL and title (PageInfo is bounded by the session).
func (r *evalRun) finish(s *browser.Session, res browser.Result) browser.Result {
	res.URL, res.Title = s.PageInfo()
	return res
}

// cutOff ends a run whose budget was spent (or whose context was cancelled): terminate the page script through
// cdp when there is one, and return the timeout error.
func (r *evalRun) cutOff(cdp playwright.CDPSession, why error) browser.Result {
	cancelled := why == errCancelled
	if cancelled {
		r.quiet = true
	}
	r.event("timeout", fmt.Sprintf("mode=%s budget_ms=%d elapsed_ms=%d", r.mode, r.budget.Milliseconds(), r.elapsedMS()))
	terminated := false
	if cdp != nil {
		t0 := time.Now()
		terminated = terminate(cdp)
		r.event("terminated", fmt.Sprintf("ok=%t ms=%d", terminated, time.Since(t0).Milliseconds()))
	}
	r.event("evaluate", fmt.Sprintf("mode=%s outcome=timeout duration_ms=%d budget_ms=%d", r.mode, r.elapsedMS(), r.budget.Milliseconds()))
	msg := browser.EvaluateCutOffMessage(cancelled, r.budget.Milliseconds(), terminated)
	if r.a.Browser != nil && r.a.Browser.Page() != nil {
		return browser.Result{Error: msg, URL: r.a.Browser.Page().URL()}
	}
	return browser.Result{Error: msg}
}

// terminate sends Runtime.terminateExecution and a trivial evaluate that consumes a termination left pending
// when no script was running (V8 terminates "the current or next" execution), then detaches. It reports
// whether the page answered within terminateWait.
func terminate(cdp playwright.CDPSession) bool {
	term := async(func() (any, error) { return cdp.Send("Runtime.terminateExecution", nil) })
	drain := async(func() (any, error) {
		return cdp.Send("Runtime.evaluate", map[string]any{"expression": "0", "returnByValue": true})
	})
	t := time.NewTimer(terminateWait)
	defer t.Stop()
	ok := false
	select {
	case <-drain:
		ok = true
	case <-t.C:
	}
	if ok {
		select { // the termination's own answer follows the drain at once
		case <-term:
		case <-time.After(100 * time.Millisecond):
		}
	}
	done := async(func() (any, error) { return nil, cdp.Detach() })
	select {
	case <-done:
	case <-time.After(detachWait):
	}
	return ok
}

// fallback is a bounded Playwright evaluate (locator.Evaluate with a target, page.Evaluate without), used when
// the CDP path is unavailable. On timeout a fresh CDP session is tried for the termination.
func (r *evalRun) fallback(s *browser.Session, page playwright.Page, loc playwright.Locator, fn string, cdpErr error) browser.Result {
	if cdpErr == errBudget || cdpErr == errCancelled {
		return r.cutOff(nil, cdpErr)
	}
	if cdpErr != nil {
		r.event("fallback", "reason=cdp session: "+firstLine(cdpErr.Error()))
	}
	r.mode = "playwright"
	y := r.wait(async(func() (any, error) {
		if loc != nil {
			return loc.Evaluate(fn, nil)
		}
		return page.Evaluate(fn)
	}), 0)
	if y.err == errBudget || y.err == errCancelled {
		var cdp playwright.CDPSession
		t := time.NewTimer(terminateWait)
		defer t.Stop()
		select {
		case z := <-async(func() (any, error) { return s.Context().NewCDPSession(page) }):
			if z.err == nil {
				cdp, _ = z.v.(playwright.CDPSession)
			}
		case <-t.C:
		}
		return r.cutOff(cdp, y.err)
	}
	if y.err != nil {
		r.event("evaluate", fmt.Sprintf("mode=%s outcome=error duration_ms=%d", r.mode, r.elapsedMS()))
		return r.finish(s, browser.Result{Error: y.err.Error()})
	}
	r.event("evaluate", fmt.Sprintf("mode=%s outcome=ok duration_ms=%d", r.mode, r.elapsedMS()))
	return r.finish(s, browser.Result{Result: browser.FormatValue(y.v)})
}

// cdpValue renders a Runtime.evaluate reply like the plain tool renders page.Evaluate's value
// (browser.FormatValue), or returns the page exception as an error.
func cdpValue(v any) (string, error) {
	m, _ := v.(map[string]any)
	if ex, ok := m["exceptionDetails"].(map[string]any); ok {
		if e, ok := ex["exception"].(map[string]any); ok {
			if d, ok := e["description"].(string); ok && d != "" {
				return "", errors.New(d)
			}
			if val, ok := e["value"]; ok {
				return "", fmt.Errorf("%v", val)
			}
		}
		if t, ok := ex["text"].(string); ok {
			return "", errors.New(t)
		}
		return "", errors.New("evaluate: uncaught exception")
	}
	ro, _ := m["result"].(map[string]any)
	if u, ok := ro["unserializableValue"].(string); ok {
		return u, nil
	}
	return browser.FormatValue(ro["value"]), nil
}

func handoffKey() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "__webbench_target_" + hex.EncodeToString(b[:])
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
