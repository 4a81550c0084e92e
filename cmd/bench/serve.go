package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"webbench/scripted"
	"webbench/suites/zoo"
)

func policyCmd() *cobra.Command {
	c := &cobra.Command{Use: "policy", Short: "The scripted policy (an offline OpenAI-compatible model server)"}
	var sf suiteFlags
	var addr, profile string
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Serve the scripted policy for a suite's tasks on loopback (OpenAI chat-completions protocol)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			prof, err := scripted.LoadProfile(profile)
			if err != nil {
				return usageErr("%v", err)
			}
			s, tasks, err := sf.open()
			if err != nil {
				return err
			}
			defer s.Close()
			srv := scripted.New(tasks, prof)
			url, err := srv.Start(addr)
			if err != nil {
				return withCode(exitInfra, err)
			}
			defer srv.Close()
			fmt.Fprintf(c.OutOrStdout(), "scripted policy (%d tasks, profile %s) at %s\n"+
				"use: bench run --model openai:scripted --base-url %s\n", len(tasks), profile, url, url)
			<-c.Context().Done()
			return nil
		},
	}
	sf.register(serve)
	serve.Flags().StringVar(&addr, "addr", "127.0.0.1:8765", "listen address (loopback)")
	serve.Flags().StringVar(&profile, "profile", "clean", "fault profile: clean, observed, harsh, or a YAML file")
	c.AddCommand(serve)
	return c
}

func zooCmd() *cobra.Command {
	c := &cobra.Command{Use: "zoo", Short: "The Zoo of locally served web apps"}
	var addr, ctlAddr, mutations string
	var apps []string
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Serve the Zoo to browse by hand: one tenant per app, its URL printed",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			srv, err := zoo.Start(zoo.Options{Addr: addr, ControlAddr: ctlAddr})
			if err != nil {
				return withCode(exitInfra, err)
			}
			defer srv.Close()
			var muts []string
			if mutations != "" {
				muts = strings.Split(mutations, ",")
				if err := zoo.ValidateMutations(muts); err != nil {
					return usageErr("--mutations: %v", err)
				}
			}
			if len(apps) == 0 {
				apps = zoo.AppNames()
			}
			fmt.Fprintf(c.OutOrStdout(), "Zoo at %s (control API %s)\n", srv.Origin(), srv.ControlURL())
			for _, app := range apps {
				var ok []string
				for _, m := range muts {
					for _, am := range zoo.AppMutations(app) {
						if am == m {
							ok = append(ok, m)
						}
					}
				}
				t, err := srv.NewTenant(app, ok)
				if err != nil {
					return usageErr("%v", err)
				}
				fmt.Fprintf(c.OutOrStdout(), "  %-8s %s  mutations=%s\n", app, t.URL("/"), strings.Join(ok, ","))
			}
			fmt.Fprintln(c.OutOrStdout(), "Ctrl-C to stop")
			<-c.Context().Done()
			return nil
		},
	}
	serve.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "app listen address")
	serve.Flags().StringVar(&ctlAddr, "control-addr", "127.0.0.1:8081", "control API listen address")
	serve.Flags().StringSliceVar(&apps, "app", nil, "apps to open (default: all)")
	serve.Flags().StringVar(&mutations, "mutations", "", "comma-separated mutations to switch on where an app supports them")
	c.AddCommand(serve)
	return c
}
