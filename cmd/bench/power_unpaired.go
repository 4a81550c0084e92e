package main

import (
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"webbench/results"
	"webbench/stats"
)

// unpairedOpts are bench power's unpaired (legacy) mode: baseline and target pass rates, α and power, the
// runs per arm n for an MDE, and the paired (McNemar) design with its discordant share psi.
type unpairedOpts struct {
	base, target, alpha, power, psi float64
	n                               int
	paired                          bool
}

// unpairedFigures prints the unpaired mode's table: with a target the runs per arm (and pairs) needed and the
// exact power there, with n the MDE at n; a usage error when the paired figures lack or contradict ψ.
func unpairedFigures(c *cobra.Command, u unpairedOpts, hasTarget bool) error {
	t := results.Table{Header: []string{"quantity", "value"}}
	add := func(k, v string) { t.Rows = append(t.Rows, []string{k, v}) }
	add("alpha / power", fmt.Sprintf("%.3g / %.3g", u.alpha, u.power))
	add("baseline pass rate", fmt.Sprintf("%.3f", u.base))
	if hasTarget {
		add("target pass rate", fmt.Sprintf("%.3f (effect %+.3f)", u.target, u.target-u.base))
		if u.paired {
			if u.psi <= 0 {
				return usageErr("--paired needs --discordant ψ (share of pairs whose outcomes differ)")
			}
			d := u.target - u.base
			p10, p01 := (u.psi+d)/2, (u.psi-d)/2
			if p10 < 0 || p01 < 0 {
				return usageErr("--discordant %.3f is smaller than the effect %.3f", u.psi, math.Abs(d))
			}
			np := stats.NPairedMcNemar(p10, p01, u.alpha, u.power)
			add("pairs needed (McNemar, Connor 1987)", fmt.Sprintf("%.1f → %d", np, int(math.Ceil(np))))
		}
		nu := stats.NUnpaired(u.base, u.target, u.alpha, u.power)
		add("runs per arm (unpaired, normal approx.)", fmt.Sprintf("%.1f → %d", nu, int(math.Ceil(nu))))
		if !math.IsInf(nu, 0) && nu < 5000 {
			k := int(math.Ceil(nu))
			add(fmt.Sprintf("exact power at %d per arm (one-sided Fisher)", k),
				fmt.Sprintf("%.3f", stats.ExactPowerFisher(u.base, u.target, k, u.alpha)))
		}
		if u.base < 1 && u.target == 1 {
			m := stats.MinRunsZeroFailures(1-u.base, u.alpha)
			add("runs for a clean 0-failure arm to be significant", fmt.Sprintf("%d ((%.2f)^%d = %.4f)", m, u.base, m,
				stats.ProbZeroFailures(1-u.base, m)))
		}
	}
	if u.n > 0 {
		if hasTarget {
			add(fmt.Sprintf("exact power at n=%d per arm", u.n), fmt.Sprintf("%.3f", stats.ExactPowerFisher(u.base, u.target, u.n, u.alpha)))
		}
		mde := stats.MDEUnpaired(u.base, u.n, u.alpha, u.power)
		if math.IsNaN(mde) {
			add(fmt.Sprintf("MDE at n=%d per arm", u.n), "none reachable")
		} else {
			add(fmt.Sprintf("MDE at n=%d per arm (unpaired)", u.n), fmt.Sprintf("%.3f", mde))
		}
		if u.paired && u.psi > 0 {
			if m := stats.MDEPaired(u.psi, u.n, u.alpha, u.power); !math.IsNaN(m) {
				add(fmt.Sprintf("MDE at %d pairs, ψ=%.2f (McNemar)", u.n, u.psi), fmt.Sprintf("%.3f", m))
			}
		}
	}
	return t.Render(c.OutOrStdout())
}
