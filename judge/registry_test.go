package judge

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"webbench/suites"
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
	// The error names every registered judge (a new judge changes no test here).
	if _, err := New("nope", Options{}); err == nil || !strings.Contains(err.Error(), strings.Join(Names(), ", ")) {
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

// A judge registered for tasks joins the run's own judges of the tasks it applies to, at its order between the
// state and answer judges, and the composed verdict names it there; registrations that cannot work panic
// without registering anything.
func TestRegisterForTasks(t *testing.T) {
	tagged := func(t suites.Task) bool { return t.HasTag("fixed") }
	RegisterForTasks("fixed", func(Options) (Judge, error) { return fixedJudge{}, nil }, 15, tagged)
	t.Cleanup(func() {
		regMu.Lock()
		delete(registry, "fixed")
		taskJudges = slices.DeleteFunc(taskJudges, func(tj taskJudge) bool { return tj.name == "fixed" })
		regMu.Unlock()
	})
	n := 3.0
	task := suites.Task{Tags: []string{"fixed"}, Check: suites.Check{State: map[string]any{"n": 3.0},
		Answer: &suites.AnswerRule{Number: &n}}}
	var names []string
	for _, j := range ForTask(task) {
		names = append(names, j.Name())
	}
	if strings.Join(names, "+") != "state+fixed+answer" {
		t.Errorf("ForTask(tagged task with both checks) = %v, want state, fixed, answer", names)
	}
	v := Compose(context.Background(), ForTask(task), Input{Task: task, Final: "3", State: []byte(`{"n": 3}`)})
	if !v.Pass || v.Judge != "state+fixed+answer" || len(v.Parts) != 3 || v.Parts[1].Reason != "always" {
		t.Errorf("composed verdict %+v", v)
	}
	task.Tags = nil
	if js := ForTask(task); len(js) != 2 || js[0].Name() != "state" || js[1].Name() != "answer" {
		t.Errorf("ForTask(untagged) = %v, want state, answer", js)
	}
	if js := ForTask(suites.Task{Tags: []string{"fixed"}}); len(js) != 1 || js[0].Name() != "fixed" {
		t.Errorf("ForTask(tagged, no checks) = %v, want fixed alone", js)
	}
	for what, reg := range map[string]func(){
		"an order taken": func() {
			RegisterForTasks("other", func(Options) (Judge, error) { return fixedJudge{}, nil }, 20, tagged)
		},
		"nil applies": func() { RegisterForTasks("other", func(Options) (Judge, error) { return fixedJudge{}, nil }, 30, nil) },
		"a failing factory": func() {
			RegisterForTasks("other", func(Options) (Judge, error) { return nil, errors.New("needs a model") }, 30, tagged)
		},
		"a name taken": func() {
			RegisterForTasks("state", func(Options) (Judge, error) { return fixedJudge{}, nil }, 30, tagged)
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterForTasks with %s did not panic", what)
				}
			}()
			reg()
		}()
	}
	if slices.Contains(Names(), "other") || len(ForTask(suites.Task{Tags: []string{"fixed"}})) != 1 {
		t.Errorf("a refused registration left a judge: %v", Names())
	}
}
