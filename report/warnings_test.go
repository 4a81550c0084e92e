package report

// The wording of the warnings and of the gate's reasons on the runs of analysis' tests, which assert the facts
// (analysis.Warning's fields); the sentences are asserted here.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/results"
	"webbench/stats"
)

// worded returns the first of a's warnings of kind as the reports print it (AnalysisWarnings), nil when none.
func worded(a *analysis.Analysis, kind analysis.WarningKind) *WordedWarning {
	for _, w := range AnalysisWarnings(a) {
		if w.Kind == kind {
			return &w
		}
	}
	return nil
}

// wantIn fails t for each of wants that w's text lacks (or when w is nil).
func wantIn(t *testing.T, w *WordedWarning, wants ...string) {
	t.Helper()
	if w == nil {
		t.Errorf("no warning, want one with %q", wants)
		return
	}
	for _, want := range wants {
		if !strings.Contains(w.Text, want) {
			t.Errorf("%s warning lacks %q:\n%s", w.Kind, want, w.Text)
		}
	}
}

// TestWarningTextsOneTask: STATS.md §5's example, baseline 2/11 failures, variant 0/11 on one task.
func TestWarningTextsOneTask(t *testing.T) {
	recs := analysistest.Cat(analysistest.RecsOf("base", "a", 0, "PPFPPPPFPPP"), analysistest.RecsOf("fix", "a", 0, "PPPPPPPPPPP"))
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base", Variants: []string{"fix"}})
	p := a.Variants[0].All.Power
	wantIn(t, worded(a, analysis.WarnUnderpowered),
		"fix vs base: With 11 runs per arm at an 82% baseline pass rate, P(every run passing by chance) = 0.82^11 ≈ 0.113, so 11/11 passes is not significant",
		"(n/n passes is significant at α = 0.05 only for n ≥ 16 here)",
		"Power of the paired task-level test to detect a pass rate of 82%→100% is ≈0.00 with 1 task × 11 reps and ≈",
		fmt.Sprintf("≈%.2f with %d tasks at the same reps.", p.PowerAtTasksFor, p.TasksFor),
		"Treat this as inconclusive, not as evidence either way.")
	wantIn(t, worded(a, analysis.WarnFewTasks), "fix vs base: Only 1 task is compared",
		"Δ's interval is the whole range [-100, +100] pts and p_paired is the sign-flip p (1)")
}

// TestWarningTextsFloorsAndAgreement: the sign-flip floor of 5 moved tasks; arms that agree on every pair, merged
// into one line for two variants; four tasks of three reps all passing in both arms.
func TestWarningTextsFloorsAndAgreement(t *testing.T) {
	a := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "FFFFFPPPPP"), analysistest.TasksOf("v", "PPPPPPPPPP")), analysis.Inputs{Baseline: "base"})
	wantIn(t, worded(a, analysis.WarnPermFloor), "v vs base: Only 5 tasks changed outcome", "2/2^5 = 0.0625 (> α = 0.05)")

	recs := analysistest.Cat(analysistest.TasksOf("base", "FFFFFPPPPP"), analysistest.TasksOf("v1", "PPPPPPPPPP"), analysistest.TasksOf("v2", "FFFFFPPPPP"),
		analysistest.TasksOf("v3", "FFFFFPPPPP"), analysistest.TasksOf("v4", "PPFFFPPPPP"))
	a = analysis.Analyze(recs, analysis.Inputs{Baseline: "base", Variants: []string{"v1", "v2", "v3", "v4"}})
	w := worded(a, analysis.WarnNoDiscordant)
	if w == nil || !slices.Equal(w.Variants, []string{"v2", "v3"}) || !strings.HasPrefix(w.Text, "v2, v3 vs base: No discordant pairs") {
		t.Errorf("no-discordant warning: %+v", w)
	}

	var pass []results.Attempt
	for i := range 4 {
		task := fmt.Sprintf("t%d", i)
		pass = append(pass, analysistest.RecsOf("base", task, 0, "PPP")...)
		pass = append(pass, analysistest.RecsOf("v", task, 0, "PPP")...)
	}
	a = analysis.Analyze(pass, analysis.Inputs{})
	wantIn(t, worded(a, analysis.WarnNoDiscordant), "all 12 matched pairs (both passed 12, both failed 0)")
	wantIn(t, worded(a, analysis.WarnFewTasks), "Only 4 tasks are compared (fewer than 10)")
	a = analysis.Analyze(pass, analysis.Inputs{MinEffect: 0.2})
	wantIn(t, worded(a, analysis.WarnUnderpowered), "100% baseline pass rate, power of the paired task-level test to detect a pass rate of 100%→80% is ≈")
}

