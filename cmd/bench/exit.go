package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"webbench/analysis"
	"webbench/browser"
	"webbench/report"
	"webbench/results"
	"webbench/runner"
)

// Exit codes (DESIGN.md "The CLI").
const (
	exitGate      = 1
	exitUsage     = 2
	exitInfra     = 3
	exitInterrupt = 130
)

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, a ...any) error {
	return &exitError{exitUsage, fmt.Errorf(format, a...)}
}
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{code, err}
}

// runErr maps runner errors to exit codes: interrupt 130, a different plan in the run directory 2, a model
// cache no variant uses 2, a remote
// browser server of another Playwright version or a remote browser that cannot load the suite's start page 2
// (any other failed connect to it, and a server lost for the whole reconnect window, are infrastructure, 3), an
// endpoint error that stops runs (runner.EndpointError) its class's code — config 2 (model name, base URL,
// invalid request), auth and quota 3 — with the server's message and hint, other failures 3.
func runErr(err error) error {
	var ee *runner.EndpointError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return &exitError{exitInterrupt, err}
	case errors.Is(err, runner.ErrPlanMismatch), errors.Is(err, runner.ErrModelCacheUnused):
		return usageErr("%v", err)
	case errors.Is(err, browser.ErrVersionMismatch), errors.Is(err, runner.ErrBrowserUnreachable):
		// Another Playwright version on the server, or a remote browser that cannot reach the suite's pages:
		// no retry fixes it, the setup must change.
		return usageErr("%v", err)
	case errors.As(err, &ee):
		code := ee.ExitCode()
		if code == 0 {
			code = exitInfra
		}
		// A config error needs another command (model name, base URL, --omit, …); auth and quota are fixed
		// outside it (the key, the account), so the same command resumes.
		fix := "fix the model settings (the hint above) and re-run; the run directory resumes"
		if code == exitInfra {
			fix = "fix the key or the account's credit and re-run the same command to resume"
		}
		return &exitError{code, fmt.Errorf("%v\nthe run stopped: nothing was recorded as an agent failure; %s",
			err, fix)}
	}
	return withCode(exitInfra, err)
}

// infraGate exits 3 when the infrastructure gate fails on the run (analysis.CheckInfra: more than
// analysis.InfraGateFraction of its attempts ended in infrastructure errors after retries).
func infraGate(run *results.Run) error {
	g := analysis.CheckInfra(run.Final())
	if !g.Failed {
		return nil
	}
	return withCode(exitInfra, fmt.Errorf("%d of %d attempts ended in infrastructure errors after retries (> %.0f%%): "+
		"the results cannot be trusted; the causes:\n%s\nfix the cause and re-run the same command to retry them (each "+
		"record's \"error\" field in %s/%s has its own)", g.Infra, g.Attempts, 100*analysis.InfraGateFraction,
		report.CauseLines(g.Causes), run.Dir, results.AttemptsFile))
}

// warnDominantCause prints, on w, the one error that ended most of the run's attempts (analysis.DominantCause),
// unless the infrastructure gate fails, whose message lists the causes itself.
func warnDominantCause(w io.Writer, run *results.Run) {
	recs := run.Final()
	if analysis.CheckInfra(recs).Failed {
		return
	}
	if c, ok := analysis.DominantCause(recs); ok {
		fmt.Fprintln(w, report.DominantCauseLine(c, len(recs)))
	}
}
