package runner

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"time"

	"webbench/judge"
	"webbench/results"
	"webbench/suites"
)

// conclude completes the record of an attempt the agent finished: the app's final state (into tr), the cost of
// its usage (estimated tokens too: they count toward --max-cost), the kept screenshots (written, and added to
// the trajectory with shotSteps, the step of each of shots, as Trajectory.ScreenshotSteps when every step is
// known), then the status by the one rule (Judged); the trajectory is written last.
func (wk *worker) conclude(ctx context.Context, rec results.Attempt, a Attempt, af *agentFor, w *results.Writer,
	env suites.Env, shots [][]byte, shotSteps []int, tr *results.Trajectory) results.Attempt {
	if st, err := env.State(context.Background()); err == nil {
		tr.State = st
	}
	rec.CostUSD = af.client.Cost(tr.Usage)
	keepScreenshots(w, a.AttemptID, tr, shots, shotSteps)
	rec = Judged(ctx, rec, *a.Task, tr, shots)
	if err := w.WriteTrajectory(rec.Trajectory, tr); err != nil {
		fmt.Fprintf(wk.opts.Log, "warning: trajectory %s: %v\n", rec.Trajectory, err)
	}
	return rec
}

// keepScreenshots writes shots as screenshots/<attemptID>/NN.png and lists them in tr.Screenshots. The steps are
// recorded (tr.ScreenshotSteps) only when every written screenshot has one (a page that cannot place one shows
// them all without steps).
func keepScreenshots(w *results.Writer, attemptID string, tr *results.Trajectory, shots [][]byte, shotSteps []int) {
	stepsKnown := len(shotSteps) == len(shots)
	var steps []int
	for i, png := range shots {
		rel := filepath.Join(results.ScreenshotsDir, attemptID, fmt.Sprintf("%02d.png", i+1))
		if err := w.WriteFile(rel, png); err == nil {
			tr.Screenshots = append(tr.Screenshots, rel)
			if stepsKnown {
				stepsKnown = shotSteps[i] >= 0
				steps = append(steps, shotSteps[i])
			}
		}
	}
	if stepsKnown && len(steps) > 0 {
		tr.ScreenshotSteps = steps
	}
}

// Judged is rec, the record of an attempt on task t that the agent finished (identity, timings and cost set),
// concluded from its trajectory tr by the one status rule (results.Conclude) with the verdict of the task's own
// judges (judge.ForTask, judge.Compose) on its final answer, its end state (tr.State) and shots (PNG
// screenshots, oldest first; nil when none were kept). Every way an attempt is played ends here: the runner's
// worker, bench mcp serve (ServedRecord) and the Zoo benchmark's direct script.
func Judged(ctx context.Context, rec results.Attempt, t suites.Task, tr *results.Trajectory, shots [][]byte) results.Attempt {
	return results.Conclude(rec, tr, func(rec results.Attempt) judge.Verdict {
		return judge.Compose(ctx, judge.ForTask(t), judge.Input{Task: t, Final: rec.Final, OK: rec.OK,
			State: tr.State, Screenshots: shots})
	})
}

// ServedVariant is the variant name the attempt id of an attempt served by hand (bench mcp serve) derives from
// (AttemptID).
const ServedVariant = "mcp-serve"

// ServedRecord is the record of attempt attemptID of task t of suite suite served by hand (bench mcp serve,
// rep 1, model "external"), with seed, the guard switches g (guard.Parse's map; the defaults fill the rest), the
// attempt's start opened and its wall time d (opened until serving stopped), concluded from tr (State and
// Finish set) as the runner concludes its attempts (Judged).
func ServedRecord(ctx context.Context, t suites.Task, suite, attemptID string, seed int, g map[string]bool,
	tr *results.Trajectory, opened time.Time, d time.Duration) results.Attempt {
	rec := results.Attempt{AttemptID: attemptID, PairID: results.PairID(suite, t.ID, 1), Variant: ServedVariant,
		TaskID: t.ID, Suite: cmp.Or(t.Suite, suite), Cluster: cmp.Or(t.Cluster, t.ID), Rep: 1, Seed: &seed,
		Model: "external", Guards: guardMap(g), DurationMS: d.Milliseconds(), Meta: t.Meta,
		StartedAt: opened.UTC().Format(time.RFC3339)}
	return Judged(ctx, rec, t, tr, nil)
}
