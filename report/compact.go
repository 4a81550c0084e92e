package report

// The terminal report that fits the terminal: plain-words lines wrapped at a width, one compact line
// per arm and per variant, with the full tables left to --wide and the md, html and json formats.

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"webbench/analysis"
	"webbench/results"
	"webbench/stats"
)

// DefaultWidth is the terminal width the table format wraps at when neither $COLUMNS nor a terminal gives one.
const DefaultWidth = 120

// MinWidth is the narrowest width honoured; a smaller $COLUMNS is raised to it (a report cannot be laid out in
// fewer columns without breaking every number).
const MinWidth = 40

// RenderOptions are a reader's settings that a renderer may honour (Configurable).
type RenderOptions struct {
	// Width is the widest line, in columns (runes); 0 means DefaultWidth.
	Width int
	// Wide prints the full tables (tablewriter, as wide as they need) instead of the compact lines.
	Wide bool
	// RunDir is the run directory the compact report's last line names in its `bench report DIR --wide`
	// (ReportCommand); "" prints the placeholder RUN_DIR.
	RunDir string
	// Program is how the user invoked the CLI, for the commands a report suggests: os.Args[0] as given
	// ("./bin/bench", or "bench" when found on $PATH); "" means "bench".
	Program string
	// ReportArgs are the flags after the run directory that the suggested `report` command carries because they
	// change what is reported (cmd/bench passes --judge NAME, --bh and --cmh when given).
	ReportArgs []string
}

// ReportCommand is the shell command that prints a run's report again: "PROGRAM report DIR ARGS…", each word
// shell-quoted (single quotes when needed), PROGRAM "bench" when "", DIR "RUN_DIR" when "", and a DIR starting with
// "-" written "./-…" so that it is not read as a flag.
func ReportCommand(program, dir string, args []string) string {
	if program == "" {
		program = "bench"
	}
	d := "RUN_DIR"
	if dir != "" {
		if strings.HasPrefix(dir, "-") {
			dir = "./" + dir
		}
		d = ShellQuote(dir)
	}
	words := []string{ShellQuote(program), "report", d}
	for _, a := range args {
		words = append(words, ShellQuote(a))
	}
	return strings.Join(words, " ")
}

// printCommand writes the shell command cmd on lines of its own indented by two spaces, at most width runes
// where its words allow: a command longer than a line is broken between shell words (a single-quoted word is
// never split) with a trailing " \\" (a shell line continuation), so that the lines can be pasted as they are.
func printCommand(w io.Writer, cmd string, width int) {
	var words []string
	var cur strings.Builder
	quoted := false
	for _, r := range cmd {
		switch {
		case r == '\'':
			quoted = !quoted
			cur.WriteRune(r)
		case r == ' ' && !quoted:
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	line := "  "
	for _, word := range words {
		if line != "  " && line != "    " && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word)+2 > width {
			fmt.Fprintln(w, line+" \\")
			line = "    "
		}
		if line != "  " && line != "    " {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, line)
}

// Configurable is a Renderer that takes RenderOptions: the table format. Commands apply their --wide flag and
// TerminalWidth through it.
type Configurable interface {
	Renderer
	// With returns the renderer with o applied.
	With(o RenderOptions) Renderer
	// Options returns the options in force (Width resolved to DefaultWidth when 0).
	Options() RenderOptions
}

// TerminalWidth is the width the table format wraps at: $COLUMNS when it is a positive number, else the width of
// f when f is a terminal (golang.org/x/term), else DefaultWidth; never below MinWidth.
func TerminalWidth(f *os.File) int {
	w := 0
	if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv("COLUMNS"))); err == nil && n > 0 {
		w = n
	} else if f != nil && term.IsTerminal(int(f.Fd())) {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
			w = n
		}
	}
	if w == 0 {
		w = DefaultWidth
	}
	return max(w, MinWidth)
}

