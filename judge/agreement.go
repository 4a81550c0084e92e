package judge

import (
	"math"
	"slices"
)

// CohenKappa is Cohen's κ (Cohen, 1960) between two judges' pass/fail verdicts on the same attempts: a[i] and
// b[i] are the two verdicts of attempt i. κ = (po − pe) / (1 − pe), po the observed agreement, pe the
// agreement expected by chance from each judge's pass rate. table is the confusion table with index 0 = pass,
// 1 = fail: table[0][0] both pass, table[0][1] a pass and b fail, table[1][0] a fail and b pass, table[1][1]
// both fail.
//
// κ is NaN when it is undefined: no pairs, slices of different lengths (table is then all zero), or pe = 1
// (both judges gave one and the same verdict to every attempt, so chance agreement is already perfect).
func CohenKappa(a, b []bool) (kappa float64, table [2][2]int) {
	if len(a) != len(b) || len(a) == 0 {
		return math.NaN(), table
	}
	idx := func(v bool) int {
		if v {
			return 0
		}
		return 1
	}
	for i := range a {
		table[idx(a[i])][idx(b[i])]++
	}
	return kappaOf(table), table
}

func kappaOf(t [2][2]int) float64 {
	n := float64(t[0][0] + t[0][1] + t[1][0] + t[1][1])
	if n == 0 {
		return math.NaN()
	}
	po := float64(t[0][0]+t[1][1]) / n
	aPass, bPass := float64(t[0][0]+t[0][1])/n, float64(t[0][0]+t[1][0])/n
	pe := aPass*bPass + (1-aPass)*(1-bPass)
	if pe >= 1 {
		return math.NaN()
	}
	return (po - pe) / (1 - pe)
}

// Agreement summarises two judges' agreement on the same attempts. It encodes to JSON (undefined values are
// null, never NaN).
type Agreement struct {
	// N is the number of attempts both judged.
	N int `json:"n"`
	// Table is CohenKappa's confusion table (index 0 pass, 1 fail; rows judge A, columns judge B).
	Table [2][2]int `json:"table"`
	// Observed is po, the share of attempts with the same verdict; Chance is pe (both 0 when N is 0).
	Observed float64 `json:"observed"`
	Chance   float64 `json:"chance"`
	// Kappa is Cohen's κ, nil when undefined (see CohenKappa); SE is its large-sample standard error under
	// Cohen's (1960) approximation sqrt(po(1−po) / (N (1−pe)²)), nil when κ is.
	Kappa *float64 `json:"kappa"`
	SE    *float64 `json:"se"`
	// PassA and PassB are each judge's pass rate (0 when N is 0).
	PassA float64 `json:"pass_a"`
	PassB float64 `json:"pass_b"`
}

// CompareJudges computes the Agreement of verdicts a and b (paired by index; see CohenKappa).
func CompareJudges(a, b []bool) Agreement {
	k, t := CohenKappa(a, b)
	n := t[0][0] + t[0][1] + t[1][0] + t[1][1]
	ag := Agreement{N: n, Table: t}
	if n == 0 {
		return ag
	}
	fn := float64(n)
	ag.Observed = float64(t[0][0]+t[1][1]) / fn
	ag.PassA, ag.PassB = float64(t[0][0]+t[0][1])/fn, float64(t[0][0]+t[1][0])/fn
	ag.Chance = ag.PassA*ag.PassB + (1-ag.PassA)*(1-ag.PassB)
	if !math.IsNaN(k) {
		se := math.Sqrt(ag.Observed * (1 - ag.Observed) / (fn * (1 - ag.Chance) * (1 - ag.Chance)))
		ag.Kappa, ag.SE = &k, &se
	}
	return ag
}

// Paired is two judges' verdicts on the same attempts, paired by attempt id (PairVerdicts) for CompareJudges.
type Paired struct {
	// IDs are the attempts both judges decided (pass or fail), sorted; A[i] and B[i] are judge A's and judge
	// B's verdicts of IDs[i] (true = pass).
	IDs  []string
	A, B []bool
	// The attempts left out: MissingA have a verdict of judge B only, MissingB of judge A only; Errors a judge
	// error of either judge; Uncertain an uncertain verdict of either judge and no judge error.
	MissingA, MissingB, Errors, Uncertain int
}

// Skipped is the number of attempts left out of the pairs: missing on one side, a judge error or uncertain.
func (p Paired) Skipped() int { return p.MissingA + p.MissingB + p.Errors + p.Uncertain }

// PairVerdicts pairs the verdicts a and b of two judges (by attempt id) over every attempt either judged:
// the attempts both decided go into IDs, A and B; the others are counted by why they were left out (Paired).
// Neither an uncertain verdict nor a judge error is a pass or a fail, so neither is paired.
func PairVerdicts(a, b map[string]Verdict) Paired {
	ids := make([]string, 0, len(a)+len(b))
	for id := range a {
		ids = append(ids, id)
	}
	for id := range b {
		if _, ok := a[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var p Paired
	for _, id := range ids {
		x, okA := a[id]
		y, okB := b[id]
		switch {
		case !okA:
			p.MissingA++
		case !okB:
			p.MissingB++
		case x.Outcome() == "error" || y.Outcome() == "error":
			p.Errors++
		case x.Uncertain || y.Uncertain:
			p.Uncertain++
		default:
			p.IDs, p.A, p.B = append(p.IDs, id), append(p.A, x.Pass), append(p.B, y.Pass)
		}
	}
	return p
}
