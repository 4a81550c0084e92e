package runner

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"testing"

	"webbench/browser"
	"webbench/results"
	"webbench/suites"
)

// TestScreenshotStepsRecorded: with Options.Screenshots the runner captures after every step and records, beside
// the kept screenshots, the step each was taken after (Trajectory.ScreenshotSteps): as many
// steps as screenshots: the last browser.DefaultKeepScreenshots steps with tool calls (the loop captures after
// each; the answering step makes none), oldest first.
func TestScreenshotStepsRecorded(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s, task := zooTask(t, "shop-checkout-cork-blocks-standard") // 16 tool calls: more steps than the kept window
	out := t.TempDir()
	plan := Plan{Suite: "zoo", Tasks: []suites.Task{task}, Reps: 1, Variants: []Variant{cleanVariant()}, BaseSeed: 1}
	if _, err := Run(context.Background(), plan, s, Options{OutDir: out, Workers: 1, Log: io.Discard, Screenshots: true}); err != nil {
		t.Fatal(err)
	}
	// The Zoo's pages need no WebGL: the run's browsers launched without software GL, and took the screenshots.
	man, err := results.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if man.Browser == nil || !slices.Equal(man.Browser.Args, []string{browser.NoSoftwareGLFlag}) {
		t.Errorf("manifest browser section %+v: want args [%s]", man.Browser, browser.NoSoftwareGLFlag)
	}
	rr, err := results.ReadAttempts(out)
	if err != nil {
		t.Fatal(err)
	}
	recs := rr.Final()
	if len(recs) != 1 || recs[0].Status != results.StatusPass {
		t.Fatalf("records %+v: want one pass", recs)
	}
	tr, err := results.ReadTrajectory(filepath.Join(out, recs[0].Trajectory))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Screenshots) == 0 || len(tr.ScreenshotSteps) != len(tr.Screenshots) {
		t.Fatalf("%d screenshots, steps %v: want one step per screenshot", len(tr.Screenshots), tr.ScreenshotSteps)
	}
	var idx []int
	for _, st := range tr.Steps {
		if len(st.ToolCalls) > 0 { // the loop captures after a step that acted, not after the answer
			idx = append(idx, st.Index)
		}
	}
	if len(idx) <= browser.DefaultKeepScreenshots {
		t.Fatalf("%d steps: the task must have more than the %d kept", len(idx), browser.DefaultKeepScreenshots)
	}
	// One capture after each acting step: the kept ones are the last DefaultKeepScreenshots steps, in order.
	want := idx[len(idx)-browser.DefaultKeepScreenshots:]
	if !slices.Equal(tr.ScreenshotSteps, want) {
		t.Errorf("screenshot steps %v, want the last %d step indices %v", tr.ScreenshotSteps, browser.DefaultKeepScreenshots, want)
	}
}
