package report

import (
	"fmt"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/results"
	"webbench/stats"
)

// A clustered comparison is worded in the suite's unit: 12 tasks in 3 families, every task of two families
// broken by the variant. The primary test flips the 3 families' sums, so its floor is 2/2^2 = 0.5 from the 2
// families that moved (not 2/2^8 from the 8 tasks), the power warning plans in families, and the arms line and
// the headline count both the tasks and the families.
func TestFamilyUnitWording(t *testing.T) {
	recs := familyRecords("FFFFFFFFPPPP", func(n int) string { return fmt.Sprintf("fam%d", n/4) })
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base", ClusterUnit: "family", MinEffect: 0.25})
	c := a.Variants[0].All
	if !c.Paired.Clustered || c.Paired.C != 3 || c.Paired.MovedUnits != 2 || c.Paired.PFloor != 0.5 || c.Paired.Moved != 8 {
		t.Fatalf("paired: clustered %v C %d moved units %d (tasks %d) floor %v", c.Paired.Clustered, c.Paired.C,
			c.Paired.MovedUnits, c.Paired.Moved, c.Paired.PFloor)
	}
	if c.Power.Unit != "family" || c.Power.G != 3 || c.Power.Reps != 4 {
		t.Errorf("power design: %d %s × %v", c.Power.G, c.Power.Unit, c.Power.Reps)
	}
	var b strings.Builder
	if err := CompactReport(&b, a, 400, ""); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"0 errors, 12 tasks in 3 families\n",
		"v: 4/12 = 33.3%",
		"paired family-level test to detect a pass rate of 100%→75% is",
		"with 3 families × 4 pairs each",
		"Only 3 families are compared (fewer than 10): p_paired is the exact sign-flip p (with 2 of the 3 families moved it cannot go below 2/2^2 = 0.5",
		"p_paired flips the signs of the 3 families' sums",
		"% on 3 families (12 tasks), Δ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "cluster") {
		t.Errorf("report says cluster where the unit is the family:\n%s", out)
	}
}

// familyRecords are a baseline passing every task and a variant "v" with the given outcomes (analysistest.TasksOf:
// tasks t0, t1, …), each task's records in the family family(n) of task tn.
func familyRecords(outcomes string, family func(n int) string) []results.Attempt {
	recs := analysistest.Cat(analysistest.TasksOf("base", strings.Repeat("P", len(outcomes))), analysistest.TasksOf("v", outcomes))
	for i := range recs {
		var n int
		fmt.Sscanf(recs[i].TaskID, "t%d", &n)
		recs[i].Cluster = family(n)
	}
	return recs
}

// A comparison whose tasks are all in one family falls back to tasks (a single cluster leaves nothing to compare
// across): the pass rate and the cost outcomes say why, each from its typed reason (stats.ReasonOneCluster).
func TestOneFamilyFallsBackToTasksAndSaysWhy(t *testing.T) {
	recs := familyRecords("FFFFFPPP", func(int) string { return "fam0" })
	for i := range recs {
		recs[i].Tokens.Prompt = 100 + 10*i
	}
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base", ClusterUnit: "family", MinEffect: 0.25})
	c := a.Variants[0].All
	if c.Paired.Clustered || len(c.Paired.Reasons) == 0 || c.Paired.Reasons[0] != stats.ReasonOneCluster {
		t.Fatalf("paired: clustered %v reasons %v, want tasks with %s first", c.Paired.Clustered, c.Paired.Reasons, stats.ReasonOneCluster)
	}
	costs := a.Variants[0].Costs
	if len(costs) == 0 || costs[0].Unit != analysis.UnitTask || costs[0].UnitReason != stats.ReasonOneCluster {
		t.Fatalf("costs %+v: want the task as unit with reason %s", costs, stats.ReasonOneCluster)
	}
	var b strings.Builder
	if err := CompactReport(&b, a, 400, ""); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"all tasks are in one family: SE and p over tasks instead",
		"v (8 tasks, 8 pairs; over tasks: all in one family, no other family to compare across): ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// With the run clustered, the main table's primary test is the family-level one and its task-level tests move to
// the diagnostics, labelled: the main table has no p_perm and no McNemar by task, the diagnostics have both (the
// task-level sign flip's p over the 8 moved tasks, 2/2^8 = 0.0078, below the family-level floor 0.5), and the
// notes name both tests by analysis.PairedTestName. An unclustered run keeps them in the main table.
func TestClusteredRunMovesTaskLevelTestsToDiagnostics(t *testing.T) {
	recs := familyRecords("FFFFFFFFPPPP", func(n int) string { return fmt.Sprintf("fam%d", n/4) })
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base", ClusterUnit: "family", MinEffect: 0.25})
	var md strings.Builder
	if err := MarkdownReport(&md, a); err != nil {
		t.Fatal(err)
	}
	m := md.String()
	main, diag, ok := strings.Cut(m, "Diagnostics (assume independent tasks or attempts")
	if !ok {
		t.Fatalf("no clustered diagnostics table:\n%s", m)
	}
	head := "| variant | scope | tasks (informative) | baseline | variant | Δ pts [95% CI] | p_paired | p_holm | MDE | power |"
	if !strings.Contains(main, head) || strings.Contains(main, "| p_perm |") || strings.Contains(main, "McNemar by task (Durkalski)") {
		t.Errorf("main table of a clustered run: want header %q without the task-level tests:\n%s", head, main)
	}
	for _, want := range []string{"| variant | scope | p_perm (task-level) | McNemar by task (task-level) | McNemar pooled over reps |",
		"0.00781 (floor 0.00781)", analysis.PairedTestName(analysis.UnitTask)} {
		if !strings.Contains(diag, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, diag)
		}
	}
	if want := "p_paired is the " + analysis.PairedTestName("family"); !strings.Contains(main, want) {
		t.Errorf("main table's note lacks %q:\n%s", want, main)
	}

	for i := range recs {
		recs[i].Cluster = ""
	}
	a = analysis.Analyze(recs, analysis.Inputs{Baseline: "base", MinEffect: 0.25})
	md.Reset()
	if err := MarkdownReport(&md, a); err != nil {
		t.Fatal(err)
	}
	if m := md.String(); !strings.Contains(m, "| p_paired | p_perm | p_holm | McNemar by task (Durkalski) |") ||
		strings.Contains(m, "p_perm (task-level)") {
		t.Errorf("an unclustered run's main table lost its task-level tests:\n%s", m)
	}
}
