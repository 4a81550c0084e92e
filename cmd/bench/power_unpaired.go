package main

import (
	"errors"
	"math"

	"github.com/spf13/cobra"

	"webbench/analysis"
	"webbench/report"
)

// unpairedFigures prints the unpaired mode's table (analysis.PlanUnpaired, report.UnpairedPlan); a usage error
// when the paired figures lack or contradict ψ.
func unpairedFigures(c *cobra.Command, in analysis.UnpairedInputs) error {
	p, err := analysis.PlanUnpaired(in)
	var de *analysis.DiscordantError
	switch {
	case errors.As(err, &de) && de.Discordant <= 0:
		return usageErr("--paired needs --discordant ψ (share of pairs whose outcomes differ)")
	case errors.As(err, &de):
		return usageErr("--discordant %.3f is smaller than the effect %.3f", de.Discordant, math.Abs(de.Effect))
	case err != nil:
		return err
	}
	return report.UnpairedPlan(c.OutOrStdout(), p)
}
