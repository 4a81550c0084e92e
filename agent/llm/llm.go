// Package llm is the chat client the agent and the LLM judge use: go-openai against any OpenAI-compatible
// /v1/chat/completions endpoint (OpenAI, OpenRouter, vLLM, Ollama, llama.cpp, or the scripted policy on
// loopback), with retries of 429/5xx honouring Retry-After, usage and cost accounting, and error
// classification (infrastructure vs agent).
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Config selects a model endpoint. A real model is only ever used when chosen explicitly.
type Config struct {
	// Model is the model name sent in requests ("gpt-4o-mini", or "scripted").
	Model string `json:"model" yaml:"name"`
	// BaseURL is the endpoint root including /v1, e.g. "https://api.openai.com/v1".
	BaseURL string `json:"base_url" yaml:"base_url"`
	// APIKeyEnv names the environment variable holding the key (default OPENAI_API_KEY). The key itself is
	// never stored in Config, records or logs.
	APIKeyEnv string `json:"api_key_env,omitempty" yaml:"api_key_env"`
	// Sampling parameters; nil leaves them unset (some reasoning models refuse them).
	Temperature *float32 `json:"temperature,omitempty" yaml:"temperature"`
	TopP        *float32 `json:"top_p,omitempty" yaml:"top_p"`
	MaxTokens   *int     `json:"max_tokens,omitempty" yaml:"max_tokens"`
	// NoSeed sends no seed (providers that reject it).
	NoSeed bool `json:"no_seed,omitempty" yaml:"no_seed"`
	// Retries of 429/5xx/connection errors (default 4); backoff starts at 500 ms, doubles, capped at 30 s,
	// and waits at least Retry-After when the server sends it.
	Retries int `json:"retries,omitempty" yaml:"retries"`
	// PricePerMTokIn/Out in USD per million prompt/completion tokens, for cost_usd (0 = unknown).
	PricePerMTokIn  float64 `json:"price_in,omitempty" yaml:"price_in"`
	PricePerMTokOut float64 `json:"price_out,omitempty" yaml:"price_out"`
	// CallTimeout bounds one HTTP call (default 120 s); the caller's context may cut it shorter.
	CallTimeout time.Duration `json:"-" yaml:"-"`
}

// Usage counts tokens of one or more calls.
type Usage struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
}

// Add returns u + v.
func (u Usage) Add(v Usage) Usage { return Usage{u.Prompt + v.Prompt, u.Completion + v.Completion} }

// Client is a chat-completions client. Safe for concurrent use.
type Client struct {
	cfg Config
	c   *openai.Client
}

// New builds a client. The key is read from the environment variable cfg.APIKeyEnv (default OPENAI_API_KEY);
// an empty key is allowed (local servers need none).
func New(cfg Config) (*Client, error) {
	if cfg.Model == "" {
		return nil, errors.New("llm: model name is empty")
	}
	if cfg.BaseURL == "" {
		return nil, errors.New("llm: base URL is empty (set --base-url or model.base_url)")
	}
	if cfg.Retries == 0 {
		cfg.Retries = 4
	}
	if cfg.CallTimeout == 0 {
		cfg.CallTimeout = 120 * time.Second
	}
	env := cfg.APIKeyEnv
	if env == "" {
		env = "OPENAI_API_KEY"
	}
	oc := openai.DefaultConfig(os.Getenv(env))
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	oc.HTTPClient = &http.Client{Timeout: cfg.CallTimeout, Transport: retryAfterTransport{http.DefaultTransport}}
	return &Client{cfg: cfg, c: openai.NewClientWithConfig(oc)}, nil
}

// Config returns the client's configuration (no key in it).
func (c *Client) Config() Config { return c.cfg }

// Request is one chat call.
type Request struct {
	Messages []openai.ChatCompletionMessage
	Tools    []openai.Tool
	// Seed is sent unless Config.NoSeed; nil sends none.
	Seed *int
	// Temperature overrides the config's for this call (the LLM judge uses 0).
	Temperature *float32
}

// Response is one chat result.
type Response struct {
	Message      openai.ChatCompletionMessage
	FinishReason string
	Usage        Usage
	// Retries is how many retries this call needed.
	Retries int
	// DurationMS is wall time including retries, ms.
	DurationMS int64
}

// Error is a failed call, classified.
type Error struct {
	// Class is "infra" (connection refused, 5xx/429 after retries, timeouts, malformed response),
	// "quota" (402, out of credit or invalid key: the run should stop), "context_overflow" (the provider's
	// context-length error: an agent failure), or "agent" (other 4xx: the request itself was refused).
	Class      ErrorClass
	StatusCode int
	Err        error
}

// Error returns "model endpoint (<class>[, HTTP <status>]): <cause>".
func (e *Error) Error() string {
	if e.StatusCode != 0 {
		return fmt.Sprintf("model endpoint (%s, HTTP %d): %v", e.Class, e.StatusCode, e.Err)
	}
	return fmt.Sprintf("model endpoint (%s): %v", e.Class, e.Err)
}

// Unwrap returns the underlying error (for errors.Is/As).
func (e *Error) Unwrap() error { return e.Err }

