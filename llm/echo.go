package llm

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// echoPolicy decides which provider fields an assistant message carries back (Extra): all that the provider
// returned, except the fields of echoFields the endpoint is known or was seen to refuse. Safe for concurrent
// use (one per Client, shared by the workers of a run).
type echoPolicy struct {
	mu  sync.Mutex
	off map[string]string // field → why it is not sent
}

// strictEchoModels are model-name fragments of providers that validate messages strictly and refuse fields
// they did not define: Mistral's API answers 422 extra_forbidden on assistant.reasoning_content
// (https://github.com/charmbracelet/crush/issues/1590), also behind LiteLLM
// (https://github.com/BerriAI/litellm/issues/30835).
var strictEchoModels = []string{"mistral", "magistral", "devstral", "codestral", "ministral", "pixtral"}

// newEchoPolicy is the policy for cfg: reasoning_content is not echoed to Mistral (api.mistral.ai, or a model
// name of strictEchoModels); everything else is, until the endpoint refuses it.
func newEchoPolicy(cfg Config) *echoPolicy {
	p := &echoPolicy{off: map[string]string{}}
	host := ""
	if u, err := url.Parse(cfg.BaseURL); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	model := strings.ToLower(cfg.Model)
	if host == "api.mistral.ai" || containsAny(model, strictEchoModels) {
		p.off["reasoning_content"] = "Mistral refuses fields it did not define (422 extra_forbidden)"
	}
	return p
}

// sends reports whether field goes back.
func (p *echoPolicy) sends(field string) bool {
	if p == nil {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, off := p.off[field]
	return !off
}

// drop stops sending field; it reports whether it was sent until now.
func (p *echoPolicy) drop(field, why string) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, off := p.off[field]; off {
		return false
	}
	p.off[field] = why
	return true
}

// EchoesOff lists the provider fields the client does not send back, with why, sorted ("reasoning_content:
// the endpoint refused it (HTTP 422)"): detected from the endpoint or learned from a refusal.
func (c *Client) EchoesOff() []string {
	if c.echo == nil {
		return nil
	}
	c.echo.mu.Lock()
	defer c.echo.mu.Unlock()
	var out []string
	for f, why := range c.echo.off {
		out = append(out, f+": "+why)
	}
	sort.Strings(out)
	return out
}

// refusedEcho is the field of echoFields a 4xx refused, when the request body sent it and the error's text
// names it (Mistral's 422 extra_forbidden with loc [… "assistant", "reasoning_content"], a gateway's "Unknown
// field extra_content"); "" otherwise. Auth, quota, not-found and rate-limit answers never qualify.
func refusedEcho(e *Error, body []byte) string {
	switch {
	case e == nil || e.StatusCode < 400 || e.StatusCode > 499,
		e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden ||
			e.StatusCode == http.StatusNotFound || e.StatusCode == http.StatusTooManyRequests,
		e.Class != ErrorConfig:
		return ""
	}
	text := strings.ToLower(e.Message + " " + e.Type + " " + e.Code)
	for _, f := range echoFields {
		if strings.Contains(text, f) && bytes.Contains(body, []byte(`"`+f+`":`)) {
			return f
		}
	}
	return ""
}

// SanitizeArguments makes tool-call arguments what every server accepts back in a conversation: a JSON
// object. Arguments that are one JSON object are returned as they are (changed false). Otherwise changed is
// true and clean is the first JSON object of concatenated ones ({…}{…}, Gemini's parallel calls through its
// OpenAI layer, https://github.com/NousResearch/hermes-agent/issues/62940), or "{}" (arguments cut at the token
// limit, or not an object): llama.cpp answers 500 and vLLM 400 to a conversation carrying arguments it cannot
// parse (https://github.com/ggml-org/llama.cpp/issues/25510, https://github.com/vllm-project/vllm/pull/48922).
// Empty arguments become "{}" unchanged.
func SanitizeArguments(args string) (clean string, changed bool) {
	t := strings.TrimSpace(args)
	if t == "" {
		return "{}", false
	}
	if json.Valid([]byte(t)) && t[0] == '{' {
		return args, false
	}
	dec := json.NewDecoder(strings.NewReader(t))
	var first json.RawMessage
	if dec.Decode(&first) == nil && len(first) > 0 && first[0] == '{' {
		var buf bytes.Buffer
		if json.Compact(&buf, first) == nil {
			return buf.String(), true
		}
	}
	return "{}", true
}
