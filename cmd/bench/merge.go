package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"webbench/analysis"
	"webbench/results"
)

func init() { extraCommands = append(extraCommands, mergeCmd) }

func mergeCmd() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "merge --out DIR SHARD_DIR...",
		Short: "Join shard run directories of one plan into one run directory",
		Long: "Refuses shards of different plans (suite, suite options, tasks, reps, variants, seed, ablation\n" +
			"parameters). Records are appended in shard order (those already in --out are skipped, so merging again\n" +
			"adds only new ones); trajectories, screenshots and traces are copied; re-judged verdicts\n" +
			"(verdicts-<judge>.jsonl) are joined; the manifest is rebuilt from the shards given (so merge all of them again, not\n" +
			"only a re-run one): the first shard's, with the shards' summaries and budgets added up,\n" +
			"their earliest start and latest end, and their browser launches joined (schema version 1 shards are converted).\n" +
			"A sequential ablation's decisions are recomputed over the merged records: the attempts left unrun are the\n" +
			"merged rule's, and a shard's own stop that the merged looks had not made is kept, named, and warned about\n" +
			"(STATS.md \"Sequential ablations\").",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if out == "" {
				return usageErr("--out is required")
			}
			shards := make([]*results.Run, 0, len(args))
			for _, d := range args {
				run, err := results.Open(d)
				if err != nil {
					return usageErr("%s: not a run directory: %v", d, err)
				}
				if len(shards) > 0 && !results.SamePlan(shards[0].Manifest.Plan, run.Manifest.Plan) {
					return usageErr("%s: its plan differs from %s's (mixed specs cannot be merged)", d, args[0])
				}
				shards = append(shards, run)
			}
			plan := shards[0].Manifest.Plan
			n, err := results.Merge(out, shards, func(rs []*results.Run, recs []results.Attempt) ([]results.SeqSkip, error) {
				return analysis.MergedSeqSkips(plan, rs, recs)
			})
			var refused *results.MergeRefusedError
			switch {
			case errors.As(err, &refused):
				return usageErr("%v", err)
			case err != nil:
				return withCode(exitInfra, err)
			}
			first := shards[0].Manifest
			fmt.Fprintf(c.OutOrStdout(), "merged %s from %s into %s\n", results.Count(n, "record", "records"),
				results.Count(len(args), "shard", "shards"), out)
			// Attempts a sequential design left unrun are not missing (Completeness).
			if got, err := results.Open(out); err == nil && got.Completeness().Missing > 0 {
				fmt.Fprintf(c.ErrOrStderr(), "warning: the merged run holds %d of the plan's %d attempts: a shard is missing or "+
					"unfinished (re-run it, then merge all the shards again into the same --out: records already there are skipped, and the manifest is rebuilt from the shards given)\n", len(got.Final()), first.Plan.Attempts)
			}
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "", "merged run directory")
	return c
}
