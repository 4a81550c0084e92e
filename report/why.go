package report

// The words of the divergence analysis (analysis.Why): one line per cause group, the same in every format.

import (
	"fmt"
	"io"
	"strings"

	"webbench/analysis"
	"webbench/results"
)

// WhyLine is one cause group in words.
type WhyLine struct {
	// Variant is the group's variant; Group its index in the variant's analysis.VariantWhy.Groups.
	Variant string
	Group   int
	// Outcome is the group's pair outcome; Text the line.
	Outcome analysis.PairOutcome
	Text    string
}

// WhyPart is the divergence analysis of a report in words: Moved the lines of the discordant pairs' causes,
// Cost those of the pairs whose cost differs materially, Noise the share of discordant pairs that diverged
// before any guard acted ("" when there is no discordant pair), Note what "materially" means.
type WhyPart struct {
	Moved, Cost []WhyLine
	Noise, Note string
	// Unread says how many examined pairs had a trajectory that could not be read (a run written without
	// them), "" when none.
	Unread string
}

// Titles of the part's two lists.
const (
	WhyMovedTitle = "Why pairs moved (the first step where each discordant pair's trajectories differ, grouped by cause)"
	WhyCostTitle  = "Where the cost went (pairs with the same outcome whose cost differs materially)"
)

// Empty reports whether the part has nothing to show.
func (p WhyPart) Empty() bool { return len(p.Moved) == 0 && len(p.Cost) == 0 && p.Unread == "" }

// NewWhyPart words w; armA names the side every variant is compared with (the baseline arm, or "run A").
// Nil w gives an empty part.
func NewWhyPart(w *analysis.Why, armA string) WhyPart {
	var p WhyPart
	if w == nil {
		return p
	}
	disc, unguarded, unread := 0, 0, 0
	for _, v := range w.Variants {
		disc, unguarded, unread = disc+v.Discordant, unguarded+v.Unguarded, unread+v.Unread
		total := map[analysis.PairOutcome]int{}
		for _, g := range v.Groups {
			total[g.Outcome] += len(g.Pairs)
		}
		for gi, g := range v.Groups {
			l := WhyLine{Variant: v.Variant, Group: gi, Outcome: g.Outcome, Text: whyText(v, g, total[g.Outcome], armA)}
			if g.Outcome.Discordant() {
				p.Moved = append(p.Moved, l)
			} else {
				p.Cost = append(p.Cost, l)
			}
		}
	}
	if disc > 0 {
		p.Noise = fmt.Sprintf("Diverged before any guard acted: %d of %d discordant pairs (%.0f%%): pairs a guard did not move, "+
			"a measure of how much of Δ is the page's timing or the model's sampling.", unguarded, disc, 100*float64(unguarded)/float64(disc))
	}
	if unread > 0 {
		p.Unread = fmt.Sprintf("%d pairs that moved or cost materially more or less have no readable trajectory: why they did is not known.", unread)
	}
	p.Note = fmt.Sprintf("A pair's cost differs materially when its steps differ by %d or more, or its tokens by %.0f%% or more.",
		w.MaterialSteps, 100*(w.MaterialTokenRatio-1))
	return p
}

// outcomeVerbs word a group's outcome with the variant's count of such pairs.
var outcomeVerbs = map[analysis.PairOutcome]string{
	analysis.OutcomeBroke:    "broke %d",
	analysis.OutcomeFixed:    "fixed %d",
	analysis.OutcomeCostlier: "cost more on %d",
	analysis.OutcomeCheaper:  "cost less on %d",
}

// kindWords say what the arm that went wrong met, by raw result kind.
var kindWords = map[results.ResultKind]string{
	results.KindIntercepted:    "a click on a covered control",
	results.KindStaleRef:       "a stale ref",
	results.KindEvaluateCutOff: "an evaluate that hung",
	results.KindEmptySnapshot:  "a page with no interactive ref",
	results.KindError:          "a failed call",
	results.KindOK:             "a successful call",
	results.KindAnswer:         "a reply",
	results.KindNone:           "the end of its steps",
}

// whyText is one group's line: "no_intercept_hint broke 8: 8 diverge at a click on a covered control
// (browser_click, the first in 8; baseline: intercept_hint condensed, 394 B shown; variant: 2,415 B) → 6
// intercepted, 2 max_steps".
func whyText(v analysis.VariantWhy, g analysis.CauseGroup, total int, armA string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d ", v.Variant, fmt.Sprintf(outcomeVerbs[g.Outcome], total), len(g.Pairs))
	switch {
	case g.Guard == "":
		b.WriteString("diverged before a guard acted in one arm only, at ")
	case len(g.Pairs) == 1:
		b.WriteString("diverges at ")
	default:
		b.WriteString("diverge at ")
	}
	b.WriteString(kindWords[g.Kind])
	var where []string
	for _, c := range g.Where {
		w := strings.ReplaceAll(c.Name, "_", " ")
		if c.Name != analysis.WhereObservation && c.Name != analysis.WhereEnd && c.Name != analysis.WhereReply {
			w = c.Name
		}
		if len(g.Where) > 1 {
			w += fmt.Sprintf(" %d", c.N)
		}
		where = append(where, w)
	}
	if g.FirstCall > 0 {
		where = append(where, fmt.Sprintf("the first such call in %d", g.FirstCall))
	}
	fmt.Fprintf(&b, " (%s; %s)", strings.Join(where, ", "), armsAt(g, v.Variant, armA))
	if g.Outcome.Discordant() {
		b.WriteString(" → " + countList(g.Endings))
	} else {
		fmt.Fprintf(&b, " → %+d steps", g.ExtraSteps)
		if len(g.SpentOn) > 0 {
			b.WriteString(", on " + countList(g.SpentOn))
		}
	}
	return b.String()
}

