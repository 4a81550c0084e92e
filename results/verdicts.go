package results

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"webbench/judge"
)

// VerdictRecord is one line of verdicts-<judge>.jsonl: a re-scored verdict of one attempt, written beside
// attempts.jsonl by bench judge (WriteVerdicts) and attached to the attempt by Open.
type VerdictRecord struct {
	SchemaVersion int           `json:"schema_version"`
	AttemptID     string        `json:"attempt_id"`
	TaskID        string        `json:"task_id"`
	Variant       string        `json:"variant,omitempty"`
	Verdict       judge.Verdict `json:"verdict"`
}

// VerdictsPath is the path of judgeName's verdicts file in the run directory dir.
func VerdictsPath(dir, judgeName string) string {
	return filepath.Join(dir, "verdicts-"+judgeName+".jsonl")
}

// WriteVerdicts replaces dir/verdicts-<judgeName>.jsonl with recs (schema version SchemaVersion, one JSON line
// each), atomically, and returns its path.
func WriteVerdicts(dir, judgeName string, recs []VerdictRecord) (string, error) {
	var buf bytes.Buffer
	for _, r := range recs {
		r.SchemaVersion = SchemaVersion
		b, err := jsonLine(r)
		if err != nil {
			return "", err
		}
		buf.Write(b)
	}
	p := VerdictsPath(dir, judgeName)
	return p, writeAtomic(p, buf.Bytes())
}

// readVerdicts reads a verdicts file strictly; errors name the file, the line and the field. The last record
// of an attempt id wins.
func readVerdicts(path string) (map[string]judge.Verdict, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]judge.Verdict{}
	for i, raw := range bytes.Split(b, []byte{'\n'}) {
		txt := bytes.TrimSpace(raw)
		if len(txt) == 0 {
			continue
		}
		var v VerdictRecord
		if err := decodeStrict(txt, &v); err != nil {
			return nil, fmt.Errorf("malformed verdict: %s", jsonError(path, txt, i+1, err))
		}
		if v.AttemptID == "" {
			return nil, fmt.Errorf("%s:%d: field attempt_id is empty", path, i+1)
		}
		out[v.AttemptID] = v.Verdict
	}
	return out, nil
}
