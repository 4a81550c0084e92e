package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"webbench/analysis/analysistest"
	"webbench/results"
	"webbench/stats"
)

// STATS.md §5: baseline 2/11 failures, variant 0/11, one task, every rep
// paired.
func TestAnalyzeOneTaskUnderpowered(t *testing.T) {
	recs := analysistest.Cat(analysistest.RecsOf("base", "a", 0, "PPFPPPPFPPP"), analysistest.RecsOf("fix", "a", 0, "PPPPPPPPPPP"))
	a := Analyze(recs, Inputs{Baseline: "base", Variants: []string{"fix"}})
	v := a.Variants[0]
	c := v.All
	if !c.Matched || c.Method != MethodPairedSignFlip || c.Pairs != 11 || c.G() != 1 {
		t.Fatalf("comparison: matched %v method %s pairs %d G %d", c.Matched, c.Method, c.Pairs, c.G())
	}
	analysistest.Approx(t, "Delta", c.Delta, 2.0/11, 1e-12)
	if c.CI != [2]float64{-1, 1} {
		t.Errorf("CI with one task = %v, want [-1, 1]", c.CI)
	}
	if c.Rescued != 2 || c.Broke != 0 {
		t.Errorf("rescued/broke = %d/%d, want 2/0", c.Rescued, c.Broke)
	}
	analysistest.Approx(t, "PMcNemar", c.PMcNemar, 0.5, 1e-12)
	analysistest.Approx(t, "P (sign-flip, one informative task)", c.P, 1, 1e-12)
	analysistest.Approx(t, "Wilson lo of 9/11", c.A.Wilson[0], 0.523, 5e-4)
	analysistest.Approx(t, "Wilson hi of 11/11", c.B.Wilson[1], 1, 0)
	p := c.Power
	if p.N != 11 || p.From != 0.18 || p.To != 0 || !p.HasEffect {
		t.Errorf("power setup: %+v", p)
	}
	analysistest.Approx(t, "P(0 failures)", p.PZero, 0.1127, 5e-5)
	analysistest.Approx(t, "exact unpaired Fisher power at 11", p.ExactFisherUnpaired, 0.120, 5e-4)
	analysistest.Approx(t, "MDE unpaired", p.MDEUnpaired, stats.MDEUnpaired(9.0/11, 11, 0.05, 0.8), 1e-12)
	// One task: the primary test can never reject (p = 1), so its power is 0
	// and no MDE exists (stats2: power of the test as run).
	if p.Test != PairedTestName(UnitTask) || p.Power != 0 || !math.IsNaN(p.MDE) {
		t.Errorf("primary power with one task: test %q power %v MDE %v", p.Test, p.Power, p.MDE)
	}
	if p.MinRunsZero != 16 {
		t.Errorf("MinRunsZero = %d, want 16", p.MinRunsZero)
	}
	// The warnings carry the comparison their sentences name (report.TestWarningTextsOneTask words them).
	w := a.Warning(WarnUnderpowered)
	if w == nil {
		t.Fatalf("no underpowered warning: %+v", a.Warnings)
	}
	if !slices.Equal(w.Variants, []string{"fix"}) || w.Comparison == nil || w.Comparison.Power.N != 11 || w.Alpha != 0.05 || w.Power != 0.8 {
		t.Errorf("underpowered warning: %+v", w)
	}
	// The few-tasks warning states p_paired's floor (1 here), so no perm_floor warning repeats it.
	if w := a.Warning(WarnFewTasks); w == nil || w.Comparison == nil || w.Comparison.G() != 1 || w.Moved != 1 || w.Floor != 1 {
		t.Errorf("few-tasks warning missing or wrong: %+v", w)
	}
	if w := a.Warning(WarnPermFloor); w != nil {
		t.Errorf("perm-floor warning beside the few-tasks one: %+v", w)
	}
	if a.Warning(WarnNoDiscordant) != nil || a.Warning(WarnUnpaired) != nil || a.Warning(WarnNotComparable) != nil {
		t.Errorf("unexpected warnings: %+v", a.Warnings)
	}
	// Warning order: underpowered before few tasks.
	var kinds []string
	for _, w := range a.Warnings {
		kinds = append(kinds, string(w.Kind))
	}
	if got := strings.Join(kinds, ","); got != "underpowered,few_tasks" {
		t.Errorf("warning kinds = %s", got)
	}
}