// armsAt words the two arms at the group's divergence: the guard event in the arm it acted in, and each arm's
// median model-facing bytes there.
func armsAt(g analysis.CauseGroup, variant, armA string) string {
	side := func(name, arm string, bytes int) string {
		s := name + ": "
		if g.ActedIn == arm {
			s += g.Guard + " " + g.Action + ", "
		}
		return s + fmtBytes(bytes)
	}
	return side(armA, "a", g.ABytes) + "; " + side(variant, "b", g.BBytes)
}

// fmtBytes words a byte count: "394 B", "2.4 KB", "1.2 MB" (powers of 1000).
func fmtBytes(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// countList words counts as "6 intercepted, 2 max_steps".
func countList(cs []analysis.Count) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%d %s", c.N, c.Name)
	}
	return strings.Join(parts, ", ")
}

// WriteText writes the part for a terminal (width > 0 wraps each line there) or as Markdown (md): a title and
// a list per non-empty list, the noise line and the note. Nothing for an empty part.
func (p WhyPart) WriteText(w io.Writer, md bool, width int) {
	if p.Empty() {
		return
	}
	list := func(title string, ls []WhyLine) {
		if len(ls) == 0 {
			return
		}
		if md {
			fmt.Fprintf(w, "\n### %s\n\n", mdText(title))
			for _, l := range ls {
				fmt.Fprintf(w, "- %s\n", mdText(l.Text))
			}
			return
		}
		fmt.Fprintln(w)
		WriteWrapped(w, title+":", "", "  ", width)
		for _, l := range ls {
			WriteWrapped(w, l.Text, "  • ", "    ", width)
		}
	}
	if p.Unread != "" {
		if md {
			fmt.Fprintf(w, "\n%s\n", mdText(p.Unread))
		} else {
			fmt.Fprintln(w)
			WriteWrapped(w, p.Unread, "", "  ", width)
		}
	}
	list(WhyMovedTitle, p.Moved)
	if p.Noise != "" {
		if md {
			fmt.Fprintf(w, "\n%s\n", mdText(p.Noise))
		} else {
			WriteWrapped(w, p.Noise, "  ", "  ", width)
		}
	}
	list(WhyCostTitle, p.Cost)
	if len(p.Cost) > 0 {
		if md {
			fmt.Fprintf(w, "\n%s\n", mdText(p.Note))
		} else {
			WriteWrapped(w, p.Note, "  ", "  ", width)
		}
	}
}

// ComparePart is the divergence part of a comparison of two runs (RunComparison.Why), run B's pairs against
// run A's: its new failures (broke), fixes and materially costlier or cheaper pairs.
func ComparePart(c *analysis.RunComparison) WhyPart { return NewWhyPart(c.Why, c.Analysis.Baseline) }

// Lines are the part's texts in order: the moved lines, the noise line, the cost lines and the note (when
// there are cost lines), for formats that print paragraphs.
func (p WhyPart) Lines() []string {
	var out []string
	if p.Unread != "" {
		out = append(out, p.Unread)
	}
	for _, l := range p.Moved {
		out = append(out, l.Text)
	}
	if p.Noise != "" {
		out = append(out, p.Noise)
	}
	for _, l := range p.Cost {
		out = append(out, l.Text)
	}
	if len(p.Cost) > 0 {
		out = append(out, p.Note)
	}
	return out
}

// VariantLines are the part's lines of one variant, moved then cost.
func (p WhyPart) VariantLines(variant string) []string {
	var out []string
	for _, ls := range [][]WhyLine{p.Moved, p.Cost} {
		for _, l := range ls {
			if l.Variant == variant {
				out = append(out, l.Text)
			}
		}
	}
	return out
}

// AblationWhy writes an ablation report's divergence part (WhyPart of r.Why) in a text format: the terminal's
// lines wrapped at o.Width, or Markdown (md).
func AblationWhy(w io.Writer, md bool, o RenderOptions, r *AblationReport) {
	width := o.Width
	if md {
		width = 0
	}
	NewWhyPart(r.Why, r.Analysis.Baseline).WriteText(w, md, width)
}
