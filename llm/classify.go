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
// types) that classify as context_overflow, on a 4xx other than 429 (or a 2xx carrying an error) only: a 5xx
// is the endpoint failing, not the conversation, except for the servers of overflowMarkers5xx. Each is covered by
// TestClassifyServerBodies with the server's full text and its source.
//
// The last three are generic. Non-overflow errors that contain them and are kept out by an earlier rule or by
// a test: Groq's and OpenAI's "Request too large … on tokens per min" (a rate tier, not the window; the TPM
// rule runs first). A 400 about the completion cap alone — OpenAI's "max_tokens is too large: N. This model
// supports at most M completion tokens" — names no context and stays config; vLLM's "'max_tokens' or
// 'max_completion_tokens' is too large: N. This model's maximum context length is L tokens and your request
// has P input tokens" is an overflow: the prompt has grown into the room the cap needs.
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

// overflowMarkers5xx are the overflow messages of servers known to answer an overflow with HTTP 500: llama.cpp
// builds before ggml-org/llama.cpp PR 15780 (exceed_context_size_error as a 500), and vLLM behind Xinference
// (langchain-ai/deepagents#468: "The decoder prompt (length N) is longer than the maximum model length").
// Any other 5xx is infra whatever its text.
var overflowMarkers5xx = []string{
	"exceeds the available context size",
	"exceed_context_size_error",
	"longer than the maximum model length",
}

// contentFilterMarkers mark a refusal of the request's content by a moderation layer (class content_filter):
// Azure OpenAI's code content_filter / innererror.code ResponsibleAIPolicyViolation, OpenAI's code
// invalid_prompt ("your prompt was flagged as potentially violating our usage policy"), OpenRouter's 403
// moderation ("… requires moderation … flagged", error.metadata.reasons / flagged_input).
var contentFilterMarkers = []string{
	"content_filter",
	"responsibleaipolicyviolation",
	"invalid_prompt",
	"content management policy",
	"flagged_input",
}

// dailyLimitMarkers mark a rate limit that lasts the day, on a 429: waiting it out inside a run is not possible,
// so it is quota. Groq's "on tokens per day (TPD)" is backed by a body (continuedev/continue#10920);
// "(RPD)" / "requests per day" follow Groq's documented limit names but no captured body was found.
var dailyLimitMarkers = []string{"per day (tpd)", "per day (rpd)", "tokens per day", "requests per day"}

// quotaCodes are the error codes/types (exact, any case) of an out-of-quota account: OpenAI's insufficient_quota
// and billing_hard_limit_reached. They are matched on the body's code and type fields, not on its text.
var quotaCodes = []string{"insufficient_quota", "billing_hard_limit_reached"}

// quotaMarkers are the lower-cased fragments of out-of-quota / out-of-credit messages.
var quotaMarkers = []string{
	"exceeded your current quota",            // OpenAI message
	"insufficient credit",                    // OpenRouter "Insufficient credits", others
	"insufficient_credit",                    //
	"out of credit",                          //
	"credit balance is too low",              // Anthropic (returned as 400 invalid_request_error)
	"insufficient balance",                   // DeepSeek 402 "Insufficient Balance"
	"exceeded your monthly included credits", // Hugging Face router
	"enforced_spend_limit_reached",           // Anthropic 429 rate_limit_error with error.details.error_code
}

// loadingMarkers mark a 503 as "not ready yet" (rate_limit) rather than broken (infra).
// "server busy" is Ollama's full request queue (server/sched.go ErrMaxQueue, OLLAMA_MAX_QUEUE): back-pressure, like a 429.
var loadingMarkers = []string{"loading", "overloaded", "estimated_time", "try again later", "capacity", "server busy"}

// routeNotFound matches 404 bodies of a router that has no such route (not a model that does not exist): Go's
// and Gin's "404 page not found", FastAPI's "Not Found", Express's "Cannot POST /chat/completions".
var routeNotFound = regexp.MustCompile(`(?i)^(404 page not found|not found|cannot post .*|404: not found|404 not found)$`)

