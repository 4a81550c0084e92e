package html

// The divergence part of the HTML report: the cause lines in report.html, each linked to its pairs, and one
// page per examined pair, dir/pairs/<baseline attempt>-<variant attempt>.html, with the two trajectories side by
// side, aligned step by step and marked at their first divergence (analysis.Divergence).

import (
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"webbench/analysis"
	"webbench/report"
	"webbench/results"
)

// HTMLPairsDir is the subdirectory of the pair pages.
const HTMLPairsDir = "pairs"

// pairFile is the pair page's file name of d.
func pairFile(d *analysis.Divergence) string {
	return safeID(d.A.AttemptID) + "-" + safeID(d.B.AttemptID) + ".html"
}

// pairHref is the link from report.html to d's pair page.
func pairHref(d *analysis.Divergence) string { return HTMLPairsDir + "/" + pairFile(d) }

// whyVM is the divergence section of report.html.
type whyVM struct {
	Moved, Cost []whyLineVM
	Noise, Note string
	MovedTitle  string
	CostTitle   string
}

// whyLineVM is one cause line with links to its pairs' pages.
type whyLineVM struct {
	Text  string
	Pairs []linkVM
}

type linkVM struct{ Href, Text string }

// newWhyVM builds the section from the part p of why.
func newWhyVM(why *analysis.Why, p report.WhyPart) whyVM {
	vm := whyVM{Noise: p.Noise, Note: p.Note, MovedTitle: report.WhyMovedTitle, CostTitle: report.WhyCostTitle}
	byName := map[string]*analysis.VariantWhy{}
	for i := range why.Variants {
		byName[why.Variants[i].Variant] = &why.Variants[i]
	}
	line := func(l report.WhyLine) whyLineVM {
		v := byName[l.Variant]
		out := whyLineVM{Text: l.Text}
		for _, i := range v.Groups[l.Group].Pairs {
			d := &v.Pairs[i]
			out.Pairs = append(out.Pairs, linkVM{Href: pairHref(d), Text: fmt.Sprintf("%s rep %d", d.Task, d.Rep)})
		}
		return out
	}
	for _, l := range p.Moved {
		vm.Moved = append(vm.Moved, line(l))
	}
	for _, l := range p.Cost {
		vm.Cost = append(vm.Cost, line(l))
	}
	return vm
}

// pairLinks maps variant and task to the first examined pair's page, for the heatmap.
func pairLinks(why *analysis.Why) map[[2]string]string {
	m := map[[2]string]string{}
	if why == nil {
		return m
	}
	for _, v := range why.Variants {
		for i := range v.Pairs {
			k := [2]string{v.Variant, v.Pairs[i].Task}
			if _, ok := m[k]; !ok {
				m[k] = pairHref(&v.Pairs[i])
			}
		}
	}
	return m
}

// pairVM is one pair page.
type pairVM struct {
	D            *analysis.Divergence
	ArmA, ArmB   string
	HrefA, HrefB string
	Summary      string
	Err          string
	Rows         []pairRowVM
}

// pairRowVM is one aligned step: Label names it ("start", "step 3"), Same marks a row before the divergence
// (the two sides are the same there: only the calls are shown), Div the divergence's row.
type pairRowVM struct {
	Label     string
	Same, Div bool
	A, B      pairCellVM
}

// pairCellVM is one arm's step in a row.
type pairCellVM struct {
	Present bool
	Calls   []string
	Texts   []string
	Events  []string
	Shots   []string
	Status  string
}

// pairCellCap is the most bytes of one result a pair page shows (the attempt pages show PageTextCap).
const pairCellCap = 1500

