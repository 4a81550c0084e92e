package runner

// Issue 13, the agent loop's side, end to end: real Chromium, the Zoo, the scripted policy behind a loopback
// proxy that rewrites its replies into the shapes real endpoints send — a parallel batch of failing calls,
// finish_reason "length" mid tool call (OpenAI's documented finish reason when max_tokens cuts the reply,
// https://platform.openai.com/docs/api-reference/chat/object), "content_filter" (Azure OpenAI's filtered
// completion), and a refusal (OpenAI's message.refusal, content null).

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"webbench/agent"
	"webbench/agent/guard"
	"webbench/internal/replay"
	"webbench/llm"
	"webbench/results"
	"webbench/suites"
)

// shapeProxy forwards chat requests to the scripted policy and rewrites the reply of the first model turn
// (a conversation of two messages: system and task) — or of every turn with a tool call for "length-always" —
// into the shape named by mode.
type shapeProxy struct {
	target, mode, url string
	// refused counts the requests answered with an errorModes body.
	refused atomic.Int32
}

// errorModes are the shape proxy's modes that answer the attempt's first model call with a 400 instead of
// forwarding it: Azure OpenAI's content filter refusing the prompt (https://github.com/compl-ai/compl-ai/issues/20,
// class content_filter) and Groq's tool_use_failed, the model's own malformed tool call
// (https://github.com/huggingface/smolagents/issues/1119, class agent).
var errorModes = map[string]string{
	"content_filter_error": `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"hate":{"filtered":false,"severity":"safe"},"jailbreak":{"filtered":false,"detected":false},"self_harm":{"filtered":false,"severity":"safe"},"sexual":{"filtered":false,"severity":"safe"},"violence":{"filtered":true,"severity":"medium"}}}}}`,
	"tool_use_failed":      `{"error":{"message":"Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.","type":"invalid_request_error","code":"tool_use_failed","failed_generation":"web_search{\"query\": \"SPFMV and SPCSV in the Pearl Of Africa 2016\", \"filter_year\": 2016}</function>"}}`,
}

func startShapeProxy(t *testing.T, target, mode string) *shapeProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &shapeProxy{target: target, mode: mode, url: "http://" + ln.Addr().String() + "/v1"}
	srv := &http.Server{Handler: p}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return p
}

// firstModelCall reports whether body is an attempt's first model call (two messages, system and task, and
// the browser tools), not the preflight's request.
func firstModelCall(body []byte) bool {
	var req struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    []json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	return len(req.Messages) == 2 && len(req.Tools) > 0 && !strings.Contains(string(req.Tools[0]), llm.PreflightTool)
}

