package main

import (
	"math"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"webbench/browser/cassette"
	"webbench/runner"
)

// runFlags configure execution (shared by run and ablate).
type runFlags struct {
	workers, retries    int
	out, shard          string
	driverDir, chromium string
	remote              remoteFlags
	maxCost             float64
	maxAttempts         int
	maxConns            int
	req                 requestFlags
	dryRun, jsonOut     bool
	screenshots, trace  bool
	noEvaluate          bool
	modelCache          string
	cas                 cassetteFlags
	// cassette is the cassette --record or --replay opened (openCassette), nil without them.
	cassette *cassette.Cassette
	// cmd is the command the flags were registered on (register), for Changed.
	cmd *cobra.Command
}

// register adds the execution flags to c (and remembers c for options).
func (f *runFlags) register(c *cobra.Command) {
	f.cmd = c
	c.Flags().IntVar(&f.workers, "workers", 0, "parallel workers, each with its own browser (default: number of cores)")
	c.Flags().IntVar(&f.retries, "retries", 2, "retries of an attempt after infrastructure errors")
	c.Flags().StringVar(&f.out, "out", "", "run directory (default runs/<timestamp>); re-running on it resumes")
	c.Flags().StringVar(&f.shard, "shard", "", "run shard i/n of the plan (partitioned by pair_id); 'k8s/n' takes i from JOB_COMPLETION_INDEX")
	c.Flags().StringVar(&f.driverDir, "driver-dir", "", "Playwright driver folder (default: .cache/driver found upward, or $WEBBENCH_DRIVER_DIR)")
	c.Flags().StringVar(&f.chromium, "chromium", "", "Chromium binary (default: $WEBBENCH_CHROMIUM, /usr/lib/chromium/chromium-headless-shell for headless launches, /usr/lib/chromium/chromium, chromium/chrome on PATH, Playwright's cache; docs/SETUP.md \"Browser discovery\")")
	f.remote.register(c)
	c.Flags().Float64Var(&f.maxCost, "max-cost", 0, "start no attempt once the run's recorded model spend (earlier invocations of a resumed run included; a shard counts its own) reaches this many USD (those in flight finish and are recorded)")
	c.Flags().IntVar(&f.maxAttempts, "max-attempts", 0, "start no attempt once the run's attempts across all arms (earlier invocations' included) reach this many (0: no limit)")
	c.Flags().IntVar(&f.maxConns, "max-connections", 0, "cap of concurrent requests to each model endpoint across all workers, halved on HTTP 429 and grown back (0: no cap)")
	f.req.register(c)
	c.Flags().BoolVar(&f.dryRun, "dry-run", false, "print the plan (attempt ids, in task order; the run shuffles the pairs' order by the seed, then starts the pairs with the most arms first) and exit")
	c.Flags().BoolVar(&f.jsonOut, "json", false, "with --dry-run: print the plan as JSON")
	c.Flags().BoolVar(&f.screenshots, "screenshots", false, "keep a screenshot after every step (for the llm judge)")
	c.Flags().BoolVar(&f.trace, "trace", false, "keep a Playwright trace (traces/<attempt_id>.zip) of every attempt that did not pass")
	c.Flags().BoolVar(&f.noEvaluate, "disable-evaluate", false, "remove browser_evaluate from the agent's tools")
	c.Flags().StringVar(&f.modelCache, "model-cache", "", "model-call cache directory: the built-in agent's calls replay from it until an attempt's first request not stored, every response is stored; the variants it serves are not preflighted; refused (exit 2) when no variant uses the built-in agent (docs/MODEL-CACHE.md)")
	f.cas.register(c)
}

// openCassette opens the cassette of --record or --replay (before the suite opens: a replay sets suite
// options, suiteOptions) and keeps it for options.
func (f *runFlags) openCassette() (*cassette.Cassette, error) {
	if err := f.cas.check(); err != nil {
		return nil, err
	}
	if f.dryRun && f.cas.record != "" {
		return nil, nil // a dry run writes nothing: no cassette directory is made
	}
	c, err := f.cas.open()
	f.cassette = c
	return c, err
}

// check makes the refusals of options before a command opens its suite, so that a usage error costs no
// suite load; the command takes options once it has set what it fills in from elsewhere (the cassette, a spec's
// workers and output folder), none of which options refuses.
func (f *runFlags) check() error {
	_, err := f.options()
	return err
}

// options are the runner's options from the flags; a bad value is a usage error naming the flag.
func (f *runFlags) options() (runner.Options, error) {
	// 0 workers is the default ("number of cores"); negative counts and spend limits are mistakes.
	switch {
	case f.workers < 0:
		return runner.Options{}, usageErr("--workers %d: must be at least 0 (0: number of cores)", f.workers)
	case f.retries < 0:
		return runner.Options{}, usageErr("--retries %d: must be at least 0", f.retries)
	case f.maxCost < 0 || math.IsNaN(f.maxCost):
		return runner.Options{}, usageErr("--max-cost %v: must be at least 0 USD (0: no limit)", f.maxCost)
	case f.maxAttempts < 0:
		return runner.Options{}, usageErr("--max-attempts %d: must be at least 0 (0: no limit)", f.maxAttempts)
	case f.maxConns < 0:
		return runner.Options{}, usageErr("--max-connections %d: must be at least 0 (0: no cap)", f.maxConns)
	}
	sh, err := runner.ParseShard(f.shard)
	if err != nil {
		return runner.Options{}, usageErr("%v", err)
	}
	opts := runner.Options{Workers: f.workers, Retries: f.retries, Shard: sh, DriverDir: f.driverDir,
		Chromium: f.chromium, MaxCostUSD: f.maxCost, MaxAttempts: f.maxAttempts, Screenshots: f.screenshots, Trace: f.trace,
		DisableEvaluate: f.noEvaluate, ModelCache: f.modelCache, Cassette: f.cassette}
	if err := f.remote.apply(f.cmd, &opts); err != nil {
		return runner.Options{}, err
	}
	opts.OutDir = f.out
	if opts.OutDir == "" {
		opts.OutDir = filepath.Join("runs", time.Now().UTC().Format("20060102-150405"))
	}
	return opts, nil
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
