// Package json is the JSON report format ("json"): one indented document per report, its fields stable within
// a schema_version.
package json

import (
	"encoding/json"
	"io"

	"webbench/analysis"
	"webbench/report"
	"webbench/results"
)

func init() { report.RegisterRenderer("json", jsonRenderer{}) }

// jsonRenderer writes one indented JSON document per report; field names
// are stable within a schema_version (README "Results").
type jsonRenderer struct{}

// runDoc is the JSON of a plain run's report.
type runDoc struct {
	RunDir        string       `json:"run_dir"`
	SchemaVersion int          `json:"schema_version"`
	Variants      []jsonArmDoc `json:"variants"`
	*runJudgesDoc
}

// runJudgesDoc is a run report's judges part in runDoc (absent without one): the variants' uncertain bounds,
// then the judges' keys.
type runJudgesDoc struct {
	UncertainBounds []analysis.VariantBounds `json:"uncertain_bounds"`
	*analysis.Judges
}

// Run writes {run_dir, schema_version, variants: [Arm…]}: each variant as an arm of JSONReport (model, rate
// and wilson null when no attempt was judged, clustered_se null with fewer than two clusters).
func (jsonRenderer) Run(w io.Writer, r *report.RunReport) error {
	vs := make([]jsonArmDoc, 0, len(r.Arms))
	for _, a := range r.Arms {
		vs = append(vs, jsonArm(a))
	}
	doc := runDoc{RunDir: r.Dir, SchemaVersion: results.SchemaVersion, Variants: vs}
	if r.Judges != nil {
		doc.runJudgesDoc = &runJudgesDoc{UncertainBounds: r.Bounds, Judges: r.Judges}
	}
	return encodeJSON(w, doc, true)
}

// Ablation writes JSONReport.
func (jsonRenderer) Ablation(w io.Writer, r *report.AblationReport) error {
	return ablationJSON(w, r.Analysis, r.Judges, r.Why)
}

// Compare writes the document of `bench compare --format json`; README
// "Results" lists its fields.
func (jsonRenderer) Compare(w io.Writer, c *analysis.RunComparison) error {
	return encodeJSON(w, newCompareDoc(c), true)
}

// encodeJSON writes v indented by two spaces, escaping <, > and & when
// escapeHTML.
func encodeJSON(w io.Writer, v any, escapeHTML bool) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(escapeHTML)
	return enc.Encode(v)
}

// compareDoc is the JSON of a comparison of two runs (README "Results",
// `bench compare A B --format json`): side A is "a", side B "b"; rates and
// deltas are proportions.
type compareDoc struct {
	SchemaVersion  int             `json:"schema_version"`
	RunA           string          `json:"run_a"`
	RunB           string          `json:"run_b"`
	Variant        string          `json:"variant"`
	VariantB       string          `json:"variant_b"`
	RateA          float64         `json:"rate_a"`
	RateB          float64         `json:"rate_b"`
	NA             int             `json:"n_a"`
	NB             int             `json:"n_b"`
	Method         string          `json:"method"`
	Delta          float64         `json:"delta"`
	DeltaCI        [2]float64      `json:"delta_ci"`
	P              float64         `json:"p"`
	Pairs          int             `json:"pairs"`
	PairsPassA     int             `json:"pairs_pass_a"`
	PairsPassB     int             `json:"pairs_pass_b"`
	TasksCompared  int             `json:"tasks_compared"`
	Informative    int             `json:"informative_tasks"`
	Rescued        int             `json:"rescued"`
	Broke          int             `json:"broke"`
	PMcNemar       *float64        `json:"p_mcnemar"`
	UnmatchedA     int             `json:"unmatched_a"`
	UnmatchedB     int             `json:"unmatched_b"`
	DroppedPairs   int             `json:"dropped_pairs"`
	SeedMismatches int             `json:"seed_mismatches"`
	MDE            *float64        `json:"mde"`
	PFisher        float64         `json:"p_fisher"`
	NewFailures    []string        `json:"new_failures"`
	Fixed          []string        `json:"fixed"`
	Tasks          []compareTask   `json:"tasks"`
	Differences    []string        `json:"differences"`
	Warnings       []string        `json:"warnings"`
	Gate           *compareGateDoc `json:"gate"`
	// Added within schema_version 1.
	CIMethod           *string        `json:"ci_method"`
	MovedTasks         int            `json:"moved_tasks"`
	PMcNemarClustered  *float64       `json:"p_mcnemar_clustered"`
	CommonPairs        int            `json:"common_pairs"`
	ErrorsA            map[string]int `json:"errors_a"`
	ErrorsB            map[string]int `json:"errors_b"`
	DifferentialErrors []string       `json:"differential_errors"`
	ErrorBounds        *jsonErrBounds `json:"error_bounds"`
	// Costs are run B's paired cost outcomes against run A (as an ablation's variants' costs); CostGate the
	// cost gate's verdict (null without --fail-if-costlier).
	Costs    []jsonCost    `json:"costs"`
	CostGate *jsonCostGate `json:"cost_gate"`
	// Why and WhyLines are the divergence analysis of the new failures, fixes and materially costlier or cheaper
	// pairs (RunComparison.Why) and its words, as in the ablation's document; absent without it.
	Why      *analysis.Why `json:"why,omitempty"`
	WhyLines *jsonWhyLines `json:"why_lines,omitempty"`
	// Verdict is the comparison's answer in words (report.CompareVerdict); VerdictKind its decision
	// (analysis.VerdictKind); NewFailureModes the failure modes of run B's failed attempts on the new failures.
	Verdict         string           `json:"verdict"`
	VerdictKind     string           `json:"verdict_kind"`
	NewFailureModes []analysis.Count `json:"new_failure_modes"`
}

