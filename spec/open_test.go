package spec

import (
	"context"
	"strings"
	"testing"

	"webbench/suites"
)

// fakeSuite is a suite of fixed tasks that records the options it was opened with and whether it was closed.
type fakeSuite struct {
	opts   suites.Options
	closed bool
}

func (*fakeSuite) Name() string { return "spec-open-test" }
func (*fakeSuite) Tasks() []suites.Task {
	return []suites.Task{{ID: "shop-a"}, {ID: "shop-b"}, {ID: "stays-a"}}
}
func (*fakeSuite) Open(context.Context, suites.Task, string) (suites.Env, error) { return nil, nil }
func (s *fakeSuite) Close() error                                                { s.closed = true; return nil }

var opened *fakeSuite

func init() {
	suites.Register("spec-open-test", func(o suites.Options) (suites.Suite, error) {
		opened = &fakeSuite{opts: o}
		return opened, nil
	})
}

// Open opens the spec's suite with its suite_options and plans its filtered tasks; a suite that does not open
// is an error naming the spec file, a plan that fails closes the suite. OutDir is runs/NAME, NAME the spec's
// name, else the file's base name.
func TestOpenAndOutDir(t *testing.T) {
	s, err := ParseSpec("x/s.yaml", []byte("name: demo\nsuite: spec-open-test\ntasks: 'shop-*'\nreps: 2\n"+
		"suite_options: {answers: a.json}\nvariants:\n  - name: off\n    guards: {repeat_guard: false}\n"))
	if err != nil {
		t.Fatal(err)
	}
	plan, suite, err := s.Open("x/s.yaml", 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if suite != opened || opened.opts["answers"] != "a.json" || plan.SuiteOptions["answers"] != "a.json" ||
		len(plan.Tasks) != 2 || plan.Reps != 2 || len(plan.Variants) != 2 || plan.Ablation.FailIfWorse != 0.05 ||
		plan.Ablation.Spec != "x/s.yaml" {
		t.Errorf("plan %+v of suite options %v", plan, opened.opts)
	}
	if got := s.OutDir("x/s.yaml"); got != "runs/demo" {
		t.Errorf("OutDir with a name = %s, want runs/demo", got)
	}
	s.Name = ""
	if got := s.OutDir("x/nightly.yaml"); got != "runs/nightly" {
		t.Errorf("OutDir without a name = %s, want runs/nightly", got)
	}
	s.Tasks = "nomatch-*"
	if _, _, err := s.Open("x/s.yaml", 0); err == nil || !opened.closed {
		t.Errorf("a filter matching no task: err %v, suite closed %v; want an error and the suite closed", err, opened.closed)
	}
	s.Suite = "no-such-suite"
	if _, _, err := s.Open("x/s.yaml", 0); err == nil || !strings.HasPrefix(err.Error(), "x/s.yaml: unknown suite") {
		t.Errorf("an unknown suite: %v, want an error naming the file", err)
	}
}
