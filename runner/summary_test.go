package runner

import (
	"strings"
	"testing"

	"webbench/results"
)

// The run's summary and its progress lines count uncertain verdicts apart from errors: a pass, an
// uncertain record and an infrastructure error give passed 1, errors 1, uncertain 1, and the pass rate over the
// decided one.
func TestSummaryAndProgressCountUncertain(t *testing.T) {
	var out strings.Builder
	sc := &scheduler{sum: &Summary{}, prog: newProgress(&out, 3, 0), opts: Options{},
		g: newGate(Plan{}, Options{}, &results.ReadResult{Latest: map[string]results.Attempt{}})}
	for _, r := range []results.Attempt{
		{Status: results.StatusPass},
		{Status: results.StatusError, ErrorClass: results.ClassUncertain},
		{Status: results.StatusError, ErrorClass: results.ClassInfra},
	} {
		sc.record(r)
	}
	if s := *sc.sum; s.Ran != 3 || s.Passed != 1 || s.Errors != 1 || s.Uncertain != 1 {
		t.Errorf("summary %+v, want ran 3, passed 1, errors 1, uncertain 1", s)
	}
	if want := "progress: 3/3 attempts, pass rate 100.0% (1/1), errors 1, uncertain 1, ETA 0s\n"; !strings.HasSuffix(out.String(), want) {
		t.Errorf("progress output %q, want it to end %q", out.String(), want)
	}
}

// The cost budget is the run's: a resumed run counts its earlier records' spend (retries included), and one
// whose spend already reached --max-cost starts nothing, naming the cost budget.
func TestMaxCostCountsEarlierRecords(t *testing.T) {
	newSc := func(max float64) *scheduler {
		return &scheduler{sum: &Summary{}, opts: Options{MaxCostUSD: max},
			g: newGate(Plan{}, Options{}, &results.ReadResult{Latest: map[string]results.Attempt{}})}
	}
	prior := []results.Attempt{{CostUSD: 0.4}, {CostUSD: 0.35, Status: results.StatusError}, {CostUSD: 0.3}}
	sc := newSc(1)
	sc.countPriorSpend(prior)
	if got := float64(sc.spent.Load()) / 1e6; got < 1.049 || got > 1.051 || sc.g.stopped == "" || sc.g.budget != results.BudgetCost {
		t.Errorf("spent $%.3f, stopped %q (budget %q); want $1.05 and the cost budget reached", got, sc.g.stopped, sc.g.budget)
	}
	if sc.g.admit(Attempt{AttemptID: "next"}) {
		t.Error("an attempt started after the run's budget was spent")
	}
	sc = newSc(2)
	sc.countPriorSpend(prior)
	if sc.g.stopped != "" || !sc.g.admit(Attempt{AttemptID: "next"}) {
		t.Errorf("$1.05 of $2 spent: stopped %q", sc.g.stopped)
	}
}