// TestWarningTextsArmsAndErrors: unmatched reps, judge errors, uncertain verdicts, infra errors above 10 %, and a
// switched guard no task is tagged with.
func TestWarningTextsArmsAndErrors(t *testing.T) {
	var recs []results.Attempt
	for i := range 3 {
		task := fmt.Sprintf("t%d", i)
		recs = append(recs, analysistest.RecsOf("base", task, 0, "FPF")...)
		recs = append(recs, analysistest.RecsOf("v", task, 0, "PP")...)
	}
	wantIn(t, worded(analysis.Analyze(recs, analysis.Inputs{}), analysis.WarnNotComparable),
		"v vs base: The arms are not fully matched: 3 baseline and 0 variant judged attempts in scope have no counterpart")

	recs = analysistest.Cat(analysistest.TasksOf("base", "FFFFFPPPPPI"), analysistest.TasksOf("v", "PPPPPPPPPJP"))
	wantIn(t, worded(analysis.Analyze(recs, analysis.Inputs{}), analysis.WarnJudgeErrors),
		"The judge could not verify 1 attempt (v 1): it is excluded")
	ua := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "PPPPPPPPPP"), analysistest.TasksOf("v", "PPUUPPPPPP")), analysis.Inputs{})
	wantIn(t, worded(ua, analysis.WarnJudgeUncertain), "The judge was uncertain about 2 attempts (v 2)", "they are excluded", "decide them with")
	recs = append(recs, analysistest.Rec("base", "t11", 0, 'I'), analysistest.Rec("v", "t11", 0, 'P'))
	wantIn(t, worded(analysis.Analyze(recs, analysis.Inputs{}), analysis.WarnInfraErrors),
		"Infrastructure errors in more than 10% of attempts: base 2/12 (17%).", "and 2 pairs with an infra error on either side were dropped")

	recs = analysistest.Cat(analysistest.TasksOf("base", "FFFFFPPPPP"), analysistest.TasksOf("no_x", "PPPPPPPPPP"), analysistest.TasksOf("no_y", "FFFFFPPPPP"))
	tags := map[string][]string{}
	for i := range 10 {
		tags[fmt.Sprintf("t%d", i)] = []string{"other"}
	}
	a := analysis.Analyze(recs, analysis.Inputs{Switched: map[string][]string{"no_x": {"x"}, "no_y": {"y"}}, TaskTags: tags,
		Variants: []string{"no_x", "no_y"}})
	wantIn(t, worded(a, analysis.WarnNoTargetTasks), "no_x vs base: The variant switches x but no compared task is tagged with it")
	var guards []string
	for _, w := range AnalysisWarnings(a) {
		if w.Kind == analysis.WarnNoTargetTasks {
			guards = append(guards, w.Text)
		}
	}
	if len(guards) != 2 || !strings.HasPrefix(guards[1], "no_y vs base: The variant switches y") {
		t.Errorf("no_target_tasks warnings %q", guards)
	}
}

// TestWarningTextsAAArms: an other-seeds copy's noise floor names its variant itself (no prefix); a same-seed
// replay's flake line says how many pairs an error left out.
func TestWarningTextsAAArms(t *testing.T) {
	recs := analysistest.Cat(analysistest.TasksOf("baseline", "PPFPPFPPPP"), analysistest.TasksOf("aa1", "PPPPPFPPFP"))
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "baseline", Copies: []string{"aa1"}})
	w := worded(a, analysis.WarnNoiseFloor)
	if w == nil || w.Text != "Noise floor: aa1 is a copy of baseline with other seeds (an A/A control); it differs by Δ = 0.0 pts "+
		"[-32.7, +32.7], p_paired = 1 on 10 tasks. Its interval, not its Δ, is the yardstick: one A/A draw, and arms that "+
		"differ by less than its half-width here may differ by chance alone." {
		t.Errorf("noise floor: %+v", w)
	}
	base := analysistest.TasksOf("baseline", "PPPPPPPPPPPP")
	a = analysis.Analyze(analysistest.Cat(base, analysistest.TasksOf("replay", "IPPPPPPPPPPJ")), analysis.Inputs{Baseline: "baseline",
		Variants: []string{"replay"}, Replays: []string{"replay"}})
	if l := FlakeLine(a.Flake[0]); l != "Environment flake rate: replay replays the baseline with its own seeds; 0 of 10 pairs differ "+
		"in status, failure mode or verdict = 0.0% [0.0, 27.8] (2 pairs with an error in either arm left out)." {
		t.Errorf("flake line: %s", l)
	}
}

