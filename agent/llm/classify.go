package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxMessage caps Error.Message, bytes.
const maxMessage = 1000

// errorInfo is what an error body says, whatever its shape.
type errorInfo struct {
	Message, Type, Code, Param string
	// EstimatedTime is the body's estimated_time in seconds (Hugging Face's Inference API while a model loads).
	EstimatedTime float64
	// Shape names the body's shape for the hint: "json", "text", "html", "empty".
	Shape string
}

// parseErrorBody reads an error body of any of the shapes real servers send:
//   - OpenAI and most compatible servers: {"error":{"message","type","param","code"}} (code a string or a
//     number);
//   - vLLM before its ErrorResponse change: {"object":"error","message","type","param","code"} (top level);
//   - vLLM's auth middleware, TGI, HF Inference API: {"error":"…"} with error_type / estimated_time beside it;
//   - Gemini's compatibility layer: an array [{"error":{"code","message","status"}}];
//   - OpenRouter: {"error":{"message":"Provider returned error","code":N,"metadata":{"raw":"<provider body>",
//     "provider_name":…}}}, the provider's body (JSON or text) read recursively;
//   - FastAPI/Starlette: {"detail":"Not Found"} or a detail array;
//   - plain text ("404 page not found", Go's default mux and Gin), HTML error pages, an empty body.
func parseErrorBody(raw []byte) errorInfo {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return errorInfo{Shape: "empty"}
	}
	switch t[0] {
	case '[':
		var arr []json.RawMessage
		if json.Unmarshal(t, &arr) == nil {
			if len(arr) == 0 {
				return errorInfo{Shape: "empty"}
			}
			return parseErrorBody(arr[0])
		}
	case '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(t, &m) == nil {
			return parseErrorObject(m)
		}
	case '"':
		var s string
		if json.Unmarshal(t, &s) == nil {
			return errorInfo{Message: s, Shape: "text"}
		}
	}
	text := string(t)
	if looksHTML(text) {
		return errorInfo{Message: htmlText(text), Shape: "html"}
	}
	return errorInfo{Message: collapseSpace(text), Shape: "text"}
}

// parseErrorObject reads a JSON object error body (see parseErrorBody).
func parseErrorObject(m map[string]json.RawMessage) errorInfo {
	info := errorInfo{Shape: "json"}
	info.EstimatedTime = jsonNumber(m["estimated_time"])
	if e, ok := m["error"]; ok {
		et := bytes.TrimSpace(e)
		switch {
		case len(et) > 0 && et[0] == '"':
			_ = json.Unmarshal(et, &info.Message)
		case len(et) > 0 && et[0] == '{':
			var inner map[string]json.RawMessage
			if json.Unmarshal(et, &inner) == nil {
				info.Message = jsonText(inner["message"])
				info.Type = jsonText(inner["type"])
				info.Code = jsonText(inner["code"])
				info.Param = jsonText(inner["param"])
				if info.Type == "" {
					info.Type = jsonText(inner["status"]) // Google: "INVALID_ARGUMENT"
				}
				if info.EstimatedTime == 0 {
					info.EstimatedTime = jsonNumber(inner["estimated_time"])
				}
				if md, ok := inner["metadata"]; ok {
					mergeProvider(&info, md)
				}
			}
		}
	}
	if info.Message == "" {
		info.Message = jsonText(m["message"]) // vLLM's older top-level ErrorResponse
		if info.Message == "" {
			info.Message = jsonText(m["detail"]) // FastAPI
		}
	}
	if info.Type == "" {
		info.Type = jsonText(m["type"])
		if info.Type == "error" { // Anthropic's envelope {"type":"error","error":{…}}
			info.Type = ""
		}
		if info.Type == "" {
			info.Type = jsonText(m["error_type"]) // TGI
		}
	}
	if info.Code == "" {
		info.Code = jsonText(m["code"])
	}
	return info
}

