package agent

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"webbench/browser"
	"webbench/results"

	openai "github.com/sashabaranov/go-openai"
)

// recordedCase is one attempt of a Zoo ablation run by the code before typed tool results (scripted policy,
// profile observed, every guard arm), with what that code computed from it: the request texts after snapshot
// elision (keep 1 and 3; first 8 bytes of each message's SHA-256), the fingerprints of each raw and
// model-facing result, and the record's failure mode. testdata/recorded.json.gz.
type recordedCase struct {
	AttemptID   string              `json:"attempt_id"`
	Status      string              `json:"status"`
	FailureMode results.FailureMode `json:"failure_mode"`
	// TrajectoryJSON is the trajectory as recorded (schema version 1: results stored as text); Trajectory is
	// it read with results.ReadTrajectory, which converts it.
	TrajectoryJSON json.RawMessage `json:"trajectory"`
	Trajectory     *Trajectory     `json:"-"`
	Elided1        []string        `json:"elided1"`
	Elided3        []string        `json:"elided3"`
	FPRaw          []string        `json:"fp_raw"`
	FPText         []string        `json:"fp_text"`
	Condensed      []string        `json:"condensed"`
}

func loadRecorded(t *testing.T) []*recordedCase {
	t.Helper()
	f, err := os.Open("testdata/recorded.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var in struct{ Cases []*recordedCase }
	if err := json.NewDecoder(z).Decode(&in); err != nil {
		t.Fatal(err)
	}
	if len(in.Cases) < 20 {
		t.Fatalf("%d recorded cases", len(in.Cases))
	}
	dir := t.TempDir()
	for _, c := range in.Cases {
		p := filepath.Join(dir, c.AttemptID+".json")
		if err := os.WriteFile(p, c.TrajectoryJSON, 0o644); err != nil {
			t.Fatal(err)
		}
		if c.Trajectory, err = results.ReadTrajectory(p); err != nil {
			t.Fatal(err)
		}
	}
	return in.Cases
}

// recordedTexts are the texts a recorded (schema version 1) trajectory stored: the first observation, then
// each result's raw and model-facing text.
func recordedTexts(t *testing.T, c *recordedCase) []string {
	t.Helper()
	var old struct {
		FirstObservation string `json:"first_observation"`
		Steps            []struct {
			Results []struct{ Raw, Text string } `json:"results"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(c.TrajectoryJSON, &old); err != nil {
		t.Fatal(err)
	}
	texts := []string{old.FirstObservation}
	for _, st := range old.Steps {
		for _, r := range st.Results {
			texts = append(texts, r.Raw, r.Text)
		}
	}
	return texts
}

func shortSHA(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// The recorded texts read back with ParseResult format to the same bytes, and the typed trajectory
// ReadTrajectory converts them to formats to the recorded texts: the same first observation, raw and
// model-facing texts, byte for byte.
func TestRecordedResultsRoundTrip(t *testing.T) {
	n := 0
	for _, c := range loadRecorded(t) {
		tr := c.Trajectory
		texts := recordedTexts(t, c)
		for _, s := range texts {
			if got := browser.ParseResult(s).Format(); got != s {
				t.Fatalf("%s: round trip differs:\n%q\nwant\n%q", c.AttemptID, got, s)
			}
			n++
		}
		typed := []string{tr.FirstObservationText()}
		for _, st := range tr.Steps {
			for _, r := range st.Results {
				typed = append(typed, r.RawText(), r.ShownText())
			}
		}
		if len(typed) != len(texts) {
			t.Fatalf("%s: %d texts from the typed trajectory, %d recorded", c.AttemptID, len(typed), len(texts))
		}
		for i := range typed {
			if typed[i] != texts[i] {
				t.Errorf("%s: text %d of the typed trajectory differs:\n%q\nrecorded\n%q", c.AttemptID, i, typed[i], texts[i])
			}
		}
	}
	t.Logf("%d texts", n)
}

// The requests rendered from typed messages are byte-identical to what the old text elision produced.
func TestRecordedRenderMatchesOldElision(t *testing.T) {
	for _, c := range loadRecorded(t) {
		tr := c.Trajectory
		first := tr.FirstObservation.Clone()
		user := TextMessage(openai.ChatMessageRoleUser, "")
		user.Lead, user.Observation = "Task: "+tr.Goal+"\n\n", &first
		msgs := []Message{TextMessage(openai.ChatMessageRoleSystem, "system"), user}
		for _, st := range tr.Steps {
			if st.Recovery {
				continue
			}
			msgs = append(msgs, TextMessage(openai.ChatMessageRoleAssistant, st.Content))
			for _, r := range st.Results {
				obs := r.ShownResult().Clone()
				msgs = append(msgs, Message{ChatCompletionMessage: openai.ChatCompletionMessage{
					Role: openai.ChatMessageRoleTool}, Observation: &obs})
			}
		}
		for keep, want := range map[int][]string{1: c.Elided1, 3: c.Elided3} {
			out := Render(msgs, keep)
			if len(out) != len(want) {
				t.Fatalf("%s: %d messages, want %d", c.AttemptID, len(out), len(want))
			}
			for i, m := range out {
				if shortSHA(m.Content) != want[i] {
					t.Errorf("%s keep %d: message %d differs: %.300q", c.AttemptID, keep, i, m.Content)
				}
			}
		}
	}
}

// Fingerprints from fields give the same equalities as the old text fingerprints, and FailureMode on the
// parsed records gives each record's recorded failure mode.
func TestRecordedFingerprintsAndFailureModes(t *testing.T) {
	modes := map[results.FailureMode]int{}
	for _, c := range loadRecorded(t) {
		var raws, texts []string
		for _, st := range c.Trajectory.Steps {
			for _, r := range st.Results {
				raws = append(raws, results.ResultFingerprint(r.Raw))
				texts = append(texts, results.ResultFingerprint(r.ShownResult()))
			}
		}
		for _, fp := range []struct{ got, old []string }{{raws, c.FPRaw}, {texts, c.FPText}} {
			for i := range fp.got {
				for j := range i {
					if (fp.got[i] == fp.got[j]) != (fp.old[i] == fp.old[j]) {
						t.Errorf("%s: results %d and %d: fingerprint equality changed", c.AttemptID, j, i)
					}
				}
			}
		}
		got := results.ClassifyFailure(c.Trajectory, c.Status == "pass")
		if got != c.FailureMode {
			t.Errorf("%s: failure mode %q, recorded %q", c.AttemptID, got, c.FailureMode)
		}
		modes[got]++
	}
	for _, m := range []results.FailureMode{"", results.ModeHungEvaluate, results.ModeIntercepted,
		results.ModeEmptySnapshot, results.ModeStalled} {
		if modes[m] == 0 {
			t.Errorf("no recorded case with failure mode %q: %v", m, modes)
		}
	}
}
