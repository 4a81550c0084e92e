package report

// The wording of the warnings (analysis.Warning): one sentence per kind, which every format prints.

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"

	"webbench/analysis"
	"webbench/results"
	"webbench/stats"
)

// Wording names the two sides of a comparison in the warnings' sentences:
// the arms' labels are parameters of the sentences. AblationWording is an
// ablation's (warnings about some variants prefixed "V1, V2 vs BASELINE: "),
// RunWording that of a comparison of two runs.
type Wording struct {
	// BaselineArm is the baseline arm's name (Analysis.Baseline): the
	// prefix's "vs BASELINE" and the noise floor's "a copy of BASELINE".
	BaselineArm string
	// Baseline and Variant name the two sides inside a sentence ("%d
	// baseline and %d variant judged attempts").
	Baseline, Variant string
	// TheBaseline and TheVariant name them as a sentence's subject ("The
	// baseline NAME", "The variant").
	TheBaseline, TheVariant string
	// Unprefixed leaves out the "V1, V2 vs BASELINE: " prefix of warnings
	// about variants (a comparison of two runs has one pair of sides, which
	// its sentences name).
	Unprefixed bool
}

// AblationWording is the Wording of an ablation whose baseline arm is named baseline.
func AblationWording(baseline string) Wording {
	return Wording{BaselineArm: baseline, Baseline: "baseline", Variant: "variant", TheBaseline: "The baseline " + baseline,
		TheVariant: "The variant"}
}

// RunWording is the Wording of a comparison of two runs labelled a and b
// (e.g. "run A", "run B"): the labels inside sentences, capitalised as
// subjects, no variant prefix.
func RunWording(a, b string) Wording {
	return Wording{BaselineArm: a, Baseline: a, Variant: b, TheBaseline: capitalize(a), TheVariant: capitalize(b), Unprefixed: true}
}

// WordedWarning is a warning as the reports print it: its kind, the variants it concerns (empty for the whole
// run) and its sentence, prefixed "V1, V2 vs BASELINE: " where the wording asks for it.
type WordedWarning struct {
	Kind     analysis.WarningKind
	Variants []string
	Text     string
}

// AnalysisWarnings words the warnings of an ablation's analysis (AblationWording), in print order.
func AnalysisWarnings(a *analysis.Analysis) []WordedWarning {
	return WordWarnings(a.Warnings, AblationWording(a.Baseline))
}

// WordWarnings words ws with wd (WarningText) and prints identical sentences about several variants once, with
// their variants joined, in the order of first appearance; warnings for the whole run never merge. A
// sentence about variants is prefixed "V1, V2 vs BASELINE: " unless wd.Unprefixed or it names its variant itself
// (noise_floor, flake_rate, variant_identical, variant_no_task).
func WordWarnings(ws []analysis.Warning, wd Wording) []WordedWarning {
	var out []WordedWarning
	pos := map[[2]string]int{}
	for _, w := range ws {
		text := WarningText(w, wd)
		key := [2]string{string(w.Kind), text}
		if i, ok := pos[key]; ok && len(w.Variants) > 0 && len(out[i].Variants) > 0 {
			out[i].Variants = append(out[i].Variants, w.Variants...)
			continue
		}
		pos[key] = len(out)
		out = append(out, WordedWarning{Kind: w.Kind, Variants: append([]string(nil), w.Variants...), Text: text})
	}
	for i := range out {
		if k := out[i].Kind; !wd.Unprefixed && len(out[i].Variants) > 0 && !namesVariant[k] {
			out[i].Text = strings.Join(out[i].Variants, ", ") + " vs " + wd.BaselineArm + ": " + out[i].Text
		}
	}
	return out
}

// namesVariant are the warning kinds whose sentence names its variant, hence never prefixed.
var namesVariant = map[analysis.WarningKind]bool{analysis.WarnNoiseFloor: true, analysis.WarnFlakeRate: true,
	analysis.WarnVariantIdentical: true, analysis.WarnVariantNoTask: true}

