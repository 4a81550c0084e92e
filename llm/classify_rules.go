package llm

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// classify is classifyWait with no header wait: the class of an error status and body, and the wait the body
// asks for.
func (c *Client) classify(status int, raw []byte) (*Error, time.Duration) {
	return c.classifyWait(status, raw, 0)
}

// bodyFacts is what the rules read of one error body.
type bodyFacts struct {
	info          errorInfo
	text, rawText string // lower-cased: message+type+code, and the raw body
	status        int
	wait          time.Duration // the longest wait asked for: body, Retry-After, retry-after-ms
}

func (f *bodyFacts) is4xx() bool             { return f.status >= 400 && f.status < 500 }
func (f *bodyFacts) has(ps []Phrase) bool    { return matchPhrase(ps, f.text, f.rawText) }
func (f *bodyFacts) hasAny(ms []string) bool { return containsAny(f.text, ms) }

// quota reports whether the body says the account is out of quota, credit or budget (a code/type of
// quotaCodes or a phrase of quotaPhrases), unless it is Google's per-minute RESOURCE_EXHAUSTED.
func (f *bodyFacts) quota() bool {
	if googleRetryable(f.info, f.rawText) {
		return false
	}
	return matchCode(quotaCodes, f.info.Code, f.info.Type) || f.has(quotaPhrases)
}

// classifyWait turns an HTTP error status and body into an *Error, and the wait to honour before a retry (the
// longest of the body's estimated_time or worded wait and headerWait, the response's Retry-After /
// retry-after-ms). The rules, in order (the phrase tables, each entry with its source, are in phrases.go):
//   - a content-policy phrase, any status ≥ 400 (Azure content_filter, LiteLLM guardrails, OpenRouter's 403
//     moderation "flagged") → content_filter: that attempt fails, the run goes on;
//   - 401, 403 → auth, or quota when the body says so;
//   - a replayed tool call whose arguments the server could not parse (llama.cpp's 500, vLLM's 400 "Extra
//     data") → agent: the model's malformed call, the attempt ends;
//   - a 4xx with a quota code or phrase → quota; a 4xx naming a bad key (xAI and Gemini answer 400) → auth;
//   - Groq's tool_use_failed → agent; "Request too large … tokens per min" → quota;
//   - 429 on a daily limit or asking for a wait longer than maxWait → quota; 402 → quota;
//   - 429 whose words are about the account (quota, credit, billing, budget) and not about rate or waiting,
//     with no wait asked → quota: when unsure, stop and say what the server said rather than retry;
//   - an overflow marker (see overflowMarkers) → context_overflow;
//   - 413 → context_overflow from a model server's JSON, config from a proxy's page (its body limit);
//   - 429, 529, 503 loading → rate_limit; 404, 405 → config (notFoundHint); 408, 409, 424, 425 → infra;
//   - other 4xx → config (invalidRequestHint); 5xx and anything else → infra.
func (c *Client) classifyWait(status int, raw []byte, headerWait time.Duration) (*Error, time.Duration) {
	info := parseErrorBody(raw)
	f := &bodyFacts{info: info, status: status, text: strings.ToLower(info.Message + " " + info.Type + " " + info.Code),
		rawText: strings.ToLower(string(raw))}
	f.wait = max(time.Duration(info.EstimatedTime*float64(time.Second)), retryDelay(f.rawText), headerWait)
	e := &Error{StatusCode: status, Type: c.clip(info.Type), Code: c.clip(info.Code), Message: c.clip(info.Message)}
	e.Class, e.Hint = c.rule(f)
	cause := fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	if info.Message == "" {
		cause += ", " + info.Shape + " body"
	}
	e.Err = errors.New(cause)
	return e, f.wait
}

// quotaHint is the hint of an account out of quota or credit.
const quotaHint = "add credit or raise the quota of the account"

// HistoryArgumentsHint is the hint of a server refusing a replayed tool call's arguments.
const HistoryArgumentsHint = "a tool call sent back had arguments that are not valid JSON (the model's malformed call): " +
	"the attempt ends as the model's error"