// Ten tasks, one rep each: the variant rescues 5 tasks the baseline failed,
// the other 5 pass in both arms. d = (1,1,1,1,1,0,0,0,0,0): mean 0.5,
// s_d = √(2.5/9), SE = s_d/√10 = 1/6 (9 df); p_paired is the exact sign-flip
// p 2/2^5 = 0.0625 (the t approximation said 0.014956); 5 moved tasks < 12,
// so the interval is the adjusted Wald one, (5 ± z·√((7/12 − (5/12)²)·12))/12
// = [0.054505, 0.778828]; McNemar b=5, c=0 → 0.0625.
func TestAnalyzePairedT(t *testing.T) {
	recs := analysistest.Cat(analysistest.TasksOf("base", "FFFFFPPPPP"), analysistest.TasksOf("v", "PPPPPPPPPP"))
	a := Analyze(recs, Inputs{Baseline: "base"})
	if len(a.Variants) != 1 || a.Variants[0].Name != "v" {
		t.Fatalf("variants = %+v", a.Variants)
	}
	c := a.Variants[0].All
	if c.Method != MethodPairedSignFlip || c.Paired.DF != 9 || c.G() != 10 || c.Informative != 5 {
		t.Fatalf("method %s df %d G %d informative %d", c.Method, c.Paired.DF, c.G(), c.Informative)
	}
	analysistest.Approx(t, "Delta", c.Delta, 0.5, 1e-12)
	analysistest.Approx(t, "SE", c.Paired.SE, 1.0/6, 1e-9)
	analysistest.Approx(t, "p_paired", c.P, 0.0625, 1e-12)
	analysistest.Approx(t, "CI lo", c.CI[0], 0.05450520757465149, 1e-9)
	analysistest.Approx(t, "CI hi", c.CI[1], 0.7788281257586819, 1e-9)
	analysistest.Approx(t, "p_mcnemar", c.PMcNemar, 0.0625, 1e-12)
	analysistest.Approx(t, "p_perm", c.Paired.PPerm, 0.0625, 1e-12)
	if c.Rescued != 5 || c.Broke != 0 {
		t.Errorf("rescued/broke = %d/%d", c.Rescued, c.Broke)
	}
	// One variant: Holm leaves p unchanged.
	analysistest.Approx(t, "p_holm", a.Variants[0].PHolm, c.P, 1e-15)
	if !math.IsNaN(a.Variants[0].PBH) {
		t.Errorf("PBH = %v without BH", a.Variants[0].PBH)
	}
	// The sign-flip floor 2/2^5 = 0.0625 > 0.05 is flagged.
	if w := a.Warning(WarnPermFloor); w == nil || w.Moved != 5 || w.Floor != 0.0625 || !slices.Equal(w.Variants, []string{"v"}) {
		t.Errorf("perm floor warning: %+v", w)
	}
	// MDE of the t test: (t_.975,9 + t_.8,9)·SE = (2.262157 + 0.883029)/6.
	analysistest.Approx(t, "mde_tasks", c.Power.MDETasks, (2.2621572+0.8834039)/6, 1e-6)
	// At a 50% base with 10 per arm even 50%→100% needs 10.5 per arm
	// (normal approximation), and 5 rescued of 10 pairs (ψ = 0.5) needs 13
	// pairs: both MDEs are undefined.
	if !math.IsNaN(c.Power.MDEUnpaired) || !math.IsNaN(c.Power.MDEPaired) {
		t.Errorf("MDEUnpaired %v, MDEPaired %v: want NaN (unreachable)", c.Power.MDEUnpaired, c.Power.MDEPaired)
	}
	// The primary test's MDE for a drop on 10 tasks × 1 rep: only a drop of
	// most of the passes is detected (stats2).
	if m := c.Power.MDE; !(m > 0.3 && m <= 1) {
		t.Errorf("primary MDE = %v, want in (0.3, 1]", m)
	}
}