// SpecWarningTexts words the problems found while expanding a spec (results.Ablation.SpecWarnings) as the
// reports print them: what bench ablate prints before it runs.
func SpecWarningTexts(ws []results.SpecWarning) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, WarningText(analysis.SpecWarning(w), AblationWording("")))
	}
	return out
}

// warningTexts are the sentences of ws, in order.
func warningTexts(ws []WordedWarning) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, w.Text)
	}
	return out
}

// WarningText words one warning with the arms named by wd, without the variant prefix (WordWarnings adds it):
// the one wording of every warning kind, which the terminal, Markdown, HTML, JSON and JUnit reports all print.
func WarningText(w analysis.Warning, wd Wording) string {
	c := w.Comparison
	switch w.Kind {
	case analysis.WarnNoBaseline:
		if w.Records == 0 {
			return fmt.Sprintf("%s has no records: no %s can be compared with it.", wd.TheBaseline, wd.Variant)
		}
		return fmt.Sprintf("%s has no judged attempt (%s, all errors): no %s can be compared with it.",
			wd.TheBaseline, results.Count(w.Records, "record", "records"), wd.Variant)
	case analysis.WarnEmptyArm:
		return emptyArmText(w, wd)
	case analysis.WarnExtra:
		return w.Note
	case analysis.WarnVariantIdentical:
		return fmt.Sprintf("variant %s is identical to the baseline: it can only measure noise", strings.Join(w.Variants, ", "))
	case analysis.WarnVariantNoTask:
		which := fmt.Sprintf("none of the %d selected tasks is", w.Tasks)
		if w.Tasks == 1 {
			which = "the one selected task is not"
		}
		return fmt.Sprintf("variant %s: %s tagged with %s; it runs on no task", strings.Join(w.Variants, ", "), which, strings.Join(w.Guards, ", "))
	case analysis.WarnUnpaired:
		return fmt.Sprintf("The arms share no judged (task, rep) pair, so they are compared unpaired (Fisher exact p, Newcombe interval) on %d vs %s; this ignores that tasks differ in difficulty and is less powerful than the paired comparison.",
			c.A.N, results.Count(c.B.N, "attempt", "attempts"))
	case analysis.WarnNotComparable:
		return fmt.Sprintf("The arms are not fully matched: %d %s and %d %s judged attempts in scope have no counterpart in the other arm (different task sets or reps); the paired comparison uses only the %d common pairs.",
			c.UnmatchedA, wd.Baseline, c.UnmatchedB, wd.Variant, c.Pairs)
	case analysis.WarnInfraErrors:
		return infraText(w)
	case analysis.WarnCassetteMisses:
		return cassetteMissesText(w)
	case analysis.WarnJudgeUncertain:
		n, arms := armErrors(w.Arms)
		return fmt.Sprintf("The judge was uncertain about %d %s (%s): the answer matched its rule but also stated other candidates or negated it; %s excluded from the denominators and from the paired comparisons, never counted as a pass; decide %s with `bench judge DIR --judge answer --judge-model openai:NAME`.",
			n, results.Plural(n, "attempt", "attempts"), arms, results.Plural(n, "it is", "they are"), results.Plural(n, "it", "them"))
	case analysis.WarnJudgeErrors:
		n, arms := armErrors(w.Arms)
		return fmt.Sprintf("The judge could not verify %d %s (%s): %s excluded from the denominators and from the paired comparisons; re-score with `bench judge`.",
			n, results.Plural(n, "attempt", "attempts"), arms, results.Plural(n, "it is", "they are"))
	case analysis.WarnUnderpowered:
		return underpoweredText(c, w.Alpha, w.Power)
	case analysis.WarnFewTasks:
		return fewTasksText(w)
	case analysis.WarnDifferentialErrors:
		return differentialText(c, wd)
	case analysis.WarnUnequalReps:
		return unequalRepsText(c)
	case analysis.WarnPermFloor:
		unit := c.Unit()
		return fmt.Sprintf("Only %s changed outcome between the arms, so p_paired (the exact sign-flip p) cannot go below 2/2^%d = %s (> α = %s): with these outcomes no effect can be shown, though more reps may move more %s.",
			unitCount(w.Moved, unit), w.Moved, stats.FmtP(w.Floor), stats.FmtP(w.Alpha), unitWord(2, unit))
	case analysis.WarnHolmFloor:
		h := w.Holm
		return fmt.Sprintf("With %s compared, p_paired could at best reach 2/2^%d = %s (every %s moved the same way), and %d variants have a floor at least as high, so Holm's adjustment multiplies it by at least %d: p_holm ≥ %s ≥ α = %s. At this size it cannot be shown different from the baseline, nor fail the gate, however many reps; that needs at least %s.",
			unitCount(h.G, h.Unit), h.G, stats.FmtP(h.Floor), h.Unit, h.M, h.M, stats.FmtP(float64(h.M)*h.Floor), stats.FmtP(w.Alpha), unitCount(h.Need, h.Unit))
	case analysis.WarnCostHolmFloor:
		return costHolmFloorText(w)
	case analysis.WarnNoDiscordant:
		agree := fmt.Sprintf("all %d matched pairs", c.Pairs)
		if c.Pairs == 1 {
			agree = "their 1 matched pair"
		}
		return fmt.Sprintf("No discordant pairs: the arms agree on %s (both passed %d, both failed %d), so the run cannot tell them apart (McNemar p = 1). More reps, or tasks where the arms can differ, are needed.",
			agree, c.A.Passes, c.Pairs-c.A.Passes)
	case analysis.WarnNoTargetTasks:
		return fmt.Sprintf("%s switches %s but no compared task is tagged with it: the guard's effect can only show on tasks that exercise it.", wd.TheVariant, w.Guard)
	case analysis.WarnNoiseFloor:
		return fmt.Sprintf("Noise floor: %s is a copy of %s with other seeds (an A/A control); it differs by Δ = %s pts [%s, %s], "+
			"p_paired = %.3g on %d %s. Its interval, not its Δ, is the yardstick: one A/A draw, and arms that "+
			"differ by less than its half-width here may differ by chance alone.",
			strings.Join(w.Variants, ", "), wd.BaselineArm, stats.Pts(c.Delta), stats.Pts(c.CI[0]), stats.Pts(c.CI[1]), c.P, c.G(), results.Plural(c.G(), "task", "tasks"))
	case analysis.WarnFlakeRate:
		return flakeWarningText(w.Flake)
	case analysis.WarnSeqFixedP, analysis.WarnSeqBudget, analysis.WarnSeqShardStop:
		return seqWarningText(w)
	case analysis.WarnSameDir:
		return fmt.Sprintf("%s and %s are the same directory: every pair agrees by construction.", wd.TheBaseline, wd.Variant)
	case analysis.WarnSeedMismatch:
		return fmt.Sprintf("%d of %d pairs ran with different seeds "+
			"(runs made with another --seed): the comparison stays paired over tasks, but the two attempts of a pair did not see "+
			"the same randomness, so it has less power than same-seed pairs; give %s the --seed of %s to compare like for like.",
			w.SeedMismatches, c.Pairs, wd.Variant, wd.Baseline)
	}
	return string(w.Kind)
}

