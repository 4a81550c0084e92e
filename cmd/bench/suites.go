package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"webbench/results"
	"webbench/srcerr"
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
			fams, apps := map[string]bool{}, map[string]bool{}
			for _, t := range tasks {
				fams[cmp.Or(t.Cluster, t.ID)], apps[t.App] = true, true
			}
			// The cluster is a task's family (Zoo) or site (WebVoyager): the unit its attempts are analysed by.
			fmt.Fprintf(out, "%s in %s: %s, %s\n", results.Count(len(tasks), "task", "tasks"), s.Name(),
				results.Count(len(fams), "family", "families"), results.Count(len(apps), "app", "apps"))
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

// suiteFlags are the flags that choose a suite and its tasks.
type suiteFlags struct {
	suite, tasks, tasksFile, answers, staleDates string
	// extra are --suite-option key=value pairs (e.g. the Zoo's instances=all).
	extra map[string]string
	// adjust, when set, rewrites the options for the suite (a replay's: suiteOptions).
	adjust func(suite string, o suites.Options) suites.Options
}

func (f *suiteFlags) register(c *cobra.Command) {
	c.Flags().StringVar(&f.suite, "suite", "zoo", "suite name (bench suites lists them)")
	c.Flags().StringVar(&f.tasks, "tasks", "", "comma-separated task id globs, e.g. 'shop-*' (default: all)")
	c.Flags().StringVar(&f.tasksFile, "tasks-file", "", "task file (WebVoyager JSONL)")
	c.Flags().StringVar(&f.answers, "answers", "", "reference answers file (WebVoyager reference_answer.json)")
	c.Flags().StringVar(&f.staleDates, "stale-dates", "", "WebVoyager tasks naming past dates: skip|shift|keep")
	c.Flags().StringToStringVar(&f.extra, "suite-option", nil,
		"suite option key=value, repeatable (zoo: instances=all adds every family instance, docs/ZOO.md)")
}

// options are the suite options the flags set (the empty ones left out).
func (f *suiteFlags) options() suites.Options {
	opts := suites.Options{}
	maps.Copy(opts, f.extra)
	for k, v := range map[string]string{"tasks_file": f.tasksFile, "answers": f.answers, "stale_dates": f.staleDates} {
		if v != "" {
			opts[k] = v
		}
	}
	if f.adjust != nil {
		opts = f.adjust(f.suite, opts)
	}
	return opts
}

func (f *suiteFlags) open() (suites.Suite, []suites.Task, error) {
	if err := srcerr.OneOf("suite", f.suite, suites.Names()); err != nil {
		return nil, nil, usageErr("--suite: %v", err)
	}
	s, err := suites.Open(f.suite, f.options())
	if err != nil {
		return nil, nil, usageErr("%v", err)
	}
	tasks, err := suites.Filter(s.Tasks(), f.tasks)
	if err != nil {
		s.Close()
		return nil, nil, usageErr("--tasks: %v", err)
	}
	return s, tasks, nil
}
