package stats

import (
	"math"
	"testing"
)

// PPIMean on a hand-computed case: 4 unaudited predictions (mean 0.5, variance 1/3), an audit of 4 whose
// rectifier y − f is (0, 1, 0, −1) (mean 0, variance 2/3).
func TestPPIMeanByHand(t *testing.T) {
	r := PPIMean([]float64{1, 1, 0, 0}, []float64{1, 0, 0, 1}, []float64{1, 0, 1, 0}, 0.95, 0, 1)
	// The rectifier's variance with the pseudo-observations −1 and +1: (0, 1, 0, −1, −1, 1) has mean 0 and
	// variance 4/5; the predictions' with 0 and 1, (0, 1, 1, 0, 1, 0), 3/10.
	v1, v2 := 0.3/4, 0.8/4
	se, df := math.Sqrt(v1+v2), (v1+v2)*(v1+v2)/(v1*v1/3+v2*v2/3)
	if !r.OK || r.Est != 0.5 || math.Abs(r.SE-se) > 1e-12 || math.Abs(r.DF-df) > 1e-9 || r.Lo != 0 || r.Hi != 1 {
		t.Errorf("%+v, want est 0.5 se %g df %g", r, se, df)
	}
	// A judge that passes everything (f = 1) on a population whose audit passes half: the rectifier −0.5
	// brings the estimate to the audit's rate.
	r = PPIMean([]float64{1, 0, 1, 0}, []float64{1, 1, 1, 1}, []float64{1, 1, 1, 1, 1, 1}, 0.95, 0, 1)
	if r.Est != 0.5 {
		t.Errorf("all-pass judge: %+v", r)
	}
	if r := PPIMean(nil, nil, []float64{1}, 0.95, 0, 1); r.OK {
		t.Errorf("no audit: %+v", r)
	}
	// Large degrees of freedom: the interval is the normal one.
	a := PPI{Est: 0.4, OK: true, Audited: 50, terms: [][2]float64{{0.0009, 1e9}}}
	b := PPI{Est: 0.5, OK: true, Audited: 50, terms: [][2]float64{{0.0016, 1e9}}}
	d := PPIDiff(a, b, 0.95)
	if math.Abs(d.Est-0.1) > 1e-12 || math.Abs(d.SE-0.05) > 1e-12 || math.Abs(d.Lo-(0.1-1.959964*0.05)) > 1e-6 {
		t.Errorf("diff %+v", d)
	}
	// An arm with one audited item: its rectifier term has no degree of freedom, so no interval.
	one := PPIMean([]float64{1}, []float64{0}, []float64{1, 0, 1}, 0.95, 0, 1)
	if d := PPIDiff(a, one, 0.95); d.OK || d.Why != PPIAuditTooSmall || d.Audited != 51 {
		t.Errorf("diff with a 1-item audit: %+v", d)
	}
	if d := PPIDiff(PPIMean(nil, nil, []float64{1}, 0.95, 0, 1), b, 0.95); d.OK || d.Why != PPINoAudit {
		t.Errorf("diff with no audit: %+v", d)
	}
}