// emptyArmText words an empty_arm warning. Prefixed warnings of several variants merge into one line ("a, b vs
// base: …"), so their sentence names no subject; a comparison of two runs names its side.
func emptyArmText(w analysis.Warning, wd Wording) string {
	switch {
	case w.Records == 0 && wd.Unprefixed:
		return fmt.Sprintf("%s has no records: it cannot be compared.", wd.TheVariant)
	case w.Records == 0:
		return "No records, so nothing to compare."
	case wd.Unprefixed:
		return fmt.Sprintf("%s has no judged attempt (%d %s, all errors): it cannot be compared.", wd.TheVariant,
			w.Records, results.Plural(w.Records, "record", "records"))
	}
	return fmt.Sprintf("No judged attempt (%d %s, all errors), so nothing to compare.",
		w.Records, results.Plural(w.Records, "record", "records"))
}

// armErrors sums the arms' errors and lists them as "base 1, v 2".
func armErrors(arms []analysis.ArmErrors) (total int, list string) {
	parts := make([]string, 0, len(arms))
	for _, a := range arms {
		total += a.Errors
		parts = append(parts, fmt.Sprintf("%s %d", a.Arm, a.Errors))
	}
	return total, strings.Join(parts, ", ")
}

// cassetteMissesText words a cassette_misses warning.
func cassetteMissesText(w analysis.Warning) string {
	parts := make([]string, 0, len(w.Misses))
	for _, m := range w.Misses {
		parts = append(parts, fmt.Sprintf("%s %s in %d of %d %s", m.Arm, results.Count(m.Misses, "miss", "misses"),
			m.Missing, m.Attempts, results.Plural(m.Attempts, "attempt", "attempts")))
	}
	return fmt.Sprintf("The arms met different cassette misses on the (task, rep) pairs both replayed (requests without a recorded response, "+
		"answered 404): %s. One arm browsed pages the recording never saw, so part of the difference is the "+
		"cassette's; the trajectories list the missed URLs (cassette.misses): record them (re-record the tasks) "+
		"before trusting the comparison.", strings.Join(parts, ", "))
}

