package scripted

import (
	"encoding/json"
	"fmt"
	"net/http"

	openai "github.com/sashabaranov/go-openai"
)

// Streaming (a request with "stream": true) follows OpenAI's documented server-sent events of
// chat.completion.chunk objects (https://platform.openai.com/docs/api-reference/chat-streaming and the
// function-calling guide's "Streaming", https://platform.openai.com/docs/guides/function-calling#streaming):
// every chunk has the completion's id, created and model; the first delta carries the role and the content
// (or null content and each tool call's index, id, type and function name with its arguments); a last choice
// chunk has an empty delta and the finish_reason; with stream_options.include_usage a usage chunk with empty
// choices follows; the stream ends with "data: [DONE]". The policy's reply is the same as without streaming
// (the same decision, ids and usage): an external agent that streams is served as one that does not.

type streamToolCall struct {
	Index    int                 `json:"index"`
	ID       string              `json:"id"`
	Type     openai.ToolType     `json:"type"`
	Function openai.FunctionCall `json:"function"`
}

type streamDelta struct {
	Role      string           `json:"role,omitempty"`
	Content   *string          `json:"content"`
	ToolCalls []streamToolCall `json:"tool_calls,omitempty"`
}

type streamChoice struct {
	Index        int         `json:"index"`
	Delta        streamDelta `json:"delta"`
	FinishReason *string     `json:"finish_reason"`
	Logprobs     any         `json:"logprobs"`
}

type streamChunk struct {
	ID                string         `json:"id"`
	Object            string         `json:"object"`
	Created           int64          `json:"created"`
	Model             string         `json:"model"`
	SystemFingerprint string         `json:"system_fingerprint"`
	Choices           []streamChoice `json:"choices"`
	Usage             *respUsage     `json:"usage"`
}

// writeStream sends resp as the documented stream of chunks (see above); usage is sent in its own last chunk
// when includeUsage.
func writeStream(w http.ResponseWriter, resp response, includeUsage bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	chunk := func(choices []streamChoice, usage *respUsage) {
		b, _ := json.Marshal(streamChunk{ID: resp.ID, Object: "chat.completion.chunk", Created: resp.Created,
			Model: resp.Model, SystemFingerprint: resp.SystemFingerprint, Choices: choices, Usage: usage})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	msg := resp.Choices[0].Message
	first := streamDelta{Role: msg.Role, Content: msg.Content}
	for i, tc := range msg.ToolCalls {
		first.ToolCalls = append(first.ToolCalls, streamToolCall{Index: i, ID: tc.ID, Type: tc.Type,
			Function: tc.Function})
	}
	chunk([]streamChoice{{Index: 0, Delta: first}}, nil)
	finish := resp.Choices[0].FinishReason
	chunk([]streamChoice{{Index: 0, Delta: streamDelta{}, FinishReason: &finish}}, nil)
	if includeUsage {
		u := resp.Usage
		chunk([]streamChoice{}, &u)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