// mergeProvider folds OpenRouter's error.metadata into info: the provider's own body (metadata.raw, JSON or
// text) becomes part of the message, and its type/code are used when the wrapper has none.
func mergeProvider(info *errorInfo, md json.RawMessage) {
	var meta struct {
		Raw          json.RawMessage `json:"raw"`
		ProviderName string          `json:"provider_name"`
	}
	if json.Unmarshal(md, &meta) != nil || len(meta.Raw) == 0 {
		return
	}
	raw := []byte(meta.Raw)
	var s string
	if json.Unmarshal(meta.Raw, &s) == nil {
		raw = []byte(s)
	}
	p := parseErrorBody(raw)
	if p.Message == "" {
		return
	}
	msg := p.Message
	if meta.ProviderName != "" {
		msg = meta.ProviderName + ": " + msg
	}
	if info.Message == "" {
		info.Message = msg
	} else {
		info.Message += " (" + msg + ")"
	}
	if p.Type != "" && (info.Type == "" || info.Type == "provider_error") {
		info.Type = p.Type
	}
	if _, numeric := strconv.Atoi(p.Code); p.Code != "" && (numeric != nil || info.Code == "") {
		info.Code = p.Code // the provider's symbolic code ("context_length_exceeded") over the wrapper's number
	}
}

