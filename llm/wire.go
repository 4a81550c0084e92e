package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// maxBody caps the bytes read from one response body.
const maxBody = 32 << 20

// roundTripFields are the message-level response fields Extra.Fields round-trips (see Extra).
var roundTripFields = []string{"extra_content", "reasoning_details"}

// wireRequest is the JSON body of POST /chat/completions. Pointers distinguish "not sent" from zero values
// (temperature 0 is sent).
type wireRequest struct {
	Model               string            `json:"model"`
	Messages            []json.RawMessage `json:"messages"`
	Tools               []openai.Tool     `json:"tools,omitempty"`
	Temperature         *float32          `json:"temperature,omitempty"`
	TopP                *float32          `json:"top_p,omitempty"`
	Seed                *int              `json:"seed,omitempty"`
	MaxTokens           *int              `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int              `json:"max_completion_tokens,omitempty"`
}

// encodeRequest builds the request body of r under the client's config.
func (c *Client) encodeRequest(r Request) ([]byte, error) {
	wr := wireRequest{Model: c.cfg.Model, Tools: r.Tools}
	temp := c.cfg.Temperature
	if r.Temperature != nil {
		temp = r.Temperature
	}
	if !c.cfg.omits("temperature") {
		wr.Temperature = temp
	}
	if !c.cfg.omits("top_p") {
		wr.TopP = c.cfg.TopP
	}
	if !c.cfg.NoSeed && !c.cfg.omits("seed") {
		wr.Seed = r.Seed
	}
	if c.cfg.MaxTokens != nil && !c.cfg.omits("max_tokens") {
		switch c.cfg.MaxTokensFieldFor() {
		case "max_completion_tokens":
			wr.MaxCompletionTokens = c.cfg.MaxTokens
		case "both":
			wr.MaxTokens, wr.MaxCompletionTokens = c.cfg.MaxTokens, c.cfg.MaxTokens
		default:
			wr.MaxTokens = c.cfg.MaxTokens
		}
	}
	for i, m := range r.Messages {
		var ex *Extra
		if m.Role == openai.ChatMessageRoleAssistant {
			ex = r.Extras[i]
		}
		b, err := encodeMessage(m, ex, c.echo.sends)
		if err != nil {
			return nil, fmt.Errorf("llm: message %d: %w", i, err)
		}
		wr.Messages = append(wr.Messages, b)
	}
	return json.Marshal(wr)
}

// encodeMessage writes one message. Unlike go-openai's encoding it always sends a tool call's "arguments"
// ("" as "{}", arguments that are not one JSON object as SanitizeArguments makes them), a tool message's
// "tool_call_id" and content, and ex's fields (reasoning_content also when empty) for which sends holds; an
// assistant message with tool calls and no text sends no content (as go-openai does: some compatibility layers
// reject an empty text part).
func encodeMessage(m openai.ChatCompletionMessage, ex *Extra, sends func(field string) bool) (json.RawMessage, error) {
	if sends == nil {
		sends = func(string) bool { return true }
	}
	if m.Content != "" && len(m.MultiContent) > 0 {
		return nil, errors.New("both Content and MultiContent are set")
	}
	out := map[string]any{"role": m.Role}
	switch {
	case len(m.MultiContent) > 0:
		out["content"] = m.MultiContent
	case m.Content != "" || m.Role != openai.ChatMessageRoleAssistant || (len(m.ToolCalls) == 0 && m.FunctionCall == nil):
		out["content"] = m.Content
	}
	if m.Refusal != "" {
		out["refusal"] = m.Refusal
	}
	if m.Name != "" {
		out["name"] = m.Name
	}
	if m.Role == openai.ChatMessageRoleTool || m.ToolCallID != "" {
		out["tool_call_id"] = m.ToolCallID
	}
	if m.FunctionCall != nil {
		out["function_call"] = m.FunctionCall
	}
	if m.ReasoningContent != "" && sends("reasoning_content") {
		out["reasoning_content"] = m.ReasoningContent
	}
	if len(m.ToolCalls) > 0 {
		calls := make([]map[string]any, 0, len(m.ToolCalls))
		for _, tc := range m.ToolCalls {
			typ := string(tc.Type)
			if typ == "" {
				typ = string(openai.ToolTypeFunction)
			}
			args, _ := SanitizeArguments(tc.Function.Arguments)
			call := map[string]any{"id": tc.ID, "type": typ,
				"function": map[string]any{"name": tc.Function.Name, "arguments": args}}
			if ex != nil {
				for k, v := range ex.ToolCallFields[tc.ID] {
					if _, taken := call[k]; !taken && sends(k) {
						call[k] = v
					}
				}
			}
			calls = append(calls, call)
		}
		out["tool_calls"] = calls
	}
	if ex != nil {
		if ex.ReasoningContent != nil && sends("reasoning_content") {
			out["reasoning_content"] = *ex.ReasoningContent
		}
		for k, v := range ex.Fields {
			if _, taken := out[k]; !taken && sends(k) {
				out[k] = v
			}
		}
	}
	return json.Marshal(out)
}

// post sends body once. It returns the decoded response and the raw 2xx body it was decoded from, or the
// classified error and the wait the server asked for before a retry (Retry-After, estimated_time; 0 when none).
// newID names tool calls that came without an id (nil: the client's counter, "call_wb_<n>").
func (c *Client) post(ctx context.Context, body []byte, newID func() string) (*Response, []byte, time.Duration, *Error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, 0, &Error{Class: ErrorConfig, Message: c.Redact(err.Error()), Hint: "check the base URL",
			Err: c.redactErr(err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, 0, c.transportError(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		e := c.transportError(err)
		e.StatusCode = resp.StatusCode
		return nil, nil, 0, e
	}
	retryAfter := headerWait(resp.Header)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e, wait := c.classifyWait(resp.StatusCode, raw, retryAfter)
		return nil, nil, wait, e
	}
	out, e := c.decodeResponse(body, raw, newID)
	if e != nil {
		return nil, nil, retryAfter, e
	}
	return out, raw, 0, nil
}

// wireResponse is the part of a chat.completion body the client reads.
type wireResponse struct {
	Choices []struct {
		Message      map[string]json.RawMessage `json:"message"`
		FinishReason *string                    `json:"finish_reason"`
		// Error is a provider failure reported inside the choice (OpenRouter: finish_reason "error").
		Error json.RawMessage `json:"error"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// decodeResponse reads a 2xx body. A body that is not a chat.completion — not JSON, no choices — is an infra
// error (retried) whose Message is the body's start; a 2xx body carrying an "error" object is classified as
// that error. newID names tool calls that came without an id (nil: the client's counter).
func (c *Client) decodeResponse(reqBody, raw []byte, newID func() string) (*Response, *Error) {
	var wr wireResponse
	if err := json.Unmarshal(raw, &wr); err != nil {
		return nil, &Error{Class: ErrorInfra, StatusCode: http.StatusOK, Message: c.clip(bodyText(raw)),
			Err: fmt.Errorf("malformed response body: %v", err)}
	}
	if len(wr.Choices) == 0 || wr.Choices[0].Message == nil {
		if len(wr.Error) > 0 && string(wr.Error) != "null" {
			info := parseErrorBody(raw)
			status := http.StatusOK
			if n, err := strconv.Atoi(info.Code); err == nil && n >= 400 && n <= 599 {
				status = n
			}
			e, _ := c.classify(status, raw) // a 200 status classifies as infra unless the message is an overflow
			return nil, e
		}
		return nil, &Error{Class: ErrorInfra, StatusCode: http.StatusOK, Message: c.clip(bodyText(raw)),
			Err: errors.New("response has no choices")}
	}
	ch := wr.Choices[0]
	out, err := c.decodeMessage(ch.Message, newID)
	if err != nil {
		return nil, &Error{Class: ErrorInfra, StatusCode: http.StatusOK, Message: c.clip(bodyText(raw)),
			Err: fmt.Errorf("malformed message: %v", err)}
	}
	if ch.FinishReason != nil {
		out.FinishReason = NormalizeFinishReason(*ch.FinishReason)
		if out.FinishReason != *ch.FinishReason {
			out.FinishReasonSent = *ch.FinishReason
		}
	}
	if e := c.choiceFailure(out.FinishReason, ch.Error, raw); e != nil {
		return nil, e
	}
	if wr.Usage != nil {
		out.Usage = Usage{Prompt: wr.Usage.PromptTokens, Completion: wr.Usage.CompletionTokens}
	} else {
		out.Usage = EstimateUsage(reqBody, out)
	}
	return out, nil
}

// EstimateUsage is the usage of a call whose endpoint sent none, marked Estimated: ≈ 4 bytes per token, the
// request JSON reqBody for the prompt, r's content, reasoning, refusal and tool-call names and arguments for
// the completion (see Usage.Estimated).
func EstimateUsage(reqBody []byte, r *Response) Usage {
	n := len(r.Message.Content) + len(r.Reasoning) + len(r.Refusal)
	for _, tc := range r.Message.ToolCalls {
		n += len(tc.Function.Name) + len(tc.Function.Arguments)
	}
	return Usage{Prompt: (len(reqBody) + 3) / 4, Completion: (n + 3) / 4, Estimated: true}
}

// wireToolCall is one response tool call; arguments may be a string, an object or absent.
type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// decodeMessage reads choices[0].message field by field: content as a string, null or an array of parts;
// reasoning from reasoning_content, reasoning, thinking parts or <think> blocks; refusal; tool calls with
// their arguments normalised and ids generated (by newID; nil: the client's counter); the provider fields to
// round-trip into Extra.
func (c *Client) decodeMessage(m map[string]json.RawMessage, newID func() string) (*Response, error) {
	out := &Response{}
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
	if err := optString(m, "role", &msg.Role); err != nil {
		return nil, err
	}
	if msg.Role == "" {
		msg.Role = openai.ChatMessageRoleAssistant
	}
	var reasoningContent, reasoning, arrayThinking, tagThinking string
	rcPresent := false
	if raw, ok := m["reasoning_content"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &reasoningContent); err != nil {
			return nil, fmt.Errorf("reasoning_content: %v", err)
		}
		rcPresent = true
	}
	if err := optString(m, "reasoning", &reasoning); err != nil {
		return nil, err
	}
	if err := optString(m, "refusal", &out.Refusal); err != nil {
		return nil, err
	}
	if raw, ok := m["content"]; ok && string(raw) != "null" {
		t := bytes.TrimSpace(raw)
		switch {
		case len(t) > 0 && t[0] == '"':
			if err := json.Unmarshal(t, &msg.Content); err != nil {
				return nil, fmt.Errorf("content: %v", err)
			}
		case len(t) > 0 && t[0] == '[':
			text, thinking, refusal, err := contentParts(t)
			if err != nil {
				return nil, fmt.Errorf("content: %v", err)
			}
			msg.Content, arrayThinking = text, thinking
			if out.Refusal == "" {
				out.Refusal = refusal
			}
		default:
			return nil, fmt.Errorf("content: unexpected %.40s", t)
		}
	}
	msg.Content, tagThinking = stripThink(msg.Content)
	for _, s := range []struct{ text, from string }{{reasoningContent, "reasoning_content"},
		{reasoning, "reasoning"}, {arrayThinking, "content_array"}, {tagThinking, "think_tag"}} {
		if strings.TrimSpace(s.text) != "" {
			out.Reasoning, out.ReasoningFrom = s.text, s.from
			break
		}
	}
	ex := &Extra{}
	if rcPresent {
		rc := reasoningContent
		ex.ReasoningContent = &rc
		msg.ReasoningContent = reasoningContent
	}
	for _, k := range roundTripFields {
		if raw, ok := m[k]; ok && string(raw) != "null" {
			if ex.Fields == nil {
				ex.Fields = map[string]json.RawMessage{}
			}
			ex.Fields[k] = append(json.RawMessage(nil), raw...)
		}
	}
	if raw, ok := m["tool_calls"]; ok && string(raw) != "null" {
		var calls []json.RawMessage
		if err := json.Unmarshal(raw, &calls); err != nil {
			return nil, fmt.Errorf("tool_calls: %v", err)
		}
		for i, cr := range calls {
			tc, fields, err := c.decodeToolCall(cr, newID)
			if err != nil {
				return nil, fmt.Errorf("tool_calls[%d]: %v", i, err)
			}
			if len(fields) > 0 {
				if ex.ToolCallFields == nil {
					ex.ToolCallFields = map[string]map[string]json.RawMessage{}
				}
				ex.ToolCallFields[tc.ID] = fields
			}
			msg.ToolCalls = append(msg.ToolCalls, tc)
		}
	}
	if raw, ok := m["function_call"]; ok && string(raw) != "null" {
		var fc openai.FunctionCall
		if err := json.Unmarshal(raw, &fc); err == nil {
			msg.FunctionCall = &fc
		}
	}
	msg.Refusal = out.Refusal
	out.Message = msg
	if !ex.empty() {
		out.Extra = ex
	}
	return out, nil
}

