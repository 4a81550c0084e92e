package replay

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
)

// Transforms names the rewrites a proxied upstream reply can go through to take a provider's shape, with what
// each does. Several apply in order when joined with "+".
var Transforms = map[string]string{
	"deepseek":          "DeepSeek thinking mode: the reasoning in message.reasoning_content; the next request must send reasoning_content back on that assistant message (else DeepSeek's 400)",
	"reasoning":         "OpenRouter / newer vLLM: the reasoning in message.reasoning",
	"mistral":           "Mistral (Magistral): content as an array of a thinking part and a text part",
	"think_tag":         "Qwen3 / DeepSeek-R1 served without a reasoning parser: <think>…</think> at the start of content",
	"object_args":       "some llama.cpp builds: tool-call arguments as a JSON object instead of a string",
	"no_usage":          "compatibility layers that send no usage object",
	"vllm":              "vLLM: content null beside tool calls, chatcmpl-tool-<hex> ids, null refusal/reasoning_content fields",
	"ollama":            "Ollama: content \"\" beside tool calls, an index on each tool call, call_<8 chars> ids, fp_ollama",
	"anthropic":         "Anthropic's OpenAI compatibility layer: toolu_ ids",
	"gemini":            "Gemini 3 via OpenAI compatibility: extra_content.google.thought_signature on the first tool call; the next request must send it back (else Gemini's 400)",
	"no_ids":            "tool calls without an id (the client must generate one and use it on both sides)",
	"length_cutoff":     "finish_reason \"length\" with the last tool call's arguments cut in half",
	"litellm_reasoning": "LiteLLM in front of a reasoning model: the reasoning in message.reasoning_content, nothing required back",
	"strict_history":    "a strict server: a later request whose assistant message carries reasoning_content, reasoning_details or extra_content gets Mistral's 422 extra_forbidden; one whose tool-call arguments are not a JSON object gets vLLM's 400 \"Extra data\"",
}

// checkTransform validates a "+"-joined transform list.
func checkTransform(t string) error {
	if t == "" {
		return nil
	}
	for _, p := range strings.Split(t, "+") {
		if _, ok := Transforms[p]; !ok {
			return fmt.Errorf("replay: unknown transform %q", p)
		}
	}
	return nil
}

// echoWant is what a later request must carry on the assistant message holding a tool call id.
type echoWant struct {
	provider         string
	reasoningContent bool   // the message must carry a reasoning_content key
	signature        string // the call must carry extra_content.google.thought_signature == signature
}

// DeepSeekEchoError is DeepSeek's 400 body when an assistant message of a thinking-mode tool-call turn comes
// back without reasoning_content (testdata/shapes/deepseek_400_reasoning_content_missing.json, with its source).
const DeepSeekEchoError = `{"error":{"message":"The reasoning_content in the thinking mode must be passed back to the API.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`

// GeminiEchoError is Gemini's 400 body when a function call comes back without its thought_signature
// (testdata/shapes/gemini_400_missing_thought_signature.json, with its source), compacted; %s is the function
// name, %d the position.
const GeminiEchoError = `[{"error":{"code":400,"message":"Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call ` + "`default_api:%s`" + ` , position %d. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.","status":"INVALID_ARGUMENT"}}]`

