package results

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"webbench/judge"
)

// The fixtures are real run directories, trajectories trimmed: v1run and v1ablate were written by the schema
// version 1 bench (`bench run --suite zoo --tasks shop-qa-yoga-mat-thickness --reps 1`, `bench judge --judge
// answer`, and `bench ablate` of a two-task spec with one target-scoped variant, seed 7); v2ablate by this
// bench from the same spec, then `bench judge --judge answer` and `--judge state`. v2ablate-gz is v2ablate in the
// compressed layout, made by an outside tool: its trajectories compressed with GNU gzip 1.12 (`gzip -9n
// trajectories/*.json`) and the records' `trajectory` fields renamed to trajectories/<id>.json.gz.

const (
	attBaseline = "b997634ce72945f6"
	attVariant  = "2ab84df9e96af7f2"
)

// copyFixture copies testdata/name into a temporary directory the test may change.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("testdata", name)
	dst := filepath.Join(t.TempDir(), name)
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestOpenV2Ablation(t *testing.T) {
	run, err := Open(filepath.Join("testdata", "v2ablate"))
	if err != nil {
		t.Fatal(err)
	}
	p := run.Manifest.Plan
	if run.Manifest.SchemaVersion != 2 || p.Suite != "zoo" || p.Baseline != "baseline" || p.BaseSeed != 7 || p.Reps != 1 ||
		p.Attempts != 2 {
		t.Fatalf("plan = %+v", p)
	}
	if a := p.Ablation; a == nil || a.Spec != "abl.yaml" || a.Alpha != 0.1 || a.Power != 0.8 || a.MinEffect != 0.2 {
		t.Fatalf("ablation = %+v", p.Ablation)
	}
	if got := p.VariantNames(); !slices.Equal(got, []string{"baseline", "no_intercept_hint"}) {
		t.Errorf("variants = %v", got)
	}
	if got := p.Switched(); !reflect.DeepEqual(got, map[string][]string{"no_intercept_hint": {"intercept_hint"}}) {
		t.Errorf("switched = %v", got)
	}
	want := []string{"shop-checkout-yoga-mat-express"}
	if got := p.Targets(); !reflect.DeepEqual(got, map[string][]string{"baseline": want, "no_intercept_hint": want}) {
		t.Errorf("targets = %v", got)
	}
	if v, _ := p.Variant("no_intercept_hint"); v.Scope != "target" || v.Guards["intercept_hint"] || !v.Guards["repeat_guard"] ||
		v.Model.String() != "scripted:clean" || len(v.PromptSHA256) != 64 {
		t.Errorf("variant = %+v", v)
	}
	if got := p.TaskTags["shop-checkout-yoga-mat-express"]; !slices.Contains(got, "intercept_hint") {
		t.Errorf("task tags = %v", p.TaskTags)
	}
	if run.TornTail || len(run.Records) != 2 || len(run.Final()) != 2 {
		t.Fatalf("records %d final %d torn %v", len(run.Records), len(run.Final()), run.TornTail)
	}
	if got := run.Judges(); !slices.Equal(got, []string{"answer", "state"}) {
		t.Errorf("judges = %v", got)
	}
	a, ok := run.Latest(attVariant)
	if !ok || a.Variant != "no_intercept_hint" || a.Status != StatusPass || a.Verdict.Judge != "state" {
		t.Fatalf("record = %+v", a)
	}
	if v := a.Verdicts["answer"]; v.Error != "task has no answer rule" {
		t.Errorf("attached answer verdict = %+v", v)
	}
	if v := a.Verdicts["state"]; !v.Pass || v.Judge != "state" {
		t.Errorf("attached state verdict = %+v", v)
	}
	tr, err := run.Trajectory(attVariant)
	if err != nil || tr.TaskID != "shop-checkout-yoga-mat-express" || len(tr.Steps) != 1 || len(tr.State) == 0 {
		t.Fatalf("trajectory = %+v, %v", tr, err)
	}
	if shots, err := run.Screenshots(attVariant); err != nil || len(shots) != 0 {
		t.Errorf("screenshots = %v, %v", shots, err)
	}
	if _, err := run.Trajectory("nope"); err == nil {
		t.Error("trajectory of an unknown attempt: no error")
	}
}

