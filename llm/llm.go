// Package llm is the chat client the agent and the LLM judge use against any OpenAI-compatible
// POST <base>/chat/completions endpoint (OpenAI, Azure-style gateways, OpenRouter, vLLM, Ollama, llama.cpp's
// server, LM Studio, TGI, Together, Groq, Cerebras, DeepSeek, the Anthropic and Gemini compatibility layers, or
// the scripted policy on loopback), with retries honouring Retry-After and estimated_time, usage and cost
// accounting, and error classification by HTTP status and body (vocab.go, classify.go).
//
// # Wire handling: net/http with go-openai's types
//
// The client keeps go-openai's message and tool types (openai.ChatCompletionMessage, openai.Tool) as its API,
// but writes the request and reads the response itself with net/http (wire.go) instead of calling
// go-openai's CreateChatCompletion. go-openai's decoding loses what real servers send and its encoding drops
// what they require, and none of it can be switched off:
//   - an error body whose "error" is a string (vLLM's {"error":"Unauthorized"}), an array (Gemini's
//     [{"error":{…}}]), HTML or empty comes back as an empty APIError or a RequestError without the body, so
//     the status and the server's message are lost;
//   - tool-call arguments sent as a JSON object (some llama.cpp builds) fail the decode of the whole response;
//   - reasoning and provider fields (Ollama's and OpenRouter's "reasoning", Mistral's content arrays, Gemini's
//     tool_calls[].extra_content) are not decoded at all;
//   - on the way out, omitempty drops an empty "arguments", an empty tool_call_id, an empty reasoning_content
//     (DeepSeek thinking mode needs it back, also when empty) and temperature 0, and unknown fields cannot be
//     added to a message.
//
// A RoundTripper under go-openai would have to rewrite both bodies entirely to fix these, leaving go-openai
// nothing to do but a second, lossy JSON pass; one POST with net/http and encoding/json is smaller and keeps
// every byte of the server's answer available to classification and records.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"webbench/srcerr"
)

// Config selects a model endpoint. A real model is only ever used when chosen explicitly.
type Config struct {
	// Model is the model name sent in requests ("gpt-4o-mini", or "scripted").
	Model string `json:"model" yaml:"name"`
	// BaseURL is the endpoint root including /v1, e.g. "https://api.openai.com/v1"; requests go to
	// BaseURL + "/chat/completions".
	BaseURL string `json:"base_url" yaml:"base_url"`
	// APIKeyEnv names the environment variable holding the key (default OPENAI_API_KEY). The key itself is
	// never stored in Config, records or logs; an empty key sends no Authorization header.
	APIKeyEnv string `json:"api_key_env,omitempty" yaml:"api_key_env"`
	// Temperature is the sampling temperature; nil leaves it unset (some reasoning models refuse it). 0 is sent
	// as "temperature": 0.
	Temperature *float32 `json:"temperature,omitempty" yaml:"temperature"`
	// TopP is the nucleus-sampling mass; nil leaves it unset.
	TopP *float32 `json:"top_p,omitempty" yaml:"top_p"`
	// MaxTokens caps the completion length in tokens (nil = the endpoint's default), sent in the field(s)
	// MaxTokensField names.
	MaxTokens *int `json:"max_tokens,omitempty" yaml:"max_tokens"`
	// NoSeed sends no seed (providers that reject it); the same as Omit containing "seed".
	NoSeed bool `json:"no_seed,omitempty" yaml:"no_seed"`
	// Retries of rate_limit and infra errors (default 4); backoff starts at 500 ms, doubles, and waits at least
	// the server's Retry-After header or the body's estimated_time (seconds), each wait capped at 120 s and at
	// the caller's deadline.
	Retries int `json:"retries,omitempty" yaml:"retries"`
	// PricePerMTokIn is the USD price per million prompt tokens, for cost_usd (0 = unknown).
	PricePerMTokIn float64 `json:"price_in,omitempty" yaml:"price_in"`
	// PricePerMTokOut is the USD price per million completion tokens (0 = unknown).
	PricePerMTokOut float64 `json:"price_out,omitempty" yaml:"price_out"`
	// CallTimeout bounds one HTTP call including reading its body (default 120 s); the caller's context may cut
	// it shorter.
	CallTimeout time.Duration `json:"-" yaml:"-"`
	// MaxConnections caps the concurrent requests to this endpoint (base URL + model) across all workers of the
	// process (0 = no cap); the cap adapts down on 429 (limiter.go).
	MaxConnections int `json:"max_connections,omitempty" yaml:"max_connections"`
	// Omit lists request fields never sent, for models that reject them: "temperature", "top_p", "seed",
	// "max_tokens" (the last drops both max_tokens and max_completion_tokens).
	Omit []string `json:"omit,omitempty" yaml:"omit"`
	// MaxTokensField is the request field MaxTokens is sent in: "max_tokens" (vLLM, Ollama, llama.cpp, LM Studio,
	// OpenRouter, Groq and most compatibility layers), "max_completion_tokens" (OpenAI and Azure OpenAI, whose
	// o-series and newer models refuse max_tokens), "both" (both fields with the same value, only when asked
	// for: OpenAI and VolcEngine reject a request carrying both), or "" for the default of the base URL's host
	// (see MaxTokensFieldFor).
	MaxTokensField string `json:"max_tokens_field,omitempty" yaml:"max_tokens_field"`
}

