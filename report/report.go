package report

// Terminal and Markdown reports of an Analysis. Both print the warnings
// first, then the same tables (built once here, rendered by results.Table).

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"webbench/analysis"
	"webbench/results"
	"webbench/stats"
)

// ReportTables returns the tables every report shows, in order: a sequential run's decisions (SeqTable), the per-arm
// summary, the model cache's account (ModelCacheTable, when the run had one), the per-variant comparison with the baseline (one row per variant
// on all common tasks, followed by its target-task rows), the paired cost
// outcomes (when some variant has one), the guard
// mechanism table (per guard and arm: attempts it fired in, how many of
// those passed, events) and the failure modes per arm. Empty mechanism
// tables (no guard event, no failure mode) are left out.
func ReportTables(a *analysis.Analysis) []ReportTable {
	var out []ReportTable
	if a.Sequential != nil {
		out = append(out, SeqTable(a))
	}
	out = append(out, armsTable(a))
	if t := ModelCacheTable(a.Arms); len(t.Rows) > 0 {
		out = append(out, t)
	}
	out = append(out, comparisonTable(a))
	if t := costTable(a, AblationCostWording()); len(t.Rows) > 0 {
		out = append(out, t)
	}
	if t := diagnosticsTable(a); len(t.Rows) > 0 {
		out = append(out, t)
	}
	if t := guardTable(a); len(t.Rows) > 0 {
		out = append(out, t)
	}
	if t := failureModeTable(a); len(t.Rows) > 0 {
		out = append(out, t)
	}
	return out
}

// TerminalReport writes the report for a terminal: the warnings in plain
// words, the environment's flake rate of each same-seed A/A arm, then the tables of ReportTables (tablewriter), the notes of any
// statistical fallback, and the gate verdict when Analysis.FailIfWorse > 0. Its lines are as long as they need
// (TerminalReportWidth wraps the prose).
func TerminalReport(w io.Writer, a *analysis.Analysis) error { return TerminalReportWidth(w, a, 0) }

// TerminalReportWidth is TerminalReport (`bench report --wide`) with its prose — header, warnings, flake lines,
// table notes, statistical notes, gate verdict — wrapped at width runes (a hanging indent), while the tables stay
// as wide as they need; width ≤ 0 leaves every line whole.
func TerminalReportWidth(w io.Writer, a *analysis.Analysis, width int) error {
	return TerminalReportWhy(w, a, nil, width)
}

// TerminalReportWhy is TerminalReportWidth with the headlines (Headlines, with the top causes of why; nil: none)
// after the header and the warnings grouped by cause (GroupWarnings).
func TerminalReportWhy(w io.Writer, a *analysis.Analysis, why *analysis.Why, width int) error {
	line := func(s, first, rest string) {
		if width <= 0 {
			fmt.Fprintln(w, first+s)
			return
		}
		printWrapped(w, s, first, rest, width)
	}
	line(fmt.Sprintf("Ablation: %s against the baseline arm %q (α = %s, power %.0f%%; p_holm is Holm-adjusted over the variants%s).",
		ArmsCount(a), a.Baseline, stats.FmtP(a.Alpha), 100*a.Power, aaApart(a)), "", "")
	fmt.Fprintln(w)
	line(HeadlineTitleOf(a), "", "  ")
	for _, h := range Headlines(a, why) {
		line(h, "  ", "      ")
	}
	if len(a.Warnings) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "WARNINGS")
		for _, g := range GroupWarnings(AnalysisWarnings(a)) {
			line(g.Line(TestedVariants(a))+":", "  ", "    ")
			for _, t := range g.Texts {
				line(t, "  ! ", "    ")
			}
		}
	}
	if len(a.Flake) > 0 {
		fmt.Fprintln(w)
		for _, f := range a.Flake {
			line(FlakeLine(f), "", "  ")
		}
	}
	for _, t := range ReportTables(a) {
		fmt.Fprintln(w)
		if t.Title != "" && width > 0 {
			line(t.Title, "", "  ") // the title is prose; the table stays as wide as it needs
			t.Title = ""
		}
		if err := renderTerminal(w, t); err != nil {
			return err
		}
		if t.Note != "" {
			line(t.Note, "", "")
		}
	}
	if notes := StatNotes(a); len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			line("note: "+n, "", "  ")
		}
	}
	if a.FailIfWorse > 0 {
		fmt.Fprintln(w)
		line(GateLine(a), "", "  ")
	}
	if len(a.FailIfCostlier) > 0 {
		fmt.Fprintln(w)
		line(CostGateLine(a), "", "  ")
	}
	return nil
}

