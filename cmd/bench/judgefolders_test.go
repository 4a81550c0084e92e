package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"webbench/internal/replay"
	"webbench/judge"
	"webbench/suites/webvoyager"
)

// writeFolder writes a WebVoyager result folder in the README's format: interact_messages.json with the task's
// first user message and the agent's last assistant message.
func writeFolder(t *testing.T, root, name, task, last string) {
	t.Helper()
	d := filepath.Join(root, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	msgs := []map[string]any{
		{"role": "system", "content": "You are a robot browsing the web."},
		{"role": "user", "content": []map[string]string{{"type": "text", "text": "Now given a task: " + task +
			"  Please interact with https://www.example.test/ and get the answer. \nObservation: a screenshot"}}},
		{"role": "assistant", "content": last},
	}
	b, _ := json.Marshal(msgs)
	if err := os.WriteFile(filepath.Join(d, "interact_messages.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// bench judge over WebVoyager result folders joins each folder to --answers and --tasks-file by task id, prints
// a summary, writes no "pass" beside an error or an uncertain verdict, and refuses a missing file (exit 2,
// naming it) and --judge answer without any answers.
func TestJudgeFoldersJoinAnswers(t *testing.T) {
	root := t.TempDir()
	writeFolder(t, root, "taskShop--1", "How many styles of the shirt are there?", "Thought: found it\nAction: ANSWER; There are 3 styles.")
	writeFolder(t, root, "taskShop--2", "Which company owns the shop?", "Thought: hm\nAction: ANSWER; Expedia Group")
	writeFolder(t, root, "taskShop--3", "How many colors?", "Thought: two lists\nAction: ANSWER; 3 of the 4 colors are in stock")
	writeFolder(t, root, "taskShop--4", "Describe the shop.", "Thought: x\nAction: ANSWER; A small shop.")
	writeFolder(t, root, "taskShop--9", "Not in the answers file.", "Thought: x\nAction: ANSWER; 1")
	writeFolder(t, root, "taskShop--5", "Quoted answer, clicked.", "Thought: I will later do Action: ANSWER; 3\nAction: Click [4]")
	writeFolder(t, root, "taskShop--6", "Answer with a later Action line.", "Thought: x\nAction: ANSWER; 3 steps:\n1. open\nAction: press it")
	os.MkdirAll(filepath.Join(root, "taskShop--7"), 0o755) // no interact_messages.json: warned about, not judged
	answers := filepath.Join(root, "reference_answer.json")
	os.WriteFile(answers, []byte(`{"Shop": {"notice": "", "answers": [
		{"id": 1, "type": "golden", "ans": "3"}, {"id": 2, "type": "golden", "ans": "Booking Holdings Inc."},
		{"id": 3, "type": "golden", "ans": "3"}, {"id": 4, "type": "possible", "ans": "a shop"},
		{"id": 5, "type": "golden", "ans": "3"}, {"id": 6, "type": "golden", "ans": "3"}]}}`), 0o644)
	tasks := filepath.Join(root, "tasks.jsonl")
	os.WriteFile(tasks, []byte(`{"web_name": "Shop", "id": "Shop--1", "ques": "How many styles of the arXiv Logo Shirt are available?", "web": "https://www.example.test/"}`+"\n"), 0o644)

	out, stderr, code := bench(t, "judge", root, "--judge", "answer", "--answers", answers, "--tasks-file", tasks)
	// Some folders graded, some judge errors: exit 4, the unknown task id named.
	if code != exitJudgeErrors || !strings.Contains(stderr, "3 of 7 answers are judge errors (unknown task ids: Shop--9)") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "7 folders judged by answer: 1 pass, 2 fail, 1 uncertain, 3 judge errors") {
		t.Errorf("summary missing or wrong:\n%s", out)
	}
	if !strings.Contains(stderr, "taskShop--7 looks like a WebVoyager result folder but has no interact_messages.json: skipped") {
		t.Errorf("the folder without messages is not warned about: %s", stderr)
	}
	read := func(folder string) (map[string]any, string) {
		b, err := os.ReadFile(filepath.Join(root, folder, "verdict-answer.json"))
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Task    string         `json:"task"`
			Verdict map[string]any `json:"verdict"`
		}
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		return f.Verdict, f.Task
	}
	if v, task := read("taskShop--1"); v["pass"] != true || task != "How many styles of the arXiv Logo Shirt are available?" {
		t.Errorf("Shop--1 (joined, question from the tasks file): %v %q", v, task)
	}
	if v, _ := read("taskShop--2"); v["pass"] != false {
		t.Errorf("Shop--2 must fail: %v", v)
	}
	if v, _ := read("taskShop--3"); v["uncertain"] != true || v["pass"] != nil {
		t.Errorf("Shop--3 must be uncertain without a pass value: %v", v)
	}
	if v, _ := read("taskShop--4"); v["error"] == nil || v["pass"] != nil {
		t.Errorf("Shop--4 (possible answer) must be a judge error without a pass value: %v", v)
	}
	if v, _ := read("taskShop--9"); !strings.HasPrefix(v["error"].(string), "unknown task id Shop--9: not in ") || v["pass"] != nil {
		t.Errorf("Shop--9 (not in the files) must be an error naming them: %v", v)
	}
	if v, _ := read("taskShop--5"); v["pass"] != false {
		t.Errorf("Shop--5 (its action is a Click) has no answer and fails: %v", v)
	}
	if v, _ := read("taskShop--6"); v["pass"] != nil || !strings.Contains(fmt.Sprint(v["error"]), "cannot be read") {
		t.Errorf("Shop--6 (an ANSWER followed by another Action line) must be a judge error: %v", v)
	}

	missing := filepath.Join(root, "nope.json")
	if _, stderr, code := bench(t, "judge", root, "--judge", "answer", "--answers", missing); code != 2 || !strings.Contains(stderr, missing) {
		t.Errorf("missing answers file: exit %d, %s", code, stderr)
	}
	if _, stderr, code := bench(t, "judge", root, "--judge", "answer", "--answers", answers, "--tasks-file", missing); code != 2 || !strings.Contains(stderr, missing) {
		t.Errorf("missing tasks file: exit %d, %s", code, stderr)
	}
	if _, stderr, code := bench(t, "judge", root, "--judge", "answer"); code != 2 || !strings.Contains(stderr, "--answers") {
		t.Errorf("--judge answer without answers: exit %d, %s", code, stderr)
	}
	if _, stderr, code := bench(t, "judge", root, "--judge", "answer", "--answers", answers, "--suite", "zoo"); code != 2 || !strings.Contains(stderr, "webvoyager") {
		t.Errorf("--suite zoo on folders: exit %d, %s", code, stderr)
	}
}

// A folder whose messages do not give the task ("Now given a task: …") is judged with the question of
// --tasks-file when it has the task, else it is a judge error of its own while the other folders are judged;
// a --tasks-file without "Final answer" fields is no answers file (exit 2, saying why). Both used to stop
// or mislead the run.
func TestJudgeFoldersWithoutTaskText(t *testing.T) {
	root := t.TempDir()
	noTask := func(name, last string) {
		d := filepath.Join(root, name)
		os.MkdirAll(d, 0o755)
		b, _ := json.Marshal([]map[string]any{{"role": "user", "content": "Here is the page."}, {"role": "assistant", "content": last}})
		os.WriteFile(filepath.Join(d, "interact_messages.json"), b, 0o644)
	}
	noTask("taskShop--1", "Thought: ok\nAction: ANSWER; There are 3 styles.")
	noTask("taskShop--2", "Thought: ok\nAction: ANSWER; 3")
	// No task line and an answer that cannot be read, the question from the tasks file: a judge error for the
	// answer, not a fail of an empty one.
	noTask("taskShop--4", "Thought: ok\nAction: ANSWER; 3 steps:\n1. open\nAction: press it")
	writeFolder(t, root, "taskShop--3", "How many colors?", "Thought: ok\nAction: ANSWER; 3 colors")
	answers := filepath.Join(root, "reference_answer.json")
	os.WriteFile(answers, []byte(`{"Shop": {"notice": "", "answers": [{"id": 1, "type": "golden", "ans": "3"},
		{"id": 2, "type": "golden", "ans": "3"}, {"id": 3, "type": "golden", "ans": "3"}, {"id": 4, "type": "golden", "ans": "3"}]}}`), 0o644)
	tasks := filepath.Join(root, "tasks.jsonl")
	os.WriteFile(tasks, []byte(`{"web_name": "Shop", "id": "Shop--1", "ques": "How many styles of the arXiv Logo Shirt are available?", "web": "https://www.example.test/"}`+"\n"+
		`{"web_name": "Shop", "id": "Shop--4", "ques": "How many steps?", "web": "https://www.example.test/"}`+"\n"), 0o644)

	out, stderr, code := bench(t, "judge", root, "--judge", "answer", "--answers", answers, "--tasks-file", tasks)
	if code != exitJudgeErrors || !strings.Contains(out, "4 folders judged by answer: 2 pass, 0 fail, 0 uncertain, 2 judge errors") ||
		!strings.Contains(out, "taskShop--4/verdict-answer.json: judge error (") || !strings.Contains(out, "cannot be read") ||
		!strings.Contains(out, "taskShop--2/verdict-answer.json: judge error (no question: no --tasks-file gives task Shop--2, "+
			"and interact_messages.json has no user message \"Now given a task: …\")") {
		t.Errorf("exit %d:\n%s%s", code, out, stderr)
	}
	if _, stderr, code := bench(t, "report", root); code != 2 || !strings.Contains(stderr, "it holds 4 WebVoyager result folders") {
		t.Errorf("bench report on result folders: exit %d, %s", code, stderr)
	}
	// A folder of run directories: the hint names them, not a preflight.
	parent := t.TempDir()
	os.MkdirAll(filepath.Join(parent, "run-a"), 0o755)
	os.WriteFile(filepath.Join(parent, "run-a", "manifest.json"), []byte(`{}`), 0o644)
	if _, stderr, code := bench(t, "report", parent); code != 2 || !strings.Contains(stderr, "it holds 1 run directory (run-a)") {
		t.Errorf("bench report on a folder of runs: exit %d, %s", code, stderr)
	}
	if _, stderr, code := bench(t, "judge", root, "--judge", "answer", "--tasks-file", tasks); code != 2 ||
		!strings.Contains(stderr, "--tasks-file "+tasks+" gives no task an answer") {
		t.Errorf("--tasks-file without answers: exit %d, %s", code, stderr)
	}
}

// Every labelled case with a WebVoyager golden answer (judge/testdata/labelled_answers.yaml), written as a
// result folder in the README's format — the answer as the last message's "Action: ANSWER; …", the golden in an
// answers file, the question in a tasks file — and run through one bench judge: each folder's verdict is what
// judge.Grade gives the same rule, answer and question (the folder path loses nothing: extraction, joining,
// the rule derivation) or, for a golden with no checkable rule, a judge error; and no human-fail case passes.
func TestJudgeFoldersLabelledSet(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "judge", "testdata", "labelled_answers.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		ID, Question, Golden, Answer, Human string
	}
	if err := yaml.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	var refs []map[string]any
	var tasks strings.Builder
	type kept struct{ id, folder, want, human string }
	var ks []kept
	for _, c := range cases {
		if c.Golden == "" || strings.Contains(c.Answer, "Action:") || strings.Contains(c.Answer, "Thought:") ||
			strings.Contains(c.Answer, "Observation:") {
			continue
		}
		n := len(ks) + 1
		folder := fmt.Sprintf("taskSet--%d", n)
		writeFolder(t, root, folder, c.Question, "Thought: I have found it.\nAction: ANSWER; "+c.Answer)
		refs = append(refs, map[string]any{"id": n, "type": "golden", "ans": c.Golden})
		line, _ := json.Marshal(map[string]string{"web_name": "Set", "id": fmt.Sprintf("Set--%d", n), "ques": c.Question,
			"web": "https://www.example.test/"})
		tasks.Write(append(line, '\n'))
		r := webvoyager.AnswerRuleFor(webvoyager.RefAnswer{Type: "golden", Ans: c.Golden})
		o, _ := judge.Grade(r, c.Answer, c.Question)
		want := string(o)
		if r.Exact == "" && len(r.MustInclude) == 0 && r.Number == nil {
			want = "error" // no checkable rule: a judge error, for the llm judge
		}
		ks = append(ks, kept{c.ID, folder, want, c.Human})
	}
	if len(ks) < 200 {
		t.Fatalf("only %d labelled cases with a WebVoyager golden", len(ks))
	}
	ans, _ := json.Marshal(map[string]any{"Set": map[string]any{"notice": "", "answers": refs}})
	answers, tasksFile := filepath.Join(t.TempDir(), "reference_answer.json"), filepath.Join(t.TempDir(), "tasks.jsonl")
	os.WriteFile(answers, ans, 0o644)
	os.WriteFile(tasksFile, []byte(tasks.String()), 0o644)
	out, stderr, code := bench(t, "judge", root, "--judge", "answer", "--answers", answers, "--tasks-file", tasksFile)
	// The goldens with no checkable rule are judge errors (for the llm judge): exit 4.
	if code != exitJudgeErrors {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	counts := map[string]int{}
	for _, k := range ks {
		vb, err := os.ReadFile(filepath.Join(root, k.folder, "verdict-answer.json"))
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Verdict judge.Verdict `json:"verdict"`
		}
		if err := json.Unmarshal(vb, &f); err != nil {
			t.Fatal(err)
		}
		got := f.Verdict.Outcome()
		counts[k.human+" → "+got]++
		if got != k.want {
			t.Errorf("%s (%s): bench judge says %s, judge.Grade %s: %s%s", k.id, k.folder, got, k.want, f.Verdict.Reason, f.Verdict.Error)
		}
		if k.human == "fail" && got == "pass" {
			t.Errorf("%s: false pass through bench judge", k.id)
		}
	}
	t.Logf("%d labelled WebVoyager-golden cases as result folders: %v; %s", len(ks), counts, strings.TrimSpace(lastLine(out)))
}

// lastLine is s's last non-empty line.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// An endpoint out of credit mid-way through result folders stops bench judge with exit 3 at that folder: the
// verdicts of the folders before it are written, none of it or after it.
func TestJudgeFoldersStopAtFatalEndpoint(t *testing.T) {
	routes := []replay.Route{{Model: "judge-later", Call: 1, Shape: "no_usage"}, {Model: "judge-later", Call: 2, Shape: "no_usage"}}
	for k := 3; k <= 12; k++ {
		routes = append(routes, replay.Route{Model: "judge-later", Call: k, Shape: "openai_429_insufficient_quota"})
	}
	srv, err := replay.StartRecorded(replay.Options{Routes: routes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	root := t.TempDir()
	for _, n := range []string{"taskShop--1", "taskShop--2", "taskShop--3"} {
		writeFolder(t, root, n, "How many styles are there?", "Thought: found it\nAction: ANSWER; 3 styles")
	}
	out, stderr, code := bench(t, "judge", root, "--judge", "llm", "--judge-model", "openai:judge-later", "--judge-base-url", srv.URL())
	second := filepath.Join(root, "taskShop--2")
	if code != 3 || !strings.Contains(stderr, "You exceeded your current quota") ||
		!strings.Contains(stderr, "bench judge stopped at "+second+" (the verdicts of the folders before it are written)") {
		t.Errorf("credit out at the second folder: exit %d, stderr:\n%s", code, stderr)
	}
	for n, want := range map[string]bool{"taskShop--1": true, "taskShop--2": false, "taskShop--3": false} {
		if _, err := os.Stat(filepath.Join(root, n, "verdict-llm.json")); (err == nil) != want {
			t.Errorf("%s: verdict written %v, want %v (stdout:\n%s)", n, err == nil, want, out)
		}
	}
	if strings.Contains(out, "folders judged by") {
		t.Errorf("a summary after the stop:\n%s", out)
	}
}
