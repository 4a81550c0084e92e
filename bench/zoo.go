package bench

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"webbench/agent/guard"
	"webbench/browser"
	"webbench/results"
	"webbench/runner"
	"webbench/suites"
	"webbench/suites/zoo"

	playwright "github.com/mxschmitt/playwright-go"
)

// OverheadTask is the Zoo task of the harness-overhead measurement: a shop checkout without mutations
// (16 solution steps: 6 clicks to and through checkout, 7 fills, 1 select, then Place order and the answer).
const OverheadTask = "shop-checkout-cork-blocks-standard"

// openZoo opens the Zoo suite with its embedded tasks.
func openZoo() (*zoo.Suite, error) {
	s, err := zoo.NewSuite(suites.Options{})
	if err != nil {
		return nil, err
	}
	zs, ok := s.(*zoo.Suite)
	if !ok {
		return nil, fmt.Errorf("bench: zoo.NewSuite returned %T", s)
	}
	return zs, nil
}

// zooTask returns the task with id.
func zooTask(s suites.Suite, id string) (suites.Task, error) {
	for _, t := range s.Tasks() {
		if t.ID == id {
			return t, nil
		}
	}
	return suites.Task{}, fmt.Errorf("bench: Zoo task %s not found", id)
}

// scriptedPlan is a plan of tasks × reps with one variant: the scripted policy, clean profile, default guards.
func scriptedPlan(tasks []suites.Task, reps int) runner.Plan {
	return runner.Plan{Suite: "zoo", Tasks: tasks, Reps: reps, BaseSeed: 1, Variants: []runner.Variant{{
		Name: "scripted", Model: runner.Model{Kind: "scripted", Name: "scripted", Profile: "clean"},
		Guards: guard.Default(),
	}}}
}

// zooRun is one runner.Run: its wall time and records.
type zooRun struct {
	Wall    time.Duration
	Records []results.Attempt
	Dir     string
	// Run is the run directory read back (results.Open); trajectories come from it.
	Run *results.Run
}