// MarkdownReport writes the report as GitHub-flavoured Markdown, fit for a PR
// comment or $GITHUB_STEP_SUMMARY: a heading, the warnings as a list, the
// flake rate of each same-seed A/A arm, the tables of ReportTables, notes and the gate verdict.
func MarkdownReport(w io.Writer, a *analysis.Analysis) error { return MarkdownReportWhy(w, a, nil) }

// MarkdownReportWhy is MarkdownReport led by the headlines (Headlines, with the top causes of why; nil: none),
// its warnings grouped by cause (GroupWarnings): one line per cause, the sentences in a collapsed block.
func MarkdownReportWhy(w io.Writer, a *analysis.Analysis, why *analysis.Why) error {
	fmt.Fprintf(w, "## Ablation: %s vs baseline `%s`\n\n", ArmsCount(a), mdCode(a.Baseline))
	fmt.Fprintf(w, "α = %s, power %.0f%%; Δ = p_variant − p_baseline in percentage points with its 95%% interval; "+
		"p_paired is the paired test over tasks, p_holm its Holm adjustment over the variants.\n\n", stats.FmtP(a.Alpha), 100*a.Power)
	fmt.Fprintf(w, "**%s**\n\n", mdText(HeadlineTitleOf(a)))
	for _, h := range Headlines(a, why) {
		fmt.Fprintf(w, "- %s\n", mdText(h))
	}
	fmt.Fprintln(w)
	if len(a.Warnings) > 0 {
		groups := GroupWarnings(AnalysisWarnings(a))
		fmt.Fprintln(w, "> [!WARNING]")
		for _, g := range groups {
			fmt.Fprintf(w, "> - %s\n", mdText(g.Line(TestedVariants(a))))
		}
		fmt.Fprintf(w, "\n<details><summary>The warnings in full (%d causes)</summary>\n\n", len(groups))
		for _, g := range groups {
			for _, t := range g.Texts {
				fmt.Fprintf(w, "- %s\n", mdText(t))
			}
		}
		fmt.Fprint(w, "\n</details>\n\n")
	}
	for _, f := range a.Flake {
		fmt.Fprintf(w, "**%s**\n\n", mdText(FlakeLine(f)))
	}
	for _, t := range ReportTables(a) {
		t.Table().Markdown(w)
		if t.Note != "" {
			fmt.Fprintf(w, "_%s_\n\n", mdText(t.Note))
		}
	}
	if notes := StatNotes(a); len(notes) > 0 {
		for _, n := range notes {
			fmt.Fprintf(w, "- %s\n", mdText(n))
		}
		fmt.Fprintln(w)
	}
	if a.FailIfWorse > 0 {
		fmt.Fprintf(w, "**%s**\n", mdText(GateLine(a)))
	}
	if len(a.FailIfCostlier) > 0 {
		fmt.Fprintf(w, "\n**%s**\n", mdText(CostGateLine(a)))
	}
	return nil
}

// mdText neutralises characters that would start Markdown/HTML markup in
// free text (record contents are not trusted).
func mdText(s string) string {
	r := strings.NewReplacer("<", "&lt;", ">", "&gt;", "\n", " ")
	return r.Replace(s)
}

func mdCode(s string) string { return strings.ReplaceAll(s, "`", "'") }

// StatNotes collects the plain-words notes of statistical fallbacks
// (PairedNote), one per distinct comparison, then the note on the
// variants whose interval excludes 0 while p_holm does not reach α
// (disagreeNote): the wide terminal, Markdown and HTML reports' notes.
func StatNotes(a *analysis.Analysis) []string {
	var out []string
	for _, v := range a.Variants {
		for _, c := range append([]analysis.Comparison{v.All}, v.Targets...) {
			if note := PairedNote(&c.Paired, c.ClusterUnit); c.Matched && note != "" {
				out = append(out, fmt.Sprintf("%s (%s): %s", v.Name, ScopeLabel(&v, &c), note))
			}
		}
	}
	if n := disagreeNote(a); n != "" {
		out = append(out, n)
	}
	return out
}

// ReportTable is one table of a report with an optional footnote.
type ReportTable struct {
	Title  string
	Header []string
	Rows   [][]string
	// Note is printed under the table.
	Note string
}

