package analysis

// The plain-words warnings of STATS.md §5, printed above the tables.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"webbench/results"
	"webbench/stats"
)

// Warning kinds (Warning.Kind), in the order the reports print them.
const (
	WarnNoBaseline    WarningKind = "no_baseline"
	WarnEmptyArm      WarningKind = "empty_arm"
	WarnExtra         WarningKind = "extra"
	WarnUnpaired      WarningKind = "unpaired"
	WarnNotComparable WarningKind = "not_comparable"
	WarnInfraErrors   WarningKind = "infra_errors"
	WarnJudgeErrors   WarningKind = "judge_errors"
	// WarnJudgeUncertain: attempts whose verdict is uncertain (results.ClassUncertain).
	WarnJudgeUncertain WarningKind = "judge_uncertain"
	WarnUnderpowered   WarningKind = "underpowered"
	WarnFewTasks       WarningKind = "few_tasks"
	WarnPermFloor      WarningKind = "perm_floor"
	WarnNoDiscordant   WarningKind = "no_discordant"
	WarnNoTargetTasks  WarningKind = "no_target_tasks"
	// WarnDifferentialErrors: the arms' error rates on the common pairs
	// differ materially (Comparison.Differential).
	WarnDifferentialErrors WarningKind = "differential_errors"
	// WarnUnequalReps: tasks have different numbers of matched reps, or the
	// task-weighted Δ and the pooled rates disagree in sign.
	WarnUnequalReps WarningKind = "unequal_reps"
	// WarnHolmFloor: a variant whose exact p cannot go below 2/2^G (G tasks)
	// and whose Holm multiplier is at least m cannot reach p_holm < α when
	// m·2/2^G ≥ α, whatever the reps (holmFloors).
	WarnHolmFloor WarningKind = "holm_floor"
)

// Wording names the two sides of a comparison in the warnings' sentences:
// the arms' labels are parameters of the sentences, never substituted into
// finished text. The zero Wording is an ablation's ("baseline", "variant",
// warnings about some variants prefixed "V1, V2 vs BASELINE: "); RunWording
// is that of a comparison of two runs.
type Wording struct {
	// Baseline and Variant name the two sides inside a sentence ("%d
	// baseline and %d variant judged attempts"); default "baseline" and
	// "variant".
	Baseline, Variant string
	// TheBaseline and TheVariant name them as a sentence's subject; default
	// "The baseline NAME" and "The variant".
	TheBaseline, TheVariant string
	// Unprefixed leaves out the "V1, V2 vs BASELINE: " prefix of warnings
	// about variants (a comparison of two runs has one pair of sides, which
	// its sentences name).
	Unprefixed bool
}

// RunWording is the Wording of a comparison of two runs labelled a and b
// (e.g. "run A", "run B"): the labels inside sentences, capitalised as
// subjects, no variant prefix.
func RunWording(a, b string) Wording {
	return Wording{Baseline: a, Variant: b, TheBaseline: capitalize(a), TheVariant: capitalize(b), Unprefixed: true}
}

// withDefaults fills the empty fields of w with an ablation's words for the
// baseline arm named baseline.
func (w Wording) withDefaults(baseline string) Wording {
	if w.Baseline == "" {
		w.Baseline = "baseline"
	}
	if w.Variant == "" {
		w.Variant = "variant"
	}
	if w.TheBaseline == "" {
		w.TheBaseline = "The baseline " + baseline
	}
	if w.TheVariant == "" {
		w.TheVariant = "The variant"
	}
	return w
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}

// rawWarning is a warning before identical ones of several variants merge.
type rawWarning struct {
	kind          WarningKind
	variant, body string
}