// compareTask is one TaskDiff of compareDoc.
type compareTask struct {
	Task   string  `json:"task"`
	PassA  int     `json:"passes_a"`
	NA     int     `json:"n_a"`
	PassB  int     `json:"passes_b"`
	NB     int     `json:"n_b"`
	Change string  `json:"change"`
	Delta  float64 `json:"delta"`
	// ModesB counts the failure modes of run B's failed attempts on the task (absent when none failed).
	ModesB map[string]int `json:"failure_modes_b,omitempty"`
}

// compareGateDoc is the RunGate of compareDoc.
type compareGateDoc struct {
	Margin float64 `json:"margin"`
	Failed bool    `json:"failed"`
	Why    string  `json:"why"`
	// NotApplied is true when the runs share no judged pair (RunComparison.Ungated): no verdict, failed false,
	// and bench compare exits 2.
	NotApplied bool `json:"not_applied,omitempty"`
}

func newCompareDoc(c *analysis.RunComparison) compareDoc {
	all := c.Result().All
	armA, armB := c.Analysis.BaseArm, c.Result().Arm
	d := compareDoc{SchemaVersion: results.SchemaVersion, RunA: c.A.Name, RunB: c.B.Name, Variant: c.A.Variant,
		VariantB: c.B.Variant, RateA: armA.Rate, RateB: armB.Rate, NA: armA.N, NB: armB.N, Method: all.Method,
		Delta: all.Delta, DeltaCI: all.CI, P: all.P, Pairs: all.Pairs, TasksCompared: all.G(), Informative: all.Informative,
		Rescued: all.Rescued, Broke: all.Broke, UnmatchedA: all.UnmatchedA, UnmatchedB: all.UnmatchedB,
		DroppedPairs: all.DroppedPairs, SeedMismatches: c.SeedMismatches, PFisher: c.PFisher,
		NewFailures: nonNil(c.NewFailures), Fixed: nonNil(c.Fixed), Differences: nonNil(c.Differences),
		Warnings: report.CompareWarnings(c), Verdict: report.CompareVerdict(c),
		VerdictKind: string(c.Verdict().Kind), NewFailureModes: c.NewFailureModes()}
	if c.Why != nil {
		p := report.ComparePart(c)
		d.Why, d.WhyLines = c.Why, &jsonWhyLines{Unread: p.Unread, Noise: p.Noise, Note: p.Note, Moved: lineTexts(p.Moved), Cost: lineTexts(p.Cost)}
	}
	if all.Matched {
		d.PairsPassA, d.PairsPassB = all.A.Passes, all.B.Passes
		d.PMcNemar = fptr(all.PMcNemar)
		m := all.Paired.CIMethod
		d.CIMethod, d.MovedTasks, d.PMcNemarClustered = &m, all.Paired.Moved, fptr(all.PMcNemarClustered)
	}
	d.CommonPairs, d.ErrorsA, d.ErrorsB = all.CommonPairs, nonNilMap(all.ErrorsA), nonNilMap(all.ErrorsB)
	d.DifferentialErrors = nonNil(all.Differential)
	if b := all.Bounds; b != nil {
		d.ErrorBounds = newJSONErrBounds(b)
	}
	if m, ok, over := c.MDE(); ok && !over {
		d.MDE = &m
	}
	for _, t := range c.Tasks {
		d.Tasks = append(d.Tasks, compareTask{Task: t.Task, PassA: t.PassesA, NA: t.NA, PassB: t.PassesB, NB: t.NB,
			Change: t.Change, Delta: t.Delta, ModesB: t.ModesB})
	}
	if g := c.Gate; g != nil {
		d.Gate = &compareGateDoc{Margin: g.Margin, Failed: g.Failed, Why: report.RunGateText(c)}
	}
	if c.Ungated {
		d.Gate = &compareGateDoc{Margin: c.Analysis.FailIfWorse, Why: report.UngatedLine(c), NotApplied: true}
	}
	d.Costs, d.CostGate = jsonCosts(c.Analysis, c.Result()), jsonCostGateOf(c.Analysis)
	return d
}