// McNemar from records, pooled over reps: b=8, c=2 → 0.109375; b=6, c=0 →
// 0.03125.
func TestAnalyzeMcNemarPooled(t *testing.T) {
	// 5 tasks × 2 reps; 8 rescued, 2 broke.
	var base, v []results.Attempt
	for i := range 5 {
		task := fmt.Sprintf("t%d", i)
		if i == 0 {
			base = append(base, analysistest.RecsOf("base", task, 0, "PP")...)
			v = append(v, analysistest.RecsOf("v", task, 0, "FF")...)
			continue
		}
		base = append(base, analysistest.RecsOf("base", task, 0, "FF")...)
		v = append(v, analysistest.RecsOf("v", task, 0, "PP")...)
	}
	c := Analyze(analysistest.Cat(base, v), Inputs{Baseline: "base"}).Variants[0].All
	if c.Rescued != 8 || c.Broke != 2 {
		t.Fatalf("b, c = %d, %d", c.Rescued, c.Broke)
	}
	analysistest.Approx(t, "McNemar 8/2", c.PMcNemar, 0.109375, 1e-12)

	c = Analyze(analysistest.Cat(analysistest.TasksOf("base", "FFFFFFPP"), analysistest.TasksOf("v", "PPPPPPPP")), Inputs{}).Variants[0].All
	if c.Rescued != 6 || c.Broke != 0 {
		t.Fatalf("b, c = %d, %d", c.Rescued, c.Broke)
	}
	analysistest.Approx(t, "McNemar 6/0", c.PMcNemar, 0.03125, 1e-12)
}

// Holm over four variants equals Holm() of their primary p-values; two
// variants identical to the baseline (p = 1) and the t-test variant
// (p = 0.014956) adjusted ×4 since it is the smallest.
func TestAnalyzeHolmAndBH(t *testing.T) {
	recs := analysistest.Cat(analysistest.TasksOf("base", "FFFFFPPPPP"), analysistest.TasksOf("v1", "PPPPPPPPPP"), analysistest.TasksOf("v2", "FFFFFPPPPP"),
		analysistest.TasksOf("v3", "FFFFFPPPPP"), analysistest.TasksOf("v4", "PPFFFPPPPP"))
	a := Analyze(recs, Inputs{Baseline: "base", Variants: []string{"v1", "v2", "v3", "v4"}, BH: true})
	var ps []float64
	for _, v := range a.Variants {
		ps = append(ps, v.All.P)
	}
	analysistest.Approx(t, "p v1", ps[0], 0.0625, 1e-12)
	analysistest.Approx(t, "p v2", ps[1], 1, 0)
	holm, bh := stats.Holm(ps), stats.BH(ps)
	for i, v := range a.Variants {
		analysistest.Approx(t, "p_holm "+v.Name, v.PHolm, holm[i], 1e-15)
		analysistest.Approx(t, "p_bh "+v.Name, v.PBH, bh[i], 1e-15)
	}
	analysistest.Approx(t, "p_holm v1", a.Variants[0].PHolm, 4*0.0625, 1e-12)
	// v4: d = (1,1,0,...): t undefined? no — spread exists; p must exceed v1's.
	if !(a.Variants[3].PHolm >= a.Variants[0].PHolm) {
		t.Errorf("Holm not monotone: %v", []float64{a.Variants[0].PHolm, a.Variants[3].PHolm})
	}
	// v2, v3 identical to the baseline on every pair: no discordant pairs, one warning each (report prints them
	// as one line naming both).
	var agree []string
	for _, w := range a.Warnings {
		if w.Kind == WarnNoDiscordant {
			agree = append(agree, w.Variants...)
		}
	}
	if !slices.Equal(agree, []string{"v2", "v3"}) {
		t.Errorf("no-discordant warnings for %v, want [v2 v3]", agree)
	}
}