func (p *shapeProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	first := firstModelCall(body)
	if body := errorModes[p.mode]; body != "" && first {
		// The attempt's first model call (not the preflight's) is refused with the mode's 400.
		p.refused.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, body)
		return
	}
	resp, err := http.Post(p.target+strings.TrimPrefix(r.URL.Path, "/v1"), "application/json", bytes.NewReader(body))
	if err != nil {
		apiError(w, 502, err.Error())
		return
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if resp.StatusCode == 200 && json.Unmarshal(out, &m) == nil {
		ch := m["choices"].([]any)[0].(map[string]any)
		msg := ch["message"].(map[string]any)
		calls, _ := msg["tool_calls"].([]any)
		switch {
		case p.mode == "parallel-fail" && first:
			// Eight parallel clicks on refs that are in no snapshot (each another): all fail at once (stale ref).
			var batch []any
			for i := range 8 {
				batch = append(batch, map[string]any{"id": "call_bad" + string(rune('a'+i)), "type": "function",
					"function": map[string]any{"name": "browser_click",
						"arguments": `{"target":"e9999` + string(rune('0'+i)) + `","element":"button \"Nothing\""}`}})
			}
			msg["tool_calls"] = batch
		case p.mode == "length-once" && first && len(calls) > 0, p.mode == "length-always" && len(calls) > 0:
			fn := calls[0].(map[string]any)["function"].(map[string]any)
			args := fn["arguments"].(string)
			fn["arguments"] = args[:len(args)/2] // cut off mid-arguments
			msg["tool_calls"] = calls[:1]
			ch["finish_reason"] = "length"
		case p.mode == "content_filter" && first:
			ch["finish_reason"] = "content_filter"
		case p.mode == "refusal" && first:
			delete(msg, "tool_calls")
			msg["content"] = nil
			msg["refusal"] = "I'm sorry, I can't help with that request."
			ch["finish_reason"] = "stop"
		}
		out, _ = json.Marshal(m)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(resp.StatusCode)
	w.Write(out)
}

// shapeArm is one arm of shapeRuns: a shape proxy mode and the tasks the arm plays.
type shapeArm struct {
	mode  string
	tasks []suites.Task
}

// shaped is what one arm of shapeRuns recorded: its final records and their trajectories, and its proxy.
type shaped struct {
	recs []results.Attempt
	trs  []*agent.Trajectory
	px   *shapeProxy
}

// shapeRuns plays every arm in one run (two workers): an arm per mode, named after it, its model behind a
// shape proxy of that mode in front of one scripted policy, playing its tasks once each (Variant.TaskIDs). The
// runner retries errored attempts twice (a pass or fail is never retried). It returns what each arm recorded,
// by mode.
func shapeRuns(t *testing.T, s suites.Suite, arms []shapeArm) map[string]*shaped {
	t.Helper()
	policy := startPolicy(t, s)
	out := map[string]*shaped{}
	var vs []Variant
	var tasks []suites.Task
	for _, a := range arms {
		px := startShapeProxy(t, policy, a.mode)
		out[a.mode] = &shaped{px: px}
		ids := map[string]bool{}
		for _, tk := range a.tasks {
			ids[tk.ID] = true
			if !slices.ContainsFunc(tasks, func(x suites.Task) bool { return x.ID == tk.ID }) {
				tasks = append(tasks, tk)
			}
		}
		vs = append(vs, Variant{Name: a.mode, Guards: guard.Default(), TaskIDs: ids, Scope: "target",
			Model: Model{Kind: "openai", Name: "scripted", BaseURL: px.url, CallTimeout: 5 * time.Second}})
	}
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: vs, BaseSeed: 3}
	dir := t.TempDir()
	opts := Options{OutDir: dir, Workers: 2, Retries: 2, Log: io.Discard, BrowserEndpoint: sharedBrowser(t)}
	if _, err := Run(context.Background(), plan, s, opts); err != nil {
		t.Fatalf("run: %v", err)
	}
	rr, err := results.ReadAttempts(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range rr.Order {
		r := rr.Latest[id]
		sh := out[r.Variant]
		sh.recs = append(sh.recs, r)
		sh.trs = append(sh.trs, readTrajectory(t, dir, r))
	}
	for _, a := range arms {
		if n := len(out[a.mode].recs); n != len(a.tasks) {
			t.Fatalf("%s: %d records for %d tasks", a.mode, n, len(a.tasks))
		}
	}
	return out
}

func TestLoopEndpointShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	s, tasks := zooShop(t, "shop-qa-yoga-mat-thickness,shop-checkout-cork-blocks-standard")
	run := shapeRuns(t, s, []shapeArm{{"parallel-fail", tasks}, {"length-once", tasks}, {"length-always", tasks[:1]},
		{"content_filter", tasks[:1]}, {"content_filter_error", tasks[:1]}, {"tool_use_failed", tasks[:1]},
		{"refusal", tasks[:1]}})
	t.Run("parallel batch of failing calls counts once", func(t *testing.T) {
		recs, trs := run["parallel-fail"].recs, run["parallel-fail"].trs
		for i, r := range recs {
			st := trs[i].Steps[0]
			if len(st.Results) != 8 {
				t.Fatalf("%s: first step executed %d calls, want 8", r.TaskID, len(st.Results))
			}
			for _, res := range st.Results {
				if !res.Failed {
					t.Errorf("%s: a click on a ref in no snapshot did not fail: %s", r.TaskID, res.RawText())
				}
			}
			// Counted per call, the 8 failures would spend the budget of 5 in the first turn.
			if r.FinishReason == results.FinishErrorBudget || len(trs[i].Steps) < 3 {
				t.Errorf("%s: ended %s after %d steps: the batch used up the error budget", r.TaskID, r.FinishReason,
					len(trs[i].Steps))
			}
			if r.Status != results.StatusPass {
				t.Errorf("%s: %s (%s) after one failed batch", r.TaskID, r.Status, r.FailureMode)
			}
		}
	})
	t.Run("cut off once: not executed, marked, then recovered", func(t *testing.T) {
		recs, trs := run["length-once"].recs, run["length-once"].trs
		for i, r := range recs {
			st := trs[i].Steps[0]
			if !st.Truncated || len(st.Results) != 0 || st.FinishReason != "length" || len(st.ToolCalls) != 1 {
				t.Errorf("%s: first step truncated=%v results=%d finish=%q calls=%d; want marked, none executed",
					r.TaskID, st.Truncated, len(st.Results), st.FinishReason, len(st.ToolCalls))
			}
			if r.Status != results.StatusPass {
				t.Errorf("%s: %s (%s) after one cut-off reply", r.TaskID, r.Status, r.FailureMode)
			}
		}
	})
	t.Run("always cut off: failure mode truncated", func(t *testing.T) {
		recs, trs := run["length-always"].recs, run["length-always"].trs
		r, tr := recs[0], trs[0]
		if r.Status != results.StatusFail || r.FailureMode != results.ModeTruncated {
			t.Errorf("status %s, failure mode %s (finish %s), want fail/truncated", r.Status, r.FailureMode, r.FinishReason)
		}
		for _, st := range tr.Steps {
			if len(st.Results) != 0 {
				t.Errorf("step %d executed a cut-off call", st.Index)
			}
		}
	})
	t.Run("content filter", func(t *testing.T) {
		recs, trs := run["content_filter"].recs, run["content_filter"].trs
		r := recs[0]
		if r.Status != results.StatusFail || r.FailureMode != results.ModeContentFilter ||
			r.FinishReason != results.FinishContentFilter || len(trs[0].Steps[0].Results) != 0 {
			t.Errorf("status %s, failure mode %s, finish %s, %d calls executed; want fail/content_filter, none executed",
				r.Status, r.FailureMode, r.FinishReason, len(trs[0].Steps[0].Results))
		}
	})
	for _, c := range []struct {
		mode, class string
		finish      results.FinishReason
		fm          results.FailureMode
		text        string
	}{
		{"content_filter_error", "content_filter", results.FinishContentFilter, results.ModeContentFilter, "content management policy"},
		{"tool_use_failed", "agent", results.FinishModelError, results.ModeModelError, "Failed to call a function"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			recs, trs, px := run[c.mode].recs, run[c.mode].trs, run[c.mode].px
			r, tr := recs[0], trs[0]
			if r.Status != results.StatusFail || r.ErrorClass != results.ClassAgent || r.FailureMode != c.fm ||
				r.FinishReason != c.finish || string(tr.Finish.ErrorClass) != c.class || !strings.Contains(r.Error, c.text) ||
				r.Retries != 0 || px.refused.Load() != 1 {
				t.Errorf("status %s, class %s/%s, mode %s, finish %s, retries %d, %d refused calls, error %q; "+
					"want fail/agent/%s, mode %s, finish %s, not retried, the server's text", r.Status, r.ErrorClass,
					tr.Finish.ErrorClass, r.FailureMode, r.FinishReason, r.Retries, px.refused.Load(), r.Error, c.class, c.fm, c.finish)
			}
		})
	}
	t.Run("refusal", func(t *testing.T) {
		recs, trs := run["refusal"].recs, run["refusal"].trs
		r, tr := recs[0], trs[0]
		const text = "I'm sorry, I can't help with that request."
		if r.Status != results.StatusFail || r.FailureMode != results.ModeRefusal || r.FinishReason != results.FinishRefusal ||
			r.Final != text || tr.Steps[0].Refusal != text {
			t.Errorf("status %s, mode %s, finish %s, final %q, step refusal %q; want fail/refusal with the text", r.Status,
				r.FailureMode, r.FinishReason, r.Final, tr.Steps[0].Refusal)
		}
	})
}

