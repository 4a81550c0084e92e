package scripted

import (
	"context"
	"errors"
	"io"
	"testing"

	"webbench/suites"

	openai "github.com/sashabaranov/go-openai"
)

// An external agent that streams (OpenAI's "stream": true) gets the reply it would get without streaming, as
// OpenAI's documented chunk stream (stream.go), read here by go-openai's own stream reader (an outside
// parser): the same tool calls (ids, names, arguments), content, finish reason and — with
// stream_options.include_usage — usage; without include_usage no chunk carries usage.
func TestStreamIsTheSameReply(t *testing.T) {
	h := newHarness(t, []suites.Task{qaTask(), shopTask()}, Clean())
	h.begin(goalShop, obs("/", "Shop", snapHome))
	stream := func(includeUsage bool) (openai.ChatCompletionMessage, string, *openai.Usage) {
		t.Helper()
		req := openai.ChatCompletionRequest{Model: "scripted", Messages: h.msgs, Tools: h.tools, Seed: h.seed,
			Stream: true}
		if includeUsage {
			req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
		}
		st, err := h.client.CreateChatCompletionStream(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var msg openai.ChatCompletionMessage
		var finish string
		var usage *openai.Usage
		for {
			c, err := st.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Usage != nil {
				usage = c.Usage
			}
			for _, ch := range c.Choices {
				if ch.Delta.Role != "" {
					msg.Role = ch.Delta.Role
				}
				msg.Content += ch.Delta.Content
				for _, tc := range ch.Delta.ToolCalls {
					i := *tc.Index
					for len(msg.ToolCalls) <= i {
						msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{})
					}
					if tc.ID != "" {
						msg.ToolCalls[i].ID, msg.ToolCalls[i].Type = tc.ID, tc.Type
					}
					msg.ToolCalls[i].Function.Name += tc.Function.Name
					msg.ToolCalls[i].Function.Arguments += tc.Function.Arguments
				}
				if ch.FinishReason != "" {
					finish = string(ch.FinishReason)
				}
			}
		}
		return msg, finish, usage
	}
	got, finish, usage := stream(true)
	_, _, noUsage := stream(false)
	want := h.ask() // the same conversation without streaming
	if got.Role != "assistant" || got.Content != want.Content || len(got.ToolCalls) != 1 || len(want.ToolCalls) != 1 ||
		got.ToolCalls[0] != want.ToolCalls[0] {
		t.Fatalf("streamed %+v, want %+v", got, want)
	}
	if want.ToolCalls[0].Function.Name != "browser_click" || finish != string(h.last.Choices[0].FinishReason) ||
		finish != "tool_calls" {
		t.Errorf("tool call %q, finish %q (non-stream %q)", want.ToolCalls[0].Function.Name, finish, h.last.Choices[0].FinishReason)
	}
	if usage == nil || *usage != h.last.Usage || usage.PromptTokens == 0 {
		t.Errorf("streamed usage %+v, want %+v", usage, h.last.Usage)
	}
	if noUsage != nil {
		t.Errorf("usage %+v sent without stream_options.include_usage", noUsage)
	}

	// A reply without tool calls (tools withheld: the policy's forced final answer) streams as content with
	// finish_reason "stop".
	h.tools = nil
	got, finish, _ = stream(false)
	want = h.askWith(nil)
	if got.Content == "" || got.Content != want.Content || len(got.ToolCalls) != 0 || finish != "stop" {
		t.Errorf("final reply streamed as %q (finish %q), want %q", got.Content, finish, want.Content)
	}
}
