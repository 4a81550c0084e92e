package ablation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"webbench/agent/guard"
	"webbench/results"
	"webbench/runner"
	"webbench/suites"
)

// `aa: same-seed` is a replay of the baseline with the baseline's own seeds, on every task; `aa: true` and
// `aa: other-seeds` keep the other-seeds arm; other values are errors naming the line.
func TestSpecSameSeedArm(t *testing.T) {
	s, err := ParseSpec("aa.yaml", []byte("name: x\nreps: 2\nscope: target\nbaseline:\n  guards: {repeat_guard: false}\n"+
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
		_, err := ParseSpec("bad.yaml", []byte("name: x\nvariants:\n  - name: r\n    "+bad+"\n"))
		if err == nil || !strings.Contains(err.Error(), "bad.yaml") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
	// The exact messages of bad aa values: TestSpecAAModeErrors.
}

// The flake rate of a same-seed arm: pairs whose status, failure mode or verdict differ, with its Wilson
// interval; a warning only when it is above zero; every format shows it.
func TestFlakeRate(t *testing.T) {
	judged := func(rs []results.Attempt) []results.Attempt {
		for i := range rs {
			rs[i].Verdict.Pass = rs[i].Status == results.StatusPass
		}
		return rs
	}
	base := judged(tasksOf("baseline", "PPFPPFPP"))
	same := judged(tasksOf("replay", "PPFPPFPP"))
	in := Inputs{Baseline: "baseline", Replays: []string{"replay"}}
	a := Analyze(append(append(base[:0:0], base...), same...), in)
	if len(a.Flake) != 1 || a.Flake[0].Pairs != 8 || a.Flake[0].Differ != 0 || a.Flake[0].Rate != 0 ||
		a.Flake[0].Wilson[0] != 0 || warningOf(a, WarnFlakeRate) != nil {
		t.Fatalf("identical replay: %+v %+v", a.Flake, a.Warnings)
	}
	// Wilson score interval (Wilson 1927; method 3 of Newcombe 1998, Stat. Med. 17:857), z = 1.96, worked by
	// hand from the closed form: 0 of 8 → [0, 0.3244].
	if hi := a.Flake[0].Wilson[1]; math.Abs(hi-0.3244) > 5e-5 {
		t.Errorf("0 of 8: Wilson upper %.4f, want 0.3244", hi)
	}
	if l := a.Flake[0].Line(); !strings.Contains(l, "0 of 8 pairs differ") {
		t.Errorf("line %q", l)
	}
	// One pass became a fail, one fail changed its failure mode.
	flaky := judged(tasksOf("replay", "PFFPPFPP"))
	flaky[5].FailureMode = "gave_up"
	a = Analyze(append(append(base[:0:0], base...), flaky...), in)
	f := a.Flake[0]
	if f.Differ != 2 || f.Rate != 0.25 || len(f.Examples) != 2 || f.Examples[0] != "t1 rep 0: pass vs fail (loop)" ||
		f.Examples[1] != "t5 rep 0: fail (loop) vs fail (gave_up)" {
		t.Fatalf("flaky replay: %+v", f)
	}
	// 2 of 8 → [0.0715, 0.5907] (same reference as above).
	if math.Abs(f.Wilson[0]-0.0715) > 5e-5 || math.Abs(f.Wilson[1]-0.5907) > 5e-5 {
		t.Errorf("2 of 8: Wilson [%.4f, %.4f], want [0.0715, 0.5907]", f.Wilson[0], f.Wilson[1])
	}
	w := warningOf(a, WarnFlakeRate)
	if w == nil || !strings.Contains(w.Text, "differs from it on 2 of 8 pairs (25.0%") || w.Variants[0] != "replay" {
		t.Fatalf("warning %+v", w)
	}
	dir := t.TempDir()
	for _, format := range Formats() {
		r, _ := LookupRenderer(format)
		var b bytes.Buffer
		if err := r.Ablation(&b, &AblationReport{Dir: dir, Analysis: a, Records: append(base, flaky...)}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		switch format {
		case "json":
			var doc struct {
				FlakeRates []struct {
					Variant       string
					Pairs, Differ int
					Rate          float64
					Examples      []string
				} `json:"flake_rates"`
			}
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil || len(doc.FlakeRates) != 1 ||
				doc.FlakeRates[0].Differ != 2 || doc.FlakeRates[0].Rate != 0.25 || len(doc.FlakeRates[0].Examples) != 2 {
				t.Errorf("json flake_rates: %+v (%v)", doc.FlakeRates, err)
			}
			continue
		case "junit":
			// JUnit carries no warnings: the replay arm is a testsuite marked as an A/A arm.
			if !strings.Contains(out, `<testsuite name="replay"`) || !strings.Contains(out, `<property name="aa" value="true">`) {
				t.Errorf("junit report lacks the replay A/A suite:\n%s", out)
			}
			continue
		case "html":
			page, err := os.ReadFile(filepath.Join(dir, HTMLReportFile))
			if err != nil {
				t.Fatal(err)
			}
			out = string(page)
		}
		if !strings.Contains(out, "Environment flake rate: replay replays the baseline with its own seeds; 2 of 8 pairs differ") ||
			!strings.Contains(out, "Same seeds, different outcomes") {
			t.Errorf("%s report lacks the flake rate or its warning:\n%s", format, out)
		}
	}
}

// A same-seed A/A arm with no pair in common with the baseline has an undefined flake rate: n/a in the text,
// null in JSON (as an arm's pass rate with no judged attempt), and no warning.
func TestFlakeRateNoPairs(t *testing.T) {
	base := tasksOf("baseline", "PP")
	in := Inputs{Baseline: "baseline", Replays: []string{"replay"}}
	a := Analyze(base, in)
	if len(a.Flake) != 1 || a.Flake[0].Pairs != 0 || warningOf(a, WarnFlakeRate) != nil {
		t.Fatalf("no pairs: %+v %+v", a.Flake, a.Warnings)
	}
	if l := a.Flake[0].Line(); !strings.Contains(l, "= n/a") || strings.Contains(l, "%") {
		t.Errorf("line %q", l)
	}
	var b bytes.Buffer
	if err := JSONReport(&b, a); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		FlakeRates []map[string]any `json:"flake_rates"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || len(doc.FlakeRates) != 1 ||
		doc.FlakeRates[0]["rate"] != nil || doc.FlakeRates[0]["wilson"] != nil {
		t.Errorf("json flake_rates: %+v (%v)", doc.FlakeRates, err)
	}
}

// Review of issue 17: errors about an A/A arm name the arm's own field line (the spec's name containing the
// arm's name used to make it line 1); `aa:` on the baseline is refused; A/A arms may sit beside a generated
// design, other variants may not.
func TestSpecAAArmPlacement(t *testing.T) {
	_, err := ParseSpec("s.yaml", []byte("name: replay-check\nvariants:\n  - name: replay\n    aa: same-seed\n"+
		"    guards: {repeat_guard: false}\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "s.yaml:5: variant replay: guards:") {
		t.Errorf("aa arm with guards: %v, want s.yaml:5: variant replay: guards: …", err)
	}
	_, err = ParseSpec("s.yaml", []byte("name: x\nbaseline:\n  name: base\n  aa: same-seed\nvariants:\n  - name: v\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "s.yaml:4: baseline: aa") {
		t.Errorf("aa on the baseline: %v, want s.yaml:4: baseline: aa …", err)
	}
	_, err = ParseSpec("s.yaml", []byte("name: x\ndesign: leave-one-out\nvariants:\n  - name: replay\n    aa: same-seed\n"+
		"  - name: other\n    guards: {repeat_guard: false}\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "s.yaml:6: give either design: leave-one-out or variants") {
		t.Errorf("a non-A/A variant beside a design: %v", err)
	}
	s, err := ParseSpec("s.yaml", []byte("name: x\ndesign: leave-one-out\nvariants:\n  - name: replay\n    aa: same-seed\n"+
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

// A/A arms (a same-seed replay here) are reported but stay out of Holm's family, the gate and the underpowered
// and holm_floor warnings (review of issue 17): the variant under test keeps its own p as p_holm (2/2^10, the
// exact sign-flip p of 10 tasks that all moved down), and a replay that looks worse fails no gate.
func TestAAArmsOutOfHolmAndGate(t *testing.T) {
	base := tasksOf("baseline", "PPPPPPPPPPPP")
	v := tasksOf("v", "FFFFFFFFFFPP")
	in := Inputs{Baseline: "baseline", Variants: []string{"v", "replay"}, Replays: []string{"replay"}}
	a := Analyze(cat(base, v, tasksOf("replay", "PPPPPPPPPPPF")), in)
	if len(a.Variants) != 2 || a.Variants[0].AA || !a.Variants[1].AA {
		t.Fatalf("variants %+v", a.Variants)
	}
	approx(t, "v p_paired", a.Variants[0].All.P, 2/math.Pow(2, 10), 1e-12)
	approx(t, "v p_holm (family of one)", a.Variants[0].PHolm, 2/math.Pow(2, 10), 1e-12)
	a = Analyze(cat(base, v, tasksOf("replay", "FFFFFFFFFFFF")), in)
	failed, why := a.Gate(0.05)
	if !failed || len(why) != 1 || !strings.HasPrefix(why[0], "variant v ") {
		t.Fatalf("gate: %v %q, want v alone", failed, why)
	}
	for _, w := range a.Warnings {
		if (w.Kind == WarnUnderpowered || w.Kind == WarnHolmFloor) && slices.Contains(w.Variants, "replay") {
			t.Errorf("warning about the A/A arm: %+v", w)
		}
	}
	// The per-variant gate agrees with Analysis.Gate (fresh-user trial of issue 17: the replay's row said FAIL
	// under "Gate: passed"): the replay, 12 of 12 pairs broke, is not gated in any format.
	in.FailIfWorse = 0.05
	a = Analyze(cat(base, tasksOf("v", "PPPPPPPPPPPP"), tasksOf("replay", "FFFFFFFFFFFF")), in)
	if failed, why := a.Gate(0.05); failed || a.Variants[1].GateFails(0.05, a.Alpha) {
		t.Fatalf("gate failed by the A/A arm: %v", why)
	}
	var term bytes.Buffer
	if err := TerminalReport(&term, a); err != nil {
		t.Fatal(err)
	}
	if out := term.String(); !strings.Contains(out, "A/A: not gated") || strings.Contains(out, "FAIL") {
		t.Fatalf("terminal report gates the A/A arm:\n%s", out)
	}
	// The reports call it a control (fresh-user trial of issue 17): header, scope column, no MDE or power.
	out := term.String()
	if !strings.HasPrefix(out, "Ablation: 1 variant and 1 A/A control against the baseline arm") ||
		!strings.Contains(out, "A/A control: same seeds") {
		t.Fatalf("terminal report does not mark the A/A control:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "A/A control: same seeds") && strings.Contains(line, " pts │") {
			t.Errorf("A/A row with an MDE: %s", line)
		}
	}
	var js bytes.Buffer
	if err := JSONReport(&js, a); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Variants []struct {
			Name       string  `json:"name"`
			AA         bool    `json:"aa"`
			AAKind     *string `json:"aa_kind"`
			GateFailed *bool   `json:"gate_failed"`
		} `json:"variants"`
		Warnings []struct {
			Kind     string   `json:"kind"`
			Variants []string `json:"variants"`
		} `json:"warnings"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Variants) != 2 || doc.Variants[0].AA || !doc.Variants[1].AA || doc.Variants[1].GateFailed == nil ||
		*doc.Variants[1].GateFailed || doc.Variants[0].AAKind != nil || doc.Variants[1].AAKind == nil ||
		*doc.Variants[1].AAKind != "same-seed" {
		t.Fatalf("JSON variants: %+v", doc.Variants)
	}
	// Warnings: the flake rate first; none of the effect-finding ones about the A/A arm.
	if len(doc.Warnings) == 0 || doc.Warnings[0].Kind != WarnFlakeRate {
		t.Fatalf("first warning %+v, want %s", doc.Warnings, WarnFlakeRate)
	}
	for _, w := range doc.Warnings {
		switch w.Kind {
		case WarnFewTasks, WarnPermFloor, WarnNoDiscordant, WarnUnderpowered, WarnHolmFloor:
			if slices.Contains(w.Variants, "replay") {
				t.Errorf("%s warning about the A/A arm", w.Kind)
			}
		}
	}
}

// An attempt that ended in an error is not an outcome: a pair with an error in either arm is left out of the
// flake rate and counted apart (fresh-user trial of issue 17: one injected infra error read as a 6.2 % flake
// rate and "the environment is not deterministic"). Wilson 0/10: upper bound z²/(n+z²) = 3.8415/13.8415 = 0.2775.
func TestFlakeRateLeavesErrorsOut(t *testing.T) {
	base := tasksOf("baseline", "PPPPPPPPPPPP")
	a := Analyze(cat(base, tasksOf("replay", "IPPPPPPPPPPJ")), Inputs{Baseline: "baseline", Variants: []string{"replay"},
		Replays: []string{"replay"}})
	f := a.Flake[0]
	if f.Pairs != 10 || f.Differ != 0 || f.Errors != 2 {
		t.Fatalf("flake rate %+v, want 0 of 10 pairs, 2 left out", f)
	}
	approx(t, "Wilson upper 0/10", f.Wilson[1], 3.8415/13.8415, 1e-4)
	if w := warningOf(a, WarnFlakeRate); w != nil {
		t.Fatalf("errors read as flakes: %s", w.Text)
	}
	if l := f.Line(); !strings.Contains(l, "0 of 10 pairs differ") || !strings.Contains(l, "2 pairs with an error in either arm left out") {
		t.Fatalf("line: %s", l)
	}
}

// A/A membership comes from the plan, not the records (second review of issue 17): a variant with a fixed seed
// and another prompt, or another temperature, has the baseline's model name and guards in every record, yet it
// is a variant under test — in Holm's family and the gate — and only the `aa: true` arm is an other-seeds copy
// with a noise-floor line. The prompt variant broke 10 of 12 tasks (exact McNemar p = 2/2^10 = 0.00195): the
// gate must fail.
func TestAAMembershipFromPlan(t *testing.T) {
	spec, err := ParseSpec("members.yaml", []byte(`name: members
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
	base := same(tasksOf(plan.Baseline, "PPPPPPPPPPPP"), 100)
	recs := cat(base, same(tasksOf("floor", "PPPPPPPPPPPP"), 5000), same(tasksOf("replay", "PPPPPPPPPPPP"), 100),
		same(tasksOf("newprompt", "FFFFFFFFFFPP"), 7), same(tasksOf("hot", "PPPPPPPPPPPP"), 7))
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
	if failed, why := a.Gate(0.05); !failed || !strings.Contains(strings.Join(why, " "), "newprompt") {
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

// Review of issue 17: an `aa:` value that is neither a boolean nor a kind's name is an error in the form of the
// spec's other errors ("file:line: variant V: …", the line of the aa key), naming the value as written or, for a
// sequence or a mapping, its kind.
func TestSpecAAModeErrors(t *testing.T) {
	const expected = ": expected true, other-seeds or same-seed"
	for src, want := range map[string]string{
		"name: x\nvariants:\n  - name: r\n    aa: sometimes\n":           `a.yaml:4: variant r: aa "sometimes"` + expected,
		"name: x\nvariants:\n  - name: r\n    aa: 1\n":                   `a.yaml:4: variant r: aa "1"` + expected,
		"name: x\nvariants:\n  - name: r\n    aa: [1]\n":                 `a.yaml:4: variant r: aa (a sequence)` + expected,
		"name: x\nvariants:\n  - name: r\n    aa:\n      - 1\n":          `a.yaml:4: variant r: aa (a sequence)` + expected,
		"name: x\nvariants:\n  - name: v\n  - name: r\n    aa: {a: 1}\n": `a.yaml:5: variant r: aa (a mapping)` + expected,
		"name: x\nbaseline:\n  aa: again\nvariants:\n  - name: v\n":      `a.yaml:3: baseline: aa "again"` + expected,
	} {
		if _, err := ParseSpec("a.yaml", []byte(src)); err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %s", src, err, want)
		}
	}
	for _, src := range []string{"aa: true", "aa: false", "aa:", "aa: other-seeds", "aa: same-seed", `aa: "true"`, `aa: "false"`} {
		if _, err := ParseSpec("a.yaml", []byte("name: x\nvariants:\n  - name: r\n    "+src+"\n")); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// AACopies (the fallback for manifests without ablation.copies) takes only arms with the seed mode `aa: true`
// gives ("+i·AASeedOffset"): a variant that sends no seed, or uses the baseline's own seeds ("+0"), or any
// other offset, is a variant under test (third review of issue 17).
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
