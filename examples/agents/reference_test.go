package agents_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"webbench/judge"
	"webbench/results"
	"webbench/suites"
	"webbench/suites/zoo"
	"webbench/suites/zoo/zootest"
)

// TestReferenceAgentsPassZooCells checks "Both reference agents pass the Zoo clean profile in make test" on a
// sample of the Zoo's family instances: one per app and one per mutation (zootest.SampleAppsMutations: every
// app's pages and every mutation met at least once; WEBBENCH_TEST_ZOO_CELLS=1 one per app × mutations,
// WEBBENCH_TEST_ZOO_FAMILIES=1 one per family, WEBBENCH_TEST_WHOLE_ZOO=1 every instance, the whole Zoo):
// `bench ablate reference.yaml --tasks SAMPLE` runs the Node agent (baseline) and the Python agent (variant) as
// external agents (agent: {kind: command}) on each sampled instance once, with the scripted policy's clean
// profile behind webbench's recording model proxy. The sample must meet every app and every mutation of the
// Zoo's instances (unless WEBBENCH_TEST_ZOO_FAMILIES names families). The run directory is read back with
// package results: every task of the sample (not the plan's list) has one attempt per arm, each a pass judged by
// its task's judges (checkJudgedByTask), with a trajectory whose model-call steps carry the usage the scripted
// policy reported (so the record's tokens are the proxy's, not estimates); `bench report --format json` reads the
// run and reports both arms at N/N, N the sample's size.
func TestReferenceAgentsPassZooCells(t *testing.T) {
	if testing.Short() {
		t.Skip("real-Chromium test (-short)")
	}
	needNodeAgent(t)
	ids := zootest.SampleAppsMutations(t)
	checkMeetsAppsAndMutations(t, ids)
	t.Logf("%d family instances: one per app and one per mutation", len(ids))
	run, _ := runAblate(t, "reference.yaml", "--tasks", strings.Join(ids, ","))

	plan := run.Manifest.Plan
	if got := plan.VariantNames(); !slices.Equal(got, []string{"node", "python"}) || plan.Baseline != "node" {
		t.Fatalf("plan arms %v baseline %q, want [node python] baseline node", got, plan.Baseline)
	}
	for name, want := range map[string][]string{"node": {"node", "node/dist/agent.js"}, "python": {"python3", "python/agent.py"}} {
		v, _ := plan.Variant(name)
		if v.Agent == nil || !slices.Equal(v.Agent.Run, want) {
			t.Fatalf("arm %s: agent %+v in the manifest, want run %v", name, v.Agent, want)
		}
	}

	all, err := zoo.BuiltinInstances()
	if err != nil {
		t.Fatal(err)
	}
	arms := byArm(run.Final())
	if len(arms) != 2 {
		t.Fatalf("records of %d arms, want 2 (node, python)", len(arms))
	}
	for _, arm := range []string{"node", "python"} {
		recs := arms[arm]
		var got []string
		for _, a := range recs {
			got = append(got, a.TaskID)
		}
		if !slices.Equal(got, ids) {
			t.Fatalf("arm %s: attempts on %d tasks %v, want the sample's %d %v", arm, len(got), got, len(ids), ids)
		}
		for _, a := range recs {
			checkPassWithModelSteps(t, run, a)
			checkJudgedByTask(t, all, a)
		}
	}

	rep := reportJSON(t, run.Dir)
	if len(rep) != 2 {
		t.Fatalf("bench report names %d arms, want node and python: %+v", len(rep), rep)
	}
	for i, want := range []string{"node", "python"} {
		if rep[i].Name != want || rep[i].N != len(ids) || rep[i].Passes != len(ids) {
			t.Errorf("bench report arm %d: %+v, want %s %d/%d", i, rep[i], want, len(ids), len(ids))
		}
	}
}

