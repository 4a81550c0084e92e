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
	// SchemaVersion is SchemaVersion; readVerdicts refuses another.
	SchemaVersion int `json:"schema_version"`
	// AttemptID is the judged attempt; TaskID and Variant repeat its record's for readers of the file alone.
	AttemptID string `json:"attempt_id"`
	TaskID    string `json:"task_id"`
	Variant   string `json:"variant,omitempty"`
	// Verdict is the re-judge's verdict.
	Verdict judge.Verdict `json:"verdict"`
}

// FolderVerdict is <folder>/verdict-<judge>.json, the verdict bench judge writes into a WebVoyager result
// folder (WriteFolderVerdict).
type FolderVerdict struct {
	// SchemaVersion is SchemaVersion.
	SchemaVersion int `json:"schema_version"`
	// Task is the task's goal text; Answer the agent's final answer as extracted from the folder.
	Task   string `json:"task"`
	Answer string `json:"answer"`
	// Screenshots is the number of screenshots the folder held.
	Screenshots int `json:"screenshots"`
	// Verdict is the judge's verdict.
	Verdict judge.Verdict `json:"verdict"`
}

// FolderVerdictPath is the path of judgeName's verdict file in the WebVoyager result folder folder.
func FolderVerdictPath(folder, judgeName string) string {
	return filepath.Join(folder, "verdict-"+judgeName+".json")
}

// WriteFolderVerdict writes v (stamped with SchemaVersion) to folder/verdict-<judgeName>.json atomically and
// returns its path.
func WriteFolderVerdict(folder, judgeName string, v FolderVerdict) (string, error) {
	v.SchemaVersion = SchemaVersion
	p := FolderVerdictPath(folder, judgeName)
	return p, WriteJSONFile(p, v)
}

// VerdictsPath is the path of judgeName's verdicts file in the run directory dir.
func VerdictsPath(dir, judgeName string) string {
	return filepath.Join(dir, "verdicts-"+judgeName+".jsonl")
}

// WriteVerdicts replaces dir/verdicts-<judgeName>.jsonl with recs (schema version SchemaVersion, one JSON line
// each), atomically, and returns its path. judgeName OriginalJudge is refused: it names the run's own verdicts.
func WriteVerdicts(dir, judgeName string, recs []VerdictRecord) (string, error) {
	if judgeName == OriginalJudge || judgeName == "" {
		return "", fmt.Errorf("judge name %q is reserved for the run's own verdicts", judgeName)
	}
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

// readVerdicts reads a verdicts file strictly; errors name the file, the line and the field (a schema_version
// other than 1 or SchemaVersion is one; version 1 had the same shape). The last record of an attempt id wins.
func readVerdicts(path string) (map[string]VerdictRecord, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]VerdictRecord{}
	for i, raw := range bytes.Split(b, []byte{'\n'}) {
		txt := bytes.TrimSpace(raw)
		if len(txt) == 0 {
			continue
		}
		var v VerdictRecord
		if err := decodeStrict(txt, &v); err != nil {
			return nil, fmt.Errorf("malformed verdict: %s", jsonError(path, txt, i+1, err))
		}
		switch {
		case v.SchemaVersion != SchemaVersion && v.SchemaVersion != schemaV1:
			return nil, fmt.Errorf("%s:%d: field schema_version: %d, this bench reads verdicts of version %d and %d", path,
				i+1, v.SchemaVersion, schemaV1, SchemaVersion)
		case v.AttemptID == "":
			return nil, fmt.Errorf("%s:%d: field attempt_id is empty", path, i+1)
		}
		out[v.AttemptID] = v
	}
	return out, nil
}
