package report_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/report"
	"webbench/report/html"
	reportjson "webbench/report/json"
	"webbench/results"
)

// A/A arms (a same-seed replay here) are reported but stay out of Holm's family, the gate and the underpowered
// and holm_floor warnings: the variant under test keeps its own p as p_holm (2/2^10, the
// exact sign-flip p of 10 tasks that all moved down), and a replay that looks worse fails no gate.
func TestAAArmsOutOfHolmAndGate(t *testing.T) {
	base := analysistest.TasksOf("baseline", "PPPPPPPPPPPP")
	v := analysistest.TasksOf("v", "FFFFFFFFFFPP")
	in := analysis.Inputs{Baseline: "baseline", Variants: []string{"v", "replay"}, Replays: []string{"replay"}}
	a := analysis.Analyze(analysistest.Cat(base, v, analysistest.TasksOf("replay", "PPPPPPPPPPPF")), in)
	if len(a.Variants) != 2 || a.Variants[0].AA || !a.Variants[1].AA {
		t.Fatalf("variants %+v", a.Variants)
	}
	analysistest.Approx(t, "v p_paired", a.Variants[0].All.P, 2/math.Pow(2, 10), 1e-12)
	analysistest.Approx(t, "v p_holm (family of one)", a.Variants[0].PHolm, 2/math.Pow(2, 10), 1e-12)
	a = analysis.Analyze(analysistest.Cat(base, v, analysistest.TasksOf("replay", "FFFFFFFFFFFF")), in)
	failed, why := a.Gate(0.05)
	if !failed || len(why) != 1 || why[0].Variant != "v" || !strings.HasPrefix(report.GateReasonText(why[0]), "variant v ") {
		t.Fatalf("gate: %v %+v, want v alone", failed, why)
	}
	for _, w := range a.Warnings {
		if (w.Kind == analysis.WarnUnderpowered || w.Kind == analysis.WarnHolmFloor) && slices.Contains(w.Variants, "replay") {
			t.Errorf("warning about the A/A arm: %+v", w)
		}
	}
	// The per-variant gate agrees with Analysis.Gate (the replay's row said FAIL
	// under "Gate: passed"): the replay, 12 of 12 pairs broke, is not gated in any format.
	in.FailIfWorse = 0.05
	a = analysis.Analyze(analysistest.Cat(base, analysistest.TasksOf("v", "PPPPPPPPPPPP"), analysistest.TasksOf("replay", "FFFFFFFFFFFF")), in)
	if failed, why := a.Gate(0.05); failed || a.Variants[1].GateFails(0.05, a.Alpha) {
		t.Fatalf("gate failed by the A/A arm: %v", why)
	}
	var term bytes.Buffer
	if err := report.TerminalReport(&term, a); err != nil {
		t.Fatal(err)
	}
	if out := term.String(); !strings.Contains(out, "A/A: not gated") || strings.Contains(out, "FAIL") {
		t.Fatalf("terminal report gates the A/A arm:\n%s", out)
	}
	// The reports call it a control: header, scope column, no MDE or power.
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
	if err := reportjson.JSONReport(&js, a); err != nil {
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
			Kind     analysis.WarningKind `json:"kind"`
			Variants []string             `json:"variants"`
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
	if len(doc.Warnings) == 0 || doc.Warnings[0].Kind != analysis.WarnFlakeRate {
		t.Fatalf("first warning %+v, want %s", doc.Warnings, analysis.WarnFlakeRate)
	}
	for _, w := range doc.Warnings {
		switch w.Kind {
		case analysis.WarnFewTasks, analysis.WarnPermFloor, analysis.WarnNoDiscordant, analysis.WarnUnderpowered, analysis.WarnHolmFloor:
			if slices.Contains(w.Variants, "replay") {
				t.Errorf("%s warning about the A/A arm", w.Kind)
			}
		}
	}
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
	base := judged(analysistest.TasksOf("baseline", "PPFPPFPP"))
	same := judged(analysistest.TasksOf("replay", "PPFPPFPP"))
	in := analysis.Inputs{Baseline: "baseline", Replays: []string{"replay"}}
	a := analysis.Analyze(append(append(base[:0:0], base...), same...), in)
	if len(a.Flake) != 1 || a.Flake[0].Pairs != 8 || a.Flake[0].Differ != 0 || a.Flake[0].Rate != 0 ||
		a.Flake[0].Wilson[0] != 0 || a.Warning(analysis.WarnFlakeRate) != nil {
		t.Fatalf("identical replay: %+v %+v", a.Flake, a.Warnings)
	}
	// Wilson score interval (Wilson 1927; method 3 of Newcombe 1998, Stat. Med. 17:857), z = 1.96, worked by
	// hand from the closed form: 0 of 8 → [0, 0.3244].
	if hi := a.Flake[0].Wilson[1]; math.Abs(hi-0.3244) > 5e-5 {
		t.Errorf("0 of 8: Wilson upper %.4f, want 0.3244", hi)
	}
	if l := report.FlakeLine(a.Flake[0]); !strings.Contains(l, "0 of 8 pairs differ") {
		t.Errorf("line %q", l)
	}
	// One pass became a fail, one fail changed its failure mode.
	flaky := judged(analysistest.TasksOf("replay", "PFFPPFPP"))
	flaky[5].FailureMode = "gave_up"
	a = analysis.Analyze(append(append(base[:0:0], base...), flaky...), in)
	f := a.Flake[0]
	if f.Differ != 2 || f.Rate != 0.25 || len(f.Examples) != 2 || f.Examples[0] != "t1 rep 0: pass vs fail (loop)" ||
		f.Examples[1] != "t5 rep 0: fail (loop) vs fail (gave_up)" {
		t.Fatalf("flaky replay: %+v", f)
	}
	// 2 of 8 → [0.0715, 0.5907] (same reference as above).
	if math.Abs(f.Wilson[0]-0.0715) > 5e-5 || math.Abs(f.Wilson[1]-0.5907) > 5e-5 {
		t.Errorf("2 of 8: Wilson [%.4f, %.4f], want [0.0715, 0.5907]", f.Wilson[0], f.Wilson[1])
	}
	w := wordedWarning(a, analysis.WarnFlakeRate)
	if w == nil || !strings.Contains(w.Text, "differs from it on 2 of 8 pairs (25.0%") || !slices.Equal(w.Variants, []string{"replay"}) {
		t.Fatalf("warning %+v", w)
	}
	dir := t.TempDir()
	for _, format := range report.Formats() {
		r, _ := report.LookupRenderer(format)
		var b bytes.Buffer
		if err := r.Ablation(&b, &report.AblationReport{Dir: dir, Analysis: a, Records: append(base, flaky...)}); err != nil {
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
			// The replay arm is a testsuite marked as an A/A arm; its system-out and system-err carry the flake
			// rate and the warning, as the other formats print them.
			if !strings.Contains(out, `<testsuite name="replay"`) || !strings.Contains(out, `<property name="aa" value="true">`) {
				t.Errorf("junit report lacks the replay A/A suite:\n%s", out)
			}
		case "html":
			page, err := os.ReadFile(filepath.Join(dir, html.HTMLReportFile))
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
	base := analysistest.TasksOf("baseline", "PP")
	in := analysis.Inputs{Baseline: "baseline", Replays: []string{"replay"}}
	a := analysis.Analyze(base, in)
	if len(a.Flake) != 1 || a.Flake[0].Pairs != 0 || a.Warning(analysis.WarnFlakeRate) != nil {
		t.Fatalf("no pairs: %+v %+v", a.Flake, a.Warnings)
	}
	if l := report.FlakeLine(a.Flake[0]); !strings.Contains(l, "= n/a") || strings.Contains(l, "%") {
		t.Errorf("line %q", l)
	}
	var b bytes.Buffer
	if err := reportjson.JSONReport(&b, a); err != nil {
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
