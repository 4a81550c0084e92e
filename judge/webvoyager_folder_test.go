package judge

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"webbench/suites/webvoyager"
)

// examplesDir locates the four shipped WebVoyager result folders: $WEBBENCH_SHARED/datasets/webvoyager/examples,
// else ../shared/… relative to the repository root (CI's layout). The test is skipped when absent.
func examplesDir(t *testing.T) string {
	t.Helper()
	var dirs []string
	if s := os.Getenv("WEBBENCH_SHARED"); s != "" {
		dirs = append(dirs, filepath.Join(s, "datasets", "webvoyager", "examples"))
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				dirs = append(dirs, filepath.Join(d, "..", "shared", "datasets", "webvoyager", "examples"))
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "taskAmazon--0", "interact_messages.json")); err == nil {
			return d
		}
	}
	t.Skipf("WebVoyager example folders not found (looked in %v): set WEBBENCH_SHARED to the shared/ directory", dirs)
	return ""
}

func TestLoadWebVoyagerExamples(t *testing.T) {
	root := examplesDir(t)
	cases := []struct {
		folder, id, site, start, goalPrefix, answerPrefix string
		shots                                             int
	}{
		{"taskAmazon--0", "Amazon--0", "Amazon", "https://www.amazon.com/",
			"Search an Xbox Wireless controller with green color and rated above 4 stars.",
			`The green Xbox Wireless controller ("Xbox Core Wireless Gaming Controller – Velocity Green") rated above 4 stars`, 3},
		{"taskApple--17", "Apple--17", "Apple", "https://www.apple.com/",
			"Search Apple for the accessory Smart Folio for iPad and check the closest pickup availability next to zip code 90038.",
			"The closest pickup availability for the Smart Folio for iPad (10th generation) near zip code 90038 is at Apple Tower Theatre", 6},
		{"taskArXiv--11", "ArXiv--11", "ArXiv", "https://arxiv.org/",
			"For Non-English submissions, do I need to provide a multi-language abstract, if need, answer the separator between the multiple abstracts.",
			`Line ("-----")`, 7},
		{"taskCoursera--16", "Coursera--16", "Coursera", "https://www.coursera.org/",
			"Identify a course on Coursera named 'Introduction to Finance: The Basics', who is the course instructor and what other courses does he/she teach.",
			"The course instructor for 'Introduction to Finance: The Basics' is Xi Yang.", 5},
	}
	folders, err := ListWebVoyagerFolders(root)
	if err != nil || len(folders) != 4 {
		t.Fatalf("ListWebVoyagerFolders: %v %v", folders, err)
	}
	for i, c := range cases {
		if filepath.Base(folders[i]) != c.folder {
			t.Errorf("folder %d = %s, want %s", i, folders[i], c.folder)
		}
		in, err := LoadWebVoyagerFolder(filepath.Join(root, c.folder))
		if err != nil {
			t.Fatalf("%s: %v", c.folder, err)
		}
		tk := in.Task
		if tk.ID != c.id || tk.App != c.site || tk.Cluster != c.site || tk.Start != c.start || tk.Suite != "webvoyager" {
			t.Errorf("%s: task %+v", c.folder, tk)
		}
		if tk.Goal != c.goalPrefix {
			t.Errorf("%s: goal %q, want %q", c.folder, tk.Goal, c.goalPrefix)
		}
		if !strings.HasPrefix(in.Final, c.answerPrefix) || !in.OK || strings.Contains(in.Final, "Action:") {
			t.Errorf("%s: final %q, want prefix %q", c.folder, in.Final, c.answerPrefix)
		}
		if len(in.Screenshots) != c.shots {
			t.Errorf("%s: %d screenshots, want %d", c.folder, len(in.Screenshots), c.shots)
		}
		for n := 1; n <= len(in.Screenshots); n++ {
			b, _ := os.ReadFile(filepath.Join(root, c.folder, "screenshot"+strconv.Itoa(n)+".png"))
			if !bytes.Equal(in.Screenshots[n-1], b) {
				t.Errorf("%s: screenshot %d out of order", c.folder, n)
			}
		}
	}
	// A published trajectory judged end to end: the judge sees the last k of the folder's screenshots.
	in, _ := LoadWebVoyagerFolder(filepath.Join(root, "taskArXiv--11"))
	js := newJudgeServer(t, "The screenshot shows the separator line.\nVERDICT: SUCCESS")
	v, err := NewLLM(js.client(t), 5).Judge(t.Context(), in)
	if err != nil || !v.Pass {
		t.Fatalf("judge: %+v %v", v, err)
	}
	r := js.requests()[0]
	if len(r.Images) != 5 || !bytes.Equal(r.Images[4], in.Screenshots[6]) || !bytes.Equal(r.Images[0], in.Screenshots[2]) {
		t.Errorf("judge got %d images, not the last 5 in order", len(r.Images))
	}
	if !strings.Contains(strings.Join(r.Texts, "\n"), `Line ("-----")`) {
		t.Error("judge request lacks the answer")
	}
}