// buildWarnings derives every warning of a from its comparisons and arms.
func buildWarnings(a *Analysis, by map[string][]results.Attempt, in Inputs) []Warning {
	var raw []rawWarning
	add := func(kind WarningKind, variant, format string, args ...any) {
		raw = append(raw, rawWarning{kind, variant, fmt.Sprintf(format, args...)})
	}
	wd := in.Wording.withDefaults(a.Baseline)
	availabilityWarnings(a, by, wd, add)
	for _, w := range in.ExtraWarnings {
		add(WarnExtra, "", "%s", w)
	}
	for _, v := range a.Variants {
		c := v.All
		switch {
		case c.Method == MethodFisher:
			add(WarnUnpaired, v.Name, "The arms share no judged (task, rep) pair, so they are compared unpaired (Fisher exact p, Newcombe interval) on %d vs %s; this ignores that tasks differ in difficulty and is less powerful than the paired comparison.",
				c.A.N, results.Count(c.B.N, "attempt", "attempts"))
		case c.Matched && c.UnmatchedA+c.UnmatchedB > 0:
			add(WarnNotComparable, v.Name, "The arms are not fully matched: %d %s and %d %s judged attempts in scope have no counterpart in the other arm (different task sets or reps); the paired comparison uses only the %d common pairs.",
				c.UnmatchedA, wd.Baseline, c.UnmatchedB, wd.Variant, c.Pairs)
		}
	}
	infraWarning(a, add)
	judgeWarning(a, add)
	for _, v := range a.Variants {
		if v.AA {
			continue // an A/A arm has no effect to find
		}
		if s := underpoweredText(&v.All, a.Alpha, a.Power); s != "" {
			add(WarnUnderpowered, v.Name, "%s", s)
		}
	}
	fewTasks := map[string]bool{} // variants whose few_tasks warning states the sign-flip floor
	for _, v := range a.Variants {
		if v.AA {
			continue // few_tasks, perm_floor and no_discordant are about finding an effect: an A/A arm has none
		}
		if s := fewTasksText(&v.All, a.Alpha); s != "" {
			add(WarnFewTasks, v.Name, "%s", s)
			fewTasks[v.Name] = true
		}
	}
	for _, v := range a.Variants {
		if s := differentialText(&v.All, wd); s != "" {
			add(WarnDifferentialErrors, v.Name, "%s", s)
		}
	}
	for _, v := range a.Variants {
		if s := unequalRepsText(&v.All); s != "" {
			add(WarnUnequalReps, v.Name, "%s", s)
		}
	}
	for _, v := range a.Variants {
		c := v.All
		if v.AA || !c.Matched || c.Rescued+c.Broke == 0 || c.Paired.PermFloor <= a.Alpha || fewTasks[v.Name] {
			continue // a few_tasks warning already states the floor and what it means
		}
		gp := int(math.Round(math.Log2(2 / c.Paired.PermFloor)))
		add(WarnPermFloor, v.Name, "Only %d %s changed outcome between the arms, so p_paired (the exact sign-flip p) cannot go below 2/2^%d = %s (> α = %s): with these outcomes no effect can be shown, though more reps may move more tasks.",
			gp, results.Plural(gp, "task", "tasks"), gp, stats.FmtP(c.Paired.PermFloor), stats.FmtP(a.Alpha))
	}
	hf := holmFloors(a)
	for _, v := range a.Variants {
		if s, ok := hf[v.Name]; ok {
			add(WarnHolmFloor, v.Name, "%s", s)
		}
	}
	noDiscordantWarnings(a, add)
	noTargetTaskWarnings(a, in, wd, add)
	return mergeWarnings(raw, a.Baseline, !wd.Unprefixed)
}

// availabilityWarnings are the warnings about arms without anything to compare: a baseline without records or
// judged attempts (no_baseline), a variant likewise (empty_arm).
func availabilityWarnings(a *Analysis, by map[string][]results.Attempt, wd Wording, add func(kind WarningKind, variant, format string, args ...any)) {
	if len(by[a.Baseline]) == 0 {
		add(WarnNoBaseline, "", "%s has no records: no %s can be compared with it.", wd.TheBaseline, wd.Variant)
	} else if a.BaseArm.N == 0 {
		add(WarnNoBaseline, "", "%s has no judged attempt (%s, all errors): no %s can be compared with it.",
			wd.TheBaseline, results.Count(a.BaseArm.Attempts, "record", "records"), wd.Variant)
	}
	for _, v := range a.Variants {
		if v.Arm.N == 0 {
			// Prefixed warnings of several variants merge into one line ("a, b vs base: …"), so their sentence
			// names no subject; a comparison of two runs names its side.
			switch {
			case v.Arm.Attempts == 0 && wd.Unprefixed:
				add(WarnEmptyArm, v.Name, "%s has no records: it cannot be compared.", wd.TheVariant)
			case v.Arm.Attempts == 0:
				add(WarnEmptyArm, v.Name, "No records, so nothing to compare.")
			case wd.Unprefixed:
				add(WarnEmptyArm, v.Name, "%s has no judged attempt (%d %s, all errors): it cannot be compared.", wd.TheVariant,
					v.Arm.Attempts, results.Plural(v.Arm.Attempts, "record", "records"))
			default:
				add(WarnEmptyArm, v.Name, "No judged attempt (%d %s, all errors), so nothing to compare.",
					v.Arm.Attempts, results.Plural(v.Arm.Attempts, "record", "records"))
			}
		}
	}
}

