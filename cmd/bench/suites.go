package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"webbench/results"
	"webbench/suites"
)

func suitesCmd() *cobra.Command {
	var sf suiteFlags
	var asJSON bool
	c := &cobra.Command{
		Use:   "suites",
		Short: "List suites, or the tasks of one suite (--suite)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			out := c.OutOrStdout()
			if !c.Flags().Changed("suite") {
				if asJSON {
					return json.NewEncoder(out).Encode(suites.Names())
				}
				for _, n := range suites.Names() {
					fmt.Fprintln(out, n)
				}
				return nil
			}
			s, tasks, err := sf.open()
			if err != nil {
				return err
			}
			defer s.Close()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]any{"suite": s.Name(), "count": len(tasks), "tasks": tasks})
			}
			fmt.Fprintf(out, "%s in %s\n", results.Count(len(tasks), "task", "tasks"), s.Name())
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TASK\tAPP\tCLUSTER\tMUTATIONS\tTAGS")
			dash := func(xs []string) string {
				if len(xs) == 0 {
					return "-"
				}
				return strings.Join(xs, ",")
			}
			for _, t := range tasks {
				cluster := t.Cluster
				if cluster == "" || cluster == t.ID {
					cluster = "-"
				}
				app := t.App
				if app == "" {
					app = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, app, cluster, dash(t.Mutations), dash(t.Tags))
			}
			return tw.Flush()
		},
	}
	sf.register(c)
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
