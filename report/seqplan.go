package report

import (
	"fmt"
	"io"
	"strings"

	"webbench/analysis"
	"webbench/results"
	"webbench/stats"
)

// SeqPowerPlan writes bench power --sequential's plan p: the answer in one sentence (SeqConclusionText), the
// designs compared, a table of the attempts (fixed,
// sequential maximum, expected and 90th percentile) with the units a variant runs, the power of both designs
// and the shares of the sequential decisions.
func SeqPowerPlan(w io.Writer, p analysis.SeqPlan) error {
	d := p.Design
	src := "mix " + p.Baseline.Mix
	if p.Baseline.Dir != "" {
		src = fmt.Sprintf("per-task rates of arm %s in %s (%d tasks, shrunk toward the mean)", p.Baseline.Arm,
			p.Baseline.Dir, p.Baseline.Tasks)
	}
	futility := "off"
	if p.Seq.MinEffect > 0 {
		futility = fmt.Sprintf("stop when a drop of %.1f pts or more is excluded", 100*p.Seq.MinEffect)
	}
	scale := fmt.Sprintf("the share of the %d units", p.Seq.MaxUnits)
	if p.Seq.Info > 0 {
		scale = fmt.Sprintf("the information Σd² (planned %.3g over %d units)", p.Seq.Info, p.Seq.MaxUnits)
	}
	fmt.Fprintf(w, "%s\n\n", strings.Join(wrap("Answer: "+SeqConclusionText(p), "", "  ", 116), "\n"))
	fmt.Fprintf(w, "Sequential design: group-sequential, %s spending on %s, a look after every unit that moved; "+
		"repeated intervals on %s boundaries over the units; Holm across %d variant(s) at α = %.3g; futility %s.\n",
		p.Seq.Spending, scale, stats.SeqIntervalSpending, p.Seq.Variants, p.Seq.Alpha, futility)
	fmt.Fprintf(w, "Baseline: %s; pairing %s (share %.2f); every variant at Δ %+.1f pts; %d simulated runs (seed %d).\n\n",
		src, d.Model, d.Share, 100*p.Effect, p.Sims, p.Seed)
	t := results.Table{Header: []string{"quantity", "fixed", "sequential"}}
	add := func(k, f, s string) { t.Rows = append(t.Rows, []string{k, f, s}) }
	add("attempts (all arms), maximum", fmt.Sprint(p.FixedAttempts), fmt.Sprint(p.MaxAttempts))
	add("attempts, expected", fmt.Sprint(p.FixedAttempts), fmt.Sprintf("%.0f (%.0f%% fewer)", p.ExpectedAttempts,
		100*(1-p.ExpectedAttempts/float64(max(1, p.FixedAttempts)))))
	add("attempts, 90th percentile", fmt.Sprint(p.FixedAttempts), fmt.Sprint(p.P90Attempts))
	add("units per variant, expected", fmt.Sprint(p.Seq.MaxUnits), fmt.Sprintf("%.1f", p.ExpectedUnits))
	label := "power (decided worse)"
	switch {
	case p.Effect > 0:
		label = "power (decided better)"
	case p.Effect == 0:
		label = "false efficacy stops (no effect)"
	}
	add(label, fmt.Sprintf("%.3f", p.PowerFixed), fmt.Sprintf("%.3f", p.PowerSeq))
	if err := t.Render(w); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nSequential decisions: worse %.3f, better %.3f, futile %.3f, undecided at the end %.3f.\n",
		p.Worse, p.Better, p.Futile, p.Undecided)
	return err
}
