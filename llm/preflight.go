package llm

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/sashabaranov/go-openai/jsonschema"
)

// PreflightTool is the one trivial tool the preflight request offers; the model is asked to call it with
// {"ok": true}. The scripted policy answers a request offering it with that call.
const PreflightTool = "webbench_preflight"

// preflightMaxTokens bounds the preflight reply when the configuration caps completions at all: enough for a
// reasoning model to think a little before the call, small enough to cost nothing. A smaller Config.MaxTokens
// is kept; with no Config.MaxTokens no cap is sent, as the run sends none.
const preflightMaxTokens = 512

// Capabilities is what one preflight request found out about an endpoint (recorded in the run manifest and
// printed by bench doctor).
type Capabilities struct {
	// Model is the model name the request named (Config.Model), not the name the reply gave (servers answer
	// with a resolved or dated name: "gpt-4o-mini-2024-07-18").
	Model string `json:"model"`
	// Tools: the reply carried a tool call (the agent cannot work without one).
	Tools bool `json:"tools"`
	// Seed: a seed was sent and the endpoint accepted it (false also when no seed was sent).
	Seed bool `json:"seed"`
	// Usage: the reply reported token usage (false: tokens and cost are estimated from bytes).
	Usage bool `json:"usage"`
	// ReasoningField is where the reply's reasoning came from ("reasoning_content", "reasoning",
	// "content_array", "think_tag"; "" when it had none).
	ReasoningField string `json:"reasoning_field,omitempty"`
	// MaxTokensField is the request field the completion cap was sent in (Config.MaxTokensFieldFor):
	// "max_tokens", "max_completion_tokens", "both" (only when configured so), or "" when none was sent (no
	// max_tokens configured, or omit: [max_tokens]).
	MaxTokensField string `json:"max_tokens_field,omitempty"`
	// FinishReason is the answering reply's finish_reason as sent ("tool_calls", "stop", "length", …); "length"
	// with no tool call means the small completion cap cut the reply before any call (tool calling unproven).
	FinishReason string `json:"finish_reason,omitempty"`
	// LatencyMS is the wall time of the call that answered, including its retries.
	LatencyMS int64 `json:"latency_ms"`
	// SecondTurn is what the two-turn check (bench doctor) found: "" when it was not made, else "ok: …" or the
	// failure. It sends the preflight's tool call back with its result and any reasoning and provider fields,
	// as every later turn of a run does.
	SecondTurn string `json:"second_turn,omitempty"`
	// Notes are findings worth acting on: a rejected parameter and the model-block setting that avoids it, a
	// reply without a tool call or without usage, a truncated reply.
	Notes []string `json:"notes,omitempty"`
}

// rejectable are the request fields a model may refuse with 400, and the model-block setting that stops
// sending each.
var rejectable = []struct{ field, fix string }{
	{"seed", "omit: [seed] (--omit seed)"},
	{"temperature", "omit: [temperature] (--omit temperature)"},
	{"top_p", "omit: [top_p] (--omit top_p)"},
	{"max_completion_tokens", "max_tokens_field: max_tokens (--max-tokens-field max_tokens)"},
	{"max_tokens", "max_tokens_field: max_completion_tokens (--max-tokens-field max_completion_tokens)"},
}

var fieldWord = map[string]*regexp.Regexp{}

// refusalWords mark a message refusing a parameter as such (not, say, a value out of range): OpenAI's
// "Unsupported parameter" / "Unsupported value", Azure's "Unrecognized request argument supplied", FastAPI's
// "Extra inputs are not permitted", LiteLLM's "does not support parameters", "unknown field".
var refusalWords = regexp.MustCompile(`unsupported|not supported|does not support|unrecognized|unknown|not permitted|not allowed|extra_forbidden|extra inputs`)

func init() {
	for _, r := range rejectable {
		fieldWord[r.field] = regexp.MustCompile(`(^|[^a-z_])` + r.field + `($|[^a-z_])`)
	}
}