// renderTerminal prints t with tablewriter, its headers verbatim
// (results.Table.Render lets tablewriter upper-case headers and turn "_"
// into spaces, which would misname arms such as no_repeat_guard).
func renderTerminal(w io.Writer, t ReportTable) error {
	return results.Table{Title: t.Title, Header: t.Header, Rows: t.Rows}.Render(w)
}

// Table converts t to a results.Table (Render for terminals, Markdown).
func (t ReportTable) Table() results.Table {
	return results.Table{Title: t.Title, Header: t.Header, Rows: t.Rows}
}

func armsTable(a *analysis.Analysis) ReportTable {
	t := ReportTable{Title: "Arms", Header: []string{"arm", "model", "attempts", "judged", "passes", "pass rate [Wilson 95%]",
		"± SE (clustered)", "errors", "tasks", "mean steps (own tasks)", "mean tokens (own tasks)", "tokens per pass (own tasks)", "cost",
		"mean wall (own tasks)"}}
	for i, arm := range a.Arms {
		name := arm.Name
		if i == 0 && name != "baseline" {
			name += " (baseline)"
		}
		se := "-"
		if !math.IsNaN(arm.ClusteredSE) && arm.N > 0 {
			se = fmt.Sprintf("%.1f pts", 100*arm.ClusteredSE)
		}
		t.Rows = append(t.Rows, []string{name, modelCell(arm.Model), fmt.Sprint(arm.Attempts), fmt.Sprint(arm.N), fmt.Sprint(arm.Passes),
			rateCell(arm.Passes, arm.N, arm.Rate, arm.Wilson), se, errorsCell(arm), armTasksCell(arm, a.ClusterUnit),
			meanCell(arm, "%.1f", arm.MeanSteps), meanCell(arm, "%.0f", arm.MeanTokens), tokensPerPassCell(arm),
			fmt.Sprintf("$%.4f", arm.CostUSD), meanCell(arm, "%.1fs", arm.MeanWallMS/1000)})
	}
	t.Note = "Errors (infra, judge) are excluded from \"judged\" and from every rate. Mean tokens: over judged " +
		"attempts; tokens per pass: over passed attempts (prompt + completion). Each arm's means cover its own " +
		"tasks (a variant's scope may be fewer): compare costs in the paired cost table, not across these rows."
	return t
}

// meanCell is x, a mean over the arm's judged attempts, in format; "-" when the arm has none (the mean is
// undefined, not 0).
func meanCell(arm analysis.Arm, format string, x float64) string {
	if arm.N == 0 {
		return "-"
	}
	return fmt.Sprintf(format, x)
}

// rateCell is "k/n = rate% [lo, hi]", or "0/0 = n/a" when no attempt was judged (the rate is undefined).
func rateCell(k, n int, rate float64, w [2]float64) string {
	if n == 0 {
		return "0/0 = n/a"
	}
	return fmt.Sprintf("%d/%d = %.1f%% [%.1f, %.1f]", k, n, 100*rate, 100*w[0], 100*w[1])
}

func errorsCell(arm analysis.Arm) string {
	if arm.Errors == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", arm.Errors, countsString(arm.ErrorsByClass))
}

// ArmsCount counts the arms compared with the baseline: "3 variants", or "1 variant and 2 A/A controls"
// (VariantResult.AA: not variants under test, not in Holm's family).
func ArmsCount(a *analysis.Analysis) string {
	n, aa := 0, 0
	for _, v := range a.Variants {
		if v.AA {
			aa++
		} else {
			n++
		}
	}
	s := results.Count(n, "variant", "variants")
	if aa > 0 {
		s += " and " + results.Count(aa, "A/A control", "A/A controls")
	}
	return s
}

// aaApart is the header's note that A/A controls are outside Holm's family ("" without one).
func aaApart(a *analysis.Analysis) string {
	for _, v := range a.Variants {
		if v.AA {
			return ", A/A controls apart"
		}
	}
	return ""
}

// ScopeLabel names the task set of a comparison; an A/A arm's says it is a control and of which kind.
func ScopeLabel(v *analysis.VariantResult, c *analysis.Comparison) string {
	switch v.AAKind {
	case results.AASameSeed:
		return "A/A control: same seeds"
	case results.AAOtherSeeds:
		return "A/A control: other seeds"
	}
	if c.Guard != "" {
		return "target: " + c.Guard + " (secondary)"
	}
	if v.Scope != nil {
		return "variant scope"
	}
	return "all common"
}

