package results

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"webbench/judge"
	"webbench/llm"
)

// answerJudge passes the answer "42", fails others, and meets an auth error (a class that stops runs) on "boom".
type answerJudge struct{}

func (answerJudge) Name() string { return "fortytwo" }
func (answerJudge) Judge(_ context.Context, in judge.Input) (judge.Verdict, error) {
	if in.Final == "boom" {
		return judge.Verdict{}, &llm.Error{Class: llm.ErrorAuth, StatusCode: 401, Message: "bad key"}
	}
	return judge.Verdict{Judge: "fortytwo", Pass: in.Final == "42", Reason: "read " + in.Final}, nil
}

// RejudgeFolders writes each folder's verdict beside it and counts the outcomes; it stops with a FolderError at a
// fatal endpoint error (the llm.Error reachable), at an unreadable folder, and at a verdict it cannot write (Write).
func TestRejudgeFolders(t *testing.T) {
	root := t.TempDir()
	folder := func(name, answer string) string {
		d := filepath.Join(root, name)
		msgs := `[{"role": "user", "content": "Now given a task: T. Please interact with https://x.test/ and get the answer."},` +
			` {"role": "assistant", "content": "Thought: done.\nAction: ANSWER; ` + answer + `"}]`
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if answer != "" {
			if err := os.WriteFile(filepath.Join(d, "interact_messages.json"), []byte(msgs), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	pass, fail := folder("taskX--0", "42"), folder("taskX--1", "41")
	var written []string
	res, err := RejudgeFolders(context.Background(), []string{pass, fail}, answerJudge{}, nil, "",
		func(_, path string, _ judge.Input, v judge.Verdict) {
			written = append(written, filepath.Base(filepath.Dir(path))+" "+v.Outcome())
		})
	if err != nil || res != (FoldersRejudged{Pass: 1, Fail: 1}) || len(written) != 2 || written[0] != "taskX--0 pass" ||
		written[1] != "taskX--1 fail" {
		t.Fatalf("two folders: %+v, %v, written %v", res, err, written)
	}
	var fv FolderVerdict
	if b, err := os.ReadFile(FolderVerdictPath(pass, "fortytwo")); err != nil || json.Unmarshal(b, &fv) != nil ||
		fv.Answer != "42" || fv.Task != "T." || !fv.Verdict.Pass || fv.SchemaVersion != SchemaVersion {
		t.Errorf("verdict file of the passing folder: %+v, %v", fv, err)
	}

	var fe *FolderError
	boom := folder("taskX--2", "boom")
	res, err = RejudgeFolders(context.Background(), []string{pass, boom, fail}, answerJudge{}, nil, "", nil)
	if le := llm.FatalError(err); le == nil || !errors.As(err, &fe) || fe.Folder != boom || fe.Write || res.Pass != 1 {
		t.Errorf("a fatal endpoint error: %+v, %v", res, err)
	}
	empty := folder("taskX--3", "")
	if _, err = RejudgeFolders(context.Background(), []string{empty}, answerJudge{}, nil, "", nil); !errors.As(err, &fe) ||
		fe.Folder != empty || fe.Write || llm.FatalError(err) != nil {
		t.Errorf("an unreadable folder: %v", err)
	}
	if err := os.Remove(FolderVerdictPath(fail, "fortytwo")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(FolderVerdictPath(fail, "fortytwo"), 0o755); err != nil { // a directory where the file goes
		t.Fatal(err)
	}
	if _, err = RejudgeFolders(context.Background(), []string{fail}, answerJudge{}, nil, "", nil); !errors.As(err, &fe) ||
		!fe.Write || fe.Folder != fail {
		t.Errorf("a verdict that cannot be written: %v", err)
	}
}