// TestWarningTextsOneArmErrors: 16 of 80 attempts of the variant end in infra errors where it failed (Δ −20 pts
// without them): the warning gives both counts and the bounds, and the gate's reason in an ablation and in a
// comparison of two runs says the errors could hide a failure.
func TestWarningTextsOneArmErrors(t *testing.T) {
	recs := analysistest.OneArmBroken('I')
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base", FailIfWorse: 0.05})
	wantIn(t, worded(a, analysis.WarnDifferentialErrors),
		"v vs base: Errors differ between the arms on the 80 common pairs (more than 5 points apart or Fisher p < 0.05): infra errors variant 16/80 (20%), baseline 0/80 (0%)",
		"errored on the variant side counted as failures there, Δ = -20.0 pts")
	failed, why := a.Gate(0.05)
	if !failed || len(why) != 1 || !strings.HasPrefix(GateReasonText(why[0]),
		"variant v: its errors could hide a failure against base: errors on the 80 common pairs: variant 16 (infra 16), baseline 0; with every error counted as a failure, Δ = -20.0 pts") {
		t.Errorf("gate: %v %q", failed, GateReasonTexts(why))
	}
	sa, sb := SelfSides(recs, "base", "v")
	cmp, err := analysis.CompareRuns(sa, sb, analysis.CompareOptions{FailIfWorse: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if got := RunGateText(cmp); !strings.HasPrefix(got, "b (variant v): its errors could hide a failure against a (variant base): "+
		"errors on the 80 common pairs: run B 16 (infra 16), run A 0; with every error counted as a failure, Δ = -20.0 pts") {
		t.Errorf("compare gate: %s", got)
	}
}

// TestWarningTextsUnequalReps: Δ +20 pts over 10 tasks while the pooled rates read 52.6% → 15.8%.
func TestWarningTextsUnequalReps(t *testing.T) {
	recs := analysistest.UnequalReps()
	wantIn(t, worded(analysis.Analyze(recs, analysis.Inputs{Baseline: "base"}), analysis.WarnUnequalReps),
		"Tasks have 1 to 10 matched reps: Δ = +20.0 pts", "52.6% → 15.8%", "rescued 3, broke 10", "disagree in sign")
}

// TestWarningTextsEqualClusters: 4 clusters of 10 tasks, one task of each moved down: the warning says the
// clusters have identical means, not that every task moved alike.
func TestWarningTextsEqualClusters(t *testing.T) {
	recs := analysistest.FourOfFortyInClusters()
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base"})
	wantIn(t, worded(a, analysis.WarnFewTasks), "Only 4 clusters are compared",
		"the 4 clusters have identical mean differences (4 of 40 tasks moved)")
	for _, x := range AnalysisWarnings(a) {
		if strings.Contains(x.Text, "same amount") || strings.Contains(x.Text, "same difference") {
			t.Errorf("warning claims every task moved alike: %q", x.Text)
		}
	}
}

// warningKinds returns the values of every analysis.WarningKind constant declared in analysis' source, so that a
// new kind is checked without a list to keep up to date.
func warningKinds(t *testing.T) []analysis.WarningKind {
	t.Helper()
	files, err := filepath.Glob("../analysis/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []analysis.WarningKind
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "WarningKind" {
					continue
				}
				for _, v := range vs.Values {
					lit, err := strconv.Unquote(v.(*ast.BasicLit).Value)
					if err != nil {
						t.Fatal(err)
					}
					kinds = append(kinds, analysis.WarningKind(lit))
				}
			}
		}
	}
	return kinds
}