// KeyEnv is the environment variable the API key is read from: APIKeyEnv, or OPENAI_API_KEY when it is empty.
func (c Config) KeyEnv() string {
	if c.APIKeyEnv != "" {
		return c.APIKeyEnv
	}
	return "OPENAI_API_KEY"
}

// MaxTokensFieldFor is the field a completion cap goes out in under c: MaxTokensField when set, otherwise
// "max_completion_tokens" for OpenAI (api.openai.com) and Azure OpenAI (*.openai.azure.com, and *.azure.com
// base URLs whose path has /openai) and "max_tokens" for every other endpoint. Never "both" unless asked for:
// OpenAI answers a request with both fields 400 "Setting 'max_tokens' and 'max_completion_tokens' at the same
// time is not supported." (code invalid_parameter_combination), VolcEngine likewise.
func (c Config) MaxTokensFieldFor() string {
	if c.MaxTokensField != "" {
		return c.MaxTokensField
	}
	if openAIHost(c.BaseURL) {
		return "max_completion_tokens"
	}
	return "max_tokens"
}

// openAIHost reports whether baseURL is OpenAI's or Azure OpenAI's API.
func openAIHost(baseURL string) bool {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "api.openai.com", strings.HasSuffix(host, ".openai.azure.com"):
		return true
	case host == "azure.com" || strings.HasSuffix(host, ".azure.com"):
		return strings.Contains(strings.ToLower(u.Path), "/openai")
	}
	return false
}

// OmitFields are the values Config.Omit accepts.
var OmitFields = []string{"temperature", "top_p", "seed", "max_tokens"}

// Validate checks the fields New cannot default: Omit values and MaxTokensField. Spec and flag parsing call
// it so a typo fails before a run starts.
func (c Config) Validate() error {
	for _, f := range c.Omit {
		if err := srcerr.OneOf("field", f, OmitFields); err != nil {
			return fmt.Errorf("llm: omit: %w", err)
		}
	}
	if c.MaxTokensField != "" {
		if err := srcerr.OneOf("max_tokens_field", c.MaxTokensField, []string{"max_tokens", "max_completion_tokens", "both"}); err != nil {
			return fmt.Errorf("llm: %w", err)
		}
	}
	if c.MaxConnections < 0 {
		return fmt.Errorf("llm: max_connections %d is negative", c.MaxConnections)
	}
	return nil
}

func (c Config) omits(field string) bool { return slices.Contains(c.Omit, field) }

// Usage counts tokens of one or more calls.
type Usage struct {
	// Prompt is the prompt (input) tokens: usage.prompt_tokens.
	Prompt int `json:"prompt"`
	// Completion is the completion (output, reasoning included) tokens: usage.completion_tokens.
	Completion int `json:"completion"`
	// Estimated: at least one call's endpoint sent no usage; its Prompt/Completion are estimates from bytes
	// (≈ 4 bytes per token: the request JSON for the prompt, the reply's text, reasoning and tool-call names
	// and arguments for the completion). A usage object that is present with zeros is real, not estimated.
	Estimated bool `json:"estimated,omitempty"`
}