func TestAttemptsByJudge(t *testing.T) {
	dir := copyFixture(t, "v2ablate")
	// A judge that fails the baseline attempt and never saw the variant's.
	if _, err := WriteVerdicts(dir, "strict", []VerdictRecord{{AttemptID: attBaseline, TaskID: "shop-checkout-yoga-mat-express",
		Verdict: verdict("strict", false, "")}}); err != nil {
		t.Fatal(err)
	}
	run, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	byID := func(recs []Attempt) map[string]Attempt {
		m := map[string]Attempt{}
		for _, r := range recs {
			m[r.AttemptID] = r
		}
		return m
	}
	orig, err := run.Attempts(OriginalJudge)
	if err != nil || byID(orig)[attBaseline].Status != StatusPass || byID(orig)[attBaseline].Verdict.Judge != "state" {
		t.Fatalf("original = %+v, %v", orig, err)
	}
	strict, err := run.Attempts("strict")
	if err != nil {
		t.Fatal(err)
	}
	if r := byID(strict)[attBaseline]; r.Status != StatusFail || r.ErrorClass != ClassAgent || r.Verdict.Judge != "strict" ||
		r.FailureMode != "wrong_answer" {
		t.Errorf("re-judged baseline = %+v", r)
	}
	if r := byID(strict)[attVariant]; r.Status != StatusError || r.ErrorClass != ClassJudge || !strings.Contains(r.Error, "no verdict of judge strict") {
		t.Errorf("unjudged variant = %+v", r)
	}
	answer, _ := run.Attempts("answer")
	for _, r := range answer {
		if r.Status != StatusError || r.ErrorClass != ClassJudge || r.Error != "task has no answer rule" {
			t.Errorf("answer-judged %s = %s/%s %q", r.AttemptID, r.Status, r.ErrorClass, r.Error)
		}
	}
	if _, err := run.Attempts("llm"); err == nil || !strings.Contains(err.Error(), "original, answer, state, strict") {
		t.Errorf("unknown judge: %v", err)
	}
	if vs, ok := run.Verdicts(OriginalJudge); !ok || len(vs) != 2 || !vs[attVariant].Pass {
		t.Errorf("original verdicts = %v", vs)
	}
	// Verdicts attached on load are never written back.
	w, err := OpenWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := run.Latest(attBaseline)
	if err := w.Append(a); err != nil {
		t.Fatal(err)
	}
	w.Close()
	rr, err := ReadAttempts(dir)
	if err != nil || len(rr.Records) != 3 || rr.Records[2].Verdicts != nil || rr.Records[2].SchemaVersion != SchemaVersion {
		t.Fatalf("appended record = %+v, %v", rr.Records, err)
	}
}

// An uncertain re-judged verdict is an error of class uncertain (never a pass, never the agent's failure), and
// a record of class uncertain is judged (resume keeps it, bench judge re-scores it); other errors are not.
func TestAttemptsUncertain(t *testing.T) {
	dir := copyFixture(t, "v2ablate")
	if _, err := WriteVerdicts(dir, "unsure", []VerdictRecord{
		{AttemptID: attBaseline, TaskID: "shop-checkout-yoga-mat-express",
			Verdict: judge.Verdict{Judge: "unsure", Uncertain: true, Reason: "states other candidate numbers"}},
		{AttemptID: attVariant, TaskID: "shop-checkout-yoga-mat-express", Verdict: verdict("unsure", true, "")}}); err != nil {
		t.Fatal(err)
	}
	run, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := run.Attempts("unsure")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		switch r.AttemptID {
		case attBaseline:
			if r.Status != StatusError || r.ErrorClass != ClassUncertain || r.Done() || !r.Judged() ||
				r.Error != "uncertain: states other candidate numbers" || r.FailureMode != "" {
				t.Errorf("uncertain re-judge = %+v", r)
			}
		case attVariant:
			if r.Status != StatusPass {
				t.Errorf("pass re-judge = %+v", r)
			}
		}
	}
	if (Attempt{Status: StatusError, ErrorClass: ClassJudge}).Judged() || (Attempt{Status: StatusError, ErrorClass: ClassInfra}).Judged() {
		t.Error("judge and infra errors are not judged: they are re-run")
	}
	// An uncertain verdict on an attempt that gave no final answer (its final is the raw output) is a failure;
	// on one that answered, or of unknown finish, it is uncertain.
	for f, want := range map[FinishReason]bool{FinishAnswered: false, "": false, FinishNonJSONOutput: true,
		FinishMaxSteps: true, FinishTimeout: true, FinishRefusal: true} {
		if got := UncertainIsFailure(f); got != want {
			t.Errorf("UncertainIsFailure(%q) = %v, want %v", f, got, want)
		}
	}
}

