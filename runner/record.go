package runner

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"time"

	"webbench/judge"
	"webbench/llm"
	"webbench/results"
	"webbench/suites"
)

// conclude completes the record of an attempt the agent finished: the cost of its usage (estimated tokens too:
// they count toward --max-cost) and what of it the model cache replayed, the kept screenshots (written, and added to the trajectory with shotSteps, the
// step of each of shots, as Trajectory.ScreenshotSteps when every step is known), then the app's final state,
// the status and the trajectory as every played attempt ends (concluded); a trajectory not written is a warning.
func (wk *worker) conclude(ctx context.Context, rec results.Attempt, a Attempt, af *agentFor, w *results.Writer,
	env suites.Env, shots [][]byte, shotSteps []int, tr *results.Trajectory) results.Attempt {
	rec.CostUSD = af.client.Cost(tr.Usage)
	if af.cache != nil {
		mc := results.ModelCacheOf(tr)
		mc.SavedUSD = af.client.Cost(llm.Usage{Prompt: mc.Tokens.Prompt, Completion: mc.Tokens.Completion})
		rec.ModelCache = mc
	}
	keepScreenshots(w, a.AttemptID, tr, shots, shotSteps)
	rec, err := concluded(ctx, rec, *a.Task, w, env, tr, shots)
	if err != nil {
		fmt.Fprintf(wk.opts.Log, "warning: trajectory %s: %v\n", rec.Trajectory, err)
	}
	return rec
}

// concluded ends an attempt on task t the agent finished, rec its record so far: the app's final state read
// from env into tr (when env gives it), the status by the one rule (Judged, shots the kept screenshots), and tr
// written to w as the record's trajectory, last. The error is the trajectory's write (the record is complete
// regardless).
func concluded(ctx context.Context, rec results.Attempt, t suites.Task, w *results.Writer, env suites.Env,
	tr *results.Trajectory, shots [][]byte) (results.Attempt, error) {
	if st, err := env.State(context.Background()); err == nil {
		tr.State = st
	}
	rec = Judged(ctx, rec, t, tr, shots)
	return rec, w.WriteTrajectory(rec.Trajectory, tr)
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
// worker, bench mcp serve (ServedRecord, ConcludeServed) and the Zoo benchmark's direct script.
func Judged(ctx context.Context, rec results.Attempt, t suites.Task, tr *results.Trajectory, shots [][]byte) results.Attempt {
	return results.Conclude(rec, tr, func(rec results.Attempt) judge.Verdict {
		return judge.Compose(ctx, judge.ForTask(t), judge.Input{Task: t, Final: rec.Final, OK: rec.OK,
			State: tr.State, Screenshots: shots})
	})
}

// ServedVariant is the variant name the attempt id of an attempt served by hand (bench mcp serve) derives from
// (AttemptID).
const ServedVariant = "mcp-serve"

// Served is an attempt served by hand (bench mcp serve, rep 1, model "external"): attempt AttemptID of task
// Task of suite Suite, with Seed and the guard switches Guards (guard.Parse's map; the defaults fill the rest),
// opened at Opened and served for Wall (opened until serving stopped).
type Served struct {
	Task             suites.Task
	Suite, AttemptID string
	Seed             int
	Guards           map[string]bool
	Opened           time.Time
	Wall             time.Duration
}

// record is s's record before it is concluded: its identity and timings.
func (s Served) record() results.Attempt {
	t, seed := s.Task, s.Seed
	return results.Attempt{AttemptID: s.AttemptID, PairID: results.PairID(s.Suite, t.ID, 1), Variant: ServedVariant,
		TaskID: t.ID, Suite: cmp.Or(t.Suite, s.Suite), Cluster: cmp.Or(t.Cluster, t.ID), Rep: 1, Seed: &seed,
		Model: "external", Guards: guardMap(s.Guards), DurationMS: s.Wall.Milliseconds(), Meta: t.Meta,
		StartedAt: s.Opened.UTC().Format(time.RFC3339)}
}

// ServedRecord is the record of the served attempt s concluded from tr (State and Finish set) as the runner
// concludes its attempts (Judged).
func ServedRecord(ctx context.Context, s Served, tr *results.Trajectory) results.Attempt {
	return Judged(ctx, s.record(), s.Task, tr, nil)
}

// ConcludeServed ends the served attempt s as the runner's worker ends a played one: the app's final state
// read from env (the attempt's environment, still open) into tr (Finish set), the record by the status rule
// (ServedRecord), and tr written to w as the record's trajectory. The error is the trajectory's write; the
// record is complete regardless (the caller appends it).
func ConcludeServed(ctx context.Context, w *results.Writer, env suites.Env, s Served, tr *results.Trajectory) (results.Attempt, error) {
	return concluded(ctx, s.record(), s.Task, w, env, tr, nil)
}
