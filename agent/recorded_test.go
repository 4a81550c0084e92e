package agent

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
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
	Trajectory  *Trajectory         `json:"trajectory"`
	Elided1     []string            `json:"elided1"`
	Elided3     []string            `json:"elided3"`
	FPRaw       []string            `json:"fp_raw"`
	FPText      []string            `json:"fp_text"`
	Condensed   []string            `json:"condensed"`
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
	return in.Cases
}

func shortSHA(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// The recorded texts read back with ParseResult format to the same bytes.
func TestRecordedResultsRoundTrip(t *testing.T) {
	n := 0
	for _, c := range loadRecorded(t) {
		tr := c.Trajectory
		texts := []string{tr.FirstObservation}
		for _, st := range tr.Steps {
			for _, r := range st.Results {
				texts = append(texts, r.Raw, r.Text)
			}
		}
		for _, s := range texts {
			if got := browser.ParseResult(s).Format(); got != s {
				t.Fatalf("%s: round trip differs:\n%q\nwant\n%q", c.AttemptID, got, s)
			}
			n++
		}
	}
	t.Logf("%d texts", n)
}

// The requests rendered from typed messages are byte-identical to what the old text elision produced.
func TestRecordedRenderMatchesOldElision(t *testing.T) {
	for _, c := range loadRecorded(t) {
		tr := c.Trajectory
		first := browser.ParseResult(tr.FirstObservation)
		user := TextMessage(openai.ChatMessageRoleUser, "")
		user.Lead, user.Observation = "Task: "+tr.Goal+"\n\n", &first
		msgs := []Message{TextMessage(openai.ChatMessageRoleSystem, "system"), user}
		for _, st := range tr.Steps {
			if st.Recovery {
				continue
			}
			msgs = append(msgs, TextMessage(openai.ChatMessageRoleAssistant, st.Content))
			for _, r := range st.Results {
				obs := browser.ParseResult(r.Text)
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
				raws = append(raws, results.ResultFingerprint(browser.ParseResult(r.Raw)))
				texts = append(texts, results.ResultFingerprint(browser.ParseResult(r.Text)))
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
