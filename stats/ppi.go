package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// PPI is a prediction-powered estimate of a mean (Angelopoulos, Bates, Fannjiang, Jordan and Zrnic,
// "Prediction-powered inference", Science 382, 2023; the mean estimator of its ppi_py package, ppi_mean_ci, with
// λ = 1): Est = mean(f over the unaudited items) + mean(y − f over the audited items) — the judge's rate,
// rectified by its mean error on the audit — and SE = √(var(f_unaudited)/N + var(y − f)/n), sample variances
// (with a pseudo-observation at each end of the range, see PPIMean).
// The estimate and the interval Est ± q·SE are clipped to the range given, q the Student t quantile with the Welch–Satterthwaite
// degrees of freedom of the two variance terms (the paper's normal quantile undercovers a little with audits
// of 50: 0.945 in the calibration; the t quantile tends to it as the audit grows). With no unaudited item, Est
// is the audit's mean, SE its standard error and the interval Wilson's; with no audited item, not OK.
type PPI struct {
	// Est is the estimate; SE its standard error; Lo, Hi the interval Est ± q·SE (clipped).
	Est float64 `json:"est"`
	SE  float64 `json:"se"`
	Lo  float64 `json:"lo"`
	Hi  float64 `json:"hi"`
	// DF is the Welch–Satterthwaite degrees of freedom of SE (0 when SE is 0: the normal quantile is used).
	DF float64 `json:"df"`
	// N is the number of unaudited items, Audited the audit's size.
	N       int `json:"n"`
	Audited int `json:"audited"`
	// OK is false when the estimate is undefined; Why then says why.
	OK  bool   `json:"ok"`
	Why PPIWhy `json:"why,omitempty"`
	// terms are SE²'s variance terms and their degrees of freedom (for PPIDiff's DF).
	terms [][2]float64
}

// PPIWhy is why a PPI estimate is undefined.
type PPIWhy string

// Reasons for an undefined PPI.
const (
	// PPINoAudit: no audited item (or predictions not matching the audit).
	PPINoAudit PPIWhy = "no_audit"
	// PPIAuditTooSmall: PPIDiff with fewer than two audited items in an arm, whose rectifier variance has no
	// degree of freedom.
	PPIAuditTooSmall PPIWhy = "audit_too_small"
)

// PPIMean is the prediction-powered estimate of the mean of y (see PPI): y are the trusted values of the
// audited items, fl the predictions (the judge's verdicts: 1 pass, 0 fail, 0.5 undecided) on them, fu the
// predictions on the unaudited items; conf the interval's confidence (0.95), lo and hi the range the interval
// is clipped to ([0, 1] for a rate). len(fl) must equal len(y).
func PPIMean(y, fl, fu []float64, conf, lo, hi float64) PPI {
	n := len(y)
	if n == 0 || len(fl) != n {
		return PPI{N: len(fu), Audited: n, Why: PPINoAudit}
	}
	rect := make([]float64, n)
	for i := range y {
		rect[i] = y[i] - fl[i]
	}
	r := PPI{N: len(fu), Audited: n, OK: true}
	// The variances are taken with a pseudo-observation at each end of the values' range added
	// (Agresti and Coull's "add two" for a binomial; Agresti and Caffo 2000 for a difference): the judge's
	// errors are rare events, and their sample variance alone makes the Wald interval undercover.
	if len(fu) == 0 {
		// Everything audited: the audit's own rate, with Wilson's interval (a binomial proportion).
		r.Est = ppiMean(y)
		r.terms = [][2]float64{{sampleVar(append([]float64{0, 1}, y...)) / float64(n), float64(n - 1)}}
		r.finish(conf, lo, hi)
		k := 0
		for _, v := range y {
			if v == 1 {
				k++
			} else if v != 0 {
				return r
			}
		}
		r.Lo, r.Hi = Wilson(k, n, distuv.UnitNormal.Quantile(1-(1-conf)/2))
		return r
	}
	r.Est = ppiMean(fu) + ppiMean(rect)
	r.terms = [][2]float64{{sampleVar(append([]float64{0, 1}, fu...)) / float64(len(fu)), float64(len(fu) - 1)},
		{sampleVar(append([]float64{-1, 1}, rect...)) / float64(n), float64(n - 1)}}
	r.finish(conf, lo, hi)
	return r
}

// finish sets SE, DF and the interval from r's terms.
func (r *PPI) finish(conf, lo, hi float64) {
	v, den := 0.0, 0.0
	for _, t := range r.terms {
		v += t[0]
		if t[1] > 0 {
			den += t[0] * t[0] / t[1]
		}
	}
	r.SE = math.Sqrt(v)
	r.DF = 0
	if den > 0 {
		r.DF = v * v / den
	}
	q := distuv.UnitNormal.Quantile(1 - (1-conf)/2)
	if r.DF >= 1 {
		q = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}.Quantile(1 - (1-conf)/2)
	}
	r.Lo, r.Hi = math.Max(lo, r.Est-q*r.SE), math.Min(hi, r.Est+q*r.SE)
	// The rectified estimate can leave the range (a rate below 0 when the audit finds more false passes than
	// the judge's rate allows): it is clipped too, as the interval.
	r.Est = math.Min(hi, math.Max(lo, r.Est))
	r.Lo, r.Hi = math.Min(r.Lo, r.Est), math.Max(r.Hi, r.Est)
}

// PPIDiff is the difference b − a of two independent prediction-powered estimates (two arms' corrected pass
// rates): its estimate, SE = √(SE_a² + SE_b²), Welch–Satterthwaite DF over all four variance terms, and the
// interval at confidence conf (clipped to [−1, 1]). OK only when both are and each has at least two audited
// items (with one, its rectifier's variance term has no degree of freedom and the t quantile is undefined):
// else Why is the first arm's reason, or PPIAuditTooSmall.
func PPIDiff(a, b PPI, conf float64) PPI {
	n, aud := a.N+b.N, a.Audited+b.Audited
	switch {
	case !a.OK:
		return PPI{N: n, Audited: aud, Why: a.Why}
	case !b.OK:
		return PPI{N: n, Audited: aud, Why: b.Why}
	case a.Audited < 2 || b.Audited < 2:
		return PPI{N: n, Audited: aud, Why: PPIAuditTooSmall}
	}
	d := PPI{Est: b.Est - a.Est, N: a.N + b.N, Audited: a.Audited + b.Audited, OK: true}
	d.terms = append(append([][2]float64{}, a.terms...), b.terms...)
	d.finish(conf, -1, 1)
	return d
}

func ppiMean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// sampleVar is the sample variance (n − 1 in the denominator; 0 for fewer than two values).
func sampleVar(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	m := ppiMean(x)
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return s / float64(len(x)-1)
}
