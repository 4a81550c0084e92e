package ablation

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"webbench/browser"
	"webbench/llm"
	"webbench/results"
)

// reportFixture: two variants over 14 tasks plus one 11-rep task "z", with
// guard events and an infra error.
func reportFixture() ([]results.Attempt, Inputs) {
	recs := cat(tasksOf("base", "FFFFFPPPPPFFPP"), tasksOf("no_x", "PPPPPPPPPPFFPP"), tasksOf("no_y", "FFFFFPPPPPFPPI"),
		recsOf("base", "z", 0, "PPFPPPPFPPP"), recsOf("no_x", "z", 0, "PPPPPPPPPPP"), recsOf("no_y", "z", 0, "PPPPPPPPFPP"))
	recs[14].GuardEvents = map[string]int{"repeat_guard": 3}
	recs[3].GuardEvents = map[string]int{"repeat_guard": 1, "final_recovery": 1}
	tags := map[string][]string{"t0": {"x"}, "t1": {"x"}, "t2": {"x"}, "z": {"y"}}
	return recs, Inputs{Baseline: "base", Switched: map[string][]string{"no_x": {"x"}, "no_y": {"y"}}, TaskTags: tags,
		FailIfWorse: 0.05, ExtraWarnings: []string{"variant w is identical to the baseline: it can only measure noise"}}
}

func TestTerminalAndMarkdownReports(t *testing.T) {
	recs, in := reportFixture()
	a := Analyze(recs, in)
	var term strings.Builder
	if err := TerminalReport(&term, a); err != nil {
		t.Fatal(err)
	}
	s := term.String()
	iw, ia := strings.Index(s, "WARNINGS"), strings.Index(s, "\nArms\n")
	if iw < 0 || ia < 0 || iw > ia {
		t.Errorf("warnings must come before the tables (warnings at %d, arms at %d):\n%s", iw, ia, s)
	}
	for _, want := range []string{
		"! variant w is identical to the baseline",
		"no_y vs base: Only 2 tasks changed outcome",
		"│ no_x ", // arm names verbatim in headers and rows (no tablewriter auto-format)
		"p=0.0156; rescued 7, broke 0",
		"+34.5 [+3.6, +57.4] adj.",
		"0.0312 (sign-flip)",
		"p=0.0312; rescued 7, broke 0", // Durkalski's McNemar by task, exact
		"Diagnostics (assume independent attempts",
		"target: x",
		"fired in 1/25 (1 passed), 3 events",
		"Gate (fail if worse by more than 5.0 pts with the interval below 0 and p_holm below alpha): passed: no variant is shown worse.",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("terminal report lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "NO X") || strings.Contains(s, "MC NEMAR") {
		t.Errorf("headers were auto-formatted:\n%s", s)
	}

	var md strings.Builder
	if err := MarkdownReport(&md, a); err != nil {
		t.Fatal(err)
	}
	m := md.String()
	for _, want := range []string{
		"## Ablation: 2 variants vs baseline `base`",
		"> [!WARNING]\n> - variant w is identical to the baseline",
		"| variant | scope | tasks (informative) | baseline | variant | Δ pts [95% CI] | p_paired | p_perm | p_holm | McNemar by task (Durkalski) | MDE | power | gate |",
		"| no_x | all common | 15 (6) | 16/25 (64.0%) | 23/25 (92.0%) | +34.5 [+3.6, +57.4] adj. |",
		"**Gate (fail if worse by more than 5.0 pts with the interval below 0 and p_holm below alpha): passed: no variant is shown worse.**",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("markdown report lacks %q:\n%s", want, m)
		}
	}
	if strings.Index(m, "[!WARNING]") > strings.Index(m, "**Arms**") {
		t.Error("markdown warnings after the tables")
	}
}