// wrap breaks s into lines of at most width runes: the first line starts with first, the others with rest
// (a hanging indent); words longer than a line are cut.
func wrap(s, first, rest string, width int) []string {
	var lines []string
	line, prefix := first, first
	for _, word := range strings.Fields(s) {
		for {
			room := width - utf8.RuneCountInString(line)
			sep := 1
			if line == prefix {
				sep = 0
			}
			if utf8.RuneCountInString(word)+sep <= room {
				if sep == 1 {
					line += " "
				}
				line += word
				break
			}
			if line != prefix { // the word goes on the next line
				lines = append(lines, line)
				line, prefix = rest, rest
				continue
			}
			// A word longer than a whole line: cut it.
			r := []rune(word)
			n := max(room, 1)
			lines = append(lines, line+string(r[:n]))
			word = string(r[n:])
			line, prefix = rest, rest
			if word == "" {
				break
			}
		}
	}
	if line != prefix || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// WriteWrapped writes each line of s wrapped at width runes (words longer than a line are cut), the first line
// of each starting with first, the others with rest (a hanging indent); width ≤ 0 means DefaultWidth.
func WriteWrapped(w io.Writer, s, first, rest string, width int) {
	if width <= 0 {
		width = DefaultWidth
	}
	for _, line := range strings.Split(s, "\n") {
		printWrapped(w, line, first, rest, width)
	}
}

// printWrapped writes s wrapped at width (wrap).
func printWrapped(w io.Writer, s, first, rest string, width int) {
	for _, l := range wrap(s, first, rest, width) {
		fmt.Fprintln(w, strings.TrimRight(l, " "))
	}
}

// DetailsTitle is the line that ends the compact report's screen of answers: what follows it is detail.
const DetailsTitle = "DETAILS"

// CompactReport is CompactReportWhy without a divergence analysis (no causes in the headlines).
func CompactReport(w io.Writer, a *analysis.Analysis, width int, report string) error {
	return CompactReportWhy(w, a, nil, width, report)
}

// CompactReportWhy writes the ablation report in lines of at most width runes, the answer first: the header, one
// headline per variant (HeadlineText, with the top causes of why; nil: none), the gate verdicts, the flake rate of
// each A/A replay, a sequential run's outcome, one summary line per warning kind (GroupWarnings) and one line per
// arm; then DetailsTitle and the details: one line of figures per variant (VariantFigures), each verdict in words
// once with its variants, the cost lines, the statistical notes
// (compactNotes), the warnings' sentences by kind, and where the full tables are: report + " --wide" on a line of
// its own (printCommand), report being the command that prints the report again (ReportCommand; "" for
// `bench report RUN_DIR`).
func CompactReportWhy(w io.Writer, a *analysis.Analysis, why *analysis.Why, width int, report string) error {
	if width <= 0 {
		width = DefaultWidth
	}
	printWrapped(w, fmt.Sprintf("Ablation: %s against the baseline arm %q (α = %s, power %.0f%%; p_holm is Holm-adjusted over the variants%s).",
		ArmsCount(a), a.Baseline, stats.FmtP(a.Alpha), 100*a.Power, aaApart(a)), "", "", width)
	fmt.Fprintln(w)
	printWrapped(w, HeadlineTitleOf(a), "", "  ", width)
	for _, h := range Headlines(a, why) {
		printWrapped(w, h, "  ", "      ", width)
	}
	if a.FailIfWorse > 0 {
		printWrapped(w, GateLine(a), "", "  ", width)
	}
	if len(a.FailIfCostlier) > 0 {
		printWrapped(w, CostGateLine(a), "", "  ", width)
	}
	if len(a.Flake) > 0 {
		fmt.Fprintln(w)
		for _, f := range a.Flake {
			printWrapped(w, FlakeLine(f), "", "  ", width)
		}
	}
	printSeqLines(w, a, width)
	groups := GroupWarnings(AnalysisWarnings(a))
	if len(groups) > 0 {
		fmt.Fprintln(w)
		printWrapped(w, fmt.Sprintf("Warnings (%d causes; their full sentences under %s)", len(groups), DetailsTitle), "", "  ", width)
		for _, g := range groups {
			printWrapped(w, g.Line(TestedVariants(a)), "  ! ", "    ", width)
		}
	}
	fmt.Fprintln(w)
	printWrapped(w, ArmsTitle(a), "", "  ", width)
	for i, arm := range a.Arms {
		name := arm.Name
		if i == 0 && name != "baseline" {
			name += " (baseline)" // not "baseline (baseline)"
		}
		line := fmt.Sprintf("%s: %s, %s, %s", name, rateCell(arm.Passes, arm.N, arm.Rate, arm.Wilson),
			results.Count(arm.Errors, "error", "errors"), armUnits(arm, a.ClusterUnit))
		printWrapped(w, line, "  ", "      ", width)
	}
	printModelCacheLines(w, a.Arms, width)
	fmt.Fprintln(w)
	fmt.Fprintln(w, DetailsTitle)
	compactDetails(w, a, groups, width, report)
	return nil
}

// ArmsTitle is the title of the arms' lines and table: each arm's pass rate covers its own tasks, which differ
// between arms when a variant runs on its guards' targets only, so the title says which set each covers and points
// to the paired figures.
func ArmsTitle(a *analysis.Analysis) string {
	s := "Arms (pass rate [Wilson 95%] over each arm's own tasks; errors are left out of every rate)"
	for i := range a.Variants {
		if a.Variants[i].Arm.Tasks != a.BaseArm.Tasks {
			return fmt.Sprintf("Arms, each over its own tasks: the baseline over all %d, a variant over its targets "+
				"only, so compare arms by the pass rates on the same pairs above, not by these lines (pass rate "+
				"[Wilson 95%%]; errors are left out of every rate)", a.BaseArm.Tasks)
		}
	}
	return s
}

// TestedVariants counts a's variants under test (A/A arms left out): those a warning about "all variants" means.
func TestedVariants(a *analysis.Analysis) int {
	n := 0
	for i := range a.Variants {
		if !a.Variants[i].AA {
			n++
		}
	}
	return n
}

// compactDetails writes the compact report's details (CompactReportWhy).
func compactDetails(w io.Writer, a *analysis.Analysis, groups []WarningGroup, width int, report string) {
	diag := ""
	if a.Sequential != nil {
		diag = "; fixed-size diagnostics of a sequential run"
	}
	printWrapped(w, fmt.Sprintf("Variants vs %s (Δ pts [95%% CI], primary p_paired, p_holm%s), then each verdict once "+
		"with its variants", a.Baseline, diag), "", "  ", width)
	for i := range a.Variants {
		if v := &a.Variants[i]; v.All.Method != analysis.MethodNone {
			printWrapped(w, VariantFigures(v), "  ", "      ", width)
		}
	}
	for _, g := range verdictGroups(a) {
		printWrapped(w, g, "  ", "      ", width)
	}
	printCostLines(w, a, AblationCostWording(), width)
	if notes := compactNotes(a); len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			printWrapped(w, "note: "+n, "", "  ", width)
		}
	}
	if len(groups) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "WARNINGS")
		for _, g := range groups {
			printWrapped(w, g.Line(TestedVariants(a))+":", "  ", "    ", width)
			for _, t := range g.Texts {
				printWrapped(w, t, "  ! ", "    ", width)
			}
		}
	}
	fmt.Fprintln(w)
	if report == "" {
		report = ReportCommand("", "", nil)
	}
	printWrapped(w, "Full tables (every test, MDE and power, guard activity, failure modes), with --wide or "+
		"--format md, --format html or --format json:", "", "  ", width)
	printCommand(w, report+" --wide", width)
}