// infraText words an infra_errors warning.
func infraText(w analysis.Warning) string {
	parts := make([]string, 0, len(w.Arms))
	for _, a := range w.Arms {
		parts = append(parts, fmt.Sprintf("%s %d/%d (%.0f%%)", a.Arm, a.Errors, a.Attempts, 100*float64(a.Errors)/float64(a.Attempts)))
	}
	return fmt.Sprintf("Infrastructure errors in more than %.0f%% of attempts: %s. They are excluded from the denominators (never counted as agent failures), and %d %s with an infra error on either side %s dropped from the paired comparisons. Re-run the spec to retry them (a resumed run re-runs error ids).",
		100*analysis.InfraWarnFraction, strings.Join(parts, ", "), w.Dropped, results.Plural(w.Dropped, "pair", "pairs"), results.Plural(w.Dropped, "was", "were"))
}

// fewTasksText words a few_tasks warning: how many tasks moved, the exact sign-flip floor 2/2^k that k moved
// tasks leave p_paired (and, when the floor is above α, that no effect can be shown: the perm_floor warning is
// then not given separately), and which interval was taken.
func fewTasksText(w analysis.Warning) string {
	c := w.Comparison
	if c.G() == 1 {
		return "Only 1 task is compared: variation across tasks cannot be estimated, so Δ's interval is the whole range [-100, +100] pts and p_paired is the sign-flip p (1); reps of one task are not independent evidence about other tasks."
	}
	pr := c.Paired
	g, unit := c.G(), "task"
	if pr.Clustered {
		g, unit = pr.C, c.ClusterUnit
	}
	alpha := w.Alpha
	if alpha <= 0 {
		alpha = analysis.DefaultAlpha
	}
	// With clusters, p_paired flips the clusters' sums: k and n count clusters.
	k, n, fl, many := w.Moved, g, w.Floor, unitWord(2, unit)
	var floor string
	switch {
	case k == 0:
		floor = fmt.Sprintf("no %s moved, so it is 1", unit)
	case k == 1:
		floor = fmt.Sprintf("with 1 of the %d %s moved it is 2/2^1 = 1", n, many)
	case k == n:
		floor = fmt.Sprintf("with all %d %s moved it cannot go below 2/2^%d = %s", n, many, k, stats.FmtP(fl))
	default:
		floor = fmt.Sprintf("with %d of the %d %s moved it cannot go below 2/2^%d = %s", k, n, many, k, stats.FmtP(fl))
	}
	if fl > alpha && k == n {
		floor += fmt.Sprintf(", above α = %s: at this size no effect can be shown", stats.FmtP(alpha))
	} else if fl > alpha {
		floor += fmt.Sprintf(", above α = %s: with these outcomes no effect can be shown, though more reps may move more %s", stats.FmtP(alpha), many)
	}
	ci := "the interval is the t interval on " + fmt.Sprint(pr.DF) + " degrees of freedom, rough at this size"
	if pr.CIMethod == stats.CIMethodAdjusted {
		ci = fmt.Sprintf("the interval is the adjusted Wald interval over %s (the t interval needs %d moved %s)",
			many, stats.TIntervalMinInformative, many)
		switch {
		case pr.SE == 0 && pr.Clustered:
			ci = fmt.Sprintf("the %s have identical mean differences (%d of %d tasks moved), so the clustered SE is 0 and the interval is the adjusted Wald interval over %s",
				unitCount(pr.C, c.ClusterUnit), pr.Moved, c.G(), many)
		case pr.SE == 0 && pr.Moved > 0:
			ci = fmt.Sprintf("all %d tasks have the same difference (%s pts), so the t interval is undefined and the interval is the adjusted Wald interval over tasks",
				c.G(), stats.Pts(c.Delta))
		}
	}
	return fmt.Sprintf("Only %s are compared (fewer than %d): p_paired is the exact sign-flip p (%s), and %s.",
		unitCount(g, unit), analysis.FewTasks, floor, ci)
}