// Re-judging an uncertain record leaves nothing stale: a pass clears its "uncertain: …" error, a
// fail is wrong_answer, the error that ended the attempt (here on a record older than finish_reason) is
// kept through every re-judge, and an uncertain re-judge of an attempt that never answered is a fail whose
// reason says so (S1). A record no judge saw has no "verdict" key (S7).
func TestAttemptsRejudgeUncertain(t *testing.T) {
	dir := copyFixture(t, "v2ablate")
	run, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := run.Latest(attBaseline)
	variant, _ := run.Latest(attVariant)
	base.Status, base.ErrorClass, base.FinishReason = StatusError, ClassUncertain, FinishAnswered
	base.Error = UncertainError("", "states other candidate numbers")
	variant.Status, variant.ErrorClass, variant.FinishReason = StatusError, ClassUncertain, ""
	variant.Error = UncertainError("model said: see above", "reversed order")
	if variant.FinishError() != "model said: see above" || base.FinishError() != "" {
		t.Fatalf("FinishError = %q, %q", variant.FinishError(), base.FinishError())
	}
	w, err := OpenWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []Attempt{base, variant} {
		if err := w.Append(a); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	write := func(name string, vb, vv judge.Verdict) {
		t.Helper()
		if _, err := WriteVerdicts(dir, name, []VerdictRecord{{AttemptID: attBaseline, Verdict: vb}, {AttemptID: attVariant, Verdict: vv}}); err != nil {
			t.Fatal(err)
		}
	}
	write("yes", verdict("yes", true, ""), verdict("yes", true, ""))
	write("no", verdict("no", false, ""), verdict("no", false, ""))
	write("err", judge.Verdict{Judge: "err", Error: "endpoint down"}, judge.Verdict{Judge: "err", Error: "endpoint down"})
	if run, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	type got struct {
		status Status
		class  ErrorClass
		err    string
		mode   FailureMode
	}
	want := map[string][2]got{
		"yes": {{StatusPass, "", "", ""}, {StatusPass, "", "model said: see above", ""}},
		"no":  {{StatusFail, ClassAgent, "", ModeWrongAnswer}, {StatusFail, ClassAgent, "model said: see above", ModeWrongAnswer}},
		"err": {{StatusError, ClassJudge, "endpoint down", ""}, {StatusError, ClassJudge, "model said: see above; endpoint down", ""}},
	}
	for name, w := range want {
		recs, err := run.Attempts(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			i := map[string]int{attBaseline: 0, attVariant: 1}[r.AttemptID]
			if g := (got{r.Status, r.ErrorClass, r.Error, r.FailureMode}); g != w[i] {
				t.Errorf("judge %s, %s: %+v, want %+v", name, r.AttemptID, g, w[i])
			}
		}
	}
	// An uncertain verdict on an attempt that ran out of steps is a fail that says why.
	base.FinishReason = FinishMaxSteps
	w2, _ := OpenWriter(dir)
	w2.Append(base)
	w2.Close()
	write("unsure", judge.Verdict{Judge: "unsure", Uncertain: true, Reason: "other candidates"}, verdict("unsure", true, ""))
	run, _ = Open(dir)
	recs, _ := run.Attempts("unsure")
	for _, r := range recs {
		if r.AttemptID == attBaseline && (r.Status != StatusFail || r.Verdict.Uncertain ||
			r.Verdict.Reason != "uncertain → fail: no final answer (finish max_steps): other candidates") {
			t.Errorf("uncertain on max_steps = %s, verdict %+v", r.Status, r.Verdict)
		}
	}
	// S7: an infrastructure error no judge saw is written without a verdict.
	b, err := json.Marshal(Attempt{AttemptID: "x", Status: StatusError, ErrorClass: ClassInfra})
	if err != nil || strings.Contains(string(b), `"verdict"`) || strings.Contains(string(b), `"pass"`) {
		t.Errorf("infra record JSON = %s, %v", b, err)
	}
}

// A version 1 ablation (manifest.json with its untyped spec, plus ablation.json) reads as the same plan as the
// version 2 run of the same spec.
func TestOpenV1AblationConverted(t *testing.T) {
	v1, err := Open(filepath.Join("testdata", "v1ablate"))
	if err != nil {
		t.Fatal(err)
	}
	v2, err := Open(filepath.Join("testdata", "v2ablate"))
	if err != nil {
		t.Fatal(err)
	}
	if v1.Manifest.SchemaVersion != SchemaVersion || v1.Manifest.RunID != "v1ablate" || v1.Manifest.Summary.Passed != 2 {
		t.Errorf("manifest = %+v", v1.Manifest)
	}
	if !reflect.DeepEqual(v1.Manifest.Plan, v2.Manifest.Plan) {
		t.Errorf("converted plan differs:\nv1 %+v\nv2 %+v", v1.Manifest.Plan, v2.Manifest.Plan)
	}
	var ids1, ids2 []string
	for _, a := range v1.Final() {
		ids1 = append(ids1, a.AttemptID+" "+string(a.Status))
	}
	for _, a := range v2.Final() {
		ids2 = append(ids2, a.AttemptID+" "+string(a.Status))
	}
	if !slices.Equal(ids1, ids2) {
		t.Errorf("attempts v1 %v, v2 %v", ids1, ids2)
	}
}

func TestOpenV1Run(t *testing.T) {
	run, err := Open(filepath.Join("testdata", "v1run"))
	if err != nil {
		t.Fatal(err)
	}
	p := run.Manifest.Plan
	if p.Baseline != "default" || p.Ablation != nil || p.TaskFilter != "shop-qa-yoga-mat-thickness" || p.SuiteOptions != nil ||
		!slices.Equal(p.Tasks, []string{"shop-qa-yoga-mat-thickness"}) || p.BaseSeed != 1 {
		t.Fatalf("plan = %+v", p)
	}
	if v := p.Variants[0]; v.PromptSHA256 != "d4a2ded9d165dba98b238c9041ac51cff613587971af514a4ae789e77d704c3c" || v.TargetTasks != nil {
		t.Errorf("variant = %+v", v)
	}
	recs := run.Final()
	if len(recs) != 1 || recs[0].SchemaVersion != 1 || recs[0].Verdicts["answer"].Reason != "answer matches the reference rule" {
		t.Fatalf("records = %+v", recs)
	}
	tr, err := run.Trajectory(recs[0].AttemptID)
	if err != nil || tr.Finish.Final == nil || tr.Finish.Final.Final != "6" {
		t.Fatalf("trajectory = %+v, %v", tr, err)
	}
}

// A version 1 run's suite options (tasks file, answers, stale-dates policy) are recovered from its spec, for
// bench run and for bench ablate alike.
func TestV1SuiteOptionsRecovered(t *testing.T) {
	dir := copyFixture(t, "v1run")
	p := filepath.Join(dir, ManifestFile)
	b, _ := os.ReadFile(p)
	b = []byte(strings.Replace(string(b), `"tasks_file": ""`, `"tasks_file": "wv.jsonl"`, 1))
	b = []byte(strings.Replace(string(b), `"stale_dates": ""`, `"stale_dates": "shift"`, 1))
	os.WriteFile(p, b, 0o644)
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"tasks_file": "wv.jsonl", "stale_dates": "shift"}; !reflect.DeepEqual(m.Plan.SuiteOptions, want) {
		t.Errorf("run suite options = %v", m.Plan.SuiteOptions)
	}
	dir = copyFixture(t, "v1ablate")
	p = filepath.Join(dir, ManifestFile)
	b, _ = os.ReadFile(p)
	b = []byte(strings.Replace(string(b), `"SuiteOptions": null`, `"SuiteOptions": {"answers": "ref.json"}`, 1))
	os.WriteFile(p, b, 0o644)
	if m, err = ReadManifest(dir); err != nil || !reflect.DeepEqual(m.Plan.SuiteOptions, map[string]string{"answers": "ref.json"}) {
		t.Errorf("ablate suite options = %v, %v", m.Plan.SuiteOptions, err)
	}
}

