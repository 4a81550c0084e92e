package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"webbench/agent"
	"webbench/agent/guard"
	"webbench/results"
)

// mcpTools is the tools backend of a Playwright MCP release (the pinned install in .cache/mcp, `make setup`).
func mcpTools(version string) *ToolsBackend {
	return &ToolsBackend{Kind: "mcp", Command: []string{"npx", "@playwright/mcp@" + version}}
}

// TestMCPToolsBackend runs the built-in agent (scripted policy, clean profile) on a Zoo task through real
// Playwright MCP servers, 0.0.83 and 0.0.78 (https://github.com/microsoft/playwright-mcp), one per attempt:
// both pass by the state judge (the Zoo app's own state: the order placed), the first observation is the
// server's browser_snapshot of the tenant's start page, and the tool calls are the server's (its "Ran
// Playwright code" sections are in the results). The consent dialog of the task is met on the server's own
// browser. Resuming the run with other tools is refused (ErrPlanMismatch).
func TestMCPToolsBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s, tasks := zooShop(t, "shop-checkout-yoga-mat-express")
	if len(tasks) != 1 {
		t.Fatalf("tasks: %v", tasks)
	}
	model := Model{Kind: "scripted", Name: "scripted", Profile: "clean"}
	vs := []Variant{
		{Name: "mcp-0.0.83", Model: model, Guards: guard.Default(), Tools: mcpTools("0.0.83")},
		{Name: "mcp-0.0.78", Model: model, Guards: guard.Default(), Tools: mcpTools("0.0.78")},
	}
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: vs, BaseSeed: 1}
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := Run(context.Background(), plan, s, Options{OutDir: dir, Workers: 2, Log: os.Stderr}); err != nil {
		t.Fatal(err)
	}
	run, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Final()) != 2 {
		t.Fatalf("records: %v", run.Final())
	}
	for _, r := range run.Final() {
		tr, err := run.Trajectory(r.AttemptID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != results.StatusPass {
			t.Errorf("%s: %s/%s %s (finish %s %s)", r.Variant, r.Status, r.FailureMode, r.Error, tr.Finish.Reason, tr.Finish.Error)
		}
		if !strings.Contains(tr.FirstObservationText(), "/t/") || !strings.Contains(tr.FirstObservationText(), "[ref=e") {
			t.Errorf("%s: first observation is not a snapshot of the tenant's page:\n%.500s", r.Variant, tr.FirstObservationText())
		}
		calls, code := 0, 0
		for _, st := range tr.Steps {
			for _, res := range st.Results {
				calls++
				if strings.Contains(res.RawText(), "### Ran Playwright code") {
					code++
				}
			}
		}
		if calls == 0 || code == 0 {
			t.Errorf("%s: %d tool calls, %d with the server's code section", r.Variant, calls, code)
		}
		t.Logf("%s: %s in %d steps, %d tool calls, guard events %v", r.Variant, r.Status, len(tr.Steps), calls, tr.GuardCounts)
		if len(tr.State) == 0 {
			t.Errorf("%s: no app state", r.Variant)
		}
	}
	man, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := man.Plan.Variants[0].Tools; got == nil || got.Kind != "mcp" || strings.Join(got.Command, " ") != "npx @playwright/mcp@0.0.83" {
		t.Errorf("manifest tools %+v", got)
	}
	plan.Variants[0].Tools = mcpTools("0.0.78")
	_, err = Run(context.Background(), plan, s, Options{OutDir: dir, Workers: 1, Log: os.Stderr})
	if !errors.Is(err, ErrPlanMismatch) || !strings.Contains(err.Error(), "0.0.83") {
		t.Errorf("resume with other tools: %v", err)
	}
}

