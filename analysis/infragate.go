package analysis

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"webbench/results"
)

// InfraGateFraction is the share of a run's attempts that may end in infrastructure errors after retries: above it
// the infrastructure gate fails (bench run, bench ablate and bench report --gate exit 3), since such a run cannot
// answer its question, whatever its pass rates say (STATS.md warns above 10 %, InfraWarnFraction).
const InfraGateFraction = 0.10

// InfraGate is the infrastructure gate's decision on a run's final attempts (CheckInfra): Infra of Attempts ended
// in infrastructure errors (status error, class infra); Failed when that is more than InfraGateFraction of them.
// Causes are the infrastructure errors grouped by cause, most first (InfraCauses).
type InfraGate struct {
	Infra, Attempts int
	Failed          bool
	Causes          []ErrorCause
}

// ErrorCause is one cause of errored attempts: Text, the error as recorded with its numbers (ports, ids,
// durations) masked to "N", so one cause on many attempts is one group; N the attempts it ended; Example one
// attempt's own text.
type ErrorCause struct {
	Text, Example string
	N             int
}

// digitsRe matches the runs of digits that differ between attempts of one cause.
var digitsRe = regexp.MustCompile(`[0-9]+`)

// InfraCauses groups the errors of recs that pass keep, most attempts first (ties by text).
func InfraCauses(recs []results.Attempt, keep func(results.Attempt) bool) []ErrorCause {
	idx := map[string]int{}
	var out []ErrorCause
	for _, r := range recs {
		if !keep(r) {
			continue
		}
		msg := cmp.Or(r.Error, "(no error text recorded)")
		key := digitsRe.ReplaceAllString(msg, "N")
		i, ok := idx[key]
		if !ok {
			i = len(out)
			idx[key] = i
			out = append(out, ErrorCause{Text: key, Example: msg})
		}
		out[i].N++
	}
	slices.SortStableFunc(out, func(a, b ErrorCause) int { return cmp.Or(b.N-a.N, strings.Compare(a.Text, b.Text)) })
	return out
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
	g.Causes = InfraCauses(recs, func(r results.Attempt) bool {
		return r.Status == results.StatusError && r.ErrorClass == results.ClassInfra
	})
	return g
}

// DominantCause is the one error that ended most of recs' attempts (a run's final attempts), when there is one:
// the errors of the attempts that did not pass, grouped as InfraCauses groups them, and ok when the largest
// group holds more than half of recs. Such a run measured that cause (an agent command that crashes, a site that
// is down), not the agent, and the terminal says so.
func DominantCause(recs []results.Attempt) (ErrorCause, bool) {
	cs := InfraCauses(recs, func(r results.Attempt) bool { return r.Status != results.StatusPass && r.Error != "" })
	if len(cs) == 0 || 2*cs[0].N <= len(recs) {
		return ErrorCause{}, false
	}
	return cs[0], true
}
