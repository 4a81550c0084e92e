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
	sc := &scheduler{sum: &Summary{}, prog: newProgress(&out, 3, 0), opts: Options{}}
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
