package stats

import (
	"math"
	"testing"
)

// TestGSDBoundsReference checks the boundaries against gsDesign's
// Lan–DeMets O'Brien–Fleming values (sfLDOF, two-sided symmetric, α = 0.05).
func TestGSDBoundsReference(t *testing.T) {
	got := GSDBounds(0.05, 5)
	want := []float64{4.877, 3.357, 2.680, 2.290, 2.031}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 0.005 {
			t.Fatalf("GSDBounds(0.05, 5) = %.4f, want %v", got, want)
		}
	}
	// One look is the fixed test.
	if c := GSDBounds(0.05, 1); math.Abs(c[0]-Z95) > 1e-4 {
		t.Fatalf("one look: %v, want %v", c, Z95)
	}
}