// checkPassWithModelSteps asserts that attempt a passed and that its trajectory records the agent's model calls:
// at least one step, every step a model call (request messages > 0) with real usage from the endpoint or a tool
// call that found no model call to join, at least one model-call step, and the record's tokens the sum of the
// steps' usage.
func checkPassWithModelSteps(t *testing.T, run *results.Run, a results.Attempt) {
	t.Helper()
	what := a.Variant + "/" + a.TaskID
	if a.Status != results.StatusPass || !a.Verdict.Pass || a.FinishReason != results.FinishAnswered || a.Model != "scripted:clean" {
		t.Errorf("%s: status %q finish %q model %q verdict %+v error %q failure mode %q", what, a.Status, a.FinishReason,
			a.Model, a.Verdict, a.Error, a.FailureMode)
		return
	}
	tr, err := run.Trajectory(a.AttemptID)
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	if len(tr.Steps) < 1 || a.Steps != len(tr.Steps) {
		t.Errorf("%s: %d trajectory steps, record says %d", what, len(tr.Steps), a.Steps)
	}
	if tr.Finish.ExitCode == nil || *tr.Finish.ExitCode != 0 {
		t.Errorf("%s: agent exit code %v, want 0", what, tr.Finish.ExitCode)
	}
	var model int
	var sum results.Tokens
	for _, st := range tr.Steps {
		if st.Request.Messages == 0 {
			if len(st.Results) == 0 {
				t.Errorf("%s: step %d is neither a model call nor a tool call", what, st.Index)
			}
			continue
		}
		model++
		if st.Usage.Prompt <= 0 || st.Usage.Completion <= 0 || st.Usage.Estimated {
			t.Errorf("%s: model-call step %d has usage %+v, want prompt and completion tokens > 0 reported by the endpoint",
				what, st.Index, st.Usage)
		}
		sum.Prompt += st.Usage.Prompt
		sum.Completion += st.Usage.Completion
	}
	if model == 0 {
		t.Errorf("%s: no model-call step among %d steps", what, len(tr.Steps))
	}
	if a.Tokens != sum || sum.Prompt == 0 {
		t.Errorf("%s: record tokens %+v, the model-call steps sum to %+v", what, a.Tokens, sum)
	}
}

// checkJudgedByTask asserts that the verdict of attempt a (on a task among all) came from the judges its task
// declares (judge.ForTask: a state check, an answer rule or both, "state+answer"), with a passing part per judge
// when there are several: a pass by the wrong judge (an answer task judged on its state only) would otherwise
// count.
func checkJudgedByTask(t *testing.T, all []suites.Task, a results.Attempt) {
	t.Helper()
	i := slices.IndexFunc(all, func(task suites.Task) bool { return task.ID == a.TaskID })
	if i < 0 {
		t.Fatalf("%s: no such Zoo task", a.TaskID)
	}
	var names []string
	for _, j := range judge.ForTask(all[i]) {
		names = append(names, j.Name())
	}
	want := strings.Join(names, "+")
	if len(names) == 0 || a.Verdict.Judge != want {
		t.Errorf("%s/%s: judged by %q, the task declares %q", a.Variant, a.TaskID, a.Verdict.Judge, want)
	}
	if len(names) > 1 && len(a.Verdict.Parts) != len(names) {
		t.Errorf("%s/%s: %d verdict parts, want one per judge %v", a.Variant, a.TaskID, len(a.Verdict.Parts), names)
	}
	for _, p := range a.Verdict.Parts {
		if !p.Pass {
			t.Errorf("%s/%s: judge %s did not pass: %s", a.Variant, a.TaskID, p.Judge, p.Reason)
		}
	}
}

// checkMeetsAppsAndMutations fails the test unless the sample ids meets every app and every mutation of the Zoo's
// family instances, and, with zootest.WholeZooEnv=1, is every instance. A family filter (zootest.FamiliesEnv as
// a regular expression) narrows what the sample may meet, and skips the check.
func checkMeetsAppsAndMutations(t *testing.T, ids []string) {
	t.Helper()
	if v := os.Getenv(zootest.FamiliesEnv); v != "" && v != "1" {
		return
	}
	all, err := zoo.BuiltinInstances()
	if err != nil {
		t.Fatal(err)
	}
	gotApps, gotMuts := map[string]bool{}, map[string]bool{} // by name: whether the sample meets it
	n := 0
	for _, task := range all {
		if !strings.Contains(task.ID, "/") {
			continue // a hand-written task, not a family instance
		}
		n++
		in := slices.Contains(ids, task.ID)
		gotApps[task.App] = gotApps[task.App] || in
		for _, m := range task.Mutations {
			gotMuts[m] = gotMuts[m] || in
		}
	}
	for what, got := range map[string]map[string]bool{"app": gotApps, "mutation": gotMuts} {
		for name, met := range got {
			if !met {
				t.Errorf("the sample %v meets no instance of %s %s", ids, what, name)
			}
		}
	}
	if len(gotApps) < 7 || len(gotMuts) < 8 {
		t.Errorf("the Zoo's instances: %d apps, %d mutations; this test counts on at least 7 and 8", len(gotApps), len(gotMuts))
	}
	if os.Getenv(zootest.WholeZooEnv) == "1" && len(ids) != n {
		t.Fatalf("%s=1 but the sample has %d of the Zoo's %d instances", zootest.WholeZooEnv, len(ids), n)
	}
}