// writeTraj writes a trajectory for attempt id under runDir.
func writeTraj(t *testing.T, runDir, id string, tr results.Trajectory) {
	t.Helper()
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(runDir, results.TrajectoryPath(id))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeRunDir makes runDir a run directory of recs (a manifest of their arms, attempts.jsonl with every
// record's trajectory path except noTraj's) and opens it.
func writeRunDir(t *testing.T, runDir string, recs []results.Attempt, noTraj string) *results.Run {
	t.Helper()
	plan := results.Plan{Suite: "zoo", Reps: 1, Baseline: recs[0].Variant}
	for _, r := range recs {
		if _, ok := plan.Variant(r.Variant); !ok {
			plan.Variants = append(plan.Variants, results.Variant{Name: r.Variant})
		}
	}
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteManifest(runDir, &results.Manifest{RunID: "html", Plan: plan}); err != nil {
		t.Fatal(err)
	}
	w, err := results.OpenWriter(runDir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, r := range recs {
		if r.AttemptID != noTraj {
			r.Trajectory = results.TrajectoryPath(r.AttemptID)
		}
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	run, err := results.Open(runDir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

var linkRE = regexp.MustCompile(`(?i)\b(href|src)="([^"]*)"`)

// checkLinks asserts that every href/src of the page at path resolves to a
// file that exists and that nothing is loaded from the network; it returns
// the links.
func checkLinks(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	low := strings.ToLower(s)
	for _, bad := range []string{`src="http`, `href="http`, `src="//`, `href="//`, "url(", "@import", "<script", "<link",
		"<iframe"} {
		if strings.Contains(low, bad) {
			t.Errorf("%s contains %q", filepath.Base(path), bad)
		}
	}
	var links []string
	for _, m := range linkRE.FindAllStringSubmatch(s, -1) {
		u := m[2]
		if strings.HasPrefix(u, "#") {
			continue
		}
		links = append(links, u)
		if strings.Contains(u, ":") {
			t.Errorf("%s: absolute link %q", filepath.Base(path), u)
			continue
		}
		target := filepath.Join(filepath.Dir(path), filepath.FromSlash(u))
		if _, err := os.Stat(target); err != nil {
			t.Errorf("%s: link %q does not resolve: %v", filepath.Base(path), u, err)
		}
	}
	return links
}

// checkSVG asserts that every <svg>…</svg> block of s is well-formed XML and
// returns their number.
func checkSVG(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for {
		i := strings.Index(s, "<svg")
		if i < 0 {
			return n
		}
		j := strings.Index(s[i:], "</svg>")
		if j < 0 {
			t.Fatal("unterminated <svg>")
		}
		block := s[i : i+j+len("</svg>")]
		d := xml.NewDecoder(strings.NewReader(block))
		d.Strict = true
		for {
			_, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("svg %d not well-formed: %v", n, err)
			}
		}
		n++
		s = s[i+j:]
	}
}

func TestHTMLReport(t *testing.T) {
	recs, in := reportFixture()
	a := Analyze(recs, in)
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
	writeTraj(t, runDir, id, results.Trajectory{SchemaVersion: results.TrajectorySchemaVersion, TaskID: "t3",
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

	run := writeRunDir(t, runDir, recs, recs[5].AttemptID)
	if err := HTMLReport(out, a, recs, run); err != nil {
		t.Fatal(err)
	}
	rp := filepath.Join(out, HTMLReportFile)
	b, err := os.ReadFile(rp)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if n := checkSVG(t, s); n != 2 {
		t.Errorf("report has %d svg blocks, want 2 (forest plot, heatmap)", n)
	}
	if strings.Contains(s, "http://") || strings.Contains(s, "https://") {
		t.Error("report.html mentions http(s):// (no network resource may be referenced)")
	}
	// Forest plot: one dot per comparison with data (2 variants + 2 targets).
	if n := strings.Count(s, "<circle"); n != 4 {
		t.Errorf("forest plot has %d dots, want 4", n)
	}
	for _, want := range []string{"variant w is identical to the baseline", "+34.5 [+3.6, +57.4]  p_holm=0.0625",
		">9/11<", ">10/11<", "rescued 7, broke 0"} {
		if !strings.Contains(html.UnescapeString(s), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	links := checkLinks(t, rp)
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
		checkLinks(t, filepath.Join(out, HTMLAttemptsDir, safeID(r.AttemptID)+".html"))
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

// TestHolmFloorAndInconclusiveGate: 7 variants each failing all 6 tasks the baseline passes. Each p_paired is the
// exact floor 2/2^6 = 0.03125, so Holm's first step gives 7 × 0.03125 = 0.219: the gate passes, and the report
// must say the variants look worse but are not shown worse, and warn that no variant can pass Holm at 6 tasks
// (9 are needed: 7 × 2/2^9 = 0.027 < 0.05).
func TestHolmFloorAndInconclusiveGate(t *testing.T) {
	recs := tasksOf("base", "PPPPPP")
	var names []string
	for i := range 7 {
		n := fmt.Sprintf("v%d", i)
		names = append(names, n)
		recs = append(recs, tasksOf(n, "FFFFFF")...)
	}
	a := Analyze(recs, Inputs{Baseline: "base", Variants: names, FailIfWorse: 0.05})
	approx(t, "p_paired", a.Variants[0].All.P, 0.03125, 1e-12)
	approx(t, "p_holm", a.Variants[0].PHolm, 0.21875, 1e-12)
	if failed, _ := a.Gate(0.05); failed {
		t.Fatal("gate failed at p_holm 0.219")
	}
	inc := a.GateInconclusive(0.05)
	if len(inc) != 7 || !strings.Contains(inc[0], "v0: Δ = -100.0 pts") || !strings.Contains(inc[0], "not shown worse") {
		t.Errorf("inconclusive = %q", inc)
	}
	var floor string
	for _, w := range a.Warnings {
		if w.Kind == WarnHolmFloor {
			floor = w.Text
		}
	}
	if !strings.Contains(floor, "v0, v1, v2, v3, v4, v5, v6 vs base: With 6 tasks compared, p_paired could at best reach 2/2^6 = 0.0312 (every task moved the same way), and 7 variants") ||
		!strings.Contains(floor, "p_holm ≥ 0.219") || !strings.Contains(floor, "at least 9 tasks") {
		t.Errorf("holm_floor warning = %q", floor)
	}
	if line := gateLine(a); !strings.Contains(line, "passed: no variant is shown worse. Inconclusive, not evidence of no harm: v0:") {
		t.Errorf("gate line = %q", line)
	}
	// With 9 tasks the floor is below α: no warning.
	recs = tasksOf("base", "PPPPPPPPP")
	for _, n := range names {
		recs = append(recs, tasksOf(n, "FFFFFFFFF")...)
	}
	for _, w := range Analyze(recs, Inputs{Baseline: "base", Variants: names}).Warnings {
		if w.Kind == WarnHolmFloor {
			t.Errorf("9 tasks: unexpected warning %q", w.Text)
		}
	}
}
