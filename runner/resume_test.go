package runner

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"webbench/results"
)

// Resuming skips attempts whose last record is pass or fail and re-runs the others, counting their earlier
// records as retries so far.
func TestRemaining(t *testing.T) {
	recs := []results.Attempt{{AttemptID: "a1", Status: results.StatusError}, {AttemptID: "a2", Status: results.StatusError},
		{AttemptID: "a1", Status: results.StatusError}, {AttemptID: "a2", Status: results.StatusPass}}
	prev := &results.ReadResult{Records: recs, Latest: map[string]results.Attempt{"a1": recs[2], "a2": recs[3]}}
	sum := &Summary{}
	todo, retries := remaining([]Attempt{{AttemptID: "a1"}, {AttemptID: "a2"}, {AttemptID: "a3"}}, prev, sum, false)
	var ids []string
	for _, a := range todo {
		ids = append(ids, a.AttemptID)
	}
	if !reflect.DeepEqual(ids, []string{"a1", "a3"}) || !reflect.DeepEqual(retries, map[string]int{"a1": 2}) || sum.Skipped != 1 {
		t.Errorf("todo %v, retries %v, skipped %d", ids, retries, sum.Skipped)
	}
}

// A sequential run's records are final: an attempt whose last record is an infra error is not run again on
// resume (its unit's look already used it), while one with no record still runs.
func TestRemainingSequentialRecordsFinal(t *testing.T) {
	recs := []results.Attempt{{AttemptID: "a1", Status: results.StatusError}, {AttemptID: "a2", Status: results.StatusPass}}
	prev := &results.ReadResult{Records: recs, Latest: map[string]results.Attempt{"a1": recs[0], "a2": recs[1]}}
	sum := &Summary{}
	todo, _ := remaining([]Attempt{{AttemptID: "a1"}, {AttemptID: "a2"}, {AttemptID: "a3"}}, prev, sum, true)
	if len(todo) != 1 || todo[0].AttemptID != "a3" || sum.Skipped != 2 {
		t.Errorf("todo %v, skipped %d; want only a3, 2 skipped", todo, sum.Skipped)
	}
}

// A sequential run resumed with other reps or other target tasks is refused: its units' differences would
// change after its looks. A fixed-size run may add reps.
func TestCheckSamePlanSequentialReps(t *testing.T) {
	seq := &results.Sequential{Alpha: 0.05, MinEffect: 0.1, Units: []results.SeqUnit{{Name: "u", Tasks: []string{"t"}}}}
	base := results.Plan{Suite: "zoo", Reps: 1, Variants: []results.Variant{{Name: "b"}, {Name: "v", TargetTasks: []string{"t"}}},
		Ablation: &results.Ablation{Sequential: seq}}
	more := base
	more.Reps = 2
	if err := checkSamePlan("d", base, more); err == nil || !strings.Contains(err.Error(), "reps: 1 → 2") {
		t.Errorf("sequential, more reps: %v", err)
	}
	targets := base
	targets.Variants = []results.Variant{{Name: "b"}, {Name: "v", TargetTasks: []string{"t", "u"}}}
	if err := checkSamePlan("d", base, targets); err == nil || !strings.Contains(err.Error(), "target tasks") {
		t.Errorf("sequential, other targets: %v", err)
	}
	fewer := base
	fewer.Ablation = &results.Ablation{Sequential: &results.Sequential{Alpha: 0.05, MinEffect: 0.1}}
	if err := checkSamePlan("d", base, fewer); err == nil || !strings.Contains(err.Error(), "over 1 units, now 0 other") {
		t.Errorf("sequential, other tasks: %v", err)
	}
	fixedOld, fixedNew := base, more
	fixedOld.Ablation, fixedNew.Ablation = &results.Ablation{}, &results.Ablation{}
	if err := checkSamePlan("d", fixedOld, fixedNew); err != nil {
		t.Errorf("fixed-size, more reps: %v", err)
	}
}

// A run resumed with another cassette mode or directory, another secrets mode, or another model cache is
// refused, naming each differing field with both values; adding or dropping --record-missing is allowed, and a
// manifest written before the sources were recorded (nil) is not compared.
func TestCheckSameSources(t *testing.T) {
	replay := results.Sources{Cassette: "replay", CassetteDir: "cas", ModelCache: "mc"}
	for _, c := range []struct {
		name string
		cur  func(s *results.Sources)
		want string // "" = allowed
	}{
		{"same", func(s *results.Sources) {}, ""},
		{"record-missing added", func(s *results.Sources) { s.RecordMissing = true }, ""},
		{"live", func(s *results.Sources) { s.Cassette, s.CassetteDir = "", "" },
			"cassette: replay → (none); cassette_dir: cas → (none)"},
		{"recording", func(s *results.Sources) { s.Cassette = "record" }, "cassette: replay → record"},
		{"other cassette", func(s *results.Sources) { s.CassetteDir = "cas2" }, "cassette_dir: cas → cas2"},
		{"secrets", func(s *results.Sources) { s.Cassette, s.RecordSecrets = "record", true },
			"cassette: replay → record; record_secrets: (none) → true"},
		{"no model cache", func(s *results.Sources) { s.ModelCache = "" }, "model_cache: mc → (none)"},
		{"other model cache", func(s *results.Sources) { s.ModelCache = "mc2" }, "model_cache: mc → mc2"},
	} {
		cur := replay
		c.cur(&cur)
		err := checkSameSources("d", &replay, &cur)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.want != "" && (!errors.Is(err, ErrPlanMismatch) || !strings.Contains(err.Error(), "("+c.want+")")):
			t.Errorf("%s: %v, want a plan mismatch naming (%s)", c.name, err, c.want)
		}
	}
	if err := checkSameSources("d", nil, &replay); err != nil {
		t.Errorf("an older manifest without sources: %v", err)
	}
}

// The sources record directories as absolute paths: the same model cache given relative or absolute resumes,
// and the same relative name from another working directory is another place.
func TestSourcesAbsolute(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, abs := sourcesOf(Options{ModelCache: "mc"}), sourcesOf(Options{ModelCache: filepath.Join(wd, "mc")})
	if rel.ModelCache != filepath.Join(wd, "mc") || checkSameSources("d", rel, abs) != nil {
		t.Errorf("relative %q vs absolute %q: want the same place", rel.ModelCache, abs.ModelCache)
	}
	t.Chdir(t.TempDir())
	if other := sourcesOf(Options{ModelCache: "mc"}); checkSameSources("d", rel, other) == nil {
		t.Errorf("mc from another directory (%q) resumed %q", other.ModelCache, rel.ModelCache)
	}
}