// noDiscordantWarnings are the no_discordant warnings: matched arms that agree on every pair cannot be told
// apart.
func noDiscordantWarnings(a *Analysis, add func(kind WarningKind, variant, format string, args ...any)) {
	for _, v := range a.Variants {
		c := v.All
		if !v.AA && c.Matched && c.Rescued+c.Broke == 0 {
			agree := fmt.Sprintf("all %d matched pairs", c.Pairs)
			if c.Pairs == 1 {
				agree = "their 1 matched pair"
			}
			add(WarnNoDiscordant, v.Name, "No discordant pairs: the arms agree on %s (both passed %d, both failed %d), so the run cannot tell them apart (McNemar p = 1). More reps, or tasks where the arms can differ, are needed.",
				agree, c.A.Passes, c.Pairs-c.A.Passes)
		}
	}
}

// noTargetTaskWarnings are the no_target_tasks warnings: a variant switches a guard no compared task is tagged
// with (only with in.TaskTags).
func noTargetTaskWarnings(a *Analysis, in Inputs, wd Wording, add func(kind WarningKind, variant, format string, args ...any)) {
	if in.TaskTags == nil {
		return
	}
	for _, v := range a.Variants {
		for _, g := range v.Switched {
			n := 0
			for _, id := range v.All.TaskIDs {
				if slices.Contains(in.TaskTags[id], g) {
					n++
				}
			}
			if n == 0 && v.All.G() > 0 {
				add(WarnNoTargetTasks, v.Name, "%s switches %s but no compared task is tagged with it: the guard's effect can only show on tasks that exercise it.", wd.TheVariant, g)
			}
		}
	}
}

// HolmFloor is the bound HolmFloorOf finds for one variant: compared on G
// tasks (or clusters), its exact p is at least Floor = 2/2^G, and M variants
// (itself included) have a floor at least as high, so p_holm ≥ M·Floor; Need
// is the fewest tasks at which M·2/2^G < α.
type HolmFloor struct {
	G, M, Need int
	Floor      float64
	// Unit is what G counts: "tasks", or "clusters" when the comparison is clustered (Paired.Clustered).
	Unit string
}

// HolmFloorOf returns, per matched variant that can never pass Holm's
// adjustment at this size, its bound (HolmFloor). The exact sign-flip p
// of a variant compared on G tasks (or clusters) is at least 2/2^G (its
// floor). Holm (1979) multiplies the p of rank r among K by K−r+1; at best a
// variant is ranked after every variant with a lower floor, so its multiplier
// is at least m = the number of variants whose floor is at least its own. When
// m·2/2^G ≥ α it cannot be shown different (nor fail the gate), however many
// reps. A/A arms are not in Holm's family (VariantResult.AA). m = 1 (no
// multiplicity) is left out: a floor above α alone is the few_tasks and
// perm_floor warnings' to say.
func HolmFloorOf(a *Analysis) map[string]HolmFloor {
	floors, units := map[string]float64{}, map[string]string{}
	for _, v := range a.Variants {
		if !v.All.Matched || v.AA {
			continue
		}
		g, unit := v.All.G(), "tasks"
		if v.All.Paired.Clustered {
			g, unit = v.All.Paired.C, "clusters"
		}
		floors[v.Name], units[v.Name] = 2/math.Pow(2, float64(min(g, 1000))), unit
	}
	if len(floors) < 2 {
		return nil
	}
	out := map[string]HolmFloor{}
	for name, f := range floors {
		m := 0
		for _, o := range floors {
			if o >= f {
				m++
			}
		}
		if m < 2 || float64(m)*f < a.Alpha {
			continue
		}
		out[name] = HolmFloor{G: int(math.Round(math.Log2(2 / f))), M: m, Floor: f, Unit: units[name],
			Need: int(math.Floor(math.Log2(2*float64(m)/a.Alpha))) + 1}
	}
	return out
}

// holmFloors returns the holm_floor warning text of each variant holmFloorOf
// bounds.
func holmFloors(a *Analysis) map[string]string {
	out := map[string]string{}
	for name, h := range HolmFloorOf(a) {
		one := strings.TrimSuffix(h.Unit, "s")
		out[name] = fmt.Sprintf("With %s compared, p_paired could at best reach 2/2^%d = %s (every %s moved the same way), and %d variants have a floor at least as high, so Holm's adjustment multiplies it by at least %d: p_holm ≥ %s ≥ α = %s. At this size it cannot be shown different from the baseline, nor fail the gate, however many reps; that needs at least %d %s.",
			results.Count(h.G, one, h.Unit), h.G, stats.FmtP(h.Floor), one, h.M, h.M, stats.FmtP(float64(h.M)*h.Floor), stats.FmtP(a.Alpha), h.Need, h.Unit)
	}
	return out
}

