package analysis

import (
	"math"
	"testing"
)

// bisectMDE finds where a monotone condition starts to hold, to its tolerance, on either side of 0, and asks the
// condition as often as halving the bracket to the tolerance takes.
func TestBisectMDE(t *testing.T) {
	for _, c := range []struct{ lo, hi, tol, at float64 }{
		{0, 1, 0.005, 0.3217},            // a rise: the pass-rate MDE's bracket (0, room]
		{4, 8, 4.0 / 128, 5.1},           // the cost MDE's doubled bracket
		{-0.5, -0.75, 0.25 / 128, -0.61}, // a drop: ok from −0.61 down
	} {
		calls := 0
		ok := func(x float64) bool { calls++; return math.Abs(x) >= math.Abs(c.at) }
		got := bisectMDE(c.lo, c.hi, c.tol, ok)
		if math.Abs(got-c.at) > c.tol || math.Abs(got) < math.Abs(c.at) {
			t.Errorf("bisectMDE(%v, %v, %v) = %v, want within %v of %v on the side where ok holds", c.lo, c.hi, c.tol, got, c.tol, c.at)
		}
		if want := int(math.Ceil(math.Log2(math.Abs(c.hi-c.lo) / c.tol))); calls != want {
			t.Errorf("bisectMDE(%v, %v, %v): %d calls, want %d", c.lo, c.hi, c.tol, calls, want)
		}
	}
}