// toolCallKnown are the tool-call keys decodeToolCall reads itself; any other key is a provider field kept in
// Extra.ToolCallFields.
var toolCallKnown = map[string]bool{"id": true, "type": true, "function": true, "index": true}

// decodeToolCall normalises one tool call: arguments given as a JSON object or array are re-encoded as a
// compact JSON string, "" / null / missing become "{}", a missing id becomes "call_wb_<n>", a missing type
// "function". fields are the call's other keys (Gemini's extra_content), raw. newID names a call without an id
// (nil: "call_wb_<n>" from the client's counter).
func (c *Client) decodeToolCall(raw json.RawMessage, newID func() string) (openai.ToolCall, map[string]json.RawMessage, error) {
	var w wireToolCall
	if err := json.Unmarshal(raw, &w); err != nil {
		return openai.ToolCall{}, nil, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return openai.ToolCall{}, nil, err
	}
	args := "{}"
	if a := bytes.TrimSpace(w.Function.Arguments); len(a) > 0 && string(a) != "null" {
		if a[0] == '"' {
			var s string
			if err := json.Unmarshal(a, &s); err != nil {
				return openai.ToolCall{}, nil, fmt.Errorf("arguments: %v", err)
			}
			if strings.TrimSpace(s) != "" {
				args = s
			}
		} else {
			var buf bytes.Buffer
			if err := json.Compact(&buf, a); err != nil {
				return openai.ToolCall{}, nil, fmt.Errorf("arguments: %v", err)
			}
			args = buf.String()
		}
	}
	id := w.ID
	switch {
	case id != "":
	case newID != nil:
		id = newID()
	default:
		id = "call_wb_" + strconv.FormatInt(c.ids.Add(1), 10)
	}
	typ := openai.ToolType(w.Type)
	if typ == "" {
		typ = openai.ToolTypeFunction
	}
	var fields map[string]json.RawMessage
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if toolCallKnown[k] || string(all[k]) == "null" {
			continue
		}
		if fields == nil {
			fields = map[string]json.RawMessage{}
		}
		fields[k] = all[k]
	}
	return openai.ToolCall{ID: id, Type: typ, Function: openai.FunctionCall{Name: w.Function.Name,
		Arguments: args}}, fields, nil
}

