package main

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"webbench/browser"
	"webbench/results"
	"webbench/runner"
)

// runFlags configure execution (shared by run and ablate).
type runFlags struct {
	workers, retries           int
	out, shard                 string
	driverDir, chromium, wsURL string
	wsURLEnv, exposeNetwork    string
	browserHeaders             []string
	browserHeaderEnv           []string
	connectTimeout, reconnect  time.Duration
	maxCost                    float64
	maxConns                   int
	req                        requestFlags
	dryRun, jsonOut            bool
	screenshots, trace         bool
	noEvaluate                 bool
	// cmd is the command the flags were registered on (register), for Changed.
	cmd *cobra.Command
}

func (f *runFlags) register(c *cobra.Command) {
	f.cmd = c
	c.Flags().IntVar(&f.workers, "workers", 0, "parallel workers, each with its own browser (default: number of cores)")
	c.Flags().IntVar(&f.retries, "retries", 2, "retries of an attempt after infrastructure errors")
	c.Flags().StringVar(&f.out, "out", "", "run directory (default runs/<timestamp>); re-running on it resumes")
	c.Flags().StringVar(&f.shard, "shard", "", "run shard i/n of the plan (partitioned by pair_id); 'k8s/n' takes i from JOB_COMPLETION_INDEX")
	c.Flags().StringVar(&f.driverDir, "driver-dir", "", "Playwright driver folder (default: .cache/driver found upward, or $WEBBENCH_DRIVER_DIR)")
	c.Flags().StringVar(&f.chromium, "chromium", "", "Chromium binary (default: $WEBBENCH_CHROMIUM, /usr/lib/chromium/chromium-headless-shell for headless launches, /usr/lib/chromium/chromium, chromium/chrome on PATH, Playwright's cache; README \"Browser discovery\")")
	c.Flags().StringVar(&f.wsURL, "browser-endpoint", "", "connect to a remote Playwright browser server (ws://… or wss://…, "+
		"Playwright "+browser.DriverMinor+".x like this bench's driver) instead of launching Chromium")
	c.Flags().StringVar(&f.wsURLEnv, "browser-endpoint-env", "", "--browser-endpoint read from the environment "+
		"variable `VAR` (keeps a ?token= in the URL out of shell history and the process list)")
	c.Flags().StringArrayVar(&f.browserHeaders, "browser-header", nil, "'Name: value' HTTP header sent with the connect to "+
		"--browser-endpoint (repeatable); the value is a secret, recorded nowhere")
	c.Flags().StringArrayVar(&f.browserHeaderEnv, "browser-header-env", nil, "'Name=VAR': send header Name with the value of "+
		"$VAR (repeatable; keeps tokens out of shell history and the process list)")
	c.Flags().StringVar(&f.exposeNetwork, "browser-expose-network", "", "Playwright's exposeNetwork rules for "+
		"--browser-endpoint, e.g. '<loopback>': the remote browser reaches these hosts through this machine (the Zoo "+
		"on its loopback); honoured by servers in 'playwright run-server' mode, ignored by launchServer and "+
		"launch-server ones (the check before the run refuses a remote browser that cannot load a start page on this "+
		"machine's loopback; a rule must match the start URL's host as written: 127.0.0.1 does not cover localhost)")
	c.Flags().DurationVar(&f.connectTimeout, "browser-connect-timeout", browser.DefaultConnectTimeout, "bound of one connect to --browser-endpoint")
	c.Flags().DurationVar(&f.reconnect, "browser-reconnect", runner.DefaultBrowserReconnect, "how long --browser-endpoint "+
		"may stay unreachable during a run (one window for all workers) before the run stops, exit 3, resumable "+
		"(0: the first failed connect stops it)")
	c.Flags().Float64Var(&f.maxCost, "max-cost", 0, "stop once recorded model spend reaches this many USD")
	c.Flags().IntVar(&f.maxConns, "max-connections", 0, "cap of concurrent requests to each model endpoint across all workers, halved on HTTP 429 and grown back (0: no cap)")
	f.req.register(c)
	c.Flags().BoolVar(&f.dryRun, "dry-run", false, "print the plan (attempt ids, in task order; the run shuffles the pairs' order by the seed, then starts the pairs with the most arms first) and exit")
	c.Flags().BoolVar(&f.jsonOut, "json", false, "with --dry-run: print the plan as JSON")
	c.Flags().BoolVar(&f.screenshots, "screenshots", false, "keep a screenshot after every step (for the llm judge)")
	c.Flags().BoolVar(&f.trace, "trace", false, "keep a Playwright trace (traces/<attempt_id>.zip) of every attempt that did not pass")
	c.Flags().BoolVar(&f.noEvaluate, "disable-evaluate", false, "remove browser_evaluate from the agent's tools")
}

