package analysis

import "webbench/results"

// InfraGateFraction is the share of a run's attempts that may end in infrastructure errors after retries: above it
// the infrastructure gate fails (bench run, bench ablate and bench report --gate exit 3), since such a run cannot
// answer its question, whatever its pass rates say (STATS.md warns above 10 %, InfraWarnFraction).
const InfraGateFraction = 0.10

// InfraGate is the infrastructure gate's decision on a run's final attempts (CheckInfra): Infra of Attempts ended
// in infrastructure errors (status error, class infra); Failed when that is more than InfraGateFraction of them.
type InfraGate struct {
	Infra, Attempts int
	Failed          bool
}

// CheckInfra decides the infrastructure gate on recs, a run's final attempts (results.Run.Final).
func CheckInfra(recs []results.Attempt) InfraGate {
	g := InfraGate{Attempts: len(recs)}
	for _, r := range recs {
		if r.Status == results.StatusError && r.ErrorClass == results.ClassInfra {
			g.Infra++
		}
	}
	g.Failed = g.Attempts > 0 && float64(g.Infra) > InfraGateFraction*float64(g.Attempts)
	return g
}
