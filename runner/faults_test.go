package runner

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"webbench/agent/guard"
	"webbench/llm"
	"webbench/results"
	"webbench/scripted"
	"webbench/suites"
)

// faultProxy is a real HTTP server on loopback that forwards chat-completions requests to the scripted policy
// and injects the faults real model endpoints produce.
type faultProxy struct {
	target string // scripted policy base URL (…/v1)
	mode   string
	n      atomic.Int64
	auth   atomic.Value // last Authorization header seen
	url    string
	srv    *http.Server
	// onCall, when set, is called with each request's body before it is answered.
	onCall func(body []byte)
}

func startFaultProxy(t *testing.T, target, mode string) *faultProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{target: target, mode: mode, url: "http://" + ln.Addr().String() + "/v1"}
	p.srv = &http.Server{Handler: p}
	go p.srv.Serve(ln)
	t.Cleanup(func() { p.srv.Close() })
	return p
}

func apiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "test_fault"}})
}

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.auth.Store(r.Header.Get("Authorization"))
	k := p.n.Add(1)
	body, _ := io.ReadAll(r.Body)
	if p.onCall != nil {
		p.onCall(body)
	}
	switch p.mode {
	case "429":
		if k%3 == 1 {
			w.Header().Set("Retry-After", "1")
			apiError(w, 429, "rate limited")
			return
		}
	case "500":
		if k%3 == 1 {
			apiError(w, 500, "internal error")
			return
		}
	case "malformed":
		if k%3 == 1 {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id": "x", "choices": [{"message": {"role": "assist`)
			return
		}
	case "endless":
		if k%4 == 1 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			io.WriteString(w, `{"id": "x", "choices": [`)
			for {
				if _, err := io.WriteString(w, " "); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		}
	case "402":
		if k >= 12 {
			apiError(w, 402, "insufficient credit: add credit to continue")
			return
		}
	}
	resp, err := http.Post(p.target+strings.TrimPrefix(r.URL.Path, "/v1"), "application/json", bytes.NewReader(body))
	if err != nil {
		apiError(w, 502, err.Error())
		return
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if p.mode == "badargs" && k%3 == 2 {
		// A tool call whose arguments are not valid JSON.
		var m map[string]any
		if json.Unmarshal(out, &m) == nil {
			if ch, ok := m["choices"].([]any); ok && len(ch) > 0 {
				msg := ch[0].(map[string]any)["message"].(map[string]any)
				if tcs, ok := msg["tool_calls"].([]any); ok && len(tcs) > 0 {
					tcs[0].(map[string]any)["function"].(map[string]any)["arguments"] = `{"target": e12`
					out, _ = json.Marshal(m)
				}
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(resp.StatusCode)
	w.Write(out)
}

// startPolicy starts the scripted policy (clean profile) over s's tasks on loopback for the test and returns
// its base URL.
func startPolicy(t *testing.T, s suites.Suite) string {
	t.Helper()
	pol, url, err := scripted.StartLoopback(s.Tasks(), "clean")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pol.Close() })
	return url
}

// faultRun runs tasks × reps with the model behind a fault proxy and returns the records and Run's error.
func faultRun(t *testing.T, mode string, opts Options, tasks []suites.Task, s suites.Suite) (*results.ReadResult, *faultProxy, *Summary, error) {
	t.Helper()
	px := startFaultProxy(t, startPolicy(t, s), mode)
	v := Variant{Name: "default", Guards: guard.Default(),
		Model: Model{Kind: "openai", Name: "scripted", BaseURL: px.url, CallTimeout: 3 * time.Second}}
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 2, Variants: []Variant{v}, BaseSeed: 3}
	if opts.OutDir == "" {
		opts.OutDir = t.TempDir()
	}
	if opts.Workers == 0 {
		opts.Workers = 2
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	opts.BrowserEndpoint = sharedBrowser(t)
	sum, runErr := Run(context.Background(), plan, s, opts)
	rr, err := results.ReadAttempts(opts.OutDir)
	if err != nil {
		t.Fatal(err)
	}
	return rr, px, sum, runErr
}

// exactlyOnce asserts one final record per planned attempt id.
func exactlyOnce(t *testing.T, rr *results.ReadResult, tasks []suites.Task, reps int) {
	t.Helper()
	if len(rr.Latest) != len(tasks)*reps {
		t.Fatalf("run holds %d attempt ids, want %d", len(rr.Latest), len(tasks)*reps)
	}
}

func TestModelEndpointFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	s, tasks := zooShop(t, "shop-qa-yoga-mat-thickness")
	for _, mode := range []string{"429", "500", "malformed", "endless", "badargs"} {
		t.Run(mode, func(t *testing.T) {
			rr, px, _, err := faultRun(t, mode, Options{}, tasks, s)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			exactlyOnce(t, rr, tasks, 2)
			for _, r := range rr.Latest {
				switch mode {
				case "badargs":
					// Invalid tool arguments are the model's fault: never infrastructure.
					if r.Status == results.StatusError {
						t.Errorf("%s: invalid tool arguments classified as %s: %s", r.TaskID, r.ErrorClass, r.Error)
					}
				default:
					// Transient endpoint faults are retried with backoff and never become agent failures.
					if r.Status == results.StatusFail {
						t.Errorf("%s: endpoint fault %s counted as an agent failure (%s)", r.TaskID, mode, r.FailureMode)
					}
					if r.Status == results.StatusError && r.ErrorClass != results.ClassInfra {
						t.Errorf("%s: error class %s, want infra", r.TaskID, r.ErrorClass)
					}
				}
			}
			if px.n.Load() < 4 {
				t.Errorf("proxy saw only %d requests", px.n.Load())
			}
		})
	}
}

// An out-of-credit answer (402) in the middle of a run stops it at once: the attempt that met it and those in
// flight are not recorded (they re-run on resume), nothing is an agent failure, and Run returns an
// *EndpointError of class quota. Once the endpoint answers again, the same run resumes and completes.
func TestOutOfCreditStopsRunEarly(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	s, tasks := zooShop(t, "shop-qa-*")
	// Three tasks × 2 reps: the 11 answered requests end some attempts (each takes a few calls) and leave others
	// for the resume to run.
	tasks = tasks[:min(3, len(tasks))]
	dir := t.TempDir()
	rr, px, sum, err := faultRun(t, "402", Options{OutDir: dir, Workers: 1}, tasks, s)
	var ee *EndpointError
	if !errors.As(err, &ee) || ee.Err.Class != llm.ErrorQuota || ee.ExitCode() != 3 {
		t.Fatalf("run error %v, want an EndpointError of class quota (exit 3)", err)
	}
	planned := len(tasks) * 2
	if sum.Ran >= planned || len(rr.Latest) >= planned {
		t.Errorf("run did not stop early: ran %d of %d", sum.Ran, planned)
	}
	for _, r := range rr.Records {
		if r.Status == results.StatusFail {
			t.Errorf("out-of-credit counted as an agent failure: %+v", r)
		}
		if strings.Contains(r.Error, "insufficient credit") {
			t.Errorf("the attempt that met the quota error was recorded: %+v", r)
		}
	}
	if !strings.Contains(sum.Stopped, "insufficient credit") {
		t.Errorf("summary does not say why the run stopped: %q", sum.Stopped)
	}
	// 11 answered requests (the preflight and the first attempts' calls), then the one refused: no retries.
	if before := len(rr.Latest); before == 0 {
		t.Error("no attempt was recorded before the stop (the resume below would not show they are kept)")
	}
	if px.n.Load() != 12 {
		t.Errorf("%d requests, want 12: the run kept calling a refusing endpoint", px.n.Load())
	}
	t.Logf("stopped after %d requests, %d attempt(s) recorded of %d: %s", px.n.Load(), len(rr.Latest), planned, sum.Stopped)
	// Credit added (the same endpoint stops refusing): the same command on the same directory resumes; every
	// attempt ends with exactly one final record and the ones recorded before the stop are kept.
	before := len(rr.Latest)
	px.mode = "" // no request is in flight: Run has returned
	v := Variant{Name: "default", Guards: guard.Default(),
		Model: Model{Kind: "openai", Name: "scripted", BaseURL: px.url, CallTimeout: 3 * time.Second}}
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 2, Variants: []Variant{v}, BaseSeed: 3}
	sum2, err := Run(context.Background(), plan, s, Options{OutDir: dir, Workers: 2, Log: io.Discard,
		BrowserEndpoint: sharedBrowser(t)})
	if err != nil {
		t.Fatalf("resume after the fix: %v", err)
	}
	rr2, err := results.ReadAttempts(dir)
	if err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, rr2, tasks, 2)
	if sum2.Skipped != before {
		t.Errorf("resume skipped %d attempts, %d were recorded before the stop", sum2.Skipped, before)
	}
	for _, r := range rr2.Latest {
		if r.Status != results.StatusPass {
			t.Errorf("%s rep %d: %s after the fix", r.TaskID, r.Rep, r.Status)
		}
	}
}

func TestFakeKeyNeverRecorded(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s, tasks := zooShop(t, "shop-qa-*")
	key := "sk-webbenchTEST" + randHex(12)
	t.Setenv("OPENAI_API_KEY", key)
	dir := t.TempDir()
	var logs bytes.Buffer
	rr, px, _, err := faultRun(t, "500", Options{OutDir: dir, Log: &logs}, tasks[:1], s)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := px.auth.Load().(string); got != "Bearer "+key {
		t.Fatalf("the key did not reach the endpoint (Authorization %q)", got)
	}
	exactlyOnce(t, rr, tasks[:1], 2)
	out, err := exec.Command("grep", "-rl", key, dir).CombinedOutput()
	if err == nil {
		t.Fatalf("API key found in run directory: %s", out)
	}
	out, _ = exec.Command("grep", "-rli", "authorization: bearer", dir).CombinedOutput()
	if len(out) > 0 {
		t.Fatalf("Authorization header found in run directory: %s", out)
	}
	if strings.Contains(logs.String(), key) {
		t.Fatal("API key found in the run's log output")
	}
}

// TestChromiumKilledMidRun kills the run's Chromium processes (SIGKILL) when an attempt asks the model for its
// first action once another attempt is recorded — so the kill lands inside that attempt's agent loop, its next
// tool call meeting a dead browser — and checks that the crash is an infrastructure error retried in a
// relaunched browser, never an agent failure, and that every attempt ends with exactly one final record. One
// worker: a second one would sometimes be opening a browser context at the kill, which browser's watchdog
// only gives up on after 30 s (that path is browser's TestFrozenBrowserIsUnresponsiveNotHung). One rep of three
// tasks is the fewest attempts that show it: one recorded before the kill, the one it cuts, one after it in the
// relaunched browser.
func TestChromiumKilledMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s, tasks := zooShop(t, "shop-qa-yoga-mat-thickness,shop-qa-hero-hoodie-sku,shop-qa-stasis-ball-rating")
	if len(tasks) != 3 {
		t.Fatalf("want 3 tasks, got %d", len(tasks))
	}
	marker := "--webbench-test-marker=" + randHex(8)
	dir := t.TempDir()
	px := startFaultProxy(t, startPolicy(t, s), "")
	var killed atomic.Bool
	px.onCall = func(body []byte) {
		if killed.Load() || !firstModelCall(body) {
			return
		}
		if rr, err := results.ReadAttempts(dir); err != nil || len(rr.Latest) == 0 || !killed.CompareAndSwap(false, true) {
			return
		}
		if out, err := exec.Command("pkill", "-9", "-f", "--", marker).CombinedOutput(); err != nil {
			t.Errorf("pkill: %v %s", err, out)
		}
	}
	v := Variant{Name: "default", Guards: guard.Default(), Model: Model{Kind: "openai", Name: "scripted", BaseURL: px.url}}
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: []Variant{v}, BaseSeed: 5}
	_, err := Run(context.Background(), plan, s, Options{OutDir: dir, Workers: 1, Retries: 2, BrowserArgs: []string{marker},
		Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if !killed.Load() {
		t.Fatal("the kill never happened")
	}
	rr, err := results.ReadAttempts(dir)
	if err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, rr, tasks, 1)
	retried := 0
	for _, r := range rr.Latest {
		if r.Status == results.StatusFail {
			t.Errorf("%s rep %d failed as %s after the browser kill: the crash must not count as an agent failure (%s)",
				r.TaskID, r.Rep, r.FailureMode, r.Verdict.Reason)
		}
		retried += r.Retries
	}
	for _, r := range rr.Records {
		if r.Status == results.StatusError && r.ErrorClass != results.ClassInfra {
			t.Errorf("crash recorded as %s", r.ErrorClass)
		}
	}
	if retried == 0 {
		t.Error("no attempt was retried: the attempt the kill cut was not recorded as an infrastructure error and run again")
	}
}

func TestTornLastLineDroppedOnResume(t *testing.T) {
	dir := t.TempDir()
	w, err := results.OpenWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(results.Attempt{AttemptID: "a1", Status: results.StatusPass}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	f, _ := os.OpenFile(dir+"/"+results.AttemptsFile, os.O_APPEND|os.O_WRONLY, 0o644)
	f.WriteString(`{"schema_version":1,"attempt_id":"a2","sta`)
	f.Close()
	rr, err := results.ReadAttempts(dir)
	if err != nil || !rr.TornTail || len(rr.Latest) != 1 {
		t.Fatalf("torn tail not detected: %+v %v", rr, err)
	}
	w, err = results.OpenWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(results.Attempt{AttemptID: "a2", Status: results.StatusFail}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	rr, err = results.ReadAttempts(dir)
	if err != nil || rr.TornTail || len(rr.Latest) != 2 || rr.Latest["a2"].Status != results.StatusFail {
		t.Fatalf("after repair: %+v %v", rr, err)
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func TestUnreachableModelEndpointIsInfra(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	s, tasks := zooShop(t, "shop-*")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/v1"
	ln.Close() // nothing listens there now: connection refused
	v := Variant{Name: "default", Guards: guard.Default(),
		Model: Model{Kind: "openai", Name: "gpt-test", BaseURL: dead, CallTimeout: 2 * time.Second}}
	plan := Plan{Suite: "zoo", Tasks: tasks[:1], Reps: 1, Variants: []Variant{v}}
	dir := t.TempDir()
	sum, err := Run(context.Background(), plan, s, Options{OutDir: dir, Workers: 1, Retries: 0, Log: io.Discard,
		BrowserEndpoint: sharedBrowser(t)})
	if err != nil {
		t.Fatal(err)
	}
	rr, _ := results.ReadAttempts(dir)
	exactlyOnce(t, rr, tasks[:1], 1)
	for _, r := range rr.Latest {
		if r.Status != results.StatusError || r.ErrorClass != results.ClassInfra {
			t.Fatalf("unreachable endpoint recorded as %s/%s, want error/infra", r.Status, r.ErrorClass)
		}
		if !strings.Contains(r.Error, "connection refused") {
			t.Errorf("error does not say why: %q", r.Error)
		}
	}
	if sum.Errors != 1 || sum.Failed != 0 {
		t.Errorf("summary %+v", sum)
	}
}
