package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"html"
	"regexp"
	"strconv"
	"strings"
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
		info.Message, info.Code = envelopeErrors(m["errors"])
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

// envelopeErrors reads Cloudflare's API v4 envelope {"success":false,"errors":[{"code":N,"message":…}],…}
// (https://developers.cloudflare.com/fundamentals/api/how-to/make-api-calls/, the shape Workers AI's OpenAI
// endpoints answer in): the messages joined with "; " and the first code.
func envelopeErrors(raw json.RawMessage) (msg, code string) {
	var errs []struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &errs) != nil {
		return "", ""
	}
	var parts []string
	for _, e := range errs {
		if e.Message != "" {
			parts = append(parts, e.Message)
		}
		if code == "" {
			code = jsonText(e.Code)
		}
	}
	return strings.Join(parts, "; "), code
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

// loadingMarkers mark a 503 as "not ready yet" (rate_limit) rather than broken (infra).
// "server busy" is Ollama's full request queue (server/sched.go ErrMaxQueue, OLLAMA_MAX_QUEUE): back-pressure, like a 429.
var loadingMarkers = []string{"loading", "overloaded", "estimated_time", "try again later", "capacity", "server busy"}

// routeNotFound matches 404 bodies of a router that has no such route (not a model that does not exist): Go's
// and Gin's "404 page not found", FastAPI's "Not Found", Express's "Cannot POST /chat/completions".
var routeNotFound = regexp.MustCompile(`(?i)^(404 page not found|not found|cannot post .*|404: not found|404 not found)$`)

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