// PairedNote words the reasons a primary paired comparison is not the t interval and sign-flip test over tasks
// (stats.PairedResult.Reasons), joined by "; ": the statistical notes' and the JSON report's "note"; "" when
// there are none. The few_tasks warning (fewTasksText) says again which interval was taken, so the compact
// report leaves that part out (pairedNote).
// unit is the singular noun of the clusters' units (analysis.Comparison.ClusterUnit).
func PairedNote(pr *stats.PairedResult, unit string) string { return pairedNote(pr, unit, false) }

// pairedNote is PairedNote, without the reason for the adjusted interval (few_moved, no_spread) when noInterval.
func pairedNote(pr *stats.PairedResult, unit string, noInterval bool) string {
	units, moved, of := "tasks", pr.Moved, pr.G
	if pr.Clustered {
		units, moved, of = unitWord(2, unit), pr.MovedUnits, pr.C
	}
	adjusted := ": the interval is the Laplace-adjusted Wald interval over " + units + " (Bonett & Price 2012), not the t interval"
	parts := make([]string, 0, len(pr.Reasons))
	for _, r := range pr.Reasons {
		switch r {
		case stats.ReasonNoPairs:
			parts = append(parts, "no matched pairs")
		case stats.ReasonOneTask:
			parts = append(parts, "one task only: variation across tasks cannot be estimated, so the interval is the whole range [-100, +100] pts")
		case stats.ReasonOneCluster:
			parts = append(parts, fmt.Sprintf("all tasks are in one %s: SE and p over tasks instead", unit))
		case stats.ReasonClusterFlip:
			parts = append(parts, fmt.Sprintf("p_paired flips the signs of the %s' sums", unitCount(pr.C, unit)))
		case stats.ReasonFewMoved:
			if !noInterval {
				parts = append(parts, fmt.Sprintf("only %d of %d %s moved (fewer than %d)", moved, of, units, stats.TIntervalMinInformative)+adjusted)
			}
		case stats.ReasonNoSpread:
			switch {
			case noInterval:
			case pr.Clustered:
				parts = append(parts, fmt.Sprintf("the %s means are identical (clustered SE 0)", unit)+adjusted)
			default:
				parts = append(parts, "the differences have no spread (SE 0)"+adjusted)
			}
		default:
			parts = append(parts, string(r))
		}
	}
	return strings.Join(parts, "; ")
}