// fewTasksText is the few-tasks warning of c, or "" (G ≥ FewTasks). It
// describes the data as they are: how many tasks moved, the exact sign-flip
// floor 2/2^k that k moved tasks leave p_paired (and, when the
// floor is above alpha, that no effect can be shown: the perm_floor warning
// is then not given separately), and which interval was taken.
func fewTasksText(c *Comparison, alpha float64) string {
	if !c.Matched {
		return ""
	}
	g, unit := c.G(), "tasks"
	if c.Paired.Clustered {
		g, unit = c.Paired.C, "clusters"
	}
	pr := c.Paired
	switch {
	case c.G() == 1:
		return "Only 1 task is compared: variation across tasks cannot be estimated, so Δ's interval is the whole range [-100, +100] pts and p_paired is the sign-flip p (1); reps of one task are not independent evidence about other tasks."
	case g >= FewTasks:
		return ""
	}
	if alpha <= 0 {
		alpha = DefaultAlpha
	}
	// The floor in tasks: the task-level sign-flip p is at least 2/2^k with k the moved tasks (capped at 1); with
	// clusters, p_paired flips at most as many clusters as tasks moved, so its floor is at least as high.
	k, n := pr.Moved, c.G()
	fl := math.Min(1, 2/math.Pow(2, float64(min(k, 1000))))
	var floor string
	switch {
	case k == 0:
		floor = "no task moved, so it is 1"
	case k == 1:
		floor = fmt.Sprintf("with 1 of the %d tasks moved it is 2/2^1 = 1", n)
	case k == n:
		floor = fmt.Sprintf("with all %d tasks moved it cannot go below 2/2^%d = %s", n, k, stats.FmtP(fl))
	default:
		floor = fmt.Sprintf("with %d of the %d tasks moved it cannot go below 2/2^%d = %s", k, n, k, stats.FmtP(fl))
	}
	if fl > alpha && k == n {
		floor += fmt.Sprintf(", above α = %s: at this size no effect can be shown", stats.FmtP(alpha))
	} else if fl > alpha {
		floor += fmt.Sprintf(", above α = %s: with these outcomes no effect can be shown, though more reps may move more tasks", stats.FmtP(alpha))
	}
	ci := "the interval is the t interval on " + fmt.Sprint(pr.DF) + " degrees of freedom, rough at this size"
	if pr.CIMethod == stats.CIMethodAdjusted {
		ci = fmt.Sprintf("the interval is the adjusted Wald interval over tasks (the t interval needs %d moved tasks)",
			stats.TIntervalMinInformative)
		switch {
		case pr.SE == 0 && pr.Clustered:
			ci = fmt.Sprintf("the %d clusters have identical mean differences (%d of %d tasks moved), so the clustered SE is 0 and the interval is the adjusted Wald interval over tasks",
				pr.C, pr.Moved, c.G())
		case pr.SE == 0 && pr.Moved > 0:
			ci = fmt.Sprintf("all %d tasks have the same difference (%s pts), so the t interval is undefined and the interval is the adjusted Wald interval over tasks",
				c.G(), stats.Pts(c.Delta))
		}
	}
	return fmt.Sprintf("Only %d %s are compared (fewer than %d): p_paired is the exact sign-flip p (%s), and %s.",
		g, unit, FewTasks, floor, ci)
}

// differentialText is the differential-errors warning of c, or "" when no
// error class differs materially (Comparison.Differential).
func differentialText(c *Comparison, wd Wording) string {
	if len(c.Differential) == 0 {
		return ""
	}
	var parts []string
	for _, k := range c.Differential {
		ka, kb := c.ErrorsA[k], c.ErrorsB[k]
		parts = append(parts, fmt.Sprintf("%s errors %s %d/%d (%s), %s %d/%d (%s), Fisher p = %s", k, wd.Variant, kb,
			c.CommonPairs, stats.Pct(float64(kb)/float64(c.CommonPairs)), wd.Baseline, ka, c.CommonPairs,
			stats.Pct(float64(ka)/float64(c.CommonPairs)), stats.FmtP(stats.FisherExact(ka, c.CommonPairs, kb, c.CommonPairs))))
	}
	s := fmt.Sprintf("Errors differ between the arms on the %d common pairs (more than %.0f points apart or Fisher p < %s): %s. Pairs with an error are left out of Δ, so errors on one side can hide an effect.",
		c.CommonPairs, 100*DifferentialErrorPoints, stats.FmtP(DifferentialErrorP), strings.Join(parts, "; "))
	if b := c.Bounds; b != nil {
		s += fmt.Sprintf(" With the %d %s that errored on the %s side counted as failures there, %s; counted as passes, %s.", b.Pairs,
			results.Plural(b.Pairs, "pair", "pairs"), wd.Variant, boundText(b.AsFail), boundText(b.AsPass))
	}
	return s
}

