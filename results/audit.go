package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// AuditFile is the run directory's file of trusted verdicts (bench judge DIR --audit FILE copies a human audit
// into it): JSON Lines of AuditLabel, which the report uses to correct pass rates for judge error.
const AuditFile = "audit.jsonl"

// AuditLabel is one trusted verdict of an audit: the attempt (its attempt_id, as attempts.jsonl has it), whether
// it truly passed, and an optional note (who audited, why).
type AuditLabel struct {
	AttemptID string `json:"attempt_id"`
	Pass      bool   `json:"pass"`
	Note      string `json:"note,omitempty"`
}

// ReadAuditLabels reads an audit file (JSON Lines of AuditLabel; blank lines skipped). Errors name the file and
// line: a line that is no such object, one without attempt_id or without pass, an attempt labelled twice.
func ReadAuditLabels(path string) ([]AuditLabel, error) {
	type raw struct {
		AttemptID string `json:"attempt_id"`
		Pass      *bool  `json:"pass"`
		Note      string `json:"note"`
	}
	seen := map[string]int{}
	rows, err := ReadJSONL(path, `{"attempt_id", "pass"}`, func(n int, r *raw) error {
		if r.AttemptID == "" || r.Pass == nil {
			return errors.New(`needs "attempt_id" and "pass" (true or false)`)
		}
		if k, ok := seen[r.AttemptID]; ok {
			return fmt.Errorf("attempt %s is labelled on line %d already", r.AttemptID, k)
		}
		seen[r.AttemptID] = n
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]AuditLabel, len(rows))
	for i, r := range rows {
		out[i] = AuditLabel{AttemptID: r.AttemptID, Pass: *r.Pass, Note: r.Note}
	}
	return out, nil
}

// WriteAudit writes labels as dir/AuditFile (replacing it) and returns its path.
func WriteAudit(dir string, labels []AuditLabel) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, l := range labels {
		if err := enc.Encode(l); err != nil {
			return "", err
		}
	}
	p := filepath.Join(dir, AuditFile)
	return p, os.WriteFile(p, b.Bytes(), 0o644)
}

// Audit returns the run's audit (dir/AuditFile) by attempt id, nil without one.
func (r *Run) Audit() (map[string]bool, error) {
	labels, err := ReadAuditLabels(filepath.Join(r.Dir, AuditFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(labels))
	for _, l := range labels {
		out[l.AttemptID] = l.Pass
	}
	return out, nil
}