// Preflight sends one small tool-calling request through Chat with the client's own configuration — the
// fields the run will send and no others: seed unless the seed mode is none or omit has seed, the sampling parameters, and a completion
// cap only when Config.MaxTokens is set (lowered to 512), in the field Config.MaxTokensFieldFor names — and
// reports what the endpoint supports. Errors are *Error: config, auth and quota errors mean a run on this
// endpoint would stop at its first call.
//
// When the endpoint refuses a parameter with HTTP 400/422 (seed, temperature, top_p, a max tokens field),
// Preflight retries without it to learn the rest. The run itself would still send the parameter, so the
// refusal stays an error: Preflight returns the capabilities found (Notes say what was refused) together with
// the first refusal's *Error (class config), its Hint naming the setting that avoids it both as a model-block
// spec key and as a bench flag, e.g. "omit: [temperature] (--omit temperature)" or "max_tokens_field:
// max_tokens (--max-tokens-field max_tokens)". When no setup works, the returned error is the first refusal
// too, and a Note gives the later failure.
func (c *Client) Preflight(ctx context.Context) (*Capabilities, error) {
	caps, _, err := c.preflight(ctx)
	return caps, err
}

// preflightRun is what the preflight's answering call left for a second turn: the client it used (the
// configuration that worked, and what it learned of echoes), its request and its reply.
type preflightRun struct {
	client *Client
	req    Request
	resp   *Response
}

// preflight is Preflight, also returning the answering call (nil when none answered).
func (c *Client) preflight(ctx context.Context) (*Capabilities, *preflightRun, error) {
	cfg := c.Config()
	caps := &Capabilities{Model: cfg.Model}
	var first *Error
	var fixes []string
	for probe := 0; ; probe++ {
		pc, err := New(preflightConfig(cfg))
		if err != nil {
			return nil, nil, &Error{Class: ErrorConfig, Err: err, Message: err.Error()}
		}
		sendsSeed := !cfg.NoSeed && !cfg.omits("seed")
		caps.MaxTokensField = sentMaxTokensField(cfg)
		seed := 1
		req := preflightRequest()
		if sendsSeed {
			req.Seed = &seed
		}
		start := time.Now()
		resp, err := pc.Chat(ctx, req)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				e = &Error{Class: ErrorInfra, Err: err}
			}
			field, fix := rejectedField(e, cfg, sendsSeed)
			if field == "" || probe >= len(rejectable) {
				if first != nil {
					// A later probe failed otherwise: report the first rejection, the only one understood.
					caps.Notes = append(caps.Notes, fmt.Sprintf("without %s the request still failed: %v", strings.Join(fixes, ", "), e))
					return caps, nil, first
				}
				return nil, nil, e
			}
			caps.Notes = append(caps.Notes, fmt.Sprintf("the endpoint rejected %s (HTTP %d: %s); set %s",
				field, e.StatusCode, oneLine(e.Message, e.Err), fix))
			fixes = append(fixes, fix)
			if first == nil {
				cp := *e
				first = &cp
			}
			cfg = without(cfg, field)
			continue
		}
		caps.LatencyMS = time.Since(start).Milliseconds()
		caps.FinishReason = resp.FinishReason
		caps.Seed = sendsSeed
		caps.Usage = !resp.Usage.Estimated
		caps.ReasoningField = resp.ReasoningFrom
		for _, tc := range resp.Message.ToolCalls {
			if tc.Function.Name != "" {
				caps.Tools = true
			}
		}
		switch {
		case !caps.Tools && resp.FinishReason == "length":
			cut := "by the server's own completion limit"
			if mt := pc.Config().MaxTokens; mt != nil && caps.MaxTokensField != "" {
				cut = fmt.Sprintf("at %d tokens", *mt)
			}
			caps.Notes = append(caps.Notes, "the reply was cut "+cut+" before any tool call (a reasoning model thinking long?): tool calling not confirmed")
		case !caps.Tools:
			caps.Notes = append(caps.Notes, fmt.Sprintf("the reply had no tool call (finish_reason %q): the agent needs tool calling "+
				"(vLLM: --enable-auto-tool-choice --tool-call-parser …; Ollama, llama.cpp: a model and chat template with tool support)", resp.FinishReason))
		}
		if !sendsSeed && first == nil {
			caps.Notes = append(caps.Notes, "no seed sent (seed: none / --seed-mode none, or omit: [seed] / --omit seed): replies are not reproducible")
		}
		if !caps.Usage {
			caps.Notes = append(caps.Notes, "the reply carried no usage: tokens and cost are estimated from bytes (≈ 4 bytes/token)")
		}
		if first != nil {
			first.Hint = "set " + strings.Join(fixes, " and ") + " in the model block or on the command line"
			return caps, &preflightRun{pc, req, resp}, first
		}
		return caps, &preflightRun{pc, req, resp}, nil
	}
}

