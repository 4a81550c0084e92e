package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"webbench/agent"
	"webbench/llm"
	"webbench/runner"
	"webbench/scripted"
)

func init() { extraCommands = append(extraCommands, doctorCmd) }

// doctorReport is what bench doctor found (--json prints it).
type doctorReport struct {
	Endpoint     string            `json:"endpoint"`
	Model        string            `json:"model"`
	APIKeyEnv    string            `json:"api_key_env"`
	APIKeySet    bool              `json:"api_key_set"`
	Capabilities *llm.Capabilities `json:"capabilities,omitempty"`
	// MaxTokensField is the field a completion cap goes out in under this configuration
	// (llm.Config.MaxTokensFieldFor), also when none is configured; OmitsMaxTokens: omit has max_tokens.
	MaxTokensField string       `json:"max_tokens_field"`
	OmitsMaxTokens bool         `json:"omits_max_tokens,omitempty"`
	Error          *doctorError `json:"error,omitempty"`
	ExitCode       int          `json:"exit_code"`
}

// doctorError is a failed preflight's *llm.Error, for printing.
type doctorError struct {
	Class   llm.ErrorClass `json:"class"`
	Status  int            `json:"status,omitempty"`
	Type    string         `json:"type,omitempty"`
	Code    string         `json:"code,omitempty"`
	Message string         `json:"message"`
	Hint    string         `json:"hint,omitempty"`
}

func doctorCmd() *cobra.Command {
	var model, baseURL, profile, keyEnv string
	var callTimeout time.Duration
	var asJSON bool
	var rq requestFlags
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check a model endpoint with one small tool-calling request (the run's preflight) and print what it supports",
		Long: "Sends the preflight bench run makes before its first attempt — one small tool-calling request — and prints\n" +
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
			env := cfg.KeyEnv()
			rep := doctorReport{Endpoint: cfg.BaseURL, Model: cfg.Model, APIKeyEnv: env, APIKeySet: os.Getenv(env) != "",
				MaxTokensField: cfg.MaxTokensFieldFor(), OmitsMaxTokens: slices.Contains(cfg.Omit, "max_tokens")}
			caps, perr := client.Preflight(c.Context())
			rep.Capabilities = caps
			switch {
			case perr != nil:
				var e *llm.Error
				if !errors.As(perr, &e) {
					e = &llm.Error{Class: llm.ErrorInfra, Err: perr}
				}
				msg := e.Message
				if msg == "" && e.Err != nil {
					msg = e.Err.Error()
				}
				rep.Error = &doctorError{Class: e.Class, Status: e.StatusCode, Type: e.Type, Code: e.Code,
					Message: msg, Hint: e.Hint}
				rep.ExitCode = e.Class.ExitCode()
				if e.Class == llm.ErrorContextOverflow {
					// Even the small check does not fit: a run would stop at its first call, as a config error.
					rep.ExitCode = llm.ErrorConfig.ExitCode()
					rep.Error.Hint = agent.ContextWindowHint
				}
				if rep.ExitCode == 0 {
					rep.ExitCode = exitInfra // rate limited or unreachable after the retries
				}
			case !caps.Tools && caps.FinishReason != "length":
				// A reply cut before any call (a reasoning model thinking long) proves nothing either way; bench run
				// goes ahead on it too (the note says so).
				rep.ExitCode = exitGate
			}
			var out strings.Builder
			if asJSON {
				enc := json.NewEncoder(&out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				printDoctor(&out, rep)
			}
			fmt.Fprint(c.OutOrStdout(), client.Redact(out.String()))
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

// printDoctor writes the findings, one per line.
func printDoctor(w io.Writer, r doctorReport) {
	line := func(k, v string) { fmt.Fprintf(w, "%-12s %s\n", k+":", v) }
	line("endpoint", r.Endpoint)
	line("model", r.Model)
	if r.APIKeySet {
		line("api key", "$"+r.APIKeyEnv+" is set")
	} else {
		line("api key", "$"+r.APIKeyEnv+" is not set: no Authorization header sent")
	}
	if c := r.Capabilities; c != nil {
		line("tools", yesNo(c.Tools, "yes: the reply called the tool", "no: the reply carried no tool call"))
		line("seed", yesNo(c.Seed, "accepted", "not sent"))
		line("usage", yesNo(c.Usage, "reported", "missing: tokens and cost will be estimated from bytes"))
		reasoning := c.ReasoningField
		if reasoning == "" {
			reasoning = "none seen"
		}
		line("reasoning", reasoning)
		switch {
		case c.MaxTokensField == "" && r.OmitsMaxTokens:
			line("max tokens", "not sent (omit: [max_tokens])")
		case c.MaxTokensField == "":
			line("max tokens", "no cap configured, none sent (--max-tokens N would send one as "+r.MaxTokensField+")")
		case c.MaxTokensField == "both":
			line("max tokens", "sent as max_tokens and max_completion_tokens")
		default:
			line("max tokens", "sent as "+c.MaxTokensField)
		}
		line("latency", fmt.Sprintf("%d ms", c.LatencyMS))
		for _, n := range c.Notes {
			line("note", n)
		}
	}
	if e := r.Error; e != nil {
		status := string(e.Class)
		if e.Status != 0 {
			status += fmt.Sprintf(" (HTTP %d)", e.Status)
		}
		line("error", status)
		if e.Type != "" || e.Code != "" {
			line("type, code", strings.Trim(e.Type+", "+e.Code, ", "))
		}
		line("message", e.Message)
		if e.Hint != "" {
			line("hint", e.Hint)
		}
	}
	switch r.ExitCode {
	case 0:
		line("result", "ready for bench run")
	case exitGate:
		line("result", "the endpoint answers but without tool calls: the agent cannot run on it (exit 1)")
	default:
		switch {
		case r.Error != nil && r.Error.Class.Fatal():
			line("result", fmt.Sprintf("a run on this endpoint would stop at its first call (exit %d)", r.ExitCode))
		case r.Error != nil && r.Error.Class == llm.ErrorContextOverflow:
			line("result", fmt.Sprintf("the model's context window cannot hold even this small request: a run would stop "+
				"at its first call; raise the context (vLLM --max-model-len, llama.cpp -c, Ollama num_ctx) or use a larger model (exit %d)",
				r.ExitCode))
		case r.Error != nil && r.Error.Class == llm.ErrorRateLimit:
			line("result", fmt.Sprintf("still rate-limited after the retries: try later, or lower --max-connections / --workers (exit %d)", r.ExitCode))
		default:
			line("result", fmt.Sprintf("no usable answer after the retries: is the server up, is the base URL right? (exit %d)", r.ExitCode))
		}
	}
}

func yesNo(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}