// differentialText words a differential_errors warning: each differential error class's counts on the common
// pairs, and the bounds of what the variant's errors could hide.
func differentialText(c *analysis.Comparison, wd Wording) string {
	var parts []string
	for _, k := range c.Differential {
		ka, kb := c.ErrorsA[k], c.ErrorsB[k]
		parts = append(parts, fmt.Sprintf("%s errors %s %d/%d (%s), %s %d/%d (%s), Fisher p = %s", k, wd.Variant, kb,
			c.CommonPairs, stats.Pct(float64(kb)/float64(c.CommonPairs)), wd.Baseline, ka, c.CommonPairs,
			stats.Pct(float64(ka)/float64(c.CommonPairs)), stats.FmtP(c.DifferentialP[k])))
	}
	s := fmt.Sprintf("Errors differ between the arms on the %d common pairs (more than %.0f points apart or Fisher p < %s): %s. Pairs with an error are left out of Δ, so errors on one side can hide an effect.",
		c.CommonPairs, 100*analysis.DifferentialErrorPoints, stats.FmtP(analysis.DifferentialErrorP), strings.Join(parts, "; "))
	if b := c.Bounds; b != nil {
		s += fmt.Sprintf(" With the %d %s that errored on the %s side counted as failures there, %s; counted as passes, %s.", b.Pairs,
			results.Plural(b.Pairs, "pair", "pairs"), wd.Variant, boundText(b.AsFail), boundText(b.AsPass))
	}
	return s
}

// unequalRepsText words an unequal_reps warning: tasks with different numbers of matched reps, or a
// task-weighted Δ whose sign disagrees with the pooled rates' (Comparison.PooledDisagrees).
func unequalRepsText(c *analysis.Comparison) string {
	pr := c.Paired
	pooled := c.B.Rate - c.A.Rate
	s := fmt.Sprintf("Tasks have %d to %d matched reps: Δ = %s pts weighs every task alike (the mean of per-task differences), while the pooled rates (%s → %s, %s pts) and McNemar (rescued %d, broke %d) weigh every attempt, so tasks with more reps count more there.",
		pr.RepsMin, pr.RepsMax, stats.Pts(c.Delta), pct1(c.A.Rate), pct1(c.B.Rate), stats.Pts(pooled), c.Rescued, c.Broke)
	if pr.RepsMin == pr.RepsMax {
		s = fmt.Sprintf("Δ = %s pts (the mean of per-task differences) and the pooled rates (%s → %s, %s pts) disagree in sign.",
			stats.Pts(c.Delta), pct1(c.A.Rate), pct1(c.B.Rate), stats.Pts(pooled))
	}
	if c.PooledDisagrees() {
		s += " Here they disagree in sign: read Δ as the effect on a typical task, not on a typical attempt."
	}
	return s
}

