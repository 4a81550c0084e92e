package scripted

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestBuiltinProfiles(t *testing.T) {
	if got := ProfileNames(); !reflect.DeepEqual(got, []string{"clean", "harsh", "observed"}) {
		t.Fatalf("names %v", got)
	}
	obs, err := LoadProfile("observed")
	if err != nil {
		t.Fatal(err)
	}
	want := Profile{Name: "observed", BlockedClickRawUnderstood: .25, BlockedClickHintUnderstood: .95,
		PostAnswerLoop: .25, HeedRepeatNote: .30, WithheldNoUserTurnEmpty: .60, WithheldUserTurnJSON: .85,
		ProseFinal: .08, EmptySnapshotGiveUp: .90, StaleRefWithoutRefresh: 1, EvaluateOnHungPages: .50}
	if obs != want {
		t.Fatalf("observed:\n got %+v\nwant %+v", obs, want)
	}
	harsh, err := LoadProfile("harsh")
	if err != nil {
		t.Fatal(err)
	}
	want = Profile{Name: "harsh", BlockedClickRawUnderstood: .10, BlockedClickHintUnderstood: .90,
		PostAnswerLoop: .50, HeedRepeatNote: .15, WithheldNoUserTurnEmpty: .80, WithheldUserTurnJSON: .70,
		ProseFinal: .16, EmptySnapshotGiveUp: 1, StaleRefWithoutRefresh: 1, EvaluateOnHungPages: .80}
	if harsh != want {
		t.Fatalf("harsh:\n got %+v\nwant %+v", harsh, want)
	}
	clean := Clean()
	want = Profile{Name: "clean", BlockedClickRawUnderstood: 1, BlockedClickHintUnderstood: 1, HeedRepeatNote: 1,
		WithheldUserTurnJSON: 1}
	if clean != want {
		t.Fatalf("clean:\n got %+v\nwant %+v", clean, want)
	}
	if _, err := LoadProfile("sloppy"); err == nil || !strings.Contains(err.Error(), "clean, harsh, observed") {
		t.Fatalf("unknown name: %v", err)
	}
}

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestProfileFile(t *testing.T) {
	// One failure mode at 1, the rest clean.
	path := writeFile(t, "stale.yaml", "# only stale refs\nstale_ref_without_refresh: 1\n")
	p, err := LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Clean()
	want.Name, want.StaleRefWithoutRefresh = "stale", 1
	if p != want {
		t.Fatalf("got %+v\nwant %+v", p, want)
	}
	// A base profile, overridden, with latency.
	path = writeFile(t, "slow.yaml", "prose_final: 0\nbase: observed\nlatency_ms: {mean: 120, jitter: 30}\n")
	p, err = LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "slow" || p.ProseFinal != 0 || p.PostAnswerLoop != .25 || p.LatencyMS != (Latency{120, 30}) {
		t.Fatalf("got %+v", p)
	}
}

func TestProfileErrors(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"unknown", "prose_final: 0.1\n\nblocked_click_understood: 0.5\n", `:3:1: unknown key "blocked_click_understood" (did you mean "blocked_click_raw_understood"?)`},
		{"range", "post_answer_loop: 0.2\nheed_repeat_note: 1.5\n", `:2:19: heed_repeat_note: probability 1.5 outside [0,1]`},
		{"negative", "prose_final: -0.1\n", `:1:14: prose_final: probability -0.1 outside [0,1]`},
		{"not-number", "prose_final: often\n", `:1:14: prose_final: want a number, got "often"`},
		{"latency", "latency_ms:\n  mean: 10\n  spread: 3\n", `:3:3: latency_ms: unknown key "spread" (valid: mean, jitter)`},
		{"latency-type", "latency_ms:\n  mean: [10]\n", `:2:9: latency_ms.mean: want a number, got a list`},
		{"latency-map", "latency_ms: 10\n", `:1:13: latency_ms: want a mapping {mean, jitter}, got "10"`},
		{"name-type", "name: {a: b}\n", `:1:7: name: want a non-empty string, got a mapping`},
		{"latency-neg", "latency_ms: {mean: -5}\n", `:1:20: latency_ms.mean: -5 ms is negative`},
		{"base", "base: lenient\n", `:1:7: base: unknown profile "lenient"`},
		{"twice", "prose_final: 0\nprose_final: 1\n", `:2:1: prose_final: given twice`},
		{"list", "- prose_final\n", `:1:1: a fault profile is a mapping`},
		{"near-miss", "base: observd\n", `:1:7: base: unknown profile "observd" (did you mean "observed"?)`},
		{"syntax", "prose_final: 0.1\nlatency_ms:\n  mean: 10\n jitter: 3\n", `:4:2: YAML syntax: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.name+".yaml", tc.body)
			_, err := LoadProfile(path)
			if err == nil || !strings.HasPrefix(err.Error(), path+":") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error naming %s and %q, got %v", path, tc.want, err)
			}
		})
	}
	if _, err := ParseProfile([]byte("name: x\nprose_final: 2\n"), "inline.yaml"); err == nil ||
		!strings.HasPrefix(err.Error(), `inline.yaml:2:14: prose_final: probability 2`) {
		t.Fatalf("ParseProfile: %v", err)
	}
	if _, err := LoadProfile(filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Fatalf("missing file: %v", err)
	}
}
