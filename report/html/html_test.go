package html

import (
	"html"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/browser"
	"webbench/llm"
	"webbench/report/reporttest"
	"webbench/results"
)

func TestHTMLReport(t *testing.T) {
	recs, in := reporttest.ReportFixture()
	a := analysis.Analyze(recs, in)
	tmp := t.TempDir()
	runDir := filepath.Join(tmp, "run")
	out := filepath.Join(runDir, "report")

	// A trajectory with hostile text, a rewritten tool result, a guard event
	// and a screenshot; recs[3] is base/t3/0.
	id := recs[3].AttemptID
	shot := filepath.ToSlash(filepath.Join(results.ScreenshotsDir, id, "01.png"))
	if err := os.MkdirAll(filepath.Join(runDir, results.ScreenshotsDir, id), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runDir, filepath.FromSlash(shot)), []byte("\x89PNG\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	call := results.ToolCall{ID: "c1", Name: "browser_click", Args: `{"ref":"e12"}`}
	reporttest.WriteTraj(t, runDir, id, results.Trajectory{SchemaVersion: results.TrajectorySchemaVersion, TaskID: "t3",
		Goal:             `Open https://example.com/shop and <script>alert("x")</script> buy`,
		FirstObservation: &browser.Result{URL: "http://127.0.0.1:8080/"},
		Steps: []*results.Step{{Index: 1, Request: results.RequestSummary{Messages: 3, Tools: []string{"browser_click"}},
			Content: "I will click <b>Buy</b>", ToolCalls: []results.ToolCall{call},
			Reasoning: "The overlay <covers> the button; click it anyway", ReasoningFrom: "reasoning_content",
			Refusal: "I can't help with <that>", Truncated: true, FinishReason: "length",
			Usage: llm.Usage{Prompt: 120, Completion: 30, Estimated: true},
			Results: []*results.ToolRecord{{Call: call, Raw: browser.Result{Error: "Element intercepts pointer events"},
				Shown: &browser.Result{Error: "Element intercepts pointer events\nHint: close the overlay"}, Failed: true}},
			Events: []results.Event{{Guard: "repeat_guard", Action: "hint", Detail: "same call 3 times", Step: 1}}}},
		Finish:      results.FinishRecord{Reason: "final", Output: `{"ok":false}`},
		Events:      []results.Event{{Guard: "repeat_guard", Action: "hint", Detail: "same call 3 times", Step: 1}},
		Screenshots: []string{shot}})
	// A malformed trajectory for another attempt.
	if err := os.WriteFile(filepath.Join(runDir, results.TrajectoryPath(recs[4].AttemptID)), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}

	run := reporttest.WriteRunDir(t, runDir, recs, recs[5].AttemptID)
	if err := HTMLReport(out, a, nil, recs, run); err != nil {
		t.Fatal(err)
	}
	rp := filepath.Join(out, HTMLReportFile)
	b, err := os.ReadFile(rp)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if n := reporttest.CheckSVG(t, s); n != 3 {
		t.Errorf("report has %d svg blocks, want 3 (forest plot, cost forest plot, heatmap)", n)
	}
	if strings.Contains(s, "http://") || strings.Contains(s, "https://") {
		t.Error("report.html mentions http(s):// (no network resource may be referenced)")
	}
	// Forest plots: one dot per comparison with data (2 variants + 2 targets), and one per variant and cost
	// outcome (steps, tokens, usd, wall: the records are priced) with a ratio.
	if n := strings.Count(s, "<circle"); n != 4+2*4 {
		t.Errorf("forest plots have %d dots, want 4 + 8", n)
	}
	if !strings.Contains(s, `aria-label="forest plot of the change in cost per variant and outcome"`) ||
		!strings.Contains(s, "<h2>Cost change per variant</h2>") {
		t.Error("report.html lacks the cost forest plot")
	}
	for _, want := range []string{"variant w is identical to the baseline", "+34.5 [+3.6, +57.4]  p_holm=0.0625",
		">9/11<", ">10/11<", "rescued 7, broke 0"} {
		if !strings.Contains(html.UnescapeString(s), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	links := reporttest.CheckLinks(t, rp)
	attemptLinks := 0
	for _, l := range links {
		if strings.HasPrefix(l, HTMLAttemptsDir+"/") {
			attemptLinks++
		}
	}
	if attemptLinks != len(recs) {
		t.Errorf("heatmap links %d attempts, want %d", attemptLinks, len(recs))
	}

	// Every attempt has a page whose links resolve.
	for _, r := range recs {
		reporttest.CheckLinks(t, filepath.Join(out, HTMLAttemptsDir, safeID(r.AttemptID)+".html"))
	}
	pb, err := os.ReadFile(filepath.Join(out, HTMLAttemptsDir, safeID(id)+".html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(pb)
	for _, want := range []string{
		"&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;", // escaped, never executed
		"https://example.com/shop",                        // as text only
		"I will click &lt;b&gt;Buy&lt;/b&gt;",
		"browser_click", "Hint: close the overlay", "raw result (before guards rewrote it)",
		"guard <b>repeat_guard</b>: hint — same call 3 times",
		`src="../../screenshots/` + id + `/01.png"`,
		`href="../report.html"`,
		"no_x: pass", // the same (task, rep) in the other arms
		// Issue 13: the reasoning collapsed, the refusal, the cut-off mark, estimated tokens.
		`<details class="reasoning"><summary>Reasoning (reasoning_content), 48 bytes</summary><pre>The overlay &lt;covers&gt; the button; click it anyway</pre></details>`,
		"I can&#39;t help with &lt;that&gt;",
		"cut off at the token limit: its tool calls were not executed",
		"tokens 120+30 (estimated)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("attempt page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>") {
		t.Error("attempt page contains an unescaped <script>")
	}
	pb, _ = os.ReadFile(filepath.Join(out, HTMLAttemptsDir, safeID(recs[4].AttemptID)+".html"))
	if !strings.Contains(string(pb), "The trajectory file is malformed") {
		t.Error("malformed trajectory not reported on its page")
	}
	pb, _ = os.ReadFile(filepath.Join(out, HTMLAttemptsDir, safeID(recs[5].AttemptID)+".html"))
	if !strings.Contains(string(pb), "No trajectory file was found") {
		t.Error("missing trajectory not reported on its page")
	}
}

func TestSafeID(t *testing.T) {
	for in, want := range map[string]string{"abc-1_2.x": "abc-1_2.x", "a/b\\c": "a_b_c", "..": "_..", "": "unnamed",
		"é": "__"} {
		if got := safeID(in); got != want {
			t.Errorf("safeID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNaturalLess(t *testing.T) {
	in := []string{"t10", "t2", "t1", "a", "t02", "shop/t9", "shop/t10"}
	sort.Slice(in, func(i, j int) bool { return naturalLess(in[i], in[j]) })
	if got := strings.Join(in, ","); got != "a,shop/t9,shop/t10,t1,t02,t2,t10" {
		t.Errorf("natural order = %s", got)
	}
}
