package spec

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBadSpecFiles loads the mistaken specs of testdata/bad and wants each error in the one format,
// file:line:col: field: message, at the line and column of the mistake (a YAML syntax error included), with the
// near miss named.
func TestBadSpecFiles(t *testing.T) {
	for name, want := range map[string]string{
		// A bad indent on line 9 inside the list begun on line 6: yaml.v3 alone says line 6.
		"indent.yaml": "indent.yaml:9:4: YAML syntax: did not find expected '-' indicator",
		// An unclosed flow mapping on line 10: yaml.v3 alone says line 9.
		"flow.yaml":     "flow.yaml:10:5: YAML syntax: did not find expected ',' or '}'",
		"key.yaml":      `key.yaml:3:1: unknown key "scpoe" (did you mean "scope"?)`,
		"modelkey.yaml": `modelkey.yaml:3:27: unknown key "profil" (did you mean "profile"?)`,
		"guard.yaml": `guard.yaml:4:14: unknown guard "repeat_gard" (did you mean "repeat_guard"?) (valid: ` +
			"intercept_hint, repeat_guard, final_recovery, snapshot_ready, stale_ref_refresh, evaluate_isolation, " +
			"visual_progress)",
		"profile.yaml": `profile.yaml:3:27: baseline: model.profile: unknown fault profile "observd" (did you ` +
			`mean "observed"?) (valid: clean, harsh, observed; or a YAML file path)`,
	} {
		path := filepath.Join("testdata", "bad", name)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ParseSpec(name, b)
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", name, err, want)
		}
	}
}