// classify turns an HTTP error status and body into an *Error, and the wait the body asks for before a retry
// (estimated_time, "try again in …"). The rules, in order:
//   - 401, 403 → auth; but a quota code/marker → quota, and OpenRouter's 403 moderation (a content-filter
//     marker, or "flagged") → content_filter;
//   - Google's API_KEY_INVALID / "API key not valid" (Gemini answers 400 INVALID_ARGUMENT) → auth;
//   - a content-filter marker on a 4xx (Azure content_filter / ResponsibleAIPolicyViolation, OpenAI
//     invalid_prompt) → content_filter (not fatal, not retried);
//   - Groq's code tool_use_failed on a 4xx (the model emitted a malformed tool call) → agent (failure_mode
//     model_error; not fatal, not retried);
//   - "Request too large for … on tokens per min" (Groq 413 and OpenAI 429: the request alone exceeds the
//     account's TPM, it can never succeed at this tier) → quota;
//   - 429 on a daily limit (TPD, RPD, "per day") or asking for a wait longer than maxWait (Groq's
//     "try again in 6m54.72s") → quota, hint "daily limit reached";
//   - 402, or a quota code (insufficient_quota, billing_hard_limit_reached in code/type) or quota marker in
//     the message on any 4xx → quota;
//   - an overflow marker on a 4xx other than 429 (or on a 2xx carrying an error object) → context_overflow,
//     and on a 5xx only the markers of servers known to send overflows as 500 (overflowMarkers5xx); 413 (a proxy's or Anthropic's request
//     too large: the conversation outgrew what the endpoint accepts) → context_overflow;
//   - 429 → rate_limit; 503 with a loading marker or estimated_time → rate_limit; 529 → rate_limit;
//   - 404, 405 → config, hinting at the base URL when the body is a router's "not found" (or empty/HTML),
//     OpenAI's "Invalid URL (POST /…)" / "Unknown request URL", or Azure's "Resource not found" (naming the
//     deployment path), at the model name otherwise;
//   - 408, 409, 424 (TGI's generation error), 425 → infra; other 4xx → config (unsupported parameters named in
//     the hint);
//   - 5xx and anything else → infra (overflow and other markers are not read on a 5xx).
func (c *Client) classify(status int, raw []byte) (*Error, time.Duration) {
	info := parseErrorBody(raw)
	e := &Error{StatusCode: status, Type: c.clip(info.Type), Code: c.clip(info.Code), Message: c.clip(info.Message)}
	text := strings.ToLower(info.Message + " " + info.Type + " " + info.Code)
	rawText := strings.ToLower(string(raw))
	is4xx := status >= 400 && status < 500
	has := func(markers []string) bool {
		for _, m := range markers {
			if strings.Contains(text, m) {
				return true
			}
		}
		return false
	}
	hasRaw := func(markers []string) bool {
		for _, m := range markers {
			if strings.Contains(rawText, m) {
				return true
			}
		}
		return false
	}
	quota := func() bool {
		if googleRetryable(info, rawText) {
			return false
		}
		for _, q := range quotaCodes {
			if strings.EqualFold(info.Code, q) || strings.EqualFold(info.Type, q) {
				return true
			}
		}
		return has(quotaMarkers) || hasRaw(quotaMarkers)
	}
	wait := time.Duration(info.EstimatedTime * float64(time.Second))
	if d := retryDelay(rawText); d > wait {
		wait = d
	}
	contentFilter := has(contentFilterMarkers) || hasRaw(contentFilterMarkers)
	const quotaHint = "add credit or raise the quota of the account"
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Class = ErrorAuth
		e.Hint = "check the API key (environment variable " + c.cfg.KeyEnv() + ")"
		switch {
		case quota():
			e.Class, e.Hint = ErrorQuota, quotaHint
		case status == http.StatusForbidden && (contentFilter || strings.Contains(text, "flagged")):
			e.Class, e.Hint = ErrorContentFilter, "the endpoint's moderation refused the request's content"
		}
	case is4xx && (strings.Contains(rawText, "api_key_invalid") || strings.Contains(text, "api key not valid")):
		e.Class = ErrorAuth
		e.Hint = "check the API key (environment variable " + c.cfg.KeyEnv() + ")"
	case is4xx && contentFilter:
		e.Class, e.Hint = ErrorContentFilter, "the endpoint's content filter refused the request (page content or prompt)"
	case is4xx && strings.EqualFold(info.Code, "tool_use_failed"):
		e.Class, e.Hint = ErrorAgent, "the model produced a malformed tool call"
	case is4xx && strings.Contains(text, "request too large") && strings.Contains(text, "tokens per min"):
		e.Class = ErrorQuota
		e.Hint = "the request is larger than the account's tokens-per-minute limit: use a higher tier or a model with a larger limit"
	case status == http.StatusTooManyRequests && (has(dailyLimitMarkers) || wait > maxWait):
		e.Class, e.Hint = ErrorQuota, "daily limit reached"
		if !has(dailyLimitMarkers) {
			e.Hint = fmt.Sprintf("daily limit reached (the endpoint asks to wait %s)", wait.Round(time.Second))
		}
	case status == http.StatusPaymentRequired || (is4xx && quota()):
		e.Class, e.Hint = ErrorQuota, quotaHint
	case (is4xx && status != http.StatusTooManyRequests || status >= 200 && status < 300) && has(overflowMarkers),
		status >= 500 && has(overflowMarkers5xx):
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
		e.Hint = c.notFoundHint(info, status)
	case status == http.StatusRequestTimeout || status == http.StatusConflict || status == http.StatusTooEarly ||
		status == http.StatusFailedDependency: // TGI: 424 "Request failed during generation"
		e.Class = ErrorInfra
	case is4xx:
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

// notFoundHint is the hint of a 404 or 405: the Azure deployment path when the body is Azure's "Resource not
// found"; the base URL when it is a router's "not found" (or empty/HTML), OpenAI's "Invalid URL (POST /…)" /
// "Unknown request URL", or a 405; the model name otherwise.
func (c *Client) notFoundHint(info errorInfo, status int) string {
	msg := strings.TrimSpace(info.Message)
	lmsg := strings.ToLower(msg)
	switch {
	case strings.Contains(lmsg, "resource not found"):
		return "base URL should name the Azure OpenAI deployment: https://<resource>.openai.azure.com/openai/deployments/<deployment> " +
			"(or https://<resource>.openai.azure.com/openai/v1) (requests go to " + c.url + ")"
	case info.Shape == "empty" || info.Shape == "html" || routeNotFound.MatchString(msg) ||
		strings.HasPrefix(lmsg, "invalid url (") || strings.HasPrefix(lmsg, "unknown request url") ||
		status == http.StatusMethodNotAllowed:
		return "base URL should end in /v1 (requests go to " + c.url + ")"
	default:
		return "check the model name " + strconv.Quote(c.cfg.Model) + " (GET " +
			strings.TrimSuffix(c.url, "/chat/completions") + "/models lists them)"
	}
}

// googleRetryable reports whether a Google RESOURCE_EXHAUSTED body is a per-minute limit to wait out rather
// than an exhausted quota: Gemini's free tier answers 429 "You exceeded your current quota, … Please retry in
// 11.1s." for both, and "limit: 0" (no free quota for the model at all) never clears.
func googleRetryable(info errorInfo, rawText string) bool {
	return info.Type == "RESOURCE_EXHAUSTED" && retryDelay(rawText) > 0 && !strings.Contains(rawText, "limit: 0")
}

var (
	retryInPattern    = regexp.MustCompile(`(?:retry|try again) in ((?:[0-9]+(?:\.[0-9]+)?(?:h|ms|m|s))+)`)
	retryDelayPattern = regexp.MustCompile(`"retrydelay":\s*"([0-9]+(?:\.[0-9]+)?s)"`)
)

// retryDelay reads the wait an error body asks for, from the lower-cased body: Google's "Please retry in
// 11.1s." and RetryInfo "retryDelay": "33s", OpenAI's "Please try again in 9.816s." / "in 644ms.", Groq's
// "Please try again in 6m54.72s." / "1h23m45.6s" (parsed with time.ParseDuration); 0 when none.
func retryDelay(rawText string) time.Duration {
	for _, p := range []*regexp.Regexp{retryDelayPattern, retryInPattern} {
		if m := p.FindStringSubmatch(rawText); m != nil {
			if d, err := time.ParseDuration(m[1]); err == nil {
				return d
			}
		}
	}
	return 0
}

// invalidRequestHint names the fix of a 400/422 that is not an overflow, when the message says which parameter
// the endpoint refused.
func (c *Client) invalidRequestHint(text, param string) string {
	switch {
	case strings.Contains(text, "at the same time") && strings.Contains(text, "max_completion_tokens"):
		return "send one max tokens field: set max_tokens_field: max_completion_tokens (OpenAI, Azure OpenAI) or " +
			"max_tokens (other servers) in the model block (--max-tokens-field)"
	case strings.Contains(text, "no models loaded"):
		return "load the model in the server (LM Studio: lms load <model>)"
	case strings.Contains(text, "unsupported") || strings.Contains(text, "not supported") ||
		strings.Contains(text, "does not support") ||
		strings.Contains(text, "unrecognized request argument") || strings.Contains(text, "unknown parameter") ||
		strings.Contains(text, "extra inputs are not permitted"):
		switch {
		case param == "max_tokens" || strings.Contains(text, "'max_tokens' is not supported"):
			return "set max_tokens_field: max_completion_tokens in the model block (--max-tokens-field max_completion_tokens)"
		case param == "max_completion_tokens" || strings.Contains(text, "max_completion_tokens"):
			return "set max_tokens_field: max_tokens in the model block (--max-tokens-field max_tokens)"
		}
		for _, f := range OmitFields {
			if param == f || strings.Contains(text, "'"+f+"'") || strings.Contains(text, "`"+f+"`") ||
				strings.Contains(text, "\""+f+"\"") || strings.Contains(text, " "+f+" ") {
				return "add omit: [" + f + "] to the model block (--omit " + f + ")"
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

// Redact is RedactString plus the client's own key (whatever variable it came from): what the client does to
// every error text it keeps. bench doctor uses it for what it prints.
func (c *Client) Redact(s string) string {
	if len(c.key) >= 6 {
		s = strings.ReplaceAll(s, c.key, "[REDACTED]")
	}
	return RedactString(s)
}

func (c *Client) redactErr(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(c.Redact(err.Error()))
}

// clip redacts s and cuts it to maxMessage bytes on a rune boundary.
func (c *Client) clip(s string) string {
	s = c.Redact(strings.TrimSpace(s))
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