// Chat sends one request, retrying 429/5xx/connection errors with exponential backoff honouring Retry-After.
// Errors are *Error.
func (c *Client) Chat(ctx context.Context, r Request) (*Response, error) {
	req := openai.ChatCompletionRequest{Model: c.cfg.Model, Messages: r.Messages, Tools: r.Tools}
	if c.cfg.Temperature != nil {
		req.Temperature = *c.cfg.Temperature
	}
	if r.Temperature != nil {
		req.Temperature = *r.Temperature
	}
	// go-openai omits a zero temperature from the JSON (omitempty), which leaves the provider's default (often
	// 1); an explicit 0 is written back into the body by the transport.
	zeroTemp := (r.Temperature != nil && *r.Temperature == 0) ||
		(r.Temperature == nil && c.cfg.Temperature != nil && *c.cfg.Temperature == 0)
	if c.cfg.TopP != nil {
		req.TopP = *c.cfg.TopP
	}
	if c.cfg.MaxTokens != nil {
		req.MaxCompletionTokens = *c.cfg.MaxTokens
	}
	if r.Seed != nil && !c.cfg.NoSeed {
		req.Seed = r.Seed
	}
	start := time.Now()
	backoff := 500 * time.Millisecond
	var lastErr *Error
	for try := 0; ; try++ {
		hint := new(time.Duration)
		cctx := context.WithValue(ctx, retryAfterKey{}, hint)
		if zeroTemp {
			cctx = context.WithValue(cctx, zeroTempKey{}, true)
		}
		resp, err := c.c.CreateChatCompletion(cctx, req)
		if err == nil {
			if len(resp.Choices) == 0 {
				lastErr = &Error{Class: ErrorInfra, Err: errors.New("response has no choices")}
			} else {
				ch := resp.Choices[0]
				return &Response{Message: ch.Message, FinishReason: string(ch.FinishReason),
					Usage:   Usage{resp.Usage.PromptTokens, resp.Usage.CompletionTokens},
					Retries: try, DurationMS: time.Since(start).Milliseconds()}, nil
			}
		} else {
			lastErr = classify(err)
		}
		if ctx.Err() != nil {
			return nil, &Error{Class: ErrorInfra, Err: ctx.Err()}
		}
		if lastErr.Class != ErrorInfra || try >= c.cfg.Retries {
			return nil, lastErr
		}
		wait := backoff + time.Duration(rand.Int64N(int64(backoff/4)+1))
		if *hint > wait {
			wait = *hint
		}
		if wait > 30*time.Second {
			wait = 30 * time.Second
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, lastErr
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, &Error{Class: ErrorInfra, Err: ctx.Err()}
		}
		backoff *= 2
	}
}

// Cost returns the USD cost of usage at the configured prices.
func (c *Client) Cost(u Usage) float64 {
	return float64(u.Prompt)*c.cfg.PricePerMTokIn/1e6 + float64(u.Completion)*c.cfg.PricePerMTokOut/1e6
}

func classify(err error) *Error {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	status := 0
	if errors.As(err, &apiErr) {
		status = apiErr.HTTPStatusCode
	} else if errors.As(err, &reqErr) {
		status = reqErr.HTTPStatusCode
	}
	msg := strings.ToLower(err.Error())
	switch {
	case status == 402 || status == 401 || status == 403 ||
		strings.Contains(msg, "insufficient_quota") || strings.Contains(msg, "insufficient credit"):
		return &Error{Class: ErrorQuota, StatusCode: status, Err: redact(err)}
	case strings.Contains(msg, "context_length") || strings.Contains(msg, "maximum context length") ||
		strings.Contains(msg, "context length"):
		return &Error{Class: ErrorContextOverflow, StatusCode: status, Err: redact(err)}
	case status == 429 || status >= 500 || status == 408:
		return &Error{Class: ErrorInfra, StatusCode: status, Err: redact(err)}
	case status >= 400:
		return &Error{Class: ErrorAgent, StatusCode: status, Err: redact(err)}
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || strings.Contains(msg, "connection refused") ||
		strings.Contains(msg, "eof") || strings.Contains(msg, "unmarshal") || strings.Contains(msg, "invalid character") {
		return &Error{Class: ErrorInfra, StatusCode: status, Err: redact(err)}
	}
	return &Error{Class: ErrorInfra, StatusCode: status, Err: redact(err)}
}

type retryAfterKey struct{}

// retryAfterTransport records a response's Retry-After header into the *time.Duration the request's context
// carries: go-openai keeps no headers on its errors.
type retryAfterTransport struct{ next http.RoundTripper }

func (t retryAfterTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if on, _ := r.Context().Value(zeroTempKey{}).(bool); on && r.Body != nil {
		r = withZeroTemperature(r)
	}
	resp, err := t.next.RoundTrip(r)
	if err == nil && resp != nil {
		if h, ok := r.Context().Value(retryAfterKey{}).(*time.Duration); ok && h != nil {
			*h = parseRetryAfter(resp.Header.Get("Retry-After"))
		}
	}
	return resp, err
}

// zeroTempKey marks a request whose JSON body must carry "temperature": 0 (see Chat).
type zeroTempKey struct{}

// withZeroTemperature returns r with "temperature": 0 added to its JSON body when the body has no temperature;
// r itself (with its body restored) when the body is not a JSON object.
func withZeroTemperature(r *http.Request) *http.Request {
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	restore := func(b []byte) *http.Request {
		r2 := r.Clone(r.Context())
		r2.Body = io.NopCloser(bytes.NewReader(b))
		r2.ContentLength = int64(len(b))
		r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		return r2
	}
	if err != nil {
		return restore(body)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return restore(body)
	}
	if _, ok := m["temperature"]; ok {
		return restore(body)
	}
	m["temperature"] = json.RawMessage("0")
	nb, err := json.Marshal(m)
	if err != nil {
		return restore(body)
	}
	return restore(nb)
}

// parseRetryAfter reads a Retry-After header: delta-seconds or an HTTP date.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
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