// TestEveryWarningKindWorded: each kind declared in analysis has its own sentence in WarningText's table, even
// from zero figures.
func TestEveryWarningKindWorded(t *testing.T) {
	kinds := warningKinds(t)
	if len(kinds) < 20 || !slices.Contains(kinds, analysis.WarnSeedMismatch) || !slices.Contains(kinds, analysis.WarnFlakeRate) {
		t.Fatalf("warning kinds found in analysis' source: %v", kinds)
	}
	seen := map[string]analysis.WarningKind{}
	for _, k := range kinds {
		if k == analysis.WarnExtra {
			continue // its sentence is the one given
		}
		w := analysis.Warning{Kind: k, Variants: []string{"v"}, Comparison: &analysis.Comparison{}, Holm: analysis.HolmFloor{Unit: "task"}}
		text := WarningText(w, AblationWording("base"))
		if text == "" || text == string(k) {
			t.Errorf("%s: no sentence (%q)", k, text)
		}
		if o, ok := seen[text]; ok {
			t.Errorf("%s and %s share the sentence %q", k, o, text)
		}
		seen[text] = k
	}
	if got := WarningText(analysis.Warning{Kind: analysis.WarnExtra, Note: "as given"}, AblationWording("base")); got != "as given" {
		t.Errorf("extra: %q", got)
	}
}

// TestPairedNote: each reason of the primary comparison in its words, joined by "; ", and the compact report's
// note without the interval's reason.
func TestPairedNote(t *testing.T) {
	const adj = ": the interval is the Laplace-adjusted Wald interval over tasks (Bonett & Price 2012), not the t interval"
	const adjClusters = ": the interval is the Laplace-adjusted Wald interval over clusters (Bonett & Price 2012), not the t interval"
	for _, tc := range []struct {
		pr         stats.PairedResult
		full, part string
	}{
		{stats.PairedResult{}, "", ""},
		{stats.PairedResult{Reasons: []stats.PairedReason{stats.ReasonNoPairs}}, "no matched pairs", "no matched pairs"},
		{stats.PairedResult{G: 1, Reasons: []stats.PairedReason{stats.ReasonOneTask}},
			"one task only: variation across tasks cannot be estimated, so the interval is the whole range [-100, +100] pts",
			"one task only: variation across tasks cannot be estimated, so the interval is the whole range [-100, +100] pts"},
		{stats.PairedResult{G: 3, Moved: 2, Reasons: []stats.PairedReason{stats.ReasonOneCluster, stats.ReasonFewMoved}},
			"all tasks are in one cluster: SE and p over tasks instead; only 2 of 3 tasks moved (fewer than 12)" + adj,
			"all tasks are in one cluster: SE and p over tasks instead"},
		{stats.PairedResult{G: 40, C: 4, Moved: 4, Clustered: true, Reasons: []stats.PairedReason{stats.ReasonClusterFlip, stats.ReasonNoSpread}},
			"p_paired flips the signs of the 4 clusters' sums; the cluster means are identical (clustered SE 0)" + adjClusters,
			"p_paired flips the signs of the 4 clusters' sums"},
		{stats.PairedResult{G: 40, C: 10, Moved: 12, MovedUnits: 3, Clustered: true, Reasons: []stats.PairedReason{stats.ReasonClusterFlip, stats.ReasonFewMoved}},
			"p_paired flips the signs of the 10 clusters' sums; only 3 of 10 clusters moved (fewer than 12)" + adjClusters,
			"p_paired flips the signs of the 10 clusters' sums"},
		{stats.PairedResult{G: 5, Moved: 5, Reasons: []stats.PairedReason{stats.ReasonNoSpread}}, "the differences have no spread (SE 0)" + adj, ""},
	} {
		if got := PairedNote(&tc.pr, "cluster"); got != tc.full {
			t.Errorf("PairedNote(%v) = %q, want %q", tc.pr.Reasons, got, tc.full)
		}
		if got := pairedNote(&tc.pr, "cluster", true); got != tc.part {
			t.Errorf("pairedNote(%v, true) = %q, want %q", tc.pr.Reasons, got, tc.part)
		}
	}
}