// preflightConfig is cfg with a configured completion cap lowered to preflightMaxTokens; a configuration
// without one sends none.
func preflightConfig(cfg Config) Config {
	if cfg.MaxTokens != nil && *cfg.MaxTokens > preflightMaxTokens {
		n := preflightMaxTokens
		cfg.MaxTokens = &n
	}
	cfg.Omit = slices.Clone(cfg.Omit)
	return cfg
}

// sentMaxTokensField names the field a completion cap goes out in under cfg ("" when none is sent).
func sentMaxTokensField(cfg Config) string {
	if cfg.MaxTokens == nil || cfg.omits("max_tokens") {
		return ""
	}
	return cfg.MaxTokensFieldFor()
}

func preflightRequest() Request {
	return Request{
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: "You are a connectivity check. Answer only with a tool call."},
			{Role: openai.ChatMessageRoleUser, Content: "Call the tool " + PreflightTool + ` with the arguments {"ok": true}. Do not write any text.`},
		},
		Tools: []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name:        PreflightTool,
			Description: "Confirms that tool calling works. Call it with ok set to true.",
			Parameters: jsonschema.Definition{Type: jsonschema.Object,
				Properties: map[string]jsonschema.Definition{"ok": {Type: jsonschema.Boolean, Description: "always true"}},
				Required:   []string{"ok"}},
		}}},
	}
}

// rejectedField finds the request field a 400/422 refused as unsupported, among those the request sent: the
// one its message names first. "" when the error is not such a refusal.
func rejectedField(e *Error, cfg Config, sentSeed bool) (field, fix string) {
	if e.StatusCode != 400 && e.StatusCode != 422 {
		return "", ""
	}
	if e.Class == ErrorContextOverflow || e.Class == ErrorAuth || e.Class == ErrorQuota {
		return "", ""
	}
	msg := strings.ToLower(e.Message + " " + e.Code)
	if e.Message == "" && e.Err != nil {
		msg = strings.ToLower(e.Err.Error())
	}
	if !refusalWords.MatchString(msg) {
		return "", ""
	}
	best := -1
	for _, r := range rejectable {
		sent := true
		switch r.field {
		case "seed":
			sent = sentSeed
		case "temperature":
			sent = cfg.Temperature != nil && !cfg.omits("temperature")
		case "top_p":
			sent = cfg.TopP != nil && !cfg.omits("top_p")
		case "max_tokens":
			f := sentMaxTokensField(cfg)
			sent = f == "max_tokens" || f == "both"
		case "max_completion_tokens":
			f := sentMaxTokensField(cfg)
			sent = f == "max_completion_tokens" || f == "both"
		}
		if !sent {
			continue
		}
		if loc := fieldWord[r.field].FindStringIndex(msg); loc != nil && (best < 0 || loc[0] < best) {
			best, field, fix = loc[0], r.field, r.fix
		}
	}
	return field, fix
}

// without is cfg no longer sending field.
func without(cfg Config, field string) Config {
	switch field {
	case "seed":
		cfg.NoSeed = true
	case "temperature", "top_p":
		cfg.Omit = append(slices.Clone(cfg.Omit), field)
	case "max_tokens":
		cfg.MaxTokensField = "max_completion_tokens"
	case "max_completion_tokens":
		cfg.MaxTokensField = "max_tokens"
	}
	return cfg
}

// oneLine is an error's message on one line, at most 200 bytes.
func oneLine(msg string, err error) string {
	if msg == "" && err != nil {
		msg = err.Error()
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return msg
}