// printSeqLines prints a sequential run's outcome (SeqHeader, a SeqLine per variant, the baseline's saving)
// wrapped at width; nothing for a fixed-size run.
func printSeqLines(w io.Writer, a *analysis.Analysis, width int) {
	if a.Sequential == nil {
		return
	}
	fmt.Fprintln(w)
	printWrapped(w, SeqHeader(a), "", "  ", width)
	for i := range a.Sequential.Variants {
		printWrapped(w, SeqLine(a, &a.Sequential.Variants[i]), "  ", "      ", width)
	}
	b := a.Sequential.Baseline
	printWrapped(w, fmt.Sprintf("%s (baseline): %s", b.Variant, seqSaved(&b)), "  ", "      ", width)
}

// compactNotes are the statistical notes of the compact report: statNotes without the interval part of the note of
// a variant's primary comparison when its few_tasks warning already says which interval was taken (one statement
// per cause; the note's other parts, e.g. on clusters, stay),
// then, when some variant's interval excludes 0 while its p_holm is not below α, one note naming those variants
// (the interval is not Holm-adjusted, and below TIntervalMinInformative moved units it and the exact p are
// different methods; decisions use p_holm, as the HTML report's forest plot says).
func compactNotes(a *analysis.Analysis) []string {
	told := map[string]bool{}
	for _, w := range a.Warnings {
		if w.Kind == analysis.WarnFewTasks {
			for _, v := range w.Variants {
				told[v] = true
			}
		}
	}
	var out []string
	for i := range a.Variants {
		v := &a.Variants[i]
		for j, c := range append([]analysis.Comparison{v.All}, v.Targets...) {
			// the few_tasks warning gives the interval: keep the note's other parts
			note := pairedNote(&c.Paired, c.ClusterUnit, j == 0 && told[v.Name])
			if c.Matched && note != "" {
				out = append(out, fmt.Sprintf("%s (%s): %s", v.Name, ScopeLabel(v, &c), note))
			}
		}
	}
	if n := disagreeNote(a); n != "" {
		out = append(out, n)
	}
	return out
}