// An endpoint that sends no usage (internal/replay's no_usage transform of the scripted policy): the records'
// tokens are estimated and marked, priced like reported ones, and --max-cost stops the run on the estimate.
func TestEstimatedUsageCountsTowardMaxCost(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	s, tasks := zooShop(t, "shop-qa-*")
	up := startPolicy(t, s)
	srv, err := replay.StartRecorded(replay.Options{Upstream: up, Transform: "no_usage"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	// $1 per thousand tokens in and out: one attempt (tens of thousands of prompt tokens) passes a $1 limit.
	v := Variant{Name: "default", Guards: guard.Default(), Model: Model{Kind: "openai", Name: "scripted",
		BaseURL: srv.URL(), PriceIn: 1000, PriceOut: 1000, CallTimeout: 5 * time.Second}}
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: []Variant{v}, BaseSeed: 3}
	dir := t.TempDir()
	sum, err := Run(context.Background(), plan, s, Options{OutDir: dir, Workers: 1, MaxCostUSD: 1, Log: io.Discard,
		BrowserEndpoint: sharedBrowser(t)})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := results.ReadAttempts(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Latest) == 0 || len(rr.Latest) >= len(tasks) || !strings.Contains(sum.Stopped, "cost limit") {
		t.Errorf("%d of %d attempts recorded, stopped %q: the estimated cost did not stop the run", len(rr.Latest),
			len(tasks), sum.Stopped)
	}
	for _, r := range rr.Latest {
		if !r.Tokens.Estimated || r.Tokens.Prompt == 0 || r.CostUSD <= 0 {
			t.Errorf("%s: tokens %+v, cost %.4f; want estimated tokens priced", r.TaskID, r.Tokens, r.CostUSD)
		}
	}
	t.Logf("stopped after %d attempt(s) of %d: %s", len(rr.Latest), len(tasks), sum.Stopped)
}

// The scripted policy through internal/replay's provider transforms passes a Zoo task as it does plain: the
// reasoning is read from wherever the provider puts it (and kept out of the content the final-JSON parse sees),
// provider extras go back (Gemini's thought signature, checked by the replay server), and tool-call shapes are
// normalised (object arguments, missing ids). One run plays every transform, an arm each behind its own replay
// server.
func TestProviderShapesPassLikePlain(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	s, tasks := zooShop(t, "shop-qa-yoga-mat-thickness")
	up := startPolicy(t, s)
	cases := []struct{ transform, from string }{
		{"think_tag", "think_tag"}, {"mistral", "content_array"}, {"reasoning", "reasoning"},
		{"deepseek", "reasoning_content"}, {"gemini", ""}, {"object_args+no_ids", ""}, {"vllm", ""}, {"ollama", ""},
		{"anthropic", ""},
	}
	servers := map[string]*replay.Server{}
	var vs []Variant
	for _, c := range cases {
		srv, err := replay.StartRecorded(replay.Options{Upstream: up, Transform: c.transform})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		servers[c.transform] = srv
		vs = append(vs, Variant{Name: c.transform, Guards: guard.Default(), Model: Model{Kind: "openai",
			Name: "scripted", BaseURL: srv.URL(), CallTimeout: 5 * time.Second}})
	}
	dir := t.TempDir()
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: vs, BaseSeed: 3}
	opts := Options{OutDir: dir, Workers: 2, Retries: 0, Log: io.Discard, BrowserEndpoint: sharedBrowser(t)}
	if _, err := Run(context.Background(), plan, s, opts); err != nil {
		t.Fatal(err)
	}
	rr, err := results.ReadAttempts(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]results.Attempt{}
	for _, r := range rr.Latest {
		recs[r.Variant] = r
	}
	for _, c := range cases {
		t.Run(c.transform, func(t *testing.T) {
			r, ok := recs[c.transform]
			if !ok {
				t.Fatal("no record")
			}
			if r.Status != results.StatusPass {
				t.Errorf("%s: %s (%s, %s): %s", r.TaskID, r.Status, r.FailureMode, r.FinishReason, r.Error)
			}
			tr := readTrajectory(t, dir, r)
			for _, st := range tr.Steps {
				if st.ReasoningFrom != c.from || (c.from != "" && st.Reasoning == "") {
					t.Errorf("step %d: reasoning %q from %q, want from %q", st.Index, st.Reasoning, st.ReasoningFrom, c.from)
				}
				if (c.transform == "deepseek" || c.transform == "gemini") && len(st.ToolCalls) > 0 && st.Extra == nil {
					t.Errorf("step %d: no provider extra recorded", st.Index)
				}
				if strings.Contains(st.Content, "<think>") || strings.Contains(st.Content, "I read the page snapshot") {
					t.Errorf("step %d: reasoning left in the content %q", st.Index, st.Content)
				}
			}
			if errs := servers[c.transform].EchoErrors(); len(errs) > 0 {
				t.Errorf("provider extras not sent back: %v", errs)
			}
		})
	}
}