func TestOpenTornTail(t *testing.T) {
	dir := copyFixture(t, "v2ablate")
	f, _ := os.OpenFile(filepath.Join(dir, AttemptsFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"schema_version":2,"attempt_id":"torn","status":"pa`)
	f.Close()
	run, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !run.TornTail || len(run.Final()) != 2 {
		t.Errorf("torn %v, %d records", run.TornTail, len(run.Final()))
	}
	if _, ok := run.Latest("torn"); ok {
		t.Error("the torn record was read")
	}
}

func TestOpenErrorsNameFileLineField(t *testing.T) {
	cases := []struct {
		name, file string
		edit       func(string) string
		want       []string
	}{
		{"record field type", AttemptsFile, func(s string) string {
			return strings.Replace(s, `"steps":18`, `"steps":"many"`, 1)
		}, []string{AttemptsFile + ":1:", "field steps"}},
		{"record status", AttemptsFile, func(s string) string {
			i := strings.Index(s, "\n")
			return s[:i+1] + strings.Replace(s[i+1:], `"status":"pass"`, `"status":"passed"`, 1)
		}, []string{AttemptsFile + ":2:", "field status", `"passed"`}},
		{"record unknown field", AttemptsFile, func(s string) string {
			return strings.Replace(s, `"steps":18`, `"stepz":18`, 1)
		}, []string{AttemptsFile + ":1:", `unknown field "stepz"`}},
		{"record schema", AttemptsFile, func(s string) string {
			return strings.Replace(s, `"schema_version":2`, `"schema_version":7`, 1)
		}, []string{AttemptsFile + ":1:", "field schema_version", "7"}},
		{"manifest field type", ManifestFile, func(s string) string {
			return strings.Replace(s, `"reps": 1,`, `"reps": "one",`, 1)
		}, []string{ManifestFile + ":22:", "field plan.reps"}},
		{"manifest unknown field", ManifestFile, func(s string) string {
			return strings.Replace(s, `"reps": 1,`, `"reps": 1, "repz": 2,`, 1)
		}, []string{ManifestFile, `unknown field "repz"`}},
		{"manifest baseline", ManifestFile, func(s string) string {
			return strings.Replace(s, `"baseline": "baseline"`, `"baseline": "gone"`, 1)
		}, []string{ManifestFile, "field plan.baseline", `"gone"`}},
		{"manifest schema", ManifestFile, func(s string) string {
			return strings.Replace(s, `"schema_version": 2`, `"schema_version": 3`, 1)
		}, []string{ManifestFile, "schema_version 3"}},
		{"verdict", "verdicts-state.jsonl", func(s string) string {
			return strings.Replace(s, `"pass":true`, `"pass":"yes"`, 1)
		}, []string{"verdicts-state.jsonl:1:", "field verdict.pass"}},
		{"verdict schema", "verdicts-state.jsonl", func(s string) string {
			return strings.Replace(s, `"schema_version":2`, `"schema_version":9`, 1)
		}, []string{"verdicts-state.jsonl:1:", "field schema_version", "9"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyFixture(t, "v2ablate")
			p := filepath.Join(dir, c.file)
			b, _ := os.ReadFile(p)
			edited := c.edit(string(b))
			if edited == string(b) {
				t.Fatal("the edit changed nothing")
			}
			os.WriteFile(p, []byte(edited), 0o644)
			_, err := Open(dir)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if c.file == ManifestFile && !errors.Is(err, ErrBadManifest) {
				t.Errorf("error %v is not ErrBadManifest", err)
			}
		})
	}
	_, err := Open(t.TempDir())
	if !errors.Is(err, ErrNoManifest) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty directory: %v", err)
	}
}

func verdict(name string, pass bool, errText string) judge.Verdict {
	return judge.Verdict{Judge: name, Pass: pass, Error: errText}
}

// Trajectories are decoded strictly and their own schema version is checked.
func TestTrajectoryStrictAndVersioned(t *testing.T) {
	dir := copyFixture(t, "v2ablate")
	run, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := run.Trajectory(attVariant)
	if err != nil {
		t.Fatal(err)
	}
	if tr.SchemaVersion != TrajectorySchemaVersion || tr.TaskID == "" {
		t.Fatalf("trajectory = version %d task %q", tr.SchemaVersion, tr.TaskID)
	}
	// The fixture has the layout of the run directories written before compression: plain JSON.
	a, _ := run.Latest(attVariant)
	if want := filepath.Join(TrajectoriesDir, attVariant+PlainTrajectoryExt); a.Trajectory != want {
		t.Errorf("record's trajectory %q, want %q", a.Trajectory, want)
	}
	p := filepath.Join(dir, a.Trajectory)
	orig, _ := os.ReadFile(p)
	for name, c := range map[string]struct{ from, to, want string }{
		"version":       {`"schema_version": 1`, `"schema_version": 3`, "field schema_version: 3"},
		"unknown field": {`"goal":`, `"gaol":`, `unknown field "gaol"`},
	} {
		edited := strings.Replace(string(orig), c.from, c.to, 1)
		if edited == string(orig) {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		os.WriteFile(p, []byte(edited), 0o644)
		_, err := run.Trajectory(attVariant)
		if !errors.Is(err, ErrBadTrajectory) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want %q naming %s", name, err, c.want, p)
		}
	}
}

// The run's own verdicts cannot be overwritten by a re-judge of that name.
func TestWriteVerdictsRefusesOriginal(t *testing.T) {
	dir := copyFixture(t, "v2ablate")
	if _, err := WriteVerdicts(dir, OriginalJudge, nil); err == nil {
		t.Fatal("judge name original accepted")
	}
	if _, err := os.Stat(VerdictsPath(dir, OriginalJudge)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("verdicts-original.jsonl written: %v", err)
	}
}