// disagreeNote is the note, in every report, naming the variants whose primary comparison's 95% interval
// excludes 0 while p_holm is not below α (A/A arms left out), with why that is no evidence of an effect; "" when
// there are none.
func disagreeNote(a *analysis.Analysis) string {
	var disagree, unpaired []string
	for i := range a.Variants {
		v := &a.Variants[i]
		c := &v.All
		if !v.AA && c.Method != analysis.MethodNone && (c.CI[0] > 0 || c.CI[1] < 0) && !(v.PHolm < a.Alpha) {
			disagree = append(disagree, v.Name)
			if !c.Matched {
				unpaired = append(unpaired, v.Name)
			}
		}
	}
	if len(disagree) == 0 {
		return ""
	}
	var why []string
	if len(unpaired) < len(disagree) {
		why = append(why, fmt.Sprintf("below %d moved units (tasks, or clusters when clustered) a paired interval is the adjusted Wald interval, a "+
			"different method from the exact sign-flip p", stats.TIntervalMinInformative))
	}
	if len(unpaired) > 0 {
		why = append(why, fmt.Sprintf("an unpaired one (%s) is Newcombe's, not the inversion of Fisher's test",
			strings.Join(unpaired, ", ")))
	}
	return fmt.Sprintf("%s: the 95%% interval excludes 0 but p_holm is not below α = %s. The interval "+
		"is not adjusted for testing several variants (p_holm is), and %s; the verdict follows p_holm, so this is "+
		"not evidence of an effect.", strings.Join(disagree, ", "), stats.FmtP(a.Alpha), strings.Join(why, "; "))
}

// VariantLine is a variant's compact line: "NAME: Δ −12.5 pts [−30.1, +5.0], p_paired 0.031, p_holm 0.062:
// VERDICT", with the verdict in words (Verdict).
func VariantLine(a *analysis.Analysis, v *analysis.VariantResult) string {
	if v.All.Method == analysis.MethodNone {
		return fmt.Sprintf("%s: no comparison (%s)", v.Name, Verdict(a, v))
	}
	return VariantFigures(v) + ": " + Verdict(a, v)
}

// VariantFigures is VariantLine without its verdict: "NAME: Δ −12.5 pts [−30.1, +5.0], p_paired 0.031, p_holm
// 0.062".
func VariantFigures(v *analysis.VariantResult) string {
	c := &v.All
	d := fmt.Sprintf("Δ %s pts [%s, %s]", stats.Pts(c.Delta), stats.Pts(c.CI[0]), stats.Pts(c.CI[1]))
	if c.Matched && c.Paired.CIMethod == stats.CIMethodAdjusted {
		d += " adj."
	}
	s := fmt.Sprintf("%s: %s, %s %s", v.Name, d, primaryPName(c), stats.FmtP(c.P))
	if !v.AA {
		s += ", p_holm " + stats.FmtP(v.PHolm)
	}
	return s
}

