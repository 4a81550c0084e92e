package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"webbench/agent"
	"webbench/llm"
	"webbench/runner"
	"webbench/scripted"
)

func init() { extraCommands = append(extraCommands, doctorCmd) }

func doctorCmd() *cobra.Command {
	var model, baseURL, profile, keyEnv string
	var callTimeout time.Duration
	var asJSON bool
	var rq requestFlags
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check a model endpoint with the run's preflight and a second turn, and print what it supports",
		Long: "Sends the preflight bench run makes before its first attempt — one small tool-calling request — then a second\n" +
			"turn sending the tool call, its result and any reasoning or provider fields back, as every later turn of a run\n" +
			"does (provider failures inside a 200 are retried first), and prints\n" +
			"the endpoint, the model, whether the reply carried a tool call, accepted the seed and reported usage, where\n" +
			"its reasoning was, the max tokens field sent and the latency; on an error its class, HTTP status, the\n" +
			"server's message and a hint. The API key is never printed.\n" +
			"Exit codes: 0 ready; 1 answered but without a tool call (the agent cannot run); 2 configuration (model\n" +
			"or route not found, a rejected parameter, a context window too small for the check); 3 authentication,\n" +
			"quota, or the endpoint unreachable.",
		Example: "  bench doctor --model openai:gpt-4o-mini --base-url https://api.openai.com/v1\n" +
			"  bench doctor --model openai:qwen3:8b --base-url http://localhost:11434/v1",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if callTimeout < 0 {
				return usageErr("--call-timeout %v: must be above 0 (default 120s)", callTimeout)
			}
			m, err := runner.ParseModel(model, baseURL, profile)
			if err != nil {
				return usageErr("%v", err)
			}
			m.APIKeyEnv, m.CallTimeout = keyEnv, callTimeout
			if err := rq.apply(c, &m); err != nil {
				return err
			}
			if err := rq.check(c, m.MaxTokens != nil); err != nil {
				return err
			}
			endpoint := ""
			if m.Kind == "scripted" {
				prof, err := scripted.LoadProfile(m.Profile)
				if err != nil {
					return usageErr("%v", err)
				}
				srv := scripted.New(nil, prof)
				if endpoint, err = srv.Start("127.0.0.1:0"); err != nil {
					return withCode(exitInfra, err)
				}
				defer srv.Close()
			}
			cfg := runner.LLMConfig(m, endpoint)
			client, err := llm.New(cfg)
			if err != nil {
				return usageErr("%v", err)
			}
			rep, perr := llm.Diagnose(c.Context(), client, agent.ContextWindowHint)
			var out strings.Builder
			if asJSON {
				enc := json.NewEncoder(&out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				rep.WriteText(&out)
			}
			fmt.Fprint(c.OutOrStdout(), client.Redact(out.String()))
			// Only a ready answer can be the policy's: it answers every request.
			if m.Kind == "openai" && perr == nil && rep.ExitCode == 0 && scripted.IsPolicyEndpoint(c.Context(), cfg.BaseURL) {
				fmt.Fprintf(c.ErrOrStderr(), "note: %s is webbench's scripted policy (bench policy serve), not a model: it "+
					"answers any model name (%q here) and needs no key, so this check says nothing of a real endpoint\n",
					cfg.BaseURL, cfg.Model)
			}
			switch {
			case perr != nil:
				return &exitError{rep.ExitCode, errors.New(client.Redact(perr.Error()))}
			case rep.ExitCode != 0:
				return &exitError{rep.ExitCode, fmt.Errorf("%s at %s answered without a tool call: the agent needs tool calling", cfg.Model, cfg.BaseURL)}
			}
			return nil
		},
	}
	c.Flags().StringVar(&model, "model", "scripted", "model: scripted[:PROFILE] (the offline policy, served on loopback) or openai:NAME")
	c.Flags().StringVar(&baseURL, "base-url", "", "endpoint for openai:NAME, including /v1 (default https://api.openai.com/v1)")
	c.Flags().StringVar(&profile, "profile", "clean", "scripted policy fault profile")
	c.Flags().StringVar(&keyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY); the key is never printed")
	c.Flags().DurationVar(&callTimeout, "call-timeout", 0, "bound on the model HTTP call (default 120s)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the findings as JSON")
	rq.register(c)
	return c
}