// Fisher 3/20 vs 12/20 (unpaired, two tasks) = 0.00791.
func TestAnalyzeUnpairedFisherSignificant(t *testing.T) {
	var recs []results.Attempt
	recs = append(recs, analysistest.RecsOf("base", "a", 0, "PPPFFFFFFFFFFFFFFFFF")...)
	recs = append(recs, analysistest.RecsOf("v", "a", 50, "PPPPPPPPPPPPFFFFFFFF")...)
	c := Analyze(recs, Inputs{}).Variants[0].All
	analysistest.Approx(t, "Fisher 3/20 vs 12/20", c.P, 0.00791, 5e-6)
	analysistest.Approx(t, "Delta", c.Delta, 0.45, 1e-12)
}

// All pass in both arms: Δ = 0 with the adjusted interval ±z·√(2/6/6)
// (not the point [0, 0]), p = 1, the
// no-discordant warning, and no underpowered warning (nothing to fix).
func TestAnalyzeAllPass(t *testing.T) {
	var recs []results.Attempt
	for i := range 4 {
		task := fmt.Sprintf("t%d", i)
		recs = append(recs, analysistest.RecsOf("base", task, 0, "PPP")...)
		recs = append(recs, analysistest.RecsOf("v", task, 0, "PPP")...)
	}
	a := Analyze(recs, Inputs{})
	c := a.Variants[0].All
	if c.Delta != 0 || math.Abs(c.CI[1]-0.4619679450938368) > 1e-9 || c.CI[0] != -c.CI[1] || c.P != 1 || c.PMcNemar != 1 || c.Informative != 0 {
		t.Errorf("all pass: Δ %v CI %v P %v McNemar %v informative %d", c.Delta, c.CI, c.P, c.PMcNemar, c.Informative)
	}
	w := a.Warning(WarnNoDiscordant)
	if w == nil || w.Comparison == nil || w.Comparison.Pairs != 12 || w.Comparison.A.Passes != 12 {
		t.Errorf("no-discordant warning: %+v", a.Warnings)
	}
	if a.Warning(WarnUnderpowered) != nil || a.Warning(WarnPermFloor) != nil {
		t.Errorf("unexpected warnings: %+v", a.Warnings)
	}
	if w := a.Warning(WarnFewTasks); w == nil || w.Comparison == nil || w.Comparison.G() != 4 || w.Comparison.Paired.Clustered {
		t.Errorf("few tasks: %+v", w)
	}
	// MinEffect asks about a worsening when the base has no failures.
	a = Analyze(recs, Inputs{MinEffect: 0.2})
	p := a.Variants[0].All.Power
	if !p.HasEffect || p.From != 0 || p.To != 0.2 {
		t.Errorf("power with MinEffect: %+v", p)
	}
	if w := a.Warning(WarnUnderpowered); w == nil || w.Comparison == nil || !w.Comparison.Matched ||
		w.Comparison.Power.From != 0 || w.Comparison.Power.To != 0.2 {
		t.Errorf("underpowered with min effect: %+v", a.Warnings)
	}
}