func (f *runFlags) options() (runner.Options, error) {
	// 0 workers is the default ("number of cores"); negative counts and spend limits are mistakes.
	switch {
	case f.workers < 0:
		return runner.Options{}, usageErr("--workers %d: must be at least 0 (0: number of cores)", f.workers)
	case f.retries < 0:
		return runner.Options{}, usageErr("--retries %d: must be at least 0", f.retries)
	case f.maxCost < 0 || math.IsNaN(f.maxCost):
		return runner.Options{}, usageErr("--max-cost %v: must be at least 0 USD (0: no limit)", f.maxCost)
	case f.maxConns < 0:
		return runner.Options{}, usageErr("--max-connections %d: must be at least 0 (0: no cap)", f.maxConns)
	}
	sh, err := runner.ParseShard(f.shard)
	if err != nil {
		return runner.Options{}, usageErr("%v", err)
	}
	if f.connectTimeout <= 0 {
		return runner.Options{}, usageErr("--browser-connect-timeout %s: must be positive", f.connectTimeout)
	}
	endpoint, err := f.endpoint()
	if err != nil {
		return runner.Options{}, err
	}
	headers, err := f.headers(endpoint)
	if err != nil {
		return runner.Options{}, err
	}
	if f.exposeNetwork != "" && endpoint == "" {
		return runner.Options{}, usageErr("--browser-expose-network needs --browser-endpoint")
	}
	// The connect flags do nothing for local browsers: given without an endpoint, they are a mistake (a
	// forgotten --browser-endpoint-env), not a no-op.
	for _, n := range []string{"browser-connect-timeout", "browser-reconnect", "browser-expose-network"} {
		if endpoint == "" && f.cmd != nil && f.cmd.Flags().Changed(n) {
			return runner.Options{}, usageErr("--%s needs --browser-endpoint (or --browser-endpoint-env): it "+
				"configures the connects to a remote browser server", n)
		}
	}
	if f.reconnect < 0 {
		return runner.Options{}, usageErr("--browser-reconnect %s: must be at least 0 (0: the first failed connect "+
			"stops the run)", f.reconnect)
	}
	reconnect := f.reconnect
	if reconnect == 0 {
		reconnect = -1 // the first failed connect stops the run (runner.Options' 0 is the default window)
	}
	out := f.out
	if out == "" {
		out = filepath.Join("runs", time.Now().UTC().Format("20060102-150405"))
	}
	return runner.Options{OutDir: out, Workers: f.workers, Retries: f.retries, Shard: sh, DriverDir: f.driverDir,
		Chromium: f.chromium, BrowserEndpoint: endpoint, BrowserHeaders: headers, BrowserExposeNetwork: f.exposeNetwork,
		BrowserConnectTimeout: f.connectTimeout,
		BrowserReconnect:      reconnect, MaxCostUSD: f.maxCost, Screenshots: f.screenshots, Trace: f.trace,
		DisableEvaluate: f.noEvaluate}, nil
}

// headerName is an HTTP header name (RFC 9110 token).
var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// endpoint is the remote browser server's URL: --browser-endpoint, or the value of $VAR for
// --browser-endpoint-env VAR (refused together, or with VAR unset or empty); "" for local browsers. Errors
// never quote the URL.
func (f *runFlags) endpoint() (string, error) {
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

// headers are the connect headers of --browser-header 'Name: value' and --browser-header-env 'Name=VAR' (the
// value read from $VAR), refused without a remote endpoint, with a malformed name, a header given twice, or
// an unset or empty variable. Errors never quote a value.
func (f *runFlags) headers(endpoint string) (map[string]string, error) {
	if len(f.browserHeaders)+len(f.browserHeaderEnv) == 0 {
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
	for _, h := range f.browserHeaders {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			return nil, usageErr("--browser-header: want 'Name: value' (a colon after the name), got a value of %s "+
				"without one", results.Count(len(h), "character", "characters"))
		}
		if err := add("--browser-header", name, strings.TrimSpace(value)); err != nil {
			return nil, err
		}
	}
	for _, h := range f.browserHeaderEnv {
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

// applyModelFlags sets --max-connections, --omit and --max-tokens-field, each when given, on every variant's
// model (run: the one variant; ablate: every arm, replacing the spec's max_connections, omit and
// max_tokens_field). A negative cap is refused by options; an unknown --omit field or --max-tokens-field value
// here.
func (f *runFlags) applyModelFlags(c *cobra.Command, vs []runner.Variant) error {
	if c.Flags().Changed("max-connections") {
		for i := range vs {
			vs[i].Model.MaxConnections = f.maxConns
		}
	}
	capped := false
	for i := range vs {
		if err := f.req.apply(c, &vs[i].Model); err != nil {
			return err
		}
		capped = capped || vs[i].Model.MaxTokens != nil
	}
	return f.req.check(c, capped)
}