// runZoo runs plan with the given workers into a fresh temporary run directory (removed unless keep), the
// browsers launched with the runner's flags plus args (runner.Options.BrowserArgs). An attempt recorded as an
// error (infrastructure, judge) is an error of runZoo; an uncertain verdict is not.
func runZoo(ctx context.Context, suite suites.Suite, plan runner.Plan, workers int, keep bool, args ...string) (zooRun, error) {
	dir, err := os.MkdirTemp("", "bench-run-")
	if err != nil {
		return zooRun{}, err
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	t0 := time.Now()
	sum, err := runner.Run(ctx, plan, suite, runner.Options{OutDir: dir, Workers: workers, Retries: -1,
		Chromium: chromiumPath(), BrowserArgs: args, Log: io.Discard})
	wall := time.Since(t0)
	if err != nil {
		return zooRun{}, err
	}
	run, err := results.Open(dir)
	if err != nil {
		return zooRun{}, err
	}
	recs := run.Final()
	if sum.Errors > 0 {
		for _, r := range recs {
			// An uncertain verdict is the judge's doubt, not the harness failing: the caller sees it as a
			// record that did not pass.
			if r.Status == results.StatusError && r.ErrorClass != results.ClassUncertain {
				return zooRun{}, fmt.Errorf("bench: attempt %s (%s) errored: %s", r.AttemptID, r.TaskID, r.Error)
			}
		}
	}
	return zooRun{Wall: wall, Records: recs, Dir: dir, Run: run}, nil
}

// breakdown sums an attempt trajectory's model time, tool time and tool calls; loopMS is the agent loop's
// wall time (Trajectory.DurationMS).
func breakdown(run *results.Run, rec results.Attempt) (modelMS, toolMS, loopMS float64, calls, steps int, err error) {
	t, err := run.Trajectory(rec.AttemptID)
	if err != nil {
		return 0, 0, 0, 0, 0, err
	}
	loopMS = float64(t.DurationMS)
	for _, s := range t.Steps {
		if s == nil {
			continue
		}
		modelMS += float64(s.ModelMS)
		for _, r := range s.Results {
			toolMS += float64(r.DurationMS)
			calls++
		}
	}
	return modelMS, toolMS, loopMS, calls, len(t.Steps), nil
}

// OverheadOptions size the harness-overhead measurement.
type OverheadOptions struct {
	// Runs is the number of (webbench, direct) pairs, alternating (default 3); Attempts the attempts of the
	// task per run (default 3), all on one worker / one browser.
	Runs, Attempts int
	Log            func(format string, args ...any)
}

// OverheadFigures compare webbench with a direct playwright-go program on one Zoo checkout.
type OverheadFigures struct {
	Task     string `json:"task"`
	Attempts int    `json:"attempts"`
	// RunWebbench / RunDirect: wall time of a whole run (driver start, browser launch, Attempts attempts),
	// ms, one per run; RunRatio is the median over runs of webbench/direct.
	RunWebbench, RunDirect Dist
	RunRatio               float64
	// AttemptWebbench / AttemptDirect: per-attempt wall time (tenant, context, start page, the task, state,
	// close), ms; AttemptRatio is the median over runs of the ratio of the runs' medians.
	AttemptWebbench, AttemptDirect Dist
	AttemptRatio                   float64
	// Breakdown of a webbench attempt (medians over attempts, ms): time in model calls (HTTP to the
	// scripted policy), in tool calls (action + settle + snapshot), and the rest (OtherMS), itself split into
	// SetupMS (the attempt's time outside its agent loop: tenant, browser context, start page) and LoopMS (the
	// agent loop's time outside model and tool calls: prompts, guards, recording).
	ModelMS, ToolMS, OtherMS, SetupMS, LoopMS float64
	// DirectSetupMS is the direct program's time from the start of an attempt to its start page loaded
	// (tenant, browser context, page, navigation), median over attempts, ms.
	DirectSetupMS float64
	// Steps (model calls) and ToolCalls per webbench attempt; Actions is the number of browser actions the
	// direct program performs.
	Steps, ToolCalls, Actions int
	// RunDirPerAttempt is the size of a webbench run's directory (the sum of its files' sizes, bytes: records,
	// trajectories, manifest and every other file runner.Run wrote) over its attempts, median over runs.
	RunDirPerAttempt float64
}

// MeasureOverhead runs OverheadTask through runner.Run (1 worker, scripted policy with zero latency) and
// through directAttempt (plain playwright-go: the task's solution steps as role locators), alternating, and
// compares wall times. Every attempt on both sides must pass the task's state check.
func MeasureOverhead(ctx context.Context, o OverheadOptions) (OverheadFigures, error) {
	if o.Runs <= 0 {
		o.Runs = 3
	}
	if o.Attempts <= 0 {
		o.Attempts = 3
	}
	logf := o.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	suite, err := openZoo()
	if err != nil {
		return OverheadFigures{}, err
	}
	defer suite.Close()
	task, err := zooTask(suite, OverheadTask)
	if err != nil {
		return OverheadFigures{}, err
	}
	f := OverheadFigures{Task: task.ID, Attempts: o.Attempts}
	var runW, runD, attW, attD, runRatios, attRatios, modelS, toolS, otherS, setupS, loopS, dSetupS, dirS []float64
	for r := 0; r < o.Runs; r++ {
		logf("overhead: run %d/%d: webbench runner.Run (1 worker, %d attempts)", r+1, o.Runs, o.Attempts)
		zr, err := runZoo(ctx, suite, scriptedPlan([]suites.Task{task}, o.Attempts), 1, true)
		if err != nil {
			return f, err
		}
		var aw []float64
		for _, rec := range zr.Records {
			if rec.Status != results.StatusPass {
				os.RemoveAll(zr.Dir)
				return f, fmt.Errorf("bench: webbench attempt of %s did not pass: %s %s %s", task.ID, rec.Status,
					rec.FailureMode, rec.Verdict.Reason)
			}
			aw = append(aw, float64(rec.DurationMS))
			m, t, loop, calls, steps, err := breakdown(zr.Run, rec)
			if err != nil {
				os.RemoveAll(zr.Dir)
				return f, err
			}
			modelS, toolS = append(modelS, m), append(toolS, t)
			otherS = append(otherS, float64(rec.DurationMS)-m-t)
			setupS, loopS = append(setupS, float64(rec.DurationMS)-loop), append(loopS, loop-m-t)
			f.ToolCalls, f.Steps = calls, steps
		}
		size, err := dirBytes(zr.Dir)
		os.RemoveAll(zr.Dir)
		if err != nil {
			return f, err
		}
		dirS = append(dirS, float64(size)/float64(len(zr.Records)))
		logf("overhead: run %d/%d: direct playwright-go", r+1, o.Runs)
		wall, ad, ds, actions, err := directRun(ctx, suite, task, o.Attempts)
		if err != nil {
			return f, err
		}
		dSetupS = append(dSetupS, ds...)
		f.Actions = actions
		runW, runD = append(runW, ms(zr.Wall)), append(runD, ms(wall))
		runRatios = append(runRatios, ms(zr.Wall)/ms(wall))
		attW, attD = append(attW, aw...), append(attD, ad...)
		attRatios = append(attRatios, Median(aw)/Median(ad))
	}
	f.RunWebbench, f.RunDirect, f.RunRatio = NewDist(runW), NewDist(runD), Median(runRatios)
	f.AttemptWebbench, f.AttemptDirect, f.AttemptRatio = NewDist(attW), NewDist(attD), Median(attRatios)
	f.ModelMS, f.ToolMS, f.OtherMS = Median(modelS), Median(toolS), Median(otherS)
	f.SetupMS, f.LoopMS, f.DirectSetupMS = Median(setupS), Median(loopS), Median(dSetupS)
	f.RunDirPerAttempt = Median(dirS)
	return f, nil
}

// dirBytes is the sum of the sizes of the regular files below dir, bytes (apparent sizes, as `du -sb`, not
// disk blocks).
func dirBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	return n, err
}