// clusteredRun reports whether some comparison of a tests over clusters (the families): its task-level tests
// (p_perm, McNemar by task) then move from the main table to the diagnostics, labelled as task-level.
func clusteredRun(a *analysis.Analysis) bool {
	for vi := range a.Variants {
		for _, c := range append([]analysis.Comparison{a.Variants[vi].All}, a.Variants[vi].Targets...) {
			if c.Matched && c.Paired.Clustered {
				return true
			}
		}
	}
	return false
}

func comparisonTable(a *analysis.Analysis) ReportTable {
	clustered := clusteredRun(a)
	h := []string{"variant", "scope", "tasks (informative)", "baseline", "variant", "Δ pts [95% CI]", "p_paired"}
	if !clustered {
		h = append(h, "p_perm")
	}
	h = append(h, "p_holm")
	if a.BH {
		h = append(h, "p_bh")
	}
	if !clustered {
		h = append(h, "McNemar by task (Durkalski)")
	}
	h = append(h, "MDE", "power")
	if a.FailIfWorse > 0 {
		h = append(h, "gate")
	}
	h = append(h, "verdict")
	t := ReportTable{Title: "Variants vs " + a.Baseline, Header: h}
	for vi := range a.Variants {
		v := &a.Variants[vi]
		for ci, c := range append([]analysis.Comparison{v.All}, v.Targets...) {
			holm, bh := stats.FmtP(v.PHolm), stats.FmtP(v.PBH)
			gate := "ok"
			switch {
			case v.AA:
				gate = "A/A: not gated"
			case v.GateFails(a.FailIfWorse, a.Alpha):
				gate = "FAIL"
			}
			if ci > 0 {
				holm, bh, gate = stats.FmtP(c.PHolm)+" (targets)", "-", "-"
			}
			row := []string{v.Name, ScopeLabel(v, &c), fmt.Sprintf("%d (%d)", c.G(), c.Informative),
				countCell(c.A), countCell(c.B), deltaCell(&c), pPairedCell(&c)}
			if !clustered {
				row = append(row, pPermCell(&c))
			}
			row = append(row, holm)
			if a.BH {
				row = append(row, bh)
			}
			mde, power := mdeCell(&c), powerCell(&c)
			if v.AA {
				mde, power = "-", "-" // a control has no effect to find
			}
			if !clustered {
				row = append(row, mcnemarCell(&c))
			}
			row = append(row, mde, power)
			if a.FailIfWorse > 0 {
				row = append(row, gate)
			}
			verdict := "-" // target rows are secondary: no verdict
			if ci == 0 {
				verdict = Verdict(a, v)
			}
			t.Rows = append(t.Rows, append(row, verdict))
		}
	}
	t.Note = fmt.Sprintf("Δ = p_variant − p_baseline on matched (task, rep) pairs: the mean over tasks of the per-task mean difference; "+
		"its interval is the t interval from %d moved units on, else the adjusted Wald interval over the units (marked \"adj.\"); the units are the tasks, or the %[3]s when tasks share them. "+
		"p_paired is the exact sign-flip p over the units, valid at every size. %[4]sTarget rows (scope \"target: GUARD\") are secondary: their p_holm is Holm-adjusted "+
		"over all target rows, and the gate never uses them. Below %[1]d moved units the interval and p_paired are different methods and can "+
		"disagree (an interval that excludes 0 with p above α): decisions use p_holm. MDE and power are those of the primary paired test "+
		"as run (simulated on this run's units, reps, per-unit rates and pairing; Fisher when unpaired) at the level the verdict "+
		"needs: α divided by the smallest multiplier Holm's adjustment can apply to the variant (the variants whose exact floor "+
		"2/2^G is at least its own): MDE = smallest "+
		"pass-rate drop detectable with %.0f%% power (n/a when none is, as when that multiplier times 2/2^G is at least α); "+
		"power = to detect the planned change (min_effect, the pass-rate change in the power column's cell), not the change observed. The verdict is the "+
		"compact report's words for the primary row (p_holm against α), with why when no difference is shown.", stats.TIntervalMinInformative, 100*a.Power,
		unitWord(2, a.ClusterUnit), mcnemarNote(a, clustered))
	return t
}

