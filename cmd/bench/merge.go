package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"

	"github.com/spf13/cobra"

	"webbench/results"
)

func init() { extraCommands = append(extraCommands, mergeCmd) }

func mergeCmd() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "merge --out DIR SHARD_DIR...",
		Short: "Join shard run directories of one plan into one run directory",
		Long: "Refuses shards of different plans (suite, suite options, tasks, reps, variants, seed, ablation\n" +
			"parameters). Records are appended in shard order; trajectories and screenshots are copied; the manifest\n" +
			"is the first shard's (schema version 1 shards are converted).",
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
				if len(shards) > 0 && !samePlan(shards[0].Manifest.Plan, run.Manifest.Plan) {
					return usageErr("%s: its plan differs from %s's (mixed specs cannot be merged)", d, args[0])
				}
				shards = append(shards, run)
			}
			n, err := mergeInto(out, shards)
			if err != nil {
				return err
			}
			first := shards[0].Manifest
			fmt.Fprintf(c.OutOrStdout(), "merged %d record(s) from %d shard(s) into %s\n", n, len(args), out)
			if got, err := results.ReadAttempts(out); err == nil && len(got.Latest) < first.Plan.Attempts {
				fmt.Fprintf(c.ErrOrStderr(), "warning: the merged run holds %d of the plan's %d attempts: a shard is missing or "+
					"unfinished (re-run it, then merge again)\n", len(got.Latest), first.Plan.Attempts)
			}
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "", "merged run directory")
	return c
}

// mergeInto appends the shards' records (those not already in out) to out, copies their trajectories and
// screenshots, and writes the first shard's manifest; it returns the number of records appended.
func mergeInto(out string, shards []*results.Run) (int, error) {
	w, err := results.OpenWriter(out)
	if err != nil {
		return 0, withCode(exitInfra, err)
	}
	defer w.Close()
	have, err := results.ReadAttempts(out)
	if err != nil {
		return 0, usageErr("%v", err)
	}
	n := 0
	for _, run := range shards {
		for _, r := range run.Records {
			if old, ok := have.Latest[r.AttemptID]; ok && reflect.DeepEqual(old, r) {
				continue
			}
			if err := w.Append(r); err != nil {
				return n, withCode(exitInfra, err)
			}
			n++
		}
		for _, sub := range []string{results.TrajectoriesDir, results.ScreenshotsDir} {
			if err := copyTree(filepath.Join(run.Dir, sub), filepath.Join(out, sub)); err != nil {
				return n, withCode(exitInfra, err)
			}
		}
	}
	m := *shards[0].Manifest
	m.Shard = fmt.Sprintf("merged from %d shard(s)", len(shards))
	if err := results.WriteManifest(out, &m); err != nil {
		return n, withCode(exitInfra, err)
	}
	return n, nil
}

// samePlan compares two plans as JSON (variants with their settings, tasks, reps, seed, ablation parameters).
func samePlan(a, b results.Plan) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func copyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		o, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(o, in); err != nil {
			o.Close()
			return err
		}
		return o.Close()
	})
}