// unequalRepsText is the unequal-reps warning of c, or "": tasks with
// different numbers of matched reps, or a task-weighted Δ whose sign
// disagrees with the pooled rates'.
func unequalRepsText(c *Comparison) string {
	if !c.Matched {
		return ""
	}
	pr := c.Paired
	pooled := c.B.Rate - c.A.Rate
	disagree := (c.Delta > 1e-12 && pooled < -1e-12) || (c.Delta < -1e-12 && pooled > 1e-12)
	if pr.RepsMin == pr.RepsMax && !disagree {
		return ""
	}
	s := fmt.Sprintf("Tasks have %d to %d matched reps: Δ = %s pts weighs every task alike (the mean of per-task differences), while the pooled rates (%s → %s, %s pts) and McNemar (rescued %d, broke %d) weigh every attempt, so tasks with more reps count more there.",
		pr.RepsMin, pr.RepsMax, stats.Pts(c.Delta), pct1(c.A.Rate), pct1(c.B.Rate), stats.Pts(pooled), c.Rescued, c.Broke)
	if pr.RepsMin == pr.RepsMax {
		s = fmt.Sprintf("Δ = %s pts (the mean of per-task differences) and the pooled rates (%s → %s, %s pts) disagree in sign.",
			stats.Pts(c.Delta), pct1(c.A.Rate), pct1(c.B.Rate), stats.Pts(pooled))
	}
	if disagree {
		s += " Here they disagree in sign: read Δ as the effect on a typical task, not on a typical attempt."
	}
	return s
}