// directRun starts a driver and a browser (same launch flags as the runner's workers) and runs n attempts of
// task with directAttempt, each in a fresh context and tenant. It returns the whole run's wall time, each
// attempt's wall time and its time to the start page loaded (ms), and the number of browser actions per attempt.
func directRun(ctx context.Context, suite suites.Suite, task suites.Task, n int) (time.Duration, []float64, []float64, int, error) {
	t0 := time.Now()
	drv, err := browser.StartDriver(browser.DriverOptions{})
	if err != nil {
		return 0, nil, nil, 0, err
	}
	defer drv.Stop()
	// The runner's flags for the suite, so that both sides run the same browser.
	b, err := drv.Launch(browser.LaunchOptions{ExecutablePath: chromiumPath(), Headless: true,
		Args: runner.SuiteBrowserArgs(nil, suite)})
	if err != nil {
		return 0, nil, nil, 0, err
	}
	defer b.Close()
	var per, setup []float64
	actions := 0
	for i := 0; i < n; i++ {
		a0 := time.Now()
		k, ready, err := directAttempt(ctx, suite, b.Playwright(), task, i)
		if err != nil {
			return 0, nil, nil, 0, err
		}
		actions = k
		per, setup = append(per, ms(time.Since(a0))), append(setup, ms(ready.Sub(a0)))
	}
	return time.Since(t0), per, setup, actions, nil
}

