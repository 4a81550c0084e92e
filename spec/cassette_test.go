package spec

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSpecCassette: record and replay resolve against the spec's folder (absolute paths stay), and the two
// together, or record_secrets without record, are errors at the key's line and column (a comment mentioning
// the key before it does not move them).
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
		"name: n\nrecord: a\nreplay: b\n":                                             "n.yaml:3:1: replay: and record: give one",
		"name: n\n# replay: and record_secrets are set below\nrecord: a\nreplay: b\n": "n.yaml:4:1: replay: and record: give one",
		"name: n\nrecord_secrets: true\n":                                             "n.yaml:2:1: record_secrets: needs record",
		"name: n\n# record_secrets needs record\nrecord_secrets: true\n":              "n.yaml:3:1: record_secrets: needs record",
	} {
		if _, err := ParseSpec("n.yaml", []byte(src)); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", src, err, want)
		}
	}
}
