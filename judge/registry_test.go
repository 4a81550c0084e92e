package judge

import (
	"context"
	"slices"
	"strings"
	"testing"
)

type fixedJudge struct{}

func (fixedJudge) Name() string { return "fixed" }
func (fixedJudge) Judge(context.Context, Input) (Verdict, error) {
	return Verdict{Judge: "fixed", Pass: true, Reason: "always"}, nil
}

func TestRegistry(t *testing.T) {
	for _, n := range []string{"answer", "llm", "state"} {
		if !slices.Contains(Names(), n) {
			t.Errorf("judge %s not registered: %v", n, Names())
		}
	}
	j, err := New("state", Options{})
	if err != nil || j.Name() != "state" {
		t.Fatalf("New(state) = %v, %v", j, err)
	}
	j, err = New("llm", Options{Model: "openai:judge-model", BaseURL: "http://127.0.0.1:1/v1", KeyEnv: "NO_SUCH_KEY_VAR",
		Screenshots: 3})
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := j.(*LLM); !ok || l.K() != 3 {
		t.Errorf("New(llm) = %#v", j)
	}
	if _, err := New("llm", Options{}); err == nil || !strings.Contains(err.Error(), "--judge-model openai:NAME") {
		t.Errorf("llm without a model: %v", err)
	}
	if _, err := New("nope", Options{}); err == nil || !strings.Contains(err.Error(), "answer, llm, state") {
		t.Errorf("unknown judge: %v", err)
	}

	Register("fixed", func(Options) (Judge, error) { return fixedJudge{}, nil })
	t.Cleanup(func() { regMu.Lock(); delete(registry, "fixed"); regMu.Unlock() })
	j, err = New("fixed", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := j.Judge(context.Background(), Input{}); !v.Pass || v.Judge != "fixed" {
		t.Errorf("registered judge verdict %+v", v)
	}
	for _, name := range []string{"fixed", "original", ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			Register(name, func(Options) (Judge, error) { return fixedJudge{}, nil })
		}()
	}
}
