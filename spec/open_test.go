package spec

import (
	"context"
	"strings"
	"testing"

	"webbench/suites"
	_ "webbench/suites/zoo"
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
	want := `x/s.yaml:2:8: suite: unknown suite "no-such-suite" (valid: ` + strings.Join(suites.Names(), ", ") + `)`
	if _, _, err := s.Open("x/s.yaml", 0); err == nil || err.Error() != want {
		t.Errorf("an unknown suite: %v, want %s (the file, the value's line and column)", err, want)
	}
}

// target_tasks selects with suites.Filter over the whole suite: a glob that matches none of the suite's tasks is
// an error naming the spec file and the guard's line, while one that the spec's tasks leave without a task only
// leaves its arm no target (the no_task warning), and the kept targets are the tagged tasks it matches.
func TestOpenTargetTaskGlobs(t *testing.T) {
	src := "name: demo\nsuite: spec-open-test\ndesign: leave-one-out\nscope: target\ntasks: 'shop-*'\n" +
		"target_tasks:\n  repeat_guard: 'shop-a,%s'\n"
	s, err := ParseSpec("x/s.yaml", []byte(strings.ReplaceAll(src, "%s", "shopp-*")))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Open("x/s.yaml", 0); err == nil || !strings.Contains(err.Error(), `x/s.yaml:7:3: target_tasks: repeat_guard: glob "shopp-*" matches no task`) {
		t.Errorf("a target glob matching no task of the suite: error %v", err)
	}
	s, err = ParseSpec("x/s.yaml", []byte(strings.ReplaceAll(src, "%s", "stays-*")))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Open("x/s.yaml", 0); err != nil {
		t.Errorf("a target glob the spec's tasks leave without a task: %v", err)
	}
	arms, err := s.Expand([]suites.Task{{ID: "shop-a", Tags: []string{"repeat_guard"}}, {ID: "shop-b", Tags: []string{"repeat_guard"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range arms.Variants {
		if got := v.TaskIDs; v.Name == "no_repeat_guard" && (len(got) != 1 || !got["shop-a"]) {
			t.Errorf("no_repeat_guard's targets %v, want only shop-a", got)
		}
	}
}

// A Zoo option the suite refuses (a misspelt key) is placed at the spec's suite_options, not run as the
// default selection.
func TestOpenZooRefusesUnknownOption(t *testing.T) {
	s, err := ParseSpec("x/z.yaml", []byte("suite: zoo\nsuite_options: {instancs: one}\nvariants:\n  - name: off\n    guards: {repeat_guard: false}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := `x/z.yaml:2:16: suite_options: zoo: unknown option "instancs" (did you mean "instances"?)`
	if _, _, err := s.Open("x/z.yaml", 0); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a misspelt zoo option: %v, want one starting %s", err, want)
	}
}
