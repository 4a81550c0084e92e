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