// An endpoint that stays overloaded (Anthropic's 529, internal/replay's anthropic_529_overloaded, on every call
// after the preflight): the client retries it as a rate limit, then the attempt is an infrastructure error with
// the server's text — never an agent failure — and the run goes on (it is not a class that stops runs).
func TestRateLimitAfterRetriesIsInfra(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	s, tasks := zooShop(t, "shop-qa-yoga-mat-thickness")
	up := startPolicy(t, s)
	srv, err := replay.StartRecorded(replay.Options{Upstream: up, Routes: []replay.Route{
		{Model: "scripted", Call: 1}, {Model: "scripted", Shape: "anthropic_529_overloaded"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	v := Variant{Name: "default", Guards: guard.Default(), Model: Model{Kind: "openai", Name: "scripted",
		BaseURL: srv.URL(), CallTimeout: 5 * time.Second}}
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: []Variant{v}, BaseSeed: 3}
	dir := t.TempDir()
	sum, err := Run(context.Background(), plan, s, Options{OutDir: dir, Workers: 1, Retries: 0, Log: io.Discard,
		BrowserEndpoint: sharedBrowser(t)})
	if err != nil {
		t.Fatalf("run stopped: %v", err)
	}
	rr, err := results.ReadAttempts(dir)
	if err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, rr, tasks, 1)
	for _, r := range rr.Latest {
		if r.Status != results.StatusError || r.ErrorClass != results.ClassInfra || r.FailureMode != results.ModeInfra ||
			!strings.Contains(r.Error, "rate_limit") || !strings.Contains(r.Error, "Overloaded") {
			t.Errorf("status %s, class %s, mode %s, error %q; want error/infra with the server's text", r.Status,
				r.ErrorClass, r.FailureMode, r.Error)
		}
	}
	t.Logf("%d requests (preflight + the first call and its retries); summary %+v; error %q", srv.Count(), *sum,
		rr.Latest[rr.Order[0]].Error)
}
