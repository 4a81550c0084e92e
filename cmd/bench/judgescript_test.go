package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"webbench/results"
)

// scriptRefs writes a reference_answer.json of the site Shop (1: golden 3, 2: golden "Booking Holdings Inc.")
// and returns its path.
func scriptRefs(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "reference_answer.json")
	os.WriteFile(p, []byte(`{"Shop": {"notice": "", "answers": [{"id": 1, "type": "golden", "ans": "3"},
		{"id": 2, "type": "golden", "ans": "Booking Holdings Inc."}]}}`), 0o644)
	return p
}

// A script drives bench judge over nested result folders named as WebVoyager and file managers write them
// (another letter case, a copy's " (2)" suffix), reads its --format json document, and gets exit 4 for the
// judge errors: an unknown task id named as such, a folder whose name is no task's named by path.
func TestJudgeScriptFoldersJSON(t *testing.T) {
	root := t.TempDir()
	writeFolder(t, root, "runA/taskShop--1", "How many styles?", "Thought: x\nAction: ANSWER; 3 styles")
	writeFolder(t, root, "runA/taskShop--1 (2)", "How many styles?", "Thought: x\nAction: ANSWER; 4 styles")
	writeFolder(t, root, "runB/deep/taskshop--2", "Who owns it?", "Thought: x\nAction: ANSWER; Booking Holdings")
	writeFolder(t, root, "runB/taskShop--9", "Unknown.", "Thought: x\nAction: ANSWER; 1")
	writeFolder(t, root, "runB/notes", "Not a task folder.", "Thought: x\nAction: ANSWER; 1")
	out, stderr, code := bench(t, "judge", root, "--judge", "answer", "--answers", scriptRefs(t), "--format", "json")
	if code != exitJudgeErrors {
		t.Fatalf("exit %d, want %d: %s", code, exitJudgeErrors, stderr)
	}
	var doc struct {
		Summary  judgeSummary   `json:"summary"`
		Verdicts []judgedAnswer `json:"verdicts"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	s := doc.Summary
	if s.Answers != 5 || s.Graded != 3 || s.Pass != 2 || s.Fail != 1 || s.JudgeErrors != 2 || s.ExitCode != exitJudgeErrors ||
		len(s.UnknownTaskIDs) != 1 || s.UnknownTaskIDs[0] != "Shop--9" {
		t.Errorf("summary %+v", s)
	}
	got := map[string]judgedAnswer{}
	for _, v := range doc.Verdicts {
		got[filepath.ToSlash(strings.TrimPrefix(v.Folder, root+string(filepath.Separator)))] = v
	}
	if v := got["runA/taskShop--1 (2)"]; v.TaskID != "Shop--1" || v.Outcome != "fail" || v.Run != "runA" {
		t.Errorf("a copy's suffix: %+v", v)
	}
	if v := got["runB/deep/taskshop--2"]; v.TaskID != "Shop--2" || v.Outcome != "pass" || v.Run != "runB/deep" {
		t.Errorf("lower case, nested: %+v", v)
	}
	if v := got["runB/taskShop--9"]; v.Outcome != "error" || !v.UnknownTask || !strings.HasPrefix(v.Error, "unknown task id Shop--9") {
		t.Errorf("unknown task id: %+v", v)
	}
	if v := got["runB/notes"]; v.Outcome != "error" || !strings.Contains(v.Error, "is not named as a WebVoyager result folder") ||
		!strings.Contains(v.Error, "notes") {
		t.Errorf("a folder no task's name: %+v", v)
	}
}

// A script feeds bench judge --answers-jsonl (several answers per task, run and id labels) and reads its JSON
// Lines: a verdict per line in order, then the summary; every answer graded is exit 0, none graded exit 5.
func TestJudgeScriptAnswersJSONL(t *testing.T) {
	refs := scriptRefs(t)
	in := filepath.Join(t.TempDir(), "answers.jsonl")
	os.WriteFile(in, []byte(`{"task_id": "Shop--1", "answer": "There are 3 styles.", "run": "a", "id": "1"}
{"task_id": "shop--1", "answer": "4", "run": "b", "id": "2"}

{"task_id": "taskShop--2", "answer": "Booking Holdings Inc."}
`), 0o644)
	out, stderr, code := bench(t, "judge", "--answers-jsonl", in, "--judge", "answer", "--answers", refs, "--format", "jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not JSON Lines: %v\n%s", err, out)
		}
		lines = append(lines, m)
	}
	if len(lines) != 4 {
		t.Fatalf("want 3 verdicts and a summary, got %d lines:\n%s", len(lines), out)
	}
	want := []struct{ task, run, outcome string }{{"Shop--1", "a", "pass"}, {"Shop--1", "b", "fail"}, {"Shop--2", "", "pass"}}
	for i, w := range want {
		l := lines[i]
		if l["kind"] != "verdict" || l["task_id"] != w.task || l["outcome"] != w.outcome || (w.run != "" && l["run"] != w.run) {
			t.Errorf("line %d: %v, want %+v", i+1, l, w)
		}
	}
	if s := lines[3]; s["kind"] != "summary" || s["graded"] != 3.0 || s["pass"] != 2.0 || s["exit_code"] != 0.0 {
		t.Errorf("summary %v", s)
	}

	os.WriteFile(in, []byte(`{"task_id": "Nope--1", "answer": "x"}`+"\n"), 0o644)
	out, stderr, code = bench(t, "judge", "--answers-jsonl", in, "--judge", "answer", "--answers", refs, "--format", "json")
	var doc struct{ Summary judgeSummary }
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != exitNothingGraded || doc.Summary.Graded != 0 ||
		len(doc.Summary.UnknownTaskIDs) != 1 || doc.Summary.UnknownTaskIDs[0] != "Nope--1" || !strings.Contains(stderr, "nothing was graded") {
		t.Errorf("all unknown: exit %d, %v, %+v, %s", code, err, doc.Summary, stderr)
	}
	if _, stderr, code := bench(t, "judge", "--answers-jsonl", in, "--judge", "answer"); code != 2 || !strings.Contains(stderr, "needs --answers") {
		t.Errorf("no references: exit %d %s", code, stderr)
	}
	os.WriteFile(in, []byte("{\"task_id\": \"Shop--1\"}\nnot json\n"), 0o644)
	if _, stderr, code := bench(t, "judge", "--answers-jsonl", in, "--judge", "answer", "--answers", refs); code != 2 || !strings.Contains(stderr, ":2: not a JSON object") {
		t.Errorf("a bad line: exit %d %s", code, stderr)
	}
}

// bench judge DIR --audit FILE records trusted verdicts and prints every judge's corrected pass rates; bench
// report shows them from then on; an attempt id the run lacks is exit 2 naming it.
func TestJudgeAudit(t *testing.T) {
	dir := twoJudgeRun(t)
	run, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i, a := range run.Final()[:20] {
		lines = append(lines, fmt.Sprintf(`{"attempt_id": %q, "pass": %v}`, a.AttemptID, i%4 != 0))
	}
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	os.WriteFile(audit, []byte(strings.Join(append(lines, `{"attempt_id": "nope", "pass": true}`), "\n")), 0o644)
	if _, stderr, code := bench(t, "judge", dir, "--audit", audit); code != 2 || !strings.Contains(stderr, "1 attempt id is not in") ||
		!strings.Contains(stderr, "nope") {
		t.Errorf("unknown id: exit %d %s", code, stderr)
	}
	os.WriteFile(audit, []byte(strings.Join(lines, "\n")), 0o644)
	out, stderr, code := benchEnv(t, []string{"COLUMNS=400"}, "judge", dir, "--audit", audit)
	title := "pass rates of the original verdicts corrected for judge error by the audit (audit.jsonl, 20 trusted verdicts;"
	if code != 0 || !strings.Contains(out, "20 trusted verdicts recorded") || !strings.Contains(out, title) ||
		!strings.Contains(out, "pass rates of the llm verdicts corrected") {
		t.Fatalf("exit %d:\n%s%s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, results.AuditFile)); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = benchEnv(t, []string{"COLUMNS=400"}, "report", dir, "--wide")
	if code != 0 || !strings.Contains(out, title) {
		t.Errorf("report after the audit: exit %d\n%s%s", code, out, stderr)
	}
}

// Flags the chosen mode would ignore are refused (exit 2) before anything is judged or written: an audit with
// --answers-jsonl, --agreement, --format or --judge; an agreement with --answers-jsonl or --format.
func TestJudgeRefusesIgnoredFlags(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "answers.jsonl")
	audit := filepath.Join(t.TempDir(), "labels.jsonl")
	os.WriteFile(in, []byte(`{"task_id": "Shop--1", "answer": "3"}`+"\n"), 0o644)
	os.WriteFile(audit, []byte(`{"attempt_id": "x", "pass": true}`+"\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--answers-jsonl", in, "--audit", audit}, "does not apply to --answers-jsonl"},
		{[]string{dir, "--audit", audit, "--agreement", "original,answer"}, "separate steps"},
		{[]string{dir, "--audit", audit, "--format", "json"}, "--judge and --format do not apply"},
		{[]string{dir, "--audit", audit, "--judge", "answer"}, "--judge and --format do not apply"},
		{[]string{"--answers-jsonl", in, "--agreement", "original,answer"}, "does not apply to --answers-jsonl"},
		{[]string{dir, "--agreement", "original,answer", "--format", "json"}, "--judge and --format do not apply"},
	} {
		_, stderr, code := bench(t, append([]string{"judge"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, results.AuditFile)); err == nil {
		t.Errorf("a refused audit was recorded")
	}
}