// Add returns u + v; the sum is Estimated when either side is.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.Prompt + v.Prompt, u.Completion + v.Completion, u.Estimated || v.Estimated}
}

// Client is a chat-completions client. Safe for concurrent use.
type Client struct {
	cfg  Config
	key  string
	url  string
	http *http.Client
	// ids numbers the generated ids of tool calls that came without one ("call_wb_<n>").
	ids atomic.Int64
	// backoff is the first retry's base wait (500 ms; tests shorten it).
	backoff time.Duration
	// echo decides which provider fields go back on assistant messages.
	echo *echoPolicy
}

// New builds a client. The key is read from the environment variable cfg.APIKeyEnv (default OPENAI_API_KEY);
// an empty key is allowed (local servers need none). Errors: an empty model or base URL, or cfg.Validate's.
func New(cfg Config) (*Client, error) {
	if cfg.Model == "" {
		return nil, errors.New("llm: model name is empty")
	}
	if cfg.BaseURL == "" {
		return nil, errors.New("llm: base URL is empty (set --base-url or model.base_url)")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Retries == 0 {
		cfg.Retries = 4
	}
	if cfg.CallTimeout == 0 {
		cfg.CallTimeout = 120 * time.Second
	}
	env := cfg.KeyEnv()
	base := strings.TrimRight(cfg.BaseURL, "/")
	// The call timeout runs below the limiter, from when a slot is granted (limiter.go: TimeoutTransport);
	// http.Client.Timeout would count the wait for a slot as a slow call.
	transport := TimeoutTransport(cfg.CallTimeout, http.DefaultTransport)
	if cfg.MaxConnections > 0 {
		transport = SharedLimiter(EndpointKey(cfg.BaseURL, cfg.Model), cfg.MaxConnections).Transport(transport)
	}
	return &Client{cfg: cfg, key: os.Getenv(env), url: base + "/chat/completions", backoff: 500 * time.Millisecond,
		http: &http.Client{Transport: transport}, echo: newEchoPolicy(cfg)}, nil
}

// Config returns the client's configuration (no key in it).
func (c *Client) Config() Config { return c.cfg }

// Request is one chat call.
type Request struct {
	// Messages is the conversation, in go-openai's message type (encoded by encodeMessage).
	Messages []openai.ChatCompletionMessage
	// Extras are provider fields to send back on assistant messages, by index into Messages: the Extra of the
	// Response each assistant message came from. Nil entries and indexes of other roles are ignored.
	Extras map[int]*Extra
	// Tools are the function tools offered to the model (sent as "tools"; none when empty).
	Tools []openai.Tool
	// Seed is sent unless Config.NoSeed or Config.Omit has "seed"; nil sends none.
	Seed *int
	// Temperature overrides the config's for this call (the LLM judge uses 0); Config.Omit still wins.
	Temperature *float32
	// Cache, when set, is the attempt's model-cache session: the response is replayed from it while the
	// attempt's requests hit, and stored in it when the call goes to the endpoint (cache.go).
	Cache *CacheSession
}

// Response is one chat result.
type Response struct {
	// Message is the assistant message with its reasoning removed (<think>…</think> blocks stripped from
	// Content, a content array's text parts joined into Content) and its tool calls normalised: object arguments
	// re-encoded as a JSON string, "" or missing arguments as "{}", a missing id replaced by a generated
	// "call_wb_<n>" (the same id is sent back on later turns), a missing type as "function".
	Message openai.ChatCompletionMessage
	// Reasoning is the reasoning text: message.reasoning_content, message.reasoning, the thinking parts of a
	// content array, or the <think> blocks of the content (the first of these that is non-empty; "" when none).
	Reasoning string
	// ReasoningFrom names where Reasoning came from: "reasoning_content", "reasoning", "content_array",
	// "think_tag", or "" when there was none.
	ReasoningFrom string
	// Refusal is message.refusal when the model refused ("" otherwise).
	Refusal string
	// FinishReason is choices[0].finish_reason in OpenAI's vocabulary: "stop", "tool_calls", "length",
	// "content_filter", … (NormalizeFinishReason maps Gemini's "MAX_TOKENS", Anthropic's "end_turn" and the like;
	// "" when null or absent).
	FinishReason string
	// FinishReasonSent is the finish_reason as the server sent it, when NormalizeFinishReason changed it.
	FinishReasonSent string
	// Extra is what must be sent back with this assistant message on later turns (Request.Extras); nil when
	// nothing.
	Extra *Extra
	// Usage is the response's usage, or an estimate marked Estimated when the endpoint sent none.
	Usage Usage
	// Retries is how many retries this call needed.
	Retries int
	// DurationMS is wall time including retries, ms.
	DurationMS int64
	// Cached: the response was replayed from the model cache (Request.Cache); no request reached the endpoint.
	// Usage is then the stored response's, what the call cost when it was made.
	Cached bool
}

// Extra is what an assistant message must carry back to the provider verbatim on later turns.
type Extra struct {
	// ReasoningContent, when non-nil, is sent back as the message's "reasoning_content" (also when empty). It is
	// set when the response's message carried a reasoning_content string: DeepSeek thinking mode answers 400 when
	// an assistant turn with tool calls comes back without it
	// (https://api-docs.deepseek.com/guides/thinking_mode).
	ReasoningContent *string
	// Fields are other message-level provider fields round-tripped unchanged: "extra_content" (Gemini) and
	// "reasoning_details" (OpenRouter). Other unknown response fields are not echoed (strict servers reject
	// them).
	Fields map[string]json.RawMessage
	// ToolCallFields are provider fields of individual tool calls, by tool-call id (after id generation),
	// round-tripped unchanged on that call: Gemini's "extra_content" holding google.thought_signature, which
	// Gemini 3 requires back on every function call (https://ai.google.dev/gemini-api/docs/openai#thinking).
	ToolCallFields map[string]map[string]json.RawMessage
}

// empty reports whether e carries nothing to send back.
func (e *Extra) empty() bool {
	return e == nil || (e.ReasoningContent == nil && len(e.Fields) == 0 && len(e.ToolCallFields) == 0)
}

// Error is a failed call, classified.
type Error struct {
	// Class is the error class (vocab.go): config, auth, quota, rate_limit, context_overflow or infra.
	Class ErrorClass
	// StatusCode is the HTTP status (0 for transport failures), kept also when the body's "error" is a string,
	// an array, HTML or empty.
	StatusCode int
	// Type and Code are the body's error.type and error.code (a number rendered in decimal) when present; for
	// bodies of other shapes the nearest equivalent (TGI's error_type, Google's status).
	Type, Code string
	// Message is the server's own message (for OpenRouter's wrapped provider errors, the wrapper's and the
	// provider's), redacted with RedactString and cut to at most 1000 bytes; "" when the body had none.
	Message string
	// Hint is what to do about it, when known: "base URL should end in /v1", "check the model name (GET
	// <base>/models lists them)", "add omit: [temperature] to the model block", ….
	Hint string
	// Err is the cause (redacted).
	Err error
}

// Error returns "model endpoint (<class>, HTTP <status>): <message>" ("(<class>)" when there was no HTTP
// status, the cause's text when there was no message), then "; hint: <hint>" when a hint is set.
func (e *Error) Error() string {
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	var s string
	if e.StatusCode != 0 {
		s = fmt.Sprintf("model endpoint (%s, HTTP %d): %s", e.Class, e.StatusCode, msg)
	} else {
		s = fmt.Sprintf("model endpoint (%s): %s", e.Class, msg)
	}
	if e.Hint != "" {
		s += "; hint: " + e.Hint
	}
	return s
}

// Unwrap returns the underlying error (for errors.Is/As).
func (e *Error) Unwrap() error { return e.Err }

// maxWait caps one wait between retries.
const maxWait = 120 * time.Second

// Chat sends one request, retrying rate_limit and infra errors up to Config.Retries times with exponential
// backoff (from 500 ms, doubling, with jitter) that waits at least the server's Retry-After header or the
// body's estimated_time; a wait that would pass the context's deadline ends the call with the last error.
// A 4xx naming a provider field the request echoed back (reasoning_content, extra_content,
// reasoning_details: sent only because the endpoint returned it) is retried once at once without it, and the
// client stops sending that field (EchoesOff); only a second refusal is returned. With Request.Cache the reply
// comes from the model cache while the session's requests hit (Response.Cached, nothing sent), and a reply the
// endpoint gives is stored under the request's key as it was first encoded (cache.go). Errors are *Error.
func (c *Client) Chat(ctx context.Context, r Request) (*Response, error) {
	body, err := c.encodeRequest(r)
	if err != nil {
		return nil, &Error{Class: ErrorConfig, Message: RedactString(err.Error()), Err: redact(err)}
	}
	start := time.Now()
	var cc *cacheCall
	var newID func() string
	if r.Cache != nil {
		cc = r.Cache.call(CacheEndpoint(c.cfg.BaseURL), body)
		if cc.key != "" {
			newID = cc.newID
		}
		if resp := c.replay(ctx, cc, body); resp != nil {
			resp.DurationMS = time.Since(start).Milliseconds()
			return resp, nil
		}
	}
	defer cc.done()
	backoff := c.backoff
	var lastErr *Error
	echoRetried := false
	for try := 0; ; try++ {
		resp, raw, wait, cerr := c.post(ctx, body, newID)
		if cerr == nil {
			resp.Retries = try
			resp.DurationMS = time.Since(start).Milliseconds()
			if cc != nil {
				// A cache that cannot be written costs the next run a call, not this one its answer.
				_ = cc.store(c.cfg.Model, r.Seed, raw)
			}
			return resp, nil
		}
		if f := refusedEcho(cerr, body); f != "" && !echoRetried &&
			c.echo.drop(f, fmt.Sprintf("the endpoint refused it (HTTP %d)", cerr.StatusCode)) {
			if nb, err := c.encodeRequest(r); err == nil {
				body, echoRetried = nb, true
				try--
				continue
			}
		}
		lastErr = cerr
		if ctx.Err() != nil {
			return nil, &Error{Class: ErrorInfra, Message: ctx.Err().Error(), Err: ctx.Err()}
		}
		if !lastErr.Class.Retryable() || try >= c.cfg.Retries {
			return nil, lastErr
		}
		w := backoff + time.Duration(rand.Int64N(int64(backoff/4)+1))
		if wait > w {
			w = wait
		}
		if w > maxWait {
			w = maxWait
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < w {
			return nil, lastErr
		}
		select {
		case <-time.After(w):
		case <-ctx.Done():
			return nil, &Error{Class: ErrorInfra, Message: ctx.Err().Error(), Err: ctx.Err()}
		}
		backoff *= 2
	}
}

// replay answers the call from the cache when its key hits, or with the reply to an identical request in flight,
// and that body decodes as a chat.completion; nil otherwise (the session has then diverged: the call goes to
// the endpoint).
func (c *Client) replay(ctx context.Context, cc *cacheCall, body []byte) *Response {
	raw := cc.lookup(ctx)
	if raw == nil {
		return nil
	}
	resp, e := c.decodeResponse(body, raw, cc.newID)
	if e != nil {
		cc.unreplayable()
		return nil
	}
	resp.Cached = true
	return resp
}

// Cost returns the USD cost of usage at the configured prices.
func (c *Client) Cost(u Usage) float64 {
	return float64(u.Prompt)*c.cfg.PricePerMTokIn/1e6 + float64(u.Completion)*c.cfg.PricePerMTokOut/1e6
}

// redact removes anything that looks like a bearer token or API key from an error's text.
func redact(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(RedactString(err.Error()))
}

// RedactString replaces API keys (sk-…, Bearer …) and the value of the configured key variables in s.
func RedactString(s string) string {
	for _, env := range []string{"OPENAI_API_KEY", "OPENROUTER_API_KEY", "WEBBENCH_API_KEY", "JUDGE_API_KEY"} {
		if k := os.Getenv(env); len(k) >= 6 {
			s = strings.ReplaceAll(s, k, "[REDACTED]")
		}
	}
	return keyPattern.ReplaceAllString(s, "[REDACTED]")
}