// underpoweredText words the underpowered warning of STATS.md §5 for c at level alpha and target power.
func underpoweredText(c *analysis.Comparison, alpha, power float64) string {
	pw := c.Power
	var b strings.Builder
	basePass, toPass := stats.Pct(1-pw.From), stats.Pct(1-pw.To)
	fmt.Fprintf(&b, "With %s per arm at %s %s baseline pass rate", results.Count(pw.N, "run", "runs"), article(basePass), basePass)
	lead := ", power"
	if pw.From > 0 && pw.PZero > alpha {
		lead = ". Power"
		clean := "so even %d/%d passes would not be significant"
		if c.B.N > 0 && c.B.Passes == c.B.N {
			clean = "so %d/%d passes is not significant"
		}
		fmt.Fprintf(&b, ", P(every run passing by chance) = %s^%d ≈ %.3f, "+clean, num4(1-pw.From), pw.N, pw.PZero, pw.N, pw.N)
		if pw.MinRunsZero > 0 {
			fmt.Fprintf(&b, " (n/n passes is significant at α = %s only for n ≥ %d here)", stats.FmtP(alpha), pw.MinRunsZero)
		}
	}
	if c.Matched {
		reps := fmt.Sprintf("%.1f", pw.Reps)
		if pw.Reps == math.Trunc(pw.Reps) {
			reps = fmt.Sprintf("%.0f", pw.Reps)
		}
		unit, per, same := cmp.Or(pw.Unit, "task"), results.Plural(int(math.Ceil(pw.Reps)), "rep", "reps"), "the same reps"
		if unit != "task" {
			per, same = results.Plural(int(math.Ceil(pw.Reps)), "pair", "pairs")+" each", "the same pairs per "+unit
		}
		fmt.Fprintf(&b, "%s of the paired %s-level test to detect a pass rate of %s→%s is ≈%.2f with %s × %s %s", lead, unit,
			basePass, toPass, pw.Power, unitCount(pw.G, unit), reps, per)
		if pw.TasksFor > 0 {
			fmt.Fprintf(&b, " and ≈%.2f with %s at %s", pw.PowerAtTasksFor, unitCount(pw.TasksFor, unit), same)
		} else {
			fmt.Fprintf(&b, "; reaching %.0f%% would take more than %s at %s", 100*power, unitCount(analysis.MaxPlanTasks, unit), same)
		}
	} else {
		fmt.Fprintf(&b, "%s of the unpaired Fisher test to detect a pass rate of %s→%s is ≈%.2f at %d runs per arm", lead,
			basePass, toPass, pw.Power, pw.N)
	}
	b.WriteString(".")
	if mde := pw.AdjustedMDE(); !math.IsNaN(mde) {
		fmt.Fprintf(&b, " The smallest drop in pass rate this run detects with %.0f%% power%s is ≈%.0f points.", 100*power,
			holmClause(pw.HolmM), 100*mde)
	} else if pw.HolmM > 1 && !math.IsNaN(pw.MDE) {
		fmt.Fprintf(&b, " After Holm's adjustment over the variants no drop in pass rate is detectable with %.0f%% power at this size.",
			100*power)
	}
	b.WriteString(" Treat this as inconclusive, not as evidence either way.")
	return b.String()
}

// holmClause says at which level an MDE is when Holm's adjustment applies: " at α/3 (Holm)", "" when it does not.
func holmClause(m int) string {
	if m <= 1 {
		return ""
	}
	return fmt.Sprintf(" at α/%d (Holm)", m)
}

// flakeWarningText words a flake_rate warning: a same-seed replay that differs from the baseline.
func flakeWarningText(f analysis.FlakeRate) string {
	text := fmt.Sprintf("Same seeds, different outcomes: %s, a replay of the baseline with the same seeds, "+
		"differs from it on %d of %d pairs (%.1f%% [%.1f, %.1f]). With the scripted policy that is the environment "+
		"(browser timing, machine load, the pages); with a model it is also the model's own sampling (a seed the "+
		"endpoint does not honour, temperature above 0). Rescued and broke pairs at this rate can come from this "+
		"alone: the paired tests stay valid, but an effect must be larger to show.", f.Variant, f.Differ,
		f.Pairs, 100*f.Rate, 100*f.Wilson[0], 100*f.Wilson[1])
	if len(f.Examples) > 0 {
		text += " First: " + strings.Join(f.Examples, "; ") + "."
	}
	return text
}

// FlakeLine is the flake rate of a same-seed A/A arm in plain words, as every report prints it under the
// warnings.
func FlakeLine(f analysis.FlakeRate) string {
	left := ""
	if f.Errors > 0 {
		left = fmt.Sprintf(" (%d %s with an error in either arm left out)", f.Errors, results.Plural(f.Errors, "pair", "pairs"))
	}
	if f.Pairs == 0 {
		return fmt.Sprintf("Environment flake rate: %s replays the baseline with its own seeds; no pair has a finished "+
			"record in both arms = n/a%s.", f.Variant, left)
	}
	return fmt.Sprintf("Environment flake rate: %s replays the baseline with its own seeds; %d of %d pairs differ "+
		"in status, failure mode or verdict = %.1f%% [%.1f, %.1f]%s.", f.Variant, f.Differ, f.Pairs, 100*f.Rate,
		100*f.Wilson[0], 100*f.Wilson[1], left)
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}

