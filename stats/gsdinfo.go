package stats

// Error-spending boundaries on the observed information (STATS.md
// "Sequential ablations"): the boundary of each look is computed when the
// look is taken, from the information actually accrued, so unequal and
// data-dependent increments (units that did not move add none) keep the
// design's level. Lan & DeMets 1983 (Biometrika 70:659) define the
// spending function on the information fraction for this reason; Jennison &
// Turnbull 2000 ("Group Sequential Methods with Applications to Clinical
// Trials", §7.2) show that the error-spending test keeps its level when the
// information levels are random but not influenced by the effect estimate,
// as here: under the sign-flip null the signs of the unit differences are
// independent of their sizes, so the information Σd² is ancillary.

import (
	"math"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"
)

// Spending is an alpha-spending function family: the cumulative share of a
// level spent by information fraction t ∈ [0, 1].
type Spending struct {
	// Family is "obf" (Lan–DeMets O'Brien–Fleming type, 2·(2 −
	// 2Φ(z_{1−a/4}/√t)) of level a, two-sided, as GSDBounds; gsDesign's
	// sfLDOF), "pocock" (Lan–DeMets Pocock type, a·ln(1 + (e − 1)·t);
	// sfLDPocock) or "power" (Kim & DeMets 1987, Biometrics 43:857,
	// a·t^Rho; sfPower); "" is SeqDefaultSpending.
	Family string
	// Rho is the power family's exponent (> 0).
	Rho float64
}

// SeqDefaultSpending is the spending of a design that names none: Kim &
// DeMets' a·t³, whose boundaries are close to O'Brien–Fleming's (Jennison &
// Turnbull 2000, §7.2.1) but spend a little more early; chosen by the
// simulation in STATS.md "Sequential ablations" (TestSeqSpendingStudy).
var SeqDefaultSpending = Spending{Family: "power", Rho: 3}

// String names the function, e.g. "O'Brien–Fleming-type", "Pocock-type", "Kim–DeMets α·t^3".
func (s Spending) String() string {
	if s.Family == "" {
		s = SeqDefaultSpending
	}
	switch s.Family {
	case "obf":
		return "O'Brien–Fleming-type"
	case "power":
		return "Kim–DeMets α·t^" + strconv.FormatFloat(s.Rho, 'g', -1, 64)
	case "pocock":
		return "Pocock-type"
	}
	return s.Family
}

// valid reports whether s names a known family (a power family with Rho > 0).
func (s Spending) valid() bool {
	switch s.Family {
	case "", "obf", "pocock":
		return true
	case "power":
		return s.Rho > 0
	}
	return false
}

// spent returns the cumulative error of level a spent by fraction t.
func (s Spending) spent(a, t float64) float64 {
	t = math.Max(0, math.Min(1, t))
	if t == 0 {
		return 0
	}
	if s.Family == "" {
		s = SeqDefaultSpending
	}
	switch s.Family {
	case "pocock":
		return a * math.Log(1+(math.E-1)*t)
	case "power":
		return a * math.Pow(t, s.Rho)
	}
	za := distuv.UnitNormal.Quantile(1 - a/4)
	return math.Min(a, 4*distuv.UnitNormal.Survival(za/math.Sqrt(t)))
}

// gsdGridSD is the grid step of the recursion, in standard deviations of
// the smallest increment between looks (Jennison & Turnbull ch. 19 use
// steps of this order).
const gsdGridSD = 0.25

// gsdRangeSD bounds the grid at ±8 SDs of the partial sum: the mass beyond
// (2Φ(−8) ≈ 1e-15) is below any spending target.
const gsdRangeSD = 8.0

// gsdLevel is the error-spending design of one level, updated look by look:
// the sub-density of the partial sum S = Σd on the continuation region, on
// the grid j·h (j = −m … m), times h.
type gsdLevel struct {
	a     float64
	spent float64
	f     []float64 // nil before the first look: S is 0 there
	c     float64   // the latest look's boundary on the z scale, gsdCap before any
}

func (g *gsdLevel) clone() *gsdLevel {
	c := *g
	c.f = append([]float64(nil), g.f...)
	return &c
}