// writePairPages writes dir/pairs/*.html for every examined pair of why, reading the trajectories from run.
func writePairPages(dir string, why *analysis.Why, run *results.Run, baseline string) error {
	if why == nil || run == nil {
		return nil
	}
	pageDir := filepath.Join(dir, HTMLPairsDir)
	if err := os.MkdirAll(pageDir, 0o755); err != nil {
		return err
	}
	for _, v := range why.Variants {
		for i := range v.Pairs {
			d := &v.Pairs[i]
			vm := pairVM{D: d, ArmA: baseline, ArmB: v.Variant, Summary: pairSummary(d, baseline),
				HrefA: "../" + attemptHref(d.A.AttemptID), HrefB: "../" + attemptHref(d.B.AttemptID)}
			ta, errA := run.Trajectory(d.A.AttemptID)
			tb, errB := run.Trajectory(d.B.AttemptID)
			if errA != nil || errB != nil {
				vm.Err = fmt.Sprintf("The trajectories could not be read: %v", firstErr(errA, errB))
			} else {
				vm.Rows = pairRows(d, ta, tb, run, pageDir)
			}
			if err := writeTemplate(filepath.Join(pageDir, pairFile(d)), pairTmpl, vm); err != nil {
				return err
			}
		}
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// pairSummary says in a sentence what the page shows.
func pairSummary(d *analysis.Divergence, baseline string) string {
	where := fmt.Sprintf("step %d", d.Step)
	if d.Step == -1 {
		where = "the first observation"
	}
	s := fmt.Sprintf("%s %s this pair (%s: %s; %s: %s).", d.Variant, d.Outcome, baseline, armOutcome(&d.A), d.Variant, armOutcome(&d.B))
	switch d.At {
	case analysis.AtNone:
		return s + " The two trajectories are the same throughout: the outcomes differ by the judge or the final state."
	case analysis.AtUnread:
		return s + " A trajectory could not be read: " + d.Err
	}
	s += fmt.Sprintf(" The trajectories are the same until %s, where they first differ in the %s.", where, strings.ReplaceAll(string(d.At), "_", " "))
	if d.Acted != nil {
		arm := baseline
		if d.ActedIn == "b" {
			arm = d.Variant
		}
		return s + fmt.Sprintf(" There %s acted in %s only: %s (%s).", d.Acted.Guard, arm, d.Acted.Action, d.Acted.Detail)
	}
	return s + " No guard acted there in one arm only: the arms diverged before any guard acted."
}

func armOutcome(a *analysis.ArmAt) string {
	s := fmt.Sprintf("%s, %d steps", a.Status, a.Steps)
	if a.FailureMode != "" {
		s += ", " + string(a.FailureMode)
	}
	return s
}

// pairRows aligns ta and tb: the first observation, then one row per step index of the longer trajectory.
func pairRows(d *analysis.Divergence, ta, tb *results.Trajectory, run *results.Run, pageDir string) []pairRowVM {
	rows := []pairRowVM{{Label: "start", Same: d.Step > -1 && d.At != analysis.AtNone, Div: d.Step == -1 && d.At != analysis.AtNone,
		A: obsCell(ta), B: obsCell(tb)}}
	sa, sb := nonNil(ta.Steps), nonNil(tb.Steps)
	for i := 0; i < max(len(sa), len(sb)); i++ {
		r := pairRowVM{Label: fmt.Sprintf("step %d", i), Same: d.At == analysis.AtNone || i < d.Step, Div: i == d.Step && d.At != analysis.AtNone}
		r.A, r.B = stepCell(sa, i, ta, run, pageDir, r.Same), stepCell(sb, i, tb, run, pageDir, r.Same)
		rows = append(rows, r)
	}
	return rows
}

func nonNil(st []*results.Step) []*results.Step {
	out := make([]*results.Step, 0, len(st))
	for _, s := range st {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// obsCell is an arm's first observation.
func obsCell(t *results.Trajectory) pairCellVM {
	c := pairCellVM{Present: true}
	if o := t.FirstObservationText(); o != "" {
		c.Texts = []string{cutText(o)}
	}
	return c
}

// stepCell is an arm's step i (absent when the arm had ended: its finish then); brief leaves the results out.
func stepCell(st []*results.Step, i int, t *results.Trajectory, run *results.Run, pageDir string, brief bool) pairCellVM {
	if i >= len(st) {
		if i == len(st) {
			return pairCellVM{Status: "ended: " + string(t.Finish.Reason)}
		}
		return pairCellVM{}
	}
	s := st[i]
	c := pairCellVM{Present: true}
	for _, call := range s.ToolCalls {
		c.Calls = append(c.Calls, call.Name+" "+call.Args)
	}
	if len(s.ToolCalls) == 0 && s.Content != "" {
		c.Calls = append(c.Calls, "reply: "+cutText(s.Content))
	}
	if s.Request.ToolsWithheld {
		c.Events = append(c.Events, "tools withheld")
	}
	for _, e := range s.Events {
		c.Events = append(c.Events, e.Guard+": "+e.Action+" "+e.Detail)
	}
	if brief {
		return c
	}
	for _, r := range s.Results {
		if r != nil {
			c.Texts = append(c.Texts, cutText(r.ShownText()))
		}
	}
	for k, p := range t.Screenshots {
		if k < len(t.ScreenshotSteps) && t.ScreenshotSteps[k] == s.Index {
			c.Shots = append(c.Shots, relLink(pageDir, filepath.Join(run.Dir, filepath.FromSlash(p))))
		}
	}
	return c
}

// cutText is s cut to pairCellCap bytes at a rune start, with a note of its whole length.
func cutText(s string) string {
	if len(s) <= pairCellCap {
		return s
	}
	n := pairCellCap
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + fmt.Sprintf("\n… [%d of %d bytes; the attempt's page shows more]", n, len(s))
}

var _ = template.Must(reportTmpl.New("why").Parse(`{{if or .Moved .Cost}}<h2 id="why">Why pairs moved</h2>
{{if .Moved}}<p class="note">{{.MovedTitle}}.</p><ul>{{range .Moved}}<li>{{.Text}}<br><span class="note">pairs: {{range $i, $p := .Pairs}}{{if $i}}, {{end}}<a href="{{$p.Href}}">{{$p.Text}}</a>{{end}}</span></li>{{end}}</ul>{{end}}
{{if .Noise}}<p>{{.Noise}}</p>{{end}}
{{if .Cost}}<h3>Where the cost went</h3><p class="note">{{.CostTitle}}. {{.Note}}</p><ul>{{range .Cost}}<li>{{.Text}}<br><span class="note">pairs: {{range $i, $p := .Pairs}}{{if $i}}, {{end}}<a href="{{$p.Href}}">{{$p.Text}}</a>{{end}}</span></li>{{end}}</ul>{{end}}
{{end}}`))

var pairTmpl = template.Must(template.New("pair").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.D.Task}} · rep {{.D.Rep}} · {{.ArmA}} vs {{.ArmB}}</title><style>` + htmlCSS + `
table.pair{display:table;width:100%;table-layout:fixed}table.pair td{width:46%}table.pair td:first-child,table.pair th:first-child{width:8%}
tr.same td{color:#59636e;background:#f6f8fa}tr.div td{border:2px solid #cf222e}
</style></head><body>
<p><a href="../report.html#why">← report</a></p>
<h1>{{.D.Task}} · rep {{.D.Rep}} · {{.ArmA}} vs {{.ArmB}}</h1>
<p>{{.Summary}} <a href="#divergence">Go to the divergence.</a></p>
{{if .Err}}<p class="note">{{.Err}}</p>{{end}}
<table class="pair"><thead><tr><th>step</th><th><a href="{{.HrefA}}">{{.ArmA}}</a>: {{.D.A.Status}}</th><th><a href="{{.HrefB}}">{{.ArmB}}</a>: {{.D.B.Status}}</th></tr></thead><tbody>
{{range .Rows}}<tr{{if .Div}} id="divergence" class="div"{{else if .Same}} class="same"{{end}}><td>{{.Label}}{{if .Div}}<br><b>first divergence</b>{{end}}</td><td>{{template "cell" .A}}</td><td>{{template "cell" .B}}</td></tr>
{{end}}</tbody></table>
</body></html>
{{define "cell"}}{{if .Status}}<i>{{.Status}}</i>{{end}}{{range .Calls}}<div><code>{{.}}</code></div>{{end}}{{range .Events}}<div class="event">{{.}}</div>{{end}}{{range .Texts}}<pre>{{.}}</pre>{{end}}{{range .Shots}}<a href="{{.}}"><img class="shot thumb" src="{{.}}" alt="screenshot {{.}}"></a>{{end}}{{end}}`))
