package main

// Issue 13, a fresh user's second look: a model that never calls tools stops the run at its preflight; real-model
// flags given with the scripted policy are refused; --max-cost needs prices (--price-in/--price-out); a stopped
// run's report says so; re-running a finished run keeps its manifest; an undefined pass rate is n/a / null;
// reports name the model; bench judge preflights its endpoint.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"webbench/internal/replay"
	"webbench/llm"
	"webbench/results"
)

// A model whose replies carry no tool call (the no_usage shape: plain content, finish_reason stop — vLLM
// without --enable-auto-tool-choice answers so), asked twice, stops bench run and bench ablate at the preflight with exit 2 and
// bench doctor's advice; nothing is written, not even the run directory, and bench report says why.
func TestNoToolCallsStopsAtPreflight(t *testing.T) {
	e := startEndpoint(t)
	tmp := t.TempDir()
	out := filepath.Join(tmp, "run")
	_, stderr, code := bench(t, endpointRun(e, out, "no_usage")...)
	if code != 2 || !strings.Contains(stderr, "no tool call") || !strings.Contains(stderr, "--enable-auto-tool-choice") ||
		!strings.Contains(stderr, "at the preflight") {
		t.Fatalf("run: exit %d, stderr:\n%s\nwant exit 2 naming the missing tool call and the vLLM flags", code, stderr)
	}
	t.Logf("run stopped:\n%s", stderr)
	if n := e.Calls("no_usage"); n != 2 || !strings.Contains(stderr, "asking once more") {
		t.Errorf("%d calls, want 2 (the preflight, asked once more after a reply without a tool call)", n)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a run stopped at its preflight left %s (%v)", out, err)
	}
	if _, stderr, code := bench(t, "report", out); code != 2 || !strings.Contains(stderr, "stopped by its preflight") {
		t.Errorf("report of the stopped run: exit %d, %q", code, stderr)
	}
	spec := filepath.Join(tmp, "spec.yaml")
	os.WriteFile(spec, []byte(fmt.Sprintf("name: notools\nsuite: zoo\ntasks: shop-qa-yoga-mat-thickness\nreps: 1\n"+
		"baseline:\n  model: {kind: openai, name: no_usage, base_url: %q}\nvariants:\n  - name: off\n    guards: {repeat_guard: false}\n",
		e.url)), 0o644)
	_, stderr, code = bench(t, "ablate", spec, "--out", filepath.Join(tmp, "abl"))
	if code != 2 || !strings.Contains(stderr, "no tool call") {
		t.Fatalf("ablate: exit %d, stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(tmp, "abl")); !os.IsNotExist(err) {
		t.Errorf("a stopped ablation left its directory (%v)", err)
	}
}

// Flags only a real model reads are refused with the scripted policy; --max-cost is refused when a variant has
// no prices (it could never trigger); --price-in/--price-out give them.
func TestRealModelFlagsAndMaxCostNeedWhatTheyUse(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "spec.yaml")
	os.WriteFile(spec, []byte("name: s\nsuite: zoo\ntasks: shop-qa-yoga-mat-thickness\nbaseline:\n  model: {kind: openai, name: m, base_url: \"http://127.0.0.1:1/v1\"}\n"+
		"variants:\n  - name: v\n    guards: {repeat_guard: false}\n"), 0o644)
	run := []string{"run", "--suite", "zoo", "--tasks", "shop-qa-yoga-mat-thickness", "--dry-run"}
	with := func(base []string, more ...string) []string { return append(append([]string{}, base...), more...) }
	real := with(run, "--model", "openai:m", "--base-url", "http://127.0.0.1:1/v1")
	cases := []struct {
		args []string
		want string
	}{
		{append(run, "--base-url", "http://localhost:8000/v1"), "--base-url needs --model openai:NAME"},
		{append(run, "--model", "scripted:observed", "--price-in", "1"), "--price-in needs --model openai:NAME"},
		{append(run, "--max-cost", "1"), "--max-cost needs the model's prices: --price-in/--price-out"},
		{with(real, "--max-cost", "1"), "price_in/price_out in the model block"},
		{with(real, "--price-in", "-1"), "--price-in -1"},
		{[]string{"ablate", spec, "--dry-run", "--base-url", "http://localhost:8000/v1"}, "--base-url needs --model openai:NAME"},
		{[]string{"ablate", spec, "--dry-run", "--max-cost", "1"}, "--max-cost needs the model's prices"},
		{[]string{"ablate", "suites/zoo/ablations/demo.yaml", "--dry-run", "--price-out", "2"}, "need a real model"},
	}
	for _, c := range cases {
		_, stderr, code := bench(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with %q", c.args, code, stderr, c.want)
		}
	}
	for _, args := range [][]string{with(real, "--max-cost", "1", "--price-in", "0.15", "--price-out", "0.6"),
		{"ablate", spec, "--dry-run", "--max-cost", "1", "--price-in", "0.15"}} {
		if _, stderr, code := bench(t, args...); code != 0 {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
	// A free local arm beside a paid one: --max-cost is accepted, with a warning naming the unpriced arm.
	mixed := filepath.Join(filepath.Dir(spec), "mixed.yaml")
	os.WriteFile(mixed, []byte("name: s\nsuite: zoo\ntasks: shop-qa-yoga-mat-thickness\nbaseline:\n  model: {kind: openai, name: llama, base_url: \"http://127.0.0.1:2/v1\"}\n"+
		"variants:\n  - name: paid\n    model: {kind: openai, name: m, base_url: \"http://127.0.0.1:1/v1\", price_in: 0.15}\n"), 0o644)
	if _, stderr, code := bench(t, "ablate", mixed, "--dry-run", "--max-cost", "1"); code != 0 ||
		!strings.Contains(stderr, "warning: --max-cost counts only priced variants; baseline (") {
		t.Errorf("mixed prices: exit %d, stderr %q; want exit 0 with a warning naming the baseline", code, stderr)
	}
}

// --price-in/--price-out reach the model's cost: a run with them stops at --max-cost; its report says it stopped
// and how many planned attempts have no record, and names the model and endpoint host. Resuming finishes it;
// running the finished run again rewrites nothing in its manifest (start time, endpoints, summary). Two Zoo
// questions: the stop after the first leaves one planned attempt for the resume.
func TestMaxCostStopsWithPriceFlagsAndFinishedRunKeepsManifest(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	e := startEndpoint(t)
	out := filepath.Join(t.TempDir(), "run")
	args := endpointRun(e, out, "scripted", "--tasks", twoQuestions, "--workers", "1", "--price-in", "1000", "--price-out", "1000", "--max-cost", "0.01")
	_, stderr, code := bench(t, args...)
	if code != 0 || !strings.Contains(stderr, "cost limit $0.01 reached") {
		t.Fatalf("exit %d, stderr:\n%s\nwant the cost stop", code, stderr)
	}
	recs := finalRecords(t, out)
	if len(recs) == 0 || len(recs) >= 2 {
		t.Fatalf("%d attempts recorded, want the run stopped after the first (of 2)", len(recs))
	}
	run, err := results.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if c := run.Final()[0].CostUSD; c <= 0.01 {
		t.Errorf("first attempt cost $%v, want above the limit", c)
	}
	host := strings.TrimSuffix(strings.TrimPrefix(e.url, "http://"), "/v1")
	stdout, stderr, code := bench(t, "report", out)
	want := fmt.Sprintf("warning: run stopped: cost limit $0.01 reached; %d of 2 planned attempts have no record (after the fix the stop named, re-run on this directory to resume)", 2-len(recs))
	if code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stdout, "openai:scripted@"+host) {
		t.Errorf("report: exit %d\nstdout:\n%s\nstderr:\n%s\nwant %q and the model openai:scripted@%s", code, stdout, stderr, want, host)
	}
	// Resume without the limit; then run the finished run again.
	_, stderr, code = bench(t, endpointRun(e, out, "scripted", "--tasks", twoQuestions, "--workers", "2", "--price-in", "1000",
		"--price-out", "1000")...)
	if code != 0 || len(finalRecords(t, out)) != 2 {
		t.Fatalf("resume: exit %d, %d records\n%s", code, len(finalRecords(t, out)), stderr)
	}
	before, _ := os.ReadFile(filepath.Join(out, results.ManifestFile))
	m1, _ := results.ReadManifest(out)
	_, stderr, code = bench(t, endpointRun(e, out, "scripted", "--tasks", twoQuestions, "--workers", "2", "--price-in", "1000",
		"--price-out", "1000")...)
	if code != 0 || !strings.Contains(stderr, "nothing to run") {
		t.Fatalf("re-run: exit %d\n%s", code, stderr)
	}
	after, _ := os.ReadFile(filepath.Join(out, results.ManifestFile))
	if string(before) != string(after) {
		t.Errorf("re-running a finished run rewrote its manifest:\nbefore %s\nafter  %s", before, after)
	}
	if len(m1.Endpoints) != 1 || m1.Endpoints[0].Capabilities == nil || m1.Summary == nil || m1.Summary.Ran == 0 {
		t.Errorf("manifest after the resume: endpoints %+v, summary %+v", m1.Endpoints, m1.Summary)
	}
	if m0 := run.Manifest; m1.StartedAt != m0.StartedAt {
		t.Errorf("resume moved started_at from %s to %s", m0.StartedAt, m1.StartedAt)
	}
	if _, stderr, _ := bench(t, "report", out); strings.Contains(stderr, "no record") {
		t.Errorf("report of the finished run warns: %s", stderr)
	}
}

// A variant whose every attempt ended in an infrastructure error has an undefined pass rate: n/a in the text
// formats, null in JSON, and a warning; every format names the model.
func TestUndefinedRateIsNA(t *testing.T) {
	dir := writeRun(t, runSpec{first: 1, tasks: 3, reps: 1, infra: func(int) bool { return true }})
	stdout, stderr, code := bench(t, "report", dir)
	if !strings.Contains(stdout, "0/0 = n/a") || strings.Contains(stdout, "0.0%") ||
		!strings.Contains(stderr, "variant default: every attempt ended in an infrastructure error") {
		t.Errorf("table: exit %d\n%s\nstderr %s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "scripted:observed") {
		t.Errorf("table does not name the model:\n%s", stdout)
	}
	stdout, _, _ = bench(t, "report", dir, "--format", "md")
	if !strings.Contains(stdout, "0/0 = n/a") || !strings.Contains(stdout, "| model |") {
		t.Errorf("md:\n%s", stdout)
	}
	stdout, _, _ = bench(t, "report", dir, "--format", "json")
	var doc struct {
		Variants []map[string]json.RawMessage `json:"variants"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Variants) != 1 {
		t.Fatalf("json: %v\n%s", err, stdout)
	}
	v := doc.Variants[0]
	if string(v["rate"]) != "null" || string(v["wilson"]) != "null" || string(v["model"]) != `"scripted:observed"` {
		t.Errorf("json variant: rate %s, wilson %s, model %s; want null, null, the model", v["rate"], v["wilson"], v["model"])
	}
	if _, _, code := bench(t, "report", dir, "--format", "html"); code != 0 {
		t.Fatalf("html: exit %d", code)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(page), "0/0 = n/a") || !strings.Contains(string(page), "scripted:observed") {
		t.Errorf("html report shows no n/a or model")
	}
}

// zooRun writes a run directory of three answered Zoo attempts (for bench judge).
func zooRun(t *testing.T) string {
	t.Helper()
	return zooRunOf(t, strings.Split(endpointTasks, ",")[:3])
}

// zooRunOf is zooRun over the Zoo tasks named.
func zooRunOf(t *testing.T, tasks []string) string {
	t.Helper()
	dir := t.TempDir()
	m := &results.Manifest{RunID: "j", Plan: results.Plan{Suite: "zoo", Reps: 1, Tasks: tasks, Baseline: "default",
		Variants: []results.Variant{{Name: "default", Model: results.Model{Kind: "scripted", Name: "scripted", Profile: "clean"}}}}}
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, task := range tasks {
		pid := results.PairID("zoo", task, 1)
		line, _ := json.Marshal(results.Attempt{SchemaVersion: results.SchemaVersion, AttemptID: results.AttemptID("default", pid),
			PairID: pid, Variant: "default", TaskID: task, Suite: "zoo", Rep: 1, Model: "scripted:clean",
			Status: results.StatusPass, Final: "an answer"})
		b.Write(line)
		b.WriteByte('\n')
	}
	os.WriteFile(filepath.Join(dir, results.AttemptsFile), []byte(b.String()), 0o644)
	return dir
}

// bench judge preflights the judge's endpoint: a mistyped judge model stops it with exit 2 and the server's
// message before anything is written; credit running out mid-way stops it with exit 3, keeping the verdicts so
// far.
func TestJudgePreflightsItsEndpoint(t *testing.T) {
	routes := []replay.Route{{Model: "judge-later", Call: 1, Shape: "no_usage"}, {Model: "judge-later", Call: 2, Shape: "no_usage"}}
	routes = append(routes, replay.Route{Model: "judge-out", Call: 1, Shape: "no_usage"})
	for k := 2; k <= 10; k++ {
		routes = append(routes, replay.Route{Model: "judge-later", Call: k + 1, Shape: "openai_429_insufficient_quota"},
			replay.Route{Model: "judge-out", Call: k, Shape: "openai_429_insufficient_quota"})
	}
	srv, err := replay.StartRecorded(replay.Options{Routes: routes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dir := zooRun(t)
	_, stderr, code := bench(t, "judge", dir, "--judge", "llm", "--judge-model", "openai:gpt-4o-mnii", "--judge-base-url", srv.URL())
	if code != 2 || !strings.Contains(stderr, "gpt-4o-mnii") || !strings.Contains(stderr, "before any attempt was judged") {
		t.Errorf("mistyped judge model: exit %d, stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(results.VerdictsPath(dir, "llm")); !os.IsNotExist(err) {
		t.Errorf("verdicts written by a judge stopped at its preflight (%v)", err)
	}
	_, stderr, code = bench(t, "judge", dir, "--judge", "llm", "--judge-model", "openai:judge-later", "--judge-base-url", srv.URL())
	if code != 3 || !strings.Contains(stderr, "You exceeded your current quota") || !strings.Contains(stderr, "after 1 verdict") {
		t.Errorf("credit out mid-way: exit %d, stderr:\n%s", code, stderr)
	}
	b, err := os.ReadFile(results.VerdictsPath(dir, "llm"))
	if err != nil || strings.Count(string(b), "\n") != 1 {
		t.Errorf("verdicts kept: %q (%v), want 1", b, err)
	}
	t.Logf("judge stopped mid-way:\n%s", stderr)
	// Out of credit at the first attempt after the preflight: the verdicts an earlier bench judge wrote stay.
	_, stderr, code = bench(t, "judge", dir, "--judge", "llm", "--judge-model", "openai:judge-out", "--judge-base-url", srv.URL())
	if code != 3 || !strings.Contains(stderr, "after 0 verdicts") {
		t.Errorf("credit out at the first attempt: exit %d, stderr:\n%s", code, stderr)
	}
	if b2, err := os.ReadFile(results.VerdictsPath(dir, "llm")); err != nil || string(b2) != string(b) {
		t.Errorf("verdicts after a stop at the first attempt: %q (%v), want the earlier %q", b2, err, b)
	}
}

// seedServer rejects every request carrying a seed with OpenAI's 400 for an unsupported parameter, answers the
// preflight's tool call otherwise, and refuses every other request with a 401 (so a run that got past its
// preflight stops at its first attempt's call, exit 3, before recording anything). It keeps the request bodies.
func seedServer(t *testing.T) (string, func() []map[string]any) {
	t.Helper()
	var mu sync.Mutex
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case body["seed"] != nil:
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"Unsupported parameter: 'seed' is not supported with this model.","type":"invalid_request_error","param":"seed","code":"unsupported_parameter"}}`)
		case strings.Contains(string(b), llm.PreflightTool):
			io.WriteString(w, `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"tool_calls",`+
				`"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"`+
				llm.PreflightTool+`","arguments":"{\"ok\":true}"}}]}}],"usage":{"prompt_tokens":40,"completion_tokens":9,"total_tokens":49}}`)
		default:
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided: sk-test.","type":"invalid_request_error","code":"invalid_api_key"}}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", func() []map[string]any { mu.Lock(); defer mu.Unlock(); return slices.Clone(bodies) }
}

// A model that rejects the seed: the preflight's hint names a setting that exists (omit: [seed] / --omit seed,
// never the model block's unknown no_seed), and --seed-mode none makes the preflight send no seed, as the run
// will: it passes, and the run meets the server's next answer (here a 401, exit 3).
func TestRejectedSeedHintAndSeedModeNone(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	url, bodies := seedServer(t)
	tmp := t.TempDir()
	args := []string{"run", "--suite", "zoo", "--tasks", "shop-qa-yoga-mat-thickness", "--workers", "1", "--model", "openai:m",
		"--base-url", url}
	_, stderr, code := bench(t, append(args, "--out", filepath.Join(tmp, "a"))...)
	if code != 2 || !strings.Contains(stderr, "omit: [seed]") || strings.Contains(stderr, "no_seed") {
		t.Errorf("seed rejected: exit %d, stderr:\n%s\nwant exit 2 with a hint naming omit: [seed] and no no_seed", code, stderr)
	}
	n := len(bodies())
	_, stderr, code = bench(t, append(args, "--seed-mode", "none", "--out", filepath.Join(tmp, "b"))...)
	sent := bodies()[n:]
	if code != 3 || !strings.Contains(stderr, "Incorrect API key") || len(sent) == 0 {
		t.Fatalf("--seed-mode none: exit %d, %d request(s), stderr:\n%s\nwant the preflight passed and the run stopped by the 401", code, len(sent), stderr)
	}
	for i, b := range sent {
		if _, ok := b["seed"]; ok {
			t.Errorf("--seed-mode none: request %d sent a seed", i+1)
		}
	}
	if strings.Contains(stderr, "no_seed") {
		t.Errorf("--seed-mode none: stderr names no_seed:\n%s", stderr)
	}
}

// bench judge --judge state on a run of Q&A tasks only (no state check anywhere) says that the state judge
// decided nothing and why, instead of leaving "2 judge errors" to be puzzled over.
func TestJudgeAllErrorsHint(t *testing.T) {
	dir := zooRunOf(t, strings.Split(endpointTasks, ",")[:2])
	out, stderr, code := bench(t, "judge", dir, "--judge", "state")
	want := `bench: every one of the 2 verdicts is the judge error "task has no state check": the state judge decided no ` +
		`attempt; no task of this run has a state check`
	if code != 0 || !strings.Contains(out, "2 judge errors") || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, out, stderr, want)
	}
	if _, stderr, _ := bench(t, "judge", dir, "--judge", "answer"); strings.Contains(stderr, "every one of") {
		t.Errorf("the answer judge decides these attempts, yet: %s", stderr)
	}
}