// checkEcho returns a non-empty provider name, the status and the provider's error body when the request
// drops something an earlier transformed reply required back.
func (s *Server) checkEcho(body []byte) (string, int, []byte) {
	var req struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return "", 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.strict {
		if name, status, body := strictRefusal(req.Messages); name != "" {
			s.echoErrs = append(s.echoErrs, fmt.Sprintf("request %d: %s", s.total, name))
			return name, status, body
		}
	}
	if len(s.echoes) == 0 {
		return "", 0, nil
	}
	for i, m := range req.Messages {
		var role string
		_ = json.Unmarshal(m["role"], &role)
		if role != "assistant" {
			continue
		}
		var calls []struct {
			ID       string `json:"id"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
			Extra *struct {
				Google *struct {
					Sig string `json:"thought_signature"`
				} `json:"google"`
			} `json:"extra_content"`
		}
		_ = json.Unmarshal(m["tool_calls"], &calls)
		for j, c := range calls {
			want, ok := s.echoes[c.ID]
			if !ok {
				continue
			}
			if want.reasoningContent {
				rc, has := m["reasoning_content"]
				var str string
				if !has || json.Unmarshal(rc, &str) != nil {
					s.echoErrs = append(s.echoErrs, fmt.Sprintf("request %d: messages[%d] (tool call %s) has no reasoning_content", s.total, i, c.ID))
					return want.provider, 400, []byte(DeepSeekEchoError)
				}
			}
			if want.signature != "" {
				got := ""
				if c.Extra != nil && c.Extra.Google != nil {
					got = c.Extra.Google.Sig
				}
				if got != want.signature {
					s.echoErrs = append(s.echoErrs, fmt.Sprintf("request %d: messages[%d].tool_calls[%d] (%s) thought_signature %q, want the one sent", s.total, i, j, c.ID, got))
					return want.provider, 400, []byte(fmt.Sprintf(GeminiEchoError, c.Function.Name, i+1))
				}
			}
		}
	}
	return "", 0, nil
}

// MistralExtraForbidden is Mistral's 422 for a field it did not define on a message
// (testdata/shapes/mistral_422_extra_forbidden_reasoning_content.json, with its source); %d is the message
// index, %s the field.
const MistralExtraForbidden = `{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","messages",%d,"assistant","%s"],"msg":"Extra inputs are not permitted","input":""}]},"type":"invalid_request_message_error","param":null,"code":null}`

// VLLMExtraData is vLLM's 400 for a replayed tool call whose arguments Python's json cannot read
// (testdata/shapes/vllm_400_history_arguments_extra_data.json, with its source); %s is json's message.
const VLLMExtraData = `{"error":{"message":"%s","type":"BadRequestError","param":null,"code":400}}`

// strictRefusal is the refusal of a strict server (transform strict_history) for messages: the refused
// field's or call's description, the status and body; "" when the messages pass.
func strictRefusal(msgs []map[string]json.RawMessage) (string, int, []byte) {
	for i, m := range msgs {
		var role string
		_ = json.Unmarshal(m["role"], &role)
		if role != "assistant" {
			continue
		}
		for _, f := range []string{"reasoning_content", "reasoning_details", "extra_content"} {
			if _, ok := m[f]; ok {
				return fmt.Sprintf("strict: messages[%d] carries %s", i, f), 422, []byte(fmt.Sprintf(MistralExtraForbidden, i, f))
			}
		}
		var calls []struct {
			Function struct {
				Arguments string `json:"arguments"`
			} `json:"function"`
		}
		_ = json.Unmarshal(m["tool_calls"], &calls)
		for j, c := range calls {
			if msg := pythonJSONError(c.Function.Arguments); msg != "" {
				return fmt.Sprintf("strict: messages[%d].tool_calls[%d] arguments %q", i, j, c.Function.Arguments), 400,
					[]byte(fmt.Sprintf(VLLMExtraData, msg))
			}
		}
	}
	return "", 0, nil
}

// pythonJSONError is the message Python's json.loads gives for s, as vLLM passes it on ("Extra data: line 1
// column N (char M)" after a complete object, "Unterminated string starting at: …" for a cut one, "Expecting
// value: …" otherwise; positions approximate); "" when s is one JSON object.
func pythonJSONError(s string) string {
	var v map[string]any
	if json.Unmarshal([]byte(s), &v) == nil {
		return ""
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var first json.RawMessage
	if dec.Decode(&first) == nil {
		n := int(dec.InputOffset())
		return fmt.Sprintf("Extra data: line 1 column %d (char %d)", n+1, n)
	}
	if strings.Count(s, `"`)%2 == 1 {
		i := strings.LastIndex(s, `"`)
		return fmt.Sprintf("Unterminated string starting at: line 1 column %d (char %d)", i+1, i)
	}
	return "Expecting value: line 1 column 1 (char 0)"
}

// proxy forwards body to the upstream, applies transform to a 200 reply and writes it; it returns the status.
func (s *Server) proxy(w http.ResponseWriter, r *http.Request, body []byte, transform string) int {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost,
		strings.TrimRight(s.opts.Upstream, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		writeOpenAIError(w, 502, "upstream_error", "", err.Error())
		return 502
	}
	req.Header.Set("Content-Type", "application/json")
	if a := r.Header.Get("Authorization"); a != "" {
		req.Header.Set("Authorization", a)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		writeOpenAIError(w, 502, "upstream_error", "", "replay: upstream: "+err.Error())
		return 502
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == 200 && transform != "" {
		var m map[string]any
		if json.Unmarshal(out, &m) == nil {
			s.mu.Lock()
			n := s.total
			s.mu.Unlock()
			for _, t := range strings.Split(transform, "+") {
				s.apply(t, m, n)
			}
			out, _ = json.Marshal(m)
		}
	}
	// The upstream's headers pass through (Retry-After of a 429 the scripted policy's fault profile sends),
	// except those the rewritten body invalidates.
	for k, vs := range resp.Header {
		switch http.CanonicalHeaderKey(k) {
		case "Content-Length", "Content-Encoding", "Transfer-Encoding", "Connection":
			continue
		}
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(out)
	return resp.StatusCode
}

// ReasoningText is the reasoning a transform adds to the n-th request's reply (the upstream sends none).
func ReasoningText(n int) string {
	return fmt.Sprintf("Step %d: I read the page snapshot and decide on the next action.", n)
}

// Signature is the thought_signature the gemini transform puts on a tool call id.
func Signature(id string) string {
	h := sha256.Sum256([]byte("thought:" + id))
	return base64.StdEncoding.EncodeToString(h[:])
}

// apply rewrites one chat.completion reply m in place for transform t (n is the request's number).
func (s *Server) apply(t string, m map[string]any, n int) {
	choices, _ := m["choices"].([]any)
	for _, c := range choices {
		ch, _ := c.(map[string]any)
		msg, _ := ch["message"].(map[string]any)
		if msg == nil {
			continue
		}
		calls, _ := msg["tool_calls"].([]any)
		content, _ := msg["content"].(string)
		switch t {
		case "deepseek":
			msg["reasoning_content"] = ReasoningText(n)
			s.want(calls, echoWant{provider: "deepseek", reasoningContent: true})
		case "reasoning":
			msg["reasoning"] = ReasoningText(n)
		case "litellm_reasoning":
			msg["reasoning_content"] = ReasoningText(n)
		case "strict_history":
			s.mu.Lock()
			s.strict = true
			s.mu.Unlock()
		case "mistral":
			parts := []any{map[string]any{"type": "thinking", "thinking": []any{
				map[string]any{"type": "text", "text": ReasoningText(n)}}}}
			if content != "" {
				parts = append(parts, map[string]any{"type": "text", "text": content})
			}
			msg["content"] = parts
		case "think_tag":
			msg["content"] = "<think>\n" + ReasoningText(n) + "\n</think>\n\n" + content
		case "object_args":
			for _, tc := range calls {
				fn := fnOf(tc)
				if a, ok := fn["arguments"].(string); ok {
					var obj any
					if json.Unmarshal([]byte(a), &obj) == nil {
						fn["arguments"] = obj
					}
				}
			}
		case "no_usage":
			delete(m, "usage")
		case "vllm":
			if len(calls) > 0 {
				msg["content"] = nil
			}
			msg["refusal"], msg["annotations"], msg["audio"], msg["function_call"], msg["reasoning_content"] = nil, nil, nil, nil, nil
			for i, tc := range calls {
				tc.(map[string]any)["id"] = "chatcmpl-tool-" + s.hexID(n, i, 32)
			}
			ch["logprobs"], ch["stop_reason"] = nil, nil
			m["prompt_logprobs"] = nil
		case "ollama":
			if len(calls) > 0 {
				msg["content"] = ""
			}
			for i, tc := range calls {
				tcm := tc.(map[string]any)
				tcm["id"] = "call_" + s.alnumID(n, i, 8)
				tcm["index"] = i
			}
			m["system_fingerprint"] = "fp_ollama"
		case "anthropic":
			for i, tc := range calls {
				tc.(map[string]any)["id"] = "toolu_01" + s.alnumID(n, i, 22)
			}
		case "gemini":
			if len(calls) > 0 {
				tcm := calls[0].(map[string]any)
				id, _ := tcm["id"].(string)
				sig := Signature(id)
				tcm["extra_content"] = map[string]any{"google": map[string]any{"thought_signature": sig}}
				s.want(calls[:1], echoWant{provider: "gemini", signature: sig})
			}
		case "no_ids":
			for _, tc := range calls {
				delete(tc.(map[string]any), "id")
			}
		case "length_cutoff":
			if len(calls) > 0 {
				fn := fnOf(calls[len(calls)-1])
				if a, ok := fn["arguments"].(string); ok {
					fn["arguments"] = a[:len(a)/2]
				}
				ch["finish_reason"] = "length"
			}
		}
	}
}

func fnOf(tc any) map[string]any {
	m, _ := tc.(map[string]any)
	fn, _ := m["function"].(map[string]any)
	if fn == nil {
		return map[string]any{}
	}
	return fn
}

// want records that the calls' ids must come back with w (merged with earlier wants on the same id).
func (s *Server) want(calls []any, w echoWant) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, tc := range calls {
		m, _ := tc.(map[string]any)
		id, _ := m["id"].(string)
		if id == "" {
			continue
		}
		old := s.echoes[id]
		if w.reasoningContent {
			old.reasoningContent = true
		}
		if w.signature != "" {
			old.signature = w.signature
		}
		old.provider = w.provider
		s.echoes[id] = old
	}
}

// hexID is a deterministic lowercase-hex id of length k for the i-th call of request n (unique per server).
func (s *Server) hexID(n, i, k int) string {
	s.mu.Lock()
	s.nextID++
	c := s.nextID
	s.mu.Unlock()
	h := sha256.Sum256([]byte(fmt.Sprint(n, ":", i, ":", c)))
	return hex.EncodeToString(h[:])[:k]
}

// alnumID is a deterministic [a-z0-9] id of length k.
func (s *Server) alnumID(n, i, k int) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
	hx := s.hexID(n, i, 64)
	var b strings.Builder
	for j := 0; j < k; j++ {
		b.WriteByte(chars[int(hx[j%64])%len(chars)])
	}
	return b.String()
}

// TransformNames lists Transforms' names, sorted.
func TransformNames() []string {
	var out []string
	for k := range Transforms {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