// A variant with tools: {kind: mcp} and an external agent, or with a run option that configures webbench's own
// browser, is refused before anything is written.
func TestMCPToolsRefusedBeforeTheRun(t *testing.T) {
	s, tasks := zooShop(t, "shop-checkout-yoga-mat-express")
	model := Model{Kind: "scripted", Name: "scripted", Profile: "clean"}
	for name, c := range map[string]struct {
		v    Variant
		opts Options
		want string
	}{
		"agent": {Variant{Name: "x", Model: model, Tools: mcpTools("0.0.83"),
			Agent: &AgentCmd{Kind: "command", Run: []string{"sh"}}}, Options{}, "cannot be combined with agent: {kind: command}"},
		"kind":     {Variant{Name: "x", Model: model, Tools: &ToolsBackend{Kind: "stdio", Command: []string{"x"}}}, Options{}, `tools kind "stdio": expected mcp`},
		"proxy":    {Variant{Name: "x", Model: model, Tools: &ToolsBackend{Kind: "mcp", Command: []string{"npx", "@playwright/mcp@0.0.83", "--proxy-server", "http://x"}}}, Options{}, "--proxy-server: set by webbench"},
		"evaluate": {Variant{Name: "x", Model: model, Tools: mcpTools("0.0.83")}, Options{DisableEvaluate: true}, "--disable-evaluate configures webbench's own browser"},
	} {
		dir := filepath.Join(t.TempDir(), "run")
		c.opts.OutDir, c.opts.Workers, c.opts.Log = dir, 1, os.Stderr
		_, err := Run(context.Background(), Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: []Variant{c.v}}, s, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the run directory was created (%v)", name, err)
		}
	}
}

// intercept_hint on vs off on the Playwright MCP backend, through the whole loop (runner.Run), on the consent-
// dialog task with the guard's e2e fault profile (testdata/profiles/intercept_hint.yaml: the raw call log is never
// understood, the condensed hint always is): the server's own error for the intercepted click is Playwright's call
// log naming the element that "intercepts pointer events"; on, the guard condenses it and the attempt passes; off,
// the model gets that raw log, never recovers, and the attempt fails as intercepted — the outcome flips as with
// webbench's own tools (guards_e2e_test.go).
func TestMCPToolsInterceptHintOnOff(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s, tasks := zooShop(t, "shop-checkout-yoga-mat-express")
	model := Model{Kind: "scripted", Name: "scripted", Profile: filepath.Join("testdata", "profiles", "intercept_hint.yaml")}
	off := guard.Default()
	off[guard.NameInterceptHint] = false
	vs := []Variant{
		{Name: "on", Model: model, Guards: guard.Default(), Seed: e2eSeed, Tools: mcpTools("0.0.83")},
		{Name: "off", Model: model, Guards: off, Seed: e2eSeed, Tools: mcpTools("0.0.83")},
	}
	dir := t.TempDir()
	if _, err := Run(context.Background(), Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: vs, BaseSeed: 1}, s,
		Options{OutDir: dir, Workers: 2, Log: os.Stderr}); err != nil {
		t.Fatal(err)
	}
	rr, err := results.ReadAttempts(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]results.Attempt{}
	for _, r := range rr.Final() {
		recs[r.Variant] = r
	}
	rOn, rOff := recs["on"], recs["off"]
	trOn, trOff := readTrajectory(t, dir, rOn), readTrajectory(t, dir, rOff)
	if rOn.Status != results.StatusPass {
		t.Errorf("on: %s/%s (finish %s)", rOn.Status, rOn.FailureMode, trOn.Finish.Reason)
	}
	if rOff.Status != results.StatusFail || rOff.FailureMode != "intercepted" {
		t.Errorf("off: %s/%s (finish %s), want fail/intercepted", rOff.Status, rOff.FailureMode, trOff.Finish.Reason)
	}
	for name, tr := range map[string]*agent.Trajectory{"on": trOn, "off": trOff} {
		recsI := interceptRecords(tr)
		if len(recsI) == 0 {
			t.Fatalf("%s: no intercepted click in the trajectory", name)
		}
		for _, r := range recsI {
			if !strings.Contains(r.RawText(), "intercepts pointer events") || !strings.Contains(r.RawText(), "Call log:") ||
				!strings.Contains(r.RawText(), "onetrust") {
				t.Errorf("%s: the raw result is not Playwright MCP's call log: %.400q", name, r.RawText())
			}
			condensed := strings.Contains(r.ShownText(), "Click not delivered:")
			if condensed != (name == "on") {
				t.Errorf("%s: model-facing text condensed=%v: %.300q", name, condensed, r.ShownText())
			}
		}
	}
	if trOn.GuardCounts[guard.NameInterceptHint] == 0 || trOff.GuardCounts[guard.NameInterceptHint] != 0 {
		t.Errorf("intercept_hint counts: on %v, off %v", trOn.GuardCounts, trOff.GuardCounts)
	}
}
