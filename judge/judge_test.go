package judge

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"webbench/suites"
)

func TestStateSubsetMatch(t *testing.T) {
	task := suites.Task{Check: suites.Check{State: map[string]any{"orders": []any{
		map[string]any{"email": "ana@example.test", "shipping": "express",
			"items": []any{map[string]any{"sku": "YM-01", "qty": 1, "color": "blue"}}}}}}}
	good := `{"orders":[{"number":"10001","email":"Ana@example.test","shipping":"express","items":[{"sku":"YM-01","qty":1,"color":"blue","size":"M"}]}],"cart":[]}`
	v, err := State{}.Judge(context.Background(), Input{Task: task, State: json.RawMessage(good)})
	if err != nil || !v.Pass || v.Judge != "state" {
		t.Fatalf("good state: %+v %v", v, err)
	}
	cases := map[string]string{
		`{"orders":[]}`: "expected 1 item(s), got 0",
		`{"orders":[{"email":"ana@example.test","shipping":"standard","items":[{"sku":"YM-01","qty":1,"color":"blue"}]}]}`: "no matching item",
		`{"orders":[{"email":"ana@example.test","shipping":"express","items":[{"sku":"YM-01","qty":2,"color":"blue"}]}]}`:  "no matching item",
		`{"orders":[{"email":"ana@example.test","shipping":"express","items":[]}]}`:                                        "no matching item",
	}
	for st, want := range cases {
		v, _ := State{}.Judge(context.Background(), Input{Task: task, State: json.RawMessage(st)})
		if v.Pass || !contains(v.Reason, want) {
			t.Errorf("state %s: got %+v, want failure mentioning %q", st, v, want)
		}
	}
	v, _ = State{}.Judge(context.Background(), Input{Task: task})
	if v.Pass || v.Error == "" {
		t.Errorf("missing state must be a judge error, got %+v", v)
	}
}

