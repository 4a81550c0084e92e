package judge

import (
	"context"
	"encoding/json"
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
