package stats

import (
	"fmt"
	"math"
	"strconv"
)

// Pts formats a proportion difference as signed percentage points, "+18.2".
func Pts(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	s := fmt.Sprintf("%+.1f", 100*x)
	if s == "-0.0" || s == "+0.0" {
		return "0.0"
	}
	return s
}

// FmtP formats a p-value: 3 significant digits, "<0.0001" below that.
func FmtP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "n/a"
	case p < 1e-4:
		return "<0.0001"
	case p >= 0.9995:
		return "1"
	}
	return strconv.FormatFloat(p, 'g', 3, 64)
}

// Pct formats a rate as a percentage: whole percent when it is one, else one
// decimal.
func Pct(x float64) string {
	v := 100 * x
	if math.Abs(v-math.Round(v)) < 1e-9 {
		return fmt.Sprintf("%.0f%%", v)
	}
	return fmt.Sprintf("%.1f%%", v)
}