// pct1 formats a rate as a percentage with one decimal ("52.6%").
func pct1(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// article returns "an" before a number read with a leading vowel sound
// (8…, 11, 18, 80–89) and "a" otherwise.
func article(num string) string {
	if strings.HasPrefix(num, "8") {
		return "an"
	}
	if (strings.HasPrefix(num, "11") || strings.HasPrefix(num, "18")) && (len(num) == 2 || num[2] < '0' || num[2] > '9') {
		return "an"
	}
	return "a"
}

// num4 formats x with at most 4 decimals and no trailing zeros ("0.82").
func num4(x float64) string {
	return strconv.FormatFloat(math.Round(x*1e4)/1e4, 'f', -1, 64)
}

// RunWarningText words a warning about the run itself (analysis.RunWarning): the sentence the HTML run report
// lists and RunWarningLine prints on stderr.
func RunWarningText(w analysis.RunWarning) string {
	switch w.Kind {
	case analysis.RunTornTail:
		return fmt.Sprintf("%s/%s ends with a torn line (ignored)", w.Dir, results.AttemptsFile)
	case analysis.RunEstimatedTokens:
		return fmt.Sprintf("%d of %d attempts' tokens are estimated: the endpoint sent no usage "+
			"(tokens and cost are estimated from bytes, about 4 bytes a token)", w.Count, w.Of)
	case analysis.RunEmptyShard:
		return fmt.Sprintf("shard %s holds 0 of the plan's %d attempts: its share is empty (no (task, rep) "+
			"pair of the plan falls on it; more shards than pairs leave some empty); report the merged run", w.Shard, w.Planned)
	case analysis.RunStopped:
		return fmt.Sprintf("run stopped: %s; %d of %d planned attempts have no record (after the fix the stop named, re-run on this directory to resume)",
			w.Stopped, w.Missing, w.Planned)
	case analysis.RunIncomplete:
		why := "the run did not finish"
		if w.NoEnd {
			why += " (no end time in the manifest: killed, or still running)"
		}
		return fmt.Sprintf("%s; %d of %d planned attempts have no record (resume with the same command)", why, w.Missing, w.Planned)
	case analysis.RunCassetteMisses:
		return fmt.Sprintf("%d of %d replayed attempts asked for pages the cassette does not hold (%s, each answered "+
			"404): those attempts did not see the recorded site; the URLs are in each trajectory's cassette.misses "+
			"(re-record those tasks, or --record-missing with network)", w.Count, w.Of,
			results.Count(w.Missed, "request", "requests"))
	case analysis.RunAllInfra:
		return fmt.Sprintf("variant %s: every attempt ended in an infrastructure error: its pass rate "+
			"is undefined (n/a); the causes:\n%s", w.Variant, CauseLines(w.Causes))
	}
	return string(w.Kind)
}

// RunWarningLine is the stderr line of a warning about the run: "warning: " and its sentence ("note: " for an
// empty shard, which is no problem of the run).
func RunWarningLine(w analysis.RunWarning) string {
	if w.Kind == analysis.RunEmptyShard {
		return "note: " + RunWarningText(w)
	}
	return "warning: " + RunWarningText(w)
}

// CauseLines words grouped errors (analysis.InfraCauses): the first five causes one a line, `  N attempts: TEXT`
// (an example attempt's own text), and how many other causes there are.
func CauseLines(cs []analysis.ErrorCause) string {
	var b strings.Builder
	for i, c := range cs {
		if i == 5 {
			fmt.Fprintf(&b, "  … and %s more\n", results.Count(len(cs)-5, "other cause", "other causes"))
			break
		}
		fmt.Fprintf(&b, "  %s: %s\n", results.Count(c.N, "attempt", "attempts"), c.Example)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// DominantCauseLine words analysis.DominantCause: how many of the run's attempts (of) one error ended, with one
// attempt's own text.
func DominantCauseLine(c analysis.ErrorCause, of int) string {
	return fmt.Sprintf("warning: %d of %d attempts ended with one cause, so the run measured it, not the agent: %s",
		c.N, of, c.Example)
}
