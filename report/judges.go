package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"webbench/analysis"
	"webbench/results"
	"webbench/stats"
)

// The judges part of a report (analysis.Judges), worded once for every format (JudgesPart): the verdicts by
// judge, every two judges' agreement and the Zoo Q&A ground truth as tables, and the attempt ids of the
// disagreements as notes.

// boundedRate is a pass-rate cell's suffix for uncertain attempts: " (N decided of M: lo–hi%)", "" when none.
func boundedRate(passes, decided, uncertain int) string {
	if uncertain == 0 {
		return ""
	}
	b := analysis.NewPassBounds(passes, decided, uncertain)
	return fmt.Sprintf(" (%d decided of %d: %.1f–%.1f%%)", decided, decided+uncertain, 100**b.RateUncertainFail,
		100**b.RateUncertainPass)
}

// kappaText is κ for a title: "0.400 (SE 0.130)", or why it is undefined.
func kappaText(ag analysis.JudgeAgreement) string {
	switch {
	case ag.N == 0:
		return "undefined (no attempt decided by both)"
	case ag.Kappa == nil:
		return "undefined (a judge gave the same verdict every time)"
	}
	return fmt.Sprintf("%.3f (SE %.3f)", *ag.Kappa, *ag.SE)
}

// SkippedText says how many attempts an agreement skipped and why.
func SkippedText(d analysis.JudgeAgreement) string {
	return fmt.Sprintf("%d skipped: %d missing a verdict, %d uncertain, %s", d.Skipped,
		d.SkippedMissingA+d.SkippedMissingB, d.SkippedUncertain, results.Count(d.SkippedJudgeError, "judge error", "judge errors"))
}

// agreementTable is the confusion table of d: rows judge A (labelled a), columns judge B (labelled b).
func agreementTable(title, a, b string, d analysis.JudgeAgreement) results.Table {
	return results.Table{Title: title, Header: []string{"", b + " pass", b + " fail"},
		Rows: [][]string{{a + " pass", fmt.Sprint(d.BothPass), fmt.Sprint(d.APassBFail)},
			{a + " fail", fmt.Sprint(d.AFailBPass), fmt.Sprint(d.BothFail)}}}
}

// AgreementTable is the confusion table of two judges' agreement d, titled with the attempts it compared, those
// it skipped and Cohen's κ.
func AgreementTable(d analysis.JudgeAgreement) results.Table {
	return agreementTable(fmt.Sprintf("agreement %s vs %s over %s (%s); Cohen's κ = %s",
		d.JudgeA, d.JudgeB, results.Count(d.N, "attempt", "attempts"), SkippedText(d), kappaText(d)), d.JudgeA, d.JudgeB, d)
}

// verdictsTable is the verdicts by judge: each judge's attempts, pass rate (with its uncertain bounds),
// uncertain verdicts and judge errors; the run's own judge's name lists the judges that gave its verdicts.
func verdictsTable(js []analysis.VerdictCounts) results.Table {
	t := results.Table{Title: "verdicts by judge (an uncertain verdict is neither pass nor fail: the bounds count the " +
		"uncertain as fails / as passes)", Header: []string{"judge", "attempts", "pass rate", "uncertain", "judge errors"}}
	for _, j := range js {
		rate := "0/0 = n/a"
		if j.Rate != nil {
			rate = fmt.Sprintf("%d/%d = %.1f%%", j.Passes, j.Decided, 100**j.Rate)
		}
		name := j.Judge
		if len(j.JudgedBy) > 0 {
			var by []string
			for _, k := range slices.Sorted(maps.Keys(j.JudgedBy)) {
				by = append(by, fmt.Sprintf("%s %d", k, j.JudgedBy[k]))
			}
			name += " (" + strings.Join(by, ", ") + ")"
		}
		t.Rows = append(t.Rows, []string{name, fmt.Sprint(j.Attempts), rate + boundedRate(j.Passes, j.Decided, j.Uncertain),
			fmt.Sprint(j.Uncertain), fmt.Sprint(j.JudgeErrors)})
	}
	return t
}

// JudgesPart is the judges part of a report as every format shows it, in order: Tables, then Notes (lines of
// plain text). The html format renders both, the junit format writes them to a testsuite's system-out
// (WriteText), the table and md formats print them (RunWithJudges, AblationJudges).
type JudgesPart struct {
	Tables []results.Table
	Notes  []string
}

