package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"webbench/agent"
	"webbench/llm"
	"webbench/results"
)

// preflightTimeout bounds one endpoint's preflight (its retries of rate limits and infrastructure errors
// included).
const preflightTimeout = 60 * time.Second

// preflight sends one llm.Client.Preflight per distinct endpoint and request shape (preflightKey: base URL,
// model, key variable and every setting that changes the request) of the variants that have attempts in todo
// and talk to a real model, except those the model cache serves (a replayed run sends nothing); the in-process scripted policy (model kind "scripted") is skipped: the runner
// started it on loopback a moment ago with a known profile, so there is nothing to find out. An error of a
// class that stops runs (config, auth, quota), or a context overflow (even the small preflight does not fit: a
// config error with agent.ContextWindowHint), is returned as an *EndpointError before anything is recorded;
// any other error (unreachable, 5xx, rate limited after retries) is logged and recorded in the endpoint's
// entry, and the attempts meet it as infrastructure errors, retried as usual.
func preflight(ctx context.Context, plan Plan, agents map[string]*agentFor, todo []Attempt, log io.Writer) ([]results.Endpoint, error) {
	used := map[string]bool{}
	for _, a := range todo {
		used[a.Variant] = true
	}
	var out []results.Endpoint
	index := map[string]int{}
	for _, v := range plan.Variants {
		af := agents[v.Name]
		// A variant served from the model cache is not preflighted, so that a replayed run sends nothing.
		if !used[v.Name] || af == nil || v.Model.Kind == "scripted" || af.cache != nil {
			continue
		}
		cfg := af.client.Config()
		key := preflightKey(cfg)
		if i, ok := index[key]; ok {
			out[i].Variants = append(out[i].Variants, v.Name)
			continue
		}
		ep := results.Endpoint{Variants: []string{v.Name}, BaseURL: cfg.BaseURL, Model: cfg.Model}
		pctx, cancel := context.WithTimeout(ctx, preflightTimeout)
		caps, err := af.client.Preflight(pctx)
		if err == nil && noToolCalls(caps) != nil {
			// One prose answer of a sampled model proves little: ask once more before stopping the run.
			fmt.Fprintf(log, "preflight %s at %s: the reply had no tool call; asking once more\n", cfg.Model, cfg.BaseURL)
			caps, err = af.client.Preflight(pctx)
		}
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			var le *llm.Error
			if errors.As(err, &le) && le.Class.Fatal() {
				return nil, &EndpointError{Variant: v.Name, BaseURL: cfg.BaseURL, Model: cfg.Model, Preflight: true, Err: le}
			}
			if le != nil && le.Class == llm.ErrorContextOverflow {
				// The small preflight request does not fit: every attempt's first call would overflow, which
				// stops the run as a configuration error (agent.ContextWindowHint); stop it now.
				return nil, &EndpointError{Variant: v.Name, BaseURL: cfg.BaseURL, Model: cfg.Model, Preflight: true,
					Err: &llm.Error{Class: llm.ErrorConfig, StatusCode: le.StatusCode, Type: le.Type, Code: le.Code,
						Message: le.Message, Hint: agent.ContextWindowHint, Err: le}}
			}
			ep.Error = llm.RedactString(err.Error())
			if le != nil {
				ep.ErrorClass = le.Class
			}
			fmt.Fprintf(log, "warning: preflight of %s at %s failed (%v); the attempts will retry it\n", cfg.Model,
				cfg.BaseURL, ep.Error)
		} else if caps != nil {
			ep.Capabilities = &results.Capabilities{Tools: caps.Tools, Seed: caps.Seed, Usage: caps.Usage,
				ReasoningField: caps.ReasoningField, MaxTokensField: caps.MaxTokensField, Model: caps.Model,
				LatencyMS: caps.LatencyMS, FinishReason: caps.FinishReason, Notes: slices.Clone(caps.Notes)}
			for _, n := range caps.Notes {
				fmt.Fprintf(log, "preflight %s at %s: %s\n", cfg.Model, cfg.BaseURL, n)
			}
			if le := noToolCalls(caps); le != nil {
				return nil, &EndpointError{Variant: v.Name, BaseURL: cfg.BaseURL, Model: cfg.Model, Preflight: true, Err: le}
			}
		}
		index[key] = len(out)
		out = append(out, ep)
	}
	return out, nil
}

// preflightKey identifies what one preflight answers for: the endpoint (base URL, model), the key variable, and
// every setting that shapes the request — temperature, top_p, seed (no_seed, omit), max_tokens and its field.
// Arms that differ in any of these get a preflight each: one arm's rejected parameter (a temperature a
// reasoning model refuses, a max_tokens field the server does not read) is found before the run starts, not
// by its first attempt mid-run.
func preflightKey(cfg llm.Config) string {
	f32 := func(p *float32) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatFloat(float64(*p), 'g', -1, 32)
	}
	maxTok := "-"
	if cfg.MaxTokens != nil {
		maxTok = strconv.Itoa(*cfg.MaxTokens)
	}
	omit := slices.Clone(cfg.Omit)
	if cfg.NoSeed {
		omit = append(omit, "seed")
	}
	slices.Sort(omit)
	omit = slices.Compact(omit)
	return strings.Join([]string{cfg.BaseURL, cfg.Model, cfg.APIKeyEnv, f32(cfg.Temperature), f32(cfg.TopP), maxTok,
		cfg.MaxTokensField, strings.Join(omit, ",")}, "\x00")
}
