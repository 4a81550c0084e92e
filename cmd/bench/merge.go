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
	"webbench/runner"
)

func init() { extraCommands = append(extraCommands, mergeCmd) }

func mergeCmd() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "merge --out DIR SHARD_DIR...",
		Short: "Join shard run directories of one plan into one run directory",
		Long: "Refuses shards of different plans (suite, tasks, reps, variants, seed) or schema versions. Records are\n" +
			"appended in shard order; trajectories and screenshots are copied; ablation.json is carried over.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if out == "" {
				return usageErr("--out is required")
			}
			var first *runner.Manifest
			var metaRaw []byte
			for _, d := range args {
				var m runner.Manifest
				if err := readJSON(filepath.Join(d, results.ManifestFile), &m); err != nil {
					return usageErr("%s: not a run directory: %v", d, err)
				}
				if m.SchemaVersion != results.SchemaVersion {
					return usageErr("%s: schema_version %d, this bench writes %d", d, m.SchemaVersion, results.SchemaVersion)
				}
				if first == nil {
					first = &m
				} else if !samePlan(first.Plan, m.Plan) {
					return usageErr("%s: its plan differs from %s's (mixed specs cannot be merged)", d, args[0])
				}
				if b, err := os.ReadFile(filepath.Join(d, ablationFile)); err == nil {
					if metaRaw != nil && string(b) != string(metaRaw) {
						return usageErr("%s: its %s differs from the first shard's", d, ablationFile)
					}
					metaRaw = b
				}
			}
			w, err := results.OpenWriter(out)
			if err != nil {
				return withCode(exitInfra, err)
			}
			defer w.Close()
			have, err := results.ReadAttempts(out)
			if err != nil {
				return usageErr("%v", err)
			}
			n := 0
			for _, d := range args {
				rr, err := results.ReadAttempts(d)
				if err != nil {
					return usageErr("%v", err)
				}
				for _, r := range rr.Records {
					if old, ok := have.Latest[r.AttemptID]; ok && reflect.DeepEqual(old, r) {
						continue
					}
					if err := w.Append(r); err != nil {
						return withCode(exitInfra, err)
					}
					n++
				}
				for _, sub := range []string{results.TrajectoriesDir, results.ScreenshotsDir} {
					if err := copyTree(filepath.Join(d, sub), filepath.Join(out, sub)); err != nil {
						return withCode(exitInfra, err)
					}
				}
			}
			m := *first
			m.Shard = fmt.Sprintf("merged from %d shard(s)", len(args))
			if err := w.WriteJSON(results.ManifestFile, m); err != nil {
				return withCode(exitInfra, err)
			}
			if metaRaw != nil {
				if err := w.WriteFile(ablationFile, metaRaw); err != nil {
					return withCode(exitInfra, err)
				}
			}
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

// samePlan compares two plans as JSON (variants with their settings, tasks, reps, seed).
func samePlan(a, b runner.PlanManifest) bool {
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
