package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

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
			fmt.Fprintf(out, "%d task(s) in %s\n", len(tasks), s.Name())
			for _, t := range tasks {
				fmt.Fprintf(out, "%-44s %-12s cluster=%-20s tags=%s\n", t.ID, t.App, t.Cluster, strings.Join(t.Tags, ","))
			}
			return nil
		},
	}
	sf.register(c)
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
