package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"webbench/browser/cassette"
)

// Re-recording a cassette made in the other secrets mode is refused (exit 2, before anything runs) naming where
// this recording's mode came from: --record-secrets, the spec's record_secrets line, or the default.
func TestSecretsModeRefusalNamesItsSource(t *testing.T) {
	dir := t.TempDir()
	stripped, kept := filepath.Join(dir, "stripped"), filepath.Join(dir, "kept")
	for d, secrets := range map[string]bool{stripped: false, kept: true} {
		if _, err := cassette.Create(d, cassette.Options{Secrets: secrets}); err != nil {
			t.Fatal(err)
		}
	}
	spec := filepath.Join(dir, "s.yaml")
	body := "name: s\ntasks: shop-*\nrecord: stripped\n# kept as given\nrecord_secrets:   true\n" +
		"variants:\n  - name: off\n    guards: {repeat_guard: false}\n"
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ablate", spec, "--out", filepath.Join(dir, "r1")}, spec + ":5:19: record_secrets: true asks for " +
			"that; record into another directory, or set record_secrets: false there (or give --record-secrets=false)"},
		{[]string{"ablate", spec, "--out", filepath.Join(dir, "r2"), "--record-secrets=false", "--record", kept},
			"--record-secrets=false asks for that; record into another directory, or give --record-secrets=true"},
		{[]string{"run", "--suite", "zoo", "--tasks", "shop-*", "--out", filepath.Join(dir, "r3"), "--record", stripped,
			"--record-secrets"}, "--record-secrets=true asks for that; record into another directory, or give " +
			"--record-secrets=false"},
		{[]string{"run", "--suite", "zoo", "--tasks", "shop-*", "--out", filepath.Join(dir, "r4"), "--record", kept},
			"secrets are stripped by default; record into another directory, or give --record-secrets"},
	} {
		_, stderr, code := bench(t, c.args...)
		if code != 2 || !strings.Contains(stderr, "was recorded with secrets") || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q\nwant it to name %q", c.args, code, stderr, c.want)
		}
	}
}