// contentParts reads a content array: "text" / "output_text" parts are the text, "thinking" / "reasoning" parts
// the reasoning (Mistral's Magistral sends {"type":"thinking","thinking":[{"type":"text","text":…}]}; the
// thinking value may also be a plain string), "refusal" parts the refusal. Parts of other types are ignored.
func contentParts(raw json.RawMessage) (text, thinking, refusal string, err error) {
	var parts []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", "", "", err
	}
	var tb, rb, fb strings.Builder
	for _, p := range parts {
		var typ string
		_ = optString(p, "type", &typ)
		switch typ {
		case "text", "output_text", "":
			var s string
			if err := optString(p, "text", &s); err != nil {
				return "", "", "", err
			}
			tb.WriteString(s)
		case "thinking", "reasoning":
			for _, key := range []string{"thinking", "reasoning", "text"} {
				if v, ok := p[key]; ok {
					appendThinking(&rb, v)
					break
				}
			}
		case "refusal":
			var s string
			_ = optString(p, "refusal", &s)
			fb.WriteString(s)
		}
	}
	return tb.String(), rb.String(), fb.String(), nil
}

// appendThinking appends a thinking value: a string, or an array of {"type":"text","text":…} parts.
func appendThinking(b *strings.Builder, v json.RawMessage) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		b.WriteString(s)
		return
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(v, &parts) == nil {
		for _, p := range parts {
			b.WriteString(p.Text)
		}
	}
}

