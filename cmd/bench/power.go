package main

import (
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"webbench/ablation"
	"webbench/results"
)

func init() { extraCommands = append(extraCommands, powerCmd) }

func powerCmd() *cobra.Command {
	var base, target, alpha, power, psi float64
	var n int
	var paired bool
	c := &cobra.Command{
		Use:   "power",
		Short: "Sample-size planner: runs per arm (or pairs) for an effect, or the MDE for a given N",
		Long: "Rates are pass rates in [0,1]. With --target: the runs per arm needed to detect base→target (normal\n" +
			"approximation, STATS.md) and the exact one-sided Fisher power at that N; with --paired and --discordant ψ\n" +
			"the number of pairs (McNemar, Connor 1987). With --n: the minimum detectable effect at that N and, with\n" +
			"--target, the exact power at N.",
		Example: "  bench power --base 0.82 --target 1.0           # runs per arm for 82%→100%\n" +
			"  bench power --base 0.82 --target 1.0 --n 11    # exact power at 11 runs per arm\n" +
			"  bench power --base 0.82 --n 40                 # MDE at 40 runs per arm\n" +
			"  bench power --paired --discordant 0.2 --base 0.8 --target 0.9",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if base < 0 || base > 1 || target < -1 || target > 1 {
				return usageErr("--base and --target are pass rates in [0,1]")
			}
			if alpha <= 0 || alpha >= 1 || power <= 0 || power >= 1 {
				return usageErr("--alpha and --power must be in (0,1)")
			}
			hasTarget := c.Flags().Changed("target")
			if !hasTarget && n <= 0 {
				return usageErr("give --target (for a sample size) or --n (for the MDE)")
			}
			t := results.Table{Header: []string{"quantity", "value"}}
			add := func(k, v string) { t.Rows = append(t.Rows, []string{k, v}) }
			add("alpha / power", fmt.Sprintf("%.3g / %.3g", alpha, power))
			add("baseline pass rate", fmt.Sprintf("%.3f", base))
			if hasTarget {
				add("target pass rate", fmt.Sprintf("%.3f (effect %+.3f)", target, target-base))
				if paired {
					if psi <= 0 {
						return usageErr("--paired needs --discordant ψ (share of pairs whose outcomes differ)")
					}
					d := target - base
					p10, p01 := (psi+d)/2, (psi-d)/2
					if p10 < 0 || p01 < 0 {
						return usageErr("--discordant %.3f is smaller than the effect %.3f", psi, math.Abs(d))
					}
					np := ablation.NPairedMcNemar(p10, p01, alpha, power)
					add("pairs needed (McNemar, Connor 1987)", fmt.Sprintf("%.1f → %d", np, int(math.Ceil(np))))
				}
				nu := ablation.NUnpaired(base, target, alpha, power)
				add("runs per arm (unpaired, normal approx.)", fmt.Sprintf("%.1f → %d", nu, int(math.Ceil(nu))))
				if !math.IsInf(nu, 0) && nu < 5000 {
					k := int(math.Ceil(nu))
					add(fmt.Sprintf("exact power at %d per arm (one-sided Fisher)", k),
						fmt.Sprintf("%.3f", ablation.ExactPowerFisher(base, target, k, alpha)))
				}
				if base < 1 && target == 1 {
					m := ablation.MinRunsZeroFailures(1-base, alpha)
					add("runs for a clean 0-failure arm to be significant", fmt.Sprintf("%d ((%.2f)^%d = %.4f)", m, base, m,
						ablation.ProbZeroFailures(1-base, m)))
				}
			}
			if n > 0 {
				if hasTarget {
					add(fmt.Sprintf("exact power at n=%d per arm", n), fmt.Sprintf("%.3f", ablation.ExactPowerFisher(base, target, n, alpha)))
				}
				mde := ablation.MDEUnpaired(base, n, alpha, power)
				if math.IsNaN(mde) {
					add(fmt.Sprintf("MDE at n=%d per arm", n), "none reachable")
				} else {
					add(fmt.Sprintf("MDE at n=%d per arm (unpaired)", n), fmt.Sprintf("%.3f", mde))
				}
				if paired && psi > 0 {
					if m := ablation.MDEPaired(psi, n, alpha, power); !math.IsNaN(m) {
						add(fmt.Sprintf("MDE at %d pairs, ψ=%.2f (McNemar)", n, psi), fmt.Sprintf("%.3f", m))
					}
				}
			}
			return t.Render(c.OutOrStdout())
		},
	}
	c.Flags().Float64Var(&base, "base", 0.8, "baseline pass rate")
	c.Flags().Float64Var(&target, "target", 0, "variant pass rate to detect")
	c.Flags().Float64Var(&alpha, "alpha", 0.05, "significance level")
	c.Flags().Float64Var(&power, "power", 0.8, "power")
	c.Flags().IntVar(&n, "n", 0, "runs per arm (or pairs) → MDE")
	c.Flags().BoolVar(&paired, "paired", false, "paired design (McNemar)")
	c.Flags().Float64Var(&psi, "discordant", 0, "expected share of discordant pairs ψ for the paired design")
	return c
}
