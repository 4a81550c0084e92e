package runner

import (
	"context"
	"errors"
	"fmt"

	"webbench/agent/browser"
	"webbench/suites"
)

// OpenedAttempt is one attempt's environment opened outside a run (bench mcp serve): the suite environment,
// a browser of its own and a fresh browser context on the environment's start page, as the runner opens them
// for the built-in agent (the tenant allow-list, the action timeout, browser_evaluate removed when asked).
type OpenedAttempt struct {
	// Env is the suite environment (the Zoo tenant); its State is what the state judge reads.
	Env suites.Env
	// Browser is the attempt's browser (launched for it, or connected to Options.BrowserEndpoint).
	Browser *browser.Browser
	// Session is the attempt's browser context, already on StartURL.
	Session *browser.Session
	// StartURL is Env.StartURL(), the page the session opened.
	StartURL string

	drv *browser.Driver
}

// OpenAttempt opens attempt attemptID of task t: it starts the Playwright driver (opts.DriverDir), launches
// Chromium headless (opts.Chromium; or connects to opts.BrowserEndpoint), opens the suite environment, a
// browser context with the environment's allow-list (opts.ActionTimeout, opts.DisableEvaluate), and loads the
// start page. Errors are infrastructure errors naming the step that failed; whatever was opened is closed
// then. Close the result with Close.
func OpenAttempt(ctx context.Context, opts Options, suite suites.Suite, t suites.Task, attemptID string) (_ *OpenedAttempt, err error) {
	o := &OpenedAttempt{}
	defer func() {
		if err != nil {
			o.Close()
		}
	}()
	if o.drv, err = browser.StartDriver(browser.DriverOptions{DriverDir: opts.DriverDir}); err != nil {
		return nil, fmt.Errorf("start the Playwright driver: %w", err)
	}
	if o.Browser, err = o.drv.Launch(launchOptions(opts)); err != nil {
		return nil, fmt.Errorf("launch browser: %w", err)
	}
	if o.Env, err = suite.Open(ctx, t, attemptID); err != nil {
		return nil, fmt.Errorf("open environment: %w", err)
	}
	o.Session, err = o.Browser.NewSession(browser.SessionOptions{ActionTimeout: opts.ActionTimeout,
		Allowed: o.Env.Allowed, DisableEvaluate: opts.DisableEvaluate})
	if err != nil {
		return nil, fmt.Errorf("new browser context: %w", err)
	}
	o.StartURL = o.Env.StartURL()
	if err := o.Session.Navigate(o.StartURL); err != nil {
		return nil, fmt.Errorf("open start page: %w", err)
	}
	return o, nil
}

// Close closes the browser context, the environment (the tenant is deleted: read Env.State before), the
// browser and the driver, and returns the first error. Safe on a partly opened attempt.
func (o *OpenedAttempt) Close() error {
	var errs []error
	if o.Session != nil {
		errs = append(errs, o.Session.Close())
	}
	if o.Env != nil {
		errs = append(errs, o.Env.Close(context.Background()))
	}
	if o.Browser != nil {
		errs = append(errs, o.Browser.Close())
	}
	if o.drv != nil {
		errs = append(errs, o.drv.Stop())
	}
	return errors.Join(errs...)
}
