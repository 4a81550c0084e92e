package junit

import (
	"fmt"
	"strings"

	"webbench/analysis"
	"webbench/report"
)

// junitCost adds the cost outcomes of variant v to its testsuite s: properties per outcome of the primary view
// (cost_OUTCOME_ratio, _ratio_ci_low, _ratio_ci_high — unbounded or undefined ends left out — _p, _p_holm and
// _verdict), the compact report's cost line on system-out, and, for each outcome the cost gate covers
// (Analysis.FailIfCostlier), a testcase "cost: OUTCOME" that fails when the gate fails it (the gate's line on
// system-err).
func junitCost(s *junitSuite, a *analysis.Analysis, v *analysis.VariantResult) {
	for i := range v.Costs {
		c := &v.Costs[i]
		m, k := c.Means, "cost_"+string(c.Outcome)
		vd := a.CostVerdictOf(v, c)
		for _, p := range []struct {
			name string
			x    float64
		}{{"_ratio", m.Ratio}, {"_ratio_ci_low", m.RatioCI[0]}, {"_ratio_ci_high", m.RatioCI[1]}, {"_p", m.P}, {"_p_holm", c.PHolm}} {
			if !isBad(p.x) {
				s.Properties = append(s.Properties, junitProperty{k + p.name, junitFloat(p.x)})
			}
		}
		s.Properties = append(s.Properties, junitProperty{k + "_verdict", report.CostVerdictText(vd)})
		if !vd.HasGate || v.AA {
			continue
		}
		tc := junitCase{Name: "cost: " + string(c.Outcome), Classname: v.Name, Time: junitSeconds(0)}
		if vd.Kind == analysis.CostVerdictGateFails {
			tc.Failure = &junitProblem{Type: "costlier", Message: report.CostVerdictText(vd),
				Text: fmt.Sprintf("%s is costlier than the baseline: %s", v.Name, report.CostVerdictText(vd))}
			s.Failures++
		}
		s.Cases = append(s.Cases, tc)
		s.Tests++
	}
	if l := report.CostLine(a, v); l != "" {
		s.SystemOut = junitText(strings.TrimSpace(string(s.SystemOut) + "\ncost: " + l))
	}
}

// isBad reports whether x is NaN or infinite (no JUnit property).
func isBad(x float64) bool { return x != x || x > 1e308 || x < -1e308 }