// rule applies classifyWait's rules in order and returns the class and hint.
func (c *Client) rule(f *bodyFacts) (ErrorClass, string) {
	keyHint := "check the API key (environment variable " + c.cfg.KeyEnv() + ")"
	status := f.status
	switch {
	case status >= 400 && (f.has(contentFilterPhrases) ||
		status == http.StatusForbidden && strings.Contains(f.text, "flagged")) && !f.quota():
		return ErrorContentFilter, "the endpoint's content filter or moderation refused the request (page content or prompt)"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		if f.quota() {
			return ErrorQuota, quotaHint
		}
		return ErrorAuth, keyHint
	case status >= 400 && f.has(historyArgumentPhrases):
		return ErrorAgent, HistoryArgumentsHint
	case f.is4xx() && status != http.StatusTooManyRequests && f.quota():
		return ErrorQuota, quotaHint
	case f.is4xx() && f.has(authPhrases):
		return ErrorAuth, keyHint
	case f.is4xx() && strings.EqualFold(f.info.Code, "tool_use_failed"):
		return ErrorAgent, "the model produced a malformed tool call"
	case f.is4xx() && strings.Contains(f.text, "request too large") && strings.Contains(f.text, "tokens per min"):
		return ErrorQuota, "the request is larger than the account's tokens-per-minute limit: use a higher tier or a model with a larger limit"
	case status == http.StatusTooManyRequests && f.has(dailyLimitPhrases):
		return ErrorQuota, "daily limit reached"
	case status == http.StatusTooManyRequests && f.wait > maxWait:
		return ErrorQuota, fmt.Sprintf("daily limit reached (the endpoint asks to wait %s)", f.wait.Round(time.Second))
	case status == http.StatusPaymentRequired || status == http.StatusTooManyRequests && f.quota():
		return ErrorQuota, quotaHint
	case status == http.StatusTooManyRequests && f.wait == 0 && unsureQuota(f.text):
		return ErrorQuota, "the endpoint refused for the account's limits, not a rate it asks to wait out (its message above)"
	case (f.is4xx() && status != http.StatusTooManyRequests || status >= 200 && status < 300) && f.hasAny(overflowMarkers),
		status >= 500 && f.hasAny(overflowMarkers5xx):
		return ErrorContextOverflow, ""
	case status == http.StatusRequestEntityTooLarge && f.info.Shape != "json":
		return ErrorConfig, "a proxy in front of the model refused the request's size (its page above), not the model's " +
			"context window: raise its body limit (nginx client_max_body_size, default 1m) to a few MB"
	case status == http.StatusRequestEntityTooLarge:
		return ErrorContextOverflow, "the request body is larger than the endpoint accepts"
	case status == http.StatusTooManyRequests || status == 529:
		return ErrorRateLimit, ""
	case status == http.StatusServiceUnavailable && (f.info.EstimatedTime > 0 || f.hasAny(loadingMarkers)):
		return ErrorRateLimit, ""
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
		return ErrorConfig, c.notFoundHint(f.info, status)
	case status == http.StatusRequestTimeout || status == http.StatusConflict || status == http.StatusTooEarly ||
		status == http.StatusFailedDependency: // TGI: 424 "Request failed during generation"
		return ErrorInfra, ""
	case f.is4xx():
		return ErrorConfig, c.invalidRequestHint(f.text, f.info.Param)
	}
	return ErrorInfra, ""
}