// verdictGroups are a's variants' verdicts in words (Verdict), each once with the variants it is about, in order
// of first appearance: "V1, V2: no difference shown: at this size none can be (…)".
func verdictGroups(a *analysis.Analysis) []string {
	var texts []string
	names := map[string][]string{}
	for i := range a.Variants {
		v := &a.Variants[i]
		t := Verdict(a, v)
		if _, ok := names[t]; !ok {
			texts = append(texts, t)
		}
		names[t] = append(names[t], v.Name)
	}
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = strings.Join(names[t], ", ") + ": " + t
	}
	return out
}

// FitTable prints t's title wrapped at width, then t as a table when its widest line fits in width runes, else
// as one block per row: the
// first cell, then "header: cell" for each other non-empty cell, wrapped at width with a hanging indent.
func FitTable(w io.Writer, t results.Table, width int) error {
	if width <= 0 {
		width = DefaultWidth
	}
	var b strings.Builder
	body := t
	body.Title = ""
	if err := body.Render(&b); err != nil {
		return err
	}
	fits := true
	for _, l := range strings.Split(b.String(), "\n") {
		if utf8.RuneCountInString(l) > width {
			fits = false
			break
		}
	}
	if t.Title != "" {
		printWrapped(w, t.Title, "", "  ", width)
	}
	if fits {
		_, err := io.WriteString(w, b.String())
		return err
	}
	for _, r := range t.Rows {
		if len(r) == 0 {
			continue
		}
		lead := r[0]
		if len(t.Header) > 0 && t.Header[0] != "" {
			lead = t.Header[0] + " " + r[0]
		}
		printWrapped(w, lead, "  ", "      ", width)
		for i := 1; i < len(r) && i < len(t.Header); i++ {
			if r[i] == "" {
				continue
			}
			printWrapped(w, t.Header[i]+": "+r[i], "      ", "        ", width)
		}
	}
	return nil
}

// CompactCompare writes the comparison of two runs in lines of at most width runes: its verdict in words
// (CompareVerdict), the warnings wrapped, the
// two pass rates, the comparison (method, Δ with its interval, p, McNemar by task, MDE, new failures and fixed
// tasks), one line per task whose pass rate changed, and CompareFooter.
func CompactCompare(w io.Writer, c *analysis.RunComparison, width int) {
	if width <= 0 {
		width = DefaultWidth
	}
	printWrapped(w, CompareVerdict(c), "", "  ", width)
	fmt.Fprintln(w)
	if ws := CompareWarnings(c); len(ws) > 0 {
		fmt.Fprintln(w, "WARNINGS")
		for _, x := range ws {
			printWrapped(w, x, "  ! ", "    ", width)
		}
		fmt.Fprintln(w)
	}
	t := compareSummaryTable(c)
	printWrapped(w, t.Title, "", "  ", width)
	row := t.Rows[0]
	for i, h := range t.Header {
		printWrapped(w, h+": "+row[i], "  ", "      ", width)
	}
	fmt.Fprintln(w)
	tasks := compareTaskTable(c)
	printWrapped(w, "Tasks whose pass rate changed (A → B)", "", "  ", width)
	for _, r := range tasks.Rows {
		line := r[0]
		if r[1] != "" {
			line = fmt.Sprintf("%s: %s → %s, %s", r[0], r[1], r[2], r[3])
		}
		printWrapped(w, line, "  ", "      ", width)
	}
	printCostLines(w, c.Analysis, RunCostWording(c), width)
	ComparePart(c).WriteText(w, false, width)
	fmt.Fprintln(w)
	for _, l := range CompareFooter(c) {
		printWrapped(w, l, "", "  ", width)
	}
	printWrapped(w, "The full tables: the same bench compare with --wide, or with --format md, --format html or --format json.", "", "  ", width)
}

// ShellQuote returns s as one POSIX shell word (sh, bash, zsh): unchanged when it is not empty and holds only
// characters no shell treats specially, else in single quotes, inside which every character is literal except the
// single quote, written as a closing quote, a backslash-escaped quote and an opening quote (POSIX.1-2017 XCU 2.2.3).
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+:@%,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
