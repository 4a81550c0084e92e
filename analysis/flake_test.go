package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"webbench/agent/guard"
	"webbench/analysis/analysistest"
	"webbench/results"
	"webbench/runner"
	"webbench/spec"
	"webbench/suites"
)

// `aa: same-seed` is a replay of the baseline with the baseline's own seeds, on every task; `aa: true` and
// `aa: other-seeds` keep the other-seeds arm; other values are errors naming the line.
func TestSpecSameSeedArm(t *testing.T) {
	s, err := spec.ParseSpec("aa.yaml", []byte("name: x\nreps: 2\nscope: target\nbaseline:\n  guards: {repeat_guard: false}\n"+
		"variants:\n  - name: replay\n    aa: same-seed\n  - name: other\n    aa: other-seeds\n  - name: other2\n    aa: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	arms, err := s.Expand([]suites.Task{{ID: "a"}, {ID: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(arms.Replays, ",") != "replay" || strings.Join(arms.AA, ",") != "other,other2" || len(arms.Warnings) != 0 {
		t.Fatalf("replays %v, aa %v, warnings %v", arms.Replays, arms.AA, arms.Warnings)
	}
	// The other-seeds arms keep their offsets (the replay does not take an index).
	if v := arms.Variants; v[1].Seed != "" || v[1].Scope != "all" || v[1].TaskIDs != nil || v[2].Seed != "+1000003" ||
		v[3].Seed != "+2000006" || v[0].TaskIDs != nil {
		t.Fatalf("variants %+v", v)
	}
	plan := runner.Plan{Suite: "zoo", Tasks: []suites.Task{{ID: "a"}, {ID: "b"}}, Reps: 2, Variants: arms.Variants, BaseSeed: 5}
	atts, err := plan.Expand()
	if err != nil {
		t.Fatal(err)
	}
	seeds := map[string]int{}
	for _, at := range atts {
		if at.Variant == "baseline" {
			seeds[at.PairID] = *at.Seed
		}
	}
	n := 0
	for _, at := range atts {
		if at.Variant == "replay" {
			n++
			if at.Seed == nil || *at.Seed != seeds[at.PairID] {
				t.Errorf("replay %s rep %d: seed %v, want the baseline's %d", at.TaskID, at.Rep, at.Seed, seeds[at.PairID])
			}
		}
	}
	if n != 4 {
		t.Fatalf("replay attempts: %d, want 4 (every task and rep)", n)
	}
	for _, bad := range []string{"aa: sometimes", "aa: [1]", "aa: same-seed\n    guards: {repeat_guard: false}"} {
		_, err := spec.ParseSpec("bad.yaml", []byte("name: x\nvariants:\n  - name: r\n    "+bad+"\n"))
		if err == nil || !strings.Contains(err.Error(), "bad.yaml") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
	// The exact messages of bad aa values: TestSpecAAModeErrors.
}

// Errors about an A/A arm name the arm's own field line (the spec's name containing the
// arm's name used to make it line 1); `aa:` on the baseline is refused; A/A arms may sit beside a generated
// design, other variants may not.
func TestSpecAAArmPlacement(t *testing.T) {
	_, err := spec.ParseSpec("s.yaml", []byte("name: replay-check\nvariants:\n  - name: replay\n    aa: same-seed\n"+
		"    guards: {repeat_guard: false}\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "s.yaml:5:5: variant replay: guards:") {
		t.Errorf("aa arm with guards: %v, want s.yaml:5:5: variant replay: guards: …", err)
	}
	_, err = spec.ParseSpec("s.yaml", []byte("name: x\nbaseline:\n  name: base\n  aa: same-seed\nvariants:\n  - name: v\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "s.yaml:4:3: baseline: aa") {
		t.Errorf("aa on the baseline: %v, want s.yaml:4:3: baseline: aa …", err)
	}
	_, err = spec.ParseSpec("s.yaml", []byte("name: x\ndesign: leave-one-out\nvariants:\n  - name: replay\n    aa: same-seed\n"+
		"  - name: other\n    guards: {repeat_guard: false}\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "s.yaml:6:5: give either design: leave-one-out or variants") {
		t.Errorf("a non-A/A variant beside a design: %v", err)
	}
	s, err := spec.ParseSpec("s.yaml", []byte("name: x\ndesign: leave-one-out\nvariants:\n  - name: replay\n    aa: same-seed\n"+
		"  - name: floor\n    aa: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	arms, err := s.Expand([]suites.Task{{ID: "a", Tags: []string{"repeat_guard"}}})
	if err != nil {
		t.Fatal(err)
	}
	n := len(arms.Variants)
	if strings.Join(arms.Replays, ",") != "replay" || strings.Join(arms.AA, ",") != "floor" ||
		arms.Variants[n-2].Name != "replay" || arms.Variants[n-1].Name != "floor" || arms.Variants[1].Name != "no_"+guard.Names()[0] {
		t.Fatalf("design + A/A arms: replays %v, aa %v, variants %d", arms.Replays, arms.AA, n)
	}
	if want := 1 + len(guard.Names()) + 2; n != want {
		t.Errorf("variants: %d, want baseline + one per guard + 2 A/A arms = %d", n, want)
	}
}

// An attempt that ended in an error is not an outcome: a pair with an error in either arm is left out of the
// flake rate and counted apart (one injected infra error read as a 6.2 % flake
// rate and "the environment is not deterministic"). Wilson 0/10: upper bound z²/(n+z²) = 3.8415/13.8415 = 0.2775.
func TestFlakeRateLeavesErrorsOut(t *testing.T) {
	base := analysistest.TasksOf("baseline", "PPPPPPPPPPPP")
	a := Analyze(analysistest.Cat(base, analysistest.TasksOf("replay", "IPPPPPPPPPPJ")), Inputs{Baseline: "baseline", Variants: []string{"replay"},
		Replays: []string{"replay"}})
	f := a.Flake[0]
	if f.Pairs != 10 || f.Differ != 0 || f.Errors != 2 {
		t.Fatalf("flake rate %+v, want 0 of 10 pairs, 2 left out", f)
	}
	analysistest.Approx(t, "Wilson upper 0/10", f.Wilson[1], 3.8415/13.8415, 1e-4)
	if w := a.Warning(WarnFlakeRate); w != nil {
		t.Fatalf("errors read as flakes: %+v", w)
	}
}

// A/A membership comes from the plan, not the records: a variant with a fixed seed
// and another prompt, or another temperature, has the baseline's model name and guards in every record, yet it
// is a variant under test — in Holm's family and the gate — and only the `aa: true` arm is an other-seeds copy
// with a noise-floor line. The prompt variant broke 10 of 12 tasks (exact McNemar p = 2/2^10 = 0.00195): the
// gate must fail.
func TestAAMembershipFromPlan(t *testing.T) {
	spec, err := spec.ParseSpec("members.yaml", []byte(`name: members
reps: 1
baseline:
  model: {kind: openai, name: gpt-4o-mini, base_url: "http://127.0.0.1:1/v1"}
variants:
  - name: floor
    aa: true
  - name: replay
    aa: same-seed
  - name: newprompt
    prompt: other-prompt.txt
    seed: 7
  - name: hot
    model: {kind: openai, name: gpt-4o-mini, base_url: "http://127.0.0.1:1/v1", temperature: 1}
    seed: 7
`))
	if err != nil {
		t.Fatal(err)
	}
	var tasks []suites.Task
	for i := range 12 {
		tasks = append(tasks, suites.Task{ID: fmt.Sprintf("t%02d", i)})
	}
	arms, err := spec.Expand(tasks)
	if err != nil {
		t.Fatal(err)
	}
	plan := runner.Plan{Suite: "zoo", Tasks: tasks, Reps: 1, Variants: arms.Variants, BaseSeed: 1}.Record()
	plan.Baseline = arms.Variants[0].Name
	if got := AACopies(plan); !slices.Equal(got, []string{"floor"}) {
		t.Fatalf("AACopies = %v, want [floor]", got)
	}
	same := func(rs []results.Attempt, seed int) []results.Attempt {
		for i := range rs {
			s := seed + i
			if seed == 7 {
				s = 7
			}
			rs[i].Seed, rs[i].Model = &s, "openai:gpt-4o-mini"
		}
		return rs
	}
	base := same(analysistest.TasksOf(plan.Baseline, "PPPPPPPPPPPP"), 100)
	recs := analysistest.Cat(base, same(analysistest.TasksOf("floor", "PPPPPPPPPPPP"), 5000), same(analysistest.TasksOf("replay", "PPPPPPPPPPPP"), 100),
		same(analysistest.TasksOf("newprompt", "FFFFFFFFFFPP"), 7), same(analysistest.TasksOf("hot", "PPPPPPPPPPPP"), 7))
	in := Inputs{Baseline: plan.Baseline, Variants: []string{"floor", "replay", "newprompt", "hot"},
		Replays: arms.Replays, Copies: AACopies(plan)}
	a := Analyze(recs, in)
	aa := map[string]bool{}
	for _, v := range a.Variants {
		aa[v.Name] = v.AA
	}
	if !aa["floor"] || !aa["replay"] || aa["newprompt"] || aa["hot"] {
		t.Fatalf("A/A arms %v, want floor and replay only", aa)
	}
	np := a.Variants[2]
	if math.Abs(np.All.P-2.0/1024) > 1e-9 {
		t.Fatalf("newprompt p = %.6g, want 2/1024", np.All.P)
	}
	if failed, why := a.Gate(0.05); !failed || len(why) != 1 || why[0].Variant != "newprompt" || why[0].Kind != GateWorse {
		t.Fatalf("gate: failed %t %v, want newprompt to fail it", failed, why)
	}
	var floors []string
	for _, w := range a.Warnings {
		if w.Kind == WarnNoiseFloor {
			floors = append(floors, w.Variants...)
		}
	}
	if !slices.Equal(floors, []string{"floor"}) {
		t.Fatalf("noise-floor lines for %v, want [floor]", floors)
	}
}

// An `aa:` value that is neither a boolean nor a kind's name is an error in the form of the
// spec's other errors ("file:line:col: variant V: …", the position of the aa key), naming the value as written or, for a
// sequence or a mapping, its kind.
func TestSpecAAModeErrors(t *testing.T) {
	const expected = ": expected true, other-seeds or same-seed"
	for src, want := range map[string]string{
		"name: x\nvariants:\n  - name: r\n    aa: sometimes\n":           `a.yaml:4:5: variant r: aa "sometimes"` + expected,
		"name: x\nvariants:\n  - name: r\n    aa: 1\n":                   `a.yaml:4:5: variant r: aa "1"` + expected,
		"name: x\nvariants:\n  - name: r\n    aa: [1]\n":                 `a.yaml:4:5: variant r: aa (a sequence)` + expected,
		"name: x\nvariants:\n  - name: r\n    aa:\n      - 1\n":          `a.yaml:4:5: variant r: aa (a sequence)` + expected,
		"name: x\nvariants:\n  - name: v\n  - name: r\n    aa: {a: 1}\n": `a.yaml:5:5: variant r: aa (a mapping)` + expected,
		"name: x\nbaseline:\n  aa: again\nvariants:\n  - name: v\n":      `a.yaml:3:3: baseline: aa "again"` + expected,
	} {
		if _, err := spec.ParseSpec("a.yaml", []byte(src)); err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %s", src, err, want)
		}
	}
	for _, src := range []string{"aa: true", "aa: false", "aa:", "aa: other-seeds", "aa: same-seed", `aa: "true"`, `aa: "false"`} {
		if _, err := spec.ParseSpec("a.yaml", []byte("name: x\nvariants:\n  - name: r\n    "+src+"\n")); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// AACopies (the fallback for manifests without ablation.copies) takes only arms with the seed mode `aa: true`
// gives ("+i·results.AASeedOffset"): a variant that sends no seed, or uses the baseline's own seeds ("+0"), or any
// other offset, is a variant under test.
func TestAACopiesSeedModes(t *testing.T) {
	base := results.Variant{Name: "baseline", Model: results.Model{Kind: "scripted", Name: "scripted", Profile: "clean"},
		Guards: map[string]bool{"repeat_guard": true}}
	p := results.Plan{Baseline: "baseline", Variants: []results.Variant{base}}
	for _, seed := range []string{"+1000003", "+2000006", "none", "+0", "+5", "7", "-1000003"} {
		v := base
		v.Name, v.Seed = "s"+seed, seed
		p.Variants = append(p.Variants, v)
	}
	if got := AACopies(p); !slices.Equal(got, []string{"s+1000003", "s+2000006"}) {
		t.Fatalf("AACopies = %v, want the two aa seed modes", got)
	}
}