// Unequal arms: the variant ran 2 reps, the baseline 3, on the same tasks.
func TestAnalyzeUnequalArms(t *testing.T) {
	var recs []results.Attempt
	for i := range 3 {
		task := fmt.Sprintf("t%d", i)
		recs = append(recs, analysistest.RecsOf("base", task, 0, "FPF")...)
		recs = append(recs, analysistest.RecsOf("v", task, 0, "PP")...)
	}
	a := Analyze(recs, Inputs{})
	c := a.Variants[0].All
	if !c.Matched || c.Pairs != 6 || c.UnmatchedA != 3 || c.UnmatchedB != 0 {
		t.Fatalf("pairs %d unmatched %d/%d", c.Pairs, c.UnmatchedA, c.UnmatchedB)
	}
	if c.A.N != 6 || c.A.Passes != 3 || c.B.Passes != 6 {
		t.Errorf("counts %+v %+v", c.A, c.B)
	}
	analysistest.Approx(t, "Delta", c.Delta, 0.5, 1e-12)
	if w := a.Warning(WarnNotComparable); w == nil || w.Comparison == nil || w.Comparison.UnmatchedA != 3 ||
		w.Comparison.UnmatchedB != 0 || w.Comparison.Pairs != 6 {
		t.Errorf("not-comparable warning: %+v", a.Warnings)
	}
	// A variant scoped to t0 only: baseline attempts on t1, t2 are outside
	// its scope and not "unmatched".
	var scoped []results.Attempt
	scoped = append(scoped, analysistest.RecsOf("base", "t0", 0, "FP")...)
	scoped = append(scoped, analysistest.RecsOf("base", "t1", 0, "FP")...)
	scoped = append(scoped, analysistest.RecsOf("v", "t0", 0, "PP")...)
	a = Analyze(scoped, Inputs{Targets: map[string][]string{"v": {"t0"}}})
	if c := a.Variants[0].All; c.UnmatchedA != 0 || c.Pairs != 2 || a.Warning(WarnNotComparable) != nil {
		t.Errorf("scoped: unmatched %d pairs %d warnings %+v", c.UnmatchedA, c.Pairs, a.Warnings)
	}
}

// Errors are excluded from the denominators and pairs with an error on either
// side dropped; judge errors are reported.
func TestAnalyzeErrorsDropped(t *testing.T) {
	recs := analysistest.Cat(analysistest.TasksOf("base", "FFFFFPPPPPI"), analysistest.TasksOf("v", "PPPPPPPPPJP"))
	a := Analyze(recs, Inputs{})
	c := a.Variants[0].All
	if c.Pairs != 9 || c.DroppedPairs != 2 || c.DroppedByClass["infra"] != 1 || c.DroppedByClass["judge"] != 1 {
		t.Errorf("pairs %d dropped %d %v", c.Pairs, c.DroppedPairs, c.DroppedByClass)
	}
	if a.Arms[0].N != 10 || a.Arms[1].N != 10 || a.Errors != 2 || a.Attempts != 22 {
		t.Errorf("arm N %d/%d errors %d attempts %d", a.Arms[0].N, a.Arms[1].N, a.Errors, a.Attempts)
	}
	if w := a.Warning(WarnJudgeErrors); w == nil || !slices.Equal(w.Arms, []ArmErrors{{Arm: "v", Errors: 1, Attempts: 11}}) {
		t.Errorf("judge warning: %+v", a.Warnings)
	}
	if w := a.Warning(WarnJudgeUncertain); w != nil {
		t.Errorf("uncertain warning without uncertain verdicts: %+v", w)
	}
	// Uncertain verdicts: out of the denominators, never a pass, warned about apart from judge errors.
	ua := Analyze(analysistest.Cat(analysistest.TasksOf("base", "PPPPPPPPPP"), analysistest.TasksOf("v", "PPUUPPPPPP")), Inputs{})
	if ua.Arms[1].N != 8 || ua.Arms[1].Passes != 8 || ua.Arms[1].ErrorsByClass["uncertain"] != 2 {
		t.Errorf("uncertain arm: N %d passes %d errors %v", ua.Arms[1].N, ua.Arms[1].Passes, ua.Arms[1].ErrorsByClass)
	}
	if w := ua.Warning(WarnJudgeUncertain); w == nil || !slices.Equal(w.Arms, []ArmErrors{{Arm: "v", Errors: 2, Attempts: 10}}) {
		t.Errorf("uncertain warning: %+v", ua.Warnings)
	}
	if w := ua.Warning(WarnJudgeErrors); w != nil {
		t.Errorf("judge-error warning for uncertain verdicts: %+v", w)
	}
	// 1 infra error of 11 attempts (9%) is below the 10% threshold.
	if w := a.Warning(WarnInfraErrors); w != nil {
		t.Errorf("infra warning below 10%%: %+v", w)
	}
	// 2 of 11 (18%) is above.
	recs = append(recs, analysistest.Rec("base", "t11", 0, 'I'), analysistest.Rec("v", "t11", 0, 'P'))
	a = Analyze(recs, Inputs{})
	if w := a.Warning(WarnInfraErrors); w == nil || !slices.Equal(w.Arms, []ArmErrors{{Arm: "base", Errors: 2, Attempts: 12}}) || w.Dropped != 2 {
		t.Errorf("infra warning: %+v", a.Warnings)
	}
}

