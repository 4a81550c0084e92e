package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"webbench/llm"
	"webbench/results"
	"webbench/runner"
)

// realModelFlags are the bench run flags only a real model (--model openai:NAME) reads: the in-process scripted
// policy has no endpoint, key, prices or request settings, so given with it they would be silently ignored.
var realModelFlags = []string{"base-url", "price-in", "price-out", "omit", "max-tokens", "max-tokens-field"}

// refuseWithScripted refuses the real-model-only flags that were given when m is the scripted policy (a
// --base-url without --model openai:NAME would otherwise run the scripted policy and report its 100 %).
func refuseWithScripted(c *cobra.Command, m runner.Model) error {
	if m.Kind != "scripted" {
		return nil
	}
	for _, name := range realModelFlags {
		if f := c.Flags().Lookup(name); f != nil && f.Changed {
			return usageErr("--%s needs --model openai:NAME (the scripted policy has no endpoint, key, prices or request settings)", name)
		}
	}
	return nil
}

// priceFlags are --price-in and --price-out: the model's prices in USD per million prompt / completion tokens
// (llm.Config.PricePerMTokIn/Out), for cost_usd and --max-cost.
type priceFlags struct{ in, out float64 }

func (f *priceFlags) register(c *cobra.Command, what string) {
	c.Flags().Float64Var(&f.in, "price-in", 0, "USD per million prompt tokens of "+what+" (the model block's price_in), for cost_usd and --max-cost")
	c.Flags().Float64Var(&f.out, "price-out", 0, "USD per million completion tokens of "+what+" (the model block's price_out)")
}

// apply sets the prices that were given on every variant that talks to a real model (replacing the spec's
// price_in / price_out); it refuses a negative price and prices given when no variant has a real model.
func (f *priceFlags) apply(c *cobra.Command, vs []runner.Variant) error {
	in, out := c.Flags().Changed("price-in"), c.Flags().Changed("price-out")
	if !in && !out {
		return nil
	}
	for name, p := range map[string]float64{"--price-in": f.in, "--price-out": f.out} {
		if p < 0 || math.IsNaN(p) || math.IsInf(p, 0) {
			return usageErr("%s %v: must be a price of at least 0 USD per million tokens", name, p)
		}
	}
	set := 0
	for i := range vs {
		if vs[i].Model.Kind == "scripted" {
			continue
		}
		if in {
			vs[i].Model.PriceIn = f.in
		}
		if out {
			vs[i].Model.PriceOut = f.out
		}
		set++
	}
	if set == 0 {
		return usageErr("--price-in / --price-out need a real model (openai:NAME): every arm runs the scripted policy")
	}
	return nil
}

// checkMaxCost refuses --max-cost when no variant has prices: every spend is recorded as $0, so the limit could
// never trigger (the scripted policy costs nothing at all). When only some have prices (a free local arm beside a
// paid one), it warns on log naming the variants whose spend is not counted (checkPriced).
func checkMaxCost(c *cobra.Command, maxCost float64, vs []runner.Variant) error {
	if maxCost <= 0 {
		return nil
	}
	return checkPriced(c, "--max-cost", "counts only priced variants", runnerArms(vs))
}

// checkCostGatePriced refuses a cost gate on usd (--fail-if-costlier usd=…, or the spec's or the run's recorded
// fail_if_costlier, named by what) over arms none of which has prices: every attempt's cost_usd is $0, so the
// gate could never fail. Some arms without prices get checkPriced's warning.
func checkCostGatePriced(c *cobra.Command, what string, margins map[results.CostOutcome]float64, arms []pricedArm) error {
	if _, ok := margins[results.CostUSD]; !ok {
		return nil
	}
	return checkPriced(c, what+" usd", "compares the cost of priced variants only", arms)
}

// pricedArm is an arm's name and model, as checkPriced reads them.
type pricedArm struct {
	name  string
	model results.Model
}

// runnerArms are the arms of a plan; manifestArms those a run recorded.
func runnerArms(vs []runner.Variant) []pricedArm {
	out := make([]pricedArm, len(vs))
	for i, v := range vs {
		out[i] = pricedArm{v.Name, v.Model}
	}
	return out
}

func manifestArms(vs []results.Variant) []pricedArm {
	out := make([]pricedArm, len(vs))
	for i, v := range vs {
		out[i] = pricedArm{v.Name, v.Model}
	}
	return out
}

// checkPriced is the one rule of an option that needs the models' prices (what, e.g. "--max-cost"): a usage
// error when no arm has prices (results.Model.Priced; the scripted policy has none), a warning on log naming
// the arms without prices, whose spend counts as $0, when only some have them (partial says what the option
// then does).
func checkPriced(c *cobra.Command, what, partial string, arms []pricedArm) error {
	var free []string
	for _, a := range arms {
		if !a.model.Priced() {
			free = append(free, a.name+" ("+a.model.String()+")")
		}
	}
	switch {
	case len(free) == len(arms):
		return usageErr("%s needs the model's prices: --price-in/--price-out USD per million tokens, or "+
			"price_in/price_out in the model block (no variant has any: every spend would stay $0)", what)
	case len(free) > 0:
		fmt.Fprintf(c.ErrOrStderr(), "warning: %s %s; %s have no prices (their spend counts as $0)\n",
			what, partial, strings.Join(free, ", "))
	}
	return nil
}

// requestFlags are the flags that shape the model request (bench run, ablate and doctor): the fields never
// sent, the completion cap and the field it goes in — the settings the preflight's hints name.
type requestFlags struct {
	omit           []string
	maxTokens      int
	maxTokensField string
}

func (f *requestFlags) register(c *cobra.Command) {
	c.Flags().StringSliceVar(&f.omit, "omit", nil, "request fields never sent, for models that reject them: "+
		strings.Join(llm.OmitFields, ", ")+" (comma-separated; the model block's omit)")
	c.Flags().IntVar(&f.maxTokens, "max-tokens", 0, "completion cap in tokens sent with every model call (the model block's max_tokens; default: none, the endpoint's own)")
	c.Flags().StringVar(&f.maxTokensField, "max-tokens-field", "", "request field the completion cap is sent in: "+
		"max_tokens, max_completion_tokens or both (the model block's max_tokens_field; default: max_completion_tokens for OpenAI and Azure hosts, max_tokens elsewhere)")
}

// apply sets the flags that were given on m (replacing m's omit, max_tokens and max_tokens_field) and
// validates them.
func (f *requestFlags) apply(c *cobra.Command, m *runner.Model) error {
	if c.Flags().Changed("omit") {
		m.Omit = slices.Clone(f.omit)
	}
	if c.Flags().Changed("max-tokens") {
		if f.maxTokens < 1 {
			return usageErr("--max-tokens %d: must be at least 1", f.maxTokens)
		}
		n := f.maxTokens
		m.MaxTokens = &n
	}
	if c.Flags().Changed("max-tokens-field") {
		m.MaxTokensField = f.maxTokensField
	}
	if err := (llm.Config{Omit: m.Omit, MaxTokensField: m.MaxTokensField}).Validate(); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// check refuses --max-tokens-field when no model it applies to has a completion cap (capped false): the
// field would never be sent, so the flag would do nothing.
func (f *requestFlags) check(c *cobra.Command, capped bool) error {
	if c.Flags().Changed("max-tokens-field") && !capped {
		return usageErr("--max-tokens-field %s: no completion cap is sent without --max-tokens N (or max_tokens in the model block)",
			f.maxTokensField)
	}
	return nil
}
