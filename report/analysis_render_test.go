package report

import (
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
)

// Zero variance of the per-task differences: every task moved by +1.
func TestAnalyzeZeroVariance(t *testing.T) {
	a := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "FFFF"), analysistest.TasksOf("v", "PPPP")), analysis.Inputs{})
	c := a.Variants[0].All
	if c.Method != analysis.MethodPairedSignFlip || c.CI[1] != 1 || c.Delta != 1 {
		t.Fatalf("method %s Δ %v CI %v", c.Method, c.Delta, c.CI)
	}
	// Not the point [1, 1]: the adjusted interval over 4 + 2 tasks.
	analysistest.Approx(t, "CI lo", c.CI[0], 0.07026861405663576, 1e-9)
	analysistest.Approx(t, "P = 2/2^4", c.P, 0.125, 1e-12)
	if n := PairedNote(&c.Paired, "cluster"); n != "the differences have no spread (SE 0): the interval is the Laplace-adjusted Wald interval over tasks (Bonett & Price 2012), not the t interval" {
		t.Errorf("note = %q", n)
	}
	var sb strings.Builder
	if err := TerminalReport(&sb, a); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), "note: v (all common): the differences have no spread") {
		t.Errorf("terminal report lacks the fallback note:\n%s", sb.String())
	}
}

func TestGate(t *testing.T) {
	// Worse by 50 points on 12 tasks (6 broke): p 2/2^6, adjusted interval
	// [−0.755, −0.102].
	worse := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "PPPPPPPPPPPP"), analysistest.TasksOf("v", "FFFFFFPPPPPP")), analysis.Inputs{})
	analysistest.Approx(t, "Delta", worse.Variants[0].All.Delta, -0.5, 1e-12)
	failed, why := worse.Gate(0.05)
	if !failed || len(why) != 1 || why[0].Kind != analysis.GateWorse ||
		GateReasonText(why[0]) != "variant v is worse than base: Δ = -50.0 pts [-75.5, -10.2] is below -5.0 pts, its whole interval is below 0 and p_holm = 0.0312 is below 0.05" {
		t.Errorf("gate 0.05: %v %+v", failed, why)
	}
	// 5 of 10 tasks broke: the t approximation said p 0.015, the exact p is
	// 2/2^5 = 0.0625: not evidence, the gate passes.
	five := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "PPPPPPPPPP"), analysistest.TasksOf("v", "FFFFFPPPPP")), analysis.Inputs{})
	if failed, why := five.Gate(0.05); failed {
		t.Errorf("gate failed on 5 broken tasks (exact p 0.0625): %v", why)
	}
	if failed, _ := worse.Gate(0.6); failed {
		t.Error("gate failed although Δ = −0.5 is within a 0.6 margin")
	}
	// Worse by 20 points but the interval crosses 0: passes.
	unsure := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "PPPPPPPPPP"), analysistest.TasksOf("v", "FFPPPPPPPP")), analysis.Inputs{})
	c := unsure.Variants[0].All
	if !(c.Delta < -0.05 && c.CI[1] > 0) {
		t.Fatalf("setup: Δ %v CI %v", c.Delta, c.CI)
	}
	if failed, why := unsure.Gate(0.05); failed {
		t.Errorf("gate failed with an interval crossing 0: %v", why)
	}
	// Better: never fails.
	better := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "FFFFFPPPPP"), analysistest.TasksOf("v", "PPPPPPPPPP")), analysis.Inputs{})
	if failed, _ := better.Gate(0); failed {
		t.Error("gate failed for a better variant")
	}
	// Every task −1: p is the sign-flip p 2/2^G. With 4 tasks p = 0.125:
	// not evidence, the gate passes; with 6 tasks p = 0.03125 < 0.05: it fails.
	fourWorse := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "PPPP"), analysistest.TasksOf("v", "FFFF")), analysis.Inputs{FailIfWorse: 0.1})
	analysistest.Approx(t, "p 4 tasks", fourWorse.Variants[0].All.P, 0.125, 1e-12)
	if failed, why := fourWorse.Gate(0.1); failed {
		t.Errorf("gate failed on 4 tasks all −1 (sign-flip p 0.125): %v", why)
	}
	// Two such variants share the gate: Holm doubles the smaller p (0.0625 ≥ 0.05), so neither fails.
	twoWorse := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "PPPPPP"), analysistest.TasksOf("v", "FFFFFF"), analysistest.TasksOf("w", "FFFFFF")), analysis.Inputs{FailIfWorse: 0.1})
	analysistest.Approx(t, "p_holm of two", twoWorse.Variants[0].PHolm, 0.0625, 1e-12)
	if failed, why := twoWorse.Gate(0.1); failed {
		t.Errorf("gate failed on two variants with p 0.03125 each (Holm 0.0625): %v", why)
	}
	allWorse := analysis.Analyze(analysistest.Cat(analysistest.TasksOf("base", "PPPPPP"), analysistest.TasksOf("v", "FFFFFF")), analysis.Inputs{FailIfWorse: 0.1})
	analysistest.Approx(t, "p 6 tasks", allWorse.Variants[0].All.P, 0.03125, 1e-12)
	if failed, _ := allWorse.Gate(0.1); !failed {
		t.Error("gate passed with Δ = −1 on each of 6 tasks")
	}
	var sb strings.Builder
	if err := TerminalReport(&sb, allWorse); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), "FAILED. variant v is worse than base") {
		t.Errorf("terminal report lacks the gate verdict:\n%s", sb.String())
	}
}