func TestLoadWebVoyagerFolderSynthetic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "taskGoogle Flights--7")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Screenshot numbers past 9 sort numerically, not as strings; other files are ignored.
	for _, n := range []int{10, 2, 1, 9} {
		write("screenshot"+strconv.Itoa(n)+".png", "shot"+strconv.Itoa(n))
	}
	write("screenshot_final.png", "x")
	write("notes.txt", "x")
	msgs := `[{"role": "system", "content": "sys"},
	 {"role": "user", "content": [{"type": "text", "text": "Now given a task: Find a flight.  Please interact with https://www.google.com/travel/flights and get the answer. \nObservation: ..."}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]},
	 {"role": "assistant", "content": "Thought: done.\n\nAction: ANSWER; [Air Canada, 5h 10m]"}]`
	write("interact_messages.json", msgs)
	in, err := LoadWebVoyagerFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if in.Task.ID != "Google Flights--7" || in.Task.App != "Google Flights" || in.Task.Goal != "Find a flight." ||
		in.Task.Start != "https://www.google.com/travel/flights" || in.Final != "Air Canada, 5h 10m" {
		t.Errorf("loaded %+v final %q", in.Task, in.Final)
	}
	var got []string
	for _, s := range in.Screenshots {
		got = append(got, string(s))
	}
	if strings.Join(got, ",") != "shot1,shot2,shot9,shot10" {
		t.Errorf("screenshot order %v", got)
	}

	// A last message whose content is neither text nor parts cannot be read: ErrUnreadableAnswer, not "no answer".
	write("interact_messages.json", `[{"role": "user", "content": "Now given a task: T. Please interact with https://x.test/ and get the answer."}, {"role": "assistant", "content": 5}]`)
	if in, err := LoadWebVoyagerFolder(dir); !errors.Is(err, ErrUnreadableAnswer) || in.Task.Goal != "T." || !strings.Contains(err.Error(), "message 1") {
		t.Errorf("content 5: %+v, %v", in.Task, err)
	}

	// No answer action: Final is empty, OK false (the llm judge then fails it without a call).
	write("interact_messages.json", `[{"role": "system", "content": "s"}, {"role": "user", "content": "Now given a task: T. Please interact with https://x.test/ and get the answer."}, {"role": "assistant", "content": "Thought: t\nAction: Click [3]"}]`)
	if in, err := LoadWebVoyagerFolder(dir); err != nil || in.Final != "" || in.OK {
		t.Errorf("no answer: %q %v", in.Final, err)
	}
	// Bad folders are errors naming the file.
	write("interact_messages.json", `[{"role": "system", "content": "only the system prompt"}]`)
	if in, err := LoadWebVoyagerFolder(dir); !errors.Is(err, ErrNoTaskText) || !strings.Contains(err.Error(), "interact_messages.json") ||
		in.Task.ID == "" || in.Task.Goal != "" {
		t.Errorf("no task: %+v, %v", in.Task, err)
	}
	// No task text and an unreadable answer: both errors, so a caller that has the question still does not grade
	// an empty answer as the agent's.
	write("interact_messages.json", `[{"role": "user", "content": "hi"}, {"role": "assistant", "content": 5}]`)
	if _, err := LoadWebVoyagerFolder(dir); !errors.Is(err, ErrNoTaskText) || !errors.Is(err, ErrUnreadableAnswer) {
		t.Errorf("no task, unreadable answer: %v", err)
	}
	write("interact_messages.json", `{"role": `)
	if _, err := LoadWebVoyagerFolder(dir); err == nil || !strings.Contains(err.Error(), "interact_messages.json") {
		t.Errorf("malformed: %v", err)
	}
	if _, err := LoadWebVoyagerFolder(t.TempDir()); err == nil {
		t.Error("folder without interact_messages.json must be an error")
	}
	if _, err := ListWebVoyagerFolders(t.TempDir()); err == nil {
		t.Error("an empty directory has no result folders")
	}
	if f, err := ListWebVoyagerFolders(dir); err != nil || len(f) != 1 || f[0] != dir {
		t.Errorf("a folder lists itself: %v %v", f, err)
	}
}