// TestSpecWarningsWorded: the spec's warnings, typed in new manifests, are worded unprefixed (they name their
// variant) in the reports and for bench ablate alike; an old manifest's stored sentences print as stored.
func TestSpecWarningsWorded(t *testing.T) {
	spec := []results.SpecWarning{
		{Kind: results.SpecVariantNoTask, Variant: "no_vp", Guards: []string{"visual_progress", "repeat_guard"}, Tasks: 3},
		{Kind: results.SpecVariantNoTask, Variant: "no_x", Guards: []string{"x"}, Tasks: 1},
		{Kind: results.SpecVariantIdentical, Variant: "same"},
	}
	want := []string{
		"variant no_vp: none of the 3 selected tasks is tagged with visual_progress, repeat_guard; it runs on no task",
		"variant no_x: the one selected task is not tagged with x; it runs on no task",
		"variant same is identical to the baseline: it can only measure noise",
	}
	if got := SpecWarningTexts(spec); !slices.Equal(got, want) {
		t.Errorf("SpecWarningTexts:\n got %q\nwant %q", got, want)
	}
	recs := analysistest.Cat(analysistest.TasksOf("base", "PPPP"), analysistest.TasksOf("same", "PPPP"))
	a := analysis.Analyze(recs, analysis.Inputs{Baseline: "base", SpecWarnings: spec, ExtraWarnings: []string{"an old manifest's sentence"}})
	got := warningTexts(AnalysisWarnings(a))
	if !slices.Equal(got[:4], append(want, "an old manifest's sentence")) {
		t.Errorf("report warnings: %q", got)
	}
}

// TestRunWarningText: the sentence of each run-level warning, and its stderr line ("note: " for an empty shard).
func TestRunWarningText(t *testing.T) {
	for _, tc := range []struct {
		w    analysis.RunWarning
		line string
	}{
		{analysis.RunWarning{Kind: analysis.RunTornTail, Dir: "runs/x"}, "warning: runs/x/attempts.jsonl ends with a torn line (ignored)"},
		{analysis.RunWarning{Kind: analysis.RunEstimatedTokens, Count: 4, Of: 6},
			"warning: 4 of 6 attempts' tokens are estimated: the endpoint sent no usage (tokens and cost are estimated from bytes, about 4 bytes a token)"},
		{analysis.RunWarning{Kind: analysis.RunEmptyShard, Shard: "3/3", Planned: 4},
			"note: shard 3/3 holds 0 of the plan's 4 attempts: its share is empty (no (task, rep) pair of the plan falls on it; more shards than pairs leave some empty); report the merged run"},
		{analysis.RunWarning{Kind: analysis.RunStopped, Stopped: "cost limit $0.01 reached", Missing: 3, Planned: 4},
			"warning: run stopped: cost limit $0.01 reached; 3 of 4 planned attempts have no record (after the fix the stop named, re-run on this directory to resume)"},
		{analysis.RunWarning{Kind: analysis.RunIncomplete, Missing: 1, Planned: 4, NoEnd: true},
			"warning: the run did not finish (no end time in the manifest: killed, or still running); 1 of 4 planned attempts have no record (resume with the same command)"},
		{analysis.RunWarning{Kind: analysis.RunIncomplete, Missing: 2, Planned: 4},
			"warning: the run did not finish; 2 of 4 planned attempts have no record (resume with the same command)"},
		{analysis.RunWarning{Kind: analysis.RunCassetteMisses, Count: 2, Of: 5, Missed: 3},
			"warning: 2 of 5 replayed attempts asked for pages the cassette does not hold (3 requests, each answered 404): those attempts did not see the recorded site; the URLs are in each trajectory's cassette.misses (re-record those tasks, or --record-missing with network)"},
		{analysis.RunWarning{Kind: analysis.RunAllInfra, Variant: "v", Causes: []analysis.ErrorCause{
			{Example: "site unreachable: dial tcp 127.0.0.1:4431: connect: connection refused", N: 2},
			{Example: "attempt deadline 90s exceeded", N: 1}}},
			"warning: variant v: every attempt ended in an infrastructure error: its pass rate is undefined (n/a); the causes:\n" +
				"  2 attempts: site unreachable: dial tcp 127.0.0.1:4431: connect: connection refused\n  1 attempt: attempt deadline 90s exceeded"},
	} {
		if got := RunWarningLine(tc.w); got != tc.line {
			t.Errorf("%s:\n got %q\nwant %q", tc.w.Kind, got, tc.line)
		}
		if text := RunWarningText(tc.w); !strings.HasSuffix(tc.line, ": "+text) && !strings.HasPrefix(tc.line, "note: "+text) {
			t.Errorf("%s: text %q is not the line's", tc.w.Kind, text)
		}
	}
}
