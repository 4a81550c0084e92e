package main

import (
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"webbench/browser"
	"webbench/results"
	"webbench/runner"
)

// remoteFlags choose a remote Playwright browser server instead of a local Chromium (part of runFlags: run and
// ablate): its URL, the connect's headers, the hosts it reaches through this machine, the connect timeout and the
// reconnect window.
type remoteFlags struct {
	wsURL, wsURLEnv, exposeNetwork string
	headers, headerEnv             []string
	connectTimeout, reconnect      time.Duration
}

// register adds the remote browser flags to c.
func (f *remoteFlags) register(c *cobra.Command) {
	c.Flags().StringVar(&f.wsURL, "browser-endpoint", "", "connect to a remote Playwright browser server (ws://… or wss://…, "+
		"Playwright "+browser.DriverMinor+".x like this bench's driver) instead of launching Chromium")
	c.Flags().StringVar(&f.wsURLEnv, "browser-endpoint-env", "", "--browser-endpoint read from the environment "+
		"variable `VAR` (keeps a ?token= in the URL out of shell history and the process list)")
	c.Flags().StringArrayVar(&f.headers, "browser-header", nil, "'Name: value' HTTP header sent with the connect to "+
		"--browser-endpoint (repeatable); the value is a secret, recorded nowhere")
	c.Flags().StringArrayVar(&f.headerEnv, "browser-header-env", nil, "'Name=VAR': send header Name with the value of "+
		"$VAR (repeatable; keeps tokens out of shell history and the process list)")
	c.Flags().StringVar(&f.exposeNetwork, "browser-expose-network", "", "Playwright's exposeNetwork rules for "+
		"--browser-endpoint, e.g. '<loopback>': hosts the remote browser reaches through this machine (the Zoo); "+
		"only 'playwright run-server' servers honour it; a rule matches the start URL's host as written "+
		"(127.0.0.1 does not cover localhost)")
	c.Flags().DurationVar(&f.connectTimeout, "browser-connect-timeout", browser.DefaultConnectTimeout, "bound of one connect to --browser-endpoint")
	c.Flags().DurationVar(&f.reconnect, "browser-reconnect", runner.DefaultBrowserReconnect, "how long --browser-endpoint "+
		"may stay unreachable during a run (one window for all workers) before the run stops, exit 3, resumable "+
		"(0: the first failed connect stops it)")
}

// apply sets the remote browser fields of o (BrowserEndpoint, BrowserHeaders, BrowserExposeNetwork,
// BrowserConnectTimeout, BrowserReconnect) from the flags of c. Usage errors: a connect timeout not positive or
// a negative reconnect window, a bad endpoint or header (endpoint, connectHeaders), and a connect flag given
// without an endpoint.
func (f *remoteFlags) apply(c *cobra.Command, o *runner.Options) error {
	if f.connectTimeout <= 0 {
		return usageErr("--browser-connect-timeout %s: must be positive", f.connectTimeout)
	}
	endpoint, err := f.endpoint()
	if err != nil {
		return err
	}
	headers, err := f.connectHeaders(endpoint)
	if err != nil {
		return err
	}
	if f.exposeNetwork != "" && endpoint == "" {
		return usageErr("--browser-expose-network needs --browser-endpoint")
	}
	// The connect flags do nothing for local browsers: given without an endpoint, they are a mistake (a
	// forgotten --browser-endpoint-env), not a no-op.
	for _, n := range []string{"browser-connect-timeout", "browser-reconnect", "browser-expose-network"} {
		if endpoint == "" && c != nil && c.Flags().Changed(n) {
			return usageErr("--%s needs --browser-endpoint (or --browser-endpoint-env): it "+
				"configures the connects to a remote browser server", n)
		}
	}
	if f.reconnect < 0 {
		return usageErr("--browser-reconnect %s: must be at least 0 (0: the first failed connect "+
			"stops the run)", f.reconnect)
	}
	o.BrowserEndpoint, o.BrowserHeaders, o.BrowserExposeNetwork = endpoint, headers, f.exposeNetwork
	o.BrowserConnectTimeout, o.BrowserReconnect = f.connectTimeout, f.reconnect
	if f.reconnect == 0 {
		o.BrowserReconnect = -1 // the first failed connect stops the run (runner.Options' 0 is the default window)
	}
	return nil
}

// headerName is an HTTP header name (RFC 9110 token).
var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// endpoint is the remote browser server's URL: --browser-endpoint, or the value of $VAR for
// --browser-endpoint-env VAR (refused together, or with VAR unset or empty); "" for local browsers. Errors
// never quote the URL.
func (f *remoteFlags) endpoint() (string, error) {
	if f.wsURLEnv == "" {
		return f.wsURL, nil
	}
	if f.wsURL != "" {
		return "", usageErr("--browser-endpoint and --browser-endpoint-env: give one of them")
	}
	v := strings.TrimSpace(os.Getenv(f.wsURLEnv))
	if v == "" {
		return "", usageErr("--browser-endpoint-env %s: $%s is unset or empty", f.wsURLEnv, f.wsURLEnv)
	}
	return v, nil
}

// connectHeaders are the connect headers of --browser-header 'Name: value' and --browser-header-env 'Name=VAR' (the
// value read from $VAR), refused without a remote endpoint, with a malformed name, a header given twice, or
// an unset or empty variable. Errors never quote a value.
func (f *remoteFlags) connectHeaders(endpoint string) (map[string]string, error) {
	if len(f.headers)+len(f.headerEnv) == 0 {
		return nil, nil
	}
	if endpoint == "" {
		return nil, usageErr("--browser-header and --browser-header-env need --browser-endpoint (or --browser-endpoint-env): they are sent " +
			"with the connect to a remote browser server")
	}
	out := map[string]string{}
	add := func(flag, name, value string) error {
		name = strings.TrimSpace(name)
		if !headerName.MatchString(name) {
			return usageErr("%s: %q is not an HTTP header name (want 'Name: value'%s)", flag, name,
				map[bool]string{true: ", or Name=VAR", false: ""}[flag == "--browser-header-env"])
		}
		for k := range out {
			if strings.EqualFold(k, name) {
				return usageErr("%s: header %s given twice", flag, name)
			}
		}
		out[name] = value
		return nil
	}
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			return nil, usageErr("--browser-header: want 'Name: value' (a colon after the name), got a value of %s "+
				"without one", results.Count(len(h), "character", "characters"))
		}
		if err := add("--browser-header", name, strings.TrimSpace(value)); err != nil {
			return nil, err
		}
	}
	for _, h := range f.headerEnv {
		name, env, ok := strings.Cut(h, "=")
		if !ok || env == "" {
			return nil, usageErr("--browser-header-env %q: want Name=VAR (the value is read from $VAR)", h)
		}
		v := os.Getenv(env)
		if v == "" {
			return nil, usageErr("--browser-header-env %s: $%s is unset or empty", h, env)
		}
		if err := add("--browser-header-env", name, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}
