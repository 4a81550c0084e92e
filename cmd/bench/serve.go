package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"webbench/agent/llm/scripted"
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
