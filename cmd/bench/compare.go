package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"webbench/ablation"
	"webbench/results"
	"webbench/runner"
)

func init() { extraCommands = append(extraCommands, compareCmd) }

// taskDiff is one task's change between two runs.
type taskDiff struct {
	Task   string  `json:"task"`
	PassA  int     `json:"passes_a"`
	NA     int     `json:"n_a"`
	PassB  int     `json:"passes_b"`
	NB     int     `json:"n_b"`
	Change string  `json:"change"` // new_failure | fixed | better | worse | same | only_a | only_b
	Delta  float64 `json:"delta"`
}

// comparison is the JSON of bench compare (documented in the README, "bench compare").
type comparison struct {
	SchemaVersion int    `json:"schema_version"`
	RunA          string `json:"run_a"`
	RunB          string `json:"run_b"`
	// Variant is run A's variant and VariantB run B's (the same unless --variant-b).
	Variant  string `json:"variant"`
	VariantB string `json:"variant_b"`
	// RateA/RateB and NA/NB are over every judged attempt of the variant in each run.
	RateA float64 `json:"rate_a"`
	RateB float64 `json:"rate_b"`
	NA    int     `json:"n_a"`
	NB    int     `json:"n_b"`
	// Method is how Delta, DeltaCI and P were computed: paired_t or paired_signflip when the runs share
	// (pair_id, seed) pairs (ablation.PairedDiff over tasks, STATS.md §2), fisher when they share none
	// (Newcombe interval, Fisher exact p).
	Method  string     `json:"method"`
	Delta   float64    `json:"delta"`
	DeltaCI [2]float64 `json:"delta_ci"`
	P       float64    `json:"p"`
	// Pairs is the number of matched (task, rep) pairs judged in both runs, PairsPassA/PairsPassB the passes
	// among them in each run (0 when unpaired); TasksCompared the tasks they
	// cover; Informative those where the runs differ in at least one rep. Rescued (A fail, B pass) and
	// Broke (A pass, B fail) are the discordant pairs, PMcNemar their exact McNemar p (secondary).
	Pairs         int      `json:"pairs"`
	PairsPassA    int      `json:"pairs_pass_a"`
	PairsPassB    int      `json:"pairs_pass_b"`
	TasksCompared int      `json:"tasks_compared"`
	Informative   int      `json:"informative_tasks"`
	Rescued       int      `json:"rescued"`
	Broke         int      `json:"broke"`
	PMcNemar      *float64 `json:"p_mcnemar"` // null when unpaired
	// UnmatchedA/UnmatchedB count judged attempts without a counterpart (other tasks, reps or seeds);
	// DroppedPairs the common pairs dropped because either side ended in an error.
	UnmatchedA   int `json:"unmatched_a"`
	UnmatchedB   int `json:"unmatched_b"`
	DroppedPairs int `json:"dropped_pairs"`
	// SeedMismatches counts matched pairs whose two attempts ran with different seeds (runs made with another
	// --seed): still paired over tasks, without shared randomness.
	SeedMismatches int `json:"seed_mismatches"`
	// MDE is the smallest pass-rate change (a proportion) this comparison detects with 80% power at α = 0.05:
	// the paired-t one over tasks when the method is paired_t, else the unpaired one at the observed base rate
	// and N (ablation.PowerAnalysis); null when undefined or above 1 (no change is detectable at this size).
	MDE *float64 `json:"mde"`
	// PFisher is the two-sided Fisher exact p over every judged attempt (unpaired), always given.
	PFisher     float64    `json:"p_fisher"`
	NewFailures []string   `json:"new_failures"`
	Fixed       []string   `json:"fixed"`
	Tasks       []taskDiff `json:"tasks"`
	// Differences lists what differs between the runs' records of the variant (model, guards, base seed), in
	// plain words; empty when nothing recorded differs (an A/A comparison).
	Differences []string `json:"differences"`
	// Warnings are the plain-words sample-size and data warnings of the analysis (STATS.md §5), with run A as
	// the baseline and run B as the variant.
	Warnings []string `json:"warnings"`
	// Gate is the --fail-if-worse verdict (null without the flag).
	Gate *compareGate `json:"gate"`
	// noMDE: the MDE exceeds 100 points (no change detectable; MDE is then null).
	noMDE bool
}