// pct1 formats a rate as a percentage with one decimal ("52.6%").
func pct1(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// mergeWarnings joins identical warnings of several variants ("a, b vs base:
// …" when prefix), keeping the order of first appearance.
func mergeWarnings(raw []rawWarning, baseline string, prefix bool) []Warning {
	var out []Warning
	pos := map[[2]string]int{}
	for _, r := range raw {
		key := [2]string{string(r.kind), r.body}
		if i, ok := pos[key]; ok && r.variant != "" && len(out[i].Variants) > 0 {
			out[i].Variants = append(out[i].Variants, r.variant)
			continue
		}
		w := Warning{Kind: r.kind, Text: r.body}
		if r.variant != "" {
			w.Variants = []string{r.variant}
		}
		pos[key] = len(out)
		out = append(out, w)
	}
	for i := range out {
		if prefix && len(out[i].Variants) > 0 {
			out[i].Text = strings.Join(out[i].Variants, ", ") + " vs " + baseline + ": " + out[i].Text
		}
	}
	return out
}

// infraWarning warns about arms with more than InfraWarnFraction of their
// attempts lost to infra errors.
func infraWarning(a *Analysis, add func(kind WarningKind, variant, format string, args ...any)) {
	var parts []string
	for _, arm := range a.Arms {
		k := arm.ErrorsByClass[string(results.ClassInfra)]
		if arm.Attempts > 0 && float64(k) > InfraWarnFraction*float64(arm.Attempts) {
			parts = append(parts, fmt.Sprintf("%s %d/%d (%.0f%%)", arm.Name, k, arm.Attempts, 100*float64(k)/float64(arm.Attempts)))
		}
	}
	if len(parts) == 0 {
		return
	}
	dropped := 0
	for _, v := range a.Variants {
		dropped += v.All.DroppedByClass[string(results.ClassInfra)]
	}
	add(WarnInfraErrors, "", "Infrastructure errors in more than %.0f%% of attempts: %s. They are excluded from the denominators (never counted as agent failures), and %d %s with an infra error on either side %s dropped from the paired comparisons. Re-run the spec to retry them (a resumed run re-runs error ids).",
		100*InfraWarnFraction, strings.Join(parts, ", "), dropped, results.Plural(dropped, "pair", "pairs"), results.Plural(dropped, "was", "were"))
}

// judgeWarning reports attempts the judge was uncertain about and those it could not verify.
func judgeWarning(a *Analysis, add func(kind WarningKind, variant, format string, args ...any)) {
	total := 0
	var parts []string
	for _, arm := range a.Arms {
		if k := arm.ErrorsByClass[string(results.ClassJudge)]; k > 0 {
			total += k
			parts = append(parts, fmt.Sprintf("%s %d", arm.Name, k))
		}
	}
	unsure := 0
	var uparts []string
	for _, arm := range a.Arms {
		if k := arm.ErrorsByClass[string(results.ClassUncertain)]; k > 0 {
			unsure += k
			uparts = append(uparts, fmt.Sprintf("%s %d", arm.Name, k))
		}
	}
	if unsure > 0 {
		add(WarnJudgeUncertain, "", "The judge was uncertain about %d %s (%s): the answer matched its rule but also stated other candidates or negated it; %s excluded from the denominators and from the paired comparisons, never counted as a pass; decide %s with `bench judge DIR --judge answer --judge-model openai:NAME`.",
			unsure, results.Plural(unsure, "attempt", "attempts"), strings.Join(uparts, ", "), results.Plural(unsure, "it is", "they are"), results.Plural(unsure, "it", "them"))
	}
	if total == 0 {
		return
	}
	add(WarnJudgeErrors, "", "The judge could not verify %d %s (%s): %s excluded from the denominators and from the paired comparisons; re-score with `bench judge`.",
		total, results.Plural(total, "attempt", "attempts"), strings.Join(parts, ", "), results.Plural(total, "it is", "they are"))
}

// underpoweredText is the underpowered warning of STATS.md §5 for c, or ""
// when c is significant, has no planned effect, or has enough power.
func underpoweredText(c *Comparison, alpha, power float64) string {
	pw := c.Power
	if c.Method == MethodNone || !pw.HasEffect || pw.N < 1 || c.P < alpha || !(pw.Power < power) {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "With %s per arm at %s %s base failure rate", results.Count(pw.N, "run", "runs"), article(stats.Pct(pw.From)), stats.Pct(pw.From))
	lead := ", power"
	if pw.From > 0 && pw.PZero > alpha {
		lead = ". Power"
		clean := "so even a clean 0/%d would not be significant"
		if c.B.N > 0 && c.B.Passes == c.B.N {
			clean = "so a clean 0/%d is not significant"
		}
		fmt.Fprintf(&b, ", P(0 failures by chance) = %s^%d ≈ %.3f, "+clean, num4(1-pw.From), pw.N, pw.PZero, pw.N)
		if pw.MinRunsZero > 0 {
			fmt.Fprintf(&b, " (0/n is significant at α = %s only for n ≥ %d here)", stats.FmtP(alpha), pw.MinRunsZero)
		}
	}
	if c.Matched {
		reps := fmt.Sprintf("%.1f", pw.Reps)
		if pw.Reps == math.Trunc(pw.Reps) {
			reps = fmt.Sprintf("%.0f", pw.Reps)
		}
		fmt.Fprintf(&b, "%s of the paired task-level test to detect %s→%s is ≈%.2f with %d %s × %s %s", lead,
			stats.Pct(pw.From), stats.Pct(pw.To), pw.Power, pw.G, results.Plural(pw.G, "task", "tasks"), reps, results.Plural(int(math.Ceil(pw.Reps)), "rep", "reps"))
		if pw.TasksFor > 0 {
			fmt.Fprintf(&b, " and ≈%.2f with %d %s at the same reps", pw.PowerAtTasksFor, pw.TasksFor, results.Plural(pw.TasksFor, "task", "tasks"))
		} else {
			fmt.Fprintf(&b, "; reaching %.0f%% would take more than %d tasks at these reps", 100*power, maxPlanTasks)
		}
	} else {
		fmt.Fprintf(&b, "%s of the unpaired Fisher test to detect %s→%s is ≈%.2f at %d runs per arm", lead, stats.Pct(pw.From),
			stats.Pct(pw.To), pw.Power, pw.N)
	}
	b.WriteString(".")
	if !math.IsNaN(pw.MDE) {
		fmt.Fprintf(&b, " The smallest drop in pass rate this run detects with %.0f%% power is ≈%.0f points.", 100*power, 100*pw.MDE)
	}
	b.WriteString(" Treat this as inconclusive, not as evidence either way.")
	return b.String()
}

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