func TestExtractWebVoyagerAnswer(t *testing.T) {
	for msg, want := range map[string]string{
		"Thought: x\n\nAction: ANSWER; The answer is 3.":             "The answer is 3.",
		"Thought: x\nAction: ANSWER; [Xi Yang]":                      "Xi Yang",
		"Action: ANSWER: 42":                                         "42",
		"Thought: x\nAction: Click [5]":                              "",
		"Thought: the ANSWER is near\nAction: Scroll [WINDOW]; down": "",
		// Issue 12: the whole keyword, and only the message's own action line.
		"Thought: done\nAction: ANSWERED; yes":                                        "",
		"Thought: next I would write Action: ANSWER; x\nAction: Click [3]":            "",
		"Thought: I said Action: ANSWER; x before\nAction: ANSWER; y":                 "y",
		"Thought: x\nAction: ANSWER; Line (\"-----\")":                                `Line ("-----")`,
		"Thought: x\n**Action:** ANSWER; 3 courses":                                   "3 courses",
		"Thought: x\nAction: ANSWER; first line\nsecond line":                         "first line\nsecond line",
		"Thought: x\nAction: ANSWER":                                                  "",
		"Action: Type [4]; ANSWER; not an answer":                                     "",
		"Thought: the answer is below\r\nAction: ANSWER; [The green Xbox controller]": "The green Xbox controller",
		// Review S4: the action may follow the thought on its line (the published agent splits on the markers
		// anywhere), and it ends at the next Thought:/Observation: marker.
		"Thought: done. Action: ANSWER; 5":                                    "5",
		"Thought: found it.Action: ANSWER; [42 stars]":                        "42 stars",
		"Thought: x\nAction: ANSWER; the price is $12\nObservation: the page": "the price is $12",
		"Thought: x\n- **Action**: ANSWER; Pillow":                            "Pillow",
		"Thought: x\nAction: ANSWER;\n1. Alpha\n2. Beta":                      "1. Alpha\n2. Beta",
		"Thought: the Reaction: button is here\nAction: Click [2]":            "",
		"Thought: nothing to do\nAction: Wait":                                "",
		"I think the answer is 5.":                                            "",
	} {
		got, err := ExtractWebVoyagerAnswer(msg)
		if got != want || err != nil {
			t.Errorf("ExtractWebVoyagerAnswer(%q) = %q, %v, want %q", msg, got, err, want)
		}
	}
	// An ANSWER action whose message ends on an action that is neither an answer nor another of the agent's
	// actions cannot be read: an error, never a silent "no answer".
	for _, msg := range []string{
		"Thought: x\nAction: ANSWER; The steps are:\n1. open it\nAction: press the button",
		"Action: ANSWER; 5\nAction: done",
	} {
		if got, err := ExtractWebVoyagerAnswer(msg); !errors.Is(err, ErrUnreadableAnswer) || got != "" {
			t.Errorf("ExtractWebVoyagerAnswer(%q) = %q, %v, want ErrUnreadableAnswer", msg, got, err)
		}
	}
}

