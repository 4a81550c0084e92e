package runner

import (
	"os"
	"sync"
	"testing"

	"webbench/browser"
)

// The package's browser tests share one Playwright driver (every run's, through startDriver) and, where the
// browser is not what a test is about, one browser server (sharedBrowser): starting a driver costs two
// Node.js start-ups and a launch plus its first browser context a few seconds more, more than most of the
// tests' attempts. Each run still opens a browser context of its own per attempt, so no state crosses tests.
//
// The tests whose runs only need pages to pass or fail on the model's or the judge's account (the endpoint
// faults, the endpoint shapes, judging, sequential budgets) are parallel, at most -test.parallel at once
// (GOMAXPROCS by default): each has its own run directory, model proxy and Zoo server, and most of a run's time
// is waiting on pages, so two overlap. Go starts them once the sequential tests have returned, so the tests that
// measure a guard's effect with it off (ref churn, late hydration: the Zoo family and guard end-to-end tests),
// that kill Chromium or a browser server, that time a reconnect, or that set the process environment
// (t.Setenv: the external agents, the fake key) stay sequential and run with no other test of this package
// beside them.
var (
	driverOnce   sync.Once
	sharedDrv    *browser.Driver
	sharedDrvErr error

	serverOnce   sync.Once
	sharedSrv    *browser.Server
	sharedSrvErr error
)

// TestMain makes every run of the package's tests use the shared driver, and stops it and the shared browser
// server once the tests end.
func TestMain(m *testing.M) {
	own := startDriver
	startDriver = func(driverDir string) (*browser.Driver, func(), error) {
		if driverDir != "" {
			return own(driverDir)
		}
		drv, err := sharedDriver()
		return drv, func() {}, err
	}
	code := m.Run()
	if sharedSrv != nil {
		sharedSrv.Close()
	}
	if sharedDrv != nil {
		_ = sharedDrv.Stop()
	}
	os.Exit(code)
}

// sharedDriver is the package's driver, started on first use.
func sharedDriver() (*browser.Driver, error) {
	driverOnce.Do(func() { sharedDrv, sharedDrvErr = browser.StartDriver(browser.DriverOptions{}) })
	return sharedDrv, sharedDrvErr
}

// testDriver is the package's driver for a test that drives browsers itself (skipped with -short).
func testDriver(t *testing.T) *browser.Driver {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test")
	}
	drv, err := sharedDriver()
	if err != nil {
		t.Fatal(err)
	}
	return drv
}

// sharedBrowser is the endpoint of the package's browser server (browser.StartServer, headless Chromium on
// loopback, started on first use) for the runs of tests that are not about the browser's launch or its
// crashes: their runs connect to it (Options.BrowserEndpoint) instead of launching Chromium per worker.
func sharedBrowser(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test")
	}
	serverOnce.Do(func() { sharedSrv, sharedSrvErr = browser.StartServer(browser.ServerOptions{}) })
	if sharedSrvErr != nil {
		t.Fatal(sharedSrvErr)
	}
	return sharedSrv.Endpoint()
}
