package report

// Renderers by format name. A format is one package below report: a type
// implementing Renderer for the three reports, and its RegisterRenderer line
// in that package's init (report/table, report/md, report/json, report/html,
// report/junit), imported by report/formats. Commands look formats up with
// LookupRenderer; nothing switches on a format name.

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"webbench/analysis"
	"webbench/results"
	"webbench/srcerr"
)

// RunReport is the report of a plain run (`bench run`, `bench report` of a
// run that is not an ablation): the summary of each of its variants.
type RunReport struct {
	// Dir is the directory renderers that write files write into (the run
	// directory).
	Dir string
	// Arms are the variants' summaries, in order of first appearance
	// (Summarize).
	Arms []analysis.Arm
	// Records are the final records summarised and Run the run they belong
	// to (both optional): with them the html format also writes one page
	// per attempt (as an ablation's) and links them.
	Records []results.Attempt
	Run     *results.Run
	// Judges is the judges part (analysis.AnalyzeJudges) and Bounds every arm's pass rate with its uncertain
	// attempts' bounds (analysis.UncertainBounds, in Arms' order); nil: the report has no judges part. The table,
	// md and html formats show its tables (JudgesPart) after the variants table (whose pass rates then carry the
	// bounds), json adds its keys, junit adds a testsuite "judges" when it shows anything.
	Judges *analysis.Judges
	Bounds []analysis.VariantBounds
	// Warnings are the warnings about the run (analysis.RunWarnings), which bench report prints on stderr and
	// the html format lists (RunWarningText).
	Warnings []analysis.RunWarning
}

// AblationReport is the report of an ablation run: its analysis and the
// records it was made from.
type AblationReport struct {
	// Dir is the directory renderers that write files write into (the run
	// directory unless told otherwise).
	Dir string
	// Analysis is Analyze's result over Records.
	Analysis *analysis.Analysis
	// Records are the final records analysed (as judged by the analysis's
	// judge).
	Records []results.Attempt
	// Run is the run directory read back (results.Open): the pages of single
	// attempts read its trajectories and screenshots (Run.Trajectory,
	// Run.ScreenshotFiles). Nil: the pages say no trajectory was found.
	Run *results.Run
	// Judges is the judges part (analysis.AblationJudges), nil for none: the table, md and html formats show its
	// tables (JudgesPart) after the analysis, json adds its keys, junit adds a testsuite "judges".
	Judges *analysis.Judges
	// Why is the divergence analysis of the run's pairs (analysis.Explain), nil without a run: every format
	// words its cause groups (WhyPart), html also writes a page per examined pair.
	Why *analysis.Why
}

// NewAblationReport is the report document of the ablation run (nil: a run of records only) analysed as a
// from its records recs, whose file-writing renderers write into dir: every command that renders an
// ablation (`bench ablate`'s end, `bench report`) builds it here, so every path carries the same parts. With
// a run it holds the judges part (analysis.AblationJudges) and the divergence analysis (analysis.Explain); the error is that part's (a judge file that
// cannot be read).
func NewAblationReport(dir string, run *results.Run, a *analysis.Analysis, recs []results.Attempt) (*AblationReport, error) {
	rep := &AblationReport{Dir: dir, Analysis: a, Records: recs, Run: run}
	if run != nil {
		js, err := analysis.AblationJudges(run)
		if err != nil {
			return nil, err
		}
		rep.Judges = js
		read := analysis.RunTrajectories(run)
		rep.Why = analysis.Explain(a, read, read)
	}
	return rep, nil
}

// Renderer renders the three reports in one format. A renderer that writes
// files (html) writes them into the report's Dir and prints their path to w;
// the others write the report to w. Errors are the writer's or the file
// system's.
type Renderer interface {
	// Run renders a plain run's report.
	Run(w io.Writer, r *RunReport) error
	// Ablation renders an ablation run's report.
	Ablation(w io.Writer, r *AblationReport) error
	// Compare renders the comparison of two runs (there is no directory:
	// every format writes to w).
	Compare(w io.Writer, c *analysis.RunComparison) error
}

var (
	renderersMu sync.RWMutex
	renderers   = map[string]Renderer{}
)

// RegisterRenderer makes r the renderer of format name (lower case). It
// panics when name is empty or already registered (a programming error, as
// in database/sql.Register).
func RegisterRenderer(name string, r Renderer) {
	renderersMu.Lock()
	defer renderersMu.Unlock()
	if name == "" || name != strings.ToLower(name) || r == nil {
		panic(fmt.Sprintf("report: RegisterRenderer(%q): the name must be non-empty lower case and the renderer non-nil", name))
	}
	if _, dup := renderers[name]; dup {
		panic(fmt.Sprintf("report: RegisterRenderer(%q) called twice", name))
	}
	renderers[name] = r
}

// DefaultFormat is the format LookupRenderer takes for "".
const DefaultFormat = "table"

// LookupRenderer returns the renderer of format name (case-insensitive; ""
// means DefaultFormat). The error names the registered formats.
func LookupRenderer(name string) (Renderer, error) {
	if name == "" {
		name = DefaultFormat
	}
	renderersMu.RLock()
	defer renderersMu.RUnlock()
	if r, ok := renderers[strings.ToLower(name)]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("--format: %w", srcerr.OneOf("format", name, slices.Sorted(maps.Keys(renderers))))
}

// Formats returns the registered format names, sorted.
func Formats() []string {
	renderersMu.RLock()
	defer renderersMu.RUnlock()
	return slices.Sorted(maps.Keys(renderers))
}