// mcnemarNote words where the task-level McNemar is: in the main table, or with the run clustered, in the
// diagnostics beside p_perm (the primary test is then the one over the clusters, analysis.PairedTestName).
func mcnemarNote(a *analysis.Analysis, clustered bool) string {
	if clustered {
		return "p_paired is the " + analysis.PairedTestName(a.ClusterUnit) + "; the " +
			analysis.PairedTestName(analysis.UnitTask) + " (p_perm) and McNemar by task take a " + a.ClusterUnit +
			"'s tasks as independent and are in the Diagnostics table. "
	}
	return "McNemar by task is Durkalski's cluster-adjusted McNemar with the exact sign-flip reference: rescued = " +
		"baseline failed and variant passed, broke = the reverse. "
}

// diagnosticsTable holds the tests that treat the attempts of a task as
// independent (exact McNemar pooled over reps; CMH with --cmh): with
// correlated reps (a deterministic model, same-seed pairs) their p-values
// are too small (McNemar rejected 0.29 of A/A runs with sticky
// reps, R = 5, in the calibration suite), so they stay out of the main table.
//
// With the run clustered, the task-level tests of the main table join them (clusteredRun): they take a family's
// tasks as independent, and rejected 0.05–0.40 of A/A runs with correlated instances (CALIBRATION.md
// "Clustered designs", p_perm (tasks)).
func diagnosticsTable(a *analysis.Analysis) ReportTable {
	clustered := clusteredRun(a)
	h := []string{"variant", "scope"}
	if clustered {
		h = append(h, "p_perm (task-level)", "McNemar by task (task-level)")
	}
	h = append(h, "McNemar pooled over reps")
	if a.CMH {
		h = append(h, "p_cmh")
	}
	title := "Diagnostics (assume independent attempts; not valid when reps of a task are correlated)"
	if clustered {
		title = "Diagnostics (assume independent tasks or attempts; not valid when the tasks of a " + a.ClusterUnit +
			" or the reps of a task are correlated)"
	}
	t := ReportTable{Title: title, Header: h}
	for vi := range a.Variants {
		v := &a.Variants[vi]
		for _, c := range append([]analysis.Comparison{v.All}, v.Targets...) {
			if !c.Matched {
				continue
			}
			row := []string{v.Name, ScopeLabel(v, &c)}
			if clustered {
				row = append(row, pPermCell(&c), mcnemarCell(&c))
			}
			row = append(row, fmt.Sprintf("p=%s; rescued %d, broke %d", stats.FmtP(c.PMcNemar), c.Rescued, c.Broke))
			if a.CMH {
				row = append(row, cmhCell(&c))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	t.Note = "These p-values pool the reps of a task as if independent; use p_paired for decisions."
	if clustered {
		t.Note = "The task-level columns are the " + analysis.PairedTestName(analysis.UnitTask) + " (p_perm) and " +
			"Durkalski's McNemar by task: they take the tasks of a " + a.ClusterUnit + " as independent, which its " +
			"instances are not. The pooled McNemar and CMH also take the reps of a task as independent. Use p_paired " +
			"(over the " + unitWord(2, a.ClusterUnit) + ") for decisions."
	}
	return t
}

func countCell(c analysis.Counts) string {
	if c.N == 0 {
		return "0/0"
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", c.Passes, c.N, 100*c.Rate)
}

func deltaCell(c *analysis.Comparison) string {
	if c.Method == analysis.MethodNone {
		return "-"
	}
	cell := fmt.Sprintf("%s [%s, %s]", stats.Pts(c.Delta), stats.Pts(c.CI[0]), stats.Pts(c.CI[1]))
	if c.Matched && c.Paired.CIMethod == stats.CIMethodAdjusted {
		cell += " adj."
	}
	return cell
}

func pPairedCell(c *analysis.Comparison) string {
	switch c.Method {
	case analysis.MethodPairedSignFlip:
		if c.Paired.Clustered {
			return fmt.Sprintf("%s (sign-flip, %s)", stats.FmtP(c.P), unitCount(c.Paired.C, c.ClusterUnit))
		}
		return stats.FmtP(c.P) + " (sign-flip)"
	case analysis.MethodFisher:
		return stats.FmtP(c.P) + " (Fisher, unpaired)"
	}
	return "-"
}

func pPermCell(c *analysis.Comparison) string {
	if !c.Matched {
		return "-"
	}
	return fmt.Sprintf("%s (floor %s)", stats.FmtP(c.Paired.PPerm), stats.FmtP(c.Paired.PermFloor))
}

// cmhCell is the Cochran–Mantel–Haenszel p across tasks (Inputs.CMH).
func cmhCell(c *analysis.Comparison) string {
	if c.CMH == nil {
		return "-"
	}
	return fmt.Sprintf("%s (%d %s)", stats.FmtP(c.CMH.P), c.CMH.Strata, results.Plural(c.CMH.Strata, "stratum", "strata"))
}

func mcnemarCell(c *analysis.Comparison) string {
	if !c.Matched {
		return "-"
	}
	return fmt.Sprintf("p=%s; rescued %d, broke %d", stats.FmtP(c.PMcNemarClustered), c.Rescued, c.Broke)
}

// mdeCell is the MDE the verdict answers for (PowerAnalysis.AdjustedMDE): "40 pts", "n/a (none reachable)"
// when the power analysis ran and no drop up to the whole pass rate is detectable, "-" when none was computed.
func mdeCell(c *analysis.Comparison) string {
	mde := c.Power.AdjustedMDE()
	switch {
	case math.IsNaN(mde) && c.Power.Test != "":
		return "n/a (none reachable)"
	case math.IsNaN(mde):
		return "-"
	}
	return fmt.Sprintf("%.0f pts", 100*mde)
}

// powerCell is the power the verdict answers for (PowerAnalysis.AdjustedPower) with the planned pass rates.
func powerCell(c *analysis.Comparison) string {
	p := c.Power
	pw := p.AdjustedPower()
	if !p.HasEffect || math.IsNaN(pw) {
		return "-"
	}
	out := fmt.Sprintf("%.2f (pass %s→%s)", pw, stats.Pct(1-p.From), stats.Pct(1-p.To))
	if p.MayOverstate() {
		out += fmt.Sprintf("; may overstate by up to %.2f (strong within-%s correlation, CALIBRATION.md)",
			analysis.PowerOverstatement, p.Unit)
	}
	return out
}

// guardNames lists every guard seen in any arm, sorted.
func guardNames(a *analysis.Analysis) []string {
	set := map[string]bool{}
	for _, arm := range a.Arms {
		for g, n := range arm.GuardEvents {
			if n > 0 {
				set[g] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func guardTable(a *analysis.Analysis) ReportTable {
	t := ReportTable{Title: "Mechanism: guard activity per arm", Header: []string{"guard"}}
	for _, arm := range a.Arms {
		t.Header = append(t.Header, arm.Name)
	}
	switched := map[string][]string{}
	for _, v := range a.Variants {
		switched[v.Name] = v.Switched
	}
	for _, g := range guardNames(a) {
		row := []string{g}
		for _, arm := range a.Arms {
			row = append(row, guardCell(arm, g, slices.Contains(switched[arm.Name], g)))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Note = "Cells: attempts the guard acted in / judged attempts, how many of those passed, and its event count; " +
		"\"switched, no event\" in an arm that switches the guard relative to the baseline (off, in a leave-one-out " +
		"ablation), \"no event\" where it could act and never did."
	return t
}

// guardCell is guard g's activity in arm: "fired in k/n (p passed), e events", or, with no event, "switched, no
// event" when the arm switches g relative to the baseline (switched) and "no event" otherwise.
func guardCell(arm analysis.Arm, g string, switched bool) string {
	ev := arm.GuardEvents[g]
	if ev == 0 && switched {
		return "switched, no event"
	}
	if ev == 0 {
		return "no event"
	}
	return fmt.Sprintf("fired in %d/%d (%d passed), %d %s", arm.GuardFired[g], arm.N, arm.GuardFiredPass[g], ev,
		results.Plural(ev, "event", "events"))
}

func failureModeTable(a *analysis.Analysis) ReportTable {
	t := ReportTable{Title: "Mechanism: failure modes per arm", Header: []string{"failure mode"}}
	set := map[string]bool{}
	for _, arm := range a.Arms {
		t.Header = append(t.Header, arm.Name)
		for m, n := range arm.FailureModes {
			if n > 0 {
				set[m] = true
			}
		}
	}
	for _, m := range slices.Sorted(maps.Keys(set)) {
		row := []string{m}
		for _, arm := range a.Arms {
			row = append(row, fmt.Sprint(arm.FailureModes[m]))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