// stripThink removes <think>…</think> blocks from content and returns the rest (trimmed) and the blocks' text
// joined. A "</think>" with no opening tag before it (chat templates that put "<think>" in the prompt, e.g.
// DeepSeek-R1 and Qwen3 distills) makes everything before it reasoning; an unclosed "<think>" makes everything
// after it reasoning (the reply was cut inside its thinking).
func stripThink(content string) (rest, thinking string) {
	const open, closeTag = "<think>", "</think>"
	if !strings.Contains(content, open) && !strings.Contains(content, closeTag) {
		return content, ""
	}
	var think []string
	s := content
	if i, j := strings.Index(s, closeTag), strings.Index(s, open); i >= 0 && (j < 0 || i < j) {
		think = append(think, strings.TrimSpace(s[:i]))
		s = s[i+len(closeTag):]
	}
	var b strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i+len(open):]
		j := strings.Index(s, closeTag)
		if j < 0 {
			think = append(think, strings.TrimSpace(s))
			break
		}
		think = append(think, strings.TrimSpace(s[:j]))
		s = s[j+len(closeTag):]
	}
	return strings.TrimSpace(b.String()), strings.TrimSpace(strings.Join(think, "\n"))
}

// optString decodes m[key] into *dst when present and not null; a present value of another JSON type is an
// error.
func optString(m map[string]json.RawMessage, key string, dst *string) error {
	raw, ok := m[key]
	if !ok || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%s: %v", key, err)
	}
	return nil
}