// compareGate is the verdict of --fail-if-worse: Failed when Δ < −Margin, DeltaCI[1] < 0 and P < 0.05
// (ablation.GateFails); Why says which condition decided, in plain words.
type compareGate struct {
	Margin float64 `json:"margin"`
	Failed bool    `json:"failed"`
	Why    string  `json:"why"`
}

func compareCmd() *cobra.Command {
	var format, variant, variantB string
	var failIfWorse float64
	c := &cobra.Command{
		Use:   "compare RUN_A RUN_B",
		Short: "What changed between two runs: new failures, fixed tasks, pass-rate change with its interval",
		Long: "Compares one variant (default: the baseline of an ablation, or the only variant) per task and overall.\n" +
			"When the runs share (task, rep) pairs (same suite, tasks and reps), the comparison is paired: Δ = mean\n" +
			"over tasks of the per-task change in pass rate, t interval over tasks (paired_t), or the exact sign-flip p\n" +
			"when every task moved alike (paired_signflip), and McNemar on the discordant pairs (STATS.md §2). The\n" +
			"same --seed adds shared randomness and power. Without common pairs: Δ = rate_B − rate_A with a Newcombe\n" +
			"interval and a Fisher exact p. Refuses runs of different schema versions.",
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			if c.Flags().Changed("fail-if-worse") {
				if err := checkMargin(failIfWorse); err != nil {
					return err
				}
			}
			sets := [2][]results.Attempt{}
			var seeds [2]int64
			for i, d := range args {
				var m runner.Manifest
				if err := readJSON(d+"/"+results.ManifestFile, &m); err != nil {
					return usageErr("%s: not a run directory: %v", d, err)
				}
				if m.SchemaVersion != results.SchemaVersion {
					return usageErr("%s has schema_version %d but %s has %d: runs of different schema versions cannot be compared",
						args[i], m.SchemaVersion, "this bench", results.SchemaVersion)
				}
				rr, err := results.ReadAttempts(d)
				if err != nil {
					return usageErr("%v", err)
				}
				sets[i] = rr.Final()
				seeds[i] = m.Plan.BaseSeed
			}
			v := variant
			if v == "" {
				v = pickVariant(args[0], sets[0])
			}
			vb := variantB
			if vb == "" {
				vb = v
			}
			for i, name := range []string{v, vb} {
				if names := variantNames(sets[i]); !names[name] {
					flag := map[int]string{0: "--variant", 1: "--variant-b (run B's variant, default: --variant)"}[i]
					return usageErr("%s has no variant %q (it has: %s); choose one with %s", args[i], name, joinKeys(names), flag)
				}
			}
			if vb != v {
				// Compare run B's variant vb as if it were v: pairs match on pair_id, which has no variant in it.
				relabeled := make([]results.Attempt, 0, len(sets[1]))
				for _, r := range sets[1] {
					if r.Variant == vb {
						r.Variant = v
					} else if r.Variant == v {
						r.Variant = "\x00other:" + r.Variant
					}
					relabeled = append(relabeled, r)
				}
				sets[1] = relabeled
			}
			cmp := compareRuns(sets[0], sets[1], v)
			cmp.VariantB = vb
			cmp.RunA, cmp.RunB = args[0], args[1]
			cmp.Differences = differences(sets[0], sets[1], v, seeds)
			if sameDir(args[0], args[1]) {
				cmp.Warnings = append([]string{"Run A and run B are the same directory: every pair agrees by construction."}, cmp.Warnings...)
			}
			if failIfWorse > 0 {
				if cmp.Method == ablation.MethodFisher {
					return usageErr("--fail-if-worse: %s and %s share no task judged in both (%s; %d common pair(s) "+
						"dropped for errors), so Δ would compare different tasks; a gate needs runs of the same tasks "+
						"(same suite, --tasks and --reps)", args[0], args[1], strings.Join(cmp.Differences, "; "), cmp.DroppedPairs)
				}
				cmp.Gate = gateVerdict(cmp, failIfWorse)
			}
			if cmp.NA == 0 || cmp.NB == 0 {
				return withCode(exitInfra, fmt.Errorf("variant %q has no judged attempt in %s: nothing to compare",
					v, map[bool]string{true: args[0], false: args[1]}[cmp.NA == 0]))
			}
			switch format {
			case "json":
				enc := json.NewEncoder(c.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(cmp); err != nil {
					return err
				}
			case "md", "markdown":
				writeWarnings(c.OutOrStdout(), cmp, true)
				summaryTable(cmp).Markdown(c.OutOrStdout())
				taskTable(cmp).Markdown(c.OutOrStdout())
				writeFooter(c.OutOrStdout(), cmp, true)
			case "table", "":
				writeWarnings(c.OutOrStdout(), cmp, false)
				if err := summaryTable(cmp).Render(c.OutOrStdout()); err != nil {
					return err
				}
				if err := taskTable(cmp).Render(c.OutOrStdout()); err != nil {
					return err
				}
				writeFooter(c.OutOrStdout(), cmp, false)
			default:
				return usageErr("--format %q: expected table, md or json", format)
			}
			if cmp.Gate != nil && cmp.Gate.Failed {
				return &exitError{exitGate, fmt.Errorf("--fail-if-worse %.3f: %s", failIfWorse, cmp.Gate.Why)}
			}
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "table", "table, md or json")
	c.Flags().StringVar(&variant, "variant", "", "variant to compare (default: run A's ablation baseline, or its first variant)")
	c.Flags().StringVar(&variantB, "variant-b", "", "run B's variant when it has another name (e.g. an ablation's baseline vs a plain run's default)")
	c.Flags().Float64Var(&failIfWorse, "fail-if-worse", 0, "exit 1 when RUN_B's Δ is below −MARGIN (a proportion in (0, 1): 0.05 = 5 points) with its whole 95% interval below zero and p < 0.05")
	return c
}

func pickVariant(dir string, recs []results.Attempt) string {
	if m, err := results.ReadManifest(dir); err == nil && m.Plan.Ablation != nil {
		return m.Plan.Baseline
	}
	if len(recs) > 0 {
		return recs[0].Variant
	}
	return ""
}

func compareRuns(a, b []results.Attempt, variant string) comparison {
	type acc struct{ k, n int }
	per := [2]map[string]*acc{{}, {}}
	var tot [2]acc
	for i, recs := range [2][]results.Attempt{a, b} {
		for _, r := range recs {
			if r.Variant != variant || !r.Done() {
				continue
			}
			x := per[i][r.TaskID]
			if x == nil {
				x = &acc{}
				per[i][r.TaskID] = x
			}
			x.n++
			tot[i].n++
			if r.Status == results.StatusPass {
				x.k++
				tot[i].k++
			}
		}
	}
	cmp := comparison{SchemaVersion: results.SchemaVersion, Variant: variant, NA: tot[0].n, NB: tot[1].n,
		NewFailures: []string{}, Fixed: []string{}}
	if tot[0].n > 0 {
		cmp.RateA = float64(tot[0].k) / float64(tot[0].n)
	}
	if tot[1].n > 0 {
		cmp.RateB = float64(tot[1].k) / float64(tot[1].n)
	}
	cmp.PFisher = 1
	if tot[0].n > 0 && tot[1].n > 0 {
		cmp.PFisher = ablation.FisherExact(tot[0].k, tot[0].n, tot[1].k, tot[1].n)
	}
	pairedStats(&cmp, a, b, variant)
	ids := map[string]bool{}
	for i := range per {
		for id := range per[i] {
			ids[id] = true
		}
	}
	var sorted []string
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	for _, id := range sorted {
		x, y := per[0][id], per[1][id]
		d := taskDiff{Task: id}
		switch {
		case x == nil:
			d.Change, d.PassB, d.NB = "only_b", y.k, y.n
		case y == nil:
			d.Change, d.PassA, d.NA = "only_a", x.k, x.n
		default:
			d.PassA, d.NA, d.PassB, d.NB = x.k, x.n, y.k, y.n
			ra, rb := float64(x.k)/float64(x.n), float64(y.k)/float64(y.n)
			d.Delta = rb - ra
			switch {
			case ra == 1 && rb < 1:
				d.Change = "new_failure"
				cmp.NewFailures = append(cmp.NewFailures, id)
			case ra < 1 && rb == 1:
				d.Change = "fixed"
				cmp.Fixed = append(cmp.Fixed, id)
			case rb > ra:
				d.Change = "better"
			case rb < ra:
				d.Change = "worse"
			default:
				d.Change = "same"
			}
		}
		cmp.Tasks = append(cmp.Tasks, d)
	}
	return cmp
}

// Arm names of the two runs inside the paired analysis.
const (
	armA = "run A"
	armB = "run B"
)

// pairedStats fills the primary statistics of cmp with ablation.Analyze, the analysis of bench ablate: run A is
// the baseline arm and run B the variant. Attempts pair on pair_id (suite, task, rep). A pair whose two attempts
// ran with different seeds is still a pair — tasks are the unit of analysis, and the per-task difference stays
// valid — but it is counted in SeedMismatches and warned about, since it lacks the shared randomness that
// makes same-seed pairs agree.
func pairedStats(cmp *comparison, a, b []results.Attempt, variant string) {
	seedA := map[string]string{}
	var recs []results.Attempt
	for _, r := range a {
		if r.Variant == variant {
			seedA[r.PairID] = seedKey(r.Seed)
			r.Variant = armA
			recs = append(recs, r)
		}
	}
	for _, r := range b {
		if r.Variant == variant {
			if s, ok := seedA[r.PairID]; ok && s != seedKey(r.Seed) && r.Done() {
				cmp.SeedMismatches++
			}
			r.Variant = armB
			recs = append(recs, r)
		}
	}
	an := ablation.Analyze(recs, ablation.Inputs{Baseline: armA, Variants: []string{armB}})
	c := an.Variants[0].All
	cmp.Method, cmp.Delta, cmp.DeltaCI, cmp.P = c.Method, c.Delta, c.CI, c.P
	if c.Matched {
		cmp.PairsPassA, cmp.PairsPassB = c.A.Passes, c.B.Passes
	}
	cmp.Pairs, cmp.TasksCompared, cmp.Informative = c.Pairs, c.G(), c.Informative
	cmp.Rescued, cmp.Broke = c.Rescued, c.Broke
	if c.Matched && !math.IsNaN(c.PMcNemar) {
		p := c.PMcNemar
		cmp.PMcNemar = &p
	}
	mde := c.Power.MDE
	if c.Method == ablation.MethodPairedT && !math.IsNaN(c.Power.MDETasks) {
		mde = c.Power.MDETasks
	}
	if !math.IsNaN(mde) && !math.IsInf(mde, 0) {
		cmp.MDE = &mde
	}
	cmp.noMDE = cmp.MDE != nil && *cmp.MDE > 1
	if cmp.noMDE {
		cmp.MDE = nil // no change in pass rate is detectable at this size
	}
	cmp.UnmatchedA, cmp.UnmatchedB, cmp.DroppedPairs = c.UnmatchedA, c.UnmatchedB, c.DroppedPairs
	cmp.Warnings = []string{}
	if cmp.SeedMismatches > 0 {
		cmp.Warnings = append(cmp.Warnings, fmt.Sprintf("%d of %d pairs ran with different seeds (runs made with another --seed): "+
			"the comparison stays paired over tasks, but the two attempts of a pair did not see the same randomness, so it "+
			"has less power than same-seed pairs; re-run B with A's --seed to compare like for like.", cmp.SeedMismatches, c.Pairs))
	}
	for _, w := range an.Warnings {
		cmp.Warnings = append(cmp.Warnings, runWords(w.Text))
	}
}

// runWords rewords an ablation warning for two runs: "run B vs run A: …", "baseline"/"variant" → run A/run B.
func runWords(s string) string {
	s = strings.TrimPrefix(s, armB+" vs "+armA+": ")
	s = strings.ReplaceAll(s, "baseline and", "run A and")
	s = strings.ReplaceAll(s, "variant judged", "run B judged")
	s = strings.ReplaceAll(s, "the baseline", "run A")
	s = strings.ReplaceAll(s, "The variant", "Run B")
	return s
}

// differences names what differs between the two runs' records of variant: model, each guard's setting, and
// the base seed of the plans.
func differences(a, b []results.Attempt, variant string, seeds [2]int64) []string {
	type conf struct {
		models map[string]bool
		guards map[string]map[bool]bool
	}
	collect := func(recs []results.Attempt) conf {
		c := conf{models: map[string]bool{}, guards: map[string]map[bool]bool{}}
		for _, r := range recs {
			if r.Variant != variant {
				continue
			}
			c.models[r.Model] = true
			for g, on := range r.Guards {
				if c.guards[g] == nil {
					c.guards[g] = map[bool]bool{}
				}
				c.guards[g][on] = true
			}
		}
		return c
	}
	ca, cb := collect(a), collect(b)
	out := []string{}
	if ma, mb := joinKeys(ca.models), joinKeys(cb.models); ma != mb {
		out = append(out, fmt.Sprintf("model %s → %s", ma, mb))
	}
	onOff := func(m map[bool]bool) string {
		switch {
		case m[true] && m[false]:
			return "mixed"
		case m[true]:
			return "on"
		case m[false]:
			return "off"
		}
		return "absent"
	}
	names := map[string]bool{}
	for g := range ca.guards {
		names[g] = true
	}
	for g := range cb.guards {
		names[g] = true
	}
	for _, g := range strings.Split(joinKeys(names), ", ") {
		if g == "" {
			continue
		}
		if x, y := onOff(ca.guards[g]), onOff(cb.guards[g]); x != y {
			out = append(out, fmt.Sprintf("guard %s %s → %s", g, x, y))
		}
	}
	if seeds[0] != seeds[1] {
		out = append(out, fmt.Sprintf("seed %d → %d", seeds[0], seeds[1]))
	}
	tasks := [2]map[string]bool{{}, {}}
	for i, recs := range [2][]results.Attempt{a, b} {
		for _, r := range recs {
			if r.Variant == variant {
				tasks[i][r.TaskID] = true
			}
		}
	}
	onlyA, onlyB := 0, 0
	for t := range tasks[0] {
		if !tasks[1][t] {
			onlyA++
		}
	}
	for t := range tasks[1] {
		if !tasks[0][t] {
			onlyB++
		}
	}
	if onlyA+onlyB > 0 {
		out = append(out, fmt.Sprintf("tasks: %d only in A, %d only in B", onlyA, onlyB))
	}
	return out
}

// sameDir reports whether two paths name the same directory.
func sameDir(a, b string) bool {
	x, err1 := os.Stat(a)
	y, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(x, y)
}

// checkMargin refuses a --fail-if-worse margin outside (0, 1) (a proportion: 0.05 = 5 points; 0 would read as
// "no gate", so a margin given on the command line must be above 0).
func checkMargin(m float64) error {
	if m <= 0 || m >= 1 || math.IsNaN(m) {
		return usageErr("--fail-if-worse %v: the margin is a proportion in (0, 1): 0.05 = 5 points, 0.001 for any significant drop", m)
	}
	return nil
}

// gateVerdict applies ablation.GateFails to the comparison and says why in plain words.
func gateVerdict(c comparison, margin float64) *compareGate {
	ac := ablation.Comparison{Method: c.Method, Delta: c.Delta, CI: c.DeltaCI, P: c.P}
	g := &compareGate{Margin: margin, Failed: ablation.GateFails(&ac, margin, ablation.DefaultAlpha)}
	d := fmt.Sprintf("Δ %+.1f pts [%+.1f, %+.1f], p %.3g (%s)", 100*c.Delta, 100*c.DeltaCI[0], 100*c.DeltaCI[1], c.P, c.Method)
	below := "its whole interval is below 0"
	if c.DeltaCI[0] == c.DeltaCI[1] {
		d = fmt.Sprintf("Δ %+.1f pts (every task alike: no t interval), p %.3g (%s)", 100*c.Delta, c.P, c.Method)
		below = "every task moved down"
	}
	switch {
	case g.Failed:
		g.Why = fmt.Sprintf("%s is worse than %s: %s is below −%.1f pts, %s and p < %.2g", c.RunB, c.RunA, d, 100*margin, below, ablation.DefaultAlpha)
	case c.Delta >= -margin:
		g.Why = fmt.Sprintf("%s is not below −%.1f pts", d, 100*margin)
	case c.DeltaCI[1] >= 0:
		g.Why = fmt.Sprintf("inconclusive: %s, but the interval reaches 0", d)
	default:
		g.Why = fmt.Sprintf("inconclusive: %s, but p ≥ %.2g (every task moved alike, on too few tasks to tell)", d, ablation.DefaultAlpha)
	}
	return g
}

// writeFooter prints the unchanged-task count and the gate verdict below the tables.
func writeFooter(w io.Writer, c comparison, md bool) {
	same := 0
	for _, d := range c.Tasks {
		if d.Change == "same" {
			same++
		}
	}
	lines := []string{}
	if same > 0 {
		lines = append(lines, fmt.Sprintf("%d task(s) with the same pass rate in both runs are not listed (see --format json).", same))
	}
	if len(c.Differences) > 0 {
		lines = append(lines, "The runs differ in: "+strings.Join(c.Differences, "; ")+".")
	} else {
		lines = append(lines, "The runs' records show the same model, guards and seed (an A/A comparison).")
	}
	if c.Gate != nil {
		verdict := "PASSED"
		if c.Gate.Failed {
			verdict = "FAILED"
		}
		lines = append(lines, fmt.Sprintf("Gate --fail-if-worse %.3f: %s. %s", c.Gate.Margin, verdict, c.Gate.Why))
	}
	for _, l := range lines {
		if md {
			fmt.Fprintf(w, "\n%s\n", l)
		} else {
			fmt.Fprintln(w, l)
		}
	}
}

func seedKey(s *int) string {
	if s == nil {
		return "none"
	}
	return fmt.Sprint(*s)
}

func summaryTable(c comparison) results.Table {
	mde := "—"
	switch {
	case c.noMDE:
		mde = "> 100 pts"
	case c.MDE != nil:
		mde = fmt.Sprintf("%.0f pts", 100**c.MDE)
	}
	method, pcol, mcn := "unpaired (Newcombe)", "p (Fisher)", "—"
	ci := fmt.Sprintf("%+.1f [%+.1f, %+.1f]", 100*c.Delta, 100*c.DeltaCI[0], 100*c.DeltaCI[1])
	if c.Method != ablation.MethodFisher && c.Method != ablation.MethodNone {
		method = fmt.Sprintf("paired: %d→%d of %d pairs, %d tasks (%d informative)", c.PairsPassA, c.PairsPassB,
			c.Pairs, c.TasksCompared, c.Informative)
		pcol = "p_paired"
		if c.Method == ablation.MethodPairedSignFlip {
			pcol = "p_paired (sign-flip)"
			if c.DeltaCI[0] == c.DeltaCI[1] {
				ci = fmt.Sprintf("%+.1f (every task alike: no t interval)", 100*c.Delta)
			}
		}
		mcn = fmt.Sprintf("rescued %d, broke %d", c.Rescued, c.Broke)
		if c.PMcNemar != nil {
			mcn = fmt.Sprintf("p=%.3g; %s", *c.PMcNemar, mcn)
		}
	}
	vs := c.Variant
	if c.VariantB != "" && c.VariantB != c.Variant {
		vs = c.Variant + " → " + c.VariantB
	}
	return results.Table{Title: fmt.Sprintf("compare %s → %s (variant %s)", c.RunA, c.RunB, vs),
		Header: []string{"run A", "run B", "comparison", "Δ pts [95% CI]", pcol, "McNemar (pooled over reps)", "MDE", "new failures", "fixed"},
		Rows: [][]string{{fmt.Sprintf("%.1f%% (n=%d)", 100*c.RateA, c.NA), fmt.Sprintf("%.1f%% (n=%d)", 100*c.RateB, c.NB),
			method, ci, fmt.Sprintf("%.3g", c.P), mcn, mde, fmt.Sprint(len(c.NewFailures)), fmt.Sprint(len(c.Fixed))}}}
}

// writeWarnings prints the analysis warnings above the tables (plain lines, or a Markdown list).
func writeWarnings(w io.Writer, c comparison, md bool) {
	if len(c.Warnings) == 0 {
		return
	}
	if md {
		fmt.Fprintln(w, "**Warnings**")
		fmt.Fprintln(w)
		for _, x := range c.Warnings {
			fmt.Fprintf(w, "- %s\n", x)
		}
		fmt.Fprintln(w)
		return
	}
	fmt.Fprintln(w, "WARNINGS")
	for _, x := range c.Warnings {
		fmt.Fprintf(w, "  ! %s\n", x)
	}
}

func taskTable(c comparison) results.Table {
	t := results.Table{Header: []string{"task", "A", "B", "change"}}
	for _, d := range c.Tasks {
		if d.Change == "same" {
			continue
		}
		t.Rows = append(t.Rows, []string{d.Task, fmt.Sprintf("%d/%d", d.PassA, d.NA), fmt.Sprintf("%d/%d", d.PassB, d.NB), d.Change})
	}
	if len(t.Rows) == 0 {
		t.Rows = append(t.Rows, []string{"(no task changed)", "", "", ""})
	}
	return t
}

func variantNames(recs []results.Attempt) map[string]bool {
	out := map[string]bool{}
	for _, r := range recs {
		out[r.Variant] = true
	}
	return out
}

func joinKeys(m map[string]bool) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}