// containsAny reports whether s contains one of ms.
func containsAny(s string, ms []string) bool {
	for _, m := range ms {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

var urlPattern = regexp.MustCompile(`https?://\S+`)

// accountWords and rateWords decide a 429 that matches no table (unsureQuota).
var (
	accountWords = []string{"quota", "credit", "billing", "budget", "balance", "spend", "payment", "subscription"}
	rateWords    = []string{"rate limit", "rate_limit", "too many requests", "try again", "retry", "slow down",
		"per minute", "per second", "requests per", "tokens per", "concurren", "capacity", "overloaded", "busy",
		"resource exhausted", "resource_exhausted"}
)

// unsureQuota reports whether a 429's text (URLs removed: Azure's rate-limit message links "quotaincrease")
// speaks of the account's money or quota and not of a rate or a wait.
func unsureQuota(text string) bool {
	t := urlPattern.ReplaceAllString(text, " ")
	return containsAny(t, accountWords) && !containsAny(t, rateWords)
}

// notFoundHint is the hint of a 404 or 405: the Azure deployment path for Azure's "Resource not found"; the
// account id for Cloudflare's "Could not route to /client/v4/accounts/…"; the model name when the message
// speaks of a model or deployment; the base URL otherwise (a router's "not found", an empty or HTML page,
// OpenAI's "Invalid URL (POST /…)", a 405, or any message that names no model).
func (c *Client) notFoundHint(info errorInfo, status int) string {
	lmsg := strings.ToLower(strings.TrimSpace(info.Message))
	modelHint := "check the model name " + strconv.Quote(c.cfg.Model) + " (GET " +
		strings.TrimSuffix(c.url, "/chat/completions") + "/models lists them)"
	switch {
	case strings.Contains(lmsg, "resource not found"):
		return "base URL should name the Azure OpenAI deployment: https://<resource>.openai.azure.com/openai/deployments/<deployment> " +
			"(or https://<resource>.openai.azure.com/openai/v1) (requests go to " + c.url + ")"
	case strings.Contains(lmsg, "could not route to") || strings.Contains(lmsg, "object identifier"):
		return "check the account id in the base URL: https://api.cloudflare.com/client/v4/accounts/<32-hex account id>/ai/v1 " +
			"(requests go to " + c.url + ")"
	case status == http.StatusNotFound && info.Shape == "json" && !routeNotFound.MatchString(lmsg) &&
		(strings.Contains(lmsg, "model") || strings.Contains(lmsg, "deployment")):
		return modelHint
	}
	return "base URL should end in /v1 and name the right route (requests go to " + c.url + ")"
}

// googleRetryable reports whether a Google RESOURCE_EXHAUSTED body is a per-minute limit to wait out rather
// than an exhausted quota: Gemini's free tier answers 429 "You exceeded your current quota, … Please retry in
// 11.1s." for both; "limit: 0" (no free quota for the model at all) and a per-day quota never clear in a run.
func googleRetryable(info errorInfo, rawText string) bool {
	return info.Type == "RESOURCE_EXHAUSTED" && retryDelay(rawText) > 0 && !strings.Contains(rawText, "limit: 0") &&
		!matchPhrase(dailyLimitPhrases, rawText)
}

var (
	retryInPattern    = regexp.MustCompile(`(?:retry|try again) in ((?:[0-9]+(?:\.[0-9]+)?(?:h|ms|m|s))+)\b`)
	retryDelayPattern = regexp.MustCompile(`"retrydelay":\s*"([0-9]+(?:\.[0-9]+)?s)"`)
	// retryWordsPattern: "Try again in 60 seconds" (Azure API Management), "Please retry after 4 seconds" (Azure
	// OpenAI), "please try again after 1 seconds" (Moonshot).
	retryWordsPattern = regexp.MustCompile(`(?:retry|try again) (?:in|after) ([0-9]+(?:\.[0-9]+)?) ?(milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|hours?)\b`)
)

// retryDelay reads the wait an error body asks for, from the lower-cased body: Google's "Please retry in
// 11.1s." and RetryInfo "retryDelay": "33s", OpenAI's "Please try again in 9.816s." / "in 644ms.", Groq's
// "Please try again in 6m54.72s." (time.ParseDuration syntax), and the worded forms "Try again in 60 seconds"
// (Azure API Management, https://learn.microsoft.com/en-us/azure/api-management/rate-limit-policy), "Please
// retry after 4 seconds" (Azure OpenAI), "try again after 1 seconds" (Moonshot); 0 when none.
func retryDelay(rawText string) time.Duration {
	for _, p := range []*regexp.Regexp{retryDelayPattern, retryInPattern} {
		if m := p.FindStringSubmatch(rawText); m != nil {
			if d, err := time.ParseDuration(m[1]); err == nil {
				return d
			}
		}
	}
	if m := retryWordsPattern.FindStringSubmatch(rawText); m != nil {
		n, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return 0
		}
		unit := time.Second
		switch {
		case strings.HasPrefix(m[2], "ms") || strings.HasPrefix(m[2], "milli"):
			unit = time.Millisecond
		case strings.HasPrefix(m[2], "min"):
			unit = time.Minute
		case strings.HasPrefix(m[2], "h"):
			unit = time.Hour
		}
		return time.Duration(n * float64(unit))
	}
	return 0
}

// echoFields are the message fields webbench sends back only because a provider returned them (Extra), which
// strict servers refuse (Mistral's 422 extra_forbidden on reasoning_content).
var echoFields = []string{"reasoning_content", "reasoning_details", "extra_content"}

// invalidRequestHint names the fix of a 400/422 that is not an overflow, when the message says which parameter
// or field the endpoint refused, or that the model does not exist.
func (c *Client) invalidRequestHint(text, param string) string {
	for _, f := range echoFields {
		if strings.Contains(text, f) {
			return "the endpoint refuses " + f + ", which webbench sends back on assistant messages only because the " +
				"endpoint returned it; a run retries once without it and stops sending it"
		}
	}
	switch {
	case strings.Contains(text, "at the same time") && strings.Contains(text, "max_completion_tokens"):
		return "send one max tokens field: set max_tokens_field: max_completion_tokens (OpenAI, Azure OpenAI) or " +
			"max_tokens (other servers) in the model block (--max-tokens-field)"
	case strings.Contains(text, "no models loaded"):
		return "load the model in the server (LM Studio: lms load <model>)"
	case strings.Contains(text, "no such model") || strings.Contains(text, "invalid model") ||
		strings.Contains(text, "model not found"):
		return "check the model name " + strconv.Quote(c.cfg.Model)
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