// Empty reports whether p shows nothing: one judge's verdicts and no Zoo Q&A attempt.
func (p JudgesPart) Empty() bool { return len(p.Tables) == 0 && len(p.Notes) == 0 }

// WriteText writes p's tables in full (results.Table.Render) and its notes, each line whole.
func (p JudgesPart) WriteText(w io.Writer) error {
	return writeTextTables(w, false, RenderOptions{Wide: true}, p.Tables, p.Notes)
}

// NewJudgesPart is the judges part of doc: the verdicts by judge and every agreement when the run has more than
// one judge's verdicts, and the Zoo Q&A ground-truth comparison when it has Zoo Q&A attempts; the notes are the
// line said instead of that table when its verdicts are missing (naming the bench judge commands on the run
// directory dir), or the attempt ids of its false passes and of its false fails.
func NewJudgesPart(dir string, doc *analysis.Judges) JudgesPart {
	var p JudgesPart
	if len(doc.Judges) > 1 {
		p.Tables = append(p.Tables, verdictsTable(doc.Judges))
	}
	for _, d := range doc.Agreement {
		p.Tables = append(p.Tables, AgreementTable(d))
	}
	for _, jc := range doc.Corrected {
		p.Tables = append(p.Tables, CorrectedTable(jc))
	}
	gt := doc.ZooQA
	if gt == nil {
		return p
	}
	head := "answer judge vs state judge (ground truth) on Zoo Q&A: " + results.Count(gt.Attempts, "attempt", "attempts")
	if len(gt.MissingVerdicts) > 0 {
		var cmds []string
		for _, n := range gt.MissingVerdicts {
			cmds = append(cmds, fmt.Sprintf("bench judge %s --judge %s", dir, n))
		}
		p.Notes = append(p.Notes, fmt.Sprintf("%s; no verdicts of %s yet: run %s", head, strings.Join(gt.MissingVerdicts, ", "),
			strings.Join(cmds, " and ")))
		return p
	}
	source := strings.Join(gt.Source, "; ")
	if len(gt.Source) == 2 && gt.Source[0] == "answer: "+analysis.OwnVerdicts && gt.Source[1] == "state: "+analysis.OwnVerdicts {
		source = "both judges: " + analysis.OwnVerdicts
	}
	p.Tables = append(p.Tables, agreementTable(fmt.Sprintf("%s (%s), %d compared (%s); Cohen's κ = %s; %s "+
		"(answer pass, state fail), %s (answer fail, state pass); %d of the both-fail never answered",
		head, source, gt.N, SkippedText(gt.JudgeAgreement), kappaText(gt.JudgeAgreement),
		results.Count(gt.FalsePass, "false pass", "false passes"), results.Count(gt.FalseFail, "false fail", "false fails"),
		gt.BothFailNoAnswer), "answer", "state", gt.JudgeAgreement))
	for _, l := range []struct {
		what string
		ids  []string
	}{{"false passes", gt.FalsePassIDs}, {"false fails", gt.FalseFailIDs}} {
		if len(l.ids) > 0 {
			p.Notes = append(p.Notes, fmt.Sprintf("Zoo Q&A %s (answer judge vs state judge): %s", l.what, strings.Join(l.ids, ", ")))
		}
	}
	return p
}

// writeTextTables writes tables and then notes: as Markdown tables when md, else (the table format) the full
// tables with o.Wide (their titles and the notes wrapped at the width), or tables and notes fitted to o.Width
// (FitTable, WriteWrapped).
func writeTextTables(w io.Writer, md bool, o RenderOptions, tables []results.Table, notes []string) error {
	for _, x := range tables {
		switch {
		case md:
			x.Markdown(w)
		case o.Wide:
			// The table as wide as it needs, its title (prose) wrapped at the width.
			if x.Title != "" && o.Width > 0 {
				WriteWrapped(w, x.Title, "", "  ", o.Width)
				x.Title = ""
			}
			if err := x.Render(w); err != nil {
				return err
			}
		default:
			if err := FitTable(w, x, o.Width); err != nil {
				return err
			}
		}
	}
	if len(notes) == 0 {
		return nil
	}
	note := strings.Join(notes, "\n")
	if md || o.Width <= 0 {
		_, err := fmt.Fprintln(w, note)
		return err
	}
	WriteWrapped(w, note, "", "  ", o.Width)
	return nil
}

