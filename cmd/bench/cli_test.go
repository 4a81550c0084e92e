package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"webbench/results"
)

var benchBin string

// The package's browser tests that run bench themselves (each its own processes, endpoints, ports and temporary
// folders; no environment variable or working directory of the test binary changed) are parallel, at most
// -test.parallel at once (GOMAXPROCS by default: 2 on a 2-core machine): most of a run's time is waiting on its
// browser and endpoint, so two overlap. What they compare between runs (the clean profile's outcomes, a
// guard-on arm's, a stall with visual_progress off) is reproducible under load, as the determinism test checks
// under CPU load. TestRedesignEquivalence stays sequential (its doc says why), and so does the determinism
// test, which make test runs in a go test process of its own beside the package pass.
//
// TestMain builds the bench binary that every test runs (benchBin), or turns the binary into a CPU hog.
func TestMain(m *testing.M) {
	if os.Getenv(cpuHogEnv) != "" {
		cpuHog() // a CPU hog of the determinism test (determinism_test.go); never returns
	}
	dir, err := os.MkdirTemp("", "bench-cli")
	if err != nil {
		panic(err)
	}
	benchBin = filepath.Join(dir, "bench")
	if out, err := exec.Command("go", "build", "-o", benchBin, ".").CombinedOutput(); err != nil {
		panic("build bench: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// bench runs the binary from the repository root and returns stdout, stderr and the exit code.
func bench(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return benchEnv(t, nil, args...)
}

// benchEnv is bench with env added to the environment ("NAME=value" entries).
func benchEnv(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	stdout, stderr, code, err := runBench(env, args...)
	if err != nil {
		t.Fatal(err)
	}
	return stdout, stderr, code
}

// runBench runs the binary from the repository root with env added to the environment and returns stdout,
// stderr and the exit code; err is set only when the binary could not be run (for the package's shared
// fixtures, which have no test of their own to fail).
func runBench(env []string, args ...string) (stdout, stderr string, code int, err error) {
	cmd := exec.Command(benchBin, args...)
	cmd.Dir = "../.."
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode(), nil
	}
	return out.String(), errb.String(), 0, err
}

func TestBadInputExitsTwoWithClearErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--suite", "nope", "--dry-run"}, `unknown suite "nope"`},
		{[]string{"run", "--suite", "zoo", "--tasks", "zzz-*", "--dry-run"}, `glob "zzz-*" matches no task`},
		{[]string{"run", "--reps", "0", "--dry-run"}, "--reps must be at least 1"},
		{[]string{"run", "--guards", "repeat_gaurd=off", "--dry-run"}, "repeat_gaurd"},
		{[]string{"run", "--model", "gpt-4o", "--dry-run"}, "expected scripted[:PROFILE] or openai:NAME"},
		{[]string{"report", "/nonexistent"}, "not a run directory"},
		{[]string{"power"}, "give --target"},
		{[]string{"power", "--base", "0.8", "--target", "-0.5"}, "--base and --target are pass rates in [0,1]"},
		{[]string{"run", "--profile", "cleen", "--dry-run"}, `unknown fault profile "cleen"`},
		{[]string{"run", "--prompt", "/nonexistent/prompt.txt", "--dry-run"}, "system prompt /nonexistent/prompt.txt"},
		{[]string{"zoo", "serve", "--mutations", "consentt"}, `unknown mutation "consentt"`},
		{[]string{"run", "--record", "x", "--replay", "y", "--dry-run"}, "--record and --replay: give one"},
		{[]string{"run", "--record-secrets", "--dry-run"}, "--record-secrets needs --record DIR"},
		{[]string{"run", "--record-missing", "--dry-run"}, "--record-missing needs --replay DIR"},
		{[]string{"run", "--replay", "/nonexistent/cassette", "--dry-run"}, "--replay: cassette: /nonexistent/cassette is not a cassette"},
	}
	for _, c := range cases {
		_, stderr, code := bench(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("bench %v: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, stderr, c.want)
		}
	}
}

func TestAblateSpecErrors(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"unknown-guard.yaml": "name: x\nbaseline:\n  guards: {no_such_guard: false}\ndesign: leave-one-out\n",
		"unknown-suite.yaml": "name: x\nsuite: atlantis\ndesign: leave-one-out\n",
		"unknown-key.yaml":   "name: x\ndesign: leave-one-out\nvariants_typo: []\n",
		"bad-reps.yaml":      "name: x\nreps: -2\ndesign: leave-one-out\n",
	}
	wants := map[string]string{"unknown-guard.yaml": `unknown guard "no_such_guard"`, "unknown-suite.yaml": `unknown suite "atlantis"`,
		"unknown-key.yaml": `unknown-key.yaml:3:1: unknown key "variants_typo"`, "bad-reps.yaml": "reps must be at least 1"}
	for name, src := range cases {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(src), 0o644)
		_, stderr, code := bench(t, "ablate", p, "--dry-run")
		if code != 2 || !strings.Contains(stderr, wants[name]) || !strings.Contains(stderr, name) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 naming the file and %q", name, code, stderr, wants[name])
		}
	}
	// A variant equal to the baseline is a warning, not an error.
	p := filepath.Join(dir, "same.yaml")
	os.WriteFile(p, []byte("name: same\nvariants:\n  - name: copy\n    guards: {repeat_guard: true}\n"), 0o644)
	_, stderr, code := bench(t, "ablate", p, "--dry-run")
	if code != 0 || !strings.Contains(stderr, "identical to the baseline") {
		t.Errorf("identical variant: exit %d, stderr %q", code, stderr)
	}
}

