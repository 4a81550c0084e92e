package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"webbench/browser"
)

// v1Record and v1Trajectory are the version 1 shape as far as the conversion changes it: results and the first
// observation as their texts.
type v1Record struct {
	Call   ToolCall `json:"call"`
	Raw    string   `json:"raw"`
	Text   string   `json:"text"`
	Failed bool     `json:"failed"`
	Action bool     `json:"action"`
}

type v1Trajectory struct {
	SchemaVersion    int          `json:"schema_version"`
	TaskID           string       `json:"task_id"`
	FirstObservation string       `json:"first_observation"`
	Steps            []v1Step     `json:"steps"`
	Finish           FinishRecord `json:"finish"`
}

type v1Step struct {
	Index   int        `json:"index"`
	Results []v1Record `json:"results"`
}

// A version 1 trajectory (results stored as text) reads as the typed fields those texts hold, formats back to
// the same texts byte for byte, classifies as the texts did (the modes TestFailureMode expects of the same
// texts), and survives a write and read as the current version unchanged.
func TestTrajectoryV1Converted(t *testing.T) {
	no := &FinalAnswer{OK: false}
	stale := "### Error\n" + browser.StaleRefMessage("e3")
	hint := interceptErr + "\n### Hint\nclose the overlay"
	cases := []struct {
		name  string
		first string
		recs  []v1Record
		fin   FinishRecord
		want  FailureMode
	}{
		{"empty snapshot", snapOK, []v1Record{{Call: ToolCall{Name: "browser_navigate"}, Raw: snapEmpty, Text: snapEmpty}},
			FinishRecord{Reason: FinishAnswered, Final: no}, ModeEmptySnapshot},
		{"empty first observation", snapEmpty, nil, FinishRecord{Reason: FinishAnswered, Final: no}, ModeEmptySnapshot},
		{"stale ref deadlock", snapOK, []v1Record{
			{Call: ToolCall{Name: "browser_click"}, Raw: stale, Text: stale, Failed: true},
			{Call: ToolCall{Name: "browser_click"}, Raw: stale, Text: stale + "\n### Snapshot\n```yaml\n- button \"Go\" [ref=e4]\n```", Failed: true},
			{Call: ToolCall{Name: "browser_click"}, Raw: stale, Text: stale, Failed: true}},
			FinishRecord{Reason: FinishStalled}, ModeStaleRefDeadlock},
		{"intercepted, hint shown", snapOK, []v1Record{{Call: ToolCall{Name: "browser_click"}, Raw: interceptErr, Text: hint, Failed: true}},
			FinishRecord{Reason: FinishStalled}, ModeIntercepted},
		{"empty text is the raw one", snapOK, []v1Record{{Call: ToolCall{Name: "browser_navigate"}, Raw: snapEmpty}},
			FinishRecord{Reason: FinishAnswered, Final: no}, ModeEmptySnapshot},
	}
	dir := t.TempDir()
	for _, c := range cases {
		old := v1Trajectory{SchemaVersion: 1, TaskID: "t", FirstObservation: c.first, Finish: c.fin}
		for i, r := range c.recs {
			old.Steps = append(old.Steps, v1Step{Index: i, Results: []v1Record{r}})
		}
		b, err := json.Marshal(old)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "old.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		tr, err := ReadTrajectory(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if tr.SchemaVersion != TrajectorySchemaVersion || tr.FirstObservationText() != c.first ||
			!reflect.DeepEqual(*tr.FirstObservation, browser.ParseResult(c.first)) {
			t.Errorf("%s: version %d, first observation %+v", c.name, tr.SchemaVersion, tr.FirstObservation)
		}
		for i, r := range c.recs {
			got := tr.Steps[i].Results[0]
			text := r.Text
			if text == "" {
				text = r.Raw
			}
			if !reflect.DeepEqual(got.Raw, browser.ParseResult(r.Raw)) || got.RawText() != r.Raw ||
				!reflect.DeepEqual(got.ShownResult(), browser.ParseResult(text)) || got.ShownText() != text ||
				(got.Shown == nil) != (text == r.Raw) || got.Failed != r.Failed || got.Call != r.Call {
				t.Errorf("%s: record %d = %+v (shown %+v), from %+v", c.name, i, got, got.Shown, r)
			}
		}
		if m := ClassifyFailure(tr, false); m != c.want {
			t.Errorf("%s: failure mode %q, want %q", c.name, m, c.want)
		}
		q := filepath.Join(dir, "new"+TrajectoryExt)
		if err := WriteTrajectory(q, tr); err != nil {
			t.Fatal(err)
		}
		back, err := ReadTrajectory(q)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(back, tr) {
			t.Errorf("%s: written and read back as version %d:\n%+v\nwant\n%+v", c.name, TrajectorySchemaVersion, back, tr)
		}
	}
}

// A tool record keeps what the model was shown only when it differs from the raw result; the texts are
// Format's.
func TestToolRecordShown(t *testing.T) {
	raw := browser.Result{Error: "boom", Image: []byte{1}, Harness: []string{"probe skipped"}}
	r := NewToolRecord(ToolCall{Name: "browser_click"}, raw)
	r.SetShown(raw.Clone())
	if r.Shown != nil || r.Raw.Image != nil || r.Raw.Harness != nil || r.ShownText() != "### Error\nboom" {
		t.Errorf("same result: %+v shown %+v, text %q", r, r.Shown, r.ShownText())
	}
	shown := raw.Clone()
	shown.Notes = append(shown.Notes, browser.Note{Heading: "Hint", Body: "retry"})
	r.SetShown(shown)
	shown.Notes[0].Body = "edited after"
	if r.Shown == nil || r.ShownText() != "### Error\nboom\n### Hint\nretry" || r.RawText() != "### Error\nboom" {
		t.Errorf("rewritten result: shown %+v, text %q", r.Shown, r.ShownText())
	}
}
