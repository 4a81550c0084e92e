package results

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestReadJSONLNamesFileAndLine(t *testing.T) {
	type row struct {
		A int `json:"a"`
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := write("ok.jsonl", "{\"a\": 1}\n\n  \n{\"a\": 2}\n")
	var lines []int
	rows, err := ReadJSONL(p, `{"a"}`, func(n int, r *row) error { lines = append(lines, n); return nil })
	if err != nil || len(rows) != 2 || rows[1].A != 2 || len(lines) != 2 || lines[1] != 4 {
		t.Fatalf("rows %+v lines %v err %v", rows, lines, err)
	}
	p = write("bad.jsonl", "{\"a\": 1}\n[1, 2]\n")
	if _, err := ReadJSONL[row](p, `{"a"}`, nil); err == nil || err.Error()[:len(p)+3] != p+":2:" {
		t.Fatalf("undecodable line 2: %v", err)
	}
	p = write("check.jsonl", "{\"a\": 1}\n\n{\"a\": -1}\n")
	_, err = ReadJSONL(p, `{"a"}`, func(_ int, r *row) error {
		if r.A < 0 {
			return errors.New("a is negative")
		}
		return nil
	})
	if err == nil || err.Error() != p+":3: a is negative" {
		t.Fatalf("check error: %v", err)
	}
}