// Target-task comparison: the variant rescues only the tasks tagged with the
// guard it switches.
func TestAnalyzeTargetTasks(t *testing.T) {
	recs := analysistest.Cat(analysistest.TasksOf("base", "FFFFFPPPPP"), analysistest.TasksOf("no_x", "PPPPPPPPPP"), analysistest.TasksOf("no_y", "FFFFFPPPPP"))
	tags := map[string][]string{}
	for i := range 10 {
		if i < 5 {
			tags[fmt.Sprintf("t%d", i)] = []string{"x", "other"}
		} else {
			tags[fmt.Sprintf("t%d", i)] = []string{"other"}
		}
	}
	a := Analyze(recs, Inputs{Switched: map[string][]string{"no_x": {"x"}, "no_y": {"y"}}, TaskTags: tags,
		Variants: []string{"no_x", "no_y"}})
	v := a.Variants[0]
	if len(v.Targets) != 1 {
		t.Fatalf("targets = %+v", v.Targets)
	}
	tc := v.Targets[0]
	if tc.Guard != "x" || tc.G() != 5 || tc.Delta != 1 || tc.Pairs != 5 || tc.Rescued != 5 {
		t.Errorf("target comparison: guard %s G %d Δ %v pairs %d rescued %d", tc.Guard, tc.G(), tc.Delta, tc.Pairs, tc.Rescued)
	}
	analysistest.Approx(t, "all-task Δ", v.All.Delta, 0.5, 1e-12)
	if w := a.Warning(WarnNoTargetTasks); w == nil || w.Guard != "y" || !slices.Equal(w.Variants, []string{"no_y"}) {
		t.Errorf("no-target-tasks warning: %+v", a.Warnings)
	}
	// A variant scoped to its target tasks: the target comparison equals the
	// all-task one and is left out.
	a = Analyze(recs, Inputs{Switched: map[string][]string{"no_x": {"x"}}, TaskTags: tags, Variants: []string{"no_x"},
		Targets: map[string][]string{"no_x": {"t0", "t1", "t2", "t3", "t4"}}})
	if len(a.Variants[0].Targets) != 0 || a.Variants[0].All.G() != 5 {
		t.Errorf("scoped: targets %d, G %d", len(a.Variants[0].Targets), a.Variants[0].All.G())
	}
}

// A coarser cluster than the task is used for the SE and df.
func TestAnalyzeClustered(t *testing.T) {
	recs := analysistest.Cat(analysistest.TasksOf("base", "FFFFFPPPPPFP"), analysistest.TasksOf("v", "PPPPPPPPPPPP"))
	for i := range recs {
		var n int
		fmt.Sscanf(recs[i].TaskID, "t%d", &n)
		recs[i].Cluster = fmt.Sprintf("site%d", n%3)
	}
	c := Analyze(recs, Inputs{CMH: true}).Variants[0].All
	if !c.Paired.Clustered || c.Paired.C != 3 || c.Paired.DF != 2 {
		t.Errorf("clustered %v C %d df %d", c.Paired.Clustered, c.Paired.C, c.Paired.DF)
	}
	if c.CMH == nil || c.CMH.Strata != 6 {
		t.Errorf("CMH = %+v", c.CMH)
	}
}
