package html

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"webbench/analysis"
	"webbench/browser"
	"webbench/report"
	"webbench/report/reporttest"
	"webbench/results"
)

// findAll returns the element nodes under n with tag name tag, in document order.
func findAll(n *html.Node, tag string) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == tag {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// flatGallery returns the src of every img on the page, in order, and fails t (naming the case what) for one
// shown as a step thumbnail.
func flatGallery(t *testing.T, doc *html.Node, what string) []string {
	t.Helper()
	var srcs []string
	for _, img := range findAll(doc, "img") {
		if strings.Contains(attr(img, "class"), "thumb") {
			t.Errorf("%s: step thumbnail %q", what, attr(img, "src"))
		}
		srcs = append(srcs, attr(img, "src"))
	}
	return srcs
}

func parsePage(t *testing.T, path string) *html.Node {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := html.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

// TestAttemptPageStepScreenshotsAndTrace: a trajectory whose screenshots say which step each
// was taken after (screenshot_steps) shows each beside that step's tool call, with a note naming the steps that
// have one; the attempt's Playwright trace (traces/<attempt_id>.zip) is linked with the commands that open it
// (https://playwright.dev/docs/trace-viewer); a trajectory without screenshot_steps keeps the flat gallery.
func TestAttemptPageStepScreenshotsAndTrace(t *testing.T) {
	recs, in := reporttest.ReportFixture()
	a := analysis.Analyze(recs, in)
	runDir := filepath.Join(t.TempDir(), "run")
	out := filepath.Join(runDir, "report")
	png := []byte("\x89PNG\r\n\x1a\n")
	shots := func(id string, n int) []string {
		var rel []string
		if err := os.MkdirAll(filepath.Join(runDir, results.ScreenshotsDir, id), 0o755); err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= n; i++ {
			p := filepath.ToSlash(filepath.Join(results.ScreenshotsDir, id, fmt.Sprintf("%02d.png", i)))
			if err := os.WriteFile(filepath.Join(runDir, filepath.FromSlash(p)), png, 0o644); err != nil {
				t.Fatal(err)
			}
			rel = append(rel, p)
		}
		return rel
	}
	step := func(i int, name string) *results.Step {
		c := results.ToolCall{ID: "c" + name, Name: name, Args: "{}"}
		return &results.Step{Index: i, ToolCalls: []results.ToolCall{c},
			Results: []*results.ToolRecord{{Call: c, Raw: browser.Result{Result: "ok"}}}}
	}
	// recs[3]: four steps, screenshots kept after steps 1, 2 and 3 (two after step 3: the agent's own
	// browser_take_screenshot and the judge's capture), none after step 0.
	withSteps := recs[3].AttemptID
	s1 := shots(withSteps, 4)
	reporttest.WriteTraj(t, runDir, withSteps, results.Trajectory{SchemaVersion: results.TrajectorySchemaVersion, TaskID: recs[3].TaskID, Goal: "g",
		Steps:       []*results.Step{step(0, "browser_navigate"), step(1, "browser_click"), step(2, "browser_type"), step(3, "browser_take_screenshot")},
		Finish:      results.FinishRecord{Reason: "final"},
		Screenshots: s1, ScreenshotSteps: []int{1, 2, 3, 3}})
	if err := os.MkdirAll(filepath.Join(runDir, results.TracesDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runDir, results.TracesDir, withSteps+".zip"), []byte("PK\x03\x04"), 0o644); err != nil {
		t.Fatal(err)
	}
	// recs[6]: written before screenshot_steps existed.
	old := recs[6].AttemptID
	s2 := shots(old, 2)
	reporttest.WriteTraj(t, runDir, old, results.Trajectory{SchemaVersion: results.TrajectorySchemaVersion, TaskID: recs[6].TaskID, Goal: "g",
		Steps: []*results.Step{step(0, "browser_click")}, Finish: results.FinishRecord{Reason: "final"}, Screenshots: s2})

	// recs[5]: no trajectory (an attempt that ended before one was written) but a trace.
	noTraj := recs[5].AttemptID
	if err := os.WriteFile(filepath.Join(runDir, results.TracesDir, noTraj+".zip"), []byte("PK\x03\x04"), 0o644); err != nil {
		t.Fatal(err)
	}
	// recs[7]: screenshot_steps names a step the trajectory has no block for: every screenshot in the flat gallery.
	stray := recs[7].AttemptID
	s3 := shots(stray, 2)
	reporttest.WriteTraj(t, runDir, stray, results.Trajectory{SchemaVersion: results.TrajectorySchemaVersion, TaskID: recs[7].TaskID, Goal: "g",
		Steps: []*results.Step{step(0, "browser_click")}, Finish: results.FinishRecord{Reason: "final"},
		Screenshots: s3, ScreenshotSteps: []int{0, 9}})

	run := reporttest.WriteRunDir(t, runDir, recs, noTraj)
	if err := HTMLReport(out, a, nil, recs, run); err != nil {
		t.Fatal(err)
	}

	page := filepath.Join(out, HTMLAttemptsDir, safeID(withSteps)+".html")
	reporttest.CheckLinks(t, page) // every href and src resolves to a file
	doc := parsePage(t, page)
	want := map[string][]string{"step-0": nil, "step-1": {s1[0]}, "step-2": {s1[1]}, "step-3": {s1[2], s1[3]}}
	seen := 0
	for _, div := range findAll(doc, "div") {
		id := attr(div, "id")
		w, ok := want[id]
		if !ok {
			continue
		}
		seen++
		imgs := findAll(div, "img")
		if len(imgs) != len(w) {
			t.Errorf("%s: %d screenshots, want %d", id, len(imgs), len(w))
			continue
		}
		for i, img := range imgs {
			if got := attr(img, "src"); got != "../../"+w[i] {
				t.Errorf("%s: img %d src %q, want %q", id, i, got, "../../"+w[i])
			}
		}
		// The screenshot sits beside this step's tool call.
		if len(w) > 0 && !strings.Contains(textOf(div), "Tool call ") {
			t.Errorf("%s: the block with the screenshot has no tool call", id)
		}
	}
	if seen != 4 {
		t.Fatalf("found %d of the 4 step blocks", seen)
	}
	var gallery, traceHref string
	for _, h := range findAll(doc, "h2") {
		if textOf(h) == "Screenshots" {
			gallery = "yes"
		}
	}
	if gallery != "" {
		t.Error("a page with per-step screenshots also has the flat gallery")
	}
	body := textOf(doc)
	for _, s := range []string{"screenshots kept for steps 1–3",
		"npx playwright show-trace -p 0 " + filepath.ToSlash(filepath.Join(runDir, "traces", withSteps+".zip")),
		"node .cache/driver/node_modules/playwright-core/cli.js show-trace -p 0 " + filepath.ToSlash(filepath.Join(runDir, "traces", withSteps+".zip"))} {
		if !strings.Contains(body, s) {
			t.Errorf("attempt page lacks %q", s)
		}
	}
	for _, l := range findAll(doc, "a") {
		if strings.HasSuffix(attr(l, "href"), ".zip") {
			traceHref = attr(l, "href")
		}
	}
	if traceHref != "../../traces/"+withSteps+".zip" {
		t.Errorf("trace link %q, want ../../traces/%s.zip", traceHref, withSteps)
	}

	// No trajectory: the page says so and still links the trace.
	page = filepath.Join(out, HTMLAttemptsDir, safeID(noTraj)+".html")
	reporttest.CheckLinks(t, page)
	doc = parsePage(t, page)
	if b := textOf(doc); !strings.Contains(b, "No trajectory file was found") || !strings.Contains(b, "show-trace -p 0 ") {
		t.Errorf("attempt without a trajectory: want its note and the trace commands, got %q", b)
	}
	found := false
	for _, l := range findAll(doc, "a") {
		found = found || attr(l, "href") == "../../traces/"+noTraj+".zip"
	}
	if !found {
		t.Error("attempt without a trajectory: no link to its trace")
	}

	// A step index with no step block: nothing is lost, all shown flat, none beside a step.
	page = filepath.Join(out, HTMLAttemptsDir, safeID(stray)+".html")
	doc = parsePage(t, page)
	if strayImgs := flatGallery(t, doc, "stray step"); len(strayImgs) != 2 {
		t.Errorf("stray step: %d screenshots shown, want both", len(strayImgs))
	}

	// The old trajectory: the flat gallery, no step thumbnails, no trace (none was recorded).
	page = filepath.Join(out, HTMLAttemptsDir, safeID(old)+".html")
	reporttest.CheckLinks(t, page)
	doc = parsePage(t, page)
	flat := flatGallery(t, doc, "old trajectory")
	if len(flat) != 2 || flat[0] != "../../"+s2[0] || flat[1] != "../../"+s2[1] {
		t.Errorf("old trajectory: gallery %q, want both screenshots in order", flat)
	}
	if b := textOf(doc); strings.Contains(b, "show-trace") || strings.Contains(b, "screenshots kept for") {
		t.Error("old trajectory without a trace: the page offers a trace or a step note")
	}
}

func TestShotNote(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{
		{[]int{12, 13, 14, 15}, "screenshots kept for steps 12–15"},
		{[]int{3, 3}, "screenshots kept for step 3"},
		{[]int{9, 3, 4, 5, 9, 11}, "screenshots kept for steps 3–5, 9, 11"},
	} {
		if got := shotNote(c.in); got != c.want {
			t.Errorf("shotNote(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"runs/demo/traces/ab12.zip": "runs/demo/traces/ab12.zip",
		"my runs/x.zip":             "'my runs/x.zip'",
		"it's/x.zip":                `'it'\''s/x.zip'`,
		"$HOME/x.zip":               "'$HOME/x.zip'",
	} {
		if got := report.ShellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