func TestAnswerRules(t *testing.T) {
	n := 4.6
	cases := []struct {
		rule   suites.AnswerRule
		answer string
		pass   bool
	}{
		{suites.AnswerRule{Exact: "Order #10042"}, " order #10042 ", true},
		{suites.AnswerRule{Exact: "Order #10042"}, "Order #10043", false},
		{suites.AnswerRule{MustInclude: []string{"4.6", "117"}}, "It has 4.6 stars and 117 ratings", true},
		{suites.AnswerRule{MustInclude: []string{"4.6", "117"}}, "It has 4.6 stars", false},
		{suites.AnswerRule{Number: &n, Tolerance: 0.05}, "Rated 4.62 out of 5", true},
		{suites.AnswerRule{Number: &n, Tolerance: 0.05}, "Rated 4.7 out of 5", false},
		{suites.AnswerRule{Number: &n}, "", false},
	}
	for _, c := range cases {
		v, _ := Answer{}.Judge(context.Background(), Input{Task: suites.Task{Check: suites.Check{Answer: &c.rule}}, Final: c.answer})
		if v.Pass != c.pass {
			t.Errorf("rule %+v answer %q: pass=%v want %v (%s)", c.rule, c.answer, v.Pass, c.pass, v.Reason)
		}
	}
	v, _ := Answer{}.Judge(context.Background(), Input{Task: suites.Task{Check: suites.Check{Answer: &suites.AnswerRule{Reference: "free text"}}}, Final: "x"})
	if v.Error == "" || v.Pass {
		t.Errorf("free-text reference must be a judge error: %+v", v)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// stubJudge returns its verdict and counts its calls.
type stubJudge struct {
	v     Verdict
	calls *int
}

func (s stubJudge) Name() string { return "llm" }
func (s stubJudge) Judge(context.Context, Input) (Verdict, error) {
	*s.calls++
	return s.v, nil
}

// refStub is a stubJudge that also takes a reference (ReferenceJudge) and records the last one.
type refStub struct {
	stubJudge
	ref *Reference
}

func (s refStub) JudgeWithReference(_ context.Context, _ Input, ref Reference) (Verdict, error) {
	*s.calls++
	*s.ref = ref
	return s.v, nil
}

// The answer judge leaves an ambiguous answer uncertain (never a pass); with a fallback judge the fallback
// decides it, and only the uncertain cases reach the fallback.
func TestAnswerUncertainAndFallback(t *testing.T) {
	n := 3.0
	task := suites.Task{Goal: "How many styles of the shirt are there?", Check: suites.Check{Answer: &suites.AnswerRule{Number: &n}}}
	v, err := Answer{}.Judge(context.Background(), Input{Task: task, Final: "3 of the 4 styles are in stock"})
	if err != nil || v.Pass || !v.Uncertain || v.Outcome() != "uncertain" || !contains(v.Reason, "4") {
		t.Fatalf("ambiguous answer without fallback: %+v %v", v, err)
	}
	calls := 0
	var ref Reference
	fb := Answer{Fallback: refStub{stubJudge{Verdict{Judge: "llm", Reason: "VERDICT: NOT SUCCESS"}, &calls}, &ref}}
	v, err = fb.Judge(context.Background(), Input{Task: task, Final: "3 of the 4 styles are in stock"})
	if err != nil || v.Pass || v.Uncertain || v.Judge != "answer" || calls != 1 || !contains(v.Reason, "decided by the llm judge") ||
		!contains(v.Reason, "it saw the reference") {
		t.Fatalf("ambiguous answer with fallback: %+v %v (calls %d)", v, err, calls)
	}
	// The fallback gets the reference (here the rule spelled out: a Zoo rule has no reference text) and the doubt.
	if ref.Answer != "the number 3" || ref.Rule != "the number 3" || !contains(ref.Doubt, "4") {
		t.Errorf("fallback reference %+v", ref)
	}
	// A fallback that takes no reference and has no screenshots could only guess: a judge error, no verdict.
	plainCalls := 0
	plain := Answer{Fallback: stubJudge{Verdict{Judge: "llm", Pass: true, Reason: "VERDICT: SUCCESS"}, &plainCalls}}
	v, err = plain.Judge(context.Background(), Input{Task: task, Final: "3 of the 4 styles are in stock"})
	if err != nil || v.Pass || v.Error == "" || plainCalls != 0 || !contains(v.Error, "neither the reference") {
		t.Errorf("plain fallback without screenshots: %+v %v (calls %d)", v, err, plainCalls)
	}
	v, _ = plain.Judge(context.Background(), Input{Task: task, Final: "3 of the 4 styles are in stock", Screenshots: [][]byte{png(1)}})
	if !v.Pass || plainCalls != 1 || !contains(v.Reason, "1 screenshot(s), not the reference") {
		t.Errorf("plain fallback with a screenshot: %+v (calls %d)", v, plainCalls)
	}
	v, _ = fb.Judge(context.Background(), Input{Task: task, Final: "There are three styles."})
	if !v.Pass || calls != 1 {
		t.Errorf("a clear answer must not reach the fallback: %+v (calls %d)", v, calls)
	}
	free := suites.Task{Check: suites.Check{Answer: &suites.AnswerRule{Type: "possible", Reference: "'Baked Dijon Salmon', 4.6-star"}}}
	if v, _ := (Answer{}).Judge(context.Background(), Input{Task: free, Final: "x"}); v.Error == "" {
		t.Errorf("a free-text reference without a fallback must be a judge error: %+v", v)
	}
	if v, _ := fb.Judge(context.Background(), Input{Task: free, Final: "x"}); v.Error != "" || calls != 2 || !contains(v.Reason, "free text only") ||
		ref.Answer != "'Baked Dijon Salmon', 4.6-star" || ref.Rule != "" {
		t.Errorf("a free-text reference with a fallback goes to it: %+v (calls %d, reference %+v)", v, calls, ref)
	}
	for _, c := range []struct {
		v    Verdict
		want string
	}{
		{Verdict{Pass: true}, "pass"}, {Verdict{}, "fail"}, {Verdict{Uncertain: true}, "uncertain"},
		{Verdict{Error: "x", Pass: true}, "error"},
	} {
		if got := c.v.Outcome(); got != c.want {
			t.Errorf("%+v.Outcome() = %q, want %q", c.v, got, c.want)
		}
	}
	// --judge answer with --judge-model builds the llm judge as the fallback (it needs openai:NAME).
	if _, err := New("answer", Options{Model: "bogus"}); err == nil {
		t.Error("answer judge with a malformed --judge-model must be refused")
	}
	j, err := New("answer", Options{})
	if a, ok := j.(Answer); err != nil || !ok || a.Fallback != nil {
		t.Errorf("answer judge without a model: %#v %v", j, err)
	}
}

// A judge error or an uncertain verdict carries no "pass" a counter could read as a failure; a decided one
// does; all decode back to the same verdict.
func TestVerdictJSON(t *testing.T) {
	for _, c := range []struct {
		v        Verdict
		hasPass  bool
		contains string
	}{
		{Verdict{Judge: "answer", Pass: true, Reason: "ok"}, true, `"pass":true`},
		{Verdict{Judge: "answer", Reason: "no"}, true, `"pass":false`},
		{Verdict{Judge: "answer", Uncertain: true, Reason: "two"}, false, `"uncertain":true`},
		{Verdict{Judge: "answer", Error: "task has no answer rule"}, false, `"error":"task has no answer rule"`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"pass"`) != c.hasPass || !strings.Contains(string(b), c.contains) {
			t.Errorf("%+v encodes as %s", c.v, b)
		}
		var back Verdict
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, c.v) {
			t.Errorf("%s decodes as %+v (%v), want %+v", b, back, err, c.v)
		}
	}
}

// A reference without a checkable rule is a judge error that says what kind it is: a golden the rule derivation
// could not read (a date, a yes/no) or a "possible" answer (WebVoyager's examples of one acceptable answer), so a
// user does not read a golden date as a free-text reference.
func TestAnswerNoRuleSaysWhichReference(t *testing.T) {
	for _, c := range []struct{ typ, want string }{
		{"golden", "the golden answer gives no rule the answer judge can check"},
		{"possible", "the reference is a possible answer"},
		{"", "reference answer has no checkable rule"},
	} {
		task := suites.Task{Check: suites.Check{Answer: &suites.AnswerRule{Reference: "May 5, 2023", Type: c.typ}}}
		v, err := Answer{}.Judge(context.Background(), Input{Task: task, Final: "May 5, 2023"})
		if err != nil || !strings.Contains(v.Error, c.want) || !strings.HasSuffix(v.Error, "use the llm judge") || v.Pass {
			t.Errorf("type %q: %+v, %v; want an error with %q", c.typ, v, err, c.want)
		}
	}
}

// A verdict's parts survive a JSON round trip, each part written as a verdict of its own (no "pass" on an
// uncertain part), and a verdict of one judge has no "parts" key.
func TestVerdictPartsJSON(t *testing.T) {
	v := Verdict{Judge: "state+answer", Uncertain: true, Reason: "two candidates", Parts: []Verdict{
		{Judge: "state", Pass: true, Reason: "state matches"}, {Judge: "answer", Uncertain: true, Reason: "two candidates"}}}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"judge":"state+answer","uncertain":true,"reason":"two candidates","parts":[{"judge":"state","pass":true,` +
		`"reason":"state matches"},{"judge":"answer","uncertain":true,"reason":"two candidates"}]}`
	if string(b) != want {
		t.Errorf("encodes as %s, want %s", b, want)
	}
	var back Verdict
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, v) {
		t.Errorf("decodes as %+v (%v)", back, err)
	}
	if b, _ := json.Marshal(Verdict{Judge: "answer", Pass: true}); strings.Contains(string(b), "parts") {
		t.Errorf("one judge: %s", b)
	}
}
