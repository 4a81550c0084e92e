package html

import (
	"fmt"
	"html/template"
)

// attemptTmpl renders one attempt's page (attemptVM): its record, pair, steps, guard events and screenshots.
var attemptTmpl = template.Must(template.New("attempt").Funcs(template.FuncMap{"sinceMS": sinceMS}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Rec.Variant}} · {{.Rec.TaskID}} · rep {{.Rec.Rep}}</title><style>` + htmlCSS + `</style></head><body>
<p><a href="../report.html">← report</a></p>
<h1>{{.Rec.TaskID}} · rep {{.Rec.Rep}} · {{.Rec.Variant}}</h1>
<p>Outcome: <span class="{{.StatusClass}}">{{.Status}}</span>{{if .Rec.Verdict.Reason}} — {{.Rec.Verdict.Judge}}: {{.Rec.Verdict.Reason}}{{end}}{{if .Rec.Error}}<br>Error: {{.Rec.Error}}{{end}}</p>
<table><tbody>
<tr><th>attempt id</th><td>{{.Rec.AttemptID}}</td></tr>
<tr><th>pair id</th><td>{{.Rec.PairID}}</td></tr>
<tr><th>suite / cluster</th><td>{{.Rec.Suite}} / {{.Rec.Cluster}}</td></tr>
<tr><th>model</th><td>{{.Rec.Model}}{{with .Rec.Seed}} (seed {{.}}){{end}}</td></tr>
{{if .Rec.Agent}}<tr><th>agent</th><td>{{.Rec.Agent}}{{if .AgentStderr}} · <a href="{{.AgentStderr}}">its standard error</a>{{end}}</td></tr>
{{end}}<tr><th>guards off</th><td>{{range .GuardsOff}}<span class="flag">{{.}}</span>{{else}}none{{end}}</td></tr>
<tr><th>guards on</th><td>{{range .Guards}}<span class="flag">{{.}}</span>{{else}}none{{end}}</td></tr>
<tr><th>guard events</th><td>{{range .GuardEvents}}<span class="flag">{{.}}</span>{{else}}none{{end}}</td></tr>
<tr><th>steps / tokens / cost / wall</th><td>{{.Rec.Steps}} / {{.Tokens}}{{if .Rec.Tokens.Estimated}} (estimated: the endpoint sent no usage){{end}} / ${{printf "%.4f" .Rec.CostUSD}} / {{.Rec.DurationMS}} ms</td></tr>
<tr><th>finish</th><td>{{.Rec.FinishReason}}{{if .Rec.RecoveredFrom}} (recovered from {{.Rec.RecoveredFrom}}){{end}}; retries {{.Rec.Retries}}</td></tr>
<tr><th>final answer</th><td>{{.Rec.Final}}{{if .Rec.Final}} (the agent's own claim: {{if .Rec.OK}}done{{else}}not done{{end}}; the outcome above is the judge's){{end}}</td></tr>
<tr><th>same task and rep</th><td>{{range .Others}}{{if .Self}}<span class="flag">{{.Variant}}: {{.Status}} (this page)</span>{{else}}<a class="flag" href="{{.Href}}">{{.Variant}}: {{.Status}}</a>{{end}} {{end}}</td></tr>
</tbody></table>
{{if .TrajErr}}<p class="note">{{.TrajErr}}</p>{{end}}
{{if .Trace}}<p class="trace">Playwright trace of this attempt: <a href="{{.Trace}}">{{.Trace}}</a>. Open it in Playwright's trace viewer with <code>{{.TraceCmd}}</code> or, offline, with the driver make setup installed, from the webbench checkout: <code>{{.TraceOffline}}</code>.</p>{{end}}
{{if .ShotNote}}<p class="note">{{.ShotNote}}; each is shown beside the step it was taken in or after.</p>{{end}}
{{with .Traj}}<h2>Goal</h2><pre>{{.Goal}}</pre>
<details><summary>First observation</summary><pre>{{$.FirstObs}}</pre></details>
{{end}}
{{range .Steps}}<div class="step" id="step-{{.S.Index}}">{{range .Shots}}<a class="stepshot" href="{{.}}"><img class="shot thumb" src="{{.}}" alt="screenshot taken in or after this step: {{.}}"></a>{{end}}<h3>Step {{.S.Index}}{{if .S.Recovery}} (recovery call){{end}}</h3>
<p>{{if .S.Stalled}}<span class="flag">stalled</span>{{end}}{{if .S.Progress}}<span class="flag">progress</span>{{end}}<span class="flag">{{.S.Request.Messages}} messages</span>{{if .S.Request.ToolsWithheld}}<span class="flag">tools withheld</span>{{end}}<span class="flag">model {{.S.ModelMS}} ms</span><span class="flag">tokens {{.S.Usage.Prompt}}+{{.S.Usage.Completion}}{{if .S.Usage.Estimated}} (estimated){{end}}</span>{{if .S.FinishReason}}<span class="flag">{{.S.FinishReason}}</span>{{end}}{{if .S.Truncated}}<span class="flag fail">cut off at the token limit: its tool calls were not executed</span>{{end}}</p>
{{range .S.Request.SystemSections}}<div class="event">system section: {{.}}</div>{{end}}
{{range .S.Request.Appended}}<div>Appended user message:<pre>{{.}}</pre></div>{{end}}
{{if .S.Reasoning}}<details class="reasoning"><summary>Reasoning{{if .S.ReasoningFrom}} ({{.S.ReasoningFrom}}){{end}}, {{len .S.Reasoning}} bytes</summary><pre>{{.S.Reasoning}}</pre></details>{{end}}
{{if .S.Refusal}}<div>Refusal <span class="fail">the model refused</span>:<pre>{{.S.Refusal}}</pre></div>{{end}}
{{if .S.Error}}<div>Model call <span class="fail">failed</span>:<pre>{{.S.Error}}</pre></div>{{end}}
{{if .S.Content}}<div>Model:<pre>{{.S.Content}}</pre></div>{{end}}
{{range .S.ToolCalls}}<div>Tool call <b>{{.Name}}</b><pre>{{.Args}}</pre></div>{{end}}
{{range .Results}}<div>Result of <b>{{.R.Call.Name}}</b>{{if .R.Failed}} <span class="fail">failed</span>{{end}} ({{.R.DurationMS}} ms{{if .R.SnapshotBytes}}, snapshot {{.R.SnapshotBytes}} bytes{{end}}{{if .R.Refreshed}}, snapshot refreshed{{end}}), as the model saw it:
<pre>{{.Text}}</pre>{{if .Rewrote}}<details><summary>raw result (before guards rewrote it)</summary><pre>{{.Raw}}</pre></details>{{end}}</div>{{end}}
{{range .S.Events}}<div class="event">guard <b>{{.Guard}}</b>: {{.Action}}{{if .Detail}} — {{.Detail}}{{end}}</div>{{end}}
</div>
{{end}}
{{with .Traj}}<h2>Finish</h2><p>{{.Finish.Reason}}{{if .Finish.RecoveredFrom}} (recovered from {{.Finish.RecoveredFrom}}){{end}}{{if .Finish.Error}}; error ({{.Finish.ErrorClass}}): {{.Finish.Error}}{{end}}</p>
{{if .Finish.Output}}<pre>{{.Finish.Output}}</pre>{{end}}
{{if .Events}}<h2>All guard events</h2><table><thead><tr><th>step</th><th>at (since start)</th><th>guard</th><th>action</th><th>detail</th></tr></thead><tbody>
{{range .Events}}<tr><td>{{.Step}}</td><td>{{if $.StartMS}}{{sinceMS $.StartMS .AtMS}}{{else}}-{{end}}</td><td>{{.Guard}}</td><td>{{.Action}}</td><td>{{.Detail}}</td></tr>
{{end}}</tbody></table>{{end}}{{end}}
{{if .Screenshots}}<h2>Screenshots</h2>{{range .Screenshots}}<a href="{{.}}"><img class="shot" src="{{.}}" alt="screenshot {{.}}"></a>{{end}}{{end}}
</body></html>
`))

// sinceMS words the time from start to at (both Unix ms) as seconds after the attempt's start, "12.3 s".
func sinceMS(start, at int64) string { return fmt.Sprintf("%.1f s", float64(at-start)/1000) }