// directAttempt is what a hand-written playwright-go script does for the task: a fresh tenant and context
// (1280×720, en-US, UTC, as webbench's sessions), the start page, then each solution step as a role locator
// (exact accessible name, nth match, within an ancestor when the step says so) — click, fill, select_option,
// keyboard press — and the answer read from the heading. Playwright's auto-waiting is the only
// synchronisation. The state judge must pass. It returns the number of browser actions and when the start page
// had loaded.
func directAttempt(ctx context.Context, suite suites.Suite, pw playwright.Browser, task suites.Task, i int) (actions int, ready time.Time, err error) {
	env, err := suite.Open(ctx, task, fmt.Sprintf("direct-%d", i))
	if err != nil {
		return 0, ready, err
	}
	defer env.Close(context.Background())
	bctx, err := pw.NewContext(playwright.BrowserNewContextOptions{
		Viewport: &playwright.Size{Width: browser.DefaultViewportWidth, Height: browser.DefaultViewportHeight},
		Locale:   playwright.String(browser.DefaultLocale), TimezoneId: playwright.String(browser.DefaultTimezoneID),
	})
	if err != nil {
		return 0, ready, err
	}
	defer bctx.Close()
	bctx.SetDefaultTimeout(ms(browser.DefaultActionTimeout))
	p, err := bctx.NewPage()
	if err != nil {
		return 0, ready, err
	}
	if _, err := p.Goto(env.StartURL()); err != nil {
		return 0, ready, err
	}
	ready = time.Now()
	final := ""
	for si, st := range task.Solution {
		var err error
		switch st.Kind {
		case "click":
			err = locate(p, st.Target).Click()
		case "fill":
			err = locate(p, st.Target).Fill(st.Text)
		case "select":
			vals := st.Values
			_, err = locate(p, st.Target).SelectOption(playwright.SelectOptionValues{ValuesOrLabels: &vals})
		case "press":
			err = p.Keyboard().Press(st.Key)
		case "navigate":
			_, err = p.Goto(st.URL)
		case "answer":
			if st.Literal != "" {
				final = st.Literal
				continue
			}
			var txt string
			txt, err = locate(p, st.Target).TextContent()
			if err == nil && st.Target.NameRegex != "" {
				if m := regexp.MustCompile(st.Target.NameRegex).FindStringSubmatch(txt); len(m) > 1 {
					txt = m[1]
				}
			}
			final = txt
			continue
		default:
			return 0, ready, fmt.Errorf("bench: direct script: step kind %q not supported", st.Kind)
		}
		if err != nil {
			return 0, ready, fmt.Errorf("bench: direct script step %d (%s %+v): %w", si+1, st.Kind, st.Target, err)
		}
		actions++
	}
	state, err := env.State(ctx)
	if err != nil {
		return 0, ready, err
	}
	tr := &results.Trajectory{State: state, Finish: results.FinishRecord{Reason: results.FinishAnswered,
		Final: &results.FinalAnswer{OK: true, Final: final}}}
	if rec := directRecord(ctx, task, tr); rec.Status != results.StatusPass {
		v := rec.Verdict
		return 0, ready, fmt.Errorf("bench: direct script did not pass %s: %s %s", task.ID, v.Reason, v.Error)
	}
	return actions, ready, nil
}

// directRecord is the record of the direct script's attempt on task, whose trajectory tr holds its final
// answer and end state: concluded by the runner's rule (runner.Judged), so the script passes exactly when an
// agent that ended the same way would.
func directRecord(ctx context.Context, task suites.Task, tr *results.Trajectory) results.Attempt {
	return runner.Judged(ctx, results.Attempt{}, task, tr, nil)
}

// locate builds a role locator for a solution target: role, exact name (or name regex), within an ancestor
// target, nth match.
func locate(p playwright.Page, t *suites.Target) playwright.Locator {
	opt := func() (any, *bool) {
		if t.NameRegex != "" {
			return regexp.MustCompile(t.NameRegex), nil
		}
		if t.Name != "" {
			return t.Name, playwright.Bool(true)
		}
		return nil, nil
	}
	name, exact := opt()
	var loc playwright.Locator
	if t.Within != nil {
		loc = locate(p, t.Within).GetByRole(playwright.AriaRole(t.Role), playwright.LocatorGetByRoleOptions{
			Name: name, Exact: exact})
	} else {
		loc = p.GetByRole(playwright.AriaRole(t.Role), playwright.PageGetByRoleOptions{Name: name, Exact: exact})
	}
	return loc.Nth(t.Nth)
}