func TestPowerMatchesStats(t *testing.T) {
	out, _, code := bench(t, "power", "--base", "0.82", "--target", "1.0", "--n", "11")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"38.5", "0.120", "16"} {
		if !strings.Contains(out, want) {
			t.Errorf("bench power output lacks %s:\n%s", want, out)
		}
	}
}

type planJSON struct {
	Attempts []struct {
		AttemptID string `json:"attempt_id"`
		PairID    string `json:"pair_id"`
	} `json:"attempts"`
}

func dryPlan(t *testing.T, args ...string) planJSON {
	t.Helper()
	out, stderr, code := bench(t, append([]string{"ablate", "suites/zoo/ablations/demo.yaml", "--dry-run", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("dry run %v: exit %d: %s", args, code, stderr)
	}
	var p planJSON
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// The --dry-run --json plans of shards 1/3, 2/3, 3/3 are disjoint, together equal the unsharded plan, and keep
// every pair whole.
func TestShardPlansPartitionByPair(t *testing.T) {
	all := dryPlan(t)
	if len(all.Attempts) == 0 {
		t.Fatal("empty plan")
	}
	seen := map[string]int{}
	pairShard := map[string]int{}
	for i := 1; i <= 3; i++ {
		p := dryPlan(t, "--shard", []string{"1/3", "2/3", "3/3"}[i-1])
		for _, a := range p.Attempts {
			seen[a.AttemptID]++
			if s, ok := pairShard[a.PairID]; ok && s != i {
				t.Fatalf("pair %s split across shards %d and %d", a.PairID, s, i)
			}
			pairShard[a.PairID] = i
		}
	}
	var want, got []string
	for _, a := range all.Attempts {
		want = append(want, a.AttemptID)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("attempt %s in %d shards", id, n)
		}
		got = append(got, id)
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(want, ",") != strings.Join(got, ",") {
		t.Fatalf("shards hold %d attempts, unsharded plan %d", len(got), len(want))
	}
}

type recLine struct {
	AttemptID string `json:"attempt_id"`
	Status    string `json:"status"`
	TaskID    string `json:"task_id"`
	Rep       int    `json:"rep"`
}

func finalRecords(t *testing.T, dir string) map[string]recLine {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "attempts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]recLine{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r recLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		out[r.AttemptID] = r
	}
	return out
}

const twoShopTasks = "shop-qa-yoga-mat-thickness,shop-checkout-cork-blocks-standard"

// checkMergedEqualsWhole asserts that the run directory merged (bench merge of n shards) holds what the
// unsharded run whole holds: the same plan, the manifest's shard "merged from n shards", and for each of the
// attempts attempt ids the same final record — task, rep, seed, pair_id, variant, status, error class, failure
// mode, steps, verdict and, with sameFinal, the final answer (a checkout's answer is the order number the Zoo
// server assigned, which depends on the order the server saw the checkouts in, not on the attempt: pass false
// for tasks like that). It returns how many of those attempts passed, so a caller can check that the outcomes
// were mixed.
func checkMergedEqualsWhole(t *testing.T, whole, merged string, n, attempts int, sameFinal bool) (passed int) {
	t.Helper()
	mw, err := results.Open(whole)
	if err != nil {
		t.Fatal(err)
	}
	mm, err := results.Open(merged)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(mw.Manifest.Plan, mm.Manifest.Plan) || mm.Manifest.Shard != "merged from "+results.Count(n, "shard", "shards") {
		t.Errorf("merged manifest %+v, unsharded plan %+v", mm.Manifest, mw.Manifest.Plan)
	}
	a, b := mw.Final(), mm.Final()
	if len(a) != attempts || len(a) != len(b) {
		t.Fatalf("unsharded has %d attempts (want %d), merged %d", len(a), attempts, len(b))
	}
	// The fields an attempt's outcome is made of; clocks, durations and token counts of the page text aside.
	type outcome struct {
		Task, Variant, Pair, Status, ErrorClass, FailureMode, Final string
		Rep, Seed, Steps                                            int
		Verdict                                                     string
	}
	of := func(r results.Attempt) outcome {
		o := outcome{Task: r.TaskID, Variant: r.Variant, Pair: r.PairID, Status: string(r.Status), ErrorClass: string(r.ErrorClass),
			FailureMode: string(r.FailureMode), Final: r.Final, Rep: r.Rep, Steps: r.Steps, Seed: -1}
		if r.Seed != nil {
			o.Seed = *r.Seed
		}
		v, _ := json.Marshal(r.Verdict)
		o.Verdict = string(v)
		if !sameFinal {
			o.Final = ""
		}
		return o
	}
	for _, r := range a {
		if r.Status == results.StatusPass {
			passed++
		}
		m, ok := mm.Latest(r.AttemptID)
		if !ok {
			t.Errorf("attempt %s (%s %s rep %d) is not in the merged run", r.AttemptID, r.Variant, r.TaskID, r.Rep)
			continue
		}
		if x, y := of(r), of(m); x != y {
			t.Errorf("attempt %s:\nunsharded %+v\nmerged    %+v", r.AttemptID, x, y)
		}
	}
	return passed
}

// Shards 1/3, 2/3, 3/3 run separately and merged equal one unsharded run of the same command, attempt for
// attempt: the package's killed and resumed run (killedThenResumed).
func TestShardsMergedEqualUnsharded(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	tmp := t.TempDir()
	k := shared(t, killedThenResumed)
	run := func(out string, extra ...string) {
		args := append(append(slices.Clone(k.args[:len(k.args)-2]), "--out", out), extra...)
		if _, stderr, code := bench(t, args...); code != 0 {
			t.Fatalf("bench %v: exit %d\n%s", args, code, stderr)
		}
	}
	if k.resumeCode != 0 {
		t.Fatalf("the unsharded run's resume: exit %d\n%s", k.resumeCode, k.resumeStderr)
	}
	whole := k.dir
	var shards []string
	for _, s := range []string{"1/3", "2/3", "3/3"} {
		d := filepath.Join(tmp, "shard"+s[:1])
		run(d, "--shard", s)
		shards = append(shards, d)
	}
	merged := filepath.Join(tmp, "merged")
	if _, stderr, code := bench(t, append([]string{"merge", "--out", merged}, shards...)...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	checkMergedEqualsWhole(t, whole, merged, 3, 4, false) // a checkout's answer is a server-assigned order number
	// Mixed specs are refused. The other plan's run is its shard 2/3, which holds none of its one attempt (the
	// pair's id is 0 mod 3): merge compares the plans in the manifests, so a run directory that ran nothing will
	// do (were the shard not empty, it would run its attempt and still be refused).
	other := filepath.Join(tmp, "other")
	if _, stderr, code := bench(t, "run", "--suite", "zoo", "--tasks", "shop-qa-yoga-mat-thickness", "--reps", "1",
		"--out", other, "--dry-run"); code != 0 {
		t.Fatal(stderr)
	}
	run(other, "--tasks", "shop-qa-yoga-mat-thickness", "--reps", "1", "--shard", "2/3")
	if _, stderr, code := bench(t, "merge", "--out", filepath.Join(tmp, "bad"), whole, other); code != 2 ||
		!strings.Contains(stderr, "mixed specs") {
		t.Errorf("merging different plans: exit %d, %s", code, stderr)
	}
}

// bench killed with SIGKILL mid-run, then resumed: exactly one record per planned attempt. The run is the
// package's shared one (killedThenResumed).
func TestSigkillThenResume(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	k := shared(t, killedThenResumed)
	out := k.dir
	if k.killedAt == 0 || k.killedAt >= 4 {
		t.Logf("killed with %d of 4 attempts recorded", k.killedAt)
	}
	if k.resumeCode != 0 {
		t.Fatalf("resume: exit %d: %s", k.resumeCode, k.resumeStderr)
	}
	recs := finalRecords(t, out)
	if len(recs) != 4 {
		t.Fatalf("after resume %d attempt ids, want 4", len(recs))
	}
	b, _ := os.ReadFile(filepath.Join(out, "attempts.jsonl"))
	if n := strings.Count(strings.TrimSpace(string(b)), "\n") + 1; n != 4 {
		t.Errorf("%d lines for 4 attempts (duplicates)", n)
	}
	for id, r := range recs {
		if r.Status != "pass" {
			t.Errorf("%s: %s", id, r.Status)
		}
	}
}

// bench judge over the four shipped WebVoyager example folders writes a verdict file for each, through a real
// loopback chat-completions server acting as the judge model.
func TestJudgeWebVoyagerExampleFolders(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "datasets", "webvoyager", "examples")
	if v := os.Getenv("WEBBENCH_SHARED"); v != "" {
		src = filepath.Join(v, "datasets", "webvoyager", "examples")
	}
	if _, err := os.Stat(src); err != nil {
		t.Skipf("WebVoyager examples not found at %s (set WEBBENCH_SHARED)", src)
	}
	dst := t.TempDir()
	if out, err := exec.Command("cp", "-r", src+"/.", dst).CombinedOutput(); err != nil {
		t.Fatalf("copy examples: %v %s", err, out)
	}
	exec.Command("chmod", "-R", "u+w", dst).Run()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		verdict := "SUCCESS"
		if calls.Load()%2 == 0 {
			verdict = "NOT SUCCESS"
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"j","object":"chat.completion","model":"judge","choices":[{"index":0,"message":{"role":"assistant","content":"The screenshots show the answer.\nVerdict: %s"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`, verdict)
	}))
	defer srv.Close()
	out, stderr, code := bench(t, "judge", dst, "--judge", "llm", "--judge-model", "openai:judge", "--judge-base-url", srv.URL+"/v1")
	if code != 0 {
		t.Fatalf("bench judge: exit %d: %s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dst, "*", "verdict-llm.json"))
	// One call per folder plus the judge endpoint's preflight (a request in the judge's own shape) before any.
	if len(files) != 4 || calls.Load() != 5 {
		t.Fatalf("%d verdict files, %d judge calls; want 4 and 5 (4 + the preflight)\n%s", len(files), calls.Load(), out)
	}
	for _, f := range files {
		var v struct {
			Verdict struct {
				Judge string `json:"judge"`
				Pass  bool   `json:"pass"`
				Error string `json:"error"`
			} `json:"verdict"`
			Screenshots int `json:"screenshots"`
		}
		b, _ := os.ReadFile(f)
		if err := json.Unmarshal(b, &v); err != nil || v.Verdict.Error != "" || v.Screenshots == 0 {
			t.Errorf("%s: %s", f, b)
		}
	}
}

// ablationStats extracts the analysis of an ablation report (bench report --format json) that two runs of the
// same attempts must share — per variant its counts, rates, interval, effect and p-values, failure modes, per
// arm its passes — leaving out what depends on the clock (wall times).
func ablationStats(t *testing.T, js string) string {
	t.Helper()
	var doc struct {
		Variants []map[string]any `json:"variants"`
		Arms     []map[string]any `json:"arms"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, v := range doc.Variants {
		for _, k := range []string{"name", "n", "passes", "rate", "wilson", "delta", "delta_ci", "p_paired", "p_perm",
			"p_mcnemar", "p_holm", "rescued", "broke", "failure_modes"} {
			fmt.Fprintf(&b, "%s=%v;", k, v[k])
		}
	}
	for _, a := range doc.Arms {
		fmt.Fprintf(&b, "%v=%v/%v;", a["name"], a["passes"], a["n"])
	}
	return b.String()
}

// A completed run whose attempts all ended in infrastructure errors exits 3, and re-using its directory with
// another configuration is refused with exit 2.
//
// Most of its time is the model client's backoff between retries of the refused connection (about 9 s at the
// preflight and again in the attempt), during which it loads nothing; its one browser idles.
func TestInfraRunExitsThreeAndPlanMismatchTwo(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"run", "--suite", "zoo", "--tasks", "shop-qa-yoga-mat-thickness", "--reps", "1", "--retries", "0",
		"--model", "openai:gpt-test", "--base-url", "http://127.0.0.1:1/v1", "--call-timeout", "2s", "--out", out}
	_, stderr, code := bench(t, args...)
	if code != 3 || !strings.Contains(stderr, "infrastructure errors") {
		t.Fatalf("all-infra run: exit %d, stderr %q; want exit 3", code, stderr)
	}
	_, stderr, code = bench(t, "run", "--suite", "zoo", "--tasks", "shop-qa-yoga-mat-thickness", "--reps", "1",
		"--model", "scripted", "--profile", "harsh", "--out", out)
	if code != 2 || !strings.Contains(stderr, "different plan") {
		t.Fatalf("re-using the directory with another model: exit %d, stderr %q; want exit 2", code, stderr)
	}
}

// Schema version 1 run directories (the results package's fixtures, written by the version 1 bench) are read by
// bench report, judge and merge: the ablation's parameters come from its ablation.json, converted on load.
func TestV1RunDirectoriesRead(t *testing.T) {
	tmp := t.TempDir()
	for _, name := range []string{"v1run", "v1ablate"} {
		if err := os.CopyFS(filepath.Join(tmp, name), os.DirFS(filepath.Join("..", "..", "results", "testdata", name))); err != nil {
			t.Fatal(err)
		}
	}
	abl, run := filepath.Join(tmp, "v1ablate"), filepath.Join(tmp, "v1run")
	out, stderr, code := bench(t, "report", abl, "--format", "json")
	var rep struct {
		Baseline string  `json:"baseline"`
		Alpha    float64 `json:"alpha"`
		Variants []struct {
			Name  string   `json:"name"`
			Scope []string `json:"scope"`
		} `json:"variants"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("report: exit %d: %s%s", code, stderr, out)
	}
	if rep.Baseline != "baseline" || rep.Alpha != 0.1 || len(rep.Variants) != 1 || rep.Variants[0].Name != "no_intercept_hint" ||
		!reflect.DeepEqual(rep.Variants[0].Scope, []string{"shop-checkout-yoga-mat-express"}) {
		t.Errorf("report = %+v", rep)
	}
	out, stderr, code = bench(t, "judge", run, "--judge", "answer")
	if code != 0 || !strings.Contains(out, "1 attempt judged by answer: 1 pass, 0 fail, 0 uncertain, 0 judge errors") {
		t.Fatalf("judge: exit %d: %s%s", code, stderr, out)
	}
	r, err := results.Open(run)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := r.Attempts("answer")
	if err != nil || len(recs) != 1 || recs[0].Status != results.StatusPass || recs[0].Verdict.Judge != "answer" {
		t.Fatalf("re-judged records = %+v, %v", recs, err)
	}
	out, stderr, code = bench(t, "judge", run, "--agreement", "original,answer")
	if code != 0 || !strings.Contains(out, "agreement original vs answer over 1 attempt") {
		t.Errorf("agreement: exit %d: %s%s", code, stderr, out)
	}
	merged := filepath.Join(tmp, "merged")
	if _, stderr, code := bench(t, "merge", "--out", merged, abl); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	m, err := results.Open(merged)
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Manifest.Plan; m.Manifest.SchemaVersion != results.SchemaVersion || p.Ablation == nil || p.Ablation.Alpha != 0.1 ||
		p.Baseline != "baseline" || len(m.Final()) != 2 {
		t.Errorf("merged = %+v", m.Manifest)
	}
	if _, err := os.Stat(filepath.Join(merged, results.AblationV1File)); !os.IsNotExist(err) {
		t.Errorf("merge wrote %s: %v", results.AblationV1File, err)
	}
	// Resuming the version 1 run with its own command finds nothing to run and rewrites the manifest as version 2
	// with the same plan; another seed is refused.
	_, stderr, code = bench(t, "run", "--suite", "zoo", "--tasks", "shop-qa-yoga-mat-thickness", "--reps", "1", "--out", run)
	if code != 0 || !strings.Contains(stderr, "the 1 planned attempt is already recorded") {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(run, results.ManifestFile))
	resumed, err := results.Open(run)
	if err != nil || !strings.Contains(string(b), `"schema_version": 2`) {
		t.Fatalf("resumed manifest %s, %v", b, err)
	}
	// The upgrade keeps what the old manifest said of the run's end.
	if resumed.Manifest.EndedAt != r.Manifest.EndedAt || !reflect.DeepEqual(resumed.Manifest.Summary, r.Manifest.Summary) ||
		r.Manifest.Summary == nil {
		t.Errorf("resumed manifest ended %q, summary %+v; was %q, %+v", resumed.Manifest.EndedAt, resumed.Manifest.Summary,
			r.Manifest.EndedAt, r.Manifest.Summary)
	}
	// Version 1 recorded task tags for ablations only, and no cluster unit: the resumed plan gains both from the
	// suite; the rest of the plan is the same.
	got, was := resumed.Manifest.Plan, r.Manifest.Plan
	if len(got.TaskTags["shop-qa-yoga-mat-thickness"]) == 0 {
		t.Errorf("resumed plan has no task tags: %v", got.TaskTags)
	}
	if got.ClusterUnit != "family" {
		t.Errorf("resumed plan's cluster unit %q, want the Zoo's family", got.ClusterUnit)
	}
	got.TaskTags, got.ClusterUnit = nil, ""
	if !reflect.DeepEqual(got, was) {
		t.Errorf("resumed plan %+v, was %+v", got, was)
	}
	if _, stderr, code := bench(t, "run", "--suite", "zoo", "--tasks", "shop-qa-yoga-mat-thickness", "--seed", "2", "--out", run); code != 2 ||
		!strings.Contains(stderr, "base seed: 1 → 2") {
		t.Errorf("resume with another seed: exit %d: %s", code, stderr)
	}
}

// bench judge reopens the suite with the options the manifest records, for an ablation as for a plain run: a
// WebVoyager ablation over the offline fixtures is re-judged without --tasks-file or --answers.
func TestJudgeRecoversAblationSuiteOptions(t *testing.T) {
	dir := t.TempDir()
	v := results.Variant{Name: "baseline", Model: results.Model{Kind: "scripted", Name: "scripted", Profile: "clean"},
		Guards: map[string]bool{}}
	m := &results.Manifest{RunID: "wv", Plan: results.Plan{Suite: "webvoyager", SuiteOptions: map[string]string{
		"tasks_file": "suites/webvoyager/fixtures/tasks.jsonl", "answers": "suites/webvoyager/fixtures/reference_answer.json"},
		Tasks: []string{"FixtureRecipes--0"}, Reps: 1, BaseSeed: 1, Baseline: "baseline", Variants: []results.Variant{v},
		Attempts: 1, Ablation: &results.Ablation{Spec: "wv.yaml", Alpha: 0.05, Power: 0.8}}}
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	w, err := results.OpenWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, final := range []string{"181", "12"} {
		rec := results.Attempt{AttemptID: fmt.Sprintf("a%d", i), Variant: "baseline", TaskID: "FixtureRecipes--0",
			Suite: "webvoyager", Rep: i + 1, Status: results.StatusPass, Final: final, OK: true}
		if err := w.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	abs, _ := filepath.Abs(dir)
	out, stderr, code := bench(t, "judge", abs, "--judge", "answer")
	if code != 0 || !strings.Contains(out, "2 attempts judged by answer: 1 pass, 1 fail, 0 uncertain, 0 judge errors") {
		t.Fatalf("judge: exit %d: %s%s", code, stderr, out)
	}
	run, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := run.Attempts("answer")
	if len(recs) != 2 || recs[0].Status != results.StatusPass || recs[1].Status != results.StatusFail {
		t.Errorf("re-judged = %+v", recs)
	}
}
