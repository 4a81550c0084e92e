package spec

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSpecCassette: record and replay resolve against the spec's folder (absolute paths stay), and the two
// together, or record_secrets without record, are errors naming the line.
func TestSpecCassette(t *testing.T) {
	s, err := ParseSpec(filepath.Join("specs", "n.yaml"), []byte("name: n\ndesign: leave-one-out\nrecord: cassettes/wv\nrecord_secrets: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if rec, rep := s.CassetteDirs(); rec != filepath.Join("specs", "cassettes", "wv") || rep != "" || !s.RecordSecrets {
		t.Errorf("CassetteDirs = %q, %q (secrets %v); want specs/cassettes/wv, \"\", true", rec, rep, s.RecordSecrets)
	}
	s, err = ParseSpec("n.yaml", []byte("name: n\ndesign: leave-one-out\nreplay: /abs/wv\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, rep := s.CassetteDirs(); rep != "/abs/wv" {
		t.Errorf("replay = %q, want /abs/wv", rep)
	}
	for src, want := range map[string]string{
		"name: n\nrecord: a\nreplay: b\n": "n.yaml:3: record and replay: give one",
		"name: n\nrecord_secrets: true\n": "n.yaml:2: record_secrets needs record",
	} {
		if _, err := ParseSpec("n.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", src, err, want)
		}
	}
}