// choiceFailure is the error of a 2xx reply whose choice reports a provider failure instead of the model's
// output: an "error" object in the choice (classified as that error, its code the status when it is one), or a
// finish_reason of providerFailureFinish (infra). nil when the choice is the model's reply.
func (c *Client) choiceFailure(finish string, choiceErr json.RawMessage, raw []byte) *Error {
	if t := bytes.TrimSpace(choiceErr); len(t) > 0 && t[0] == '{' {
		body, _ := json.Marshal(map[string]json.RawMessage{"error": t})
		status := http.StatusOK
		if n, err := strconv.Atoi(parseErrorBody(body).Code); err == nil && n >= 400 && n <= 599 {
			status = n
		}
		e, _ := c.classify(status, body)
		if e.Message == "" {
			e.Message = "finish_reason " + strconv.Quote(finish)
		}
		return e
	}
	if _, failed := providerFailureFinish[finish]; failed {
		return &Error{Class: ErrorInfra, StatusCode: http.StatusOK,
			Message: c.clip("the provider ended the reply with finish_reason " + strconv.Quote(finish) + ": " + bodyText(raw)),
			Hint:    "a provider-side failure inside a 200 reply, retried; not the model's output",
			Err:     fmt.Errorf("finish_reason %q", finish)}
	}
	return nil
}

// headerWait is the wait a response's headers ask for: the longer of Retry-After (seconds or an HTTP date) and
// retry-after-ms / x-ms-retry-after-ms (milliseconds; Azure OpenAI,
// https://learn.microsoft.com/en-us/azure/ai-services/openai/how-to/provisioned-get-started).
func headerWait(h http.Header) time.Duration {
	w := parseRetryAfter(h.Get("Retry-After"))
	for _, k := range []string{"Retry-After-Ms", "X-Ms-Retry-After-Ms"} {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get(k)), 64); err == nil && ms >= 0 {
			w = max(w, time.Duration(ms*float64(time.Millisecond)))
		}
	}
	return w
}

// RetryWait is the wait Chat honours before retrying a response with this status, headers and body: the
// longest of Retry-After, retry-after-ms, the body's estimated_time and its worded wait ("Please try again in
// 9.8s", "Try again in 60 seconds"); 0 when none. A 2xx asks for none.
func RetryWait(status int, h http.Header, raw []byte) time.Duration {
	if status >= 200 && status < 300 {
		return 0
	}
	var c Client
	_, w := c.classifyWait(status, raw, headerWait(h))
	return w
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
