package json

import (
	"webbench/analysis"
	"webbench/report"
	"webbench/results"
)

// jsonSeq is a sequential run's outcome in jsonDoc (analysis.SeqResult).
type jsonSeq struct {
	Alpha       float64               `json:"alpha"`
	MinEffect   float64               `json:"min_effect"`
	Unit        string                `json:"unit"`
	Units       int                   `json:"units"`
	Looked      int                   `json:"looked"`
	Planned     int                   `json:"planned"`
	Saved       int                   `json:"saved"`
	SavedTokens *float64              `json:"saved_tokens"`
	SavedCost   *float64              `json:"saved_cost_usd"`
	Budget      *string               `json:"budget"`
	Budgets     *results.Budgets      `json:"budgets"`
	ShardBudget []results.ShardBudget `json:"shard_budgets"`
	ShardStops  []results.SeqSkip     `json:"shard_stops"`
	Header      string                `json:"header"`
	Variants    []jsonSeqVariant      `json:"variants"`
	Baseline    jsonSeqVariant        `json:"baseline"`
}

// jsonSeqVariant is one arm of jsonSeq.
type jsonSeqVariant struct {
	Name     string      `json:"name"`
	Stop     *string     `json:"stop"`
	Decision string      `json:"decision,omitempty"`
	At       *int        `json:"at"`
	OwnAt    *int        `json:"own_at"`
	Units    int         `json:"units"`
	Looked   int         `json:"looked_units"`
	Mean     *float64    `json:"mean"`
	CS       *[2]float64 `json:"repeated_ci"`
	P        *float64    `json:"repeated_p"`
	Planned  int         `json:"planned"`
	Saved    int         `json:"saved"`
	Tokens   *float64    `json:"saved_tokens"`
	Cost     *float64    `json:"saved_cost_usd"`
}

// jsonSeqOf is a's sequential outcome for jsonDoc (nil for a fixed-size run).
func jsonSeqOf(a *analysis.Analysis) *jsonSeq {
	s := a.Sequential
	if s == nil {
		return nil
	}
	d := &jsonSeq{Alpha: s.Alpha, MinEffect: s.MinEffect, Unit: a.ClusterUnit, Units: s.Units, Looked: s.Looked,
		Planned: s.Planned, Saved: s.Saved, Header: report.SeqHeader(a), Variants: []jsonSeqVariant{}}
	if s.TokensKnown {
		d.SavedTokens = fptr(s.SavedTokens)
	}
	if s.CostKnown {
		d.SavedCost = fptr(s.SavedCostUSD)
	}
	if s.Budget != "" {
		d.Budget = &s.Budget
	}
	d.Budgets, d.ShardBudget, d.ShardStops = s.Budgets, s.ShardBudgets, s.ShardStops
	if d.ShardBudget == nil {
		d.ShardBudget = []results.ShardBudget{}
	}
	if d.ShardStops == nil {
		d.ShardStops = []results.SeqSkip{}
	}
	arm := func(v *analysis.SeqVariant, decided bool) jsonSeqVariant {
		j := jsonSeqVariant{Name: v.Variant, Units: v.Units, Looked: v.Look.N, Planned: v.Planned, Saved: v.Saved}
		if decided {
			stop := string(v.Stop)
			j.Stop = &stop
			j.Decision = report.SeqStopText(v.Stop, s.MinEffect)
			if v.At > 0 {
				at, own := v.At, v.OwnAt
				j.At, j.OwnAt = &at, &own
			}
			if v.Look.N > 0 {
				j.Mean, j.P = fptr(v.Look.Mean), fptr(v.Look.P)
				j.CS = &[2]float64{v.Look.Lo, v.Look.Hi}
			}
		}
		if v.SavedTokens > 0 {
			j.Tokens = fptr(v.SavedTokens)
		}
		if v.SavedCostUSD > 0 {
			j.Cost = fptr(v.SavedCostUSD)
		}
		return j
	}
	for i := range s.Variants {
		d.Variants = append(d.Variants, arm(&s.Variants[i], true))
	}
	d.Baseline = arm(&s.Baseline, false)
	return d
}