// step takes a look at information info after an increment dI (> 0) since
// the previous look, spending up to the cumulative target: it sets the
// boundary c so that the null probability of first crossing ±c·√info here
// is target − spent (gsdCap when that is below 1e-15), and keeps the
// sub-density inside for the next look unless final. kern is the normal
// kernel of the increment on the grid (h·φ(jh/σ)/σ, j = −w … w); nil for
// an increment narrower than the grid resolves (only at the last look),
// where the crossing probability is integrated exactly against the normal
// CDF and c found by bisection.
func (g *gsdLevel) step(info, dI, target, h float64, kern []float64) {
	want := target - g.spent
	if kern == nil {
		g.c = g.finalBound(info, dI, h, want)
		return
	}
	dens := convolve(g.f, kern)
	m := (len(dens) - 1) / 2
	// tail[j] = mass at |y| ≥ j·h (both sides), outside in.
	tail := make([]float64, m+2)
	for j := m; j >= 0; j-- {
		tail[j] = tail[j+1] + dens[m+j]
		if j > 0 {
			tail[j] += dens[m-j]
		}
	}
	g.c = gsdCap
	edge := m // the continuation region keeps grid points |j| < edge
	if want > 1e-15 && want < tail[0] {
		// The mass of point j stands for [jh − h/2, jh + h/2]: the tail above y is linear between
		// y = (j+½)h (tail[j+1]) and (j−½)h (tail[j]).
		j := m
		for j > 0 && tail[j] <= want {
			j--
		}
		// tail[j] > want ≥ tail[j+1]
		frac := (tail[j] - want) / math.Max(1e-300, tail[j]-tail[j+1])
		y := (float64(j) - 0.5 + frac) * h
		g.c = math.Min(gsdCap, y/math.Sqrt(info))
		g.spent = target
		edge = j + 1
		if frac < 0.5 {
			edge = j
		}
	}
	lim := min(edge, int(math.Floor(gsdRangeSD*math.Sqrt(info)/h))+1)
	lim = min(lim, m+1)
	g.f = dens[m-lim+1 : m+lim]
}

// finalBound is the boundary of the last look: the c whose first-crossing
// probability from the sub-density g.f after an increment dI is want
// (gsdCap when want is below 1e-15), by bisection on the exact normal CDF.
func (g *gsdLevel) finalBound(info, dI, h, want float64) float64 {
	if want <= 1e-15 {
		return gsdCap
	}
	sd, si := math.Sqrt(dI), math.Sqrt(info)
	f := g.f
	if f == nil {
		f = []float64{1}
	}
	m := (len(f) - 1) / 2
	cross := func(c float64) float64 {
		p := 0.0
		for i, w := range f {
			x := float64(i-m) * h
			p += w * (distuv.UnitNormal.CDF((-c*si-x)/sd) + distuv.UnitNormal.Survival((c*si-x)/sd))
		}
		return p
	}
	c := bisectBound(cross, want, 1e-5)
	g.spent += cross(c)
	return c
}

// convolve returns f (centred, nil for a point mass at 0) convolved with
// kern (centred), centred: len(f) + len(kern) − 1 points.
func convolve(f, kern []float64) []float64 {
	if f == nil {
		return append([]float64(nil), kern...)
	}
	out := make([]float64, len(f)+len(kern)-1)
	for i, w := range f {
		if w == 0 {
			continue
		}
		o := out[i : i+len(kern)]
		for j, k := range kern {
			o[j] += w * k
		}
	}
	return out
}

// normalKernel is h·φ(jh/σ)/σ for j = −w … w, w = ⌈gsdKernelSD·σ/h⌉.
func normalKernel(sigma, h float64) []float64 {
	w := int(math.Ceil(gsdKernelSD * sigma / h))
	out := make([]float64, 2*w+1)
	for j := -w; j <= w; j++ {
		x := float64(j) * h / sigma
		out[j+w] = h * math.Exp(-x*x/2) / (sigma * math.Sqrt(2*math.Pi))
	}
	return out
}
