package guard

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"testing"

	"webbench/browser"
)

// The intercepted clicks of recorded Zoo attempts (../testdata/recorded.json.gz, run by the code before typed
// tool results) condense, field by field, to the very text the old text rewriting produced; every other
// failed result is left alone, as before.
func TestRecordedInterceptsCondenseAsBefore(t *testing.T) {
	f, err := os.Open("../testdata/recorded.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Cases []struct {
			AttemptID string `json:"attempt_id"`
			// Trajectory is the recorded trajectory (schema version 1) as far as this test reads it: the raw
			// results' texts.
			Trajectory struct {
				Steps []struct {
					Results []struct {
						Failed bool   `json:"failed"`
						Raw    string `json:"raw"`
					} `json:"results"`
				} `json:"steps"`
			} `json:"trajectory"`
			Condensed []string `json:"condensed"`
		}
	}
	if err := json.NewDecoder(z).Decode(&in); err != nil {
		t.Fatal(err)
	}
	condensed := 0
	for _, c := range in.Cases {
		i := 0
		for _, st := range c.Trajectory.Steps {
			for _, r := range st.Results {
				want := c.Condensed[i]
				i++
				if !r.Failed {
					continue
				}
				out, _, ok := CondenseIntercept(browser.ParseResult(r.Raw))
				if ok != (want != "") || ok && out.Format() != want {
					t.Errorf("%s result %d: ok %v\n%s\nwant\n%s", c.AttemptID, i-1, ok, out.Format(), want)
				}
				if ok {
					condensed++
				}
			}
		}
	}
	if condensed < 5 {
		t.Fatalf("only %d condensed results in the recording", condensed)
	}
}