// RunWithJudges writes a plain run's report with its judges part (r.Judges, when set) in a text format: the
// variants table with every pass rate of a variant with uncertain attempts followed by its bounds, the model
// cache's account when the run had one (ModelCacheTable), then the judges' tables.
func RunWithJudges(w io.Writer, md bool, o RenderOptions, r *RunReport) error {
	tables, notes := RunTables(r)
	if r.Judges != nil {
		p := NewJudgesPart(r.Dir, r.Judges)
		tables, notes = append(tables, p.Tables...), append(notes, p.Notes...)
	}
	return writeTextTables(w, md, o, tables, notes)
}

// RunTables are a plain run's own tables: the variants (RunTable, with r.Bounds when the report has a judges
// part, whose uncertain verdicts the bounds are about) and, when some arm ran with the model cache, its account
// (ModelCacheTable) with its note.
func RunTables(r *RunReport) ([]results.Table, []string) {
	bounds := r.Bounds
	if r.Judges == nil {
		bounds = nil
	}
	tables := []results.Table{RunTable(r.Arms, bounds)}
	mc := ModelCacheTable(r.Arms)
	if len(mc.Rows) == 0 {
		return tables, nil
	}
	return append(tables, results.Table{Title: mc.Title, Header: mc.Header, Rows: mc.Rows}), []string{mc.Note}
}

// AblationJudges writes an ablation report's judges part after its analysis in a text format; the table format
// (not md) sets it apart from the analysis above it with an empty line.
func AblationJudges(w io.Writer, md bool, o RenderOptions, r *AblationReport) error {
	if r.Judges == nil {
		return nil
	}
	p := NewJudgesPart(r.Dir, r.Judges)
	if !md && !p.Empty() {
		fmt.Fprintln(w)
	}
	return writeTextTables(w, md, o, p.Tables, p.Notes)
}

// CorrectedTable is the table of one judge's pass rates corrected by the audit (analysis.JudgeCorrection): per
// arm the attempts judged, how many audited, the judge's own rate, the corrected rate and, for a variant, its Δ
// against the baseline, each with its 95 % interval.
func CorrectedTable(jc analysis.JudgeCorrection) results.Table {
	t := results.Table{
		Title: fmt.Sprintf("pass rates of the %s verdicts corrected for judge error by the audit (%s, %s; prediction-powered "+
			"inference, Angelopoulos et al. 2023: the judge's rate plus its mean error on the audit; the 95%% intervals "+
			"include the audit's uncertainty; uncertain verdicts and judge errors count as 0.5)", jc.Judge, jc.Source,
			results.Count(jc.Audit, "trusted verdict", "trusted verdicts")),
		Header: []string{"variant", "attempts", "audited", "judge's rate", "corrected rate [95% CI]", "Δ vs " + baselineOf(jc) + " [95% CI]"},
	}
	delta := map[string]analysis.CorrectedDelta{}
	for _, d := range jc.Deltas {
		delta[d.Variant] = d
	}
	for _, a := range jc.Arms {
		rate, d := "n/a (nothing audited)", ""
		if a.Rate.OK {
			rate = fmt.Sprintf("%.1f%% [%.1f, %.1f]", 100*a.Rate.Est, 100*a.Rate.Lo, 100*a.Rate.Hi)
		}
		if cd, ok := delta[a.Variant]; ok {
			d = "n/a"
			if cd.Delta.Why == stats.PPIAuditTooSmall {
				d = "n/a (fewer than 2 audited in an arm)"
			}
			if cd.Delta.OK {
				d = fmt.Sprintf("%+.1f pp [%+.1f, %+.1f]", 100*cd.Delta.Est, 100*cd.Delta.Lo, 100*cd.Delta.Hi)
			}
		}
		t.Rows = append(t.Rows, []string{a.Variant, fmt.Sprint(a.Attempts), fmt.Sprint(a.Audited),
			fmt.Sprintf("%.1f%%", 100*a.JudgeRate), rate, d})
	}
	return t
}

func baselineOf(jc analysis.JudgeCorrection) string {
	if len(jc.Deltas) > 0 {
		return jc.Deltas[0].Baseline
	}
	return "baseline"
}