// jsonText renders a JSON scalar as text: a string as itself, a number in decimal, null/absent as "". Objects
// and arrays are rendered compactly (FastAPI's detail arrays).
func jsonText(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(t, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(t, &n) == nil {
		return n.String()
	}
	var buf bytes.Buffer
	if json.Compact(&buf, t) == nil {
		return buf.String()
	}
	return string(t)
}

// jsonNumber reads a JSON number (0 when absent or not a number).
func jsonNumber(raw json.RawMessage) float64 {
	var f float64
	if len(raw) == 0 || json.Unmarshal(raw, &f) != nil {
		return 0
	}
	return f
}

// overflowMarkers are the lower-cased fragments of every server's context-length error message (and codes /
// types) that classify as context_overflow. Each is covered by TestClassifyServerBodies with the server's full
// text and its source.
var overflowMarkers = []string{
	"context_length_exceeded",                      // OpenAI, Azure, Groq code
	"maximum context length",                       // OpenAI (older), vLLM (older), DeepSeek, OpenRouter
	"exceeds the context window",                   // OpenAI (newer): "Your input exceeds the context window of this model"
	"longer than the maximum model length",         // vLLM v1: "The decoder prompt (length N) is longer than …"
	"exceeds the available context size",           // llama.cpp server
	"exceed_context_size_error",                    // llama.cpp server error type
	"reduce the length of the messages",            // Groq, Cerebras, OpenAI
	"prompt is too long",                           // Anthropic (also via its OpenAI layer)
	"exceed context limit",                         // Anthropic: "input length and `max_tokens` exceed context limit: N + M > L"
	"input token count",                            // Gemini: "The input token count (N) exceeds the maximum number of tokens allowed (M)"
	"exceeds the maximum number of tokens allowed", // Gemini
	"`inputs` tokens + `max_new_tokens`",           // TGI, Together, HF Inference API
	"`inputs` must have less than",                 // TGI
	"context length",                               // Mistral "too large for model with N maximum context length", LM Studio, generic
	"context window",                               // generic
	"too many tokens",                              // generic
}

// quotaMarkers are the lower-cased fragments of out-of-quota / out-of-credit messages and codes.
var quotaMarkers = []string{
	"insufficient_quota",                     // OpenAI code and type
	"exceeded your current quota",            // OpenAI message
	"insufficient credit",                    // OpenRouter "Insufficient credits", others
	"insufficient_credit",                    //
	"out of credit",                          //
	"credit balance is too low",              // Anthropic (returned as 400 invalid_request_error)
	"insufficient balance",                   // DeepSeek 402 "Insufficient Balance"
	"billing_hard_limit_reached",             // OpenAI
	"exceeded your monthly included credits", // Hugging Face router
	"enforced_spend_limit_reached",           // Anthropic 429 rate_limit_error with error.details.error_code
}

// loadingMarkers mark a 503 as "not ready yet" (rate_limit) rather than broken (infra).
var loadingMarkers = []string{"loading", "overloaded", "estimated_time", "try again later", "capacity"}

// routeNotFound matches 404 bodies of a router that has no such route (not a model that does not exist): Go's
// and Gin's "404 page not found", FastAPI's "Not Found", Express's "Cannot POST /chat/completions".
var routeNotFound = regexp.MustCompile(`(?i)^(404 page not found|not found|cannot post .*|404: not found|404 not found)$`)

// classify turns an HTTP error status and body into an *Error, and the wait the body asks for before a retry
// (estimated_time). The rules, in order:
//   - 401, 403 → auth;
//   - 402, or a quota marker in the message/type/code (any 4xx) → quota;
//   - an overflow marker (any status but 429) → context_overflow; 413 (a proxy's or Anthropic's request too
//     large: the conversation outgrew what the endpoint accepts) → context_overflow;
//   - 429 → rate_limit; 503 with a loading marker or estimated_time → rate_limit; 529 → rate_limit;
//   - 404, 405 → config, hinting at the base URL when the body is a router's "not found" (or empty/HTML), at
//     the model name otherwise;
//   - 408, 409, 424 (TGI's generation error), 425 → infra; other 4xx → config (unsupported parameters named in the hint);
//   - 5xx and anything else → infra.
func (c *Client) classify(status int, raw []byte) (*Error, time.Duration) {
	info := parseErrorBody(raw)
	e := &Error{StatusCode: status, Type: c.clip(info.Type), Code: c.clip(info.Code), Message: c.clip(info.Message)}
	text := strings.ToLower(info.Message + " " + info.Type + " " + info.Code)
	rawText := strings.ToLower(string(raw))
	has := func(markers []string) bool {
		for _, m := range markers {
			if strings.Contains(text, m) {
				return true
			}
		}
		return false
	}
	quota := func() bool {
		if googleRetryable(info, rawText) {
			return false
		}
		for _, m := range quotaMarkers {
			if strings.Contains(text, m) || strings.Contains(rawText, m) {
				return true
			}
		}
		return false
	}
	wait := time.Duration(info.EstimatedTime * float64(time.Second))
	if d := retryDelay(rawText); d > wait {
		wait = d
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Class = ErrorAuth
		e.Hint = "check the API key (environment variable " + c.keyEnv() + ")"
		if quota() {
			e.Class, e.Hint = ErrorQuota, "add credit or raise the quota of the account"
		}
	case status == http.StatusPaymentRequired || (status >= 400 && status < 500 && quota()):
		e.Class, e.Hint = ErrorQuota, "add credit or raise the quota of the account"
	case status != http.StatusTooManyRequests && has(overflowMarkers):
		e.Class = ErrorContextOverflow
	case status == http.StatusRequestEntityTooLarge:
		e.Class = ErrorContextOverflow
		e.Hint = "the request body is larger than the endpoint accepts"
	case status == http.StatusTooManyRequests || status == 529:
		e.Class = ErrorRateLimit
	case status == http.StatusServiceUnavailable && (info.EstimatedTime > 0 || has(loadingMarkers)):
		e.Class = ErrorRateLimit
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
		e.Class = ErrorConfig
		msg := strings.TrimSpace(info.Message)
		if info.Shape == "empty" || info.Shape == "html" || routeNotFound.MatchString(msg) ||
			status == http.StatusMethodNotAllowed {
			e.Hint = "base URL should end in /v1 (requests go to " + c.url + ")"
		} else {
			e.Hint = "check the model name " + strconv.Quote(c.cfg.Model) + " (GET " +
				strings.TrimSuffix(c.url, "/chat/completions") + "/models lists them)"
		}
	case status == http.StatusRequestTimeout || status == http.StatusConflict || status == http.StatusTooEarly ||
		status == http.StatusFailedDependency: // TGI: 424 "Request failed during generation"
		e.Class = ErrorInfra
	case status >= 400 && status < 500:
		e.Class = ErrorConfig
		e.Hint = c.invalidRequestHint(text, info.Param)
	default:
		e.Class = ErrorInfra
	}
	cause := fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	if info.Message == "" {
		cause += ", " + info.Shape + " body"
	}
	e.Err = errors.New(cause)
	return e, wait
}

// googleRetryable reports whether a Google RESOURCE_EXHAUSTED body is a per-minute limit to wait out rather
// than an exhausted quota: Gemini's free tier answers 429 "You exceeded your current quota, … Please retry in
// 11.1s." for both, and "limit: 0" (no free quota for the model at all) never clears.
func googleRetryable(info errorInfo, rawText string) bool {
	return info.Type == "RESOURCE_EXHAUSTED" && retryDelay(rawText) > 0 && !strings.Contains(rawText, "limit: 0")
}

var (
	retryInPattern    = regexp.MustCompile(`(?:retry|try again) in ([0-9]+(?:\.[0-9]+)?)(ms|s)\b`)
	retryDelayPattern = regexp.MustCompile(`"retrydelay":\s*"([0-9]+(?:\.[0-9]+)?)s"`)
)

// retryDelay reads the wait an error body asks for, from the lower-cased body: Google's "Please retry in
// 11.1s." and RetryInfo "retryDelay": "33s", OpenAI's "Please try again in 9.816s." / "in 644ms."; 0 when none.
func retryDelay(rawText string) time.Duration {
	for _, p := range []*regexp.Regexp{retryDelayPattern, retryInPattern} {
		if m := p.FindStringSubmatch(rawText); m != nil {
			if f, err := strconv.ParseFloat(m[1], 64); err == nil {
				unit := time.Second
				if len(m) > 2 && m[2] == "ms" {
					unit = time.Millisecond
				}
				return time.Duration(f * float64(unit))
			}
		}
	}
	return 0
}

// invalidRequestHint names the fix of a 400/422 that is not an overflow, when the message says which parameter
// the endpoint refused.
func (c *Client) invalidRequestHint(text, param string) string {
	switch {
	case strings.Contains(text, "no models loaded"):
		return "load the model in the server (LM Studio: lms load <model>)"
	case strings.Contains(text, "unsupported") || strings.Contains(text, "not supported") ||
		strings.Contains(text, "does not support") ||
		strings.Contains(text, "unrecognized request argument") || strings.Contains(text, "unknown parameter") ||
		strings.Contains(text, "extra inputs are not permitted"):
		switch {
		case param == "max_tokens" || strings.Contains(text, "'max_tokens' is not supported"):
			return "set max_tokens_field: max_completion_tokens in the model block"
		case param == "max_completion_tokens" || strings.Contains(text, "max_completion_tokens"):
			return "set max_tokens_field: max_tokens in the model block"
		}
		for _, f := range OmitFields {
			if param == f || strings.Contains(text, "'"+f+"'") || strings.Contains(text, "`"+f+"`") ||
				strings.Contains(text, "\""+f+"\"") || strings.Contains(text, " "+f+" ") {
				return "add omit: [" + f + "] to the model block"
			}
		}
		if strings.Contains(text, "tool") {
			return "the model or server does not support tool calling"
		}
	}
	return ""
}

// transportError classifies a failure below HTTP (connection refused, DNS, TLS, timeouts, a cut body): infra.
func (c *Client) transportError(err error) *Error {
	e := &Error{Class: ErrorInfra, Message: c.clip(err.Error()), Err: c.redactErr(err)}
	if errors.Is(err, context.DeadlineExceeded) {
		e.Hint = "the call took longer than its timeout"
	}
	return e
}

func (c *Client) keyEnv() string {
	if c.cfg.APIKeyEnv != "" {
		return c.cfg.APIKeyEnv
	}
	return "OPENAI_API_KEY"
}

// redact is RedactString plus the client's own key (whatever variable it came from).
func (c *Client) redact(s string) string {
	if len(c.key) >= 6 {
		s = strings.ReplaceAll(s, c.key, "[REDACTED]")
	}
	return RedactString(s)
}

func (c *Client) redactErr(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(c.redact(err.Error()))
}

// clip redacts s and cuts it to maxMessage bytes on a rune boundary.
func (c *Client) clip(s string) string {
	s = c.redact(strings.TrimSpace(s))
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// bodyText is a body as text for a message: HTML reduced to its text, whitespace collapsed.
func bodyText(raw []byte) string {
	s := strings.TrimSpace(string(raw))
	if looksHTML(s) {
		return htmlText(s)
	}
	return collapseSpace(s)
}

var (
	tagPattern   = regexp.MustCompile(`(?s)<[^>]*>`)
	skipPattern  = regexp.MustCompile(`(?is)<(script|style|head)[^>]*>.*?</(script|style|head)>`)
	titlePattern = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
)

func looksHTML(s string) bool {
	l := strings.ToLower(strings.TrimSpace(s))
	return strings.HasPrefix(l, "<!doctype html") || strings.HasPrefix(l, "<html") ||
		(strings.HasPrefix(l, "<") && strings.Contains(l, "</"))
}

// htmlText is an HTML page's title and visible text, whitespace collapsed.
func htmlText(s string) string {
	title := ""
	if m := titlePattern.FindStringSubmatch(s); m != nil {
		title = collapseSpace(html.UnescapeString(tagPattern.ReplaceAllString(m[1], " ")))
	}
	body := collapseSpace(html.UnescapeString(tagPattern.ReplaceAllString(skipPattern.ReplaceAllString(s, " "), " ")))
	switch {
	case title == "":
		return body
	case body == "" || body == title:
		return title
	case strings.HasPrefix(body, title):
		return body
	}
	return title + ": " + body
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