func TestCohenKappa(t *testing.T) {
	// Table orientation: index 0 is pass, rows are judge a.
	k, tab := CohenKappa([]bool{true, true, false, false}, []bool{true, false, true, false})
	if tab != [2][2]int{{1, 1}, {1, 1}} || math.Abs(k) > 1e-12 {
		t.Errorf("kappa %v table %v", k, tab)
	}
	k, tab = CohenKappa([]bool{true, true, false}, []bool{true, false, true})
	if tab != [2][2]int{{1, 1}, {1, 0}} {
		t.Errorf("table %v", tab)
	}
	// Textbook example (Wikipedia, "Cohen's kappa"): 20 both yes, 5 a-yes/b-no, 10 a-no/b-yes, 15 both no → κ = 0.4.
	a, b := fromTable(20, 5, 10, 15)
	k, tab = CohenKappa(a, b)
	if tab != [2][2]int{{20, 5}, {10, 15}} || math.Abs(k-0.4) > 1e-12 {
		t.Errorf("kappa = %v table %v, want 0.4", k, tab)
	}
	// Second example: 45, 15, 25, 15 → po 0.6, pe 0.54, κ = 0.06/0.46.
	a, b = fromTable(45, 15, 25, 15)
	if k, _ = CohenKappa(a, b); math.Abs(k-0.06/0.46) > 1e-12 {
		t.Errorf("kappa = %v, want %v", k, 0.06/0.46)
	}
	// Perfect agreement on both verdicts is 1; perfect disagreement with balanced marginals is −1.
	if k, _ = CohenKappa([]bool{true, false, true}, []bool{true, false, true}); k != 1 {
		t.Errorf("perfect agreement: %v", k)
	}
	if k, _ = CohenKappa([]bool{true, false}, []bool{false, true}); k != -1 {
		t.Errorf("perfect disagreement: %v", k)
	}
	// Undefined: every verdict the same for both judges (pe = 1), no pairs, unequal lengths.
	for _, c := range [][2][]bool{{{true, true}, {true, true}}, {nil, nil}, {{true}, {true, false}}} {
		if k, _ := CohenKappa(c[0], c[1]); !math.IsNaN(k) {
			t.Errorf("CohenKappa(%v, %v) = %v, want NaN", c[0], c[1], k)
		}
	}

	ag := CompareJudges(fromTable(20, 5, 10, 15))
	if ag.N != 50 || ag.Kappa == nil || math.Abs(*ag.Kappa-0.4) > 1e-12 || math.Abs(ag.Observed-0.7) > 1e-12 ||
		math.Abs(ag.Chance-0.5) > 1e-12 || math.Abs(ag.PassA-0.5) > 1e-12 || math.Abs(ag.PassB-0.6) > 1e-12 {
		t.Errorf("agreement %+v", ag)
	}
	// SE = sqrt(po(1-po) / (n (1-pe)^2)) = sqrt(0.21 / (50 * 0.25)).
	if want := math.Sqrt(0.21 / 12.5); ag.SE == nil || math.Abs(*ag.SE-want) > 1e-12 {
		t.Errorf("SE %v, want %v", ag.SE, want)
	}
	if ag := CompareJudges([]bool{true}, []bool{true}); ag.Kappa != nil || ag.SE != nil || ag.N != 1 {
		t.Errorf("undefined agreement %+v", ag)
	}
}

// fromTable expands a 2×2 table (both pass, a pass/b fail, a fail/b pass, both fail) into verdict pairs.
func fromTable(pp, pf, fp, ff int) (a, b []bool) {
	add := func(n int, x, y bool) {
		for i := 0; i < n; i++ {
			a, b = append(a, x), append(b, y)
		}
	}
	add(pp, true, true)
	add(pf, true, false)
	add(fp, false, true)
	add(ff, false, false)
	return a, b
}

// The WebVoyager repository's example result folders judged by the answer judge against the real
// reference_answer.json: the golden tasks pass as a human reads them (Apple Tower
// Theatre; the "-----" separator), the "possible" ones are judge errors (free text: the llm judge's), never a fail.
func TestWebVoyagerExamplesAgainstAnswers(t *testing.T) {
	root := examplesDir(t)
	answers, err := webvoyager.ReadAnswersFile(filepath.Join(root, "..", "reference_answer.json"))
	if err != nil {
		t.Skipf("reference_answer.json beside the examples: %v", err)
	}
	byKey := map[string]webvoyager.RefAnswer{}
	for _, a := range answers {
		byKey[a.Key()] = a
	}
	want := map[string]string{"Apple--17": "pass", "ArXiv--11": "pass", "Amazon--0": "error", "Coursera--16": "error"}
	folders, err := ListWebVoyagerFolders(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range folders {
		in, err := LoadWebVoyagerFolder(fd)
		if err != nil {
			t.Fatal(err)
		}
		a, ok := byKey[in.Task.ID]
		if !ok {
			t.Fatalf("%s: no reference answer", in.Task.ID)
		}
		rule := webvoyager.AnswerRuleFor(a)
		in.Task.Check.Answer = &rule
		v, err := Answer{}.Judge(t.Context(), in)
		if err != nil || v.Outcome() != want[in.Task.ID] {
			t.Errorf("%s (%s %q, answer %q): %s %s %v, want %s", in.Task.ID, a.Type, a.Ans, in.Final, v.Outcome(), v.Reason+v.Error, err, want[in.Task.ID])
		}
	}
}
