package bench

import (
	"math"
	"sort"
	"time"
)

// Median is the median of xs (the mean of the middle two for an even count); NaN for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Quantile is the nearest-rank q-quantile of xs (q in (0,1]): the smallest value with at least q·n values at
// or below it (Hyndman & Fan definition 1); NaN for none. Quantile(xs, 0.9) is the p90 the tables report.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	k := int(math.Ceil(q*float64(len(s)))) - 1
	k = max(0, min(k, len(s)-1))
	return s[k]
}

// ms is a duration in float milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Dist summarises latency samples in milliseconds.
type Dist struct {
	// N is the number of samples; MedianMS and P90MS (nearest rank) summarise SamplesMS.
	N         int       `json:"n"`
	MedianMS  float64   `json:"median_ms"`
	P90MS     float64   `json:"p90_ms"`
	SamplesMS []float64 `json:"samples_ms"`
}

// NewDist summarises samples (milliseconds).
func NewDist(samples []float64) Dist {
	return Dist{N: len(samples), MedianMS: Median(samples), P90MS: Quantile(samples, 0.9), SamplesMS: samples}
}
